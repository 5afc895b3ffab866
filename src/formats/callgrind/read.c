/* SPDX-License-Identifier: MIT */
/* The callgrind reader: the lines of a callgrind file into a call graph (graph.h), then the
 * graph into stacks. Documented in docs/formats/callgrind.md.
 *
 * Lines are streamed through the shared line reader; a cost line adds to a function's self
 * cost at its position or to a call edge, so memory grows with the distinct functions,
 * positions and calls, never with the number of lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/arith.h"
#include "core/damage.h"
#include "core/hashmap.h"
#include "core/input.h"
#include "core/path.h"
#include "core/text_lines.h"
#include "core/units.h"
#include "formats/callgrind/callgrind.h"
#include "formats/callgrind/codec.h"
#include "formats/callgrind/graph.h"

/* Longest line taken: names of C++ templates make long fn= lines, never megabytes. */
#define CG_MAX_LINE ((size_t)16 << 20)
#define CG_MAX_LINE_TEXT "16 MiB"
/* Most events an `events:` line may list: the model keeps them all (parts naming other
 * events may add up to more, beyond which the model keeps the first PK_MAX_VALUES). */
#define CG_MAX_COLUMNS PK_MAX_VALUES

/* An event's value: Xdebug writes `Time_(10ns)` and `Memory_(bytes)`, a name and a unit with
 * an optional multiplier; callgrind's events (Ir, Dr, I1mr, ...) are counts. */
typedef struct event_kind {
    size_t name_len;   /* of the name without the unit */
    const char *unit;  /* canonical unit, "count" for counts */
    int64_t scale;     /* what one written unit is in the canonical unit */
} event_kind;

/* `event: NAME : LONG NAME` (callgrind's own sysTime has one, and profkit writes one per time
 * or size event): a long name that ends in `(UNIT)` gives the event NAME that unit, so that
 * the event's name stays plain for callgrind_annotate and KCachegrind. */
typedef struct event_unit {
    uint32_t name;
    event_kind kind;
} event_unit;

typedef enum pending {
    PENDING_NONE,
    PENDING_CALL, /* after calls=: the call's cost line */
    PENDING_JUMP  /* after jump= or jcnd=: the jump's position line */
} pending;

typedef struct cg_reader {
    pk_profile *p;
    pk_text_lines lines;
    cg_graph graph;
    cg_names names;
    cg_positions positions;
    /* Values: every event name met, in order, at most PK_MAX_VALUES. */
    unsigned values;
    uint32_t value_name[PK_MAX_VALUES];
    const char *value_unit[PK_MAX_VALUES];
    int64_t value_scale[PK_MAX_VALUES];
    uint64_t dropped_events;
    uint32_t first_dropped;
    /* Units from `event:` lines, at most one per value the model holds. */
    event_unit event_units[PK_MAX_VALUES];
    unsigned event_unit_count;
    /* The current part's `events:` columns and what they sum to. */
    unsigned columns;
    uint32_t column_value[CG_MAX_COLUMNS]; /* PK_NONE: an event beyond the model's values */
    uint64_t sums[CG_MAX_COLUMNS];
    uint64_t summary[CG_MAX_COLUMNS], totals[CG_MAX_COLUMNS];
    bool have_summary, have_totals, part_has_costs;
    bool summary_first; /* summary: came before the cost lines, as callgrind writes it: then
                         * totals: ends the part, and a part without it is cut */
    uint64_t part;
    /* Threads: `thread: N` -> model thread. */
    pk_u64map threads;
    uint64_t thread_key;
    bool thread_given;
    uint32_t thread; /* model thread of thread_key, PK_NONE until needed */
    int64_t pid;
    /* Body state. */
    uint32_t object, file, node;   /* current ob=, fl/fi/fe=, fn= (node), PK_NONE when unset */
    uint32_t call_object, call_file, call_name; /* cob=, cfi=, cfn= for the next call */
    uint32_t last_callee; /* the node of the block's last call: a calls= without a cfn= of its
                           * own calls it again, as KCachegrind and callgrind_annotate read */
    pending pending;
    uint64_t calls;
    uint64_t pending_line;
    uint64_t ignored_specs; /* unknown `key=value` lines */
    /* `(N)` used without a definition before it: read as the name `(N)`, with a warning. */
    uint64_t undefined_names;
    uint64_t first_undefined_line;
    uint32_t first_undefined_name;
    cg_namespace first_undefined_namespace;
    bool from_callgrind; /* `creator: callgrind...`: every part ends with totals: */
} cg_reader;

