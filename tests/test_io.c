/* Buffered input and output: varints, lines, refills, temporary files, JSON escaping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "bytes.h"
#include "core/input.h"
#include "core/output.h"

static char scratch[512];

static const char *scratch_path(const char *name)
{
    const char *dir = getenv("PK_TEST_TMPDIR");
    snprintf(scratch, sizeof scratch, "%s/io-%s", dir ? dir : "/tmp", name);
    return scratch;
}

static void varints_decode_and_reject_overlong(void **state)
{
    (void)state;
    tb_bytes b = {0};
    tb_varint(&b, 0);
    tb_varint(&b, 300);
    tb_varint(&b, UINT64_MAX);
    tb_raw(&b, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f", 10); /* overflows 64 bits */
    pk_input in;
    uint64_t v;
    pk_input_init_memory(&in, b.data, b.len);
    assert_int_equal(pk_in_varint(&in, &v), 1);
    assert_int_equal(v, 0);
    assert_int_equal(pk_in_varint(&in, &v), 1);
    assert_int_equal(v, 300);
    assert_int_equal(pk_in_varint(&in, &v), 1);
    assert_true(v == UINT64_MAX);
    assert_int_equal(pk_in_varint(&in, &v), -1);
    /* The slow path (fewer than 10 bytes buffered) agrees. */
    uint8_t cut[2] = {0x80, 0x80};
    pk_input_init_memory(&in, cut, 2);
    assert_int_equal(pk_in_varint(&in, &v), 0);
    uint8_t small[2] = {0xac, 0x02};
    pk_input_init_memory(&in, small, 2);
    assert_int_equal(pk_in_varint(&in, &v), 1);
    assert_int_equal(v, 300);
    assert_true(pk_in_at_end(&in));
    tb_free(&b);
}

/* The codec itself: sizes and encodings at every 7-bit boundary, the 10th byte that may only
 * hold bit 63, over-long encodings of small values, a cut at every byte, and the 32-bit fast
 * path declining what it cannot decode. */
static void varint_codec_edges(void **state)
{
    (void)state;
    for (unsigned bits = 0; bits <= 64; bits++) {
        uint64_t values[3] = {bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1,
                              bits == 64 ? UINT64_MAX : (uint64_t)1 << bits,
                              bits == 0 ? 0 : (uint64_t)1 << (bits - 1)};
        for (int k = 0; k < 3; k++) {
            uint8_t buf[PK_VARINT_MAX_BYTES];
            size_t n = pk_varint_encode(buf, values[k]);
            assert_int_equal(n, pk_varint_size(values[k]));
            assert_true(n >= 1 && n <= PK_VARINT_MAX_BYTES);
            const uint8_t *pos = buf;
            uint64_t v = 0;
            assert_int_equal(pk_varint_decode(&pos, buf + n, &v), PK_VARINT_OK);
            assert_true(v == values[k]);
            assert_ptr_equal(pos, buf + n);
            /* Cut anywhere before its last byte: truncated, nothing consumed. */
            for (size_t cut = 0; cut < n; cut++) {
                pos = buf;
                assert_int_equal(pk_varint_decode(&pos, buf + cut, &v), PK_VARINT_TRUNCATED);
                assert_ptr_equal(pos, buf);
            }
        }
    }
    /* Ten bytes whose last holds more than bit 63; eleven bytes. */
    const uint8_t over[10] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
    const uint8_t eleven[11] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
    const uint8_t *pos = over;
    uint64_t v = 0;
    assert_int_equal(pk_varint_decode(&pos, over + 10, &v), PK_VARINT_INVALID);
    pos = eleven;
    assert_int_equal(pk_varint_decode(&pos, eleven + 11, &v), PK_VARINT_INVALID);
    /* Over-long zero, as protobuf decoders accept it. */
    const uint8_t long_zero[3] = {0x80, 0x80, 0x00};
    pos = long_zero;
    assert_int_equal(pk_varint_decode(&pos, long_zero + 3, &v), PK_VARINT_OK);
    assert_true(v == 0 && pos == long_zero + 3);
    /* The 32-bit fast path agrees with the codec at every 7-bit boundary up to 32 bits. */
    for (unsigned bits = 0; bits <= 32; bits++) {
        uint64_t values[3] = {((uint64_t)1 << bits) - 1, (uint64_t)1 << bits,
                              bits == 0 ? 0 : (uint64_t)1 << (bits - 1)};
        for (int k = 0; k < 3; k++) {
            uint8_t buf[8] = {0};
            size_t n = pk_varint_encode(buf, values[k]);
            const uint8_t *fast = buf;
            uint32_t u = 0;
            if (values[k] > UINT32_MAX) {
                assert_int_equal(pk_varint_decode_u32_fast(&fast, &u), 0);
                assert_ptr_equal(fast, buf);
                continue;
            }
            assert_int_equal(pk_varint_decode_u32_fast(&fast, &u), 1);
            assert_true(u == values[k]);
            assert_ptr_equal(fast, buf + n);
        }
    }
    /* The 32-bit fast path: 5 bytes at most, no bit beyond 31. */
    const uint8_t max32[8] = {0xff, 0xff, 0xff, 0xff, 0x0f, 0, 0, 0};
    const uint8_t beyond32[8] = {0xff, 0xff, 0xff, 0xff, 0x1f, 0, 0, 0};
    const uint8_t six[8] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 0, 0};
    uint32_t u = 0;
    pos = max32;
    assert_int_equal(pk_varint_decode_u32_fast(&pos, &u), 1);
    assert_true(u == UINT32_MAX && pos == max32 + 5);
    pos = beyond32;
    assert_int_equal(pk_varint_decode_u32_fast(&pos, &u), 0);
    assert_ptr_equal(pos, beyond32);
    pos = six;
    assert_int_equal(pk_varint_decode_u32_fast(&pos, &u), 0);
    assert_ptr_equal(pos, six);
}

