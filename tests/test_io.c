/* SPDX-License-Identifier: MIT */
/* Buffered input and output: varints, lines (over-long ones too), text lines, UTF-16 decoding,
 * refills, temporary files, JSON escaping; the public error and option helpers and output
 * objects. */
#define _GNU_SOURCE /* O_TMPFILE, to learn whether the scratch directory takes unnamed files;
                     * sched_setaffinity */
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "bytes.h"
#include "gunzip.h"
#include "reading.h"
#include "core/gzip.h"
#include "core/input.h"
#include "core/output.h"
#include "core/text_lines.h"
#include "core/utf16.h"
#include "formats/formats.h"
#include "profkit/error.h"
#include "profkit/format.h"
#include "profkit/output.h"

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

/* A source that hands out its bytes a few at a time, so that every line end, byte-order mark
 * and surrogate pair falls across refills somewhere. */
typedef struct trickle {
    const uint8_t *data;
    size_t size, pos, step;
} trickle;

static size_t trickle_read(void *context, uint8_t *buf, size_t n, pk_error *failure)
{
    (void)failure;
    trickle *t = context;
    size_t take = t->size - t->pos < t->step ? t->size - t->pos : t->step;
    if (take > n)
        take = n;
    memcpy(buf, t->data + t->pos, take);
    t->pos += take;
    return take;
}

/* The lines of text read with pk_text_lines from a trickling source, joined with '|'; a line
 * over max shows as "<long>". */
static void text_lines_of(const char *text, size_t size, size_t step, size_t max, char *out,
                          size_t cap)
{
    trickle t = {(const uint8_t *)text, size, 0, step};
    pk_input in;
    assert_int_equal(pk_input_init_source(&in, (pk_input_source){trickle_read, NULL, &t, NULL}, 0, NULL),
                     PK_OK);
    pk_text_lines lines;
    pk_text_lines_init(&lines, &in, max);
    size_t len = 0;
    out[0] = '\0';
    for (;;) {
        const char *line;
        size_t n;
        pk_text_line_result r = pk_text_lines_next(&lines, &line, &n);
        if (r == PK_TEXT_END)
            break;
        assert_true(r == PK_TEXT_LINE || r == PK_TEXT_TOO_LONG);
        len += (size_t)snprintf(out + len, cap - len, "%s%.*s", len ? "|" : "",
                                r == PK_TEXT_LINE ? (int)n : 6,
                                r == PK_TEXT_LINE ? line : "<long>");
    }
    pk_text_lines_free(&lines);
    pk_input_release(&in);
}

/* Text lines end at LF, CR LF or a lone CR; a UTF-8 byte-order mark at the start is no text;
 * lines over the limit are skipped whole; the answer does not depend on how the bytes come. */
static void text_lines_in_every_chunking(void **state)
{
    (void)state;
    const char text[] = "\xef\xbb\xbf" "a 1\r\nb\rc\n\r\n\rtoo long line\rd\r\n\xef\xbb\xbf" "e";
    const char want[] = "a 1|b|c||" "|<long>|d|\xef\xbb\xbf" "e";
    char got[256];
    for (size_t step = 1; step <= sizeof text; step++) {
        text_lines_of(text, sizeof text - 1, step, 8, got, sizeof got);
        if (strcmp(got, want) != 0)
            fail_msg("step %zu: \"%s\"", step, got);
    }
    /* In memory too, where no line needs gathering. */
    pk_input in;
    pk_input_init_memory(&in, text, sizeof text - 1);
    pk_text_lines lines;
    pk_text_lines_init(&lines, &in, 8);
    const char *line;
    size_t n;
    assert_int_equal(pk_text_lines_next(&lines, &line, &n), PK_TEXT_LINE);
    assert_true(lines.skipped_bom);
    assert_int_equal(lines.offset, 3);
    assert_int_equal(n, 3);
    assert_int_equal(pk_text_lines_next(&lines, &line, &n), PK_TEXT_LINE);
    assert_int_equal(lines.offset, 8);
    assert_int_equal(lines.number, 2);
    pk_text_lines_free(&lines);

    /* Lines longer than the input's chunk are gathered whole. */
    size_t long_len = 3 * (size_t)PK_INPUT_CHUNK + 5;
    char *big = malloc(long_len + 4);
    assert_non_null(big);
    memset(big, 'x', long_len);
    memcpy(big + long_len, "\ry\n", 3);
    trickle t = {(const uint8_t *)big, long_len + 3, 0, 100000};
    assert_int_equal(pk_input_init_source(&in, (pk_input_source){trickle_read, NULL, &t, NULL}, 0, NULL),
                     PK_OK);
    pk_text_lines_init(&lines, &in, long_len);
    assert_int_equal(pk_text_lines_next(&lines, &line, &n), PK_TEXT_LINE);
    assert_int_equal(n, long_len);
    assert_true(line[0] == 'x' && line[long_len - 1] == 'x');
    assert_int_equal(pk_text_lines_next(&lines, &line, &n), PK_TEXT_LINE);
    assert_int_equal(n, 1);
    assert_int_equal(lines.offset, long_len + 1);
    assert_int_equal(pk_text_lines_next(&lines, &line, &n), PK_TEXT_END);
    pk_text_lines_free(&lines);
    pk_input_release(&in);
    free(big);
}