static bool is_ident(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-' || c == '.';
}

static bool starts_cost_line(char c)
{
    return (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '*';
}

/* Damage at the current line: "line N: what". */
static pk_status line_damage(cg_reader *r, pk_error *err, const char *what)
{
    return pk_damage(err, r->lines.offset, "line %llu: %s", (unsigned long long)r->lines.number,
                     what);
}

/* ---- values ------------------------------------------------------------------------------ */


/* The unit of a text `(UNIT)` or `(NUNIT)` (a multiplier N, Xdebug's `10ns`) at
 * text[0..len): false when it is not one profkit knows as a time or a size. */
static bool unit_in_parentheses(const char *text, size_t len, event_kind *k)
{
    if (len < 3 || text[0] != '(' || text[len - 1] != ')')
        return false;
    const char *unit = text + 1;
    size_t unit_len = len - 2;
    int64_t multiplier = 0;
    size_t i = 0;
    while (i < unit_len && unit[i] >= '0' && unit[i] <= '9' && multiplier < 1000000)
        multiplier = multiplier * 10 + (unit[i++] - '0');
    char name[32];
    if (unit_len - i == 0 || unit_len - i >= sizeof name)
        return false;
    memcpy(name, unit + i, unit_len - i);
    name[unit_len - i] = '\0';
    pk_unit_info info = pk_unit_lookup(name);
    if (info.kind == PK_UNIT_OTHER || !info.canonical)
        return false;
    k->unit = info.canonical;
    k->scale = i > 0 && multiplier > 0 ? multiplier : 1;
    return true;
}

static event_kind event_kind_of(const char *name, size_t len)
{
    event_kind k = {len, "count", 1};
    const char *open = len > 3 && name[len - 1] == ')' ? memchr(name, '(', len) : NULL;
    if (!open || open == name || open[-1] != '_')
        return k;
    if (unit_in_parentheses(open, (size_t)(name + len - open), &k))
        k.name_len = (size_t)(open - 1 - name);
    return k;
}


/* The value of an event name, added when new; PK_NONE beyond the model's values. */
static uint32_t value_of_event(cg_reader *r, const char *name, size_t len, bool *nomem)
{
    event_kind k = event_kind_of(name, len);
    uint32_t s = pk_intern(r->p, name, k.name_len);
    if (s == PK_NONE) {
        *nomem = true;
        return PK_NONE;
    }
    if (k.name_len == len)
        for (unsigned u = 0; u < r->event_unit_count; u++)
            if (r->event_units[u].name == s)
                k = r->event_units[u].kind;
    for (unsigned v = 0; v < r->values; v++)
        if (r->value_name[v] == s)
            return v;
    if (r->values == PK_MAX_VALUES) {
        if (r->dropped_events++ == 0)
            r->first_dropped = s;
        return PK_NONE;
    }
    r->value_name[r->values] = s;
    r->value_unit[r->values] = k.unit;
    r->value_scale[r->values] = k.scale;
    return r->values++;
}

/* `events: A B ...`: the columns of the cost lines that follow. */
static pk_status set_events(cg_reader *r, const char *value, size_t len, pk_error *err)
{
    unsigned columns = 0;
    size_t pos = 0;
    bool nomem = false;
    for (;;) {
        cg_skip_blanks(value, len, &pos);
        if (pos == len)
            break;
        size_t start = pos;
        while (pos < len && value[pos] != ' ' && value[pos] != '\t')
            pos++;
        if (columns == CG_MAX_COLUMNS)
            return line_damage(r, err, "events: lists more than 64 events");
        r->column_value[columns++] = value_of_event(r, value + start, pos - start, &nomem);
        if (nomem)
            return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    }
    if (columns == 0)
        return line_damage(r, err, "events: names no event");
    r->columns = columns;
    if (!cg_graph_set_values(&r->graph, r->values))
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    return PK_OK;
}

/* `event: NAME [= FORMULA] [: LONG NAME]`: the unit of a long name `... (UNIT)` becomes NAME's.
 * An event that has a value already takes the unit too: `event:` lines are header lines, before
 * any cost. Other long names (callgrind's `sysTime (elapsed ns)`) leave the event a count. */
static pk_status event_line(cg_reader *r, const char *value, size_t len, pk_error *err)
{
    size_t end = 0;
    while (end < len && value[end] != ' ' && value[end] != '\t' && value[end] != '=' &&
           value[end] != ':')
        end++;
    const char *colon = memchr(value + end, ':', len - end);
    if (end == 0 || !colon)
        return PK_OK;
    size_t at = (size_t)(colon + 1 - value);
    cg_skip_blanks(value, len, &at);
    const char *open = NULL;
    for (size_t i = at; i < len; i++)
        if (value[i] == '(')
            open = value + i;
    event_kind k = {end, "count", 1};
    if (!open || !unit_in_parentheses(open, (size_t)(value + len - open), &k))
        return PK_OK;
    uint32_t name = pk_intern(r->p, value, end);
    if (name == PK_NONE)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    for (unsigned v = 0; v < r->values; v++)
        if (r->value_name[v] == name) {
            r->value_unit[v] = k.unit;
            r->value_scale[v] = k.scale;
        }
    unsigned u = 0;
    while (u < r->event_unit_count && r->event_units[u].name != name)
        u++;
    if (u == PK_MAX_VALUES)
        return PK_OK; /* more units than the model has values: the rest stay counts */
    r->event_units[u] = (event_unit){name, k};
    if (u == r->event_unit_count)
        r->event_unit_count++;
    return PK_OK;
}

/* Reads up to r->columns costs at line[pos..len): raw (for the totals check) and scaled into
 * the model's values. Costs left out at the end are 0. */
static bool parse_costs(cg_reader *r, const char *line, size_t len, size_t pos,
                        uint64_t raw[CG_MAX_COLUMNS], int64_t cost[PK_MAX_VALUES])
{
    memset(cost, 0, PK_MAX_VALUES * sizeof *cost);
    unsigned c = 0;
    for (;;) {
        cg_skip_blanks(line, len, &pos);
        if (pos == len)
            break;
        if (c == r->columns || !cg_parse_number(line, len, &pos, &raw[c]))
            return false;
        if (pos < len && line[pos] != ' ' && line[pos] != '\t')
            return false;
        uint32_t v = r->column_value[c];
        if (v != PK_NONE) {
            int64_t scaled = raw[c] > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)raw[c];
            int64_t scale = r->value_scale[v];
            scaled = scaled > INT64_MAX / scale ? INT64_MAX : scaled * scale;
            cost[v] = pk_add_saturating(cost[v], scaled);
        }
        c++;
    }
    for (; c < r->columns; c++)
        raw[c] = 0;
    return true;
}

