/* SPDX-License-Identifier: MIT */
/* The model: interning, the stack prefix tree, sample aggregation, memory matching. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "profkit/calltree.h"
#include "profkit/diff.h"
#include "core/distinct.h"
#include "core/hashmap.h"
#include "profkit/profile.h"
#include "memory_events.h"

static uint32_t make_frame(pk_profile *p, const char *name, uint32_t line)
{
    pk_function fn = {.name = pk_intern_cstr(p, name), .file = pk_intern_cstr(p, "file.brs"),
                      .start_line = 1, .resource = PK_NONE};
    pk_frame fr = {pk_intern_function(p, &fn), line, 0, PK_NONE, 0};
    return pk_intern_frame(p, &fr);
}

static void strings_are_interned(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    assert_string_equal(pk_str(p, 0), "");
    /* The empty text, even without a pointer (an empty buffer's), is string 0. */
    assert_int_equal(pk_intern(p, NULL, 0), 0);
    uint32_t a = pk_intern_cstr(p, "main");
    uint32_t b = pk_intern(p, "mainly", 4);
    assert_int_equal(a, b);
    assert_string_equal(pk_str(p, a), "main");
    /* Every byte counts, NUL bytes too: the text is whole, with a NUL after it. */
    uint32_t with_nul = pk_intern(p, "a\0b", 3);
    assert_int_not_equal(with_nul, pk_intern_cstr(p, "a"));
    assert_int_equal(pk_str_len(p, with_nul), 3);
    assert_memory_equal(pk_str(p, with_nul), "a\0b", 4);
    assert_int_equal(pk_intern(p, "a\0b", 3), with_nul);
    assert_string_equal(pk_str(p, PK_NONE), "");
    /* Many strings: pointers handed out earlier stay valid. */
    const char *first = pk_str(p, a);
    for (int i = 0; i < 100000; i++)
        assert_int_not_equal(pk_intern_printf(p, "s%d", i), PK_NONE);
    assert_ptr_equal(first, pk_str(p, a));
    assert_int_equal(pk_intern_printf(p, "s%d", 77), pk_intern_cstr(p, "s77"));
    pk_profile_free(p);
}

/* A profile of one function f (file a.js, line 3) with flags, one sample of 1. */
static pk_profile *one_function(uint32_t flags)
{
    pk_profile *p = pk_profile_new();
    pk_add_value_type(p, "samples", "count");
    pk_function fn = {pk_intern_cstr(p, "f"), pk_intern_cstr(p, "a.js"), 3, PK_NONE, 0, flags};
    pk_frame fr = {pk_intern_function(p, &fn), 3, 0, PK_NONE, 0};
    uint32_t thread = pk_add_thread(p, pk_intern_cstr(p, "main"), 1, 1);
    assert_int_equal(pk_add_sample_value(p, thread, pk_intern_stack(p, PK_NONE,
                                                                    pk_intern_frame(p, &fr)),
                                         0, 1),
                     PK_OK);
    return p;
}

/* A function's flags are not part of what makes it one: interning it again adds to them, and
 * profiles whose formats knew more or less of it compare function for function. */
static void function_flags_are_what_is_known(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    pk_function fn = {pk_intern_cstr(p, "f"), pk_intern_cstr(p, "a.js"), 3, PK_NONE, 7, 0};
    uint32_t plain = pk_intern_function(p, &fn);
    fn.flags = PK_FUNCTION_SCRIPT;
    assert_int_equal(pk_intern_function(p, &fn), plain);
    assert_int_equal(pk_function_at(p, plain)->flags, PK_FUNCTION_SCRIPT);
    fn.flags = 0;
    assert_int_equal(pk_intern_function(p, &fn), plain);
    assert_int_equal(pk_function_at(p, plain)->flags, PK_FUNCTION_SCRIPT);
    fn.flags = PK_FUNCTION_SCRIPT_RELEVANT;
    assert_int_equal(pk_intern_function(p, &fn), plain);
    assert_int_equal(pk_function_at(p, plain)->flags,
                     PK_FUNCTION_SCRIPT | PK_FUNCTION_SCRIPT_RELEVANT);
    assert_int_equal(pk_function_count(p), 1);
    pk_profile_free(p);

    /* A diff of a profile that says f is script with one that does not know. */
    pk_profile *known = one_function(PK_FUNCTION_SCRIPT), *unknown = one_function(0), *d = NULL;
    pk_error err;
    assert_int_equal(pk_diff_profiles(unknown, PK_NONE, known, PK_NONE, false, &d, &err), PK_OK);
    assert_int_equal(pk_function_count(d), 1);
    assert_int_equal(pk_function_at(d, 0)->flags, PK_FUNCTION_SCRIPT);
    assert_int_equal(pk_sample_count(d), 1);
    pk_profile_free(d);
    pk_profile_free(known);
    pk_profile_free(unknown);
}

