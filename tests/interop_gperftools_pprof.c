/* SPDX-License-Identifier: MIT */
/* gperftools CPU profiles of a real program built with libprofiler (tests/gperftools/demo.c),
 * read by profkit and compared with other tools: per-function samples with google-pprof and
 * go tool pprof, and inlined frames with addr2line. Returns 77 (skipped) when one of the tools
 * is not on PATH. */
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
#include "fn_totals.h"
#include "profiled_run.h"
#include "reading.h"
#include "strfmt.h"
#include "formats/formats.h"
#include "profkit/format.h"
#include "profkit/profile.h"

#if !defined(PK_GPERF_DEMO) || !defined(PK_GPERF_DEMO_INLINE) || !defined(PK_GPERF_ADDR2LINE)
#error "PK_GPERF_DEMO, PK_GPERF_DEMO_INLINE and PK_GPERF_ADDR2LINE come from tests/CMakeLists.txt"
#endif

static const pk_format *const FMT = &pk_format_gperftools;

/* This program's own profiles of the demo: other test programs run at the same time write theirs
 * under other names, and each comparison reads one of these files with both tools. */
static char *demo_profile_path, *demo_inline_profile_path;

static char *scratch_path(const char *name)
{
    const char *dir = getenv("PK_TEST_TMPDIR");
    return tb_strfmt("%s/%s", dir ? dir : "/tmp", name);
}

static int demo_setup(void **state)
{
    (void)state;
    demo_profile_path = scratch_path("interop-gperftools-demo.prof");
    demo_inline_profile_path = scratch_path("interop-gperftools-demo-inline.prof");
    if (!tb_run_profiled(PK_GPERF_DEMO, "4", demo_profile_path) ||
        !tb_run_profiled(PK_GPERF_DEMO_INLINE, "6", demo_inline_profile_path))
        return -1;
    return 0;
}

static int demo_teardown(void **state)
{
    (void)state;
    free(demo_profile_path);
    free(demo_inline_profile_path);
    demo_profile_path = demo_inline_profile_path = NULL;
    return 0;
}

static pk_profile *read_demo_profile(const char *path)
{
    pk_status status;
    pk_error err;
    pk_profile *p = tb_read_file_with(path, FMT, NULL, 0, &status, &err);
    if (!p)
        fail_msg("%s: %s", path, err.message);
    return p;
}

/* Runs a shell command and parses "self ... total ... name" rows: google-pprof --text prints
 * "flat flat% sum% cum cum% name", go tool pprof -top the same after a header. Lines of any
 * length; a name listed twice keeps its last numbers. */
static void pprof_totals(const char *command, tb_fn_totals *t)
{
    FILE *f = popen(command, "r");
    assert_non_null(f);
    char *line = NULL;
    size_t cap = 0;
    ssize_t length;
    while ((length = getline(&line, &cap, f)) > 0) {
        if (line[length - 1] == '\n')
            line[--length] = '\0';
        long long flat, cum;
        int name_at = -1;
        if (sscanf(line, " %lld %*[0-9.]%% %*[0-9.]%% %lld %*[0-9.]%% %n", &flat, &cum,
                   &name_at) != 2 ||
            name_at < 0 || name_at >= length)
            continue;
        tb_fn_total *x = tb_fn_totals_get(t, line + name_at);
        x->self = flat;
        x->total = cum;
    }
    free(line);
    pclose(f);
}

static const char *const DEMO_FUNCTIONS[] = {
    "main",      "hash_phase", "hash_block",      "mix_twice", "mix",          "sort_phase",
    "fill_keys", "compare_keys", "recursion_phase", "fib",     "matrix_phase", "multiply"};
enum { DEMO_FUNCTION_COUNT = sizeof DEMO_FUNCTIONS / sizeof DEMO_FUNCTIONS[0] };

static bool is_demo_function(const char *name)
{
    for (size_t i = 0; i < DEMO_FUNCTION_COUNT; i++)
        if (strcmp(DEMO_FUNCTIONS[i], name) == 0)
            return true;
    return false;
}

