/* SPDX-License-Identifier: MIT */
/* svg: an interactive flame graph of one value, or the differential flame graph of a
 * differential profile (write only). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/differential.h"
#include "analysis/flamegraph.h"
#include "analysis/units.h"
#include "profkit/calltree.h"
#include "core/output.h"
#include "core/title.h"
#include "formats/formats.h"
#include "profkit/diff.h"

static const char *const svg_extensions[] = {".svg", NULL};

static const pk_option_spec svg_write_options[] = {
    {"inverted", NULL, "draw an icicle: callers at the top, callees below"},
    {"reverse", NULL, "merge stacks from the innermost frame: the callers of hot functions"},
    {"svg-width", "PIXELS", "image width (default 1200)"},
    {"svg-min-width", "PIXELS", "merge frames narrower than this (default 0.1)"},
    {NULL, NULL, NULL},
};

/* Widths by the new value, each frame coloured by its change from the base: red where it grew,
 * blue where it shrank. */
static pk_status write_differential(const pk_profile *p, unsigned flags,
                                    pk_flamegraph_options *fo, pk_output *out, pk_error *err)
{
    pk_calltree base_tree, new_tree;
    pk_status st = pk_differential_trees(p, flags, &base_tree, &new_tree, err);
    if (st != PK_OK)
        return st;
    double *base_totals = malloc((new_tree.count ? new_tree.count : 1) * sizeof *base_totals);
    if (!base_totals) {
        st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
        goto done;
    }
    for (uint32_t i = 0; i < new_tree.count; i++)
        base_totals[i] = (double)base_tree.nodes[i].total;
    const char *unit = pk_str(p, pk_value_type_at(p, PK_DIFF_NEW)->unit);
    bool normalized;
    pk_differential_base_scale(p, &normalized);
    char base_text[PK_VALUE_TEXT], new_text[PK_VALUE_TEXT], subtitle[256];
    pk_value_text(base_text, sizeof base_text, (double)base_tree.nodes[0].total, unit, false);
    pk_value_text(new_text, sizeof new_text, (double)new_tree.nodes[0].total, unit, false);
    const char *value_name = pk_differential_value_name(p);
    snprintf(subtitle, sizeof subtitle,
             "%s%sbase %s, new %s%s; width by new, red grew, blue shrank", value_name,
             value_name[0] ? ": " : "", base_text, new_text,
             normalized ? " (base normalised)" : "");
    fo->subtitle = subtitle;
    fo->unit = unit;
    fo->base_totals = base_totals;
    st = pk_flamegraph_write(p, &new_tree, fo, out, err);
    fo->subtitle = NULL; /* the text lives in this frame */
done:
    free(base_totals);
    pk_calltree_free(&base_tree);
    pk_calltree_free(&new_tree);
    return st;
}

static pk_status svg_write(const pk_profile *p, pk_output *out, const pk_write_options *options,
                           pk_error *err)
{
    if (pk_value_type_count(p) == 0)
        return pk_error_set(err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                            "the profile has no values to draw");
    uint32_t value = options->value == PK_NONE ? pk_default_value(p) : options->value;
    if (value >= pk_value_type_count(p))
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET, "no value type number %u",
                            (unsigned)value);
    const pk_option_list *extra = &options->extra;
    pk_flamegraph_options fo;
    pk_flamegraph_options_init(&fo);
    fo.inverted = pk_option_get(extra, "inverted") != NULL;
    fo.thread_roots = options->with_threads;
    const char *width = pk_option_get(extra, "svg-width");
    if (width) {
        double w;
        char tail;
        if (sscanf(width, "%lf%c", &w, &tail) != 1 || !(w >= 100 && w <= 100000))
            return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET,
                                "--svg-width takes a number of pixels from 100 to 100000");
        fo.image_width = w;
    }
    const char *min_width = pk_option_get(extra, "svg-min-width");
    if (min_width) {
        double w;
        char tail;
        if (sscanf(min_width, "%lf%c", &w, &tail) != 1 || !(w >= 0 && w <= 100))
            return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET,
                                "--svg-min-width takes a number of pixels from 0 to 100");
        fo.min_width = w;
    }
    unsigned flags = 0;
    if (fo.thread_roots)
        flags |= PK_CALLTREE_THREAD_ROOTS;
    if (pk_option_get(extra, "reverse"))
        flags |= PK_CALLTREE_INVERTED;
    fo.title = options->title;
    if (pk_is_differential(p))
        return write_differential(p, flags, &fo, out, err);
    pk_calltree tree;
    pk_status st = pk_calltree_build(&tree, p, value, flags, NULL, NULL, err);
    if (st != PK_OK)
        return st;
    const pk_value_type *vt = pk_value_type_at(p, value);
    const char *unit = pk_str(p, vt->unit);
    char total[PK_VALUE_TEXT], subtitle[256];
    pk_value_text(total, sizeof total, tree.count ? (double)tree.nodes[0].total : 0, unit, false);
    const char *product = pk_profile_title(p);
    if (!product)
        product = "";
    snprintf(subtitle, sizeof subtitle, "%s%s%s%s, total %s%s%s", pk_str(p, vt->name),
             unit[0] ? " (" : "", unit, unit[0] ? ")" : "", total, product[0] ? " - " : "",
             product);
    fo.subtitle = subtitle;
    fo.unit = unit;
    st = pk_flamegraph_write(p, &tree, &fo, out, err);
    pk_calltree_free(&tree);
    return st;
}

const pk_format pk_format_svg = {
    .name = "svg",
    .aliases = NULL,
    .extensions = svg_extensions,
    .description = "interactive SVG flame graph (write only)",
    .flags = PK_FORMAT_POSITIVE_WEIGHTS,
    .probe = NULL,
    .read = NULL,
    .write = svg_write,
    .dump = NULL,
    .read_options = NULL,
    .write_options = svg_write_options,
};
