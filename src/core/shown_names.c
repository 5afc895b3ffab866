/* SPDX-License-Identifier: MIT */
/* Threads renamed to their display names (shown_names.h). */
#include "core/shown_names.h"

#include <string.h>

#include "profkit/thread_names.h"

bool pk_rename_threads_as_shown(pk_profile *p)
{
    pk_thread_names *names = pk_thread_names_new(p);
    if (!names)
        return false;
    bool ok = true;
    for (uint32_t t = 0; t < pk_thread_count(p) && ok; t++) {
        const char *shown = pk_thread_display_name(names, t);
        if (strcmp(shown, pk_str(p, pk_thread_at(p, t)->name)) == 0)
            continue;
        uint32_t name = pk_intern_cstr(p, shown);
        if (name == PK_NONE)
            ok = false;
        else
            pk_thread_rename(p, t, name);
    }
    pk_thread_names_free(names);
    return ok;
}
