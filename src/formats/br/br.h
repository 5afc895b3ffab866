/* SPDX-License-Identifier: MIT */
/* The BR (Business Rules!) profiler file: written by `DEBUG PROFILE SAMPLED|TIMED file`.
 *
 * A sequence of records, each opened by a type byte; every number is big-endian:
 *   1 module mapping   u16 module, u16 name length, name
 *   3 current line     u16 module, u32 line, u8 clause      opens a group (one sample)
 *   4 time in line     u64 nanoseconds                      TIMED files, inside a group
 *   5 backtrace        u16 module, u32 line, u8 clause      a caller, inside a group
 *   7 function name    u8 length, name                      labels the frame before it
 *   8 GOSUB                                                 likewise
 *   9 main routine                                          likewise
 *   6 end current line                                      closes the group
 * No type carries a length of its own, so an unknown type ends what can be read.
 *
 * The folder, by role: this header decodes one record, for the reader and the dump alike
 * (record.c holds its names and messages), read.c builds the model, dump.c prints the records,
 * write.c writes a profile, format.c registers the format and recognises its files.
 */
#ifndef PK_FORMATS_BR_BR_H
#define PK_FORMATS_BR_BR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/input.h"
#include "profkit/format.h"

enum br_record_type {
    BR_MODULE = 1,
    BR_LINE = 3,
    BR_TIME = 4,
    BR_BACKTRACE = 5,
    BR_END = 6,
    BR_FUNCTION = 7,
    BR_GOSUB = 8,
    BR_MAIN = 9
};

/* What labels a frame: the record after it. */
enum br_label { BR_LABEL_NONE = 0, BR_LABEL_FUNCTION, BR_LABEL_GOSUB, BR_LABEL_MAIN };

static inline uint16_t br_be16(const uint8_t *d)
{
    return (uint16_t)((unsigned)d[0] << 8 | d[1]);
}

static inline uint32_t br_be32(const uint8_t *d)
{
    return (uint32_t)d[0] << 24 | (uint32_t)d[1] << 16 | (uint32_t)d[2] << 8 | d[3];
}

/* Bytes of a record before its variable part (the name of types 1 and 7), with the type byte;
 * 0 for an unknown type. */
static inline size_t br_fixed_size(unsigned type)
{
    switch (type) {
    case BR_MODULE: return 5;
    case BR_LINE:
    case BR_BACKTRACE: return 8;
    case BR_TIME: return 9;
    case BR_FUNCTION: return 2;
    case BR_END:
    case BR_GOSUB:
    case BR_MAIN: return 1;
    default: return 0;
    }
}

/* Bytes of the name that follows the fixed part at `fixed` (the record's first byte). */
static inline size_t br_name_length(unsigned type, const uint8_t *fixed)
{
    if (type == BR_MODULE)
        return br_be16(fixed + 3);
    if (type == BR_FUNCTION)
        return fixed[1];
    return 0;
}

/* The name of a record type in messages and dumps ("current line"); NULL for an unknown type. */
const char *pk_br_record_name(unsigned type);

/* One decoded record. */
typedef struct br_record {
    uint64_t offset;      /* of the type byte */
    unsigned type;        /* enum br_record_type */
    unsigned module;      /* module mapping, current line, backtrace */
    uint32_t line;        /* current line, backtrace */
    uint8_t clause;       /* current line, backtrace */
    uint64_t nanoseconds; /* time in line */
    const uint8_t *name;  /* module mapping: the file; function name: the name; valid until the
                           * next read from the input */
    size_t name_len;
} br_record;

typedef enum br_next {
    BR_NEXT_RECORD,
    BR_NEXT_EOF,    /* the input ends cleanly before a record */
    BR_NEXT_DAMAGED /* an unknown type or a cut record, reported with pk_damage */
} br_next;

/* Report an unknown type and a record the input ends inside (damage at the record). */
void pk_br_unknown_type(const br_record *rec, pk_error *err) __attribute__((cold));
void pk_br_cut(const br_record *rec, pk_error *err) __attribute__((cold));

/* The longest fixed part (a time record): with that many bytes buffered, most records need
 * no further look at the input. */
#define BR_MAX_FIXED 9

/* Reads the next record: its type, fixed part and name, checked for an unknown type and for a
 * record the input ends inside. Where groups open and close is the reader's to check. Inline:
 * records are a few bytes each, and the reader's loop keeps the fields in registers. */
static inline br_next pk_br_next_record(pk_input *in, br_record *rec, pk_error *err)
{
    rec->offset = pk_in_offset(in);
    const uint8_t *d = in->pos;
    size_t have = pk_in_available(in);
    if (have < BR_MAX_FIXED && (have = pk_in_peek(in, BR_MAX_FIXED, &d)) == 0)
        return BR_NEXT_EOF;
    rec->type = d[0];
    size_t size = br_fixed_size(rec->type);
    if (size == 0) {
        pk_br_unknown_type(rec, err);
        return BR_NEXT_DAMAGED;
    }
    if (have < size) {
        pk_br_cut(rec, err);
        return BR_NEXT_DAMAGED;
    }
    /* The name length is in the fixed part: the whole record is known once that is read. */
    size += br_name_length(rec->type, d);
    if (have < size && pk_in_peek(in, size, &d) < size) {
        pk_br_cut(rec, err);
        return BR_NEXT_DAMAGED;
    }
    switch (rec->type) {
    case BR_MODULE:
        rec->module = br_be16(d + 1);
        rec->name = d + 5;
        rec->name_len = size - 5;
        break;
    case BR_LINE:
    case BR_BACKTRACE:
        rec->module = br_be16(d + 1);
        rec->line = br_be32(d + 3);
        rec->clause = d[7];
        break;
    case BR_TIME:
        rec->nanoseconds = (uint64_t)br_be32(d + 1) << 32 | br_be32(d + 5);
        break;
    case BR_FUNCTION:
        rec->name = d + 2;
        rec->name_len = size - 2;
        break;
    default:
        break;
    }
    /* The bytes stay where they are until the next read: name points into them. */
    pk_in_skip_buffered(in, size);
    return BR_NEXT_RECORD;
}

/* ---- the format's entry points --------------------------------------------------------------- */

pk_status pk_br_read(pk_input *in, pk_profile *p, const pk_read_options *options, pk_error *err);
pk_status pk_br_dump(pk_input *in, pk_output *out, bool raw, const pk_read_options *options,
                     pk_error *err);
pk_status pk_br_write(const pk_profile *p, pk_output *out, const pk_write_options *options,
                      pk_error *err);

#endif
