/* SPDX-License-Identifier: MIT */
/* The JSON of a V8 CPU profile object, routed to a sink (v8.h). Nodes are assembled from their
 * members, which come in any order; the legacy form nests them (`head`, `children` objects), so
 * the nodes open on the path are a stack. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "core/array.h"
#include "core/position.h"
#include "formats/v8/v8.h"

void v8_walk_init(v8_walk *w, pk_profile *p, const v8_sink_ops *ops, void *sink)
{
    memset(w, 0, sizeof *w);
    w->p = p;
    w->ops = ops;
    w->sink = sink;
}

void v8_walk_free(v8_walk *w)
{
    for (uint32_t i = 0; i < w->pending_cap; i++) {
        v8_pending_node *n = &w->pending[i];
        pk_buffer_free(&n->name);
        pk_buffer_free(&n->url);
        free(n->children);
        free(n->ticks);
    }
    free(w->pending);
    memset(w, 0, sizeof *w);
}

static bool nomem(pk_json_parser *jp)
{
    return pk_json_parser_fail(jp, "out of memory reading the CPU profile");
}

static bool push_node(v8_walk *w, pk_json_parser *jp, uint32_t level, bool legacy)
{
    if (w->pending_depth == w->pending_cap) {
        uint32_t cap = w->pending_cap ? w->pending_cap * 2 : 8;
        v8_pending_node *grown = realloc(w->pending, cap * sizeof *grown);
        if (!grown)
            return nomem(jp);
        memset(grown + w->pending_cap, 0, (cap - w->pending_cap) * sizeof *grown);
        w->pending = grown;
        w->pending_cap = cap;
    }
    v8_pending_node *n = &w->pending[w->pending_depth++];
    n->level = level;
    n->legacy = legacy;
    n->call_frame = false;
    n->node = (v8_node){0};
    n->has_id = false;
    n->line = n->column = -1;
    n->in_script = false;
    pk_buffer_clear(&n->name);
    pk_buffer_clear(&n->url);
    n->child_count = 0;
    n->tick_count = 0;
    return true;
}

static v8_pending_node *top(v8_walk *w)
{
    return w->pending_depth ? &w->pending[w->pending_depth - 1] : NULL;
}

/* An integer member, or a failure naming it. */
static bool integer(pk_json_parser *jp, const pk_json_scalar *v, const char *what, int64_t *out)
{
    if (pk_json_scalar_i64(v, out))
        return true;
    *out = 0; /* set on every path: the caller's value is never read uninitialized */
    return pk_json_parser_fail(jp, "%s is not an integer", what);
}

static bool append_pair(int64_t **items, size_t *count, size_t *cap, int64_t a, int64_t b)
{
    if (!pk_array_reserve((void **)items, cap, sizeof **items, *count + 2))
        return false;
    (*items)[(*count)++] = a;
    (*items)[(*count)++] = b;
    return true;
}

static bool node_member(v8_pending_node *n, pk_json_parser *jp, const char *key, size_t len,
                        bool in_call_frame, const pk_json_scalar *v)
{
#define KEY(k) (len == sizeof k - 1 && memcmp(key, k, len) == 0)
    if (KEY("id")) {
        n->has_id = true;
        return integer(jp, v, "a node's id", &n->node.id);
    }
    if (KEY("parent")) {
        n->node.has_parent = true;
        return integer(jp, v, "a node's parent", &n->node.parent);
    }
    if (KEY("hitCount"))
        return integer(jp, v, "a node's hitCount", &n->node.hit_count);
    if (KEY("selfSize"))
        return integer(jp, v, "a node's selfSize", &n->node.self_size);
    if (KEY("functionName") && v->kind == PK_JSON_STRING) {
        pk_buffer_clear(&n->name);
        pk_buffer_append(&n->name, v->s, v->len);
    } else if (KEY("url") && v->kind == PK_JSON_STRING) {
        pk_buffer_clear(&n->url);
        pk_buffer_append(&n->url, v->s, v->len);
    } else if (KEY("lineNumber")) {
        pk_json_scalar_i64(v, &n->line);
        n->call_frame = in_call_frame;
    } else if (KEY("columnNumber")) {
        pk_json_scalar_i64(v, &n->column);
        n->call_frame = in_call_frame;
    } else if (KEY("scriptId")) { /* a string in CPU profiles, a number in traces */
        int64_t id = 0;
        bool none = v->len == 0 || (v->len == 1 && v->s[0] == '0');
        n->in_script = v->kind == PK_JSON_STRING ? !none : pk_json_scalar_i64(v, &id) && id != 0;
    }
    return !n->name.failed && !n->url.failed ? true : nomem(jp);
#undef KEY
}

