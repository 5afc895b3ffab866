/* SPDX-License-Identifier: MIT */
#include "core/buffer.h"

#include <stdlib.h>

void pk_buffer_free(pk_buffer *b)
{
    free(b->data);
    *b = (pk_buffer)PK_BUFFER_INIT;
}

bool pk_buffer_reserve(pk_buffer *b, size_t extra)
{
    if (b->failed)
        return false;
    if (b->cap - b->len >= extra)
        return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len < extra) {
        if (cap > SIZE_MAX / 2) {
            b->failed = true;
            return false;
        }
        cap *= 2;
    }
    uint8_t *data = realloc(b->data, cap);
    if (!data) {
        b->failed = true;
        return false;
    }
    b->data = data;
    b->cap = cap;
    return true;
}

bool pk_buffer_terminate(pk_buffer *b)
{
    if (!pk_buffer_reserve(b, 1))
        return false;
    b->data[b->len] = '\0';
    return true;
}
