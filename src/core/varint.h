/* SPDX-License-Identifier: MIT */
/* Unsigned LEB128 varints, the integers of protobuf (pprof) and .bsprof: one codec for every
 * format. Seven bits per byte, least significant group first; a set high bit means more bytes
 * follow. A 64-bit value takes at most 10 bytes, and the 10th byte may only hold bit 63.
 *
 * Decoding returns one of three results, the same everywhere: a value, "the bytes end inside
 * the varint" (a truncated file, or a buffer that needs refilling), or "not a varint" (longer
 * than 10 bytes, or over 64 bits). Over-long encodings of small values (0x80 0x00) are valid,
 * as protobuf decoders accept them.
 */
#ifndef PK_CORE_VARINT_H
#define PK_CORE_VARINT_H

#include <stddef.h>
#include <stdint.h>

#define PK_VARINT_MAX_BYTES 10

typedef enum pk_varint_result {
    PK_VARINT_OVER_32_BITS = -2, /* a valid varint, too large for a 32-bit field (the u32
                                  * decoders only) */
    PK_VARINT_INVALID = -1,  /* longer than 10 bytes, or a value over 64 bits */
    PK_VARINT_TRUNCATED = 0, /* the bytes end inside the varint (or before it) */
    PK_VARINT_OK = 1
} pk_varint_result;

/* Number of bytes pk_varint_encode writes for v (1 to 10). */
static inline size_t pk_varint_size(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

/* Writes v to out, which has room for PK_VARINT_MAX_BYTES; returns the bytes written. */
static inline size_t pk_varint_encode(uint8_t *out, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        out[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    out[n++] = (uint8_t)v;
    return n;
}

/* Decodes the varint at *pos, reading no byte at or past end. On PK_VARINT_OK, *value holds it
 * and *pos points past it; otherwise neither is changed. */
static inline pk_varint_result pk_varint_decode(const uint8_t **pos, const uint8_t *end,
                                                uint64_t *value)
{
    const uint8_t *p = *pos;
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 7 * PK_VARINT_MAX_BYTES; shift += 7) {
        if (p >= end)
            return PK_VARINT_TRUNCATED;
        uint8_t b = *p++;
        if (shift == 63 && b > 1)
            return PK_VARINT_INVALID;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (b < 0x80) {
            *pos = p;
            *value = v;
            return PK_VARINT_OK;
        }
    }
    return PK_VARINT_INVALID;
}

/* Decodes a varint into a field of 32 bits (an ID, a count): the results of pk_varint_decode,
 * or PK_VARINT_OVER_32_BITS for a valid varint whose value needs more bits. *pos and *value
 * change only on PK_VARINT_OK. */
static inline pk_varint_result pk_varint_decode_u32(const uint8_t **pos, const uint8_t *end,
                                                    uint32_t *value)
{
    const uint8_t *p = *pos;
    uint64_t v;
    pk_varint_result r = pk_varint_decode(&p, end, &v);
    if (r != PK_VARINT_OK)
        return r;
    if (v > UINT32_MAX)
        return PK_VARINT_OVER_32_BITS;
    *pos = p;
    *value = (uint32_t)v;
    return PK_VARINT_OK;
}

/* The fast path for varints that hold 32-bit values (IDs, counts), when the caller knows that
 * at least 5 bytes are readable at *pos. Declines (returns 0, changing nothing) a varint longer
 * than 5 bytes or over 32 bits; the caller then uses pk_varint_decode, which tells the two
 * apart. Returns 1 with *value set and *pos advanced otherwise. */
static inline int pk_varint_decode_u32_fast(const uint8_t **pos, uint32_t *value)
{
    /* Unrolled, with constant shifts: the loop's variable shifts and counter cost more than the
     * decoding on the hot paths that use this. */
    const uint8_t *p = *pos;
    uint32_t b = p[0], v = b & 0x7f;
    if (b < 0x80) {
        *pos = p + 1;
        *value = v;
        return 1;
    }
    b = p[1];
    v |= (b & 0x7f) << 7;
    if (b < 0x80) {
        *pos = p + 2;
        *value = v;
        return 1;
    }
    b = p[2];
    v |= (b & 0x7f) << 14;
    if (b < 0x80) {
        *pos = p + 3;
        *value = v;
        return 1;
    }
    b = p[3];
    v |= (b & 0x7f) << 21;
    if (b < 0x80) {
        *pos = p + 4;
        *value = v;
        return 1;
    }
    b = p[4];
    if (b > 0x0f)
        return 0;
    *value = v | b << 28;
    *pos = p + 5;
    return 1;
}

/* Zigzag: signed integers as unsigned ones of the same magnitude (0, -1, 1, -2 ... as 0, 1, 2,
 * 3 ...), so that small negative differences make short varints too. */
static inline uint64_t pk_zigzag_encode(int64_t v)
{
    /* All ones for a negative value, without shifting a signed one. */
    return ((uint64_t)v << 1) ^ (0 - ((uint64_t)v >> 63));
}

static inline int64_t pk_zigzag_decode(uint64_t u)
{
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

#endif
