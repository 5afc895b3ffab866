/* SPDX-License-Identifier: MIT */
/* valgrind massif's heap profile (massif.out.PID, ms_print's input). Documented in
 * docs/formats/massif.md.
 *
 * A header (`desc:`, `cmd:`, `time_unit:`), then snapshots: `snapshot=N`, `time=`, `mem_heap_B=`,
 * `mem_heap_extra_B=`, `mem_stacks_B=`, `heap_tree=empty|detailed|peak` and, for detailed and
 * peak snapshots, an allocation tree: one node a line, indented one blank per level,
 * `nK: BYTES NAME` with K its number of children. The root is the allocation functions; every
 * node below it is a caller of its parent, so a node's path from the root, reversed, is a stack,
 * and its own bytes are its bytes minus its children's.
 *
 * Values (the memory vocabulary of core/memory_values.h): `inuse_space`, the tree of the last
 * detailed or peak snapshot (what was live the last time massif looked closely), and
 * `peak_space`, the peak snapshot's tree. Each tree is gathered whole before it is added, so a
 * file cut inside a tree keeps only the trees it completed. Every snapshot's totals are
 * summarised as properties (the model has no counter track for memory over time).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/arith.h"
#include "core/array.h"
#include "core/damage.h"
#include "core/input.h"
#include "core/memory_values.h"
#include "core/text_lines.h"
#include "formats/formats.h"
#include "formats/valgrind_frames.h"
#include "profkit/counters.h"

#define MASSIF_MAX_LINE (1u << 20)
/* massif's --depth is at most 200; a deeper tree is no massif's. */
#define MASSIF_MAX_DEPTH 1000u

static const char *const massif_extensions[] = {".massif", NULL};

static bool starts(const char *s, size_t n, const char *prefix)
{
    size_t k = strlen(prefix);
    return n >= k && memcmp(s, prefix, k) == 0;
}

/* massif.out files start with `desc:`, then `cmd:` and `time_unit:`. */
static int massif_probe(const uint8_t *data, size_t size)
{
    if (pk_text_has_utf8_bom(data, size)) {
        data += 3;
        size -= 3;
    }
    const char *text = (const char *)data;
    if (!starts(text, size, "desc:"))
        return PK_PROBE_NO;
    const char *unit = NULL;
    for (size_t i = 0; i + 1 < size; i++)
        if (text[i] == '\n' && starts(text + i + 1, size - i - 1, "time_unit:")) {
            unit = text + i + 1;
            break;
        }
    bool cmd = false;
    for (size_t i = 0; i + 1 < size; i++)
        if (text[i] == '\n' && starts(text + i + 1, size - i - 1, "cmd:"))
            cmd = true;
    if (unit && cmd)
        return PK_PROBE_CERTAIN;
    return cmd || size < 256 ? PK_PROBE_WEAK : PK_PROBE_NO;
}

/* One node of the tree being read: the frame, its bytes and what its children came to. */
typedef struct massif_open_node {
    uint32_t frame;         /* PK_NONE for the root */
    int64_t bytes;
    int64_t children_bytes;
    uint64_t children_left; /* declared children not yet seen */
} massif_open_node;

/* A stack and its own bytes, kept until its tree is complete. */
typedef struct massif_row {
    uint32_t stack;
    int64_t bytes;
} massif_row;

typedef struct massif_rows {
    massif_row *items;
    size_t count, capacity;
} massif_rows;

typedef struct massif_snapshot {
    bool seen;
    uint64_t number;
    int64_t time, heap, extra, stacks;
    bool has_time, has_heap, has_extra, has_stacks;
    int tree; /* 0 none yet, 1 empty, 2 detailed, 3 peak */
} massif_snapshot;

typedef struct massif_reader {
    pk_profile *p;
    pk_text_lines lines;
    massif_snapshot snap;        /* the snapshot being read */
    massif_open_node *path;      /* the tree's nodes from the root to the current one */
    size_t depth, path_capacity;
    uint32_t *frames;            /* a stack, root first, being interned */
    size_t frames_capacity;
    bool in_tree;
    massif_rows tree;            /* the rows of the tree being read */
    massif_rows last, peak;      /* the last complete detailed tree, the peak's */
    bool have_last, have_peak;
    massif_snapshot last_snap, peak_snap, final_snap;
    uint64_t snapshots, detailed;
    int64_t max_total;           /* the largest heap + extra + stacks */
    uint64_t max_total_snapshot;
    uint64_t negative;           /* nodes whose children outweigh them */
    char time_unit[16];
    uint32_t thread;             /* "heap", made at the first snapshot; PK_NONE before */
    uint32_t counter;            /* the memory over time, PK_NONE before the first snapshot */
} massif_reader;

