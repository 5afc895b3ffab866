/* SPDX-License-Identifier: MIT */
/* Categories of code (analysis/categories.h): names and colours, languages of formats and file
 * extensions, and the category of a frame: address first, then the format's language, then the
 * file's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/categories.h"
#include "profkit/profile.h"

static void test_names_and_colours(void **state)
{
    (void)state;
    /* The Firefox Profiler takes the first grey category as its default one. */
    assert_string_equal(pk_category_name(PK_CATEGORY_OTHER), "Other");
    assert_string_equal(pk_category_colour(PK_CATEGORY_OTHER), "grey");
    assert_int_equal(PK_CATEGORY_OTHER, 0);
    static const struct {
        pk_category category;
        const char *name, *colour;
    } cases[] = {
        {PK_CATEGORY_NATIVE, "Native", "blue"},
        {PK_CATEGORY_BRIGHTSCRIPT, "BrightScript", "purple"},
        {PK_CATEGORY_BUSINESS_RULES, "Business Rules", "magenta"},
        {PK_CATEGORY_JAVASCRIPT, "JavaScript", "yellow"},
        {PK_CATEGORY_PYTHON, "Python", "green"},
        {PK_CATEGORY_JAVA, "Java", "orange"},
        {PK_CATEGORY_GO, "Go", "lightblue"},
        {PK_CATEGORY_KERNEL, "Kernel", "red"},
        {PK_CATEGORY_JIT, "JIT", "brown"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_string_equal(pk_category_name(cases[i].category), cases[i].name);
        assert_string_equal(pk_category_colour(cases[i].category), cases[i].colour);
    }
    /* Every category but Other has its own colour. */
    for (unsigned a = 1; a < PK_CATEGORY_COUNT; a++)
        for (unsigned b = a + 1; b < PK_CATEGORY_COUNT; b++)
            assert_string_not_equal(pk_category_colour((pk_category)a),
                                    pk_category_colour((pk_category)b));
    /* Out of range reads as Other rather than past the table. */
    assert_string_equal(pk_category_name(PK_CATEGORY_COUNT), "Other");
    /* Flame graph fills: a range per category, none overlapping another's, light enough for
     * black labels (each channel sum of the lightest colour at least half of white). */
    for (unsigned a = 0; a < PK_CATEGORY_COUNT; a++) {
        const pk_category_fill *fa = pk_category_fill_of((pk_category)a);
        unsigned light = 0;
        for (int c = 0; c < 3; c++) {
            assert_true(fa->low[c] <= fa->high[c]);
            light += fa->high[c];
        }
        assert_true(light >= 3 * 255 / 2);
        for (unsigned b = a + 1; b < PK_CATEGORY_COUNT; b++) {
            const pk_category_fill *fb = pk_category_fill_of((pk_category)b);
            bool overlap = true;
            for (int c = 0; c < 3; c++)
                overlap = overlap && fa->low[c] <= fb->high[c] && fb->low[c] <= fa->high[c];
            if (overlap)
                fail_msg("the fills of %s and %s overlap", pk_category_name((pk_category)a),
                         pk_category_name((pk_category)b));
        }
    }
    assert_ptr_equal(pk_category_fill_of(PK_CATEGORY_COUNT),
                     pk_category_fill_of(PK_CATEGORY_OTHER));
}

static void test_formats(void **state)
{
    (void)state;
    assert_int_equal(pk_category_of_format("bsprof"), PK_CATEGORY_BRIGHTSCRIPT);
    assert_int_equal(pk_category_of_format("br"), PK_CATEGORY_BUSINESS_RULES);
    assert_int_equal(pk_category_of_format("gperftools"), PK_CATEGORY_OTHER);
    assert_int_equal(pk_category_of_format("pprof"), PK_CATEGORY_OTHER);
    assert_int_equal(pk_category_of_format("jfr"), PK_CATEGORY_JAVA);
    assert_int_equal(pk_category_of_format("art-trace"), PK_CATEGORY_JAVA);
    /* simpleperf's code is native and Java: only its script code is Java */
    assert_int_equal(pk_category_of_format("simpleperf"), PK_CATEGORY_OTHER);
    assert_int_equal(pk_category_of_format(""), PK_CATEGORY_OTHER);
}