/* 32-bit fields: the value, a valid varint too large for the field, and the same across a
 * refill of the input buffer (the varint straddles the end of the first chunk). */
static void varints_into_32_bit_fields(void **state)
{
    (void)state;
    const char *path = scratch_path("u32.bin");
    tb_bytes b = {0};
    for (size_t i = 0; i < PK_INPUT_CHUNK - 2; i++)
        tb_u8(&b, 0);
    tb_varint(&b, UINT32_MAX);
    tb_varint(&b, (uint64_t)UINT32_MAX + 1);
    tb_raw(&b, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11); /* not a varint */
    tb_u8(&b, 0x80); /* cut */
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b.data, 1, b.len, f), b.len);
    fclose(f);

    const uint8_t *pos = b.data + PK_INPUT_CHUNK - 2, *end = b.data + b.len;
    uint32_t v = 7;
    assert_int_equal(pk_varint_decode_u32(&pos, end, &v), PK_VARINT_OK);
    assert_true(v == UINT32_MAX);
    const uint8_t *before = pos;
    assert_int_equal(pk_varint_decode_u32(&pos, end, &v), PK_VARINT_OVER_32_BITS);
    assert_ptr_equal(pos, before);
    assert_true(v == UINT32_MAX);

    FILE *r = fopen(path, "rb");
    pk_input in;
    assert_int_equal(pk_input_init_fd(&in, fileno(r), 0, NULL), PK_OK);
    for (size_t i = 0; i < PK_INPUT_CHUNK - 2; i++) {
        if (pk_in_varint_u32(&in, &v) != PK_VARINT_OK || v != 0)
            fail_msg("zero %zu", i);
    }
    assert_int_equal(pk_in_varint_u32(&in, &v), PK_VARINT_OK);
    assert_true(v == UINT32_MAX);
    uint64_t offset = pk_in_offset(&in);
    assert_int_equal(offset, PK_INPUT_CHUNK + 3);
    /* Nothing is consumed unless it succeeds. */
    assert_int_equal(pk_in_varint_u32(&in, &v), PK_VARINT_OVER_32_BITS);
    assert_int_equal(pk_in_offset(&in), offset);
    uint64_t wide;
    assert_int_equal(pk_in_varint(&in, &wide), PK_VARINT_OK);
    assert_true(wide == (uint64_t)UINT32_MAX + 1);
    offset = pk_in_offset(&in);
    assert_int_equal(pk_in_varint_u32(&in, &v), PK_VARINT_INVALID);
    assert_int_equal(pk_in_offset(&in), offset);
    assert_int_equal(pk_in_skip(&in, 11), 11);
    assert_int_equal(pk_in_varint_u32(&in, &v), PK_VARINT_TRUNCATED);
    assert_int_equal(pk_in_available(&in), 1);
    pk_input_release(&in);
    fclose(r);
    unlink(path);
    tb_free(&b);
}

