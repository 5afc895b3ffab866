/* SPDX-License-Identifier: MIT */
/* Streaming JSON input: a SAX-style parser (yajl) over a pk_input, for the JSON readers.
 * (core/json.h is the emitter; everything here is named pk_json_parser_* / pk_json_scalar_*.)
 *
 * The document is never held: the parser walks the input's buffered chunks and calls the
 * reader's handler for each scalar and for the start and end of each object and array. It keeps
 * the path to the current value (the key or array index at every level), so a reader follows the
 * structure by asking where it is instead of keeping its own stack:
 *
 *     static bool on_scalar(void *ctx, pk_json_parser *jp, const pk_json_scalar *v)
 *     {
 *         // {"traceEvents": [{"ph": "X", ...}, ...]}: the "ph" of every event
 *         if (pk_json_parser_match(jp, 0, "traceEvents/#/ph") && !pk_json_scalar_is(v, "X"))
 *             ...
 *         if (bad)
 *             return pk_json_parser_fail(jp, "an event's ts is not a number");
 *         return true;
 *     }
 *     pk_status status = pk_json_read(in, &(pk_json_handler){.scalar = on_scalar, .end = on_end},
 *                                     ctx, "the trace", NULL, NULL, err);
 *
 * (pk_json_read is pk_json_parser_init, pk_json_parser_run, pk_json_parser_error and
 * pk_json_parser_release in one; the probes run the parser over memory themselves.)
 *
 * The path. depth is the number of containers enclosing the value a callback is about; level 0
 * is the outermost. At level L the container is an object (pk_json_parser_key(jp, L) is the key
 * of the member being read) or an array (pk_json_parser_index(jp, L) is the element's index).
 * begin and end of a container see the container's own position (its contents are one level
 * deeper). Patterns for pk_json_parser_match are keys separated by '/', with '#' for any array
 * index and '*' for any key; a pattern matches the levels from `from` to the value exactly
 * ("#/ph" at 0 matches the "ph" of an element of a top-level array; "ph" at 1 matches it too).
 *
 * Values: numbers come as int64 when they are integers that fit (i, with d = (double)i), else as
 * double (d, correctly rounded, whatever the locale) with the number's text in s and len, for a
 * reader that wants it exactly (pk_json_scalar_decimal); strings as bytes with their length,
 * validated UTF-8, escapes decoded, not NUL-terminated, valid only during the callback.
 *
 * Ends: a document that ends early (a trace whose writer stopped mid-file, without its closing
 * `]`) is PK_JSON_CUT: every callback made was for bytes that were there, and a container whose
 * end was never seen was cut; readers keep what they completed at end callbacks. A syntax error
 * is PK_JSON_INVALID with the byte offset just past the offending token; a handler that refuses what it sees calls
 * pk_json_parser_fail (PK_JSON_FAILED) or pk_json_parser_stop (PK_JSON_STOPPED: the reader has
 * what it needs; nothing more is read). Offsets count the input's bytes (pk_in_offset), so they
 * are byte offsets of the decompressed stream for compressed inputs.
 *
 * Memory: the nesting depth and the keys on the current path, plus the longest single token
 * (yajl keeps a token that straddles two chunks); never the document.
 */
#ifndef PK_CORE_JSON_INPUT_H
#define PK_CORE_JSON_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/buffer.h"
#include "profkit/error.h"
#include "profkit/format.h"

/* Deeper nesting is refused as invalid (the path costs a few bytes per level). */
#define PK_JSON_MAX_DEPTH 100000u

typedef enum pk_json_kind {
    PK_JSON_NULL,
    PK_JSON_BOOL,
    PK_JSON_INT,    /* an integer that fits int64: i (and d) */
    PK_JSON_DOUBLE, /* any other number: d */
    PK_JSON_STRING  /* s, len */
} pk_json_kind;

typedef struct pk_json_scalar {
    pk_json_kind kind;
    bool boolean;
    int64_t i;
    double d;
    const char *s; /* a string, or a double's text; not NUL-terminated; valid during the
                    * callback only */
    size_t len;
} pk_json_scalar;

typedef struct pk_json_parser pk_json_parser;

/* Callbacks return true to go on, false to stop: after pk_json_parser_fail or
 * pk_json_parser_stop (return their result). Any callback may be NULL. */