static void stacks_form_a_prefix_tree(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    uint32_t fa = make_frame(p, "a", 0), fb = make_frame(p, "b", 3), fc = make_frame(p, "c", 0);
    assert_int_equal(make_frame(p, "b", 3), fb);
    assert_int_not_equal(make_frame(p, "b", 4), fb);
    uint32_t sa = pk_intern_stack(p, PK_NONE, fa);
    uint32_t sab = pk_intern_stack(p, sa, fb);
    uint32_t sabc = pk_intern_stack(p, sab, fc);
    assert_int_equal(pk_intern_stack(p, sa, fb), sab);
    assert_true(sa < sab && sab < sabc);
    assert_int_equal(pk_stack_depth(p, sabc), 3);
    uint32_t frames[3];
    assert_int_equal(pk_stack_frames(p, sabc, frames, 3), 3);
    assert_int_equal(frames[0], fa);
    assert_int_equal(frames[2], fc);
    assert_int_equal(pk_stack_frames(p, sabc, frames, 2), 3);
    assert_string_equal(pk_frame_name(p, fb), "b");
    assert_int_equal(pk_intern_stack(p, 999, fa), PK_NONE);
    pk_profile_free(p);
}

/* A sequence is one stack however it was built: a frame at a time, as one run, or as a run
 * after a known prefix; runs and prefixes read back as the sequence. */
static void stacks_are_sequences_however_built(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    pk_function fn = {.name = pk_intern_cstr(p, "f"), .resource = PK_NONE};
    uint32_t function = pk_intern_function(p, &fn);
    uint32_t frames[300];
    for (uint32_t i = 0; i < 300; i++) {
        pk_frame f = {function, i + 1, 0, PK_NONE, 0};
        frames[i] = pk_intern_frame(p, &f);
    }
    /* The whole chain as one run: one stack. */
    uint32_t run = pk_intern_stack_frames(p, PK_NONE, frames, 300);
    assert_int_equal(pk_stack_count(p), 1);
    assert_int_equal(pk_stack_depth(p, run), 300);
    assert_int_equal(pk_stack_leaf(p, run), frames[299]);
    uint32_t prefix;
    const uint32_t *own;
    assert_int_equal(pk_stack_run(p, run, &prefix, &own), 300);
    assert_int_equal(prefix, PK_NONE);
    assert_memory_equal(own, frames, sizeof frames);
    /* Built a frame at a time, the last step finds the run (the prefixes are new stacks). */
    uint32_t chain = PK_NONE;
    for (uint32_t i = 0; i < 300; i++)
        chain = pk_intern_stack(p, chain, frames[i]);
    assert_int_equal(chain, run);
    assert_int_equal(pk_stack_count(p), 300);
    /* A run after a known prefix, and the lookup without interning. */
    uint32_t half = pk_find_stack_frames(p, PK_NONE, frames, 150);
    assert_true(half != PK_NONE);
    assert_int_equal(pk_intern_stack_frames(p, half, frames + 150, 150), run);
    assert_int_equal(pk_find_stack_frames(p, half, frames + 150, 150), run);
    assert_int_equal(pk_find_stack_frames(p, half, frames + 149, 150), PK_NONE);
    assert_int_equal(pk_intern_stack_frames(p, half, frames, 0), half);
    assert_int_equal(pk_stack_count(p), 300);
    /* A branch off the middle is a new stack; its frames read back root first. */
    uint32_t branch = pk_intern_stack_frames(p, half, frames + 10, 3);
    assert_int_equal(pk_stack_count(p), 301);
    uint32_t got[160];
    assert_int_equal(pk_stack_frames(p, branch, got, 160), 153);
    assert_memory_equal(got, frames, 150 * sizeof *got);
    assert_memory_equal(got + 150, frames + 10, 3 * sizeof *got);
    /* Out of range: no stack. */
    assert_int_equal(pk_intern_stack(p, 12345, frames[0]), PK_NONE);
    assert_int_equal(pk_intern_stack(p, run, 12345), PK_NONE);
    uint32_t bad[2] = {frames[0], 12345};
    assert_int_equal(pk_intern_stack_frames(p, PK_NONE, bad, 2), PK_NONE);
    assert_int_equal(pk_stack_leaf(p, PK_NONE), PK_NONE);
    assert_int_equal(pk_stack_depth(p, PK_NONE), 0);
    pk_profile_free(p);
}

/* The stack's hash is taken several frames at a time: a sequence split anywhere into a prefix
 * and a run, for every length around those steps, is still the one stack. */