static void lines_split_on_lf(void **state)
{
    (void)state;
    const char text[] = "first\n\nthird line\r\nlast";
    pk_input in;
    const char *line;
    pk_input_init_memory(&in, text, sizeof text - 1);
    assert_int_equal(pk_in_line(&in, &line, 100), 5);
    assert_memory_equal(line, "first", 5);
    assert_int_equal(pk_in_line(&in, &line, 100), 0);
    assert_int_equal(pk_in_line(&in, &line, 100), 11);
    assert_int_equal(pk_in_line(&in, &line, 100), 4);
    assert_memory_equal(line, "last", 4);
    assert_int_equal(pk_in_line(&in, &line, 100), -1);
    pk_input_init_memory(&in, text, sizeof text - 1);
    assert_int_equal(pk_in_line(&in, &line, 3), -2);
    assert_int_equal(pk_in_line(&in, &line, 3), 0);
}

/* A file much larger than the input chunk, read through a descriptor: offsets and contents
 * stay right across refills, for bytes, peeks and lines. */
static void file_input_refills(void **state)
{
    (void)state;
    const char *path = scratch_path("big.txt");
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    for (int i = 0; i < 400000; i++)
        fprintf(f, "line %d\n", i);
    fclose(f);
    FILE *r = fopen(path, "rb");
    pk_input in;
    assert_int_equal(pk_input_init_fd(&in, fileno(r), 0, NULL), PK_OK);
    const char *line;
    char want[32];
    uint64_t offset = 0;
    for (int i = 0; i < 400000; i++) {
        assert_int_equal(pk_in_offset(&in), offset);
        int64_t n = pk_in_line(&in, &line, 100);
        int w = snprintf(want, sizeof want, "line %d", i);
        assert_int_equal(n, w);
        assert_memory_equal(line, want, (size_t)w);
        offset += (uint64_t)w + 1;
    }
    assert_int_equal(pk_in_line(&in, &line, 100), -1);
    pk_input_release(&in);
    fclose(r);
    unlink(path);
}

static void outputs_appear_only_on_commit(void **state)
{
    (void)state;
    const char *path = scratch_path("out.txt");
    char final_path[512];
    snprintf(final_path, sizeof final_path, "%s", path);
    unlink(final_path);
    pk_output out;
    pk_error err;
    assert_int_equal(pk_output_open(&out, final_path, NULL, &err), PK_OK);
    for (int i = 0; i < 100000; i++)
        pk_out_printf(&out, "%d\n", i);
    struct stat st;
    assert_int_not_equal(stat(final_path, &st), 0);
    pk_output_abort(&out);
    assert_int_not_equal(stat(final_path, &st), 0);

    assert_int_equal(pk_output_open(&out, final_path, NULL, &err), PK_OK);
    pk_out_puts(&out, "hello\n");
    assert_int_equal(pk_output_commit(&out, &err), PK_OK);
    assert_int_equal(stat(final_path, &st), 0);
    assert_int_equal(st.st_size, 6);

    /* The input is never the output. */
    assert_int_equal(pk_output_open(&out, final_path, final_path, &err), PK_ERR_USAGE);
    unlink(final_path);
}

static void json_strings_are_escaped(void **state)
{
    (void)state;
    pk_output out;
    pk_output_init_memory(&out);
    pk_out_json_string(&out, "a\"b\\c\n\x01\xc3\xa9\xff");
    pk_out_putc(&out, ' ');
    pk_out_double(&out, 1.5);
    pk_out_putc(&out, ' ');
    pk_out_double(&out, 0.1);
    pk_out_putc(&out, ' ');
    pk_out_i64(&out, INT64_MIN);
    assert_int_equal(pk_output_commit(&out, NULL), PK_OK);
    size_t size;
    char *text = pk_output_take_memory(&out, &size);
    assert_string_equal(text,
                        "\"a\\\"b\\\\c\\n\\u0001\xc3\xa9\\ufffd\" 1.5 0.1 -9223372036854775808");
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(varints_decode_and_reject_overlong),
        cmocka_unit_test(varint_codec_edges),
        cmocka_unit_test(varints_into_32_bit_fields),
        cmocka_unit_test(lines_split_on_lf),
        cmocka_unit_test(file_input_refills),
        cmocka_unit_test(outputs_appear_only_on_commit),
        cmocka_unit_test(json_strings_are_escaped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
