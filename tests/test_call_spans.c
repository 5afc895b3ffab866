/* SPDX-License-Identifier: MIT */
/* core/call_spans: enter/exit events of a thread into timeline spans and rows. Nesting (begin/end
 * and complete events), the in-order mode (window 0: events sharing a time taken in the order
 * given, as ART needs), the second clock sliced into a value of its own, ends that match no
 * begin, events given out of time order (sorted by the window, or placed late without one), and
 * begins left open at the end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "core/call_spans.h"
#include "profkit/profile.h"
#include "profkit/timeline.h"

enum { WALL = 0, CPU = 1 };

typedef struct fixture {
    pk_profile *p;
    uint32_t thread;
    uint32_t a, b, c; /* frames */
    pk_call_spans_target to;
} fixture;

static uint32_t frame_named(pk_profile *p, const char *name)
{
    uint32_t function = pk_intern_function(
        p, &(pk_function){.name = pk_intern_cstr(p, name), .resource = PK_NONE});
    uint32_t frame = pk_intern_frame(p, &(pk_frame){function, 0, 0, PK_NONE, 0});
    assert_int_not_equal(frame, PK_NONE);
    return frame;
}

static void fixture_init(fixture *f, bool second_clock)
{
    f->p = pk_profile_new();
    assert_non_null(f->p);
    assert_int_equal(pk_add_value_type(f->p, "wall", "nanoseconds"), WALL);
    assert_int_equal(pk_add_value_type(f->p, "cpu", "nanoseconds"), CPU);
    f->thread = pk_add_thread(f->p, pk_intern_cstr(f->p, "main"), 1, 1);
    f->a = frame_named(f->p, "a");
    f->b = frame_named(f->p, "b");
    f->c = frame_named(f->p, "c");
    f->to = (pk_call_spans_target){f->p, f->thread, WALL, second_clock ? CPU : PK_NONE};
}

/* The stack of the frames given, outermost first (PK_NONE ends the list). */
static uint32_t path(fixture *f, uint32_t first, ...)
{
    va_list ap;
    va_start(ap, first);
    uint32_t stack = PK_NONE;
    for (uint32_t frame = first; frame != PK_NONE; frame = va_arg(ap, uint32_t))
        stack = pk_intern_stack(f->p, stack, frame);
    va_end(ap);
    return stack;
}

typedef struct span {
    int64_t time, duration;
    uint32_t stack;
    int64_t wall, cpu;
} span;

/* The thread's timeline as spans; returns how many. */
static size_t spans_of(fixture *f, span *out, size_t cap)
{
    pk_timeline_cursor *cursor;
    assert_int_equal(pk_timeline_open(f->p, f->thread, &cursor), PK_OK);
    pk_timed_sample s;
    size_t n = 0;
    while (pk_timeline_next(cursor, &s)) {
        assert_true(n < cap);
        out[n++] = (span){s.time, s.duration, s.stack, s.values[WALL], s.values[CPU]};
    }
    assert_int_equal(pk_timeline_close(cursor), PK_OK);
    return n;
}

static void assert_span(const span *s, int64_t time, int64_t duration, uint32_t stack,
                        int64_t wall, int64_t cpu)
{
    assert_int_equal(s->time, time);
    assert_int_equal(s->duration, duration);
    assert_int_equal(s->stack, stack);
    assert_int_equal(s->wall, wall);
    assert_int_equal(s->cpu, cpu);
}

#define ADD(t, f, phase, ts, dur, cpu, frame)                                                      \
    assert_true(pk_call_spans_add(t, &(f)->to, phase, ts, dur, cpu, frame))
#define BEGIN(t, f, ts, frame) ADD(t, f, PK_SPAN_BEGIN, ts, 0, PK_SPAN_NO_CPU, frame)
#define END(t, f, ts, frame) ADD(t, f, PK_SPAN_END, ts, 0, PK_SPAN_NO_CPU, frame)

