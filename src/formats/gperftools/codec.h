/* SPDX-License-Identifier: MIT */
/* gperftools CPU profiles (libprofiler's CPUPROFILE output): the binary part, decoded in one
 * place for the reader and the dump.
 *
 * Layout: pointer-sized "slots" in the profiled machine's byte order, no magic. A header of
 * slots 0, n (>= 3 header slots follow), version, sampling period in microseconds, padding;
 * records of count, depth and depth PCs (leaf first); the trailer 0, 1, 0; then the text of
 * /proc/self/maps to the end of the file (core/procmaps.h reads it). The word size and byte
 * order are found as pprof finds them: the first of 32-bit LE, 32-bit BE, 64-bit LE, 64-bit BE
 * whose header reads right.
 */
#ifndef PK_FORMATS_GPERFTOOLS_CODEC_H
#define PK_FORMATS_GPERFTOOLS_CODEC_H

#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/input.h"
#include "profkit/error.h"

/* gperftools records at most 254 PCs; perl pprof refuses more than 2^16. A deeper record that
 * runs past the end of the file is damage, not a truncated record. */
#define GP_MAX_PLAUSIBLE_DEPTH 65536u
/* Slot 1 is bounded so that a byte-swapped 3 (0x03000000...) does not pass for a long header
 * of the other byte order. */
#define GP_MAX_HEADER_SLOTS 0xffffu
/* The fixed header slots: 0, slots after slot 1, version, period, padding. */
#define GP_HEADER_SLOTS 5u

typedef struct gp_layout {
    unsigned word; /* 4 or 8 */
    bool big;      /* big-endian */
} gp_layout;

static inline uint64_t gp_word(const uint8_t *b, gp_layout l)
{
    if (l.word == 8) {
        uint64_t v;
        memcpy(&v, b, 8);
        return l.big ? be64toh(v) : le64toh(v);
    }
    uint32_t v;
    memcpy(&v, b, 4);
    return l.big ? be32toh(v) : le32toh(v);
}

/* The layout whose header slots 0..2 read 0, 3..GP_MAX_HEADER_SLOTS, and 0 (C++) or 1 (Java);
 * false when none does. */
bool gp_detect(const uint8_t *data, size_t size, gp_layout *out);

/* Scores the first bytes of an input (pk_format.probe). */
int gp_probe(const uint8_t *data, size_t size);

/* ---- the header -------------------------------------------------------------------------------- */

typedef struct gp_header {
    gp_layout layout;
    uint64_t slots[GP_HEADER_SLOTS]; /* slots[1]: header slots after slot 1 (>= 3) */
    unsigned present;                /* fixed slots the input holds: 5 unless it is cut short */
} gp_header;

static inline uint64_t gp_header_version(const gp_header *h)
{
    return h->slots[2];
}

static inline uint64_t gp_header_period_us(const gp_header *h)
{
    return h->slots[3];
}

/* Slots beyond the fixed five (slot 1 says 3 for the usual header). */
static inline uint64_t gp_header_extra_slots(const gp_header *h)
{
    return h->slots[1] - 3;
}

/* Reads the fixed header slots; the extra ones follow in the input. Errors (not salvageable:
 * nothing comes before the header) for an input that is not a gperftools profile or ends
 * inside the fixed slots; h->present tells how many there were. */
pk_status gp_decode_header(pk_input *in, gp_header *h, pk_error *err);
/* Skips the extra header slots; an error when the input cannot hold them. */
pk_status gp_skip_header_extra(pk_input *in, const gp_header *h, pk_error *err);
/* Reads one slot; false at the end of the input. */
bool gp_read_slot(pk_input *in, gp_layout layout, uint64_t *value);

/* ---- the records ------------------------------------------------------------------------------- */

typedef enum gp_step {
    GP_STEP_RECORD,  /* a whole record (its count may be 0) */
    GP_STEP_TRAILER, /* 0, 1, 0: the maps text follows */
    GP_STEP_END,     /* the input ends where a record would start: there is no trailer */
    GP_STEP_CUT,     /* the input ends inside a record */
    GP_STEP_FAILED   /* damage (salvageable: the records before it are whole) or an error */
} gp_step;

typedef struct gp_record {
    uint64_t offset;     /* of its count slot */
    uint64_t count;
    uint64_t depth;
    const uint64_t *pcs; /* leaf first, then return addresses; valid until the next record */
    size_t present;      /* PCs read: depth, fewer when the record is cut */
    size_t head_bytes;   /* GP_STEP_CUT inside count and depth: the bytes of them present
                          * (count and depth are then unknown); 0 otherwise */
} gp_record;

typedef struct gp_records {
    pk_input *in;
    gp_layout layout;
    uint64_t *pcs;
    size_t pcs_capacity;
} gp_records;

static inline void gp_records_init(gp_records *d, pk_input *in, gp_layout layout)
{
    *d = (gp_records){in, layout, NULL, 0};
}

void gp_records_free(gp_records *d);
/* Reads the next record. Nothing is allocated from a count in the file: PCs are kept as they
 * arrive. */
gp_step gp_next_record(gp_records *d, gp_record *rec, pk_error *err);

#endif