static void stacks_split_anywhere_are_one(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    pk_function fn = {.name = pk_intern_cstr(p, "s"), .resource = PK_NONE};
    uint32_t function = pk_intern_function(p, &fn);
    uint32_t frames[13];
    for (uint32_t i = 0; i < 13; i++) {
        pk_frame f = {function, 100 + i, 0, PK_NONE, 0};
        frames[i] = pk_intern_frame(p, &f);
    }
    for (size_t n = 1; n <= 13; n++) {
        uint32_t whole = pk_intern_stack_frames(p, PK_NONE, frames, n);
        assert_true(whole != PK_NONE);
        for (size_t split = 0; split <= n; split++) {
            uint32_t prefix = pk_intern_stack_frames(p, PK_NONE, frames, split);
            assert_int_equal(pk_intern_stack_frames(p, prefix, frames + split, n - split), whole);
            assert_int_equal(pk_find_stack_frames(p, prefix, frames + split, n - split), whole);
        }
        /* The same frames in another order are another stack. */
        uint32_t swapped[13];
        memcpy(swapped, frames, n * sizeof *swapped);
        if (n >= 2) {
            swapped[n - 2] = frames[n - 1];
            swapped[n - 1] = frames[n - 2];
            assert_int_equal(pk_find_stack_frames(p, PK_NONE, swapped, n), PK_NONE);
        }
    }
    assert_int_equal(pk_stack_count(p), 13);
    pk_profile_free(p);
}

/* Many stacks that differ only deep down: each distinct sequence once, whatever the order. */
static void deep_stacks_share_nothing_but_their_runs(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    pk_function fn = {.name = pk_intern_cstr(p, "g"), .resource = PK_NONE};
    uint32_t function = pk_intern_function(p, &fn);
    uint32_t frames[64];
    for (uint32_t i = 0; i < 64; i++) {
        pk_frame f = {function, i + 1, 0, PK_NONE, 0};
        frames[i] = pk_intern_frame(p, &f);
    }
    uint32_t seq[200], ids[2000];
    for (int round = 0; round < 2; round++) {
        uint32_t x = 12345;
        for (uint32_t s = 0; s < 2000; s++) {
            for (size_t k = 0; k < 200; k++) {
                x = x * 1103515245u + 12345u;
                seq[k] = frames[(x >> 16) % 64];
            }
            uint32_t id = pk_intern_stack_frames(p, PK_NONE, seq, 200);
            if (round == 0)
                ids[s] = id;
            else
                assert_int_equal(id, ids[s]);
        }
    }
    assert_int_equal(pk_stack_count(p), 2000);
    pk_profile_free(p);
}

static void samples_aggregate_per_thread_and_stack(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    assert_int_equal(pk_add_value_type(p, "cpu", "operations"), 0);
    assert_int_equal(pk_add_value_type(p, "calls", "count"), 1);
    pk_set_default_value(p, 0);
    uint32_t t0 = pk_add_thread(p, pk_intern_cstr(p, "main"), 1, 1);
    uint32_t t1 = pk_add_thread(p, pk_intern_cstr(p, "render"), 1, 2);
    uint32_t s = pk_intern_stack(p, PK_NONE, make_frame(p, "a", 0));
    int64_t v[2] = {10, 1};
    for (int i = 0; i < 1000; i++)
        assert_int_equal(pk_add_sample(p, t0, s, v), PK_OK);
    assert_int_equal(pk_add_sample_value(p, t1, s, 1, 5), PK_OK);
    assert_int_equal(pk_sample_count(p), 2);
    assert_int_equal(pk_sample_values(p, 0)[0], 10000);
    assert_int_equal(pk_sample_values(p, 1)[1], 5);
    assert_int_equal(pk_value_total(p, 1), 1005);
    assert_true(pk_sample_order(p, 0) < pk_sample_order(p, 1));
    /* A value declared once rows exist widens them with 0, keeping what they hold. */
    assert_int_equal(pk_add_value_type(p, "late", "count"), 2);
    assert_int_equal(pk_sample_values(p, 0)[0], 10000);
    assert_int_equal(pk_sample_values(p, 0)[1], 1000);
    assert_int_equal(pk_sample_values(p, 0)[2], 0);
    assert_int_equal(pk_sample_values(p, 1)[1], 5);
    assert_int_equal(pk_sample_values(p, 1)[2], 0);
    assert_int_equal(pk_add_sample_value(p, t1, s, 2, 3), PK_OK);
    assert_int_equal(pk_value_total(p, 2), 3);
    assert_int_equal(pk_value_total(p, 1), 1005);
    int64_t three[3] = {10, 1, 0};
    assert_int_equal(pk_value_find(p, "calls"), 1);
    assert_int_equal(pk_value_find(p, "nope"), PK_NONE);
    assert_int_equal(pk_add_sample(p, 7, s, three), PK_ERR_USAGE);
    /* Saturation instead of overflow. */
    size_t row = pk_sample_row(p, t0, s);
    pk_sample_row_add(p, row, 0, INT64_MAX);
    assert_int_equal(pk_sample_values(p, row)[0], INT64_MAX);
    pk_profile_free(p);
}

/* One row per (thread, stack) however rows are asked for: threads sharing stacks, in any
 * order, the empty stack, and stacks interned after rows exist. */