/* ---- parts and threads ------------------------------------------------------------------ */

/* Checks the part that ends against its totals: (or its summary:). */
static void end_part(cg_reader *r)
{
    if (r->part_has_costs && (r->have_totals || r->have_summary)) {
        const uint64_t *said = r->have_totals ? r->totals : r->summary;
        for (unsigned c = 0; c < r->columns; c++) {
            if (said[c] == r->sums[c])
                continue;
            const char *event = "?";
            if (r->column_value[c] != PK_NONE)
                event = pk_str(r->p, r->value_name[r->column_value[c]]);
            pk_warn(r->p,
                    "part %llu: %s gives %s %llu, but its cost lines add up to %llu",
                    /* a file without part: lines is one part */
                    (unsigned long long)(r->part ? r->part : 1),
                    r->have_totals ? "totals:" : "summary:", event,
                    (unsigned long long)said[c], (unsigned long long)r->sums[c]);
            break;
        }
    }
    memset(r->sums, 0, sizeof r->sums);
    r->have_summary = r->have_totals = r->part_has_costs = r->summary_first = false;
}

/* The model thread of the current `thread:` (one thread when the file names none). */
static uint32_t current_thread(cg_reader *r)
{
    if (r->thread != PK_NONE)
        return r->thread;
    uint32_t *known = pk_u64map_find(&r->threads, r->thread_key);
    if (known)
        return r->thread = *known;
    uint32_t name;
    if (r->thread_given) {
        name = pk_intern_printf(r->p, "thread %llu", (unsigned long long)r->thread_key);
    } else {
        uint32_t product = pk_metadata_get(r->p)->product;
        const char *program = product ? pk_str(r->p, product) : "";
        size_t len = strcspn(program, " \t");
        size_t base = pk_path_basename_offset(program, len);
        name = len > base ? pk_intern(r->p, program + base, len - base)
                          : pk_intern_cstr(r->p, "callgrind");
    }
    int64_t tid = r->thread_given && r->thread_key <= INT64_MAX ? (int64_t)r->thread_key : -1;
    uint32_t t = name == PK_NONE ? PK_NONE : pk_add_thread(r->p, name, r->pid, tid);
    uint32_t *slot;
    bool inserted;
    if (t == PK_NONE || !pk_u64map_put(&r->threads, r->thread_key, t, &slot, &inserted))
        return PK_NONE;
    return r->thread = t;
}

