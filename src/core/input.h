/* Buffered byte input for readers: a file descriptor (read in large chunks, so standard input
 * and pipes stream) or a block of memory. The fast paths are inline; refills are not.
 *
 * Offsets are absolute byte offsets from the start of the input, for error messages.
 */
#ifndef PK_CORE_INPUT_H
#define PK_CORE_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profkit/format.h"

#define PK_INPUT_CHUNK (1u << 20)

struct pk_input {
    const uint8_t *pos;     /* next unread byte */
    const uint8_t *end;     /* end of buffered bytes */
    const uint8_t *start;   /* first buffered byte; its offset is base */
    uint64_t base;          /* absolute offset of *start */
    uint8_t *owned;         /* buffer owned by the input (fd mode), NULL in memory mode */
    size_t capacity;        /* of owned */
    int fd;                 /* -1 in memory mode */
    bool at_eof;            /* no more bytes beyond end */
    int read_errno;         /* errno of a failed read(), 0 otherwise */
    uint64_t size_hint;     /* total size when known (regular files, memory), else 0 */
    pk_progress_fn progress;
    void *progress_context;
};

/* Memory mode: reads [data, data + size) without copying. */
void pk_input_init_memory(pk_input *in, const void *data, size_t size);
/* File mode: reads fd (not closed by pk_input_release). size_hint may be 0. */
pk_status pk_input_init_fd(pk_input *in, int fd, uint64_t size_hint, pk_error *err);
void pk_input_release(pk_input *in);

/* Refills so that at least `want` bytes (at most PK_INPUT_CHUNK) are buffered from pos, unless
 * the input ends first. Returns the number of bytes available from pos. */
size_t pk_input_fill(pk_input *in, size_t want);

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
/* errno of a failed read, 0 when the input simply ended. */
int pk_in_error(const pk_input *in);

/* Reads one line, ended by LF or by the end of the input, into *line (without the LF; valid
 * until the next call on in). Returns its length, -1 when no byte is left, or -2 when the line
 * is longer than max (max <= PK_INPUT_CHUNK - 1); an over-long line is consumed whole. */
int64_t pk_in_line(pk_input *in, const char **line, size_t max);

/* Reads an unsigned LEB128 varint (at most 10 bytes). Returns 1 on success, 0 when the input
 * ends inside the varint (or before it), -1 when it is longer than 10 bytes or overflows 64
 * bits. The fast path decodes straight from the buffer. */
int pk_in_varint_slow(pk_input *in, uint64_t *value);
static inline int pk_in_varint(pk_input *in, uint64_t *value)
{
    const uint8_t *p = in->pos;
    if (in->end - p >= 10) {
        uint64_t v = 0;
        for (unsigned shift = 0; shift < 64; shift += 7) {
            uint8_t b = *p++;
            v |= (uint64_t)(b & 0x7f) << shift;
            if (!(b & 0x80)) {
                if (shift == 63 && b > 1)
                    return -1;
                in->pos = p;
                *value = v;
                return 1;
            }
        }
        return -1;
    }
    return pk_in_varint_slow(in, value);
}

#endif