static void test_files(void **state)
{
    (void)state;
    static const struct {
        const char *path;
        pk_category category;
    } cases[] = {
        {"pkg:/source/main.brs", PK_CATEGORY_BRIGHTSCRIPT},
        {"components/Scene.BS", PK_CATEGORY_BRIGHTSCRIPT}, /* case does not matter */
        {"MENU.BR", PK_CATEGORY_BUSINESS_RULES},
        {"src/app.tsx", PK_CATEGORY_JAVASCRIPT},
        {"lib/compute.py", PK_CATEGORY_PYTHON},
        {"Main.kt", PK_CATEGORY_JAVA},
        {"/usr/lib/go/src/runtime/proc.go", PK_CATEGORY_GO},
        {"/build/glibc/string/memcpy.c", PK_CATEGORY_NATIVE},
        {"include/vector.hpp", PK_CATEGORY_NATIVE},
        {"C:\\src\\app\\main.cpp", PK_CATEGORY_NATIVE},
        {"view.xml", PK_CATEGORY_OTHER},
        {"Makefile", PK_CATEGORY_OTHER},
        {"", PK_CATEGORY_OTHER},
        {"src.py/README", PK_CATEGORY_OTHER},   /* the dot of a directory */
        {"src.py\\README", PK_CATEGORY_OTHER},  /* also behind a backslash */
        {"file.verylongextension", PK_CATEGORY_OTHER},
        {"archive.", PK_CATEGORY_OTHER},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (pk_category_of_file(cases[i].path) != cases[i].category)
            fail_msg("%s: category %d, want %d", cases[i].path,
                     (int)pk_category_of_file(cases[i].path), (int)cases[i].category);
}

static uint32_t frame_of(pk_profile *p, const char *file, bool address)
{
    pk_function fn = {.name = pk_intern_cstr(p, "f"), .file = pk_intern_cstr(p, file),
                      .start_line = 1, .resource = PK_NONE};
    pk_frame fr = {pk_intern_function(p, &fn), 2, address ? 0x1000 : 0, PK_NONE,
                   address ? PK_FRAME_HAS_ADDRESS : 0u};
    return pk_intern_frame(p, &fr);
}

static void test_frames(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    uint32_t script_js = frame_of(p, "app/handler.js", false);
    uint32_t native_js = frame_of(p, "app/handler.js", true);
    uint32_t unknown = frame_of(p, "", false);

    /* Built in memory: no format, so the file decides. */
    pk_category none = pk_profile_category(p);
    assert_int_equal(none, PK_CATEGORY_OTHER);
    assert_int_equal(pk_frame_category(p, script_js, none), PK_CATEGORY_JAVASCRIPT);
    assert_int_equal(pk_frame_category(p, native_js, none), PK_CATEGORY_NATIVE);
    assert_int_equal(pk_frame_category(p, unknown, none), PK_CATEGORY_OTHER);

    /* Read from .bsprof: every frame without an address is BrightScript, whatever its file. */
    pk_metadata_of(p)->source_format = pk_intern_cstr(p, "bsprof");
    pk_category bsprof = pk_profile_category(p);
    assert_int_equal(bsprof, PK_CATEGORY_BRIGHTSCRIPT);
    assert_int_equal(pk_frame_category(p, script_js, bsprof), PK_CATEGORY_BRIGHTSCRIPT);
    assert_int_equal(pk_frame_category(p, unknown, bsprof), PK_CATEGORY_BRIGHTSCRIPT);
    assert_int_equal(pk_frame_category(p, native_js, bsprof), PK_CATEGORY_NATIVE);

    /* BR and Apple Sampler: Business Rules, and no language (Other). */
    pk_metadata_of(p)->source_format = pk_intern_cstr(p, "br");
    assert_int_equal(pk_frame_category(p, unknown, pk_profile_category(p)),
                     PK_CATEGORY_BUSINESS_RULES);
    pk_metadata_of(p)->source_format = pk_intern_cstr(p, "sampler");
    assert_int_equal(pk_frame_category(p, unknown, pk_profile_category(p)), PK_CATEGORY_OTHER);
    pk_profile_free(p);
}

/* A function the format marks as script is JavaScript when its file says nothing (a page's
 * script, V8's code of no file), as a .cpuprofile's and a Chrome trace's are; a file of another
 * language, an address or the format's language still decide first. */
static void test_script_functions(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    pk_metadata_of(p)->source_format = pk_intern_cstr(p, "chrome-trace");
    pk_category format = pk_profile_category(p);
    assert_int_equal(format, PK_CATEGORY_OTHER);
    pk_function page = {.name = pk_intern_cstr(p, "onload"),
                        .file = pk_intern_cstr(p, "file:///tmp/page.html"),
                        .resource = PK_NONE, .flags = PK_FUNCTION_SCRIPT};
    pk_function anonymous = {.name = pk_intern_cstr(p, "(anonymous)"), .resource = PK_NONE,
                             .flags = PK_FUNCTION_SCRIPT};
    pk_function python = {.name = pk_intern_cstr(p, "run"), .file = pk_intern_cstr(p, "a.py"),
                          .resource = PK_NONE, .flags = PK_FUNCTION_SCRIPT};
    pk_function builtin = {.name = pk_intern_cstr(p, "(garbage collector)"), .resource = PK_NONE};
    uint32_t pg = pk_intern_function(p, &page), an = pk_intern_function(p, &anonymous);
    uint32_t py = pk_intern_function(p, &python), bi = pk_intern_function(p, &builtin);
    assert_int_equal(pk_function_category(p, pg, false, format), PK_CATEGORY_JAVASCRIPT);
    assert_int_equal(pk_function_category(p, an, false, format), PK_CATEGORY_JAVASCRIPT);
    assert_int_equal(pk_function_category(p, py, false, format), PK_CATEGORY_PYTHON);
    assert_int_equal(pk_function_category(p, bi, false, format), PK_CATEGORY_OTHER);
    assert_int_equal(pk_function_category(p, pg, true, format), PK_CATEGORY_NATIVE);
    /* simpleperf's script code is Java, its other code stays what it was */
    pk_metadata_of(p)->source_format = pk_intern_cstr(p, "simpleperf");
    assert_int_equal(pk_function_category(p, an, false, pk_profile_category(p)),
                     PK_CATEGORY_JAVA);
    assert_int_equal(pk_function_category(p, bi, false, pk_profile_category(p)),
                     PK_CATEGORY_OTHER);
    pk_metadata_of(p)->source_format = pk_intern_cstr(p, "bsprof");
    assert_int_equal(pk_function_category(p, an, false, pk_profile_category(p)),
                     PK_CATEGORY_BRIGHTSCRIPT);
    pk_profile_free(p);
}

/* Folded stacks' annotations win over everything; a function's category is its frames'. */
static void test_annotations_and_functions(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    pk_metadata_of(p)->source_format = pk_intern_cstr(p, "bsprof");
    pk_category format = pk_profile_category(p);
    pk_function kernel = {.name = pk_intern_cstr(p, "page_fault_[k]"), .resource = PK_NONE};
    pk_function jit = {.name = pk_intern_cstr(p, "Interpreter_[j]"), .resource = PK_NONE};
    pk_function inlined = {.name = pk_intern_cstr(p, "helper_[i]"), .resource = PK_NONE};
    pk_function short_name = {.name = pk_intern_cstr(p, "[k]"), .resource = PK_NONE};
    uint32_t k = pk_intern_function(p, &kernel), j = pk_intern_function(p, &jit);
    uint32_t i = pk_intern_function(p, &inlined), s = pk_intern_function(p, &short_name);
    for (int address = 0; address < 2; address++) {
        assert_int_equal(pk_function_category(p, k, address, format), PK_CATEGORY_KERNEL);
        assert_int_equal(pk_function_category(p, j, address, format), PK_CATEGORY_JIT);
        /* Inlined frames are whatever their code is. */
        assert_int_equal(pk_function_category(p, i, address, format),
                         address ? PK_CATEGORY_NATIVE : PK_CATEGORY_BRIGHTSCRIPT);
        assert_int_equal(pk_function_category(p, s, address, format),
                         address ? PK_CATEGORY_NATIVE : PK_CATEGORY_BRIGHTSCRIPT);
    }
    pk_frame frame = {k, 0, 0x10, PK_NONE, PK_FRAME_HAS_ADDRESS};
    assert_int_equal(pk_frame_category(p, pk_intern_frame(p, &frame), format),
                     PK_CATEGORY_KERNEL);
    pk_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_and_colours),
        cmocka_unit_test(test_formats),
        cmocka_unit_test(test_files),
        cmocka_unit_test(test_frames),
        cmocka_unit_test(test_script_functions),
        cmocka_unit_test(test_annotations_and_functions),
    };
    return cmocka_run_group_tests_name("categories", tests, NULL, NULL);
}