static void demo_functions_match_pprof(void **state)
{
    (void)state;
    pk_profile *p = read_demo_profile(demo_profile_path);
    tb_fn_totals mine = {0}, perl = {0}, go = {0};
    tb_fn_totals_add_profile(&mine, p, 0);
    int64_t samples = pk_value_total(p, 0);
    assert_true(samples > 50);
    /* Both pprofs read the file profkit read. google-pprof --text lists every function; go tool
     * pprof drops the nodes under 0.5% of the total unless told not to. */
    char *command = tb_strfmt("google-pprof --text '%s' '%s' 2>/dev/null", PK_GPERF_DEMO,
                              demo_profile_path);
    pprof_totals(command, &perl);
    free(command);
    command = tb_strfmt("go tool pprof -top -sample_index=samples -nodecount=100000 "
                        "-nodefraction=0 -edgefraction=0 '%s' '%s' 2>/dev/null",
                        PK_GPERF_DEMO, demo_profile_path);
    pprof_totals(command, &go);
    free(command);
    assert_true(perl.count > 0);
    assert_true(go.count > 0);
    size_t compared = 0;
    for (size_t i = 0; i < DEMO_FUNCTION_COUNT; i++) {
        const tb_fn_total *m = tb_fn_totals_find(&mine, DEMO_FUNCTIONS[i]);
        if (!m)
            continue; /* never sampled in this run */
        const struct {
            const tb_fn_totals *t;
            const char *tool;
        } peers[2] = {{&perl, "google-pprof"}, {&go, "go pprof"}};
        for (int j = 0; j < 2; j++) {
            const tb_fn_total *x = tb_fn_totals_find(peers[j].t, m->name);
            if (!x) {
                /* Both pprofs strip a caller that is the second frame of (almost) every
                 * sample, taking it for a signal frame: Go pprof when it is in at least
                 * N - N/32 of N samples, perl pprof when it is in all of them. Only such a
                 * function may be missing. */
                if (m->total < samples - samples / 32)
                    fail_msg("%s: profkit self %lld total %lld of %lld samples, missing in %s",
                             m->name, (long long)m->self, (long long)m->total,
                             (long long)samples, peers[j].tool);
                continue;
            }
            if (x->self != m->self || x->total != m->total)
                fail_msg("%s: profkit self %lld total %lld, %s self %lld total %lld", m->name,
                         (long long)m->self, (long long)m->total, peers[j].tool,
                         (long long)x->self, (long long)x->total);
            compared++;
        }
    }
    assert_true(compared >= 12);
    /* Every frame of the program has its source file. */
    for (size_t i = 0; i < pk_frame_count(p); i++) {
        const pk_frame *f = pk_frame_at(p, (uint32_t)i);
        const pk_function *fn = pk_function_at(p, f->function);
        if (strcmp(pk_str(p, fn->name), "main") == 0) {
            assert_non_null(strstr(pk_str(p, fn->file), "tests/gperftools/demo.c"));
            assert_true(fn->start_line > 0);
            assert_true(f->line > fn->start_line);
        }
    }
    tb_fn_totals_free(&mine);
    tb_fn_totals_free(&perl);
    tb_fn_totals_free(&go);
    pk_profile_free(p);
}

/* The function names addr2line -f -i -C gives for an address, innermost first, malloc'ed. */
static char **addr2line_names(const char *addr2line, const char *binary, uint64_t address,
                              size_t *count)
{
    char *command = tb_strfmt("%s -f -i -C -e '%s' 0x%llx", addr2line, binary,
                              (unsigned long long)address);
    FILE *out = popen(command, "r");
    assert_non_null(out);
    free(command);
    char **names = NULL;
    size_t n = 0;
    char *line = NULL, *where = NULL;
    size_t line_cap = 0, where_cap = 0;
    /* Two lines per frame: the function, then file:line. */
    while (getline(&line, &line_cap, out) > 0) {
        line[strcspn(line, "\n")] = '\0';
        if (getline(&where, &where_cap, out) <= 0)
            break;
        void *grown = realloc(names, (n + 1) * sizeof *names);
        assert_non_null(grown);
        names = grown;
        names[n] = strdup(line);
        assert_non_null(names[n]);
        n++;
    }
    free(line);
    free(where);
    pclose(out);
    *count = n;
    return names;
}

