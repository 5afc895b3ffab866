/* The call tree, rooted at the bottom of the stack: each branch with its total, share and
 * self value, children heaviest first, small branches folded into one "more" line. */
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "analysis/report.h"
#include "analysis/stack_walk.h"
#include "analysis/units.h"
#include "profkit/calltree.h"

/* Deeper levels than this are not indented further in limited width; a depth label shows
 * where they are. */
#define TREE_MAX_INDENT_LEVELS 10

typedef enum walk_kind { WALK_NODE, WALK_CLOSE, WALK_MORE } walk_kind;

typedef struct walk_item {
    uint32_t node;
    uint32_t depth;      /* display depth: 0 for the first level */
    uint32_t position;   /* among the shown siblings */
    walk_kind kind;
    uint32_t more_count; /* hidden children (WALK_CLOSE, WALK_MORE) */
    int64_t more_total;
} walk_item;

typedef struct tree_walk {
    walk_item *items;
    size_t count;
    size_t capacity;
    uint32_t *children;
    size_t children_capacity;
} tree_walk;

static bool push(tree_walk *w, walk_item item)
{
    if (w->count == w->capacity) {
        size_t cap = w->capacity ? w->capacity * 2 : 256;
        walk_item *items = realloc(w->items, cap * sizeof *items);
        if (!items)
            return false;
        w->items = items;
        w->capacity = cap;
    }
    w->items[w->count++] = item;
    return true;
}

static int compare_children(const void *pa, const void *pb, void *context)
{
    const pk_calltree *tree = ((const void **)context)[0];
    const pk_profile *p = ((const void **)context)[1];
    const pk_calltree_node *a = &tree->nodes[*(const uint32_t *)pa];
    const pk_calltree_node *b = &tree->nodes[*(const uint32_t *)pb];
    if (a->total != b->total)
        return a->total > b->total ? -1 : 1;
    return strcmp(pk_str(p, a->name), pk_str(p, b->name));
}

/* Pushes the close marker, the "more" line and the shown children of node (heaviest first
 * popped first). */
static bool push_children(tree_walk *w, const pk_calltree *tree, const pk_profile *p,
                          uint32_t node, uint32_t depth, int64_t threshold, bool close)
{
    size_t n = 0;
    for (uint32_t c = tree->nodes[node].first_child; c != PK_NONE; c = tree->nodes[c].next_sibling) {
        if (n == w->children_capacity) {
            size_t cap = w->children_capacity ? w->children_capacity * 2 : 64;
            uint32_t *children = realloc(w->children, cap * sizeof *children);
            if (!children)
                return false;
            w->children = children;
            w->children_capacity = cap;
        }
        w->children[n++] = c;
    }
    const void *context[2] = {tree, p};
    if (n > 1)
        qsort_r(w->children, n, sizeof *w->children, compare_children, context);
    size_t shown = 0;
    uint32_t hidden = 0;
    int64_t hidden_total = 0;
    for (size_t i = 0; i < n; i++) {
        const pk_calltree_node *c = &tree->nodes[w->children[i]];
        if (c->total >= threshold && c->total != 0)
            shown++;
        else {
            hidden++;
            hidden_total += c->total;
        }
    }
    if (close && !push(w, (walk_item){node, depth, 0, WALK_CLOSE, hidden, hidden_total}))
        return false;
    if (!close && hidden &&
        !push(w, (walk_item){node, depth, (uint32_t)shown, WALK_MORE, hidden, hidden_total}))
        return false;
    for (size_t i = shown; i-- > 0;)
        if (!push(w, (walk_item){w->children[i], depth, (uint32_t)i, WALK_NODE, 0, 0}))
            return false;
    return true;
}

static void text_indent(pk_output *out, const pk_report_options *o, uint32_t depth)
{
    uint32_t levels = depth;
    if (o->width && levels > TREE_MAX_INDENT_LEVELS)
        levels = TREE_MAX_INDENT_LEVELS;
    for (uint32_t i = 0; i < levels; i++)
        pk_out_puts(out, "  ");
    if (levels < depth)
        pk_out_printf(out, "(%u) ", (unsigned)depth + 1);
}

static size_t indent_columns(const pk_report_options *o, uint32_t depth)
{
    if (o->width && depth > TREE_MAX_INDENT_LEVELS)
        return 2 * TREE_MAX_INDENT_LEVELS + 8;
    return 2 * (size_t)depth;
}

