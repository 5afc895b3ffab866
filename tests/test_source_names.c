/* SPDX-License-Identifier: MIT */
/* Naming anonymous BrightScript functions from the channel's source (profkit/source_names.h):
 * the definition lines BrightScript allows and those it does not, component .xml files with
 * inline scripts, CRLF files, a source directory and a package zip (with its files in a
 * top-level folder and names in another case), names shared with other functions, and the
 * counts and warnings the pass leaves in the copy. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <zip.h>

#include "analysis/brs_names.h"
#include "model_build.h"
#include "profkit/profile.h"
#include "profkit/source_names.h"

/* ---- the definition line ------------------------------------------------------------------- */

static void line_names(void **state)
{
    (void)state;
    static const struct {
        const char *line;
        const char *name; /* NULL: not named */
    } cases[] = {
        {"onKeyEvent = function(key, press)", "onKeyEvent"},
        {"  m.onItemSelected = Sub()", "onItemSelected"},
        {"\tm.top.handlers.retry=FUNCTION ( )", "retry"},
        {"obj.name = sub(a as integer) as void", "name"},
        {"onFocus: function()", "onFocus"},
        {"    \"on-select\": sub()", "on-select"},
        {"handlers = { onKey: function(key) ' the remote", "onKey"},
        {"  , onBlur : function()", "onBlur"},
        {"x = 1 : cb = function()", "cb"},
        {"endFunction = function()", "endFunction"},
        {"cb = function() : print \"hi\" : end function", "cb"},
        /* Not an anonymous function, or not named by its line. */
        {"return function()", NULL},
        {"foo(function())", NULL},
        {"function named()", NULL},
        {"sub init()", NULL},
        {"end function", NULL},
        {"' a = function()", NULL},
        {"rem a = function()", NULL},
        {"print \"a = function(\"", NULL},
        {"a = functionality()", NULL},
        {"name$ = function()", NULL},
        {"a.b = c = function()", NULL},
        {"if ready then cb = function()", NULL},
        {"m[\"x\"] = function()", NULL},
        {"x = foo: function()", NULL},
        {"\"unterminated: function()", NULL},
        {"", NULL},
        /* Two on one line: which is which cannot be told. */
        {"a = function() : b = function()", NULL},
        {"{ a: function() as void : end function, b: sub() : end sub }", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[PK_BRS_NAME_MAX];
        bool named = pk_brs_anonymous_name(cases[i].line, strlen(cases[i].line), name);
        if (named != (cases[i].name != NULL))
            fail_msg("'%s': %s", cases[i].line, named ? name : "not named");
        if (named)
            assert_string_equal(name, cases[i].name);
    }
    /* The line is taken as given: only the bytes asked for. */
    char name[PK_BRS_NAME_MAX];
    assert_true(pk_brs_anonymous_name("go = sub()tail", 9, name));
    assert_string_equal(name, "go");
    /* A name too long to be one. */
    char line[PK_BRS_NAME_MAX + 40];
    memset(line, 'a', PK_BRS_NAME_MAX + 10);
    strcpy(line + PK_BRS_NAME_MAX + 10, " = function()");
    assert_false(pk_brs_anonymous_name(line, strlen(line), name));
}

static const char component_xml[] =
    "<?xml version=\"1.0\" encoding=\"utf-8\" ?>\r\n"                        /* 1 */
    "<component name=\"Home\" extends=\"Scene\">\r\n"                          /* 2 */
    "  <script type=\"text/brightscript\" uri=\"pkg:/components/Home.brs\" />\r\n" /* 3 */
    "  <!-- m.commented = function() -->\r\n"                               /* 4 */
    "  <script type=\"text/brightscript\"><![CDATA[\r\n"                      /* 5 */
    "    sub init()\r\n"                                                     /* 6 */
    "      m.onPlay = function()\r\n"                                        /* 7 */
    "      end function\r\n"                                                 /* 8 */
    "    end sub ]]>\r\n"                                                    /* 9 */
    "  </script>\r\n"                                                        /* 10 */
    "  <interface><field id=\"cb\" onChange=\"x = function()\" /></interface>\r\n" /* 11 */
    "  <SCRIPT>skip = function()</SCRIPT>\r\n"                               /* 12 */
    "</component>\r\n";                                                      /* 13 */

/* Line n (1-based) of text, without its line end. */
static void nth_line(const char *text, int n, char *buf, size_t size)
{
    for (int i = 1; i < n; i++) {
        text = strchr(text, '\n');
        assert_non_null(text);
        text++;
    }
    size_t len = strcspn(text, "\r\n");
    assert_true(len < size);
    memcpy(buf, text, len);
    buf[len] = '\0';
}

static void xml_keeps_only_scripts(void **state)
{
    (void)state;
    char *text = strdup(component_xml);
    size_t len = strlen(text);
    pk_brs_keep_xml_scripts(text, len);
    assert_int_equal(strlen(text), len);
    char line[256], name[PK_BRS_NAME_MAX];
    for (int n = 1; n <= 13; n++) {
        nth_line(text, n, line, sizeof line);
        bool named = pk_brs_anonymous_name(line, strlen(line), name);
        if (n == 7) {
            assert_true(named);
            assert_string_equal(name, "onPlay");
        } else if (n == 12) {
            /* Inline text of an upper-case <SCRIPT> is script too. */
            assert_true(named);
            assert_string_equal(name, "skip");
        } else {
            assert_false(named);
        }
        /* Outside the script elements nothing is left but spaces. */
        if (n <= 5 || n == 10 || n == 11 || n == 13)
            assert_int_equal(strspn(line, " "), strlen(line));
    }
    nth_line(text, 6, line, sizeof line);
    assert_string_equal(line, "    sub init()");
    nth_line(text, 9, line, sizeof line);
    assert_string_equal(line, "    end sub    "); /* "]]>" blanked */
    /* Line ends stay where they were. */
    for (size_t i = 0; i < len; i++)
        if (component_xml[i] == '\n' || component_xml[i] == '\r')
            assert_int_equal(text[i], component_xml[i]);
    free(text);

    /* Unterminated constructs end at the end of the text. */
    static const char *const broken[] = {"<script>a = function()", "<!-- <script>",
                                         "<script><![CDATA[b = sub()", "<script a=\"x>"};
    for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++) {
        char *t = strdup(broken[i]);
        pk_brs_keep_xml_scripts(t, strlen(t));
        assert_int_equal(strlen(t), strlen(broken[i]));
        free(t);
    }
}

