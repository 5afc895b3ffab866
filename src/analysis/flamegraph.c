/* SPDX-License-Identifier: MIT */
/* Flame graph layout and SVG output. Children are ordered by name, as in the classic flame
 * graph, so that the same code lands at the same place in two graphs. */
#define _GNU_SOURCE /* qsort_r */
#include "analysis/flamegraph.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/categories.h"
#include "analysis/flamegraph_script.h"
#include "analysis/units.h"
#include "core/array.h"
#include "core/hashmap.h"

#define FONT_SIZE 12.0
#define CHAR_WIDTH (0.59 * FONT_SIZE)
#define PAD 10.0
#define TOP_MARGIN 62.0
#define BOTTOM_MARGIN 34.0
#define MATCH_COLOUR "rgb(230,0,230)"

typedef struct drawn_frame {
    uint32_t node;         /* tree node, or the parent of a group of merged narrow frames */
    uint32_t merged;       /* 0 for a node; otherwise how many narrow frames this one stands for */
    uint32_t depth;
    double x, w;
    int64_t total;
    double base;           /* differential: base value */
} drawn_frame;

typedef struct layout {
    drawn_frame *frames;
    size_t count, capacity;
    uint32_t max_depth;
} layout;

typedef struct pending {
    uint32_t node;
    uint32_t depth;
    double x;
} pending;

void pk_flamegraph_options_init(pk_flamegraph_options *o)
{
    memset(o, 0, sizeof *o);
    o->image_width = 1200;
    o->frame_height = 16;
    o->min_width = 0.1;
}

static bool add_frame(layout *l, drawn_frame f)
{
    if (!PK_ARRAY_RESERVE(l->frames, l->capacity, l->count + 1))
        return false;
    l->frames[l->count++] = f;
    if (f.depth > l->max_depth)
        l->max_depth = f.depth;
    return true;
}

static int compare_by_name(const void *pa, const void *pb, void *context)
{
    const pk_calltree *tree = ((const void *const *)context)[0];
    const pk_profile *p = ((const void *const *)context)[1];
    const pk_calltree_node *a = &tree->nodes[*(const uint32_t *)pa];
    const pk_calltree_node *b = &tree->nodes[*(const uint32_t *)pb];
    int c = strcmp(pk_calltree_name(tree, p, (uint32_t)(a - tree->nodes)),
                   pk_calltree_name(tree, p, (uint32_t)(b - tree->nodes)));
    if (c == 0)
        c = a < b ? -1 : a > b;
    return c;
}

/* Places every frame at least min_width wide; narrow siblings become one frame at the end of
 * their parent. */
static pk_status lay_out(layout *l, const pk_profile *p, const pk_calltree *tree, double scale,
                         const pk_flamegraph_options *o, pk_error *err)
{
    pending *work = NULL;
    size_t work_count = 0, work_capacity = 0;
    uint32_t *children = NULL;
    size_t children_capacity = 0;
    const void *context[2] = {tree, p};
    pk_status st = PK_OK;
    const pk_calltree_node *root = &tree->nodes[0];
    if (!add_frame(l, (drawn_frame){0, 0, 0, PAD, (double)root->total * scale, root->total,
                                    o->base_totals ? o->base_totals[0] : 0}))
        goto nomem;
    if (!PK_ARRAY_RESERVE(work, work_capacity, 64))
        goto nomem;
    work[work_count++] = (pending){0, 0, PAD};
    while (work_count) {
        pending item = work[--work_count];
        size_t n = 0;
        for (uint32_t c = tree->nodes[item.node].first_child; c != PK_NONE;
             c = tree->nodes[c].next_sibling) {
            if (tree->nodes[c].total <= 0)
                continue;
            if (!PK_ARRAY_RESERVE(children, children_capacity, n + 1))
                goto nomem;
            children[n++] = c;
        }
        if (n > 1)
            qsort_r(children, n, sizeof *children, compare_by_name, context);
        double x = item.x;
        uint32_t merged = 0;
        int64_t merged_total = 0;
        double merged_base = 0;
        for (size_t i = 0; i < n; i++) {
            const pk_calltree_node *c = &tree->nodes[children[i]];
            double w = (double)c->total * scale;
            double base = o->base_totals ? o->base_totals[children[i]] : 0;
            if (w < o->min_width) {
                merged++;
                merged_total += c->total;
                merged_base += base;
                continue;
            }
            if (!add_frame(l, (drawn_frame){children[i], 0, item.depth + 1, x, w, c->total, base}))
                goto nomem;
            if (!PK_ARRAY_RESERVE(work, work_capacity, work_count + 1))
                goto nomem;
            work[work_count++] = (pending){children[i], item.depth + 1, x};
            x += w;
        }
        double merged_w = (double)merged_total * scale;
        if (merged && merged_w >= o->min_width &&
            !add_frame(l, (drawn_frame){item.node, merged, item.depth + 1, x, merged_w,
                                        merged_total, merged_base}))
            goto nomem;
    }
    goto done;
nomem:
    st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
done:
    free(work);
    free(children);
    return st;
}