pk_status pk_report_tree(const pk_profile *p, const pk_report_options *o, pk_output *out,
                         pk_error *err)
{
    uint32_t value;
    pk_status st = pk_report_value(p, o->value, &value, err);
    if (st != PK_OK)
        return st;
    pk_thread_selection selection = {p, o->thread_pattern};
    /* One branch per thread when more than one thread has data. */
    size_t rows = pk_sample_count(p);
    uint32_t first_thread = PK_NONE;
    bool several_threads = false;
    for (size_t r = 0; r < rows && !several_threads; r++) {
        uint32_t t = pk_sample_thread(p, r);
        if (pk_sample_values(p, r)[value] == 0 || !pk_thread_selection_filter(&selection, t))
            continue;
        if (first_thread == PK_NONE)
            first_thread = t;
        else if (t != first_thread &&
                 strcmp(pk_str(p, pk_thread_at(p, t)->name),
                        pk_str(p, pk_thread_at(p, first_thread)->name)) != 0)
            several_threads = true;
    }
    pk_calltree tree;
    memset(&tree, 0, sizeof tree);
    st = pk_calltree_build(&tree, p, value, several_threads ? PK_CALLTREE_THREAD_ROOTS : 0,
                           pk_thread_selection_filter, &selection, err);
    if (st != PK_OK)
        return st;
    int64_t grand = tree.count ? tree.nodes[0].total : 0;
    double threshold_d = (double)grand * o->min_percent / 100.0;
    int64_t threshold = threshold_d > 0 ? (int64_t)threshold_d : 0;
    if (threshold_d > 0 && (double)threshold < threshold_d)
        threshold++;
    tree_walk w;
    memset(&w, 0, sizeof w);
    uint32_t root_hidden_count = 0;
    int64_t root_hidden_total = 0;
    const char *unit = pk_str(p, pk_value_type_at(p, value)->unit);

    if (o->json) {
        pk_report_json_begin(out, p, "tree", value, grand);
        pk_out_puts(out, "\"min_percent\":");
        pk_out_double(out, o->min_percent);
        pk_out_puts(out, ",\"roots\":[");
    } else {
        char total_text[PK_VALUE_TEXT];
        pk_value_text(total_text, sizeof total_text, (double)grand, unit, false);
        pk_report_value_label(out, p, value);
        pk_out_printf(out, ": total %s", total_text);
        if (o->min_percent > 0)
            pk_out_printf(out, "; branches under %g%% folded", o->min_percent);
        pk_out_puts(out, "\n     total  total%       self  call tree\n");
    }
    if (tree.count && !push_children(&w, &tree, p, 0, 0, threshold, false)) {
        st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
        goto done;
    }
    while (w.count && !pk_out_failed(out)) {
        walk_item item = w.items[--w.count];
        const pk_calltree_node *n = &tree.nodes[item.node];
        bool thread_node = several_threads && n->depth == 1;
        if (o->json) {
            if (item.kind == WALK_CLOSE) {
                pk_out_putc(out, ']');
                if (item.more_count) {
                    pk_out_printf(out, ",\"hidden_count\":%u,\"hidden_total\":",
                                  (unsigned)item.more_count);
                    pk_out_i64(out, item.more_total);
                }
                pk_out_putc(out, '}');
                continue;
            }
            if (item.kind == WALK_MORE) { /* only the first level has one in JSON */
                root_hidden_count = item.more_count;
                root_hidden_total = item.more_total;
                continue;
            }
            pk_out_puts(out, item.position ? ",{\"name\":" : "{\"name\":");
            pk_out_json_string(out, pk_str(p, n->name));
            if (thread_node)
                pk_out_puts(out, ",\"thread\":true");
            pk_out_puts(out, ",\"self\":");
            pk_out_i64(out, n->self);
            pk_out_puts(out, ",\"total\":");
            pk_out_i64(out, n->total);
            pk_out_puts(out, ",\"percent\":");
            pk_out_double(out, pk_percent((double)n->total, (double)grand));
            pk_out_puts(out, ",\"children\":[");
            if (!push_children(&w, &tree, p, item.node, item.depth + 1, threshold, true)) {
                st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
                goto done;
            }
            continue;
        }
        if (item.kind == WALK_MORE) {
            pk_report_value_cell(out, p, value, (double)item.more_total, 10);
            pk_out_putc(out, ' ');
            pk_report_percent_cell(out, (double)item.more_total, (double)grand, 7);
            pk_out_puts(out, "             ");
            text_indent(out, o, item.depth);
            pk_out_printf(out, "... %u more\n", (unsigned)item.more_count);
            continue;
        }
        pk_report_value_cell(out, p, value, (double)n->total, 10);
        pk_out_putc(out, ' ');
        pk_report_percent_cell(out, (double)n->total, (double)grand, 7);
        pk_out_putc(out, ' ');
        pk_report_value_cell(out, p, value, (double)n->self, 10);
        pk_out_puts(out, "  ");
        text_indent(out, o, item.depth);
        size_t name_columns = pk_report_name_columns(o, 31 + indent_columns(o, item.depth));
        if (thread_node) {
            pk_out_putc(out, '[');
            pk_out_shortened(out, pk_str(p, n->name), name_columns > 2 ? name_columns - 2 : 1);
            pk_out_putc(out, ']');
        } else {
            pk_out_shortened(out, pk_str(p, n->name), name_columns);
        }
        pk_out_putc(out, '\n');
        if (!push_children(&w, &tree, p, item.node, item.depth + 1, threshold, false)) {
            st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
            goto done;
        }
    }
    if (o->json) {
        pk_out_putc(out, ']');
        if (root_hidden_count) {
            pk_out_printf(out, ",\"hidden_count\":%u,\"hidden_total\":", (unsigned)root_hidden_count);
            pk_out_i64(out, root_hidden_total);
        }
        pk_out_puts(out, "}\n");
    }
done:
    free(w.items);
    free(w.children);
    pk_calltree_free(&tree);
    return st;
}