static void rows_are_per_thread_and_stack(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    assert_int_equal(pk_add_value_type(p, "samples", "count"), 0);
    uint32_t threads[3];
    for (int t = 0; t < 3; t++)
        threads[t] = pk_add_thread(p, pk_intern_printf(p, "t%d", t), 1, (int64_t)t + 1);
    enum { STACKS = 200 };
    uint32_t stacks[STACKS + 1];
    stacks[STACKS] = PK_NONE;
    size_t rows[3][STACKS + 1];
    int asked[3][STACKS + 1] = {{0}};
    for (int round = 0; round < 2; round++) {
        for (int k = 0; k <= STACKS; k++) {
            if (round == 0 && k < STACKS) {
                char name[16];
                snprintf(name, sizeof name, "f%d", k);
                stacks[k] =
                    pk_intern_stack(p, k ? stacks[k - 1] : PK_NONE, make_frame(p, name, 0));
            }
            /* Each stack first in a different thread; later threads in turn. */
            for (int i = 0; i < 3; i++) {
                int t = (k + i) % 3;
                if (round == 0 && i == 2 && k % 2)
                    continue; /* some stacks in two threads only, until the second round */
                size_t row = pk_sample_row(p, threads[t], stacks[k]);
                assert_int_not_equal(row, SIZE_MAX);
                if (round == 0 || (i == 2 && k % 2))
                    rows[t][k] = row;
                else
                    assert_int_equal(row, rows[t][k]);
                assert_int_equal(pk_sample_thread(p, row), threads[t]);
                assert_int_equal(pk_sample_stack(p, row), stacks[k]);
                pk_sample_row_add(p, row, 0, 1);
                asked[t][k]++;
            }
        }
    }
    assert_int_equal(pk_sample_count(p), 3 * (STACKS + 1));
    for (int t = 0; t < 3; t++)
        for (int k = 0; k <= STACKS; k++)
            assert_int_equal(pk_sample_values(p, rows[t][k])[0], asked[t][k]);
    pk_profile_free(p);
}

/* Stacks and rows handed over as distinct (core/distinct.h) are not looked up when added, but
 * they are found, and not made twice, by what interns, finds or asks for rows afterwards; and
 * more can be handed over after interning resumed. */
static void distinct_stacks_and_rows_are_found_afterwards(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    assert_int_equal(pk_add_value_type(p, "samples", "count"), 0);
    uint32_t t0 = pk_add_thread(p, pk_intern_cstr(p, "t0"), 1, 1);
    uint32_t t1 = pk_add_thread(p, pk_intern_cstr(p, "t1"), 1, 2);
    enum { FRAMES = 64, STACKS = 3000 };
    uint32_t frames[FRAMES];
    for (int f = 0; f < FRAMES; f++) {
        char name[16];
        snprintf(name, sizeof name, "f%d", f);
        frames[f] = make_frame(p, name, 0);
    }
    /* Stack k: frames[0], then the bits of k + 1 as frames 1 or 2, then frames[3 + k % 61]. */
    uint32_t seq[16], stacks[STACKS];
    size_t lengths[STACKS];
    for (int k = 0; k < STACKS; k++) {
        size_t n = 0;
        seq[n++] = frames[0];
        for (unsigned bits = (unsigned)k + 1; bits; bits >>= 1)
            seq[n++] = frames[1 + (bits & 1)];
        seq[n++] = frames[3 + k % 61];
        lengths[k] = n;
        /* The first half distinct, then interned, then distinct again. */
        bool distinct = k < STACKS / 2 || k >= STACKS * 3 / 4;
        stacks[k] = distinct ? pk_add_distinct_stack(p, seq, n)
                             : pk_intern_stack_frames(p, PK_NONE, seq, n);
        assert_int_equal(stacks[k], k);
        int64_t one = 1;
        assert_int_equal(distinct ? pk_add_distinct_sample(p, t0, stacks[k], &one)
                                  : pk_add_sample(p, t0, stacks[k], &one),
                         PK_OK);
        if (k == STACKS / 4 || k == STACKS - 1)
            assert_int_equal(pk_find_stack_frames(p, PK_NONE, seq, n), stacks[k]);
    }
    int64_t one = 1;
    assert_int_equal(pk_add_distinct_sample(p, t1, PK_NONE, &one), PK_OK);
    assert_int_equal(pk_add_distinct_stack(p, seq, 0), PK_NONE);
    uint32_t bad = (uint32_t)pk_frame_count(p);
    assert_int_equal(pk_add_distinct_stack(p, &bad, 1), PK_NONE);
    assert_int_equal(pk_add_distinct_sample(p, 9, stacks[0], &one), PK_ERR_USAGE);
    assert_int_equal(pk_stack_count(p), STACKS);
    assert_int_equal(pk_sample_count(p), STACKS + 1);
    /* Every stack and row again: the same ones, found. */
    for (int k = 0; k < STACKS; k++) {
        uint32_t again[16];
        assert_int_equal(pk_stack_frames(p, stacks[k], again, 16), lengths[k]);
        assert_int_equal(pk_find_stack_frames(p, PK_NONE, again, lengths[k]), stacks[k]);
        assert_int_equal(pk_intern_stack_frames(p, PK_NONE, again, lengths[k]), stacks[k]);
        assert_int_equal(pk_add_sample(p, t0, stacks[k], &one), PK_OK);
        assert_int_equal(pk_add_sample(p, t1, stacks[k], &one), PK_OK);
    }
    assert_int_equal(pk_add_sample(p, t1, PK_NONE, &one), PK_OK);
    assert_int_equal(pk_stack_count(p), STACKS);
    assert_int_equal(pk_sample_count(p), 2 * STACKS + 1);
    for (size_t row = 0; row < STACKS; row++)
        assert_int_equal(pk_sample_values(p, row)[0], 2);
    assert_int_equal(pk_sample_values(p, STACKS)[0], 2);
    pk_profile_free(p);
}

