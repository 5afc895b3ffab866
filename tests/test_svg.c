/* SPDX-License-Identifier: MIT */
/* The svg format and differential flame graphs: well-formed XML (parsed with libxml2), widths
 * that add up to the totals, order, colours, icicles, merging of narrow frames, escaping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include "analysis/categories.h"
#include "core/output.h"
#include "profkit/diff.h"
#include "formats/formats.h"
#include "report_fixture.h"

#define MAX_FRAMES 4096
#define FULL_WIDTH 1180.0 /* image width 1200 less the margins */

typedef struct svg_frame {
    char name[256];
    char title[512];
    char category[64]; /* data-category of its group, "" when it has none */
    double x, y, w;
    unsigned rgb[3];
} svg_frame;

typedef struct svg_doc {
    svg_frame frames[MAX_FRAMES];
    size_t count;
    char *text;
    size_t size;
} svg_doc;

static xmlNode *child_named(xmlNode *node, const char *name)
{
    for (xmlNode *c = node ? node->children : NULL; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, name) == 0)
            return c;
    return NULL;
}

static double number_attribute(xmlNode *node, const char *name)
{
    xmlChar *v = xmlGetProp(node, (const xmlChar *)name);
    assert_non_null(v);
    double d = strtod((const char *)v, NULL);
    xmlFree(v);
    return d;
}

/* Parses the SVG (failing the test when it is not well-formed) and collects the frames. */
static void parse_svg(svg_doc *doc)
{
    xmlDoc *x = xmlReadMemory(doc->text, (int)doc->size, "graph.svg", NULL, XML_PARSE_NONET);
    if (!x)
        fail_msg("the SVG is not well-formed XML");
    xmlNode *root = xmlDocGetRootElement(x);
    assert_string_equal((const char *)root->name, "svg");
    xmlNode *frames = NULL;
    for (xmlNode *c = root->children; c; c = c->next) {
        xmlChar *id = c->type == XML_ELEMENT_NODE ? xmlGetProp(c, (const xmlChar *)"id") : NULL;
        if (id && strcmp((const char *)id, "frames") == 0)
            frames = c;
        xmlFree(id);
    }
    assert_non_null(frames);
    doc->count = 0;
    for (xmlNode *g = frames->children; g; g = g->next) {
        if (g->type != XML_ELEMENT_NODE)
            continue;
        assert_true(doc->count < MAX_FRAMES);
        svg_frame *f = &doc->frames[doc->count++];
        xmlChar *title = xmlNodeGetContent(child_named(g, "title"));
        snprintf(f->title, sizeof f->title, "%s", (const char *)title);
        xmlFree(title);
        size_t name_len = strcspn(f->title, "\n");
        if (name_len >= sizeof f->name)
            name_len = sizeof f->name - 1;
        memcpy(f->name, f->title, name_len);
        f->name[name_len] = '\0';
        xmlChar *category = xmlGetProp(g, (const xmlChar *)"data-category");
        snprintf(f->category, sizeof f->category, "%s", category ? (const char *)category : "");
        xmlFree(category);
        xmlNode *rect = child_named(g, "rect");
        assert_non_null(rect);
        f->x = number_attribute(rect, "x");
        f->y = number_attribute(rect, "y");
        f->w = number_attribute(rect, "width");
        xmlChar *fill = xmlGetProp(rect, (const xmlChar *)"fill");
        assert_int_equal(sscanf((const char *)fill, "rgb(%u,%u,%u)", &f->rgb[0], &f->rgb[1],
                                &f->rgb[2]),
                         3);
        xmlFree(fill);
        /* A label is drawn where it fits three characters. */
        xmlNode *text = child_named(g, "text");
        assert_true((text != NULL) == ((f->w - 6) / (0.59 * 12) >= 3));
    }
    xmlFreeDoc(x);
}

static void write_svg(svg_doc *doc, const pk_profile *p, const char *const *flags, size_t nflags)
{
    pk_option options[4];
    for (size_t i = 0; i < nflags; i++)
        options[i] = (pk_option){flags[i], ""};
    pk_write_options wo = {.value = 0, .extra = {options, nflags}, .title = "Test <graph>"};
    pk_error err;
    pk_error_clear(&err);
    if (pk_write_memory(p, &pk_format_svg, &wo, &doc->text, &doc->size, &err) != PK_OK)
        fail_msg("svg writer failed: %s", err.message);
    parse_svg(doc);
}

