/* SPDX-License-Identifier: MIT */
/* A profile's stacks as sequences of keys (core/keyed_stacks.h): what two stacks share from the
 * root, in keys, against the keys of their frames compared one by one, for stacks built a frame
 * at a time and as whole runs, added in any order (so that nodes are split after stacks were
 * noted in them); a key that cannot be had fails the adding. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/keyed_stacks.h"
#include "profkit/profile.h"

/* A frame's key is its function: frames of one function at other lines are one key. The keys
 * run out after `left` of them (none: memory running out). */
typedef struct keys {
    const pk_profile *p;
    size_t left;
} keys;

static uint32_t function_key(void *context, uint32_t frame)
{
    keys *k = context;
    if (k->left == 0)
        return PK_NONE;
    k->left--;
    return pk_frame_at(k->p, frame)->function;
}

static uint32_t frame_of(pk_profile *p, uint32_t function, uint32_t line)
{
    char name[16];
    snprintf(name, sizeof name, "f%u", function);
    pk_function f = {.name = pk_intern_cstr(p, name), .resource = PK_NONE};
    pk_frame fr = {.function = pk_intern_function(p, &f), .line = line, .resource = PK_NONE};
    return pk_intern_frame(p, &fr);
}

/* The keys two stacks share, counted frame by frame. */
static uint32_t common_by_frames(const pk_profile *p, uint32_t a, uint32_t b)
{
    uint32_t da = pk_stack_depth(p, a), db = pk_stack_depth(p, b);
    uint32_t *fa = malloc((da + 1) * sizeof *fa), *fb = malloc((db + 1) * sizeof *fb);
    assert_non_null(fa);
    assert_non_null(fb);
    pk_stack_frames(p, a, fa, da);
    pk_stack_frames(p, b, fb, db);
    uint32_t n = 0;
    while (n < da && n < db &&
           pk_frame_at(p, fa[n])->function == pk_frame_at(p, fb[n])->function)
        n++;
    free(fa);
    free(fb);
    return n;
}

static void test_small(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    uint32_t a1 = frame_of(p, 0, 1), a2 = frame_of(p, 0, 2), b = frame_of(p, 1, 0),
             c = frame_of(p, 2, 0), d = frame_of(p, 3, 0);
    /* Whole runs that share no model prefix: a@1 b c, a@2 b d, a@1 b. */
    uint32_t abc = pk_intern_stack_frames(p, PK_NONE, (uint32_t[]){a1, b, c}, 3);
    uint32_t abd = pk_intern_stack_frames(p, PK_NONE, (uint32_t[]){a2, b, d}, 3);
    uint32_t ab = pk_intern_stack_frames(p, PK_NONE, (uint32_t[]){a1, b}, 2);
    /* A frame at a time below a@2: a@2 c. */
    uint32_t ac = pk_intern_stack(p, pk_intern_stack(p, PK_NONE, a2), c);
    keys k = {p, SIZE_MAX};
    pk_keyed_stacks t;
    assert_true(pk_keyed_stacks_init(&t, p, function_key, &k));
    assert_true(pk_keyed_stacks_add(&t, abc));
    assert_true(pk_keyed_stacks_add(&t, ab)); /* inside abc's node */
    assert_true(pk_keyed_stacks_add(&t, abd)); /* splits it after a b */
    assert_true(pk_keyed_stacks_add(&t, ac));  /* splits it after a */
    assert_true(pk_keyed_stacks_add(&t, PK_NONE));
    assert_int_equal(pk_keyed_stacks_common(&t, abc, abd), 2);
    assert_int_equal(pk_keyed_stacks_common(&t, abc, ab), 2);
    assert_int_equal(pk_keyed_stacks_common(&t, ab, abd), 2);
    assert_int_equal(pk_keyed_stacks_common(&t, abd, ac), 1);
    assert_int_equal(pk_keyed_stacks_common(&t, ab, ac), 1);
    assert_int_equal(pk_keyed_stacks_common(&t, abc, abc), 3);
    assert_int_equal(pk_keyed_stacks_common(&t, abc, PK_NONE), 0);
    assert_int_equal(pk_keyed_stacks_common(&t, PK_NONE, PK_NONE), 0);
    /* Two nodes at most per stack: the root, abc's, its two splits, abd's rest, ac's rest. */
    assert_true(t.count <= 1 + 2 * 5);
    pk_keyed_stacks_free(&t);

    /* Keys that cannot be had: the stack is not added, and nothing is left half made. */
    k.left = 0;
    assert_true(pk_keyed_stacks_init(&t, p, function_key, &k));
    assert_false(pk_keyed_stacks_add(&t, abc));
    k.left = SIZE_MAX;
    assert_true(pk_keyed_stacks_add(&t, abc));
    k.left = 2; /* a and b, and a third to compare b with abc's */
    assert_false(pk_keyed_stacks_add(&t, ab));
    k.left = SIZE_MAX;
    assert_true(pk_keyed_stacks_add(&t, ab));
    assert_true(pk_keyed_stacks_add(&t, abd));
    assert_int_equal(pk_keyed_stacks_common(&t, ab, abd), 2);
    pk_keyed_stacks_free(&t);
    pk_profile_free(p);
}