typedef struct pk_json_handler {
    bool (*scalar)(void *ctx, pk_json_parser *jp, const pk_json_scalar *v);
    bool (*begin)(void *ctx, pk_json_parser *jp, bool is_array);
    bool (*end)(void *ctx, pk_json_parser *jp, bool is_array);
} pk_json_handler;

typedef enum pk_json_end {
    PK_JSON_COMPLETE, /* one whole document, nothing but white space after it */
    PK_JSON_CUT,      /* the input ended inside the document */
    PK_JSON_STOPPED,  /* a handler called pk_json_parser_stop */
    PK_JSON_INVALID,  /* not JSON at the error offset */
    PK_JSON_FAILED,   /* a handler called pk_json_parser_fail */
    PK_JSON_NOMEM     /* memory ran out */
} pk_json_end;

typedef struct pk_json_level {
    bool is_array;
    uint32_t key_start; /* the member's key in the parser's key bytes (objects) */
    uint32_t key_len;
    uint64_t index;     /* the element's index (arrays); UINT64_MAX before the first */
} pk_json_level;

struct pk_json_parser {
    pk_json_handler handler;
    void *ctx;
    void *yajl;          /* yajl_handle */
    pk_json_level *levels;
    uint32_t depth;
    uint32_t levels_capacity;
    uint32_t skip_depth; /* callbacks are suppressed while depth >= skip_depth (0: none) */
    pk_buffer keys;      /* the keys on the current path, end to end */
    pk_buffer number;    /* a long number's text, NUL-terminated for strtod */
    void *c_locale;      /* locale_t for strtod_l, made on first use */
    uint64_t chunk_base; /* input offset of the chunk yajl is parsing */
    uint64_t error_offset;
    pk_json_end stop;    /* why a handler stopped the parse */
    bool nomem;
    bool finishing;      /* the input has ended: only a top-level scalar can still complete */
    char message[256];
};

void pk_json_parser_init(pk_json_parser *jp, const pk_json_handler *handler, void *ctx);
void pk_json_parser_release(pk_json_parser *jp);

/* Parses the document from in's current position to its end (or until a handler stops it).
 * A UTF-8 byte-order mark at the start is skipped. */
pk_json_end pk_json_parser_run(pk_json_parser *jp, pk_input *in);

/* The same over bytes in memory (the probe helpers; tests). */
pk_json_end pk_json_parser_run_memory(pk_json_parser *jp, const void *data, size_t size);

/* A reader's whole parse of in: init, run and release around the reader's handler. what names
 * the document in messages ("the speedscope file"). With not_a ("not a speedscope file") the
 * document must be an object: an array or a scalar is refused ("not a speedscope file: the
 * document is an array") before the reader sees anything; the check costs the reader's callbacks
 * nothing (it sits in front of the first one only). Returns PK_OK when the document completed or
 * a handler stopped it, else pk_json_parser_error's status; run, when not NULL, says how it
 * ended and where (pk_json_parser_error_offset), for a reader that treats an end specially. */
typedef struct pk_json_run {
    pk_json_end how;
    uint64_t offset;
} pk_json_run;
pk_status pk_json_read(pk_input *in, const pk_json_handler *handler, void *ctx, const char *what,
                       const char *not_a, pk_json_run *run, pk_error *err);

/* After pk_json_read and the reader's finishing of what it read (the readers keep what they
 * completed before damage, and salvage decides whether it stands): which of the two errors
 * stands. status and err are the parse's (PK_OK, or PK_ERR_INPUT for damage), finished and
 * finish_err the finishing's. A finishing failure replaces a complete parse; over damage only
 * running out of memory does, so that the message names the damage that salvage would keep
 * past. Returns the status that stands, with its error in err. */
pk_status pk_json_read_settle(pk_status status, pk_error *err, pk_status finished,
                              const pk_error *finish_err);
/* After a run that did not complete: fills err for the way it ended and returns its status.
 * PK_JSON_CUT, PK_JSON_INVALID and PK_JSON_FAILED are damage (pk_damage) at
 * pk_json_parser_error_offset, so salvage keeps what the reader completed; PK_JSON_NOMEM is
 * PK_ERR_NOMEM. what names the document for the message ("the profile"), may be NULL. */
pk_status pk_json_parser_error(const pk_json_parser *jp, pk_json_end how, const char *what,
                               pk_error *err);