static const svg_frame *find_frame(const svg_doc *doc, const char *name, double y)
{
    for (size_t i = 0; i < doc->count; i++)
        if (strcmp(doc->frames[i].name, name) == 0 && (y < 0 || doc->frames[i].y == y))
            return &doc->frames[i];
    return NULL;
}

/* Every frame lies inside one frame of the row below it (the row above for an icicle), and the
 * frames on a parent add up to at most its width. */
static void assert_widths_nest(const svg_doc *doc, double row_step)
{
    for (size_t i = 0; i < doc->count; i++) {
        const svg_frame *parent = &doc->frames[i];
        double children = 0;
        for (size_t j = 0; j < doc->count; j++) {
            const svg_frame *c = &doc->frames[j];
            if (c->y == parent->y + row_step && c->x >= parent->x - 0.02 &&
                c->x + c->w <= parent->x + parent->w + 0.02)
                children += c->w;
        }
        if (children > parent->w + 0.05)
            fail_msg("children of %s are %.2f wide, more than its %.2f", parent->name, children,
                     parent->w);
        if (i == 0)
            continue;
        bool inside = false;
        for (size_t j = 0; j < doc->count && !inside; j++) {
            const svg_frame *c = &doc->frames[j];
            inside = c->y == parent->y - row_step && parent->x >= c->x - 0.02 &&
                     parent->x + parent->w <= c->x + c->w + 0.02;
        }
        if (!inside)
            fail_msg("frame %s has no frame below it", parent->name);
    }
}

static void flame_graph_widths_add_up(void **state)
{
    (void)state;
    pk_profile *p = fixture_profile();
    svg_doc *doc = calloc(1, sizeof *doc);
    write_svg(doc, p, NULL, 0);
    assert_memory_equal(doc->text, "<?xml", 5);
    assert_non_null(strstr(doc->text, ">Test &lt;graph&gt;</text>"));
    assert_non_null(strstr(doc->text, "<script><![CDATA["));
    const svg_frame *all = &doc->frames[0];
    assert_string_equal(all->name, "all");
    assert_true(all->w > FULL_WIDTH - 0.01 && all->w < FULL_WIDTH + 0.01);
    const svg_frame *main_ = find_frame(doc, "main", all->y - 16);
    assert_non_null(main_);
    assert_true(main_->w > FULL_WIDTH - 0.01);
    /* Children of main, by name: bar (5 ms), foo (30 ms), rec (6 ms); main's own 1 ms is free. */
    double row = main_->y - 16;
    const svg_frame *bar = find_frame(doc, "bar", row), *foo = find_frame(doc, "foo", row);
    const svg_frame *rec = find_frame(doc, "rec", row);
    assert_true(bar && foo && rec);
    assert_true(bar->x < foo->x && foo->x < rec->x);
    assert_true(bar->w > FULL_WIDTH * 5 / 42 - 0.02 && bar->w < FULL_WIDTH * 5 / 42 + 0.02);
    assert_true(foo->w > FULL_WIDTH * 30 / 42 - 0.02 && foo->w < FULL_WIDTH * 30 / 42 + 0.02);
    double sum = bar->w + foo->w + rec->w;
    assert_true(sum > FULL_WIDTH * 41 / 42 - 0.03 && sum < FULL_WIDTH * 41 / 42 + 0.03);
    assert_widths_nest(doc, -16);
    /* Tooltip: name, value and share; category of code (C files: native) and library. */
    assert_string_equal(foo->title, "foo\n30.0 ms (71.43%)\nNative");
    assert_string_equal(bar->title, "bar\n5.00 ms (11.90%)\nNative libfoo.so");
    assert_string_equal(foo->category, "Native");
    assert_string_equal(all->category, "");
    /* Native code is blue, as in the Firefox Profiler. */
    assert_true(foo->rgb[2] >= 230 && foo->rgb[0] <= 150 && foo->rgb[1] <= 195);
    assert_true(bar->rgb[2] >= 230 && bar->rgb[0] <= 150 && bar->rgb[1] <= 195);
    /* Six frames and the root: all, main, bar, foo, bar (under foo), rec, rec, bar. */
    assert_int_equal(doc->count, 8);
    const char *out_dir = getenv("PK_TEST_TMPDIR");
    if (out_dir) {
        /* Kept for looking at (and for the screenshot check of the CLI tests). */
        char path[1024];
        snprintf(path, sizeof path, "%s/test_svg_fixture.svg", out_dir);
        FILE *f = fopen(path, "w");
        if (f) {
            fwrite(doc->text, 1, doc->size, f);
            fclose(f);
        }
    }
    free(doc->text);
    free(doc);
    pk_profile_free(p);
}

