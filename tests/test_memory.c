/* SPDX-License-Identifier: MIT */
/* Memory events in the model: sums per allocating site, live allocations, the spool of events
 * read back in order, and a profile that keeps only the sums. Also the spool underneath. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/spool.h"
#include "profkit/merge.h"
#include "profkit/profile.h"

static uint32_t stack_named(pk_profile *p, const char *name)
{
    uint32_t function = pk_intern_function(
        p, &(pk_function){.name = pk_intern_cstr(p, name), .file = pk_intern_cstr(p, ""),
                          .resource = PK_NONE});
    uint32_t frame = pk_intern_frame(p, &(pk_frame){function, 0, 0, PK_NONE, 0});
    return pk_intern_stack(p, PK_NONE, frame);
}

/* Two threads: main allocates at A and B, the worker frees main's B block, frees an address
 * nothing allocated, and allocates at A's address again while A is live. */
static pk_profile *events_profile(bool keep, uint32_t *main_thread, uint32_t *worker,
                                  uint32_t *site_a, uint32_t *site_b)
{
    pk_profile *p = pk_profile_new();
    pk_memory_keep_events(p, keep);
    *main_thread = pk_add_thread(p, pk_intern_cstr(p, "main"), 1, 1);
    *worker = pk_add_thread(p, pk_intern_cstr(p, "worker"), 1, 2);
    *site_a = stack_named(p, "alloc_a");
    *site_b = stack_named(p, "alloc_b");
    assert_int_equal(pk_memory_alloc(p, *main_thread, *site_a, 0x1000, 100), PK_OK);
    assert_int_equal(pk_memory_alloc(p, *main_thread, *site_b, 0x2000, 40), PK_OK);
    uint64_t freed = 0;
    assert_int_equal(pk_memory_free(p, *worker, PK_NONE, 0x2000, PK_MEM_FREE, &freed), PK_OK);
    assert_int_equal(freed, 40);
    assert_int_equal(pk_memory_free(p, *worker, PK_NONE, 0x9000, PK_MEM_FREE, &freed), PK_OK);
    assert_int_equal(freed, 0);
    assert_int_equal(pk_memory_alloc(p, *worker, *site_a, 0x1000, 7), PK_OK);
    return p;
}

static void sites_sum_allocations_and_their_frees(void **state)
{
    (void)state;
    uint32_t main_thread, worker, a, b;
    pk_profile *p = events_profile(true, &main_thread, &worker, &a, &b);
    pk_memory_counts counts;
    pk_memory_counts_get(p, &counts);
    assert_int_equal(counts.events, 5);
    assert_int_equal(counts.allocations, 3);
    assert_int_equal(counts.frees, 2);
    assert_int_equal(counts.unmatched_frees, 1);
    assert_int_equal(counts.live, 2); /* A's first block (displaced, leaked) and the worker's */
    assert_int_equal(counts.max_address, 0x9000);
    assert_int_equal(pk_memory_unmatched_frees(p, worker), 1);
    assert_int_equal(pk_memory_unmatched_frees(p, main_thread), 0);
    assert_int_equal(pk_alloc_site_count(p), 3);
    pk_alloc_site s;
    pk_alloc_site_at(p, 0, &s);
    assert_int_equal(s.thread, main_thread);
    assert_int_equal(s.stack, a);
    assert_int_equal(s.allocated_bytes, 100);
    assert_int_equal(s.frees, 0);
    pk_alloc_site_at(p, 1, &s);
    assert_int_equal(s.stack, b);
    assert_int_equal(s.allocations, 1);
    assert_int_equal(s.frees, 1);
    assert_int_equal(s.freed_bytes, 40); /* freed by the worker, counted where allocated */
    pk_alloc_site_at(p, 2, &s);
    assert_int_equal(s.thread, worker);
    assert_int_equal(s.allocated_bytes, 7);
    pk_alloc_site_at(p, 3, &s);
    assert_int_equal(s.thread, PK_NONE);
    pk_profile_free(p);
}