/* A pool of frames handed over (pk_take_stack_pool) holds the runs of the stacks added from
 * it, uncopied: they are the stacks that copying the same frames makes, found afterwards. */
static void stacks_added_from_a_pool_taken_over(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    uint32_t frames[5];
    for (int f = 0; f < 5; f++) {
        char name[16];
        snprintf(name, sizeof name, "g%d", f);
        frames[f] = make_frame(p, name, 0);
    }
    /* Runs {0 1 2}, {0 1}, {3}, {0 1 2 4} back to back. */
    const uint32_t runs[] = {0, 1, 2, 0, 1, 3, 0, 1, 2, 4};
    const size_t first[] = {0, 3, 5, 6}, length[] = {3, 2, 1, 4};
    uint32_t *pool = malloc(16 * sizeof *pool);
    assert_non_null(pool);
    for (size_t i = 0; i < 10; i++)
        pool[i] = frames[runs[i]];
    assert_true(pk_take_stack_pool(p, pool, 10, 16));
    for (uint32_t k = 0; k < 4; k++)
        assert_int_equal(pk_add_distinct_run(p, first[k], length[k]), k);
    /* Past the pool, or naming a frame the profile does not have: none. */
    assert_int_equal(pk_add_distinct_run(p, 8, 3), PK_NONE);
    pool[9] = (uint32_t)pk_frame_count(p);
    assert_int_equal(pk_add_distinct_run(p, 9, 1), PK_NONE);
    pool[9] = frames[4];
    /* A second pool is not taken once there are stacks. */
    uint32_t *other = malloc(sizeof *other);
    assert_non_null(other);
    assert_false(pk_take_stack_pool(p, other, 0, 1));
    free(other);
    assert_int_equal(pk_stack_count(p), 4);
    assert_true(pk_profile_complete(p));
    for (uint32_t k = 0; k < 4; k++) {
        uint32_t seq[4], again[4];
        for (size_t i = 0; i < length[k]; i++)
            seq[i] = frames[runs[first[k] + i]];
        assert_int_equal(pk_stack_frames(p, k, again, 4), length[k]);
        assert_memory_equal(again, seq, length[k] * sizeof *seq);
        assert_int_equal(pk_find_stack_frames(p, PK_NONE, seq, length[k]), k);
        assert_int_equal(pk_intern_stack_frames(p, PK_NONE, seq, length[k]), k);
    }
    uint32_t fresh[2] = {frames[4], frames[0]};
    assert_int_equal(pk_intern_stack_frames(p, PK_NONE, fresh, 2), 4);
    pk_profile_free(p);
}

static void frees_match_allocations_by_address(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    uint32_t bytes = pk_add_value_type(p, "live-bytes", "bytes");
    uint32_t count = pk_add_value_type(p, "live-allocs", "count");
    uint32_t t = pk_add_thread(p, pk_intern_cstr(p, "main"), 0, 0);
    uint32_t s1 = pk_intern_stack(p, PK_NONE, make_frame(p, "alloc_a", 0));
    uint32_t s2 = pk_intern_stack(p, PK_NONE, make_frame(p, "alloc_b", 0));
    uint64_t freed = 99;
    assert_int_equal(pk_memory_alloc(p, t, s1, 0x1000, 64), PK_OK);
    assert_int_equal(pk_memory_alloc(p, t, s2, 0x2000, 128), PK_OK);
    assert_int_equal(pk_memory_free(p, t, s2, 0x1000, PK_MEM_FREE, &freed), PK_OK);
    assert_int_equal(freed, 64);
    assert_int_equal(pk_memory_free(p, t, s2, 0x3000, PK_MEM_REALLOC_FREE, &freed), PK_OK);
    assert_int_equal(freed, 0);
    assert_int_equal(pk_memory_event_count(p), 4);
    pk_memory_event e;
    tm_memory_event_at(p, 0, &e);
    assert_true(e.matched);
    assert_int_equal(e.kind, PK_MEM_ALLOC);
    tm_memory_event_at(p, 2, &e);
    assert_int_equal(e.size, 64);
    assert_int_equal(e.kind, PK_MEM_FREE);
    tm_memory_event_at(p, 3, &e);
    assert_false(e.matched);
    assert_int_equal(pk_memory_add_live_values(p, bytes, count), PK_OK);
    assert_int_equal(pk_value_total(p, bytes), 128);
    assert_int_equal(pk_value_total(p, count), 1);
    pk_profile_free(p);
}