/* ---- the pass over a profile --------------------------------------------------------------- */

typedef struct source_file {
    const char *path; /* in the source */
    const char *text;
} source_file;

static const char home_brs[] =
    "' Home screen\r\n"
    "sub init()\r\n"
    "  m.onItemSelected = function(index as integer)\r\n" /* 3 */
    "    print index\r\n"
    "  end function\r\n"
    "  handlers = {\r\n"
    "    \"on-focus\": sub()\r\n" /* 7 */
    "    end sub\r\n"
    "  }\r\n"
    "  m.top.observeField(\"x\", \"onX\")\r\n" /* 10: not a definition */
    "  m.onKey = function()\r\n"                /* 11: onKey is also a named function */
    "  end function\r\n"
    "end sub\r\n";

static const char task_brs[] =
    "sub run()\n"
    "  m.handler = function()\n" /* 2 */
    "  end function\n"
    "end sub\n";

static const char util_brs[] =
    "\xef\xbb\xbf" "handler = function()\n" /* 1, after a byte order mark */
    "end function\n";

static const source_file channel_files[] = {
    {"manifest", "title=Test\nbsprof_enable=1\n"},
    {"components/Home.brs", home_brs},
    {"components/Home.xml", component_xml},
    {"components/tasks/Task.brs", task_brs},
    {"source/util.brs", util_brs},
};

typedef struct fixture {
    pk_profile *p;
    uint32_t thread, value;
} fixture;

/* Main calls every anonymous function (and onKey) once, each with its own cpu value. */
static pk_profile *channel_profile(void)
{
    static const struct {
        const char *name, *file;
        uint32_t line;
    } functions[] = {
        {"$anon_1f3", "pkg:/components/Home.brs", 3},         /* onItemSelected */
        {"$anon_200", "pkg:/components/Home.brs", 7},         /* on-focus */
        {"$anon_201", "pkg:/components/Home.brs", 10},        /* no definition there */
        {"$anon_202", "pkg:/components/Home.brs", 11},        /* onKey, shared */
        {"$anon_300", "pkg:/components/Home.xml", 7},         /* onPlay, inline script */
        {"$anon_301", "pkg:/components/Home.xml", 4},         /* a comment: not named */
        {"$anon_400", "pkg:/components/tasks/Task.brs", 2},   /* handler, shared */
        {"$anon_401", "pkg:/source/util.brs", 1},             /* handler, shared */
        {"$anon_500", "pkg:/source/missing.brs", 1},          /* no such file */
        {"$anon_501", "pkg:/components/Home.brs", 99},        /* past the end */
        {"$anon_502", "pkg:/../outside.brs", 1},              /* leaves the source */
        {"$anon_503", "common:/lib.brs", 1},                  /* not the channel's */
        {"$anon_504", NULL, 0},                               /* no file */
        {"onKey", "pkg:/source/keys.brs", 1},
    };
    pk_profile *p = pk_profile_new();
    assert_non_null(p);
    uint32_t cpu = pk_add_value_type(p, "cpu", "operations");
    uint32_t thread = pk_add_thread(p, pk_intern_cstr(p, "main"), 0, 1);
    uint32_t main_fn = tb_function(p, "Main", "pkg:/source/main.brs", 1, PK_NONE);
    uint32_t root = tb_push(p, PK_NONE, main_fn, 0, 0, PK_NONE, 0);
    for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++) {
        uint32_t f = tb_function(p, functions[i].name, functions[i].file, functions[i].line,
                                 PK_NONE);
        uint32_t stack = tb_push(p, root, f, functions[i].line + 1, 0, PK_NONE, 0);
        assert_int_equal(pk_add_sample_value(p, thread, stack, cpu, (int64_t)(i + 1) * 10),
                         PK_OK);
    }
    return p;
}

