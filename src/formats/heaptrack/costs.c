/* SPDX-License-Identifier: MIT */
/* Allocation sites' counts as allocations and frees go by (heaptrack.h). */
#include "formats/heaptrack/heaptrack.h"

/* Sums wrap rather than overflow (a file may give any sizes); the profile's totals then say
 * when values no longer sum. */
static int64_t add(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

/* Before a site changes: its live bytes are what it held at the last peak, unless it already
 * changed since (and recorded them then). */
static void touch(const ht_costs *c, ht_site *site)
{
    if (site->peak_epoch != c->epoch) {
        site->peak_bytes = site->live_bytes;
        site->peak_epoch = c->epoch;
    }
}

void ht_costs_allocate(ht_costs *c, ht_site *site, uint64_t info, int64_t size, uint64_t time)
{
    touch(c, site);
    site->allocations++;
    site->allocated = add(site->allocated, size);
    site->live_objects++;
    site->live_bytes = add(site->live_bytes, size);
    c->allocations++;
    c->live_bytes = add(c->live_bytes, size);
    c->last_info = info;
    if (c->live_bytes > c->peak_bytes) {
        c->peak_bytes = c->live_bytes;
        c->peak_time = time;
        c->epoch++;
    }
}

void ht_costs_free(ht_costs *c, ht_site *site, uint64_t info, int64_t size)
{
    /* heaptrack compares with the last allocation's info index, which is 0 before the first
     * allocation and after any free: a free of info 0 then counts as temporary too */
    bool temporary = c->last_info == info;
    c->last_info = 0;
    touch(c, site);
    site->live_objects--;
    site->live_bytes = add(site->live_bytes, -size);
    c->live_bytes = add(c->live_bytes, -size);
    if (temporary) {
        site->temporary++;
        c->temporary++;
    }
}

int64_t ht_site_peak(const ht_costs *c, const ht_site *site)
{
    return site->peak_epoch == c->epoch ? site->peak_bytes : site->live_bytes;
}