/* Sums over rows fit in an int64 exactly when pk_values_overflow says so. */
static void values_overflow_is_known(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    uint32_t v = pk_add_value_type(p, "samples", "count");
    uint32_t w = pk_add_value_type(p, "other", "count");
    uint32_t t = pk_add_thread(p, pk_intern_cstr(p, "main"), 0, 0);
    uint32_t a = pk_intern_stack(p, PK_NONE, make_frame(p, "a", 0));
    uint32_t b = pk_intern_stack(p, a, make_frame(p, "b", 0));
    assert_int_equal(pk_add_sample_value(p, t, a, v, INT64_MAX - 10), PK_OK);
    assert_false(pk_values_overflow(p, NULL));
    /* Additions that cancel leave the rows summable (b is 5). */
    assert_int_equal(pk_add_sample_value(p, t, b, v, INT64_MAX), PK_OK);
    assert_int_equal(pk_add_sample_value(p, t, b, v, -INT64_MAX + 5), PK_OK);
    assert_false(pk_values_overflow(p, NULL));
    /* Magnitudes count: b at -15 leaves a signed total that fits, but not the sum of the
     * magnitudes that shares divide by. */
    assert_int_equal(pk_add_sample_value(p, t, b, w, -4), PK_OK);
    assert_int_equal(pk_add_sample_value(p, t, b, v, -20), PK_OK);
    uint32_t which = PK_NONE;
    assert_true(pk_values_overflow(p, &which));
    assert_int_equal(which, v);
    pk_profile_free(p);

    /* One row that saturated is an overflow too. */
    p = pk_profile_new();
    v = pk_add_value_type(p, "samples", "count");
    t = pk_add_thread(p, pk_intern_cstr(p, "main"), 0, 0);
    a = pk_intern_stack(p, PK_NONE, make_frame(p, "a", 0));
    const int64_t big[] = {INT64_MAX};
    assert_int_equal(pk_add_sample(p, t, a, big), PK_OK);
    assert_int_equal(pk_add_sample(p, t, a, (const int64_t[]){1}), PK_OK);
    assert_true(pk_values_overflow(p, NULL));
    pk_profile_free(p);
}

static void metadata_properties_and_warnings(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    assert_int_equal(pk_metadata_get(p)->start_time, PK_TIME_UNKNOWN);
    pk_property_set(p, "target", "Channel");
    pk_property_set(p, "device", "Roku");
    pk_property_set(p, "target", "Other");
    assert_int_equal(pk_property_count(p), 2);
    assert_string_equal(pk_property_get(p, "target"), "Other");
    assert_null(pk_property_get(p, "missing"));
    for (int i = 0; i < 150; i++)
        pk_warn(p, "warning %d", i);
    assert_int_equal(pk_warning_count(p), 100);
    assert_int_equal(pk_warnings_dropped(p), 50);
    assert_string_equal(pk_warning_at(p, 3), "warning 3");
    pk_profile_free(p);
}

/* Many keys (one process name per process): each keeps its value and its place in the order
 * of first setting; a key that is an interned string but no property is absent. */
static void many_properties_keep_their_order(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    char key[32], value[32];
    for (int i = 0; i < 3000; i++) {
        snprintf(key, sizeof key, "process.%d.name", 3000 - i);
        snprintf(value, sizeof value, "p%d", i);
        assert_int_equal(pk_property_set(p, key, value), PK_OK);
    }
    assert_int_equal(pk_property_set(p, "process.1500.name", "again"), PK_OK);
    assert_int_equal(pk_property_count(p), 3000);
    for (int i = 0; i < 3000; i += 7) {
        snprintf(key, sizeof key, "process.%d.name", 3000 - i);
        assert_string_equal(pk_property_key(p, (size_t)i), key);
        snprintf(value, sizeof value, "p%d", i);
        if (i != 1500)
            assert_string_equal(pk_property_get(p, key), value);
    }
    assert_string_equal(pk_property_get(p, "process.1500.name"), "again");
    assert_string_equal(pk_property_value(p, 1500), "again");
    assert_null(pk_property_get(p, "p7"));   /* a string the profile holds, not a key */
    assert_null(pk_property_get(p, "never seen"));
    pk_profile_free(p);
}