/* ---- header lines ------------------------------------------------------------------------- */

static bool key_is(const char *key, size_t len, const char *name)
{
    return strlen(name) == len && memcmp(key, name, len) == 0;
}

/* Reads up to CG_MAX_COLUMNS numbers (summary:, totals:). */
static bool parse_numbers(const char *s, size_t len, uint64_t out[CG_MAX_COLUMNS])
{
    memset(out, 0, CG_MAX_COLUMNS * sizeof *out);
    size_t pos = 0;
    for (unsigned c = 0;; c++) {
        cg_skip_blanks(s, len, &pos);
        if (pos == len)
            return true;
        if (c == CG_MAX_COLUMNS || !cg_parse_number(s, len, &pos, &out[c]))
            return false;
    }
}

static pk_status property(cg_reader *r, const char *key, const char *value, size_t len,
                          pk_error *err)
{
    char *text = malloc(len + 1);
    if (!text)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    memcpy(text, value, len);
    text[len] = '\0';
    pk_status st = pk_property_set(r->p, key, text);
    free(text);
    if (st != PK_OK)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    return PK_OK;
}

static pk_status header_line(cg_reader *r, const char *key, size_t key_len, const char *value,
                             size_t len, pk_error *err)
{
    size_t pos = 0;
    cg_skip_blanks(value, len, &pos);
    value += pos;
    len -= pos;
    while (len > 0 && (value[len - 1] == ' ' || value[len - 1] == '\t'))
        len--;
    if (key_is(key, key_len, "events")) {
        return set_events(r, value, len, err);
    } else if (key_is(key, key_len, "event")) {
        return event_line(r, value, len, err);
    } else if (key_is(key, key_len, "positions")) {
        if (!cg_positions_set(&r->positions, value, len))
            return line_damage(r, err, "positions: names a column other than instr and line");
    } else if (key_is(key, key_len, "summary") || key_is(key, key_len, "totals")) {
        bool totals = key_len == 6;
        if (!parse_numbers(value, len, totals ? r->totals : r->summary))
            return line_damage(r, err, totals ? "totals: holds something other than numbers"
                                              : "summary: holds something other than numbers");
        *(totals ? &r->have_totals : &r->have_summary) = true;
        if (!totals && !r->part_has_costs)
            r->summary_first = true;
    } else if (key_is(key, key_len, "part")) {
        if (r->part > 0 || r->part_has_costs)
            end_part(r);
        r->part++;
        /* A part starts afresh; compressed names stay defined. */
        r->object = r->file = 0;
        r->node = r->last_callee = PK_NONE;
        r->call_object = r->call_file = r->call_name = PK_NONE;
        memset(r->positions.last, 0, sizeof r->positions.last);
    } else if (key_is(key, key_len, "thread")) {
        size_t at = 0;
        uint64_t n;
        if (!cg_parse_number(value, len, &at, &n) || at != len)
            return line_damage(r, err, "thread: is not a number");
        r->thread_key = n;
        r->thread_given = true;
        r->thread = PK_NONE;
        r->node = r->last_callee = PK_NONE;
    } else if (key_is(key, key_len, "pid")) {
        size_t at = 0;
        uint64_t n;
        if (cg_parse_number(value, len, &at, &n) && at == len && n <= INT64_MAX)
            r->pid = (int64_t)n;
        return property(r, "pid", value, len, err);
    } else if (key_is(key, key_len, "cmd")) {
        uint32_t s = pk_intern(r->p, value, len);
        if (s == PK_NONE)
            return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
        pk_metadata_of(r->p)->product = s;
        return property(r, "command", value, len, err);
    } else if (key_is(key, key_len, "creator") || key_is(key, key_len, "version")) {
        if (key_len == 7)
            r->from_callgrind = len >= 9 && memcmp(value, "callgrind", 9) == 0;
        return property(r, key_len == 7 ? "creator" : "format-version", value, len, err);
    } else if (key_is(key, key_len, "desc")) {
        /* `desc: Name: value` (caches, the dump's trigger); kept when it says something. */
        const char *colon = memchr(value, ':', len);
        if (colon && colon > value) {
            size_t name_len = (size_t)(colon - value), rest = len - name_len - 1;
            size_t skip = 0;
            cg_skip_blanks(colon + 1, rest, &skip);
            if (rest > skip) {
                char name[64];
                snprintf(name, sizeof name, "%.*s", (int)(name_len < 63 ? name_len : 63), value);
                return property(r, name, colon + 1 + skip, rest - skip, err);
            }
        }
    }
    /* Other header lines (cmd details of other tools) say nothing the model keeps. */
    return PK_OK;
}