static pk_call_spans_counts finish(pk_call_spans *t, fixture *f)
{
    pk_call_spans_counts counts = {0, 0, 0, 0};
    assert_true(pk_call_spans_finish(t, &f->to, &counts));
    pk_call_spans_free(t);
    return counts;
}

static void assert_no_oddities(const pk_call_spans_counts *counts)
{
    assert_int_equal(counts->unmatched_ends, 0);
    assert_int_equal(counts->overlapping, 0);
    assert_int_equal(counts->late, 0);
    assert_int_equal(counts->unclosed, 0);
}

/* a { b } in both modes: each slice of time goes to the innermost open call, and the rows sum
 * the slices. */
static void begins_and_ends_nest(void **state)
{
    (void)state;
    for (size_t window = 0; window <= 8; window += 8) {
        fixture f;
        fixture_init(&f, false);
        pk_call_spans *t = pk_call_spans_new(window);
        assert_non_null(t);
        BEGIN(t, &f, 0, f.a);
        BEGIN(t, &f, 10, f.b);
        END(t, &f, 30, f.b);
        END(t, &f, 50, f.a);
        pk_call_spans_counts counts = finish(t, &f);
        assert_no_oddities(&counts);
        span s[8];
        assert_int_equal(spans_of(&f, s, 8), 3);
        assert_span(&s[0], 0, 10, path(&f, f.a, PK_NONE), 10, 0);
        assert_span(&s[1], 10, 20, path(&f, f.a, f.b, PK_NONE), 20, 0);
        assert_span(&s[2], 30, 20, path(&f, f.a, PK_NONE), 20, 0);
        pk_profile_free(f.p);
    }
}

/* Complete events (a start and a duration) nest by their times; a child that outlasts its
 * parent is cut at the parent's end. */
static void complete_events_nest_and_are_cut_at_the_parent(void **state)
{
    (void)state;
    fixture f;
    fixture_init(&f, false);
    pk_call_spans *t = pk_call_spans_new(4);
    assert_non_null(t);
    ADD(t, &f, PK_SPAN_COMPLETE, 0, 100, PK_SPAN_NO_CPU, f.a);
    ADD(t, &f, PK_SPAN_COMPLETE, 10, 20, PK_SPAN_NO_CPU, f.b);
    ADD(t, &f, PK_SPAN_COMPLETE, 90, 50, PK_SPAN_NO_CPU, f.c);
    pk_call_spans_counts counts = finish(t, &f);
    assert_int_equal(counts.overlapping, 1);
    span s[8];
    assert_int_equal(spans_of(&f, s, 8), 4);
    assert_span(&s[0], 0, 10, path(&f, f.a, PK_NONE), 10, 0);
    assert_span(&s[1], 10, 20, path(&f, f.a, f.b, PK_NONE), 20, 0);
    assert_span(&s[2], 30, 60, path(&f, f.a, PK_NONE), 60, 0);
    assert_span(&s[3], 90, 10, path(&f, f.a, f.c, PK_NONE), 10, 0);
    pk_profile_free(f.p);
}

/* At one tick a { b {} c { ... } }: in the order given (window 0) b is a call of no length and
 * c is open until the exit of a; sorted (a window), the exit of b would come before its entry
 * and b would be left open, which is why ART reads in file order. */