static void write_directory(const char *root)
{
    char path[1024];
    for (size_t i = 0; i < sizeof channel_files / sizeof channel_files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", root, channel_files[i].path);
        /* Make the folders on the way. */
        for (char *slash = strchr(path + strlen(root) + 1, '/'); slash;
             slash = strchr(slash + 1, '/')) {
            *slash = '\0';
            mkdir(path, 0755);
            *slash = '/';
        }
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        fputs(channel_files[i].text, f);
        fclose(f);
    }
}

/* The files in a zip under prefix, with the case of one folder changed, as a packager on a
 * case-insensitive system may leave it. */
static void write_zip(const char *path, const char *prefix)
{
    int error = 0;
    remove(path);
    zip_t *z = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &error);
    assert_non_null(z);
    for (size_t i = 0; i < sizeof channel_files / sizeof channel_files[0]; i++) {
        char name[512];
        snprintf(name, sizeof name, "%s%s", prefix, channel_files[i].path);
        if (strncmp(channel_files[i].path, "source/", 7) == 0)
            memcpy(name + strlen(prefix), "Source", 6);
        const char *text = channel_files[i].text;
        zip_source_t *s = zip_source_buffer(z, text, strlen(text), 0);
        assert_non_null(s);
        assert_true(zip_file_add(z, name, s, ZIP_FL_ENC_UTF_8) >= 0);
    }
    assert_int_equal(zip_close(z), 0);
}

static const char *scratch(const char *name)
{
    static char path[1024];
    const char *dir = getenv("PK_TEST_TMPDIR");
    snprintf(path, sizeof path, "%s/source_names_%s", dir ? dir : ".", name);
    return path;
}

/* The name of the function of the leaf frame of the row whose value is v. */
static const char *name_with_value(const pk_profile *p, int64_t v)
{
    for (size_t row = 0; row < pk_sample_count(p); row++) {
        if (pk_sample_values(p, row)[0] != v)
            continue;
        uint32_t frames[8];
        size_t depth = pk_stack_frames(p, pk_sample_stack(p, row), frames, 8);
        assert_int_equal(depth, 2);
        assert_string_equal(pk_frame_name(p, frames[0]), "Main");
        return pk_frame_name(p, frames[1]);
    }
    fail_msg("no row with value %lld", (long long)v);
    return NULL;
}

static bool has_warning(const pk_profile *p, const char *a, const char *b)
{
    for (size_t i = 0; i < pk_warning_count(p); i++)
        if (strstr(pk_warning_at(p, i), a) && strstr(pk_warning_at(p, i), b))
            return true;
    return false;
}

