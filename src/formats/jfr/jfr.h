/* SPDX-License-Identifier: MIT */
/* Java Flight Recorder recordings (.jfr): the chunk codec (codec.c: chunk headers, the metadata
 * event that describes every type, constant pools in checkpoint events, integers and strings),
 * the reader of CPU, allocation, lock and park events (read.c), registered in format.c.
 * Documented in docs/formats/jfr.md.
 *
 * A recording is a sequence of chunks, each self-contained: its own metadata, its own constant
 * pools, its own clock (ticks since the chunk's start). A chunk is held in memory while it is
 * read, as its constant pools may come after the events that refer to them. */
#ifndef PK_FORMATS_JFR_JFR_H
#define PK_FORMATS_JFR_JFR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/hashmap.h"
#include "profkit/format.h"

#define JFR_HEADER_SIZE 68
#define JFR_TYPE_METADATA 0
#define JFR_TYPE_CHECKPOINT 1

/* How a field's value is laid out. */
typedef enum jfr_kind {
    JFR_KIND_STRUCT = 0, /* fields of its own, inline */
    JFR_KIND_BOOLEAN,    /* one byte */
    JFR_KIND_BYTE,       /* one byte */
    JFR_KIND_INTEGER,    /* char, short, int, long: a compressed integer */
    JFR_KIND_FLOAT,      /* four bytes */
    JFR_KIND_DOUBLE,     /* eight bytes */
    JFR_KIND_STRING      /* java.lang.String: an encoding byte and its payload */
} jfr_kind;

typedef struct jfr_field {
    const char *name;
    uint32_t type;      /* index into the chunk's types */
    bool constant_pool; /* the value is a key into the type's constant pool */
    bool array;         /* a count, then that many values */
} jfr_field;

typedef struct jfr_type {
    uint64_t id;
    const char *name;
    jfr_kind kind;
    jfr_field *fields;
    uint32_t field_count;
    bool empty;         /* a struct whose values take no bytes (all its fields such structs) */
    uint32_t varints;   /* a struct of compressed integers only: how many; 0 otherwise */
    pk_u64map pool;     /* constant pool: key -> index into the chunk's entry offsets */
    pk_u64map resolved; /* what the reader made of an entry: key -> its model index */
} jfr_type;

/* A chunk held in memory; offsets are relative to its first byte, file_offset is where that
 * byte is in the input. */
typedef struct jfr_chunk {
    const uint8_t *data;
    size_t size;
    uint64_t file_offset;
    uint16_t major, minor;
    /* bit 0 of the header's last byte: integers compressed. Read as compressed either way, as
     * the JDK's parser does (JMC reads fixed-width big-endian integers when it is clear). */
    bool compressed_integers;
    int64_t start_nanos, start_ticks, ticks_per_second;
    uint64_t metadata_offset;

    char *strings_arena;  /* the metadata's strings, NUL-terminated */
    jfr_type *types;
    uint32_t type_count;
    pk_u64map type_by_id; /* type id -> index */
    jfr_field *fields;    /* all types' fields */
    uint64_t *entries;    /* offsets of the constant-pool entries */
    size_t entry_count, entry_cap;
    uint32_t string_type; /* index of java.lang.String, UINT32_MAX when not described */
    uint32_t max_fields;  /* the most fields of any type */
} jfr_chunk;

/* A position in a chunk. */
typedef struct jfr_cursor {
    const jfr_chunk *chunk;
    size_t pos, end;
} jfr_cursor;

/* The bytes a cursor has left: none when it stands at or past its end (a cursor made from
 * offsets a file gives may start past it). */
static inline size_t jfr_cursor_left(const jfr_cursor *cur)
{
    return cur->pos < cur->end ? cur->end - cur->pos : 0;
}

/* The header at data[0..JFR_HEADER_SIZE): magic, version, size. Errors name file_offset. */
pk_status jfr_chunk_header(jfr_chunk *c, const uint8_t *data, uint64_t file_offset,
                           uint64_t *size, bool *finished, pk_error *err);
/* Reads the metadata and indexes the constant pools of a chunk whose bytes and header are in
 * c. Errors (PK_ERR_INPUT) name the byte offset in the input. */
pk_status jfr_chunk_load(jfr_chunk *c, pk_error *err);
void jfr_chunk_release(jfr_chunk *c);

/* Room for need bytes in *text (capacity *cap), growing it by doubling; false when memory runs
 * out. */
bool jfr_text_reserve(char **text, size_t *cap, size_t need);
bool jfr_read_u64(jfr_cursor *cur, uint64_t *value);
bool jfr_read_byte(jfr_cursor *cur, uint8_t *value);
/* Skips n compressed integers (as jfr_read_u64 reads them) without decoding them. */
bool jfr_skip_varints(jfr_cursor *cur, uint64_t n);
/* Reads a value of type (array: a count first; constant_pool: a key) into *value: the integer,
 * the key, or for a string, an inline struct or an array the offset where it starts. */
bool jfr_read_field(jfr_cursor *cur, const jfr_field *f, uint64_t *value);
/* Reads every field of a struct of type, one value each (as jfr_read_field). */
bool jfr_read_struct(jfr_cursor *cur, uint32_t type, uint64_t *values);
/* Reads the first count fields of a struct of type (all of them when it has fewer), leaving the
 * cursor after them. */
bool jfr_read_fields(jfr_cursor *cur, uint32_t type, uint64_t *values, uint32_t count);
/* The offset of the constant-pool entry key of type, false when the pool has none. */
bool jfr_pool_entry(const jfr_chunk *c, uint32_t type, uint64_t key, size_t *offset);
/* Decodes the string at offset (or the string of a java.lang.String pool key when
 * constant_pool) into *text (NUL-terminated, grown with realloc; *cap its capacity); null and
 * empty give "". False for bytes that are not a string. */
bool jfr_string_at(const jfr_chunk *c, size_t offset, bool constant_pool, char **text,
                   size_t *cap);
/* The index of the type called name, UINT32_MAX when not described; the index of its field
 * called name, -1 when absent. */
uint32_t jfr_type_named(const jfr_chunk *c, const char *name);
int jfr_field_named(const jfr_chunk *c, uint32_t type, const char *name);

pk_status jfr_read(pk_input *in, pk_profile *p, const pk_read_options *options, pk_error *err);

#endif