/* ---- body lines -------------------------------------------------------------------------- */

/* The node of the current fn= (in the current thread). */
static pk_status set_function(cg_reader *r, uint32_t name, pk_error *err)
{
    uint32_t thread = current_thread(r);
    r->node = thread == PK_NONE ? PK_NONE
                                : cg_graph_node(&r->graph, thread, r->object, r->file, name);
    if (r->node == PK_NONE)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    return PK_OK;
}

static pk_status spec_line(cg_reader *r, cg_spec spec, const char *value, size_t len,
                           pk_error *err)
{
    if (spec == CG_SPEC_CALLS || spec == CG_SPEC_JUMP || spec == CG_SPEC_JCND) {
        /* The count (jcnd=: EXECUTED/JUMPED), then the target's position, which callgrind
         * writes relative to the current one without moving it. */
        size_t pos = 0;
        uint64_t count;
        if (!cg_parse_number(value, len, &pos, &count))
            return line_damage(r, err,
                               spec == CG_SPEC_CALLS ? "calls= does not start with a count"
                                                     : "a jump line does not start with a count");
        if (spec == CG_SPEC_CALLS) {
            if (r->node == PK_NONE)
                return line_damage(r, err, "calls= before any fn=");
            if (r->call_name == PK_NONE && r->last_callee == PK_NONE)
                return line_damage(r, err, "calls= without a cfn= before it");
            r->calls = count;
            r->pending = PENDING_CALL;
        } else {
            r->pending = PENDING_JUMP;
        }
        r->pending_line = r->lines.number;
        return PK_OK;
    }
    uint32_t s;
    switch (cg_names_decode(&r->names, r->p, cg_spec_namespace(spec), value, len, &s)) {
    case CG_NAME_OK:
        break;
    case CG_NAME_UNDEFINED:
        /* A writer that left a definition out (KCachegrind and gprof2dot read on); the line is
         * named in a warning. */
        if (r->undefined_names++ == 0) {
            r->first_undefined_line = r->lines.number;
            r->first_undefined_name = s;
            r->first_undefined_namespace = cg_spec_namespace(spec);
        }
        break;
    case CG_NAME_NOMEM:
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    }
    switch (spec) {
    case CG_SPEC_OB:
        r->object = s;
        break;
    case CG_SPEC_FL:
    case CG_SPEC_FI:
    case CG_SPEC_FE:
        r->file = s;
        break;
    case CG_SPEC_FN:
        /* A call's target does not outlive its function's block. */
        r->call_object = r->call_file = r->call_name = PK_NONE;
        r->last_callee = PK_NONE;
        return set_function(r, s, err);
    case CG_SPEC_COB:
        r->call_object = s;
        break;
    case CG_SPEC_CFI:
        r->call_file = s;
        break;
    case CG_SPEC_CFN:
        r->call_name = s;
        break;
    default: /* jfi=, jfn=: only their names are kept, for later (N) */
        break;
    }
    return PK_OK;
}