static void check_named(const char *source_path)
{
    pk_profile *p = channel_profile();
    pk_source *source = NULL;
    pk_error err;
    assert_int_equal(pk_source_open(source_path, &source, &err), PK_OK);
    pk_profile *named = NULL;
    pk_source_naming counts = {99, 99};
    assert_int_equal(pk_name_anonymous_functions(p, source, &named, &counts, &err), PK_OK);
    assert_non_null(named);
    assert_int_equal(counts.named, 6);
    assert_int_equal(counts.unnamed, 7);

    assert_string_equal(name_with_value(named, 10), "onItemSelected");
    assert_string_equal(name_with_value(named, 20), "on-focus");
    assert_string_equal(name_with_value(named, 30), "$anon_201");
    assert_string_equal(name_with_value(named, 40), "onKey ($anon_202)");
    assert_string_equal(name_with_value(named, 50), "onPlay");
    assert_string_equal(name_with_value(named, 60), "$anon_301");
    assert_string_equal(name_with_value(named, 70), "handler ($anon_400)");
    assert_string_equal(name_with_value(named, 80), "handler ($anon_401)");
    for (int64_t v = 90; v <= 130; v += 10)
        assert_memory_equal(name_with_value(named, v), "$anon_", 6);
    assert_string_equal(name_with_value(named, 140), "onKey");

    /* File and line stay with the renamed function; values and rows are those of the input. */
    for (uint32_t f = 0; f < pk_function_count(named); f++) {
        const pk_function *fn = pk_function_at(named, f);
        if (strcmp(pk_str(named, fn->name), "onPlay") == 0) {
            assert_string_equal(pk_str(named, fn->file), "pkg:/components/Home.xml");
            assert_int_equal(fn->start_line, 7);
        }
    }
    assert_int_equal(pk_sample_count(named), pk_sample_count(p));
    assert_int_equal(pk_value_total(named, 0), pk_value_total(p, 0));

    /* One line of counts; a warning per function left as it was, saying why. */
    char want[1200];
    snprintf(want, sizeof want, "6 named from %s, 7 not named", source_path);
    assert_string_equal(pk_property_get(named, "anonymous-functions"), want);
    assert_true(has_warning(named, "$anon_201", "line 10 of pkg:/components/Home.brs"));
    assert_true(has_warning(named, "$anon_201", "observeField"));
    assert_true(has_warning(named, "$anon_301", "line 4 of pkg:/components/Home.xml"));
    assert_true(has_warning(named, "$anon_500", "pkg:/source/missing.brs is not in"));
    assert_true(has_warning(named, "$anon_501", "has 13 lines"));
    assert_true(has_warning(named, "$anon_502", "not a file of the channel"));
    assert_true(has_warning(named, "$anon_503", "not a file of the channel"));
    assert_true(has_warning(named, "$anon_504", "no file and line"));
    assert_int_equal(pk_warning_count(named), 7);

    pk_profile_free(named);
    pk_source_close(source);
    pk_profile_free(p);
}

static void names_from_a_directory(void **state)
{
    (void)state;
    const char *root = scratch("dir");
    mkdir(root, 0755);
    write_directory(root);
    check_named(root);
    /* A folder named in another case is found too. */
    char from[1100], to[1100];
    snprintf(from, sizeof from, "%s/source", root);
    snprintf(to, sizeof to, "%s/SOURCE", root);
    remove(to);
    assert_int_equal(rename(from, to), 0);
    check_named(root);
    assert_int_equal(rename(to, from), 0);
}

static void names_from_a_zip(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s", scratch("channel.zip"));
    write_zip(path, "");
    check_named(path);
    /* The channel's folder zipped whole: its files under one top-level folder. */
    snprintf(path, sizeof path, "%s", scratch("folder.zip"));
    write_zip(path, "MyChannel/");
    check_named(path);
}

static void a_profile_without_anonymous_functions_is_copied(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    uint32_t cpu = pk_add_value_type(p, "cpu", "operations");
    uint32_t t = pk_add_thread(p, pk_intern_cstr(p, "main"), 0, 1);
    uint32_t s = tb_push(p, PK_NONE, tb_function(p, "Main", NULL, 0, PK_NONE), 0, 0, PK_NONE, 0);
    assert_int_equal(pk_add_sample_value(p, t, s, cpu, 5), PK_OK);
    const char *root = scratch("dir");
    mkdir(root, 0755);
    write_directory(root);
    pk_source *source;
    pk_error err;
    assert_int_equal(pk_source_open(root, &source, &err), PK_OK);
    pk_profile *named;
    assert_int_equal(pk_name_anonymous_functions(p, source, &named, NULL, &err), PK_OK);
    assert_int_equal(pk_value_total(named, 0), 5);
    assert_int_equal(pk_warning_count(named), 0);
    assert_non_null(strstr(pk_property_get(named, "anonymous-functions"), "0 named"));
    pk_profile_free(named);
    pk_source_close(source);
    pk_profile_free(p);
}

static void sources_that_cannot_be_opened(void **state)
{
    (void)state;
    pk_source *source = (pk_source *)1;
    pk_error err;
    assert_int_equal(pk_source_open(scratch("does-not-exist"), &source, &err), PK_ERR_IO);
    assert_null(source);
    assert_non_null(strstr(err.message, "does-not-exist"));
    const char *plain = scratch("plain.txt");
    FILE *f = fopen(plain, "w");
    assert_non_null(f);
    fputs("not a zip\n", f);
    fclose(f);
    assert_int_equal(pk_source_open(plain, &source, &err), PK_ERR_INPUT);
    assert_non_null(strstr(err.message, "not a channel source"));
    pk_source_close(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(line_names),
        cmocka_unit_test(xml_keeps_only_scripts),
        cmocka_unit_test(names_from_a_directory),
        cmocka_unit_test(names_from_a_zip),
        cmocka_unit_test(a_profile_without_anonymous_functions_is_copied),
        cmocka_unit_test(sources_that_cannot_be_opened),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
