/* SPDX-License-Identifier: MIT */
/* Buffered byte input for readers. The bytes come from a block of memory (read in place) or
 * from a source: a file descriptor read in large chunks (so standard input and pipes stream),
 * or a decompressing filter over another input (gzip.h). The fast paths are inline; refills
 * are not.
 *
 * Readers see one stream of bytes and never learn where it comes from. Offsets are absolute
 * byte offsets from the start of that stream, for error messages; for a decompressed input
 * they count decompressed bytes (pk_in_decompressed tells).
 *
 * A source that fails (an I/O error, damaged compressed data) ends the stream early and records
 * why; readers see a stream cut short, and whole-file reading reports the recorded failure in
 * place of the reader's own message about the cut.
 */
#ifndef PK_CORE_INPUT_H
#define PK_CORE_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/varint.h"
#include "profkit/format.h"

#define PK_INPUT_CHUNK (1u << 20)

/* Where the bytes of an input that is not in memory come from. */
typedef struct pk_input_source {
    /* Reads up to n (> 0) bytes into buf and returns how many; 0 at the end of the bytes, or on
     * failure after filling *failure (its status PK_ERR_IO for an I/O error, PK_ERR_INPUT for
     * damaged data, with salvageable set when what came before is good). */
    size_t (*read)(void *context, uint8_t *buf, size_t n, pk_error *failure);
    /* Frees the context; may be NULL. */
    void (*close)(void *context);
    void *context;
    /* Reads up to n bytes at offset of the stream, apart from read's position, and returns
     * how many (0 past the end or on failure); NULL when the bytes cannot be read out of turn
     * (a pipe, a decompressing filter). */
    size_t (*read_at)(void *context, uint64_t offset, uint8_t *buf, size_t n);
} pk_input_source;

struct pk_input {
    const uint8_t *pos;     /* next unread byte */
    const uint8_t *end;     /* end of buffered bytes */
    const uint8_t *start;   /* first buffered byte; its offset is base */
    uint64_t base;          /* absolute offset of *start */
    uint8_t *owned;         /* buffer owned by the input (source mode), NULL in memory mode */
    size_t capacity;        /* of owned */
    pk_input_source source; /* read is NULL in memory mode */
    bool at_eof;            /* no more bytes beyond end */
    bool decompressed;      /* the bytes come out of a decompressing filter */
    pk_error failure;       /* why the source stopped early; status PK_OK when it did not */
    uint64_t size_hint;     /* total size when known (regular files, memory), else 0 */
    pk_progress_fn progress; /* called as the source is consumed; may be NULL */
    void *progress_context;
};

/* Memory mode: reads [data, data + size) without copying. */
void pk_input_init_memory(pk_input *in, const void *data, size_t size);
/* Source mode: reads through source, which pk_input_release closes. size_hint may be 0. On
 * failure the source is closed. */
pk_status pk_input_init_source(pk_input *in, pk_input_source source, uint64_t size_hint,
                               pk_error *err);
/* Source mode over a file descriptor, which pk_input_release does not close. */
pk_status pk_input_init_fd(pk_input *in, int fd, uint64_t size_hint, pk_error *err);
void pk_input_release(pk_input *in);

/* Refills so that at least `want` bytes (at most PK_INPUT_CHUNK) are buffered from pos, unless
 * the input ends first. Returns the number of bytes available from pos. */
size_t pk_input_fill(pk_input *in, size_t want);

/* True when buffered bytes stay at their addresses until the input is released (memory mode):
 * a reader may keep pointers to them past the next refill. */
static inline bool pk_in_stable(const pk_input *in)
{
    return in->owned == NULL;
}

static inline uint64_t pk_in_offset(const pk_input *in)
{
    return in->base + (uint64_t)(in->pos - in->start);
}

static inline size_t pk_in_available(const pk_input *in)
{
    return (size_t)(in->end - in->pos);
}

/* Next byte, or -1 at the end of the input (or on a read error: see pk_in_error). */
static inline int pk_in_getc(pk_input *in)
{
    if (in->pos < in->end)
        return *in->pos++;
    if (pk_input_fill(in, 1) == 0)
        return -1;
    return *in->pos++;
}

