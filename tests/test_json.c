/* SPDX-License-Identifier: MIT */
/* The streaming JSON emitter (core/json.h): commas and colons at every level, member helpers,
 * values of custom forms through pk_json_value, and line breaks between members and elements. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/json.h"
#include "core/output.h"

static pk_output out;
static pk_json json;

static pk_json *start(void)
{
    pk_output_init_memory(&out);
    pk_json_init(&json, &out);
    return &json;
}

/* The text written since start(); the caller frees it. */
static char *finish(void)
{
    assert_int_equal(pk_output_commit(&out, NULL), PK_OK);
    size_t size;
    return pk_output_take_memory(&out, &size);
}

static void test_nesting(void **state)
{
    (void)state;
    pk_json *j = start();
    pk_json_object_begin(j);
    pk_json_member_string(j, "name", "main");
    pk_json_key(j, "weights");
    pk_json_array_begin(j);
    pk_json_i64(j, 1);
    pk_json_i64(j, -2);
    pk_json_array_begin(j);
    pk_json_array_end(j);
    pk_json_object_begin(j);
    pk_json_object_end(j);
    pk_json_null(j);
    pk_json_array_end(j);
    pk_json_member_bool(j, "ok", true);
    pk_json_member_u64(j, "big", UINT64_MAX);
    pk_json_member_double(j, "ms", 0.25);
    pk_json_key(j, "custom");
    pk_out_puts(pk_json_value(j), "1.500");
    pk_json_object_end(j);
    assert_int_equal(j->depth, 0);
    char *text = finish();
    assert_string_equal(text, "{\"name\":\"main\",\"weights\":[1,-2,[],{},null],\"ok\":true,"
                              "\"big\":18446744073709551615,\"ms\":0.25,\"custom\":1.500}");
    free(text);
}

static void test_line_breaks(void **state)
{
    (void)state;
    pk_json *j = start();
    pk_json_object_begin(j);
    pk_json_member_i64(j, "a", 1);
    pk_json_line_break(j); /* before a key: after its comma */
    pk_json_key(j, "rows");
    pk_json_array_begin(j);
    for (int i = 0; i < 3; i++) {
        pk_json_line_break(j); /* the first element has no comma before it */
        pk_json_array_begin(j);
        pk_json_i64(j, i);
        pk_json_array_end(j);
    }
    pk_json_array_end(j);
    pk_json_key(j, "empty");
    pk_json_array_begin(j);
    pk_json_line_break(j); /* in an empty array */
    pk_json_array_end(j);
    pk_json_object_end(j);
    char *text = finish();
    assert_string_equal(text, "{\"a\":1,\n\"rows\":[\n[0],\n[1],\n[2]],\"empty\":[\n]}");
    free(text);
}

static void test_strings_escaped(void **state)
{
    (void)state;
    pk_json *j = start();
    pk_json_array_begin(j);
    pk_json_string(j, "q\"uote\n");
    pk_json_string_len(j, "a\0b", 3);
    pk_json_double(j, 1.0 / 0.0); /* JSON has no infinity */
    pk_json_double(j, -4.5e27);      /* beyond 64-bit integers */
    pk_json_double(j, 4096.0);
    pk_json_array_end(j);
    char *text = finish();
    assert_string_equal(text, "[\"q\\\"uote\\n\",\"a\\u0000b\",0,-4.5e+27,4096]");
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nesting),
        cmocka_unit_test(test_line_breaks),
        cmocka_unit_test(test_strings_escaped),
    };
    return cmocka_run_group_tests_name("json", tests, NULL, NULL);
}
