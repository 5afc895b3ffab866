/* SPDX-License-Identifier: MIT */
/* pprof profile.proto written by profkit and read by `go tool pprof`: a BrightScript-like profile
 * (script frames without addresses, three sample types) shows its functions and total. Returns
 * 77 (skipped) when go is not on PATH. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "commands.h"
#include "model_build.h"
#include "strfmt.h"
#include "formats/formats.h"
#include "profkit/format.h"
#include "profkit/profile.h"

static pk_profile *script_profile(void)
{
    pk_profile *p = pk_profile_new();
    pk_add_value_type(p, "cpu", "operations");
    pk_add_value_type(p, "wall", "microseconds");
    pk_add_value_type(p, "calls", "count");
    pk_set_default_value(p, 0);
    pk_resource main_brs = {pk_intern_cstr(p, "pkg:/source/main.brs"), 0, 0, 0, 0, 0};
    pk_resource util_brs = {pk_intern_cstr(p, "pkg:/components/util.brs"), 0, 0, 0, 0, 0};
    uint32_t r_main = pk_intern_resource(p, &main_brs);
    uint32_t r_util = pk_intern_resource(p, &util_brs);
    uint32_t f_main = tb_function(p, "Main", "pkg:/source/main.brs", 1, r_main);
    uint32_t f_loop = tb_function(p, "EventLoop", "pkg:/source/main.brs", 20, r_main);
    uint32_t f_parse = tb_function(p, "ParseFeed", "pkg:/components/util.brs", 5, r_util);
    uint32_t s_main = tb_push(p, PK_NONE, f_main, 3, 0, PK_NONE, 0);
    uint32_t s_loop = tb_push(p, s_main, f_loop, 25, 0, PK_NONE, 0);
    uint32_t s_parse = tb_push(p, s_loop, f_parse, 9, 0, PK_NONE, 0);
    uint32_t t = pk_add_thread(p, pk_intern_cstr(p, "main"), -1, -1);
    int64_t v1[3] = {700, 900, 3}, v2[3] = {250, 400, 1}, v3[3] = {50, 70, 1};
    pk_add_sample(p, t, s_parse, v1);
    pk_add_sample(p, t, s_loop, v2);
    pk_add_sample(p, t, s_main, v3);
    return p;
}

static void script_frames_show_in_go_tool_pprof(void **state)
{
    (void)state;
    pk_profile *p = script_profile();
    const char *dir = getenv("PK_TEST_TMPDIR");
    char *path = tb_strfmt("%s/pprof-script.pb.gz", dir ? dir : "/tmp");
    pk_error err;
    assert_int_equal(pk_write_file(p, path, &pk_format_pprof, NULL, NULL, &err), PK_OK);
    char *command = tb_strfmt("go tool pprof -top -nodecount=100 '%s' 2>&1", path);
    FILE *f = popen(command, "r");
    assert_non_null(f);
    char *line = NULL;
    size_t cap = 0;
    bool saw_parse = false, saw_loop = false, saw_total = false;
    while (getline(&line, &cap, f) > 0) {
        /* "      flat  flat%   sum%        cum   cum%" rows: flat of ParseFeed is 700 */
        if (strstr(line, "ParseFeed") && strstr(line, "700"))
            saw_parse = true;
        if (strstr(line, "EventLoop") && strstr(line, "250"))
            saw_loop = true;
        if (strstr(line, "of 1000operations total"))
            saw_total = true;
    }
    free(line);
    assert_int_equal(pclose(f), 0);
    assert_true(saw_parse);
    assert_true(saw_loop);
    assert_true(saw_total);
    free(command);
    free(path);
    pk_profile_free(p);
}

int main(void)
{
    if (!tb_command_exists("go") || system("go version >/dev/null 2>&1") != 0) {
        printf("SKIP: go is not on PATH (Debian package golang-go; scripts/setup.sh installs it)\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(script_frames_show_in_go_tool_pprof),
    };
    int failed = cmocka_run_group_tests_name("pprof in go tool pprof", tests, NULL, NULL);
    /* 77 means skipped to ctest: failures never read as that. */
    return failed == 77 ? 1 : failed;
}