static pk_status cost_line(cg_reader *r, const char *line, size_t len, pk_error *err)
{
    if (r->columns == 0)
        return line_damage(r, err, "a cost line before the events: line");
    size_t pos = 0;
    uint64_t at[CG_MAX_POSITIONS];
    if (!cg_positions_parse(&r->positions, line, len, &pos, true, at))
        return line_damage(r, err, "a cost line does not start with its position");
    if (r->pending == PENDING_JUMP) {
        r->pending = PENDING_NONE;
        return PK_OK;
    }
    uint64_t raw[CG_MAX_COLUMNS];
    int64_t cost[PK_MAX_VALUES];
    if (!parse_costs(r, line, len, pos, raw, cost))
        return line_damage(r, err, "a cost line holds something other than numbers, or more "
                                   "costs than events: names");
    if (r->node == PK_NONE)
        return line_damage(r, err, "a cost line before any fn=");
    int column = r->positions.line_column;
    uint64_t line_number = column >= 0 ? at[column] : 0;
    uint32_t source_line = line_number <= UINT32_MAX ? (uint32_t)line_number : 0;
    bool ok;
    if (r->pending == PENDING_CALL) {
        r->pending = PENDING_NONE;
        const cg_node *caller = &r->graph.nodes[r->node];
        uint32_t object = r->call_object != PK_NONE ? r->call_object : r->object;
        uint32_t file = r->call_file != PK_NONE ? r->call_file : r->file;
        uint32_t callee = r->call_name == PK_NONE
                              ? r->last_callee
                              : cg_graph_node(&r->graph, caller->thread, object, file,
                                              r->call_name);
        ok = callee != PK_NONE && cg_graph_add_call(&r->graph, r->node, callee, r->calls, cost);
        r->call_object = r->call_file = r->call_name = PK_NONE;
        r->last_callee = callee;
    } else {
        for (unsigned c = 0; c < r->columns; c++)
            r->sums[c] = r->sums[c] > UINT64_MAX - raw[c] ? UINT64_MAX : r->sums[c] + raw[c];
        r->part_has_costs = true;
        ok = cg_graph_add_self(&r->graph, r->node, r->file, source_line, cost);
    }
    return ok ? PK_OK : pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
}

static pk_status read_line(cg_reader *r, const char *line, size_t len, pk_error *err)
{
    while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t'))
        len--;
    if (len == 0 || line[0] == '#')
        return PK_OK;
    if (memchr(line, '\0', len))
        return line_damage(r, err, "holds a NUL byte: this is not text");
    if (r->pending == PENDING_CALL && !starts_cost_line(line[0]))
        return line_damage(r, err, "calls= is not followed by the call's cost line");
    if (starts_cost_line(line[0]))
        return cost_line(r, line, len, err);
    if (r->pending == PENDING_JUMP)
        return line_damage(r, err, "a jump line is not followed by its position line");
    size_t value;
    cg_spec spec = cg_spec_of(line, len, &value);
    if (spec != CG_SPEC_NONE)
        return spec_line(r, spec, line + value, len - value, err);
    size_t key = 0;
    while (key < len && is_ident(line[key]))
        key++;
    if (key > 0 && key < len && line[key] == ':')
        return header_line(r, line, key, line + key + 1, len - key - 1, err);
    if (key > 0 && key < len && line[key] == '=') {
        r->ignored_specs++; /* a specification this reader does not know */
        return PK_OK;
    }
    return line_damage(r, err, "is not a callgrind line (a header 'key: value', a "
                               "specification 'key=value' or a cost line)");
}

/* ---- the whole file ---------------------------------------------------------------------- */

static void reader_free(cg_reader *r)
{
    pk_text_lines_free(&r->lines);
    cg_graph_free(&r->graph);
    cg_names_free(&r->names);
    pk_u64map_free(&r->threads);
}