/* UTF-16 in either byte order decodes to UTF-8 however its bytes come: surrogate pairs, a
 * pair cut by a refill, an unpaired surrogate and an odd last byte (U+FFFD each). */
static void utf16_decodes_to_utf8(void **state)
{
    (void)state;
    /* "a" U+00E9 U+1F525 LF, an unpaired high surrogate, "z", and one stray byte. */
    const uint16_t units[] = {0xfeff, 'a', 0x00e9, 0xd83d, 0xdd25, '\n', 0xd800, 'z'};
    const char want[] = "a\xc3\xa9\xf0\x9f\x94\xa5\n\xef\xbf\xbdz\xef\xbf\xbd";
    for (int big = 0; big < 2; big++) {
        uint8_t bytes[2 * 8 + 1];
        for (size_t i = 0; i < 8; i++) {
            bytes[2 * i + (big ? 1 : 0)] = (uint8_t)(units[i] & 0xff);
            bytes[2 * i + (big ? 0 : 1)] = (uint8_t)(units[i] >> 8);
        }
        bytes[16] = 'q';
        assert_int_equal(pk_utf16_detect(bytes, sizeof bytes), big ? PK_UTF16_BE : PK_UTF16_LE);
        for (size_t step = 1; step <= sizeof bytes; step++) {
            trickle t = {bytes, sizeof bytes, 0, step};
            pk_input raw, text;
            assert_int_equal(pk_input_init_source(&raw, (pk_input_source){trickle_read, NULL, &t, NULL},
                                                  0, NULL),
                             PK_OK);
            assert_int_equal(pk_input_init_utf16(&text, &raw, pk_utf16_detect(bytes, 2), NULL),
                             PK_OK);
            char got[64];
            size_t n = pk_in_read(&text, got, sizeof got);
            if (n != sizeof want - 1 || memcmp(got, want, n) != 0)
                fail_msg("%s step %zu: %zu bytes", big ? "BE" : "LE", step, n);
            assert_true(pk_in_decompressed(&text));
            pk_input_release(&text);
            pk_input_release(&raw);
        }
    }
    const uint8_t plain[] = {'a', 0};
    assert_int_equal(pk_utf16_detect(plain, 2), PK_UTF16_NONE);
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

/* The names in dir, but "." and ".."; with remove, they are removed instead. */
static int directory_entries(const char *dir, bool remove)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        n++;
        if (remove) {
            char path[1024];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    }
    closedir(d);
    return n;
}

/* Where the directory takes unnamed files (O_TMPFILE), an output being written has no name at
 * all, so that nothing is left when the program is killed; it is named at commit. */