static void events_read_back_in_order(void **state)
{
    (void)state;
    uint32_t main_thread, worker, a, b;
    pk_profile *p = events_profile(true, &main_thread, &worker, &a, &b);
    pk_memory_cursor *c;
    assert_int_equal(pk_memory_events_open(p, &c), PK_OK);
    pk_memory_event e[6];
    size_t n = 0;
    while (n < 6 && pk_memory_events_next(c, &e[n]))
        n++;
    assert_int_equal(pk_memory_events_close(c), PK_OK);
    assert_int_equal(n, 5);
    for (size_t i = 1; i < n; i++)
        assert_true(e[i].order > e[i - 1].order);
    /* The first block at 0x1000 is never freed: the later free-less allocation displaced it. */
    assert_int_equal(e[0].kind, PK_MEM_ALLOC);
    assert_int_equal(e[0].address, 0x1000);
    assert_int_equal(e[0].stack, a);
    assert_false(e[0].matched);
    assert_true(e[1].matched);
    /* A free carries the size and the thread of the allocation it releases. */
    assert_int_equal(e[2].kind, PK_MEM_FREE);
    assert_int_equal(e[2].size, 40);
    assert_int_equal(e[2].thread, worker);
    assert_int_equal(e[2].owner, main_thread);
    assert_int_equal(e[2].stack, PK_NONE);
    assert_true(e[2].matched);
    assert_false(e[3].matched);
    assert_int_equal(e[3].size, 0);
    assert_int_equal(e[3].owner, worker);
    assert_int_equal(e[4].address, 0x1000);
    assert_false(e[4].matched);
    pk_profile_free(p);
}

static void live_values_add_what_was_not_freed(void **state)
{
    (void)state;
    uint32_t main_thread, worker, a, b;
    pk_profile *p = events_profile(false, &main_thread, &worker, &a, &b);
    uint32_t bytes = pk_add_value_type(p, "live-bytes", "bytes");
    uint32_t count = pk_add_value_type(p, "live-allocs", "count");
    uint64_t orders = pk_event_order_count(p);
    assert_int_equal(pk_memory_add_live_values(p, bytes, count), PK_OK);
    assert_int_equal(pk_value_total(p, bytes), 107);
    assert_int_equal(pk_value_total(p, count), 2);
    /* One position in the stream per allocation, its count or not: untimed samples spread the
     * same whether a reader counts the live objects too. */
    assert_int_equal(pk_event_order_count(p), orders + 2);
    /* Rows in the order of the sites' first allocations. */
    assert_int_equal(pk_sample_thread(p, 0), main_thread);
    assert_int_equal(pk_sample_thread(p, 1), worker);
    pk_profile_free(p);
}

/* The names memory values had before the vocabulary still find them where a user names a
 * value (pk_value_lookup, the command's --value); a value of that very name comes first. */
static void former_memory_value_names_find_the_vocabulary(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    uint32_t alloc_space = pk_add_value_type(p, "alloc_space", "bytes");
    uint32_t alloc_objects = pk_add_value_type(p, "alloc_objects", "count");
    uint32_t inuse_space = pk_add_value_type(p, "inuse_space", "bytes");
    assert_int_equal(pk_value_lookup(p, "alloc-bytes"), alloc_space);
    assert_int_equal(pk_value_lookup(p, "allocs"), alloc_objects);
    assert_int_equal(pk_value_lookup(p, "alloc-objects"), alloc_objects);
    assert_int_equal(pk_value_lookup(p, "live-bytes"), inuse_space);
    assert_int_equal(pk_value_lookup(p, "inuse_space"), inuse_space);
    assert_int_equal(pk_value_lookup(p, "live-objects"), PK_NONE);
    assert_int_equal(pk_value_lookup(p, "inuse_objects"), PK_NONE);
    /* pk_value_find matches exact names only */
    assert_int_equal(pk_value_find(p, "live-bytes"), PK_NONE);
    uint32_t own = pk_add_value_type(p, "live-bytes", "bytes");
    assert_int_equal(pk_value_lookup(p, "live-bytes"), own);
    pk_profile_free(p);
}

