/* cJSON (libcjson-dev): cJSON_ParseWithLength builds the whole document's tree (linked lists
 * of children) from its text in memory; the tree is then walked and freed. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "parser.h"

static void walk(const cJSON *value, jp_tally *t)
{
    switch (value->type & 0xff) {
    case cJSON_Object:
        t->objects++;
        for (const cJSON *member = value->child; member; member = member->next) {
            t->keys++;
            t->text_bytes += strlen(member->string);
            walk(member, t);
        }
        break;
    case cJSON_Array:
        t->arrays++;
        for (const cJSON *item = value->child; item; item = item->next)
            walk(item, t);
        break;
    case cJSON_String:
        t->strings++;
        t->text_bytes += strlen(value->valuestring);
        break;
    case cJSON_Number:
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
    cJSON *root = cJSON_ParseWithLength(text, size);
    jp_phase("parse");
    int status = 0;
    if (!root) {
        const char *at = cJSON_GetErrorPtr();
        status = jp_fail("invalid JSON at byte %td", at ? at - text : (ptrdiff_t)-1);
    } else {
        walk(root, tally);
    }
    jp_phase("walk");
    cJSON_Delete(root);
    free(text);
    jp_phase("free");
    return status;
}

const jp_parser jp_module = {"cjson", "whole document: cJSON_ParseWithLength into a tree", parse};