/* A line or column as the model keeps it (1-based, 0 unknown): 0-based in callFrames (of the
 * `nodes` list and of a heap profile's `head` tree alike) and 1-based on the legacy nodes
 * themselves (as DevTools, which subtracts one from those alone, reads them); -1 is unknown. */
static uint32_t one_based(int64_t written, bool one_based_already)
{
    return pk_position(one_based_already || written == INT64_MAX ? written : written + 1);
}

static bool named(const char *name, size_t len, const char *what)
{
    return len == strlen(what) && memcmp(name, what, len) == 0;
}

/* What kind of code a node's function is, as the Firefox Profiler's importer of V8 profiles
 * tells it (docs/formats/cpuprofile.md): the entries V8 makes for the time it accounts itself
 * are not code; a function with a place in a script (a URL, a script id, a line) is script; so
 * are the code V8 could not attribute and unnamed WebAssembly, which have none; any other
 * function is one of V8's built-ins or the embedder's native functions (Node's bindings), which
 * script called and which a view of script code keeps. */
static uint32_t function_flags(const v8_pending_node *n, const char *name, size_t len,
                               uint32_t line)
{
    static const char *const not_code[] = {"(root)", "(program)", "(idle)",
                                           "(garbage collector)"};
    static const char *const unplaced_script[] = {"(unresolved function)", "<WASM UNNAMED>"};
    for (size_t i = 0; i < sizeof not_code / sizeof not_code[0]; i++)
        if (named(name, len, not_code[i]))
            return 0;
    if (n->url.len || n->in_script || line)
        return PK_FUNCTION_SCRIPT;
    for (size_t i = 0; i < sizeof unplaced_script / sizeof unplaced_script[0]; i++)
        if (named(name, len, unplaced_script[i]))
            return PK_FUNCTION_SCRIPT;
    return PK_FUNCTION_SCRIPT_RELEVANT;
}

/* False when memory fails. */
static bool close_node(v8_walk *w)
{
    v8_pending_node *n = top(w);
    if (!n->has_id)
        n->node.id = INT64_MIN + w->next_synthetic_id++;
    static const char anonymous[] = "(anonymous)";
    const char *name = n->name.len ? (const char *)n->name.data : anonymous;
    size_t name_len = n->name.len ? n->name.len : sizeof anonymous - 1;
    n->node.is_root = named(name, name_len, "(root)");
    pk_function f = {
        .name = pk_intern(w->p, name, name_len),
        .file = n->url.len ? pk_intern(w->p, (const char *)n->url.data, n->url.len) : 0,
        .start_line = one_based(n->line, n->legacy && !n->call_frame),
        .resource = PK_NONE,
        .start_column = one_based(n->column, n->legacy && !n->call_frame),
    };
    f.flags = function_flags(n, name, name_len, f.start_line);
    if (f.name == PK_NONE || f.file == PK_NONE ||
        (n->node.function = pk_intern_function(w->p, &f)) == PK_NONE)
        return false;
    if (!w->ops->node(w->sink, &n->node))
        return false;
    for (size_t i = 0; i < n->child_count; i++)
        if (!w->ops->link(w->sink, n->children[i], n->node.id))
            return false;
    for (size_t i = 0; i + 1 < n->tick_count; i += 2)
        if (!w->ops->tick(w->sink, n->node.id, n->ticks[i], n->ticks[i + 1]))
            return false;
    int64_t id = n->node.id;
    bool nested = n->legacy && w->pending_depth >= 2;
    w->pending_depth--;
    if (nested) {
        v8_pending_node *parent = top(w);
        if (!pk_array_reserve((void **)&parent->children, &parent->child_cap,
                              sizeof *parent->children, parent->child_count + 1))
            return false;
        parent->children[parent->child_count++] = id;
    }
    return true;
}

static bool finish_node(v8_walk *w, pk_json_parser *jp)
{
    return close_node(w) ? true : nomem(jp);
}

bool v8_walk_close(v8_walk *w)
{
    while (w->pending_depth)
        if (!close_node(w))
            return false;
    return true;
}

