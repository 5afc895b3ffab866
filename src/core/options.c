/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "profkit/format.h"

const char *pk_option_get(const pk_option_list *list, const char *name)
{
    const char *value = NULL;
    for (size_t i = 0; list && i < list->count; i++) {
        if (strcmp(list->items[i].name, name) == 0)
            value = list->items[i].value;
    }
    return value;
}

const char *pk_option_get_nth(const pk_option_list *list, const char *name, size_t index)
{
    for (size_t i = 0; list && i < list->count; i++) {
        if (strcmp(list->items[i].name, name) == 0 && index-- == 0)
            return list->items[i].value;
    }
    return NULL;
}
