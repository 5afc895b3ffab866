/* SPDX-License-Identifier: MIT */
/* heaptrack's recordings (pk_format_heaptrack, registered in format.c): the text that
 * heaptrack_interpret writes (heaptrack.NAME.PID, usually zstd- or gzip-compressed), one record
 * per line, its first character saying what it is (docs/formats/heaptrack.md). parse.c reads
 * the fields of one line, with no state; the ht_costs functions below keep each allocation
 * site's counts as the allocations and frees go by; read.c makes frames and stacks and, at the
 * end, the profile. */
#ifndef PK_FORMATS_HEAPTRACK_HEAPTRACK_H
#define PK_FORMATS_HEAPTRACK_HEAPTRACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profkit/format.h"
#include "profkit/profile.h"

/* The newest file format version profkit knows (heaptrack 1.1 and later write 2 or 3; 3 sizes
 * its strings). Version 0 (heaptrack before 1.0) recorded pointers, not allocation infos. */
#define HT_FILE_VERSION_MAX 3

/* Reads up to `capacity` hexadecimal numbers, each after one or more spaces, from at to end
 * into out; *count receives how many were read. NULL on success (the line may end or go on
 * after them), else what is wrong: a field that is not a number, one beyond 64 bits. */
const char *ht_parse_hex(const char *at, const char *end, uint64_t *out, size_t capacity,
                         size_t *count);

/* A string record's text: "s LEN TEXT" (LEN in hexadecimal) when sized, "s TEXT" before file
 * version 3. *text and *len receive it. NULL on success, else what is wrong. */
const char *ht_parse_string(const char *line, size_t len, bool sized, const char **text,
                            size_t *text_len);

/* Probes the first bytes: "v VERSION FILEVERSION" then a record heaptrack writes next. */
int ht_probe(const uint8_t *data, size_t size);

/* Reads a recording into p (read.c). */
pk_status ht_read(pk_input *in, pk_profile *p, const pk_read_options *options, pk_error *err);

/* The counts of one allocation info (a size at a stack), as heaptrack_print keeps them per
 * stack: bytes are the counts times the size, so that an event touches one record. */
typedef struct ht_counts {
    int64_t allocations;
    int64_t live;         /* at the current time; at the end, the leaks */
    int64_t temporary;    /* allocations freed right after (see ht_costs) */
    int64_t peak_live;    /* live at the peak of peak_epoch */
    uint64_t peak_epoch;
} ht_counts;

/* The whole program's counts, and what turns each info's live blocks at the global peak into
 * its peak with O(1) work per event: every new peak starts an epoch, and an info records its
 * live blocks before its first change in each epoch, which are its blocks at that epoch's peak.
 * A temporary allocation is freed by the very next allocation event, as heaptrack counts them:
 * a free of the allocation info the last allocation had, before any other free. */
typedef struct ht_costs {
    int64_t allocations, temporary;
    int64_t live_bytes, peak_bytes;
    uint64_t peak_time; /* the time stamp of the first moment at peak_bytes */
    uint64_t epoch;
    uint64_t last_info; /* the allocation info of the last allocation, 0 after a free */
} ht_costs;

/* Inline, as they run once per event. Byte sums wrap rather than overflow (a file may give any
 * sizes); the profile's totals then say when values no longer sum. */
static inline int64_t ht_add(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

/* Before an info's counts change: its live blocks are what it held at the last peak, unless it
 * already changed since (and recorded them then). */
static inline void ht_touch(const ht_costs *c, ht_counts *n)
{
    if (n->peak_epoch != c->epoch) {
        n->peak_live = n->live;
        n->peak_epoch = c->epoch;
    }
}

static inline void ht_costs_allocate(ht_costs *c, ht_counts *n, uint64_t info, int64_t size,
                                     uint64_t time)
{
    ht_touch(c, n);
    n->allocations++;
    n->live++;
    c->allocations++;
    c->live_bytes = ht_add(c->live_bytes, size);
    c->last_info = info;
    if (c->live_bytes > c->peak_bytes) {
        c->peak_bytes = c->live_bytes;
        c->peak_time = time;
        c->epoch++;
    }
}

static inline void ht_costs_free(ht_costs *c, ht_counts *n, uint64_t info, int64_t size)
{
    /* heaptrack compares with the last allocation's info index, which is 0 before the first
     * allocation and after any free: a free of info 0 then counts as temporary too */
    bool temporary = c->last_info == info;
    c->last_info = 0;
    ht_touch(c, n);
    n->live--;
    c->live_bytes = ht_add(c->live_bytes, -size);
    if (temporary) {
        n->temporary++;
        c->temporary++;
    }
}

/* The info's live blocks at the global peak. */
static inline int64_t ht_peak_live(const ht_costs *c, const ht_counts *n)
{
    return n->peak_epoch == c->epoch ? n->peak_live : n->live;
}

#endif