/* addr2line -f -i -C gives, for an address, the innermost function first. */
static void demo_inlined_frames_match_addr2line(void **state)
{
    (void)state;
    pk_profile *p = read_demo_profile(demo_inline_profile_path);
    /* The program's mapping, to turn addresses back into file addresses. */
    const pk_resource *demo = NULL;
    for (size_t i = 0; i < pk_resource_count(p); i++) {
        const pk_resource *r = pk_resource_at(p, (uint32_t)i);
        if (strstr(pk_str(p, r->path), "gperftools_demo_inline"))
            demo = r;
    }
    assert_non_null(demo);
    /* The addr2line of the compiler's own toolchain: GNU addr2line 2.40 misses clang's inlined
     * instances whose ranges are DWARF 5 range-list indexes, and llvm-addr2line names GCC's
     * clones by their symbols (hash_block.constprop.0) rather than their DWARF names. */
    const char *addr2line = PK_GPERF_ADDR2LINE;
    size_t checked = 0, inlined = 0;
    uint32_t *frames = NULL;
    size_t capacity = 0;
    for (size_t row = 0; row < pk_sample_count(p); row++) {
        uint32_t stack = pk_sample_stack(p, row);
        size_t depth = pk_stack_frames(p, stack, frames, capacity);
        if (depth > capacity) {
            capacity = depth;
            void *grown = realloc(frames, capacity * sizeof *frames);
            assert_non_null(grown);
            frames = grown;
            pk_stack_frames(p, stack, frames, capacity);
        }
        /* Group frames by physical address: a physical frame and its inlined callees. */
        for (size_t i = 0; i < depth;) {
            const pk_frame *f = pk_frame_at(p, frames[i]);
            size_t j = i + 1;
            while (j < depth && (pk_frame_at(p, frames[j])->flags & PK_FRAME_INLINED))
                j++;
            /* The program's own code, by its source file or by its functions' names (a
             * sanitizer runtime linked in has no debug information and aliased symbols, which
             * addr2line tools pick differently). */
            const char *file = pk_str(p, pk_function_at(p, f->function)->file);
            if (f->resource == PK_NONE || pk_resource_at(p, f->resource) != demo ||
                !(strstr(file, "tests/gperftools/demo.c") ||
                  is_demo_function(pk_frame_name(p, frames[i])))) {
                i = j;
                continue;
            }
            /* The text segment is mapped at its file offset, page for page. */
            uint64_t file_address = f->address - demo->start + demo->offset;
            size_t n;
            char **names = addr2line_names(addr2line, PK_GPERF_DEMO_INLINE, file_address, &n);
            /* addr2line lists innermost first; the stack holds outermost first. */
            if (n != j - i)
                fail_msg("0x%llx: %zu frames from %s, %zu in the profile (outermost %s)",
                         (unsigned long long)file_address, n, addr2line, j - i,
                         pk_frame_name(p, frames[i]));
            for (size_t k = 0; k < n; k++) {
                assert_string_equal(pk_frame_name(p, frames[j - 1 - k]), names[k]);
                free(names[k]);
            }
            free(names);
            inlined += n - 1;
            checked++;
            i = j;
        }
    }
    free(frames);
    assert_true(checked > 20);
    assert_true(inlined > 0);
    pk_profile_free(p);
}

int main(void)
{
    /* The tools and the Debian packages that scripts/setup.sh installs them from. */
    const struct {
        const char *command, *package;
    } needed[] = {{"google-pprof", "google-perftools"},
                  {"go", "golang-go"},
                  {PK_GPERF_ADDR2LINE, strcmp(PK_GPERF_ADDR2LINE, "addr2line") == 0 ? "binutils"
                                                                                    : "llvm"}};
    for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++)
        if (!tb_command_exists(needed[i].command)) {
            printf("SKIP: %s is not on PATH (Debian package %s; scripts/setup.sh installs it)\n",
                   needed[i].command, needed[i].package);
            return 77;
        }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(demo_functions_match_pprof),
        cmocka_unit_test(demo_inlined_frames_match_addr2line),
    };
    int failed = cmocka_run_group_tests_name("gperftools with libprofiler, against pprof and "
                                             "addr2line",
                                             tests, demo_setup, demo_teardown);
    /* 77 means skipped to ctest: failures never read as that. */
    return failed == 77 ? 1 : failed;
}