/* Thread roots are not code: a grey-blue of their own, outside the categories' hues. */
static const pk_category_fill thread_fill = {{150, 160, 185}, {170, 180, 205}};

/* What a drawn frame is: a category of code, or a thread root, or neither (the root and
 * merged frames). */
typedef struct frame_kind {
    const pk_category_fill *fill;
    const char *name;     /* shown in the tooltip; "" for none */
    const char *resource; /* library or module of the code, NULL when unknown */
} frame_kind;

/* Category of every function of p: merging frames by function, a flame graph names a
 * function native when any of its frames runs at an address. NULL when out of memory. */
static uint8_t *function_categories(const pk_profile *p)
{
    size_t functions = pk_function_count(p), frames = pk_frame_count(p);
    uint8_t *category = calloc(functions ? functions : 1, 1);
    if (!category)
        return NULL;
    for (size_t i = 0; i < frames; i++) {
        const pk_frame *f = pk_frame_at(p, (uint32_t)i);
        if (f->flags & PK_FRAME_HAS_ADDRESS)
            category[f->function] = 1;
    }
    pk_category format_category = pk_profile_category(p);
    for (size_t i = 0; i < functions; i++)
        category[i] = (uint8_t)pk_function_category(p, (uint32_t)i, category[i] != 0,
                                                    format_category);
    return category;
}

static frame_kind node_kind(const pk_profile *p, const pk_calltree *tree, uint32_t node,
                            const uint8_t *categories)
{
    const pk_calltree_node *n = &tree->nodes[node];
    frame_kind kind = {pk_category_fill_of(PK_CATEGORY_OTHER), "", NULL};
    if (node == 0)
        return kind;
    if (n->thread != PK_NONE)
        return (frame_kind){&thread_fill, "thread", NULL};
    if (n->function == PK_NONE)
        return kind;
    pk_category c = (pk_category)categories[n->function];
    kind.fill = pk_category_fill_of(c);
    kind.name = pk_category_name(c);
    const pk_function *f = pk_function_at(p, n->function);
    if (f->resource != PK_NONE) {
        const pk_resource *r = pk_resource_at(p, f->resource);
        kind.resource = pk_str(p, r->name);
        if (!kind.resource[0])
            kind.resource = pk_str(p, r->path);
    }
    return kind;
}

/* One point between the fill's low and high colour, picked by the name: every channel moves
 * together, so frames keep their category's hue (a grey stays grey) and only the shade varies. */
static void fill_colour(const pk_category_fill *fill, const char *name, char *buf, size_t size)
{
    double t = (double)(pk_hash_bytes(name, strlen(name)) & 0xFFFF) / 65535.0;
    unsigned rgb[3];
    for (int c = 0; c < 3; c++)
        rgb[c] = fill->low[c] + (unsigned)(t * (fill->high[c] - fill->low[c]) + 0.5);
    snprintf(buf, size, "rgb(%u,%u,%u)", rgb[0], rgb[1], rgb[2]);
}

/* max_delta is the largest change of the frames above the root; the root, whose change is
 * the sum of theirs, takes the strongest colour too. */
static void differential_colour(double delta, double max_delta, char *buf, size_t size)
{
    double share = max_delta > 0 ? fabs(delta) / max_delta : 0;
    if (!(share <= 1))
        share = 1;
    unsigned fade = (unsigned)(255 - 205 * share);
    if (delta > 0)
        snprintf(buf, size, "rgb(255,%u,%u)", fade, fade);
    else if (delta < 0)
        snprintf(buf, size, "rgb(%u,%u,255)", fade, fade);
    else
        snprintf(buf, size, "rgb(250,250,250)");
}

/* The label drawn inside a frame: the name without a kind suffix (_[k] kernel, _[j] JIT,
 * _[i] inlined, _[w] waker), cut with ".." to what fits. */
static void write_label(pk_output *out, const char *full_name, double w)
{
    double room = (w - 6) / CHAR_WIDTH;
    if (room < 3)
        return;
    size_t fit = (size_t)room;
    size_t len = strlen(full_name);
    char *name = malloc(len + 3);
    if (!name)
        return;
    memcpy(name, full_name, len + 1);
    if (len > 4 && name[len - 4] == '_' && name[len - 3] == '[' && strchr("kjiw", name[len - 2]) &&
        name[len - 1] == ']')
        name[len - 4] = '\0';
    size_t have = pk_text_columns(name);
    if (have <= fit) {
        pk_out_xml_text(out, name);
        free(name);
        return;
    }
    /* Cut at a character boundary. */
    size_t keep = fit - 2, i = 0, seen = 0;
    for (; name[i]; i++) {
        if (((unsigned char)name[i] & 0xC0) != 0x80) {
            if (seen == keep)
                break;
            seen++;
        }
    }
    memcpy(name + i, "..", 3);
    pk_out_xml_text(out, name);
    free(name);
}

