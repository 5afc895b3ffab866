/* speedscope writer: the exact output for a small profile (frames per function, one sampled
 * profile per thread, root-first stacks, weights of the chosen value), units, names, and
 * profiles without samples or threads. The output is checked against speedscope's schema and
 * importer by tests/cli/interop_speedscope.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "formats/formats.h"
#include "profkit/format.h"
#include "profkit/profile.h"
#include "profkit/version.h"

static char *write_speedscope(const pk_profile *p, uint32_t value, const char *title)
{
    pk_write_options options = {0};
    options.value = value;
    options.title = title;
    char *data = NULL;
    size_t size = 0;
    pk_error err;
    pk_error_clear(&err);
    if (pk_write_memory(p, &pk_format_speedscope, &options, &data, &size, &err) != PK_OK)
        fail_msg("write failed: %s", err.message);
    return data;
}

static uint32_t function_of(pk_profile *p, const char *name, const char *file, uint32_t start)
{
    pk_function f = {.name = pk_intern_cstr(p, name),
                     .file = file ? pk_intern_cstr(p, file) : 0,
                     .start_line = start,
                     .resource = PK_NONE};
    return pk_intern_function(p, &f);
}

static uint32_t frame_at(pk_profile *p, uint32_t function, uint32_t line)
{
    pk_frame fr = {.function = function, .line = line, .address = 0, .resource = PK_NONE,
                   .flags = 0};
    return pk_intern_frame(p, &fr);
}

static void add2(pk_profile *p, uint32_t thread, uint32_t stack, int64_t a, int64_t b)
{
    int64_t values[2] = {a, b};
    assert_int_equal(pk_add_sample(p, thread, stack, values), PK_OK);
}

static void test_exact_output(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    uint32_t cpu = pk_add_value_type(p, "cpu", "nanoseconds");
    uint32_t calls = pk_add_value_type(p, "calls", "count");
    uint32_t t_main = pk_add_thread(p, pk_intern_cstr(p, "main"), 1, 1);
    uint32_t t_worker = pk_add_thread(p, pk_intern_cstr(p, "worker"), 1, 2);
    pk_add_thread(p, pk_intern_cstr(p, "idle"), 1, 3);

    uint32_t f_main = function_of(p, "main", "a.c", 1);
    uint32_t f_work = function_of(p, "work", "a.c", 5);
    uint32_t f_work_b = function_of(p, "work", "b.c", 0);
    uint32_t f_unused = function_of(p, "q\"uote", NULL, 0);
    uint32_t s_main = pk_intern_stack(p, PK_NONE, frame_at(p, f_main, 2));
    /* Two frames of one function (other lines): one speedscope frame. */
    uint32_t s_work6 = pk_intern_stack(p, s_main, frame_at(p, f_work, 6));
    uint32_t s_work7 = pk_intern_stack(p, s_main, frame_at(p, f_work, 7));
    uint32_t s_unused = pk_intern_stack(p, s_main, frame_at(p, f_unused, 0));
    uint32_t s_work_b = pk_intern_stack(p, s_main, frame_at(p, f_work_b, 3));

    add2(p, t_main, s_work6, 100, 1);
    add2(p, t_worker, s_main, 30, 0);
    add2(p, t_main, s_work7, 5, 0);
    add2(p, t_main, PK_NONE, 2, 0);
    add2(p, t_worker, s_unused, 0, 9); /* no weight: not written, nor its frame */
    add2(p, t_worker, s_work_b, 1, 0);
    add2(p, t_worker, s_main, -4, 0);  /* the same row: 26 */

    char *out = write_speedscope(p, cpu, NULL);
    const char *want =
        "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
        "\"shared\":{\"frames\":[\n"
        "{\"name\":\"main\",\"file\":\"a.c\",\"line\":1},\n"
        "{\"name\":\"work\",\"file\":\"a.c\",\"line\":5},\n"
        "{\"name\":\"work\",\"file\":\"b.c\"}]},\n"
        "\"profiles\":["
        "{\"type\":\"sampled\",\"name\":\"main\",\"unit\":\"nanoseconds\",\"startValue\":0,"
        "\"endValue\":107,\n"
        "\"samples\":[\n[0,1],\n[0,1],\n[]],\n"
        "\"weights\":[100,5,2]},\n"
        "{\"type\":\"sampled\",\"name\":\"worker\",\"unit\":\"nanoseconds\",\"startValue\":0,"
        "\"endValue\":27,\n"
        "\"samples\":[\n[0],\n[0,2]],\n"
        "\"weights\":[26,1]},\n"
        "{\"type\":\"sampled\",\"name\":\"idle\",\"unit\":\"nanoseconds\",\"startValue\":0,"
        "\"endValue\":0,\n"
        "\"samples\":[],\n"
        "\"weights\":[]}],\n"
        "\"activeProfileIndex\":0,\n"
        "\"exporter\":\"profkit@" PROFKIT_VERSION "\"}\n";
    assert_string_equal(out, want);
    free(out);

    /* Another value: other weights, other frames, "count" has no speedscope unit. */
    out = write_speedscope(p, calls, "my \"app\"");
    assert_non_null(strstr(out, "\"frames\":[\n{\"name\":\"main\",\"file\":\"a.c\",\"line\":1},\n"
                                "{\"name\":\"work\",\"file\":\"a.c\",\"line\":5},\n"
                                "{\"name\":\"q\\\"uote\"}]}"));
    assert_non_null(strstr(out, "\"unit\":\"none\""));
    assert_non_null(strstr(out, "\"samples\":[\n[0,1]],\n\"weights\":[1]}"));
    assert_non_null(strstr(out, "\"samples\":[\n[0,2]],\n\"weights\":[9]}"));
    /* The worker thread is the heaviest now. */
    assert_non_null(strstr(out, "\"activeProfileIndex\":1,"));
    assert_non_null(strstr(out, "\"name\":\"my \\\"app\\\"\",\n"));
    free(out);
    pk_profile_free(p);
}