static void inverted_graph_is_an_icicle(void **state)
{
    (void)state;
    pk_profile *p = fixture_profile();
    svg_doc *doc = calloc(1, sizeof *doc);
    static const char *const flags[] = {"inverted"};
    write_svg(doc, p, flags, 1);
    const svg_frame *all = &doc->frames[0];
    const svg_frame *main_ = find_frame(doc, "main", -1);
    assert_true(main_->y == all->y + 16);
    assert_widths_nest(doc, 16);
    assert_non_null(strstr(doc->text, "inverted: true"));
    free(doc->text);
    free(doc);
    /* reverse: merged from the innermost frame, so bar is a root with its 29 ms. */
    doc = calloc(1, sizeof *doc);
    static const char *const reverse[] = {"reverse"};
    write_svg(doc, p, reverse, 1);
    const svg_frame *bar = find_frame(doc, "bar", doc->frames[0].y - 16);
    assert_non_null(bar);
    assert_true(bar->w > FULL_WIDTH * 29 / 42 - 0.02 && bar->w < FULL_WIDTH * 29 / 42 + 0.02);
    free(doc->text);
    free(doc);
    pk_profile_free(p);
}

static void narrow_frames_are_merged(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    pk_add_value_type(p, "samples", "count");
    uint32_t t = pk_add_thread(p, pk_intern_cstr(p, "t"), -1, -1);
    uint32_t root = pk_intern_stack(p, PK_NONE, fixture_frame(p, "root", "", 0, NULL));
    pk_add_sample_value(p, t, pk_intern_stack(p, root, fixture_frame(p, "big", "", 0, NULL)), 0,
                        1000000);
    char name[32];
    for (int i = 0; i < 100000; i++) {
        snprintf(name, sizeof name, "tiny%d", i);
        uint32_t s = pk_intern_stack(p, root, fixture_frame(p, name, "", 0, NULL));
        uint32_t leaf = pk_intern_stack(p, s, fixture_frame(p, "leaf", "", 0, NULL));
        pk_add_sample_value(p, t, leaf, 0, 1);
    }
    svg_doc *doc = calloc(1, sizeof *doc);
    write_svg(doc, p, NULL, 0);
    /* all, root, big and one frame for the 100000 tiny ones (and none for their leaves). */
    assert_int_equal(doc->count, 4);
    const svg_frame *merged = find_frame(doc, "(100000 small frames)", -1);
    assert_non_null(merged);
    double want = FULL_WIDTH * 100000.0 / 1100000.0;
    assert_true(merged->w > want - 0.02 && merged->w < want + 0.02);
    assert_true(doc->size < 20000);
    assert_widths_nest(doc, -16);
    free(doc->text);
    free(doc);
    pk_profile_free(p);
}

/* A profile read from `format` (a registry name) with one script frame, one frame at an
 * address and one kernel frame, each the root of its own stack. */
static pk_profile *category_profile(const char *format)
{
    pk_profile *p = pk_profile_new();
    pk_metadata_of(p)->source_format = pk_intern_cstr(p, format);
    pk_add_value_type(p, "samples", "count");
    uint32_t t = pk_add_thread(p, pk_intern_cstr(p, "t"), -1, -1);
    pk_function script = {.name = pk_intern_cstr(p, "script"), .file = pk_intern_cstr(p, "MENU"),
                          .resource = PK_NONE};
    pk_frame script_frame = {pk_intern_function(p, &script), 1, 0, PK_NONE, 0};
    pk_function native = {.name = pk_intern_cstr(p, "native"), .resource = PK_NONE};
    pk_frame native_frame = {pk_intern_function(p, &native), 0, 0x1000, PK_NONE,
                             PK_FRAME_HAS_ADDRESS};
    pk_function kernel = {.name = pk_intern_cstr(p, "do_syscall_[k]"), .resource = PK_NONE};
    pk_frame kernel_frame = {pk_intern_function(p, &kernel), 0, 0, PK_NONE, 0};
    pk_add_sample_value(p, t, pk_intern_stack(p, PK_NONE, pk_intern_frame(p, &script_frame)), 0,
                        5);
    pk_add_sample_value(p, t, pk_intern_stack(p, PK_NONE, pk_intern_frame(p, &native_frame)), 0,
                        3);
    pk_add_sample_value(p, t, pk_intern_stack(p, PK_NONE, pk_intern_frame(p, &kernel_frame)), 0,
                        2);
    return p;
}