/* A name as drawn: a NUL byte (which XML cannot hold) as U+2400 SYMBOL FOR NULL. Returns the
 * model's string when it holds none, else a copy in *copy, which the caller frees; NULL when
 * memory runs out. */
static const char *drawn_name(const pk_profile *p, uint32_t id, char **copy)
{
    const char *s = pk_str(p, id);
    size_t len = pk_str_len(p, id), nuls = 0;
    *copy = NULL;
    for (size_t i = 0; i < len; i++)
        nuls += s[i] == '\0';
    if (nuls == 0)
        return s;
    char *d = malloc(len + 2 * nuls + 1);
    if (!d)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '\0') {
            memcpy(d + n, "\xe2\x90\x80", 3);
            n += 3;
        } else {
            d[n++] = s[i];
        }
    }
    d[n] = '\0';
    *copy = d;
    return d;
}

static void write_frame(pk_output *out, const pk_profile *p, const pk_calltree *tree,
                        const pk_flamegraph_options *o, const uint8_t *categories,
                        const drawn_frame *f, double y, int64_t root_total, double max_delta)
{
    char name_buf[64];
    char *name_copy = NULL;
    const char *name;
    if (f->merged) {
        snprintf(name_buf, sizeof name_buf, "(%u small frames)", (unsigned)f->merged);
        name = name_buf;
    } else if (f->node == 0) {
        name = "all";
    } else {
        /* A thread is shown by its display name, code by its name drawn whole. */
        name = tree->nodes[f->node].thread != PK_NONE
                   ? pk_calltree_name(tree, p, f->node)
                   : drawn_name(p, tree->nodes[f->node].name, &name_copy);
        if (!name)
            name = "?";
    }
    frame_kind kind = {pk_category_fill_of(PK_CATEGORY_OTHER), "", NULL};
    if (!f->merged)
        kind = node_kind(p, tree, f->node, categories);
    char colour[32], value[PK_VALUE_TEXT], percent[PK_VALUE_TEXT];
    double delta = (double)f->total - f->base;
    if (o->base_totals)
        differential_colour(delta, max_delta, colour, sizeof colour);
    else
        fill_colour(kind.fill, name, colour, sizeof colour);
    pk_value_text(value, sizeof value, (double)f->total, o->unit, false);
    pk_percent_text(percent, sizeof percent, (double)f->total, (double)root_total);

    /* The category is also an attribute, for scripts and style sheets that pick frames by it;
     * thread roots are not code but a class of their own. */
    if (kind.fill == &thread_fill) {
        pk_out_puts(out, "<g class=\"thread\"><title>");
    } else if (kind.name[0]) {
        pk_out_puts(out, "<g data-category=\"");
        pk_out_xml_text(out, kind.name);
        pk_out_puts(out, "\"><title>");
    } else {
        pk_out_puts(out, "<g><title>");
    }
    pk_out_xml_text(out, name);
    pk_out_puts(out, "\n");
    pk_out_xml_text(out, value);
    pk_out_printf(out, " (%s)", percent);
    if (o->base_totals) {
        char base[PK_VALUE_TEXT], change[PK_VALUE_TEXT];
        pk_value_text(base, sizeof base, f->base, o->unit, false);
        pk_value_text(change, sizeof change, delta, o->unit, true);
        pk_out_puts(out, "\nbase ");
        pk_out_xml_text(out, base);
        pk_out_puts(out, ", change ");
        pk_out_xml_text(out, change);
        if (f->base != 0)
            pk_out_printf(out, " (%+.1f%%)", 100.0 * delta / f->base);
        else if (delta != 0)
            pk_out_puts(out, " (new)");
    }
    if (kind.name[0] && !o->base_totals) {
        pk_out_putc(out, '\n');
        pk_out_puts(out, kind.name);
        if (kind.resource && kind.resource[0]) {
            pk_out_putc(out, ' ');
            pk_out_xml_text(out, kind.resource);
        }
    }
    pk_out_printf(out,
                  "</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
                  "fill=\"%s\"/>",
                  f->x, y, f->w, o->frame_height - 1, colour);
    /* Frames too narrow for a label get none; the script adds one when a zoom widens them. */
    if ((f->w - 6) / CHAR_WIDTH >= 3) {
        pk_out_printf(out, "<text x=\"%.2f\" y=\"%.1f\">", f->x + 3, y + o->frame_height - 5);
        write_label(out, name, f->w);
        pk_out_puts(out, "</text>");
    }
    pk_out_puts(out, "</g>\n");
    free(name_copy);
}

