/* SPDX-License-Identifier: MIT */
/* json-parser (libjsonparser-dev): json_parse_ex builds the whole document's tree from its
 * text in memory (two passes: one to size the values, one to fill them). */
#include <json-parser/json.h>

#include "parser.h"

static jp_kind kind(const void *value)
{
    switch (((const json_value *)value)->type) {
    case json_object:
        return JP_OBJECT;
    case json_array:
        return JP_ARRAY;
    case json_string:
        return JP_STRING;
    case json_integer:
    case json_double:
        return JP_NUMBER;
    default: /* true, false, null */
        return JP_LITERAL;
    }
}

static size_t string_length(const void *string)
{
    return ((const json_value *)string)->u.string.length;
}

static void each(const void *container, jp_visit *visit, void *ctx)
{
    const json_value *value = container;
    if (value->type == json_array) {
        for (unsigned i = 0; i < value->u.array.length; i++)
            visit(ctx, NULL, 0, value->u.array.values[i]);
        return;
    }
    for (unsigned i = 0; i < value->u.object.length; i++) {
        const json_object_entry *member = &value->u.object.values[i];
        visit(ctx, member->name, member->name_length, member->value);
    }
}

static int load(const char *path, const char *text, size_t size, jp_document *document)
{
    (void)path;
    json_settings settings = {0};
    char error[json_error_max];
    json_value *root = json_parse_ex(&settings, text, size, error);
    if (!root)
        return jp_fail("%s", error);
    document->root = document->tree = root;
    return 0;
}

static void release(void *tree)
{
    json_value_free(tree);
}

static const jp_tree tree = {load, 0, kind, string_length, each, release};

const jp_parser jp_module = {
    .name = "json-parser",
    .how = "whole document: json_parse_ex into a tree",
    .tree = &tree};