static void in_order_mode_keeps_the_file_order_at_one_time(void **state)
{
    (void)state;
    fixture f;
    fixture_init(&f, false);
    pk_call_spans *t = pk_call_spans_new(0);
    assert_non_null(t);
    BEGIN(t, &f, 0, f.a);
    BEGIN(t, &f, 10, f.b);
    BEGIN(t, &f, 10, f.c);
    END(t, &f, 10, f.c);
    END(t, &f, 10, f.b);
    BEGIN(t, &f, 10, f.c);
    END(t, &f, 30, f.c);
    END(t, &f, 40, f.a);
    pk_call_spans_counts counts = finish(t, &f);
    assert_no_oddities(&counts);
    span s[8];
    assert_int_equal(spans_of(&f, s, 8), 3);
    assert_span(&s[0], 0, 10, path(&f, f.a, PK_NONE), 10, 0);
    assert_span(&s[1], 10, 20, path(&f, f.a, f.c, PK_NONE), 20, 0);
    assert_span(&s[2], 30, 10, path(&f, f.a, PK_NONE), 10, 0);
    pk_profile_free(f.p);

    /* The same events sorted by a window: the ends at tick 10 go first and match nothing. */
    fixture_init(&f, false);
    t = pk_call_spans_new(16);
    assert_non_null(t);
    BEGIN(t, &f, 0, f.a);
    BEGIN(t, &f, 10, f.b);
    BEGIN(t, &f, 10, f.c);
    END(t, &f, 10, f.c);
    END(t, &f, 10, f.b);
    BEGIN(t, &f, 10, f.c);
    END(t, &f, 30, f.c);
    END(t, &f, 40, f.a);
    counts = finish(t, &f);
    assert_true(counts.unmatched_ends > 0 || counts.overlapping > 0);
    pk_profile_free(f.p);
}

/* The second clock's advance over each slice goes to a value of its own, on the span of the
 * first clock's slice; a second clock that goes back counts nothing. */
static void the_second_clock_is_sliced_into_its_own_value(void **state)
{
    (void)state;
    fixture f;
    fixture_init(&f, true);
    pk_call_spans *t = pk_call_spans_new(0);
    assert_non_null(t);
    ADD(t, &f, PK_SPAN_BEGIN, 0, 0, 1000, f.a);
    ADD(t, &f, PK_SPAN_BEGIN, 100, 0, 1060, f.b);
    ADD(t, &f, PK_SPAN_END, 200, 0, 1090, f.b);
    ADD(t, &f, PK_SPAN_BEGIN, 300, 0, 1080, f.c); /* the CPU clock went back: 0 */
    ADD(t, &f, PK_SPAN_END, 400, 0, 1100, f.c);
    ADD(t, &f, PK_SPAN_END, 500, 0, 1150, f.a);
    pk_call_spans_counts counts = finish(t, &f);
    assert_no_oddities(&counts);
    span s[8];
    assert_int_equal(spans_of(&f, s, 8), 5);
    assert_span(&s[0], 0, 100, path(&f, f.a, PK_NONE), 100, 60);
    assert_span(&s[1], 100, 100, path(&f, f.a, f.b, PK_NONE), 100, 30);
    assert_span(&s[2], 200, 100, path(&f, f.a, PK_NONE), 100, 0);
    assert_span(&s[3], 300, 100, path(&f, f.a, f.c, PK_NONE), 100, 10);
    assert_span(&s[4], 400, 100, path(&f, f.a, PK_NONE), 100, 50);
    pk_profile_free(f.p);
}

/* An end with no open begin of its frame is counted and ignored, leaving the open calls alone;
 * an end without a frame closes the innermost begin; an end further out closes what was opened
 * inside it (counted as overlapping). */
static void unmatched_ends_are_counted_and_ignored(void **state)
{
    (void)state;
    fixture f;
    fixture_init(&f, false);
    pk_call_spans *t = pk_call_spans_new(0);
    assert_non_null(t);
    END(t, &f, 0, f.c);   /* nothing open */
    BEGIN(t, &f, 10, f.a);
    END(t, &f, 20, f.b);  /* b is not open: a stays open */
    BEGIN(t, &f, 30, f.b);
    END(t, &f, 40, PK_NONE); /* closes b */
    BEGIN(t, &f, 50, f.b);
    BEGIN(t, &f, 60, f.c);
    END(t, &f, 70, f.a); /* closes c and b with a */
    pk_call_spans_counts counts = finish(t, &f);
    assert_int_equal(counts.unmatched_ends, 2);
    assert_int_equal(counts.overlapping, 2);
    assert_int_equal(counts.late, 0);
    assert_int_equal(counts.unclosed, 0);
    span s[8];
    size_t n = spans_of(&f, s, 8);
    assert_int_equal(n, 6);
    uint32_t a = path(&f, f.a, PK_NONE), ab = path(&f, f.a, f.b, PK_NONE);
    uint32_t abc = path(&f, f.a, f.b, f.c, PK_NONE);
    assert_span(&s[0], 10, 10, a, 10, 0);
    assert_span(&s[1], 20, 10, a, 10, 0);
    assert_span(&s[2], 30, 10, ab, 10, 0);
    assert_span(&s[3], 40, 10, a, 10, 0);
    assert_span(&s[4], 50, 10, ab, 10, 0);
    assert_span(&s[5], 60, 10, abc, 10, 0);
    pk_profile_free(f.p);
}

