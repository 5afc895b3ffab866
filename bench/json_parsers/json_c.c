/* json-c (libjson-c-dev): json_tokener_parse_ex takes the document in chunks but builds the
 * whole tree, which is then walked and freed. fastjson.c compiles this file again against
 * libfastjson, json-c's fork, whose headers map json-c's names to its own. */
#include <string.h>

#ifndef JP_JSON_C_FORK
#include <json-c/json.h>
#define JP_JSON_C_NAME "json-c"
#endif

#include "parser.h"

static void walk(struct json_object *value, jp_tally *t)
{
    switch (json_object_get_type(value)) {
    case json_type_object: {
        t->objects++;
        struct json_object_iterator it = json_object_iter_begin(value);
        struct json_object_iterator end = json_object_iter_end(value);
        for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
            t->keys++;
            t->text_bytes += strlen(json_object_iter_peek_name(&it));
            walk(json_object_iter_peek_value(&it), t);
        }
        break;
    }
    case json_type_array: {
        t->arrays++;
        size_t n = (size_t)json_object_array_length(value);
        for (size_t i = 0; i < n; i++)
            walk(json_object_array_get_idx(value, i), t);
        break;
    }
    case json_type_string:
        t->strings++;
        t->text_bytes += (uint64_t)json_object_get_string_len(value);
        break;
    case json_type_int:
    case json_type_double:
        t->numbers++;
        break;
    default: /* null (a NULL object), true, false */
        t->literals++;
        break;
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

static int parse(const char *path, jp_tally *tally)
{
    json_c_input in = {json_tokener_new(), NULL, 0, 0};
    int status = jp_read_chunks(path, feed, &in);
    json_tokener_free(in.tokener);
    if (status == 0 && !in.complete)
        status = jp_fail("the document ends early");
    jp_phase("parse");
    if (status == 0) {
        walk(in.root, tally);
        jp_phase("walk");
    }
    json_object_put(in.root);
    jp_phase("free");
    return status;
}

const jp_parser jp_module = {
    JP_JSON_C_NAME, "whole document: json_tokener_parse_ex on 1 MiB chunks into a tree", parse};