/* Where the run ended: the syntax error, the handler's failure, or the end of a cut input. */
uint64_t pk_json_parser_error_offset(const pk_json_parser *jp);
/* The message of an INVALID or FAILED run. */
const char *pk_json_parser_message(const pk_json_parser *jp);

/* From a callback: the byte offset just past the token being delivered. */
uint64_t pk_json_parser_offset(const pk_json_parser *jp);
/* From a callback: records a failure at the current offset; returns false for the callback to
 * return. */
bool pk_json_parser_fail(pk_json_parser *jp, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* From a callback: ends the run early, without error; returns false for the callback to return. */
bool pk_json_parser_stop(pk_json_parser *jp);
/* From a begin callback: the container is parsed (and checked) but no callback is made for
 * anything in it, nor for its end. */
void pk_json_parser_skip(pk_json_parser *jp);

/* The path (see above). */
static inline uint32_t pk_json_parser_depth(const pk_json_parser *jp)
{
    return jp->depth;
}
static inline bool pk_json_parser_in_array(const pk_json_parser *jp, uint32_t level)
{
    return level < jp->depth && jp->levels[level].is_array;
}
/* The key at level (an object level), with its length; NULL at an array level or beyond the
 * depth. Not NUL-terminated. */
static inline const char *pk_json_parser_key(const pk_json_parser *jp, uint32_t level,
                                             size_t *len)
{
    if (level >= jp->depth || jp->levels[level].is_array)
        return NULL;
    *len = jp->levels[level].key_len;
    if (!jp->keys.data)
        return ""; /* only empty keys so far */
    return (const char *)jp->keys.data + jp->levels[level].key_start;
}
/* True when level is an object level whose key is name. Inline, called with a literal name:
 * the readers route every value by a few of these, and the length compared first is a
 * constant. */
static inline bool pk_json_parser_key_is(const pk_json_parser *jp, uint32_t level,
                                         const char *name)
{
    size_t len, name_len = strlen(name);
    const char *key = pk_json_parser_key(jp, level, &len);
    return key && name_len == len && memcmp(key, name, len) == 0;
}
/* The index at level (an array level); UINT64_MAX elsewhere. */
static inline uint64_t pk_json_parser_index(const pk_json_parser *jp, uint32_t level)
{
    return level < jp->depth && jp->levels[level].is_array ? jp->levels[level].index
                                                          : UINT64_MAX;
}
/* True when the levels from `from` to the current value match pattern exactly. */
bool pk_json_parser_match(const pk_json_parser *jp, uint32_t from, const char *pattern);

/* Values (inline: the readers ask them of every value). */
static inline bool pk_json_scalar_is(const pk_json_scalar *v, const char *string)
{
    return v->kind == PK_JSON_STRING && strlen(string) == v->len &&
           memcmp(v->s, string, v->len) == 0;
}
/* An integral number (an int, or a double with no fraction within int64): *out. */
static inline bool pk_json_scalar_i64(const pk_json_scalar *v, int64_t *out)
{
    if (v->kind == PK_JSON_INT) {
        *out = v->i;
        return true;
    }
    /* 2^63 is exact in a double; anything in [-2^63, 2^63) without a fraction converts. */
    if (v->kind == PK_JSON_DOUBLE && v->d >= -9223372036854775808.0 &&
        v->d < 9223372036854775808.0 && (double)(int64_t)v->d == v->d) {
        *out = (int64_t)v->d;
        return true;
    }
    return false;
}
/* Any number: *out. */
static inline bool pk_json_scalar_double(const pk_json_scalar *v, double *out)
{
    if (v->kind != PK_JSON_INT && v->kind != PK_JSON_DOUBLE)
        return false;
    *out = v->d;
    return true;
}
/* A string that holds a number, as some writers quote them (Hermes writes "ts": "11550183666"):
 * *number is that number. False for any other string, and for the rare numbers that need
 * strtod (more than 19 significant digits with a fraction, exponents beyond 22). */
bool pk_json_scalar_quoted_number(const pk_json_scalar *v, pk_json_scalar *number);
/* A number times 10^digits, exactly, from its text: false when that is not an integer (more
 * fractional digits than `digits` that are not zeros) or does not fit int64. For numbers written
 * as decimals of a smaller unit ("1152921504606.846976" ms is 1152921504606846976 ns, which no
 * double holds). */
bool pk_json_scalar_decimal(const pk_json_scalar *v, unsigned digits, int64_t *out);

#endif