bool v8_walk_begin(v8_walk *w, pk_json_parser *jp, uint32_t members, bool is_array)
{
    uint32_t d = pk_json_parser_depth(jp);
    v8_pending_node *n = top(w);
    if (is_array)
        return true;
    if (d == members + 2 && pk_json_parser_key_is(jp, members, "nodes") &&
        pk_json_parser_in_array(jp, members + 1)) {
        w->saw_nodes = true;
        return push_node(w, jp, d, false);
    }
    if (d == members + 1 && pk_json_parser_key_is(jp, members, "head")) {
        w->saw_head = true;
        return push_node(w, jp, d, true);
    }
    if (n && n->legacy && d == n->level + 2 && pk_json_parser_key_is(jp, n->level, "children") &&
        pk_json_parser_in_array(jp, n->level + 1))
        return push_node(w, jp, d, true);
    if (n && d == n->level + 2 && pk_json_parser_key_is(jp, n->level, "positionTicks")) {
        n->tick_line = 0;
        n->tick_ticks = 0;
    }
    return true;
}

bool v8_walk_end(v8_walk *w, pk_json_parser *jp, uint32_t members, bool is_array)
{
    (void)members;
    uint32_t d = pk_json_parser_depth(jp);
    v8_pending_node *n = top(w);
    if (is_array || !n)
        return true;
    if (d == n->level)
        return finish_node(w, jp);
    if (d == n->level + 2 && pk_json_parser_key_is(jp, n->level, "positionTicks") &&
        !append_pair(&n->ticks, &n->tick_count, &n->tick_cap, n->tick_line, n->tick_ticks))
        return nomem(jp);
    return true;
}

static bool array_value(v8_walk *w, pk_json_parser *jp, const char *key, size_t len,
                        const pk_json_scalar *v)
{
    int64_t value;
    bool ok;
    if (len == 7 && memcmp(key, "samples", 7) == 0) {
        w->saw_samples = true;
        if (!integer(jp, v, "a sample", &value))
            return false;
        ok = w->ops->sample(w->sink, value);
    } else if ((len == 10 && memcmp(key, "timeDeltas", 10) == 0) ||
               (len == 10 && memcmp(key, "timestamps", 10) == 0)) {
        double d;
        if (!pk_json_scalar_double(v, &d) || !(fabs(d) < 9e15))
            return pk_json_parser_fail(jp, "a time in %.*s is not a number of microseconds",
                                       (int)len, key);
        w->saw_deltas = true;
        value = pk_json_scalar_i64(v, &value) ? value : (int64_t)llround(d);
        ok = key[4] == 'D' ? w->ops->delta(w->sink, value) : w->ops->timestamp(w->sink, value);
    } else {
        return true;
    }
    return ok ? true : nomem(jp);
}

bool v8_walk_scalar(v8_walk *w, pk_json_parser *jp, uint32_t members, const pk_json_scalar *v)
{
    uint32_t d = pk_json_parser_depth(jp);
    v8_pending_node *n = top(w);
    size_t len;
    const char *key;
    if (n && d > n->level) {
        uint32_t l = n->level;
        if (d == l + 1) {
            key = pk_json_parser_key(jp, l, &len);
            return key ? node_member(n, jp, key, len, false, v) : true;
        }
        if (d == l + 2 && pk_json_parser_key_is(jp, l, "callFrame")) {
            key = pk_json_parser_key(jp, l + 1, &len);
            return key ? node_member(n, jp, key, len, true, v) : true;
        }
        if (d == l + 2 && pk_json_parser_key_is(jp, l, "children") && !n->legacy) {
            int64_t child;
            if (!integer(jp, v, "a node's child", &child))
                return false;
            if (!pk_array_reserve((void **)&n->children, &n->child_cap, sizeof *n->children,
                                  n->child_count + 1))
                return nomem(jp);
            n->children[n->child_count++] = child;
            return true;
        }
        if (d == l + 3 && pk_json_parser_key_is(jp, l, "positionTicks")) {
            if (pk_json_parser_key_is(jp, l + 2, "line"))
                return integer(jp, v, "a positionTicks line", &n->tick_line);
            if (pk_json_parser_key_is(jp, l + 2, "ticks"))
                return integer(jp, v, "a positionTicks count", &n->tick_ticks);
        }
        return true;
    }
    if (d == members + 1) {
        double t;
        if (pk_json_parser_key_is(jp, members, "startTime") && pk_json_scalar_double(v, &t))
            w->ops->start_time(w->sink, t);
        else if (pk_json_parser_key_is(jp, members, "endTime") && pk_json_scalar_double(v, &t))
            w->ops->end_time(w->sink, t);
        return true;
    }
    if (d == members + 2 && pk_json_parser_in_array(jp, members + 1) &&
        (key = pk_json_parser_key(jp, members, &len)) != NULL)
        return array_value(w, jp, key, len, v);
    return true;
}
