/* SPDX-License-Identifier: MIT */
/* json-c (libjson-c-dev): json_tokener_parse_ex takes the document in chunks but builds the
 * whole tree. fastjson.c compiles this file again against libfastjson, json-c's fork, whose
 * headers map json-c's names to its own. */
#include <string.h>

#ifndef JP_JSON_C_FORK
#include <json-c/json.h>
#define JP_JSON_C_NAME "json-c"
#endif

#include "parser.h"

static jp_kind kind(const void *value)
{
    switch (json_object_get_type((struct json_object *)value)) {
    case json_type_object:
        return JP_OBJECT;
    case json_type_array:
        return JP_ARRAY;
    case json_type_string:
        return JP_STRING;
    case json_type_int:
    case json_type_double:
        return JP_NUMBER;
    default: /* null (a NULL object), true, false */
        return JP_LITERAL;
    }
}

static size_t string_length(const void *string)
{
    return (size_t)json_object_get_string_len((struct json_object *)string);
}

static void each(const void *container, jp_visit *visit, void *ctx)
{
    struct json_object *value = (struct json_object *)container;
    if (json_object_get_type(value) == json_type_array) {
        size_t n = (size_t)json_object_array_length(value);
        for (size_t i = 0; i < n; i++)
            visit(ctx, NULL, 0, json_object_array_get_idx(value, i));
        return;
    }
    struct json_object_iterator it = json_object_iter_begin(value);
    struct json_object_iterator end = json_object_iter_end(value);
    for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
        const char *key = json_object_iter_peek_name(&it);
        visit(ctx, key, strlen(key), json_object_iter_peek_value(&it));
    }
}

typedef struct {
    struct json_tokener *tokener;
    struct json_object *root;
    int complete;
    size_t offset; /* of the chunk in the file */
} json_c_input;

static int only_blanks(const char *data, size_t size)
{
    for (size_t i = 0; i < size; i++)
        if (!strchr(" \t\r\n", data[i]))
            return 0;
    return 1;
}

static int feed(void *ctx, const char *data, size_t size)
{
    json_c_input *in = ctx;
    size_t offset = in->offset;
    in->offset += size;
    if (in->complete)
        return only_blanks(data, size) ? 0 : jp_fail("bytes after the document at %zu", offset);
    /* the chunks are 1 MiB: within the int the API takes */
    in->root = json_tokener_parse_ex(in->tokener, data, (int)size);
    enum json_tokener_error error = json_tokener_get_error(in->tokener);
    if (error == json_tokener_continue)
        return 0;
    size_t end = json_tokener_get_parse_end(in->tokener);
    if (error != json_tokener_success)
        return jp_fail("%s at byte %zu", json_tokener_error_desc(error), offset + end);
    in->complete = 1;
    return only_blanks(data + end, size - end)
               ? 0
               : jp_fail("bytes after the document at %zu", offset + end);
}

static int load(const char *path, const char *text, size_t size, jp_document *document)
{
    (void)text;
    (void)size;
    json_c_input in = {json_tokener_new(), NULL, 0, 0};
    int status = jp_read_chunks(path, feed, &in);
    json_tokener_free(in.tokener);
    if (status == 0 && !in.complete)
        status = jp_fail("the document ends early");
    document->root = document->tree = in.root;
    return status;
}

static void release(void *tree)
{
    json_object_put(tree);
}

static const jp_tree tree = {load, 1, kind, string_length, each, release};

const jp_parser jp_module = {
    .name = JP_JSON_C_NAME,
    .how = "whole document: json_tokener_parse_ex on 1 MiB chunks into a tree",
    .tree = &tree};
