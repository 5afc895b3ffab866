/* SPDX-License-Identifier: MIT */
/* Apple Sampler's "@supersamplerV1.0" file, as reverse-engineered by Kevin Reid (2008):
 *
 *   "@supersamplerV1.0" LF "@symboltableV1.1" LF
 *   (TAB u32 id TAB u32 unknown TAB symbol TAB library-path TAB library-path LF)*
 *   "@end" LF
 *   ("@threadV1.0" TAB 4 hex digits (thread id) LF
 *     (TAB u32 1 u32 0 u32 1 u32 n u32 frame[n] LF)*)*
 *   "@end" LF
 *
 * u32 = four big-endian bytes, which may be TAB or LF, so everything is parsed by position.
 * A frame is the id of a symbol. A thread id is also a symbol id whose entry is "Thread_" and
 * the id (name and both paths).
 *
 * The folder, by role: parse.c parses the grammar (for the reader and the dump alike) and hands
 * what it finds to a set of events; read.c builds the model from them, dump.c prints them;
 * write.c writes a profile; format.c registers the format.
 */
#ifndef PK_FORMATS_SAMPLER_SAMPLER_H
#define PK_FORMATS_SAMPLER_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/hashmap.h"
#include "core/input.h"
#include "profkit/format.h"

#define SM_MAGIC "@supersamplerV1.0\n"
#define SM_SYMBOL_TABLE "@symboltableV1.1\n"
#define SM_THREAD "@threadV1.0\t"
#define SM_END "@end"

/* Longest text field read (symbols and paths). */
#define SM_MAX_FIELD ((size_t)PK_INPUT_CHUNK - 1)

static inline uint32_t sm_be32(const uint8_t *d)
{
    return (uint32_t)d[0] << 24 | (uint32_t)d[1] << 16 | (uint32_t)d[2] << 8 | d[3];
}

typedef struct sm_symbol {
    uint32_t name;  /* string */
    uint32_t path;  /* string: first library path */
    uint32_t frame; /* the reader's model frame, PK_NONE until used */
} sm_symbol;

/* A symbol row as read; the strings are the parser's (see sm_parser.names). */
typedef struct sm_symbol_row {
    uint32_t id, unknown;
    uint32_t name, path;  /* strings */
    const char *path2;    /* the second library path, valid during the event */
    size_t path2_len;
    bool same_paths;
} sm_symbol_row;

/* What the parser finds, in file order. Each event returns PK_OK to go on; any other status
 * stops the parse with it (the event has set the error). NULL events are skipped. */
typedef struct sm_events {
    /* A line of the grammar that carries nothing else: the two header lines, the end of the
     * symbol table ("@end (N symbols)"), the final "@end". */
    void (*marker)(void *context, uint64_t offset, const char *text);
    pk_status (*symbol)(void *context, uint64_t offset, const sm_symbol_row *row);
    /* A thread block opens: its id, the hex digits as written, and the name of its symbol entry
     * when that starts with "Thread_" (PK_NONE otherwise). */
    pk_status (*thread)(void *context, uint64_t offset, uint32_t id, const char *digits,
                        uint32_t name);
    /* A sample row: its three leading words and its frame count, then its frames in chunks
     * (big-endian ids; first is the index of the chunk's first frame), then its end. A row cut
     * by damage gets no end. */
    pk_status (*row_begin)(void *context, uint64_t offset, const uint32_t words[3], uint32_t n);
    pk_status (*row_frames)(void *context, const uint8_t *ids, uint32_t first, uint32_t count);
    pk_status (*row_end)(void *context);
    /* Bytes after the final "@end". */
    void (*trailing)(void *context, uint64_t offset);
} sm_events;

typedef struct sm_parser {
    pk_profile *names; /* where symbol names and paths are interned: the profile read, or a
                        * scratch profile of the dump */
    pk_error *err;
    const sm_events *events;
    void *context;

    sm_symbol *symbols;
    size_t symbol_count, symbol_capacity;
    pk_u64map symbol_by_id; /* symbol id -> index into symbols */
    uint64_t duplicate_ids; /* symbol rows whose id was seen before (the first is kept) */
    bool stopped;           /* set by an event to end the parse early, without an error (the
                             * dump, when its output failed) */
} sm_parser;

void pk_sampler_parser_init(sm_parser *s, pk_profile *names, const sm_events *events,
                            void *context, pk_error *err);
void pk_sampler_parser_free(sm_parser *s);

/* Parses the whole input. A wrong or cut header line is a plain error (not the format);
 * damage after it is reported with pk_damage at its byte offset, after the events of
 * everything before it. */
pk_status pk_sampler_parse(sm_parser *s, pk_input *in);

/* The symbol of an id, NULL when the table has none. */
sm_symbol *pk_sampler_symbol(sm_parser *s, uint32_t id);
/* Adds a symbol (a repeated id keeps the first and is counted); false when memory runs out. */
bool pk_sampler_add_symbol(sm_parser *s, uint32_t id, const char *name, size_t name_len,
                           const char *path, size_t path_len);

/* ---- the format's entry points --------------------------------------------------------------- */

pk_status pk_sampler_read(pk_input *in, pk_profile *p, const pk_read_options *options,
                          pk_error *err);
pk_status pk_sampler_dump(pk_input *in, pk_output *out, bool raw, const pk_read_options *options,
                          pk_error *err);
pk_status pk_sampler_write(const pk_profile *p, pk_output *out, const pk_write_options *options,
                           pk_error *err);

#endif