static bool colour_in(const svg_frame *f, pk_category category)
{
    const pk_category_fill *fill = pk_category_fill_of(category);
    for (int c = 0; c < 3; c++)
        if (f->rgb[c] < fill->low[c] || f->rgb[c] > fill->high[c])
            return false;
    return true;
}

/* Frames take the category that the Firefox Profiler output gives them: the format's language
 * (BR: Business Rules; Apple Sampler: none, so Other), native code at an address, kernel code
 * by its annotation; the tooltip names it and the fill is in its colour. */
static void frames_coloured_by_category(void **state)
{
    (void)state;
    static const struct {
        const char *format;
        pk_category script;
    } cases[] = {
        {"br", PK_CATEGORY_BUSINESS_RULES},
        {"sampler", PK_CATEGORY_OTHER},
        {"bsprof", PK_CATEGORY_BRIGHTSCRIPT},
        {"folded", PK_CATEGORY_OTHER},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pk_profile *p = category_profile(cases[i].format);
        svg_doc *doc = calloc(1, sizeof *doc);
        write_svg(doc, p, NULL, 0);
        const svg_frame *script = find_frame(doc, "script", -1);
        const svg_frame *native = find_frame(doc, "native", -1);
        const svg_frame *kernel = find_frame(doc, "do_syscall_[k]", -1);
        assert_true(script && native && kernel);
        const char *want = pk_category_name(cases[i].script);
        if (strcmp(script->category, want) != 0)
            fail_msg("%s: script frame in \"%s\", want \"%s\"", cases[i].format,
                     script->category, want);
        assert_non_null(strstr(script->title, want));
        assert_true(colour_in(script, cases[i].script));
        assert_string_equal(native->category, "Native");
        assert_true(colour_in(native, PK_CATEGORY_NATIVE));
        assert_string_equal(kernel->category, "Kernel");
        assert_true(colour_in(kernel, PK_CATEGORY_KERNEL));
        /* Nobody is "native code" any more: the words of the one category table only. */
        assert_null(strstr(doc->text, "native code"));
        free(doc->text);
        free(doc);
        pk_profile_free(p);
    }
}

static void names_are_escaped(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    pk_add_value_type(p, "samples", "count");
    uint32_t t = pk_add_thread(p, pk_intern_cstr(p, "t"), -1, -1);
    uint32_t s = pk_intern_stack(p, PK_NONE,
                                 fixture_frame(p, "operator<<(a&b, \"c\") ]]> </script>", "", 0, NULL));
    pk_add_sample_value(p, t, s, 0, 3);
    svg_doc *doc = calloc(1, sizeof *doc);
    write_svg(doc, p, NULL, 0);
    assert_int_equal(doc->count, 2);
    assert_string_equal(doc->frames[1].name, "operator<<(a&b, \"c\") ]]> </script>");
    free(doc->text);
    free(doc);
    pk_profile_free(p);

    /* An empty profile still gives a valid picture. */
    p = pk_profile_new();
    pk_add_value_type(p, "samples", "count");
    doc = calloc(1, sizeof *doc);
    write_svg(doc, p, NULL, 0);
    assert_int_equal(doc->count, 0);
    assert_non_null(strstr(doc->text, "No samples"));
    free(doc->text);
    free(doc);
    pk_profile_free(p);
}