/* Starts given out of time order: a window sorts them; without one (or past the window) an
 * event earlier than one placed is counted late and placed at that one's time. */
static void out_of_order_starts_are_sorted_or_placed_late(void **state)
{
    (void)state;
    fixture f;
    fixture_init(&f, false);
    pk_call_spans *t = pk_call_spans_new(8);
    assert_non_null(t);
    BEGIN(t, &f, 20, f.b);
    BEGIN(t, &f, 0, f.a);
    END(t, &f, 30, f.b);
    END(t, &f, 40, f.a);
    pk_call_spans_counts counts = finish(t, &f);
    assert_no_oddities(&counts);
    span s[8];
    assert_int_equal(spans_of(&f, s, 8), 3);
    assert_span(&s[0], 0, 20, path(&f, f.a, PK_NONE), 20, 0);
    assert_span(&s[1], 20, 10, path(&f, f.a, f.b, PK_NONE), 10, 0);
    assert_span(&s[2], 30, 10, path(&f, f.a, PK_NONE), 10, 0);
    pk_profile_free(f.p);

    fixture_init(&f, false);
    t = pk_call_spans_new(0);
    assert_non_null(t);
    BEGIN(t, &f, 20, f.b);
    BEGIN(t, &f, 0, f.a); /* late: placed at 20, inside b */
    END(t, &f, 30, f.a);
    END(t, &f, 40, f.b);
    counts = finish(t, &f);
    assert_int_equal(counts.late, 1);
    assert_int_equal(counts.unmatched_ends, 0);
    assert_int_equal(spans_of(&f, s, 8), 2);
    assert_span(&s[0], 20, 10, path(&f, f.b, f.a, PK_NONE), 10, 0);
    assert_span(&s[1], 30, 10, path(&f, f.b, PK_NONE), 10, 0);
    pk_profile_free(f.p);
}

/* Begins never ended are closed at the thread's last time and counted. */
static void begins_left_open_close_at_the_last_time(void **state)
{
    (void)state;
    fixture f;
    fixture_init(&f, false);
    pk_call_spans *t = pk_call_spans_new(0);
    assert_non_null(t);
    BEGIN(t, &f, 0, f.a);
    BEGIN(t, &f, 10, f.b);
    BEGIN(t, &f, 25, f.c);
    END(t, &f, 35, f.c);
    pk_call_spans_counts counts = finish(t, &f);
    assert_int_equal(counts.unclosed, 2);
    assert_int_equal(counts.unmatched_ends, 0);
    span s[8];
    assert_int_equal(spans_of(&f, s, 8), 3);
    assert_span(&s[0], 0, 10, path(&f, f.a, PK_NONE), 10, 0);
    assert_span(&s[1], 10, 15, path(&f, f.a, f.b, PK_NONE), 15, 0);
    assert_span(&s[2], 25, 10, path(&f, f.a, f.b, f.c, PK_NONE), 10, 0);
    pk_profile_free(f.p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(begins_and_ends_nest),
        cmocka_unit_test(complete_events_nest_and_are_cut_at_the_parent),
        cmocka_unit_test(in_order_mode_keeps_the_file_order_at_one_time),
        cmocka_unit_test(the_second_clock_is_sliced_into_its_own_value),
        cmocka_unit_test(unmatched_ends_are_counted_and_ignored),
        cmocka_unit_test(out_of_order_starts_are_sorted_or_placed_late),
        cmocka_unit_test(begins_left_open_close_at_the_last_time),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