static void u64map_removes_without_losing_neighbours(void **state)
{
    (void)state;
    pk_u64map m;
    pk_u64map_init(&m);
    for (uint64_t k = 0; k < 5000; k++)
        assert_true(pk_u64map_put(&m, k * 7919, (uint32_t)k, NULL, NULL));
    for (uint64_t k = 0; k < 5000; k += 2)
        assert_true(pk_u64map_remove(&m, k * 7919, NULL));
    for (uint64_t k = 0; k < 5000; k++) {
        uint32_t *v = pk_u64map_find(&m, k * 7919);
        if (k % 2)
            assert_true(v && *v == k);
        else
            assert_null(v);
    }
    assert_int_equal(m.count, 2500);
    pk_u64map_free(&m);
}

/* Key 0 beside the slots, growth part by part, removal and iteration over every entry once. */
static void u64map64_keeps_every_key_through_growth_and_removal(void **state)
{
    (void)state;
    pk_u64map64 m;
    pk_u64map64_init(&m);
    const uint64_t n = 20000;
    for (uint64_t k = 0; k < n; k++) {
        assert_true(pk_u64map64_put(&m, k * 0x9e3779b97f4a7c15u, ~k, NULL, NULL));
        /* Parts grow by a quarter at 3/4 full: none is less than 3/5 full once it has grown
         * past its first capacity (a table of live allocations is mostly slots). */
        for (size_t i = 0; k > 2000 && i < PK_U64MAP64_PARTS; i++)
            assert_true(m.parts[i].count * 5 >= m.parts[i].capacity * 3 - 5);
    }
    uint64_t *value;
    bool inserted;
    assert_true(pk_u64map64_put(&m, 0, 1, &value, &inserted)); /* key 0 was put as k = 0 */
    assert_false(inserted);
    assert_int_equal(*value, ~(uint64_t)0);
    for (uint64_t k = 0; k < n; k += 2)
        assert_true(pk_u64map64_remove(&m, k * 0x9e3779b97f4a7c15u, NULL));
    assert_false(pk_u64map64_remove(&m, 0, NULL));
    assert_int_equal(m.count, n / 2);
    for (uint64_t k = 0; k < n; k++) {
        value = pk_u64map64_find(&m, k * 0x9e3779b97f4a7c15u);
        if (k % 2)
            assert_true(value && *value == ~k);
        else
            assert_null(value);
    }
    assert_true(pk_u64map64_put(&m, 0, 42, NULL, NULL));
    size_t at = 0, seen = 0;
    uint64_t key, v, sum = 0;
    while (pk_u64map64_next(&m, &at, &key, &v)) {
        seen++;
        sum += key == 0 ? v : ~v;
    }
    assert_int_equal(seen, n / 2 + 1);
    assert_int_equal(sum, 42 + (n / 2) * (n / 2)); /* 1 + 3 + ... + (n - 1) */
    pk_u64map64_free(&m);
}

static void calltree_merges_by_name(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    pk_add_value_type(p, "samples", "count");
    uint32_t t = pk_add_thread(p, pk_intern_cstr(p, "main"), 0, 0);
    /* a;b at two different lines of b: one node in the tree. */
    uint32_t sa = pk_intern_stack(p, PK_NONE, make_frame(p, "a", 0));
    uint32_t sab1 = pk_intern_stack(p, sa, make_frame(p, "b", 1));
    uint32_t sab2 = pk_intern_stack(p, sa, make_frame(p, "b", 2));
    uint32_t sabc = pk_intern_stack(p, sab1, make_frame(p, "c", 0));
    pk_add_sample_value(p, t, sab1, 0, 3);
    pk_add_sample_value(p, t, sab2, 0, 4);
    pk_add_sample_value(p, t, sabc, 0, 5);
    pk_add_sample_value(p, t, sa, 0, 1);
    pk_calltree tree;
    assert_int_equal(pk_calltree_build(&tree, p, 0, 0, NULL, NULL, NULL), PK_OK);
    assert_int_equal(tree.count, 4); /* root, a, b, c */
    assert_int_equal(tree.nodes[0].total, 13);
    uint32_t a = tree.nodes[0].first_child;
    assert_string_equal(pk_str(p, tree.nodes[a].name), "a");
    assert_int_equal(tree.nodes[a].self, 1);
    assert_int_equal(tree.nodes[a].total, 13);
    uint32_t b = tree.nodes[a].first_child;
    assert_int_equal(tree.nodes[b].self, 7);
    assert_int_equal(tree.nodes[b].total, 12);
    uint32_t names[4];
    uint32_t c = tree.nodes[b].first_child;
    assert_int_equal(pk_calltree_path(&tree, c, names, 4), 3);
    assert_string_equal(pk_str(p, names[0]), "a");
    assert_string_equal(pk_str(p, names[2]), "c");
    pk_calltree_free(&tree);

    assert_int_equal(pk_calltree_build(&tree, p, 0, PK_CALLTREE_INVERTED | PK_CALLTREE_THREAD_ROOTS,
                                       NULL, NULL, NULL),
                     PK_OK);
    uint32_t thread_node = tree.nodes[0].first_child;
    assert_string_equal(pk_str(p, tree.nodes[thread_node].name), "main");
    /* Leaves first: b (7), c (5), a (1). */
    uint32_t first_leaf = tree.nodes[thread_node].first_child;
    assert_string_equal(pk_str(p, tree.nodes[first_leaf].name), "b");
    assert_int_equal(tree.nodes[first_leaf].total, 7);
    pk_calltree_free(&tree);
    pk_profile_free(p);
}

