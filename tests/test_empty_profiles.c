/* SPDX-License-Identifier: MIT */
/* Profiles with nothing in them, through every writer of the registry: what profkit writes it
 * must read, so each writer either writes a file its own reader takes back (found by probing,
 * without samples) or refuses with a reason before anything is written. Writers without a
 * reader must write or refuse the same way. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "profkit/format.h"
#include "profkit/profile.h"

enum empty_shape {
    SHAPE_BARE,          /* pk_profile_new() and nothing else */
    SHAPE_VALUE,         /* a value type, no threads, no samples */
    SHAPE_THREAD,        /* a value type and a thread without samples */
    SHAPE_ZERO_SAMPLES,  /* a thread and a stack whose sample values are all 0 */
    SHAPE_EMPTY_STACK,   /* a sample without a stack (0 frames) */
    SHAPE_COUNT
};

static const char *const shape_names[SHAPE_COUNT] = {
    "no values, no threads", "one value, no threads", "a thread without samples",
    "samples of value 0", "a sample without frames"};

static pk_profile *empty_profile(enum empty_shape shape)
{
    pk_profile *p = pk_profile_new();
    assert_non_null(p);
    if (shape == SHAPE_BARE)
        return p;
    uint32_t cpu = pk_add_value_type(p, "cpu", "nanoseconds");
    uint32_t samples = pk_add_value_type(p, "samples", "count");
    if (shape == SHAPE_VALUE)
        return p;
    uint32_t thread = pk_add_thread(p, pk_intern_cstr(p, "main"), 10, 10);
    if (shape == SHAPE_THREAD)
        return p;
    if (shape == SHAPE_ZERO_SAMPLES) {
        pk_function fn = {.name = pk_intern_cstr(p, "work"), .file = pk_intern_cstr(p, "w.c"),
                          .resource = PK_NONE};
        pk_frame frame = {.function = pk_intern_function(p, &fn), .line = 3, .address = 0x4000,
                          .resource = PK_NONE, .flags = PK_FRAME_HAS_ADDRESS};
        uint32_t stack = pk_intern_stack(p, PK_NONE, pk_intern_frame(p, &frame));
        const int64_t zero[2] = {0, 0};
        assert_int_equal(pk_add_sample(p, thread, stack, zero), PK_OK);
        return p;
    }
    assert_int_equal(pk_add_sample_value(p, thread, PK_NONE, cpu, 1000), PK_OK);
    assert_int_equal(pk_add_sample_value(p, thread, PK_NONE, samples, 1), PK_OK);
    return p;
}

static void write_and_read_back(const pk_format *format, enum empty_shape shape)
{
    pk_profile *p = empty_profile(shape);
    pk_write_options options = {0};
    options.value = PK_NONE;
    char *data = NULL;
    size_t size = 0;
    pk_error err;
    pk_error_clear(&err);
    pk_status status = pk_write_memory(p, format, &options, &data, &size, &err);
    if (status != PK_OK) {
        /* A refusal says why, and leaves nothing behind. */
        if (status != PK_ERR_UNSUPPORTED)
            fail_msg("%s, %s: status %d: %s", format->name, shape_names[shape], status,
                     err.message);
        if (strlen(err.message) < 20)
            fail_msg("%s, %s: refused without a reason ('%s')", format->name,
                     shape_names[shape], err.message);
        assert_null(data);
        pk_profile_free(p);
        return;
    }
    if (size == 0) {
        /* Folded stacks of an empty profile are no line at all (the command warns); only a
         * format whose empty output says "no samples" may write nothing. */
        if (strcmp(format->name, "folded") != 0)
            fail_msg("%s, %s: wrote nothing", format->name, shape_names[shape]);
        assert_true(shape != SHAPE_BARE); /* without a value there is nothing to choose */
        free(data);
        pk_profile_free(p);
        return;
    }
    if (format->read) {
        pk_read_options strict = {0};
        pk_profile *again = NULL;
        /* Through the probe, as the command opens a file whose format it is not told. */
        if (pk_read_memory(data, size, NULL, &strict, &again, &err) != PK_OK)
            fail_msg("%s, %s: the written %zu bytes do not read back: %s (byte %lld)",
                     format->name, shape_names[shape], size, err.message,
                     (long long)err.offset);
        assert_string_equal(pk_str(again, pk_metadata_get(again)->source_format), format->name);
        /* Nothing weighs anything, except the stackless sample that a format may keep. */
        for (uint32_t v = 0; v < pk_value_type_count(again) && shape != SHAPE_EMPTY_STACK; v++)
            assert_int_equal(pk_value_total(again, v), 0);
        pk_profile_free(again);
    }
    free(data);
    pk_profile_free(p);
}

static void every_writer_with_empty_profiles(void **state)
{
    (void)state;
    size_t writers = 0;
    for (size_t i = 0; i < pk_format_count(); i++) {
        const pk_format *format = pk_format_at(i);
        if (!format->write)
            continue;
        writers++;
        for (int shape = 0; shape < SHAPE_COUNT; shape++)
            write_and_read_back(format, (enum empty_shape)shape);
    }
    assert_true(writers >= 9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_writer_with_empty_profiles),
    };
    return cmocka_run_group_tests_name("empty profiles", tests, NULL, NULL);
}