static void test_units(void **state)
{
    (void)state;
    static const struct {
        const char *ours, *theirs;
    } cases[] = {
        {"nanoseconds", "nanoseconds"}, {"microseconds", "microseconds"},
        {"milliseconds", "milliseconds"}, {"seconds", "seconds"}, {"bytes", "bytes"},
        {"count", "none"}, {"operations", "none"}, {"", "none"},
        /* Other spellings of the shared unit table. */
        {"ns", "nanoseconds"}, {"us", "microseconds"}, {"\xc2\xb5s", "microseconds"},
        {"MS", "milliseconds"}, {"sec", "seconds"}, {"B", "bytes"}, {"byte", "bytes"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pk_profile *p = pk_profile_new();
        pk_add_value_type(p, "v", cases[i].ours);
        uint32_t t = pk_add_thread(p, pk_intern_cstr(p, "t"), -1, -1);
        uint32_t s = pk_intern_stack(p, PK_NONE, frame_at(p, function_of(p, "f", NULL, 0), 0));
        assert_int_equal(pk_add_sample_value(p, t, s, 0, 3), PK_OK);
        char *out = write_speedscope(p, PK_NONE, NULL);
        char want[64];
        snprintf(want, sizeof want, "\"unit\":\"%s\"", cases[i].theirs);
        if (!strstr(out, want))
            fail_msg("unit %s: %s", cases[i].ours, out);
        free(out);
        pk_profile_free(p);
    }
}

/* speedscope knows no unit of size above bytes: larger ones are written in bytes. */
static void test_larger_sizes_become_bytes(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    pk_add_value_type(p, "retained", "kilobytes");
    uint32_t t = pk_add_thread(p, pk_intern_cstr(p, "t"), -1, -1);
    uint32_t s = pk_intern_stack(p, PK_NONE, frame_at(p, function_of(p, "f", NULL, 0), 0));
    assert_int_equal(pk_add_sample_value(p, t, s, 0, 3), PK_OK);
    uint32_t huge = pk_intern_stack(p, s, frame_at(p, function_of(p, "g", NULL, 0), 0));
    assert_int_equal(pk_add_sample_value(p, t, huge, 0, INT64_MAX / 2), PK_OK);
    char *out = write_speedscope(p, PK_NONE, NULL);
    assert_non_null(strstr(out, "\"unit\":\"bytes\""));
    /* Too large for 64 bits in bytes: the largest weight there is. */
    assert_non_null(strstr(out, "\"weights\":[3072,9223372036854775807]}"));
    assert_non_null(strstr(out, "\"endValue\":9223372036854775807,"));
    free(out);
    pk_profile_free(p);
}

static void test_unnamed_and_empty(void **state)
{
    (void)state;
    /* No threads at all: one empty profile, so that speedscope has a name to show. */
    pk_profile *p = pk_profile_new();
    pk_add_value_type(p, "samples", "count");
    char *out = write_speedscope(p, PK_NONE, NULL);
    assert_non_null(strstr(out, "\"profiles\":[{\"type\":\"sampled\",\"name\":\"empty\","));
    assert_null(strstr(out, "\"name\":\"\""));
    free(out);

    /* A thread without a name and a function without a name. */
    uint32_t t = pk_add_thread(p, 0, -1, -1);
    uint32_t s = pk_intern_stack(p, PK_NONE, frame_at(p, function_of(p, "", NULL, 0), 0));
    assert_int_equal(pk_add_sample_value(p, t, s, 0, 1), PK_OK);
    out = write_speedscope(p, PK_NONE, NULL);
    assert_non_null(strstr(out, "\"name\":\"Thread 1\""));
    assert_non_null(strstr(out, "{\"name\":\"(unnamed)\"}"));
    free(out);

    /* Two threads of one name: one profile each, told apart by thread id. */
    uint32_t a = pk_add_thread(p, pk_intern_cstr(p, "pool"), 5, 11);
    uint32_t b = pk_add_thread(p, pk_intern_cstr(p, "pool"), 5, 12);
    assert_int_equal(pk_add_sample_value(p, a, s, 0, 1), PK_OK);
    assert_int_equal(pk_add_sample_value(p, b, s, 0, 1), PK_OK);
    out = write_speedscope(p, PK_NONE, NULL);
    assert_non_null(strstr(out, "\"name\":\"pool (tid 11)\""));
    assert_non_null(strstr(out, "\"name\":\"pool (tid 12)\""));
    free(out);
    pk_profile_free(p);
}

static void test_no_values_is_unsupported(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    pk_write_options options = {0};
    options.value = PK_NONE;
    char *data = NULL;
    size_t size = 0;
    pk_error err;
    assert_int_equal(pk_write_memory(p, &pk_format_speedscope, &options, &data, &size, &err),
                     PK_ERR_UNSUPPORTED);
    free(data);
    pk_profile_free(p);
}

static void test_registry(void **state)
{
    (void)state;
    assert_ptr_equal(pk_format_by_name("speedscope"), &pk_format_speedscope);
    assert_ptr_equal(pk_format_by_extension("out/x.speedscope.json", true),
                     &pk_format_speedscope);
    assert_ptr_equal(pk_format_by_extension("x.folded", true), &pk_format_folded);
    assert_ptr_equal(pk_format_by_extension("x.collapsed", true), &pk_format_folded);
    assert_ptr_equal(pk_format_by_name("collapsed"), &pk_format_folded);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_output),
        cmocka_unit_test(test_units),
        cmocka_unit_test(test_larger_sizes_become_bytes),
        cmocka_unit_test(test_unnamed_and_empty),
        cmocka_unit_test(test_no_values_is_unsupported),
        cmocka_unit_test(test_registry),
    };
    return cmocka_run_group_tests_name("speedscope", tests, NULL, NULL);
}