static bool rows_add(massif_rows *rows, uint32_t stack, int64_t bytes)
{
    if (!PK_ARRAY_RESERVE(rows->items, rows->capacity, rows->count + 1))
        return false;
    rows->items[rows->count++] = (massif_row){stack, bytes};
    return true;
}

static void rows_take(massif_rows *to, massif_rows *from)
{
    massif_rows old = *to;
    *to = *from;
    old.count = 0;
    *from = old;
}

/* Parses a decimal integer >= 0 that fits int64 from [s, s + n); *used receives its length. */
static bool parse_u63(const char *s, size_t n, int64_t *out, size_t *used)
{
    size_t i = 0;
    uint64_t v = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9') {
        unsigned d = (unsigned)(s[i] - '0');
        if (v > ((uint64_t)INT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
        i++;
    }
    if (i == 0)
        return false;
    *out = (int64_t)v;
    *used = i;
    return true;
}

static bool parse_field(const char *s, size_t n, const char *key, int64_t *out, bool *has)
{
    size_t k = strlen(key), used = 0;
    if (!starts(s, n, key))
        return false;
    if (!parse_u63(s + k, n - k, out, &used) || k + used != n)
        return false;
    *has = true;
    return true;
}

/* The node at the top of the path is complete: its own bytes go to its stack. */
static bool close_node(massif_reader *r)
{
    massif_open_node *node = &r->path[r->depth - 1];
    int64_t own = node->bytes - node->children_bytes;
    if (r->depth > 1) {
        r->path[r->depth - 2].children_bytes += node->bytes;
        if (own < 0) {
            r->negative++;
        } else if (own > 0) {
            size_t k = r->depth - 1;
            if (!PK_ARRAY_RESERVE(r->frames, r->frames_capacity, k))
                return false;
            for (size_t i = 0; i < k; i++)
                r->frames[i] = r->path[r->depth - 1 - i].frame;
            uint32_t stack = pk_intern_stack_frames(r->p, PK_NONE, r->frames, k);
            if (stack == PK_NONE || !rows_add(&r->tree, stack, own))
                return false;
        }
    }
    r->depth--;
    return true;
}

/* The tree just read is whole: it becomes the last detailed tree, and the peak's. */
static bool keep_tree(massif_reader *r)
{
    if (r->snap.tree == 3) {
        massif_rows copy = {0};
        for (size_t i = 0; i < r->tree.count; i++)
            if (!rows_add(&copy, r->tree.items[i].stack, r->tree.items[i].bytes)) {
                free(copy.items);
                return false;
            }
        free(r->peak.items);
        r->peak = copy;
        r->have_peak = true;
        r->peak_snap = r->snap;
    }
    rows_take(&r->last, &r->tree);
    r->tree.count = 0;
    r->have_last = true;
    r->last_snap = r->snap;
    r->detailed++;
    return true;
}

typedef enum line_outcome { LINE_OK, LINE_BAD, LINE_NOMEM } line_outcome;

/* A node line: blanks (its depth), `nK: BYTES NAME`. */
static line_outcome tree_line(massif_reader *r, const char *s, size_t n, const char **why)
{
    size_t indent = 0;
    while (indent < n && s[indent] == ' ')
        indent++;
    int64_t children = 0, bytes = 0;
    size_t used = 0, i = indent;
    if (i >= n || s[i] != 'n' || !parse_u63(s + i + 1, n - i - 1, &children, &used)) {
        *why = "is not a tree node (nK: BYTES NAME)";
        return LINE_BAD;
    }
    i += 1 + used;
    if (i + 1 >= n || s[i] != ':' || s[i + 1] != ' ' ||
        !parse_u63(s + i + 2, n - i - 2, &bytes, &used)) {
        *why = "is not a tree node (nK: BYTES NAME)";
        return LINE_BAD;
    }
    i += 2 + used;
    if (i < n && s[i] == ' ')
        i++;
    if (indent != r->depth) {
        *why = "is not where its tree's declared children put it";
        return LINE_BAD;
    }
    if (indent >= MASSIF_MAX_DEPTH) {
        *why = "is deeper than any massif tree (1000 levels)";
        return LINE_BAD;
    }
    uint32_t frame = PK_NONE;
    if (indent > 0) {
        frame = pk_valgrind_frame(r->p, s + i, n - i);
        if (frame == PK_NONE)
            return LINE_NOMEM;
        r->path[r->depth - 1].children_left--;
    }
    if (!PK_ARRAY_RESERVE(r->path, r->path_capacity, r->depth + 1))
        return LINE_NOMEM;
    r->path[r->depth++] = (massif_open_node){frame, bytes, 0, (uint64_t)children};
    /* Close every node whose children are all seen. */
    while (r->depth > 0 && r->path[r->depth - 1].children_left == 0) {
        if (!close_node(r))
            return LINE_NOMEM;
    }
    if (r->depth == 0) {
        r->in_tree = false;
        if (!keep_tree(r))
            return LINE_NOMEM;
    }
    return LINE_OK;
}

/* The thread that holds the trees and the counter of memory over time, made once. */
static bool make_thread(massif_reader *r)
{
    if (r->thread == PK_NONE)
        r->thread = pk_add_thread(r->p, pk_intern_cstr(r->p, "heap"), -1, -1);
    return r->thread != PK_NONE;
}

/* The counter's time for a snapshot time in the file's unit: milliseconds are time; the other
 * units (instructions, bytes allocated) count one a nanosecond, as its description says. */
static int64_t counter_time(const massif_reader *r, int64_t time)
{
    if (strcmp(r->time_unit, "ms") == 0)
        return pk_mul_saturating(time, 1000000);
    return time;
}

static bool add_counter(massif_reader *r)
{
    const char *unit = strcmp(r->time_unit, "i") == 0   ? "instructions executed"
                       : strcmp(r->time_unit, "B") == 0 ? "bytes allocated and freed"
                       : strcmp(r->time_unit, "ms") == 0 ? "milliseconds"
                                                         : NULL;
    char description[256];
    if (unit && strcmp(r->time_unit, "ms") != 0)
        snprintf(description, sizeof description,
                 "heap, extra-heap and stack bytes at each massif snapshot; time is %s, one a "
                 "nanosecond",
                 unit);
    else if (unit)
        snprintf(description, sizeof description,
                 "heap, extra-heap and stack bytes at each massif snapshot");
    else
        snprintf(description, sizeof description,
                 "heap, extra-heap and stack bytes at each massif snapshot; time in the file's "
                 "unit '%s', one a nanosecond",
                 r->time_unit);
    r->counter = pk_add_counter(r->p, "massif", description, "bytes", r->thread);
    return r->counter != PK_NONE;
}

/* The snapshot just ended: its totals count, and they are the memory at its time. */
static bool end_snapshot(massif_reader *r)
{
    if (!r->snap.seen || r->snap.tree == 0 || r->in_tree)
        return true;
    r->snapshots++;
    r->final_snap = r->snap;
    int64_t total = pk_add_saturating(pk_add_saturating(r->snap.heap, r->snap.extra),
                                      r->snap.stacks);
    if (r->snapshots == 1 || total > r->max_total) {
        r->max_total = total;
        r->max_total_snapshot = r->snap.number;
    }
    if (!make_thread(r) || (r->counter == PK_NONE && !add_counter(r)))
        return false;
    /* A snapshot before the one ahead of it (not massif's output) stays out of the counter. */
    pk_status added = pk_counter_append(r->p, r->counter, counter_time(r, r->snap.time), total);
    return added == PK_OK || added == PK_ERR_USAGE;
}

static line_outcome header_property(massif_reader *r, const char *key, const char *s, size_t n)
{
    while (n > 0 && *s == ' ') {
        s++;
        n--;
    }
    uint32_t value = pk_intern(r->p, s, n);
    if (value == PK_NONE || pk_property_set(r->p, key, pk_str(r->p, value)) != PK_OK)
        return LINE_NOMEM;
    if (strcmp(key, "massif.cmd") == 0)
        pk_metadata_of(r->p)->product = value;
    if (strcmp(key, "massif.time_unit") == 0) {
        size_t k = n < sizeof r->time_unit - 1 ? n : sizeof r->time_unit - 1;
        memcpy(r->time_unit, s, k);
        r->time_unit[k] = '\0';
    }
    return LINE_OK;
}

static line_outcome read_line(massif_reader *r, const char *s, size_t n, const char **why)
{
    if (r->in_tree)
        return tree_line(r, s, n, why);
    if (memchr(s, '\0', n)) {
        *why = "holds a NUL byte";
        return LINE_BAD;
    }
    if (n == 0 || s[0] == '#')
        return LINE_OK;
    if (starts(s, n, "desc:"))
        return header_property(r, "massif.desc", s + 5, n - 5);
    if (starts(s, n, "cmd:"))
        return header_property(r, "massif.cmd", s + 4, n - 4);
    if (starts(s, n, "time_unit:"))
        return header_property(r, "massif.time_unit", s + 10, n - 10);
    int64_t number = 0;
    bool has = false;
    if (parse_field(s, n, "snapshot=", &number, &has)) {
        if (!end_snapshot(r))
            return LINE_NOMEM;
        r->snap = (massif_snapshot){.seen = true, .number = (uint64_t)number};
        return LINE_OK;
    }
    if (!r->snap.seen) {
        *why = "comes before the first snapshot and is no header line";
        return LINE_BAD;
    }
    if (parse_field(s, n, "time=", &r->snap.time, &r->snap.has_time) ||
        parse_field(s, n, "mem_heap_B=", &r->snap.heap, &r->snap.has_heap) ||
        parse_field(s, n, "mem_heap_extra_B=", &r->snap.extra, &r->snap.has_extra) ||
        parse_field(s, n, "mem_stacks_B=", &r->snap.stacks, &r->snap.has_stacks))
        return LINE_OK;
    if (starts(s, n, "heap_tree=")) {
        const char *kind = s + 10;
        size_t k = n - 10;
        if (k == 5 && memcmp(kind, "empty", 5) == 0) {
            r->snap.tree = 1;
        } else if ((k == 8 && memcmp(kind, "detailed", 8) == 0) ||
                   (k == 4 && memcmp(kind, "peak", 4) == 0)) {
            r->snap.tree = k == 4 ? 3 : 2;
            r->in_tree = true;
            r->depth = 0;
            r->tree.count = 0;
        } else {
            *why = "names no heap tree kind (empty, detailed, peak)";
            return LINE_BAD;
        }
        return LINE_OK;
    }
    *why = "is no massif line (snapshot=, time=, mem_heap_B=, mem_heap_extra_B=, "
           "mem_stacks_B=, heap_tree=)";
    return LINE_BAD;
}

static bool set_number(pk_profile *p, const char *key, int64_t v)
{
    char text[32];
    snprintf(text, sizeof text, "%" PRId64, v);
    return pk_property_set(p, key, text) == PK_OK;
}

static bool add_rows(massif_reader *r, uint32_t thread, const massif_rows *rows, uint32_t value)
{
    for (size_t i = 0; i < rows->count; i++)
        if (pk_add_sample_value(r->p, thread, rows->items[i].stack, value, rows->items[i].bytes) !=
            PK_OK)
            return false;
    return true;
}

/* The values, rows and summary properties of what was read. */
static bool finish(massif_reader *r)
{
    pk_profile *p = r->p;
    uint32_t inuse = pk_add_value_type(p, PK_MEMORY_INUSE_SPACE, PK_MEMORY_SPACE_UNIT);
    uint32_t peak = pk_add_value_type(p, PK_MEMORY_PEAK_SPACE, PK_MEMORY_SPACE_UNIT);
    if (inuse == PK_NONE || peak == PK_NONE || !make_thread(r))
        return false;
    uint32_t thread = r->thread;
    pk_set_default_value(p, inuse);
    if (!add_rows(r, thread, &r->last, inuse) || !add_rows(r, thread, &r->peak, peak))
        return false;
    bool ok = set_number(p, "massif.snapshots", (int64_t)r->snapshots) &&
              set_number(p, "massif.detailed_snapshots", (int64_t)r->detailed);
    if (ok && r->snapshots > 0)
        ok = set_number(p, "massif.max_total_B", r->max_total) &&
             set_number(p, "massif.max_total_snapshot", (int64_t)r->max_total_snapshot) &&
             set_number(p, "massif.final_heap_B", r->final_snap.heap) &&
             set_number(p, "massif.final_time", r->final_snap.time);
    if (ok && r->have_last)
        ok = set_number(p, "massif.inuse_snapshot", (int64_t)r->last_snap.number) &&
             set_number(p, "massif.inuse_time", r->last_snap.time) &&
             set_number(p, "massif.inuse_heap_extra_B", r->last_snap.extra) &&
             set_number(p, "massif.inuse_stacks_B", r->last_snap.stacks);
    if (ok && r->have_peak)
        ok = set_number(p, "massif.peak_snapshot", (int64_t)r->peak_snap.number) &&
             set_number(p, "massif.peak_time", r->peak_snap.time) &&
             set_number(p, "massif.peak_heap_extra_B", r->peak_snap.extra) &&
             set_number(p, "massif.peak_stacks_B", r->peak_snap.stacks);
    if (!ok)
        return false;
    if (r->negative)
        pk_warn(p, "massif: %" PRIu64 " tree node%s whose children outweigh %s: no own bytes",
                r->negative, r->negative == 1 ? "" : "s", r->negative == 1 ? "it" : "them");
    return true;
}

static pk_status massif_read(pk_input *in, pk_profile *p, const pk_read_options *options,
                             pk_error *err)
{
    (void)options;
    massif_reader r;
    memset(&r, 0, sizeof r);
    r.p = p;
    r.thread = r.counter = PK_NONE;
    pk_text_lines_init(&r.lines, in, MASSIF_MAX_LINE);
    pk_status status = PK_OK;
    bool header = false, damaged = false;
    for (;;) {
        const char *text = NULL;
        size_t len = 0;
        pk_text_line_result got = pk_text_lines_next(&r.lines, &text, &len);
        if (got == PK_TEXT_END)
            break;
        if (got == PK_TEXT_NOMEM)
            goto nomem;
        if (got == PK_TEXT_TOO_LONG) {
            status = pk_damage(err, r.lines.offset, "line %" PRIu64 " is longer than 1 MiB",
                               r.lines.number);
            damaged = true;
            break;
        }
        if (r.lines.number == 1 && !starts(text, len, "desc:")) {
            status = pk_error_set(err, PK_ERR_INPUT, 0,
                                  "not a massif profile: line 1 is not `desc: ...`");
            break;
        }
        header = true;
        if (r.lines.unterminated) {
            /* massif ends every line: a last line without its end was cut */
            status = pk_damage(err, r.lines.offset, "line %" PRIu64 " is cut short (no line end)",
                               r.lines.number);
            damaged = true;
            break;
        }
        const char *why = NULL;
        line_outcome outcome = read_line(&r, text, len, &why);
        if (outcome == LINE_NOMEM)
            goto nomem;
        if (outcome == LINE_BAD) {
            status = pk_damage(err, r.lines.offset, "line %" PRIu64 " %s", r.lines.number, why);
            damaged = true;
            break;
        }
    }
    if (status == PK_OK && !header)
        status = pk_error_set(err, PK_ERR_INPUT, 0, "not a massif profile: it is empty");
    if (status == PK_OK && r.in_tree && !pk_in_error(in)) {
        status = pk_damage(err, pk_in_offset(in),
                           "the file ends inside snapshot %" PRIu64 "'s heap tree (cut short?)",
                           r.snap.number);
        damaged = true;
    }
    if (status == PK_OK || damaged) {
        /* a snapshot counts once its heap_tree line is read, a tree once it is whole */
        if ((!r.in_tree && !end_snapshot(&r)) || !finish(&r))
            goto nomem;
    }
    pk_text_lines_free(&r.lines);
    free(r.path);
    free(r.frames);
    free(r.tree.items);
    free(r.last.items);
    free(r.peak.items);
    return status;
nomem:
    pk_text_lines_free(&r.lines);
    free(r.path);
    free(r.frames);
    free(r.tree.items);
    free(r.last.items);
    free(r.peak.items);
    return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
}

const pk_format pk_format_massif = {
    .name = "massif",
    .aliases = NULL,
    .extensions = massif_extensions,
    .description = "valgrind's massif heap profile (massif.out.PID; ms_print, massif-visualizer)",
    .flags = PK_FORMAT_TEXT | PK_FORMAT_POSITIVE_WEIGHTS,
    .probe = massif_probe,
    .read = massif_read,
};