pk_status pk_flamegraph_write(const pk_profile *p, const pk_calltree *tree,
                              const pk_flamegraph_options *options, pk_output *out,
                              pk_error *err)
{
    pk_flamegraph_options o = *options;
    if (o.image_width <= 2 * PAD + 10)
        o.image_width = 1200;
    if (o.frame_height <= 4)
        o.frame_height = 16;
    if (o.min_width < 0)
        o.min_width = 0.1;
    if (!o.title)
        o.title = o.base_totals ? "Differential Flame Graph" : "Flame Graph";
    uint8_t *categories = function_categories(p);
    if (!categories)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    layout l;
    memset(&l, 0, sizeof l);
    int64_t root_total = tree->count ? tree->nodes[0].total : 0;
    bool empty = root_total <= 0;
    if (!empty) {
        double scale = (o.image_width - 2 * PAD) / (double)root_total;
        pk_status st = lay_out(&l, p, tree, scale, &o, err);
        if (st != PK_OK) {
            free(l.frames);
            free(categories);
            return st;
        }
    }
    double max_delta = 0;
    for (size_t i = 0; i < l.count; i++) {
        double d = fabs((double)l.frames[i].total - l.frames[i].base);
        if (i > 0 && d > max_delta)
            max_delta = d;
    }
    double graph_height = (double)(l.max_depth + 1) * o.frame_height;
    double height = TOP_MARGIN + graph_height + BOTTOM_MARGIN;
    /* y of depth 0: bottom row of a flame, top row of an icicle. */
    double root_y = o.inverted ? TOP_MARGIN : TOP_MARGIN + graph_height - o.frame_height;

    pk_out_puts(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
    pk_out_printf(out,
                  "<svg version=\"1.1\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
                  "xmlns=\"http://www.w3.org/2000/svg\">\n",
                  o.image_width, height, o.image_width, height);
    pk_out_puts(out, "<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" "
                     "x2=\"0\"><stop stop-color=\"#f4f4f8\" offset=\"5%\"/>"
                     "<stop stop-color=\"#e4e6f0\" offset=\"95%\"/></linearGradient></defs>\n");
    pk_out_printf(out, "<style>\n%s</style>\n", pk_flamegraph_style);
    pk_out_printf(out,
                  "<script><![CDATA[\nvar FG = {width: %.0f, pad: %.0f, frameHeight: %.1f, "
                  "rootY: %.1f, inverted: %s, charWidth: %.3f, matchColour: '%s'};\n%s]]></script>\n",
                  o.image_width, PAD, o.frame_height, root_y, o.inverted ? "true" : "false",
                  CHAR_WIDTH, MATCH_COLOUR, pk_flamegraph_script);
    pk_out_printf(out,
                  "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" "
                  "fill=\"url(#background)\"/>\n",
                  o.image_width, height);
    pk_out_printf(out, "<text id=\"title\" x=\"%.1f\" y=\"24\">", o.image_width / 2);
    pk_out_xml_text(out, o.title);
    pk_out_puts(out, "</text>\n");
    if (o.subtitle) {
        pk_out_printf(out, "<text id=\"subtitle\" x=\"%.1f\" y=\"44\">", o.image_width / 2);
        pk_out_xml_text(out, o.subtitle);
        pk_out_puts(out, "</text>\n");
    }
    pk_out_printf(out, "<text id=\"reset\" class=\"button hidden\" x=\"%.0f\" y=\"24\">"
                       "Reset zoom</text>\n", PAD);
    pk_out_printf(out, "<text id=\"search\" class=\"button\" x=\"%.0f\" y=\"24\" "
                       "text-anchor=\"end\">Search</text>\n", o.image_width - PAD);
    pk_out_printf(out, "<text id=\"matched\" x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\"></text>\n",
                  o.image_width - PAD, height - 12);
    pk_out_printf(out, "<text id=\"details\" x=\"%.0f\" y=\"%.0f\">%s</text>\n", PAD, height - 12,
                  empty ? "No samples" : " ");
    pk_out_puts(out, "<g id=\"frames\">\n");
    for (size_t i = 0; i < l.count && !pk_out_failed(out); i++) {
        const drawn_frame *f = &l.frames[i];
        double y = o.inverted ? root_y + f->depth * o.frame_height
                              : root_y - f->depth * o.frame_height;
        write_frame(out, p, tree, &o, categories, f, y, root_total, max_delta);
    }
    pk_out_puts(out, "</g>\n</svg>\n");
    free(l.frames);
    free(categories);
    return PK_OK;
}
