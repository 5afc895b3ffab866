/* SPDX-License-Identifier: MIT */
#include "formats/firefox/remap.h"

#include <stdlib.h>

bool fx_remap_init(fx_remap *m, size_t model_count)
{
    size_t n = model_count ? model_count : 1;
    m->local = malloc(n * sizeof *m->local);
    m->stamp = calloc(n, sizeof *m->stamp);
    m->items = malloc(n * sizeof *m->items);
    m->count = 0;
    return m->local && m->stamp && m->items;
}

void fx_remap_free(fx_remap *m)
{
    free(m->local);
    free(m->stamp);
    free(m->items);
}