static void outputs_are_unnamed_while_written(void **state)
{
    (void)state;
    char dir[512], path[600];
    snprintf(dir, sizeof dir, "%s", scratch_path("unnamed"));
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/out.txt", dir);
    directory_entries(dir, true); /* what an earlier failed run left */
    int probe = open(dir, O_TMPFILE | O_WRONLY, 0600);
    bool unnamed = probe >= 0;
    if (probe >= 0)
        close(probe);

    pk_output out;
    pk_error err;
    assert_int_equal(pk_output_open(&out, path, NULL, &err), PK_OK);
    for (int i = 0; i < 100000; i++)
        pk_out_printf(&out, "%d\n", i);
    /* unnamed: nothing in the directory; else the one hidden temporary */
    assert_int_equal(directory_entries(dir, false), unnamed ? 0 : 1);
    assert_int_equal(pk_output_commit(&out, &err), PK_OK);
    assert_int_equal(directory_entries(dir, false), 1);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);

    /* Replacing the file: still nothing else while it is written. */
    assert_int_equal(pk_output_open(&out, path, NULL, &err), PK_OK);
    pk_out_puts(&out, "new\n");
    assert_int_equal(directory_entries(dir, false), unnamed ? 1 : 2);
    assert_int_equal(pk_output_commit(&out, &err), PK_OK);
    assert_int_equal(directory_entries(dir, false), 1);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_size, 4);
    unlink(path);
    rmdir(dir);
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

/* Lines over the limit that arrive in pieces (the limit is passed before their end is seen)
 * are consumed whole, up to their LF or the end of the bytes; the lines after them are intact. */
static void over_long_lines_arriving_in_pieces(void **state)
{
    (void)state;
    size_t size = 0;
    char *text = malloc(20000);
    assert_non_null(text);
    size += (size_t)sprintf(text + size, "short\n");
    memset(text + size, 'x', 5000);
    size += 5000;
    size += (size_t)sprintf(text + size, "\nnext\n");
    memset(text + size, 'y', 7000);
    size += 7000;
    for (size_t step = 7; step <= 301; step += 294) {
        trickle t = {(const uint8_t *)text, size, 0, step};
        pk_input in;
        assert_int_equal(pk_input_init_source(&in, (pk_input_source){trickle_read, NULL, &t, NULL}, 0,
                                              NULL),
                         PK_OK);
        const char *line;
        assert_int_equal(pk_in_line(&in, &line, 1000), 5);
        assert_memory_equal(line, "short", 5);
        assert_int_equal(pk_in_line(&in, &line, 1000), -2);
        assert_int_equal(pk_in_offset(&in), 6 + 5000 + 1);
        assert_int_equal(pk_in_line(&in, &line, 1000), 4);
        assert_memory_equal(line, "next", 4);
        /* The last line has no LF: consumed to the end. */
        assert_int_equal(pk_in_line(&in, &line, 1000), -2);
        assert_int_equal(pk_in_offset(&in), size);
        assert_int_equal(pk_in_line(&in, &line, 1000), -1);
        pk_input_release(&in);
    }
    free(text);
}

/* The public error helpers: names of statuses, errors set and cleared (also without a place to
 * put them), messages cut to the buffer. */
static void statuses_and_errors(void **state)
{
    (void)state;
    const pk_status all[] = {PK_OK,        PK_ERR_INPUT, PK_ERR_IO,         PK_ERR_NOMEM,
                             PK_ERR_USAGE, PK_ERR_LIMIT, PK_ERR_UNSUPPORTED};
    const size_t count = sizeof all / sizeof all[0];
    for (size_t i = 0; i < count; i++) {
        const char *name = pk_status_name(all[i]);
        assert_true(strlen(name) > 0);
        assert_string_not_equal(name, "unknown error");
        for (size_t k = 0; k < i; k++)
            assert_string_not_equal(name, pk_status_name(all[k]));
    }
    assert_string_equal(pk_status_name(PK_OK), "success");
    assert_string_equal(pk_status_name(PK_ERR_IO), "I/O error");
    assert_string_equal(pk_status_name((pk_status)99), "unknown error");

    assert_int_equal(pk_error_set(NULL, PK_ERR_LIMIT, 7, "no place for %s", "this"), PK_ERR_LIMIT);
    pk_error_clear(NULL);
    pk_error err;
    char long_text[1000];
    memset(long_text, 'm', sizeof long_text - 1);
    long_text[sizeof long_text - 1] = '\0';
    assert_int_equal(pk_error_set(&err, PK_ERR_INPUT, 42, "%s", long_text), PK_ERR_INPUT);
    assert_int_equal(err.offset, 42);
    assert_false(err.salvageable);
    assert_int_equal(strlen(err.message), sizeof err.message - 1);
    pk_error_clear(&err);
    assert_int_equal(err.status, PK_OK);
    assert_int_equal(err.offset, PK_NO_OFFSET);
    assert_string_equal(err.message, "");
}

