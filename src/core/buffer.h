/* SPDX-License-Identifier: MIT */
/* A growable byte buffer: scratch text for readers, a record or a header being assembled by a
 * writer. Appends never fail one by one: the first allocation failure is remembered (failed)
 * and later appends do nothing, so a writer can assemble freely and check once. */
#ifndef PK_CORE_BUFFER_H
#define PK_CORE_BUFFER_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct pk_buffer {
    uint8_t *data; /* NULL until the first append */
    size_t len;
    size_t cap;
    bool failed; /* an append ran out of memory; data holds what came before it */
} pk_buffer;

#define PK_BUFFER_INIT {NULL, 0, 0, false}

void pk_buffer_free(pk_buffer *b);
/* Makes room for extra more bytes; false (and failed) when memory runs out. */
bool pk_buffer_reserve(pk_buffer *b, size_t extra);

static inline void pk_buffer_append(pk_buffer *b, const void *data, size_t n)
{
    if (b->cap - b->len < n && !pk_buffer_reserve(b, n))
        return;
    if (n) {
        assert(b->data); /* room for n bytes was made */
        memcpy(b->data + b->len, data, n);
    }
    b->len += n;
}

static inline void pk_buffer_byte(pk_buffer *b, uint8_t c)
{
    if (b->len == b->cap && !pk_buffer_reserve(b, 1))
        return;
    b->data[b->len++] = c;
}

/* Empties the buffer, keeping its memory. */
static inline void pk_buffer_clear(pk_buffer *b)
{
    b->len = 0;
}

/* Makes data a NUL-terminated string of len bytes (the NUL is not counted in len); false when
 * memory runs out. */
bool pk_buffer_terminate(pk_buffer *b);

#endif
