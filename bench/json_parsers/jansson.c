/* jansson (libjansson-dev): json_loadb builds the whole document's tree from its text in
 * memory; the tree is then walked and freed. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "parser.h"

static void walk(const json_t *value, jp_tally *t)
{
    switch (json_typeof(value)) {
    case JSON_OBJECT: {
        t->objects++;
        const char *key;
        const json_t *member;
        json_object_foreach((json_t *)value, key, member)
        {
            t->keys++;
            t->text_bytes += strlen(key);
            walk(member, t);
        }
        break;
    }
    case JSON_ARRAY: {
        t->arrays++;
        size_t n = json_array_size(value);
        for (size_t i = 0; i < n; i++)
            walk(json_array_get(value, i), t);
        break;
    }
    case JSON_STRING:
        t->strings++;
        t->text_bytes += json_string_length(value);
        break;
    case JSON_INTEGER:
    case JSON_REAL:
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
    json_error_t error;
    json_t *root = json_loadb(text, size, 0, &error);
    jp_phase("parse");
    int status = 0;
    if (!root)
        status = jp_fail("%s at byte %d (line %d, column %d)", error.text, error.position,
                         error.line, error.column);
    else
        walk(root, tally);
    jp_phase("walk");
    json_decref(root);
    free(text);
    jp_phase("free");
    return status;
}

const jp_parser jp_module = {"jansson", "whole document: json_loadb into a tree", parse};