/* Options given on the command line: the last value of an option, each value of a repeated
 * one in order. */
static void option_values(void **state)
{
    (void)state;
    const pk_option items[] = {{"symbol-path", "/a"}, {"salvage", ""}, {"symbol-path", "/b"}};
    const pk_option_list list = {items, 3};
    assert_string_equal(pk_option_get(&list, "symbol-path"), "/b");
    assert_string_equal(pk_option_get(&list, "salvage"), "");
    assert_null(pk_option_get(&list, "no-symbols"));
    assert_string_equal(pk_option_get_nth(&list, "symbol-path", 0), "/a");
    assert_string_equal(pk_option_get_nth(&list, "symbol-path", 1), "/b");
    assert_null(pk_option_get_nth(&list, "symbol-path", 2));
    assert_null(pk_option_get_nth(NULL, "symbol-path", 0));
    assert_null(pk_option_get(NULL, "salvage"));
}

/* Compresses text (pieces of every size, some larger than the output's buffer) into memory. */
static char *gzip_in_memory(const char *text, size_t size, size_t *compressed_size)
{
    pk_output out;
    pk_error err;
    pk_output_init_memory(&out);
    assert_int_equal(pk_output_compress(&out, 1, &err), PK_OK);
    for (size_t at = 0, piece = 1; at < size; piece = piece * 7 % 1000003) {
        size_t n = piece < size - at ? piece : size - at;
        pk_out_write(&out, text + at, n);
        at += n;
    }
    assert_int_equal(pk_output_commit(&out, &err), PK_OK);
    return pk_output_take_memory(&out, compressed_size);
}

/* A writer that fills the output's buffer itself (pk_out_reserve, pk_out_advance): plain
 * memory grows for any size; a staged output (here through gzip) flushes to make room and
 * refuses more than a buffer holds, without failing, so that the writer takes pk_out_write
 * instead. Either way the bytes are those written, in order. */
static void output_reserve(void **state)
{
    (void)state;
    size_t size = 3 * PK_OUTPUT_BUFFER + 12345;
    char *text = malloc(size);
    assert_non_null(text);
    for (size_t i = 0; i < size; i++)
        text[i] = (char)('a' + i * 7 % 23);
    for (int staged = 0; staged < 2; staged++) {
        pk_output out;
        pk_error err;
        pk_output_init_memory(&out);
        if (staged) {
            assert_int_equal(pk_output_compress(&out, 1, &err), PK_OK);
            assert_null(pk_out_reserve(&out, PK_OUTPUT_BUFFER + 1));
            assert_false(pk_out_failed(&out));
        }
        for (size_t at = 0, piece = 1; at < size; piece = piece * 5 % 70001) {
            size_t n = piece < size - at ? piece : size - at;
            char *room = pk_out_reserve(&out, n + 16);
            if (!room) {
                assert_true(staged && n + 16 > PK_OUTPUT_BUFFER);
                pk_out_write(&out, text + at, n);
            } else {
                memcpy(room, text + at, n);
                memset(room + n, '!', 16); /* beyond what is written: not output */
                pk_out_advance(&out, n);
            }
            at += n;
        }
        assert_int_equal(pk_output_commit(&out, &err), PK_OK);
        size_t written;
        char *data = pk_output_take_memory(&out, &written);
        if (staged) {
            tb_assert_gunzips_to(data, written, text, size);
        } else {
            assert_int_equal(written, size);
            assert_memory_equal(data, text, size);
        }
        free(data);
    }
    free(text);
}

/* The gzip stream is one member holding all of text: zlib's inflate stops at a member's end,
 * as speedscope's pprof importer (pako) and browsers' DecompressionStream do (they fail on a
 * second member), so nothing may follow it. */
