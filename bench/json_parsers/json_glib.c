/* SPDX-License-Identifier: MIT */
/* JSON-GLib (libjson-glib-dev): JsonParser builds the whole document's tree of JsonNodes from
 * its text in memory. */
#include <json-glib/json-glib.h>
#include <string.h>

#include "parser.h"

static jp_kind kind(const void *value)
{
    JsonNode *node = (JsonNode *)value;
    switch (json_node_get_node_type(node)) {
    case JSON_NODE_OBJECT:
        return JP_OBJECT;
    case JSON_NODE_ARRAY:
        return JP_ARRAY;
    case JSON_NODE_VALUE: {
        GType type = json_node_get_value_type(node);
        return type == G_TYPE_STRING ? JP_STRING : type == G_TYPE_BOOLEAN ? JP_LITERAL : JP_NUMBER;
    }
    default: /* null */
        return JP_LITERAL;
    }
}

static size_t string_length(const void *string)
{
    return strlen(json_node_get_string((JsonNode *)string));
}

static void each(const void *container, jp_visit *visit, void *ctx)
{
    JsonNode *node = (JsonNode *)container;
    if (json_node_get_node_type(node) == JSON_NODE_ARRAY) {
        JsonArray *array = json_node_get_array(node);
        guint n = json_array_get_length(array);
        for (guint i = 0; i < n; i++)
            visit(ctx, NULL, 0, json_array_get_element(array, i));
        return;
    }
    JsonObjectIter it;
    const char *key;
    JsonNode *member;
    json_object_iter_init(&it, json_node_get_object(node));
    while (json_object_iter_next(&it, &key, &member))
        visit(ctx, key, strlen(key), member);
}

static int load(const char *path, const char *text, size_t size, jp_document *document)
{
    (void)path;
    JsonParser *parser = json_parser_new();
    document->tree = parser;
    GError *error = NULL;
    if (!json_parser_load_from_data(parser, text, (gssize)size, &error)) {
        int status = jp_fail("%s", error->message);
        g_error_free(error);
        return status;
    }
    document->root = json_parser_get_root(parser);
    return 0;
}

static void release(void *tree)
{
    g_object_unref(tree);
}

static const jp_tree tree = {load, 0, kind, string_length, each, release};

const jp_parser jp_module = {
    .name = "json-glib",
    .how = "whole document: JsonParser into a tree",
    .tree = &tree};
