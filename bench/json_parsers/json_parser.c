/* json-parser (libjsonparser-dev): json_parse_ex builds the whole document's tree from its
 * text in memory (two passes: one to size the values, one to fill them); the tree is then
 * walked and freed. */
#include <json-parser/json.h>
#include <stdlib.h>

#include "parser.h"

static void walk(const json_value *value, jp_tally *t)
{
    switch (value->type) {
    case json_object:
        t->objects++;
        for (unsigned i = 0; i < value->u.object.length; i++) {
            t->keys++;
            t->text_bytes += value->u.object.values[i].name_length;
            walk(value->u.object.values[i].value, t);
        }
        break;
    case json_array:
        t->arrays++;
        for (unsigned i = 0; i < value->u.array.length; i++)
            walk(value->u.array.values[i], t);
        break;
    case json_string:
        t->strings++;
        t->text_bytes += value->u.string.length;
        break;
    case json_integer:
    case json_double:
        t->numbers++;
        break;
    default: /* true, false, null */
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
    json_settings settings = {0};
    char error[json_error_max];
    json_value *root = json_parse_ex(&settings, text, size, error);
    jp_phase("parse");
    int status = 0;
    if (!root)
        status = jp_fail("%s", error);
    else
        walk(root, tally);
    jp_phase("walk");
    if (root)
        json_value_free(root);
    free(text);
    jp_phase("free");
    return status;
}

const jp_parser jp_module = {"json-parser", "whole document: json_parse_ex into a tree",
                                  parse};