static void final_warnings(cg_reader *r, const cg_expansion *x)
{
    if (r->undefined_names) {
        static const char *const kinds[CG_NS_COUNT] = {"file", "function", "object"};
        const char *name = pk_str(r->p, r->first_undefined_name);
        char more[96] = "";
        if (r->undefined_names > 1)
            snprintf(more, sizeof more, " (%llu lines in all use a name never defined before "
                     "them, each read so)", (unsigned long long)r->undefined_names);
        pk_warn(r->p,
                "line %llu: the compressed %s name %s is used without a definition before it "
                "and is read as the name '%s'%s",
                (unsigned long long)r->first_undefined_line,
                kinds[r->first_undefined_namespace], name, name, more);
    }
    if (r->dropped_events)
        pk_warn(r->p,
                "%llu event%s beyond the first %d (from %s on) %s left out: profkit keeps %d "
                "values",
                (unsigned long long)r->dropped_events, r->dropped_events == 1 ? "" : "s",
                PK_MAX_VALUES, pk_str(r->p, r->first_dropped),
                r->dropped_events == 1 ? "was" : "were", PK_MAX_VALUES);
    if (r->ignored_specs)
        pk_warn(r->p, "%llu line%s of an unknown 'key=value' kind %s ignored",
                (unsigned long long)r->ignored_specs, r->ignored_specs == 1 ? "" : "s",
                r->ignored_specs == 1 ? "was" : "were");
    if (x->cut_by_limit)
        pk_warn(r->p,
                "the call graph was expanded into stacks up to its size limit: %llu call%s "
                "%s not followed, and functions reached only through them are roots of their "
                "own",
                (unsigned long long)x->cut_by_limit, x->cut_by_limit == 1 ? "" : "s",
                x->cut_by_limit == 1 ? "was" : "were");
    if (x->lines_merged)
        pk_warn(r->p,
                "%llu function%s placed under very many stacks %s their self cost per file (or "
                "per function), not per line, to keep the rows few",
                (unsigned long long)x->lines_merged, x->lines_merged == 1 ? "" : "s",
                x->lines_merged == 1 ? "keeps" : "keep");
}

pk_status cg_read(pk_input *in, pk_profile *p, const pk_read_options *options, pk_error *err)
{
    (void)options;
    cg_reader r;
    memset(&r, 0, sizeof r);
    r.p = p;
    r.thread = PK_NONE;
    r.node = PK_NONE;
    r.call_object = r.call_file = r.call_name = r.last_callee = PK_NONE;
    r.pid = -1;
    r.positions = (cg_positions){1, 0, {0, 0}};
    cg_graph_init(&r.graph);
    cg_names_init(&r.names);
    pk_u64map_init(&r.threads);
    pk_text_lines_init(&r.lines, in, CG_MAX_LINE);

    pk_status status = PK_OK;
    for (;;) {
        const char *text = NULL;
        size_t len = 0;
        pk_text_line_result got = pk_text_lines_next(&r.lines, &text, &len);
        if (got == PK_TEXT_END)
            break;
        if (got == PK_TEXT_NOMEM) {
            status = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
            break;
        }
        if (got == PK_TEXT_TOO_LONG) {
            status = line_damage(&r, err, "is longer than " CG_MAX_LINE_TEXT);
            break;
        }
        status = read_line(&r, text, len, err);
        if (status != PK_OK)
            break;
    }
    if (status == PK_OK && r.pending != PENDING_NONE)
        status = pk_damage(err, pk_in_offset(in),
                           "the file ends after line %llu (%s) without the line that completes it: "
                           "the file is cut",
                           (unsigned long long)r.pending_line,
                           r.pending == PENDING_CALL ? "calls=" : "a jump");
    /* Only callgrind promises totals: (other writers, such as Python's lsprof converters,
     * write summary: alone). */
    if (status == PK_OK && r.part_has_costs && r.summary_first && !r.have_totals &&
        r.from_callgrind)
        status = pk_damage(err, pk_in_offset(in),
                           "the file ends at line %llu inside a part that has a summary: but not "
                           "the totals: line that ends it: the file is cut",
                           (unsigned long long)r.lines.number);
    if (status == PK_OK && r.columns == 0)
        status = pk_error_set(err, PK_ERR_INPUT, (int64_t)pk_in_offset(in),
                              "no events: line: not a callgrind file");
    if (status == PK_OK)
        end_part(&r); /* a damaged part's sums say nothing more */
    /* What was read before damage is whole: it becomes the profile. */
    cg_expansion expansion = {0, 0};
    if (status != PK_ERR_NOMEM) {
        bool ok = true;
        for (unsigned v = 0; v < r.values && ok; v++)
            ok = pk_add_value_type(p, pk_str(p, r.value_name[v]), r.value_unit[v]) != PK_NONE;
        if (r.values == 0)
            ok = ok && pk_add_value_type(p, "Ir", "count") != PK_NONE;
        ok = ok && cg_graph_to_stacks(&r.graph, p, &expansion);
        if (!ok)
            status = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    }
    final_warnings(&r, &expansion);
    reader_free(&r);
    return status;
}