static void sums_only_profile_has_no_events_to_read_but_copies_its_sums(void **state)
{
    (void)state;
    uint32_t main_thread, worker, a, b;
    pk_profile *p = events_profile(false, &main_thread, &worker, &a, &b);
    pk_memory_cursor *c = NULL;
    assert_int_equal(pk_memory_events_open(p, &c), PK_ERR_UNSUPPORTED);
    assert_null(c);
    pk_profile *copy = pk_profile_new();
    pk_error err;
    assert_int_equal(pk_profile_copy(copy, p, NULL, &err), PK_OK);
    pk_memory_counts before, after;
    pk_memory_counts_get(p, &before);
    pk_memory_counts_get(copy, &after);
    assert_memory_equal(&before, &after, sizeof before);
    assert_int_equal(pk_alloc_site_count(copy), 3);
    pk_alloc_site s;
    pk_alloc_site_at(copy, 1, &s);
    assert_int_equal(s.freed_bytes, 40);
    assert_int_equal(pk_memory_unmatched_frees(copy, 1), 1);
    /* The copy's live allocations are the original's: a free in the copy finds them. */
    uint64_t freed = 0;
    assert_int_equal(pk_memory_free(copy, 1, PK_NONE, 0x1000, PK_MEM_FREE, &freed), PK_OK);
    assert_int_equal(freed, 7);
    pk_profile_free(copy);
    pk_profile_free(p);
}

/* Sizes that do not fit in 32 bits, address 0, and a displaced block of such a size: frees
 * give the whole size back, live values and the cursor count the displaced block. */
static void big_sizes_and_displaced_blocks_keep_their_sizes(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    uint32_t t = pk_add_thread(p, pk_intern_cstr(p, "main"), 0, 0);
    uint32_t s = stack_named(p, "f"), s2 = stack_named(p, "g");
    const uint64_t five_gib = 5ull << 30;
    assert_int_equal(pk_memory_alloc(p, t, s, 0, five_gib), PK_OK);
    assert_int_equal(pk_memory_alloc(p, t, s, 0x10, UINT32_MAX), PK_OK);
    assert_int_equal(pk_memory_alloc(p, t, s2, 0, 3), PK_OK); /* displaces the 5 GiB block */
    assert_int_equal(pk_memory_alloc(p, t, s2, 0x20, UINT32_MAX - 1), PK_OK);
    uint64_t freed = 0;
    assert_int_equal(pk_memory_free(p, t, s, 0, PK_MEM_FREE, &freed), PK_OK);
    assert_int_equal(freed, 3);
    assert_int_equal(pk_memory_free(p, t, s, 0x10, PK_MEM_FREE, &freed), PK_OK);
    assert_int_equal(freed, UINT32_MAX);
    assert_int_equal(pk_memory_free(p, t, s, 0, PK_MEM_FREE, &freed), PK_OK);
    assert_int_equal(freed, 0);
    pk_memory_counts counts;
    pk_memory_counts_get(p, &counts);
    assert_int_equal(counts.live, 2);
    assert_int_equal(counts.unmatched_frees, 1);
    pk_memory_cursor *c;
    assert_int_equal(pk_memory_events_open(p, &c), PK_OK);
    pk_memory_event e;
    bool matched[7];
    size_t n = 0;
    while (n < 7 && pk_memory_events_next(c, &e))
        matched[n++] = e.matched;
    assert_int_equal(pk_memory_events_close(c), PK_OK);
    assert_int_equal(n, 7);
    assert_false(matched[0]);
    assert_true(matched[1]);
    assert_true(matched[2]);
    assert_false(matched[3]);
    uint32_t bytes = pk_add_value_type(p, "live-bytes", "bytes");
    uint32_t count = pk_add_value_type(p, "live-allocs", "count");
    assert_int_equal(pk_memory_add_live_values(p, bytes, count), PK_OK);
    assert_int_equal(pk_value_total(p, bytes), five_gib + UINT32_MAX - 1);
    assert_int_equal(pk_value_total(p, count), 2);
    pk_profile_free(p);
}