static void assert_one_gzip_member(const char *gz, size_t gz_size, const char *text, size_t size)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
    char *back = malloc(size + 1);
    assert_non_null(back);
    z.next_in = (Bytef *)(uintptr_t)gz;
    z.avail_in = (uInt)gz_size;
    z.next_out = (Bytef *)back;
    z.avail_out = (uInt)(size + 1);
    assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
    assert_int_equal(z.avail_in, 0);
    assert_int_equal(z.total_out, size);
    assert_memory_equal(back, text, size);
    inflateEnd(&z);
    free(back);
}

/* gzip output compressed beside the writer (a worker thread, when the process may use more
 * than one processor) is the same byte for byte as compressed in the writer's flushes (one
 * processor), decompresses to what was written, and is one gzip member either way. */
static void gzip_output_worker(void **state)
{
    (void)state;
    size_t size = 5u << 20;
    char *text = malloc(size);
    assert_non_null(text);
    uint32_t x = 1;
    for (size_t i = 0; i < size; i++) {
        x = x * 1103515245u + 12345u;
        text[i] = (char)('a' + (x >> 16) % 16); /* compressible, but not trivially */
    }
    size_t beside_size, inline_size;
    char *beside = gzip_in_memory(text, size, &beside_size);
    cpu_set_t all, one;
    assert_int_equal(sched_getaffinity(0, sizeof all, &all), 0);
    CPU_ZERO(&one);
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &all)) {
            CPU_SET(cpu, &one);
            break;
        }
    assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
    char *in_flushes = gzip_in_memory(text, size, &inline_size);
    assert_int_equal(sched_setaffinity(0, sizeof all, &all), 0);
    assert_int_equal(beside_size, inline_size);
    assert_memory_equal(beside, in_flushes, beside_size);

    tb_assert_gunzips_to(beside, beside_size, text, size);
    assert_one_gzip_member(beside, beside_size, text, size);
    free(in_flushes);
    free(beside);
    free(text);
}

/* The output objects of the public interface: a file output gzips by its name and writes a
 * format's bytes (pk_write_output); a missing directory is refused with no output made; a
 * memory output can be finished without its bytes being taken; and a format without a writer
 * is refused by every way of writing, leaving no file. */
static void public_outputs(void **state)
{
    (void)state;
    pk_status status;
    pk_error err;
    pk_profile *p =
        tb_read_memory_with("main;work 3\nmain 1\n", 19, &pk_format_folded, NULL, 0, false,
                            &status, &err);
    assert_non_null(p);
    const char *path = scratch_path("public.folded.gz");
    char gz_path[512];
    snprintf(gz_path, sizeof gz_path, "%s", path);
    unlink(gz_path);
    pk_output *out;
    assert_int_equal(pk_output_create(gz_path, NULL, &out, &err), PK_OK);
    assert_int_equal(pk_write_output(p, out, &pk_format_folded, NULL, &err), PK_OK);
    assert_false(pk_output_failed(out));
    assert_int_equal(pk_output_finish(out, &err), PK_OK);
    char command[600];
    snprintf(command, sizeof command, "gzip -dc '%s'", gz_path);
    FILE *f = popen(command, "r");
    assert_non_null(f);
    char text[256];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    assert_int_equal(pclose(f), 0);
    assert_string_equal(text, "main 1\nmain;work 3\n");
    unlink(gz_path);

    /* A gzip level out of range is refused, saying which there are, before any file is made:
     * compressed or not, a bad level is the caller's mistake. */
    const int bad_levels[] = {10, -1, 100};
    for (size_t i = 0; i < sizeof bad_levels / sizeof *bad_levels; i++) {
        pk_output_options level = {.compression = i == 1 ? PK_COMPRESSION_NONE
                                                         : PK_COMPRESSION_GZIP,
                                   .compression_level = bad_levels[i]};
        out = (pk_output *)1;
        assert_int_equal(pk_output_create(gz_path, &level, &out, &err), PK_ERR_USAGE);
        assert_null(out);
        char want[80];
        snprintf(want, sizeof want, "gzip compression level %d: the levels are 1", bad_levels[i]);
        assert_non_null(strstr(err.message, want));
        assert_non_null(strstr(err.message, "to 9"));
        struct stat none;
        assert_int_not_equal(stat(gz_path, &none), 0);
    }
    pk_output_options nine = {.compression = PK_COMPRESSION_GZIP, .compression_level = 9};
    assert_int_equal(pk_output_create(gz_path, &nine, &out, &err), PK_OK);
    pk_output_printf(out, "main 1\n");
    assert_int_equal(pk_output_finish(out, &err), PK_OK);
    f = popen(command, "r");
    assert_non_null(f);
    n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    assert_int_equal(pclose(f), 0);
    assert_string_equal(text, "main 1\n");
    unlink(gz_path);

    out = (pk_output *)1;
    assert_int_equal(pk_output_create("/nonexistent/profkit/out.folded", NULL, &out, &err),
                     PK_ERR_IO);
    assert_null(out);
    assert_non_null(strstr(err.message, "cannot create"));

    out = pk_output_create_memory();
    assert_non_null(out);
    pk_output_printf(out, "%d", 42);
    assert_int_equal(pk_output_finish(out, &err), PK_OK);

    const pk_format reader_only = {.name = "reader-only"};
    const char *never = scratch_path("never.out");
    char never_path[512];
    snprintf(never_path, sizeof never_path, "%s", never);
    assert_int_equal(pk_write_file(p, never_path, &reader_only, NULL, NULL, &err), PK_ERR_USAGE);
    assert_string_equal(err.message, "profkit cannot write reader-only files");
    struct stat st;
    assert_int_not_equal(stat(never_path, &st), 0);
    out = pk_output_create_memory();
    assert_int_equal(pk_write_output(p, out, &reader_only, NULL, &err), PK_ERR_USAGE);
    pk_output_discard(out);
    char *data;
    size_t size;
    assert_int_equal(pk_write_memory(p, NULL, NULL, &data, &size, &err), PK_ERR_USAGE);
    assert_string_equal(err.message, "profkit cannot write such files");
    assert_null(data);
    pk_profile_free(p);
}

