/* SPDX-License-Identifier: MIT */
/* heaptrack's recordings (pk_format_heaptrack, registered in format.c): the text that
 * heaptrack_interpret writes (heaptrack.NAME.PID, usually zstd- or gzip-compressed), one record
 * per line, its first character saying what it is (docs/formats/heaptrack.md). parse.c reads
 * the fields of one line, with no state; costs.c keeps each allocation site's counts as the
 * allocations and frees go by; read.c makes frames and stacks and, at the end, the profile. */
#ifndef PK_FORMATS_HEAPTRACK_HEAPTRACK_H
#define PK_FORMATS_HEAPTRACK_HEAPTRACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profkit/format.h"

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

/* An allocation site: the counts of one trace (call stack), as heaptrack_print keeps them. */
typedef struct ht_site {
    int64_t allocations, allocated;  /* calls and bytes */
    int64_t live_objects, live_bytes; /* at the current time; at the end, the leaks */
    int64_t temporary;               /* allocations freed right after (see ht_costs) */
    int64_t peak_bytes;              /* live_bytes at the peak of peak_epoch */
    uint64_t peak_epoch;
} ht_site;

/* The whole program's counts, and what turns each site's live bytes at the global peak into
 * its peak with O(1) work per event: every new peak starts an epoch, and a site records its
 * live bytes before the first change of each epoch, which are its bytes at that epoch's peak.
 * A temporary allocation is freed by the very next allocation event, as heaptrack counts them:
 * a free of the allocation info the last allocation had, before any other free. */
typedef struct ht_costs {
    int64_t allocations, temporary;
    int64_t live_bytes, peak_bytes;
    uint64_t peak_time; /* the time stamp of the first moment at peak_bytes */
    uint64_t epoch;
    uint64_t last_info; /* the allocation info of the last allocation, 0 after a free */
} ht_costs;

void ht_costs_allocate(ht_costs *c, ht_site *site, uint64_t info, int64_t size, uint64_t time);
void ht_costs_free(ht_costs *c, ht_site *site, uint64_t info, int64_t size);
/* The site's live bytes at the global peak. */
int64_t ht_site_peak(const ht_costs *c, const ht_site *site);

#endif
