/* SPDX-License-Identifier: MIT */
/* jansson (libjansson-dev): json_loadb builds the whole document's tree from its text in
 * memory. */
#include <jansson.h>
#include <string.h>

#include "parser.h"

static jp_kind kind(const void *value)
{
    switch (json_typeof((const json_t *)value)) {
    case JSON_OBJECT:
        return JP_OBJECT;
    case JSON_ARRAY:
        return JP_ARRAY;
    case JSON_STRING:
        return JP_STRING;
    case JSON_INTEGER:
    case JSON_REAL:
        return JP_NUMBER;
    default: /* true, false, null */
        return JP_LITERAL;
    }
}

static size_t string_length(const void *string)
{
    return json_string_length(string);
}

static void each(const void *container, jp_visit *visit, void *ctx)
{
    json_t *value = (json_t *)container;
    if (json_is_array(value)) {
        size_t n = json_array_size(value);
        for (size_t i = 0; i < n; i++)
            visit(ctx, NULL, 0, json_array_get(value, i));
        return;
    }
    const char *key;
    json_t *member;
    json_object_foreach(value, key, member)
    {
        visit(ctx, key, strlen(key), member);
    }
}

static int load(const char *path, const char *text, size_t size, jp_document *document)
{
    (void)path;
    json_error_t error;
    json_t *root = json_loadb(text, size, 0, &error);
    if (!root)
        return jp_fail("%s at byte %d (line %d, column %d)", error.text, error.position,
                       error.line, error.column);
    document->root = document->tree = root;
    return 0;
}

static void release(void *tree)
{
    json_decref(tree);
}

static const jp_tree tree = {load, 0, kind, string_length, each, release};

const jp_parser jp_module = {
    .name = "jansson",
    .how = "whole document: json_loadb into a tree",
    .tree = &tree};