static void differential_graph_colours_change(void **state)
{
    (void)state;
    pk_profile *base = fixture_profile(), *newer = fixture_profile();
    fixture_add(newer, 0, "main;foo", 10 * MS);
    fixture_add(newer, 1, "main;rec;rec;bar", -4 * MS);
    pk_profile *d = NULL;
    pk_error err;
    assert_int_equal(pk_diff_profiles(base, 0, newer, 0, false, &d, &err), PK_OK);
    svg_doc *doc = calloc(1, sizeof *doc);
    assert_int_equal(pk_write_memory(d, &pk_format_svg, NULL, &doc->text, &doc->size, &err),
                     PK_OK);
    parse_svg(doc);
    assert_non_null(strstr(doc->text, "Differential Flame Graph"));
    /* Widths by the new profile: 48 ms in all. */
    const svg_frame *foo = find_frame(doc, "foo", -1);
    assert_true(foo->w > FULL_WIDTH * 40 / 48 - 0.02 && foo->w < FULL_WIDTH * 40 / 48 + 0.02);
    /* foo grew by 10 ms, the most: full red. */
    assert_int_equal(foo->rgb[0], 255);
    assert_int_equal(foo->rgb[1], 50);
    assert_true(strstr(foo->title, "base 30.0 ms, change +10.0 ms (+33.3%)") != NULL);
    /* rec shrank (6 -> 2 ms): blue. */
    const svg_frame *rec = find_frame(doc, "rec", foo->y);
    assert_non_null(rec);
    assert_int_equal(rec->rgb[2], 255);
    assert_true(rec->rgb[0] < 255);
    /* main;bar did not change: neutral. */
    for (size_t i = 0; i < doc->count; i++)
        if (strcmp(doc->frames[i].name, "bar") == 0 && doc->frames[i].y == foo->y)
            assert_int_equal(doc->frames[i].rgb[0], doc->frames[i].rgb[2]);
    free(doc->text);
    free(doc);
    pk_profile_free(d);
    pk_profile_free(base);
    pk_profile_free(newer);
}

/* A folded file with two counts per line is a differential profile: the svg format draws it
 * as a differential flame graph. */
static void differential_graph_from_two_count_folded(void **state)
{
    (void)state;
    const char *text = "main;foo 10 20\nmain;foo;bar 20 20\nmain;bar 5 5\nmain 1 1\n"
                       "main;rec;rec;bar 4 0\nmain;rec 2 0\nmain;rec;bar 0 2\n";
    pk_profile *p = NULL;
    pk_error err;
    assert_int_equal(pk_read_memory(text, strlen(text), &pk_format_folded, NULL, &p, &err),
                     PK_OK);
    svg_doc *doc = calloc(1, sizeof *doc);
    assert_int_equal(pk_write_memory(p, &pk_format_svg, NULL, &doc->text, &doc->size, &err),
                     PK_OK);
    parse_svg(doc);
    assert_non_null(strstr(doc->text, "Differential Flame Graph"));
    assert_non_null(strstr(doc->text, "base 42, new 48; width by new"));
    /* Widths by the new counts: foo has 40 of 48. */
    const svg_frame *foo = find_frame(doc, "foo", -1);
    assert_non_null(foo);
    assert_true(foo->w > FULL_WIDTH * 40 / 48 - 0.02 && foo->w < FULL_WIDTH * 40 / 48 + 0.02);
    assert_int_equal(foo->rgb[0], 255);
    assert_int_equal(foo->rgb[1], 50);
    assert_non_null(strstr(foo->title, "base 30, change +10 (+33.3%)"));
    const svg_frame *rec = find_frame(doc, "rec", foo->y);
    assert_non_null(rec);
    assert_int_equal(rec->rgb[2], 255);
    free(doc->text);
    free(doc);
    pk_profile_free(p);

    /* The root changes more than any frame above it (the sum of theirs): it gets the strongest
     * colour, not one past it. */
    text = "a 1 2\nb 1 2\n";
    assert_int_equal(pk_read_memory(text, strlen(text), &pk_format_folded, NULL, &p, &err),
                     PK_OK);
    doc = calloc(1, sizeof *doc);
    assert_int_equal(pk_write_memory(p, &pk_format_svg, NULL, &doc->text, &doc->size, &err),
                     PK_OK);
    parse_svg(doc);
    const svg_frame *all = &doc->frames[0];
    assert_string_equal(all->name, "all");
    assert_int_equal(all->rgb[0], 255);
    assert_int_equal(all->rgb[1], 50);
    assert_int_equal(all->rgb[2], 50);
    free(doc->text);
    free(doc);
    pk_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(flame_graph_widths_add_up),
        cmocka_unit_test(inverted_graph_is_an_icicle),
        cmocka_unit_test(narrow_frames_are_merged),
        cmocka_unit_test(names_are_escaped),
        cmocka_unit_test(frames_coloured_by_category),
        cmocka_unit_test(differential_graph_colours_change),
        cmocka_unit_test(differential_graph_from_two_count_folded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
