/* SPDX-License-Identifier: MIT */
/* pprof's legacy text profiles (pk_format_legacy_text, registered in format.c): the heap
 * profiles of gperftools (HEAPPROFILE, heap_v2 samples, growth stacks) and of jemalloc (prof
 * dumps), contention profiles and thread listings. All are lines of sampled stacks of
 * addresses followed by the process's mappings, which read.c turns into a profile; this header
 * is what parse.c makes of one line, with no state, so that it can be tested line by line. */
#ifndef PK_FORMATS_LEGACY_TEXT_LEGACY_TEXT_H
#define PK_FORMATS_LEGACY_TEXT_LEGACY_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profkit/format.h"

typedef enum lt_kind {
    LT_NONE = 0,
    LT_HEAP,       /* gperftools: "heap profile: ... @ heapprofile | heap_v2/RATE | heap/RATE" */
    LT_GROWTH,     /* gperftools: "heap profile: ... @ growthz" or "@ fragmentationz" */
    LT_JEMALLOC,   /* jemalloc: "heap_v2/RATE", then "t*:" and "tN:" lines under "@ stack" */
    LT_CONTENTION, /* "--- contentionz", "key = value" lines, then "delay count @ stack" */
    LT_THREADZ     /* "--- threadz N ---" or a first "--- Thread ..." header */
} lt_kind;

/* How a heap profile was sampled, as pprof's legacy parser reads its header. */
typedef enum lt_sampling {
    LT_SAMPLING_NONE, /* every allocation recorded (heapprofile, growthz): values as written */
    LT_SAMPLING_V2    /* Poisson sampling at an average of one per `rate` bytes: unsampled */
} lt_sampling;

typedef struct lt_header {
    lt_kind kind;
    lt_sampling sampling;
    int64_t rate;   /* bytes per sample (heap), or the period pprof gives the profile */
    bool has_alloc; /* the allocated pair differs from the in-use pair (pprof's test) */
} lt_header;

/* The first line that is not blank or a comment: which profile it starts, LT_NONE for none. */
lt_header lt_parse_header(const char *line, size_t len);

/* The two pairs of a heap sample line: "inuse_n: inuse_bytes [alloc_n: alloc_bytes] @ stack"
 * (jemalloc's "t*:" / "tN:" lines have the same pairs after their tag). */
typedef struct lt_pairs {
    int64_t inuse_count, inuse_bytes, alloc_count, alloc_bytes;
} lt_pairs;

/* Reads "N: N [N: N]" from *at (leading blanks skipped), moving *at past it. NULL on success,
 * else what is wrong. */
const char *lt_parse_pairs(const char **at, const char *end, lt_pairs *out);

/* Reads "@ 0x... 0x..." from *at to end into addresses (leaf first, as written, at most
 * capacity of them; *count receives how many there are). NULL on success, else what is wrong. */
const char *lt_parse_stack(const char *at, const char *end, uint64_t *addresses, size_t capacity,
                           size_t *count);

/* pprof's unsampling of a count and its bytes (scaleHeapSample): each sample stood for
 * 1 / (1 - exp(-average size / rate)) of them. */
void lt_unsample(int64_t *count, int64_t *bytes, int64_t rate);

/* A contention sample "delay count @ stack": the two numbers, *at moved past them. */
const char *lt_parse_contention(const char **at, const char *end, int64_t *delay,
                                int64_t *count);

/* "--- Thread HEX (name: NAME/TID) stack: ---": the name (pointing into the line) and the tid.
 * False when the line is not such a header. */
bool lt_parse_thread_header(const char *line, size_t len, const char **name, size_t *name_len,
                            int64_t *tid);

/* The line starts the mappings: "MAPPED_LIBRARIES:" or "--- Memory map: ---" in it. */
bool lt_is_maps_trigger(const char *line, size_t len);

/* The line with blanks trimmed at both ends. */
void lt_trim(const char **line, size_t *len);

int lt_probe(const uint8_t *data, size_t size);
pk_status lt_read(pk_input *in, pk_profile *p, const pk_read_options *options, pk_error *err);

#endif
