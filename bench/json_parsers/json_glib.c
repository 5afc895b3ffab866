/* JSON-GLib (libjson-glib-dev): JsonParser builds the whole document's tree of JsonNodes from
 * its text in memory; the tree is then walked and freed. */
#include <json-glib/json-glib.h>
#include <stdlib.h>
#include <string.h>

#include "parser.h"

static void walk(JsonNode *node, jp_tally *t)
{
    switch (json_node_get_node_type(node)) {
    case JSON_NODE_OBJECT: {
        t->objects++;
        JsonObjectIter it;
        const char *key;
        JsonNode *member;
        json_object_iter_init(&it, json_node_get_object(node));
        while (json_object_iter_next(&it, &key, &member)) {
            t->keys++;
            t->text_bytes += strlen(key);
            walk(member, t);
        }
        break;
    }
    case JSON_NODE_ARRAY: {
        t->arrays++;
        JsonArray *array = json_node_get_array(node);
        guint n = json_array_get_length(array);
        for (guint i = 0; i < n; i++)
            walk(json_array_get_element(array, i), t);
        break;
    }
    case JSON_NODE_VALUE: {
        GType type = json_node_get_value_type(node);
        if (type == G_TYPE_STRING) {
            t->strings++;
            t->text_bytes += strlen(json_node_get_string(node));
        } else if (type == G_TYPE_BOOLEAN) {
            t->literals++;
        } else {
            t->numbers++;
        }
        break;
    }
    case JSON_NODE_NULL:
        t->literals++;
        break;
    }
}

static int parse(const char *path, jp_tally *tally)
{
    size_t size;
    char *text = jp_read_whole(path, &size);
    if (!text)
        return 1;
    JsonParser *parser = json_parser_new();
    GError *error = NULL;
    int status = 0;
    if (!json_parser_load_from_data(parser, text, (gssize)size, &error)) {
        status = jp_fail("%s", error->message);
        g_error_free(error);
    }
    jp_phase("parse");
    if (status == 0)
        walk(json_parser_get_root(parser), tally);
    jp_phase("walk");
    g_object_unref(parser);
    free(text);
    jp_phase("free");
    return status;
}

const jp_parser jp_module = {"json-glib", "whole document: JsonParser into a tree", parse};
