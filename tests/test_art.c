/* SPDX-License-Identifier: MIT */
/* The ART method trace reader cut at every byte of a small fixture: no crash; a cut inside the
 * records after the first keeps the whole records before it with a warning, a cut anywhere else
 * is an input error whose offset lies inside what was given. The streaming form likewise, and
 * its in-band thread names, damage and versions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixtures.h"
#include "formats/formats.h"
#include "profkit/format.h"
#include "profkit/profile.h"

static uint32_t le16(const uint8_t *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8;
}

static bool has_warning(const pk_profile *p, const char *part)
{
    for (size_t i = 0; i < pk_warning_count(p); i++)
        if (strstr(pk_warning_at(p, i), part))
            return true;
    return false;
}

static void every_cut_is_whole_records_or_an_error_at_an_offset(void **state)
{
    (void)state;
    size_t size;
    uint8_t *data = (uint8_t *)tb_read_data_file("art/v3-recursion.trace", &size);
    assert_non_null(data);
    const char *end = strstr((const char *)data, "\n*end\n");
    assert_non_null(end);
    size_t binary = (size_t)(end - (const char *)data) + 6;
    assert_true(binary + 18 <= size);
    size_t first_record = binary + le16(data + binary + 6);
    size_t record_size = le16(data + binary + 16);
    assert_true(record_size >= 10 && first_record + record_size <= size);
    int64_t previous_total = 0;
    for (size_t cut = 0; cut <= size; cut++) {
        pk_read_options options = {0};
        pk_profile *p = NULL;
        pk_error err;
        memset(&err, 0, sizeof err);
        pk_status status = pk_read_memory(data, cut, &pk_format_art, &options, &p, &err);
        bool whole_records = cut >= first_record + record_size;
        if (!whole_records && cut != first_record) {
            /* In the text header, the binary header or the first record. */
            assert_int_equal(status, PK_ERR_INPUT);
            assert_true(err.offset >= 0 && (size_t)err.offset <= cut);
            assert_true(strlen(err.message) > 0);
            /* The header names its line; "*end" cut before its newline is a whole line, and the
             * binary header is then missing; an empty input is said to be empty. */
            if (cut < binary)
                assert_true(cut == 0 || strstr(err.message, "line") || cut + 1 == binary);
            else if (cut >= first_record)
                assert_non_null(strstr(err.message, "first record"));
            pk_profile_free(p);
            continue;
        }
        assert_int_equal(status, PK_OK);
        assert_non_null(p);
        bool inside = (cut - first_record) % record_size != 0;
        assert_int_equal(has_warning(p, "ends inside a record"), inside);
        /* More of the file never gives less time: the calls left open close at the last
         * record's time. */
        int64_t t = pk_value_total(p, 0);
        assert_true(t >= previous_total);
        previous_total = t;
        pk_profile_free(p);
    }
    free(data);
}

/* The streaming form cut at every byte: in its 32-byte header an input error inside what was
 * given; after it the whole entries before the cut, with a warning unless the summary ended
 * the trace; never less time for more of the file. */
static void every_streaming_cut_is_whole_entries_or_an_error(void **state)
{
    (void)state;
    size_t size;
    uint8_t *data = (uint8_t *)tb_read_data_file("art/stream-v3-dual.trace", &size);
    assert_non_null(data);
    int64_t previous_total = 0;
    for (size_t cut = 0; cut <= size; cut++) {
        pk_read_options options = {0};
        pk_profile *p = NULL;
        pk_error err;
        memset(&err, 0, sizeof err);
        pk_status status = pk_read_memory(data, cut, &pk_format_art, &options, &p, &err);
        if (cut < 32) {
            assert_int_equal(status, PK_ERR_INPUT);
            assert_true(err.offset >= 0 && (size_t)err.offset <= cut);
            pk_profile_free(p);
            continue;
        }
        assert_int_equal(status, PK_OK);
        assert_int_equal(has_warning(p, "cut inside") || has_warning(p, "without its summary"),
                         cut < size);
        int64_t t = pk_value_total(p, 0);
        assert_true(t >= previous_total);
        previous_total = t;
        pk_profile_free(p);
    }
    assert_int_equal(previous_total, 198000);
    free(data);
}