static uint64_t next_random(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Many stacks of few functions (so that paths meet and part often), some built on others,
 * some whole runs, added in a shuffled order: every pair's common keys as counted frame by
 * frame. */
static void test_against_frame_by_frame(void **state)
{
    (void)state;
    uint64_t seed = 0x9e3779b97f4a7c15u;
    pk_profile *p = pk_profile_new();
    uint32_t frames[24];
    for (uint32_t i = 0; i < 24; i++)
        frames[i] = frame_of(p, i % 6, i / 6); /* six functions, four lines each */
    enum { STACKS = 1500 };
    uint32_t *stacks = malloc(STACKS * sizeof *stacks);
    size_t made = 0;
    while (made < STACKS) {
        uint32_t run[8];
        size_t length = 1 + next_random(&seed) % 8;
        for (size_t i = 0; i < length; i++)
            run[i] = frames[next_random(&seed) % (next_random(&seed) % 3 ? 6 : 24)];
        uint32_t prefix = made && next_random(&seed) % 4 ? stacks[next_random(&seed) % made]
                                                         : PK_NONE;
        uint32_t s = prefix;
        if (next_random(&seed) % 2)
            s = pk_intern_stack_frames(p, prefix, run, length);
        else
            for (size_t i = 0; i < length; i++)
                s = pk_intern_stack(p, s, run[i]); /* a frame at a time */
        assert_int_not_equal(s, PK_NONE);
        stacks[made++] = s;
    }
    for (size_t i = STACKS; i > 1; i--) {
        size_t j = next_random(&seed) % i;
        uint32_t x = stacks[i - 1];
        stacks[i - 1] = stacks[j];
        stacks[j] = x;
    }
    keys k = {p, SIZE_MAX};
    pk_keyed_stacks t;
    assert_true(pk_keyed_stacks_init(&t, p, function_key, &k));
    for (size_t i = 0; i < STACKS; i++)
        assert_true(pk_keyed_stacks_add(&t, stacks[i]));
    assert_true(t.count <= 1 + 2 * pk_stack_count(p));
    for (size_t i = 0; i < 20000; i++) {
        uint32_t a = stacks[next_random(&seed) % STACKS], b = stacks[next_random(&seed) % STACKS];
        if (i % 10 == 0)
            b = PK_NONE;
        uint32_t got = pk_keyed_stacks_common(&t, a, b), expected = common_by_frames(p, a, b);
        if (got != expected)
            fail_msg("stacks %u and %u: %u keys in common, not %u", a, b, got, expected);
    }
    pk_keyed_stacks_free(&t);
    free(stacks);
    pk_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small),
        cmocka_unit_test(test_against_frame_by_frame),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