/* Live sizes past INT64_MAX saturate the row as additions one block at a time would. */
static void live_values_saturate_as_block_by_block(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    pk_memory_keep_events(p, false);
    uint32_t t = pk_add_thread(p, pk_intern_cstr(p, "main"), 0, 0);
    uint32_t s = stack_named(p, "f");
    assert_int_equal(pk_memory_alloc(p, t, s, 0x10, UINT64_MAX), PK_OK);
    assert_int_equal(pk_memory_alloc(p, t, s, 0x20, 1), PK_OK);
    uint32_t bytes = pk_add_value_type(p, "live-bytes", "bytes");
    assert_int_equal(pk_memory_add_live_values(p, bytes, PK_NONE), PK_OK);
    assert_int_equal(pk_sample_values(p, 0)[bytes], INT64_MAX);
    uint32_t which = PK_NONE;
    assert_true(pk_values_overflow(p, &which));
    assert_int_equal(which, bytes);
    pk_profile_free(p);
}

/* Enough events that the spool goes to its temporary file, read back twice. */
static void many_events_spill_and_read_back(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    uint32_t t = pk_add_thread(p, pk_intern_cstr(p, "main"), 0, 0);
    uint32_t s = stack_named(p, "f");
    const uint64_t n = 600000;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t address = 0x7f0000000000u + (i % 1000) * 64;
        if (i % 2 == 0)
            assert_int_equal(pk_memory_alloc(p, t, s, address, i), PK_OK);
        else
            assert_int_equal(pk_memory_free(p, t, s, address - 64 * (i % 1000 ? 1 : 0),
                                            PK_MEM_FREE, NULL),
                             PK_OK);
    }
    for (int pass = 0; pass < 2; pass++) {
        pk_memory_cursor *c;
        assert_int_equal(pk_memory_events_open(p, &c), PK_OK);
        pk_memory_event e;
        uint64_t count = 0, last = 0, sizes = 0;
        while (pk_memory_events_next(c, &e)) {
            assert_true(count == 0 || e.order > last);
            last = e.order;
            if (e.kind == PK_MEM_ALLOC) {
                assert_int_equal(e.size, count);
                assert_int_equal(e.address, 0x7f0000000000u + (count % 1000) * 64);
                sizes += e.size;
            }
            count++;
        }
        assert_int_equal(pk_memory_events_close(c), PK_OK);
        assert_int_equal(count, n);
        assert_int_equal(sizes, (n / 2) * (n / 2 - 1)); /* 0 + 2 + 4 + ... */
    }
    pk_profile_free(p);
}

static void spool_lanes_keep_their_records_apart(void **state)
{
    (void)state;
    pk_spool *s = pk_spool_new();
    assert_non_null(s);
    /* Lane 0 gets far more than memory holds; lanes 1 and 5 a few records each. */
    unsigned char record[100];
    for (uint32_t i = 0; i < 70000; i++) {
        memset(record, (int)(i & 0xff), sizeof record);
        assert_true(pk_spool_append(s, 0, record, sizeof record));
        if (i % 10000 == 0) {
            assert_true(pk_spool_append(s, 1, &i, sizeof i));
            assert_true(pk_spool_append(s, 5, &i, sizeof i));
        }
    }
    assert_int_equal(pk_spool_lane_bytes(s, 0), 7000000);
    assert_int_equal(pk_spool_lane_bytes(s, 1), 7 * sizeof(uint32_t));
    assert_int_equal(pk_spool_lane_bytes(s, 3), 0);
    pk_spool_reader r;
    const unsigned char *data;
    size_t n, total = 0;
    pk_spool_reader_init(&r, s, 0);
    while (pk_spool_reader_next(&r, &data, &n)) {
        assert_int_equal(n % sizeof record, 0); /* whole records only */
        for (size_t k = 0; k < n; k += sizeof record)
            assert_int_equal(data[k], ((total + k) / sizeof record) & 0xff);
        total += n;
    }
    assert_int_equal(r.error, 0);
    pk_spool_reader_free(&r);
    assert_int_equal(total, 7000000);
    pk_spool_reader_init(&r, s, 5);
    uint32_t expected = 0;
    while (pk_spool_reader_next(&r, &data, &n)) {
        for (size_t k = 0; k < n; k += sizeof expected, expected += 10000) {
            uint32_t v;
            memcpy(&v, data + k, sizeof v);
            assert_int_equal(v, expected);
        }
    }
    assert_int_equal(expected, 70000);
    pk_spool_reader_free(&r);
    pk_spool_reader_init(&r, s, 3);
    assert_false(pk_spool_reader_next(&r, &data, &n));
    pk_spool_reader_free(&r);
    /* Records must be 1 to PK_SPOOL_MAX_RECORD bytes; a refused one stops the spool. */
    assert_false(pk_spool_append(s, 2, record, 0));
    assert_int_not_equal(pk_spool_error(s), 0);
    pk_spool_free(s);
}

