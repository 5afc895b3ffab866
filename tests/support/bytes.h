/* SPDX-License-Identifier: MIT */
/* A growing byte buffer for building test fixtures field by field, as a format document
 * describes them. Allocation failure aborts: these are tests. */
#ifndef PK_TEST_BYTES_H
#define PK_TEST_BYTES_H

#include <stddef.h>
#include <stdint.h>

typedef struct tb_bytes {
    uint8_t *data;
    size_t len;
    size_t cap;
} tb_bytes;

void tb_free(tb_bytes *b);
void tb_raw(tb_bytes *b, const void *data, size_t n);
void tb_u8(tb_bytes *b, uint8_t v);
void tb_u16be(tb_bytes *b, uint16_t v);
void tb_u32be(tb_bytes *b, uint32_t v);
void tb_u64be(tb_bytes *b, uint64_t v);
void tb_u32le(tb_bytes *b, uint32_t v);
void tb_u64le(tb_bytes *b, uint64_t v);
void tb_f32le(tb_bytes *b, float v);
void tb_varint(tb_bytes *b, uint64_t v);
/* The string and its terminating NUL. */
void tb_cstrz(tb_bytes *b, const char *s);
/* The string without a NUL. */
void tb_str(tb_bytes *b, const char *s);
void tb_zeros(tb_bytes *b, size_t n);

/* Writes the buffer to a new file at path; returns 0 on success. */
int tb_write_file(const tb_bytes *b, const char *path);

#endif