/* A thread named after its records, an entry code nothing defines (damage, salvageable), and
 * a streaming version 1 (ART writes 2 and 3). */
static void streaming_names_damage_and_versions(void **state)
{
    (void)state;
    uint8_t b[128];
    memset(b, 0, sizeof b);
    memcpy(b, "SLOW", 4);
    b[4] = 0xf3;
    b[6] = 32;
    b[16] = 14;
    size_t n = 32;
    /* a record of thread 7 entering method 0x4 at CPU 0 / wall 0, then leaving at 10 / 20 */
    const uint8_t enter[14] = {7, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    const uint8_t leave[14] = {7, 0, 5, 0, 0, 0, 10, 0, 0, 0, 20, 0, 0, 0};
    memcpy(b + n, enter, 14);
    n += 14;
    memcpy(b + n, leave, 14);
    n += 14;
    const uint8_t thread[] = {0, 0, 2, 7, 0, 4, 0, 'm', 'a', 'i', 'n'};
    memcpy(b + n, thread, sizeof thread);
    n += sizeof thread;
    pk_read_options options = {0};
    pk_profile *p = NULL;
    pk_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(pk_read_memory(b, n, &pk_format_art, &options, &p, &err), PK_OK);
    assert_int_equal(pk_thread_count(p), 1);
    assert_string_equal(pk_str(p, pk_thread_at(p, 0)->name), "main");
    assert_int_equal(pk_value_total(p, 0), 20000);
    assert_true(has_warning(p, "without its summary"));
    pk_profile_free(p);

    b[n] = 0;
    b[n + 1] = 0;
    b[n + 2] = 9;
    memset(&err, 0, sizeof err);
    assert_int_equal(pk_read_memory(b, n + 3, &pk_format_art, &options, &p, &err), PK_ERR_INPUT);
    assert_true(err.salvageable);
    assert_int_equal(err.offset, (int64_t)n);
    pk_profile_free(p);
    options.salvage = true;
    assert_int_equal(pk_read_memory(b, n + 3, &pk_format_art, &options, &p, &err), PK_OK);
    assert_int_equal(pk_value_total(p, 0), 20000);
    pk_profile_free(p);

    /* version 2, one clock read as wall time: a summary saying thread-cpu is a warning */
    uint8_t v2[128];
    memset(v2, 0, sizeof v2);
    memcpy(v2, "SLOW", 4);
    v2[4] = 0xf2;
    v2[6] = 32;
    size_t m = 32;
    const uint8_t rec[10] = {7, 0, 4, 0, 0, 0, 5, 0, 0, 0};
    memcpy(v2 + m, rec, 10);
    m += 10;
    static const char summary[] = "*version\n2\nclock=thread-cpu\n*threads\n7\tmain\n*methods\n"
                                  "*end\n";
    const uint8_t code[7] = {0, 0, 3, (uint8_t)(sizeof summary - 1), 0, 0, 0};
    memcpy(v2 + m, code, 7);
    m += 7;
    memcpy(v2 + m, summary, sizeof summary - 1);
    m += sizeof summary - 1;
    options.salvage = false;
    memset(&err, 0, sizeof err);
    assert_int_equal(pk_read_memory(v2, m, &pk_format_art, &options, &p, &err), PK_OK);
    assert_true(has_warning(p, "says clock=thread-cpu"));
    assert_string_equal(pk_str(p, pk_thread_at(p, 0)->name), "main");
    pk_profile_free(p);

    b[4] = 0xf1;
    options.salvage = false;
    memset(&err, 0, sizeof err);
    assert_int_equal(pk_read_memory(b, n, &pk_format_art, &options, &p, &err), PK_ERR_INPUT);
    assert_non_null(strstr(err.message, "streaming version 1"));
    pk_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_cut_is_whole_records_or_an_error_at_an_offset),
        cmocka_unit_test(every_streaming_cut_is_whole_entries_or_an_error),
        cmocka_unit_test(streaming_names_damage_and_versions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