/* A lane longer than a chunk but within what memory holds: its chunks are read back from
 * memory, in order, as often as wanted. */
static void spool_chunks_in_memory_read_back(void **state)
{
    (void)state;
    pk_spool *s = pk_spool_new();
    assert_non_null(s);
    uint32_t i;
    for (i = 0; i < 100000; i++) /* 400 kB: several chunks, no file */
        assert_true(pk_spool_append(s, 0, &i, sizeof i));
    for (int pass = 0; pass < 2; pass++) {
        pk_spool_reader r;
        pk_spool_reader_init(&r, s, 0);
        const unsigned char *data;
        size_t n, chunks = 0;
        uint32_t expected = 0;
        while (pk_spool_reader_next(&r, &data, &n)) {
            chunks++;
            for (size_t k = 0; k < n; k += sizeof expected, expected++) {
                uint32_t v;
                memcpy(&v, data + k, sizeof v);
                assert_int_equal(v, expected);
            }
        }
        assert_int_equal(r.error, 0);
        assert_int_equal(expected, 100000);
        assert_true(chunks > 1);
        pk_spool_reader_free(&r);
    }
    pk_spool_free(s);
}

/* Where no temporary file can be made ($TMPDIR missing), a spool that outgrows memory refuses
 * the record that needed the file and everything after, and says why; memory events then fail
 * as I/O errors instead of being lost. */
static void spool_without_a_temporary_file(void **state)
{
    (void)state;
    char *old = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL;
    assert_int_equal(setenv("TMPDIR", "/nonexistent/profkit-test", 1), 0);

    pk_spool *s = pk_spool_new();
    assert_non_null(s);
    unsigned char record[100] = {0};
    size_t accepted = 0;
    while (accepted < 1000000 && pk_spool_append(s, 0, record, sizeof record))
        accepted++;
    assert_true(accepted > 10000 && accepted < 1000000);
    assert_int_equal(pk_spool_error(s), ENOENT);
    assert_false(pk_spool_append(s, 1, record, sizeof record));
    pk_spool_free(s);

    pk_profile *p = pk_profile_new();
    uint32_t t = pk_add_thread(p, pk_intern_cstr(p, "main"), 0, 0);
    uint32_t stack = stack_named(p, "f");
    pk_status status = PK_OK;
    uint64_t events = 0;
    while (status == PK_OK && events < 10000000)
        status = pk_memory_alloc(p, t, stack, 0x1000 + 16 * (events++ % 4096), 16);
    assert_int_equal(status, PK_ERR_IO);
    pk_profile_free(p);

    if (old)
        setenv("TMPDIR", old, 1);
    else
        unsetenv("TMPDIR");
    free(old);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sites_sum_allocations_and_their_frees),
        cmocka_unit_test(events_read_back_in_order),
        cmocka_unit_test(live_values_add_what_was_not_freed),
        cmocka_unit_test(former_memory_value_names_find_the_vocabulary),
        cmocka_unit_test(sums_only_profile_has_no_events_to_read_but_copies_its_sums),
        cmocka_unit_test(big_sizes_and_displaced_blocks_keep_their_sizes),
        cmocka_unit_test(live_values_saturate_as_block_by_block),
        cmocka_unit_test(many_events_spill_and_read_back),
        cmocka_unit_test(spool_lanes_keep_their_records_apart),
        cmocka_unit_test(spool_chunks_in_memory_read_back),
        cmocka_unit_test(spool_without_a_temporary_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
