/* SPDX-License-Identifier: MIT */
#include "bytes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void tb_reserve(tb_bytes *b, size_t extra)
{
    if (b->cap - b->len >= extra)
        return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap - b->len < extra)
        cap *= 2;
    uint8_t *data = realloc(b->data, cap);
    if (!data)
        abort();
    b->data = data;
    b->cap = cap;
}

void tb_free(tb_bytes *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

void tb_raw(tb_bytes *b, const void *data, size_t n)
{
    tb_reserve(b, n);
    if (n)
        memcpy(b->data + b->len, data, n);
    b->len += n;
}

void tb_u8(tb_bytes *b, uint8_t v) { tb_raw(b, &v, 1); }

void tb_u16be(tb_bytes *b, uint16_t v)
{
    uint8_t x[2] = {(uint8_t)(v >> 8), (uint8_t)v};
    tb_raw(b, x, 2);
}

void tb_u32be(tb_bytes *b, uint32_t v)
{
    uint8_t x[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    tb_raw(b, x, 4);
}

void tb_u64be(tb_bytes *b, uint64_t v)
{
    tb_u32be(b, (uint32_t)(v >> 32));
    tb_u32be(b, (uint32_t)v);
}

void tb_u32le(tb_bytes *b, uint32_t v)
{
    uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    tb_raw(b, x, 4);
}

void tb_u64le(tb_bytes *b, uint64_t v)
{
    tb_u32le(b, (uint32_t)v);
    tb_u32le(b, (uint32_t)(v >> 32));
}

void tb_f32le(tb_bytes *b, float v)
{
    uint32_t bits;
    memcpy(&bits, &v, 4);
    tb_u32le(b, bits);
}

void tb_varint(tb_bytes *b, uint64_t v)
{
    do {
        uint8_t byte = v & 0x7f;
        v >>= 7;
        if (v)
            byte |= 0x80;
        tb_u8(b, byte);
    } while (v);
}

void tb_cstrz(tb_bytes *b, const char *s) { tb_raw(b, s, strlen(s) + 1); }

void tb_str(tb_bytes *b, const char *s) { tb_raw(b, s, strlen(s)); }

void tb_zeros(tb_bytes *b, size_t n)
{
    tb_reserve(b, n);
    memset(b->data + b->len, 0, n);
    b->len += n;
}

int tb_write_file(const tb_bytes *b, const char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t n = fwrite(b->data, 1, b->len, f);
    return (fclose(f) == 0 && n == b->len) ? 0 : -1;
}