/* Next byte without consuming it, or -1 at the end. */
static inline int pk_in_peekc(pk_input *in)
{
    if (in->pos < in->end)
        return *in->pos;
    if (pk_input_fill(in, 1) == 0)
        return -1;
    return *in->pos;
}

/* Makes n bytes (n <= PK_INPUT_CHUNK) contiguous at *data without consuming them. Returns the
 * number available, which is less than n only at the end of the input. */
static inline size_t pk_in_peek(pk_input *in, size_t n, const uint8_t **data)
{
    size_t have = pk_in_available(in);
    if (have < n)
        have = pk_input_fill(in, n);
    *data = in->pos;
    return have < n ? have : n;
}

/* Consumes n bytes that pk_in_peek made available. */
static inline void pk_in_skip_buffered(pk_input *in, size_t n)
{
    in->pos += n;
}

/* Copies up to n bytes into dst; returns how many were copied (less only at the end). */
size_t pk_in_read(pk_input *in, void *dst, size_t n);
/* Skips up to n bytes; returns how many were skipped. */
uint64_t pk_in_skip(pk_input *in, uint64_t n);
/* True when no byte is left. */
bool pk_in_at_end(pk_input *in);
/* Non-zero when the source stopped early (see pk_input_failure for why), 0 when the input
 * simply ended. */
int pk_in_error(const pk_input *in);
/* Why the source stopped early, NULL when it did not. */
const pk_error *pk_input_failure(const pk_input *in);
/* Copies the source's failure into err and returns its status (PK_OK when there was none). */
pk_status pk_in_fail(const pk_input *in, pk_error *err);
/* True when offsets count decompressed bytes. */
static inline bool pk_in_decompressed(const pk_input *in)
{
    return in->decompressed;
}

/* True when any part of the input can be read at any time (pk_in_read_at): memory, or a
 * regular file. A reader may then look ahead at a part the stream has not reached yet. */
bool pk_in_seekable(const pk_input *in);
/* Copies up to n bytes at absolute offset into dst without moving the stream; returns how many
 * (less past the end, 0 when the input is not seekable or cannot be read there). */
size_t pk_in_read_at(pk_input *in, uint64_t offset, void *dst, size_t n);

/* Reads one line, ended by LF or by the end of the input, into *line (without the LF; valid
 * until the next call on in). Returns its length, -1 when no byte is left, or -2 when the line
 * is longer than max (max <= PK_INPUT_CHUNK - 1); an over-long line is consumed whole. */
int64_t pk_in_line(pk_input *in, const char **line, size_t max);

/* Reads a varint (see core/varint.h): PK_VARINT_OK with *value, PK_VARINT_TRUNCATED when the
 * input ends inside it (or before it), PK_VARINT_INVALID when it is not a varint. Nothing is
 * consumed unless it succeeds. The fast path decodes straight from the buffer. */
pk_varint_result pk_in_varint_slow(pk_input *in, uint64_t *value);
static inline pk_varint_result pk_in_varint(pk_input *in, uint64_t *value)
{
    const uint8_t *p = in->pos;
    pk_varint_result r = pk_varint_decode(&p, in->end, value);
    if (r == PK_VARINT_OK)
        in->pos = p;
    else if (r == PK_VARINT_TRUNCATED)
        r = pk_in_varint_slow(in, value);
    return r;
}

/* The same for a 32-bit field (see pk_varint_decode_u32): PK_VARINT_OVER_32_BITS for a varint
 * whose value needs more bits. Nothing is consumed unless it succeeds. */
static inline pk_varint_result pk_in_varint_u32(pk_input *in, uint32_t *value)
{
    const uint8_t *p = in->pos;
    pk_varint_result r = pk_varint_decode_u32(&p, in->end, value);
    if (r == PK_VARINT_TRUNCATED) {
        /* The buffer ended inside the varint: make the longest varint contiguous, then retry. */
        pk_input_fill(in, PK_VARINT_MAX_BYTES);
        p = in->pos;
        r = pk_varint_decode_u32(&p, in->end, value);
    }
    if (r == PK_VARINT_OK)
        in->pos = p;
    return r;
}

#endif
