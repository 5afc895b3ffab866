/* SPDX-License-Identifier: MIT */
/* cJSON (libcjson-dev): cJSON_ParseWithLength builds the whole document's tree (linked lists
 * of children) from its text in memory. */
#include <cjson/cJSON.h>
#include <string.h>

#include "parser.h"

static jp_kind kind(const void *value)
{
    switch (((const cJSON *)value)->type & 0xff) {
    case cJSON_Object:
        return JP_OBJECT;
    case cJSON_Array:
        return JP_ARRAY;
    case cJSON_String:
        return JP_STRING;
    case cJSON_Number:
        return JP_NUMBER;
    default: /* true, false, null */
        return JP_LITERAL;
    }
}

static size_t string_length(const void *string)
{
    return strlen(((const cJSON *)string)->valuestring);
}

static void each(const void *container, jp_visit *visit, void *ctx)
{
    const cJSON *value = container;
    int is_object = (value->type & 0xff) == cJSON_Object;
    for (const cJSON *child = value->child; child; child = child->next)
        if (is_object)
            visit(ctx, child->string, strlen(child->string), child);
        else
            visit(ctx, NULL, 0, child);
}

static int load(const char *path, const char *text, size_t size, jp_document *document)
{
    (void)path;
    cJSON *root = cJSON_ParseWithLength(text, size);
    if (!root) {
        const char *at = cJSON_GetErrorPtr();
        return jp_fail("invalid JSON at byte %td", at ? at - text : (ptrdiff_t)-1);
    }
    document->root = document->tree = root;
    return 0;
}

static void release(void *tree)
{
    cJSON_Delete(tree);
}

static const jp_tree tree = {load, 0, kind, string_length, each, release};

const jp_parser jp_module = {
    .name = "cjson",
    .how = "whole document: cJSON_ParseWithLength into a tree",
    .tree = &tree};