/* Label sets are interned whatever the order of their labels; a row is (thread, stack, label
 * set), rows without labels keep their own lookup, and distinct rows appended before labelled
 * ones are still found. */
static void rows_are_split_by_label_set(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    pk_add_value_type(p, "samples", "count");
    uint32_t t = pk_add_thread(p, pk_intern_cstr(p, "main"), 1, 1);
    uint32_t s = pk_intern_stack(p, PK_NONE, make_frame(p, "f", 1));
    uint32_t key_a = pk_intern_cstr(p, "a"), key_b = pk_intern_cstr(p, "bytes");
    uint32_t x = pk_intern_cstr(p, "x"), unit = pk_intern_cstr(p, "bytes");
    pk_label ab[2] = {{key_a, x, 0, 0}, {key_b, PK_NONE, 512, unit}};
    pk_label ba[2] = {ab[1], ab[0]};
    assert_int_equal(pk_intern_label_set(p, ab, 0), PK_NONE);
    uint32_t set = pk_intern_label_set(p, ab, 2);
    assert_int_not_equal(set, PK_NONE);
    assert_int_equal(pk_intern_label_set(p, ba, 2), set);
    uint32_t only_a = pk_intern_label_set(p, ab, 1);
    assert_int_not_equal(only_a, set);
    assert_int_equal(pk_label_set_count(p), 2);
    const pk_label *labels;
    assert_int_equal(pk_label_set_at(p, set, &labels), 2);
    assert_int_equal(labels[0].key, key_a);
    assert_int_equal(labels[1].num, 512);
    assert_int_equal(labels[1].unit, unit);
    pk_label bad = {PK_NONE - 1, x, 0, 0};
    assert_int_equal(pk_intern_label_set(p, &bad, 1), PK_NONE);

    int64_t one = 1;
    assert_int_equal(pk_add_distinct_sample(p, t, s, &one), PK_OK); /* row 0, no labels */
    assert_int_equal(pk_add_sample_labeled(p, t, s, set, &one), PK_OK);
    assert_int_equal(pk_add_sample_labeled(p, t, s, only_a, &one), PK_OK);
    assert_int_equal(pk_add_sample_labeled(p, t, s, set, &one), PK_OK);
    assert_int_equal(pk_add_sample(p, t, s, &one), PK_OK);
    assert_int_equal(pk_add_sample_labeled(p, t, s, PK_NONE, &one), PK_OK);
    assert_int_equal(pk_sample_count(p), 3);
    assert_int_equal(pk_sample_label_set(p, 0), PK_NONE);
    assert_int_equal(pk_sample_label_set(p, 1), set);
    assert_int_equal(pk_sample_label_set(p, 2), only_a);
    assert_int_equal(pk_sample_values(p, 0)[0], 3);
    assert_int_equal(pk_sample_values(p, 1)[0], 2);
    assert_int_equal(pk_sample_row_labeled(p, t, s, only_a), 2);
    assert_int_equal(pk_sample_row_labeled(p, t, s, 7), SIZE_MAX);
    assert_int_equal(pk_add_sample_labeled(p, t, s, 7, &one), PK_ERR_USAGE);
    /* a value declared later widens labelled rows too */
    assert_int_not_equal(pk_add_value_type(p, "bytes", "bytes"), PK_NONE);
    assert_int_equal(pk_sample_values(p, 2)[0], 1);
    assert_int_equal(pk_sample_values(p, 2)[1], 0);
    pk_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(strings_are_interned),
        cmocka_unit_test(function_flags_are_what_is_known),
        cmocka_unit_test(rows_are_per_thread_and_stack),
        cmocka_unit_test(stacks_form_a_prefix_tree),
        cmocka_unit_test(stacks_are_sequences_however_built),
        cmocka_unit_test(stacks_split_anywhere_are_one),
        cmocka_unit_test(deep_stacks_share_nothing_but_their_runs),
        cmocka_unit_test(samples_aggregate_per_thread_and_stack),
        cmocka_unit_test(distinct_stacks_and_rows_are_found_afterwards),
        cmocka_unit_test(stacks_added_from_a_pool_taken_over),
        cmocka_unit_test(rows_are_split_by_label_set),
        cmocka_unit_test(frees_match_allocations_by_address),
        cmocka_unit_test(values_overflow_is_known),
        cmocka_unit_test(metadata_properties_and_warnings),
        cmocka_unit_test(many_properties_keep_their_order),
        cmocka_unit_test(u64map_removes_without_losing_neighbours),
        cmocka_unit_test(u64map64_keeps_every_key_through_growth_and_removal),
        cmocka_unit_test(calltree_merges_by_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
