/* svg: an interactive flame graph of one value (write only). */
#include <stdio.h>
#include <string.h>

#include "analysis/flamegraph.h"
#include "analysis/units.h"
#include "profkit/calltree.h"
#include "core/output.h"
#include "formats/formats.h"

static const char *const svg_extensions[] = {".svg", NULL};

static const pk_option_spec svg_write_options[] = {
    {"inverted", NULL, "draw an icicle: callers at the top, callees below"},
    {"reverse", NULL, "merge stacks from the innermost frame: the callers of hot functions"},
    {"svg-width", "PIXELS", "image width (default 1200)"},
    {"svg-min-width", "PIXELS", "merge frames narrower than this (default 0.1)"},
    {NULL, NULL, NULL},
};

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
    pk_calltree tree;
    memset(&tree, 0, sizeof tree);
    pk_status st = pk_calltree_build(&tree, p, value, flags, NULL, NULL, err);
    if (st != PK_OK)
        return st;
    const pk_value_type *vt = pk_value_type_at(p, value);
    const char *unit = pk_str(p, vt->unit);
    char total[PK_VALUE_TEXT], subtitle[256];
    pk_value_text(total, sizeof total, tree.count ? (double)tree.nodes[0].total : 0, unit, false);
    const char *product = pk_str(p, pk_metadata_get(p)->product);
    snprintf(subtitle, sizeof subtitle, "%s%s%s%s, total %s%s%s", pk_str(p, vt->name),
             unit[0] ? " (" : "", unit, unit[0] ? ")" : "", total, product[0] ? " - " : "",
             product);
    fo.title = options->title;
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
    .probe = NULL,
    .read = NULL,
    .write = svg_write,
    .dump = NULL,
    .read_options = NULL,
    .write_options = svg_write_options,
};