/* Reading out of turn: memory and regular files can, a pipe cannot; the stream does not move. */
static void input_read_at(void **state)
{
    (void)state;
    const char text[] = "0123456789";
    pk_input in;
    char buf[8];
    pk_input_init_memory(&in, text, 10);
    assert_true(pk_in_seekable(&in));
    assert_int_equal(pk_in_read_at(&in, 7, buf, 8), 3);
    assert_memory_equal(buf, "789", 3);
    assert_int_equal(pk_in_read_at(&in, 10, buf, 8), 0);
    assert_int_equal(pk_in_getc(&in), '0');

    char path[] = "/tmp/pk_read_at_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, 10), 10);
    assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
    assert_int_equal(pk_input_init_fd(&in, fd, 10, NULL), PK_OK);
    assert_true(pk_in_seekable(&in));
    assert_int_equal(pk_in_getc(&in), '0');
    assert_int_equal(pk_in_read_at(&in, 5, buf, 2), 2);
    assert_memory_equal(buf, "56", 2);
    assert_int_equal(pk_in_getc(&in), '1');
    pk_input_release(&in);
    close(fd);
    unlink(path);

    int fds[2];
    assert_int_equal(pipe(fds), 0);
    assert_int_equal(pk_input_init_fd(&in, fds[0], 0, NULL), PK_OK);
    assert_false(pk_in_seekable(&in));
    assert_int_equal(pk_in_read_at(&in, 0, buf, 2), 0);
    pk_input_release(&in);
    close(fds[0]);
    close(fds[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(varints_decode_and_reject_overlong),
        cmocka_unit_test(varint_codec_edges),
        cmocka_unit_test(varints_into_32_bit_fields),
        cmocka_unit_test(lines_split_on_lf),
        cmocka_unit_test(file_input_refills),
        cmocka_unit_test(text_lines_in_every_chunking),
        cmocka_unit_test(utf16_decodes_to_utf8),
        cmocka_unit_test(outputs_appear_only_on_commit),
        cmocka_unit_test(outputs_are_unnamed_while_written),
        cmocka_unit_test(json_strings_are_escaped),
        cmocka_unit_test(over_long_lines_arriving_in_pieces),
        cmocka_unit_test(statuses_and_errors),
        cmocka_unit_test(option_values),
        cmocka_unit_test(public_outputs),
        cmocka_unit_test(output_reserve),
        cmocka_unit_test(gzip_output_worker),
        cmocka_unit_test(input_read_at),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
