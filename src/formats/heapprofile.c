/* SPDX-License-Identifier: MIT */
/* V8's sampling heap profile (.heapprofile: `node --heap-prof`, Chrome DevTools' Memory panel,
 * "Allocation sampling"; the inspector's HeapProfiler.stopSampling): a `head` tree of call frames
 * whose nodes carry the bytes sampled at them (`selfSize`), and, in newer versions, the samples
 * themselves (`samples`: `size`, `nodeId`, `ordinal`). The tree is V8's, walked as the CPU
 * profile's (formats/v8/); this file weighs its nodes by bytes. Documented in
 * docs/formats/heapprofile.md.
 */
#include <inttypes.h>
#include <string.h>

#include "core/input.h"
#include "core/json_input.h"
#include "core/json_probe.h"
#include "formats/formats.h"
#include "formats/v8/v8.h"

static const char *const heapprofile_extensions[] = {".heapprofile", NULL};
static const char *const heapprofile_aliases[] = {"chrome-heapprofile", "v8-heapprofile", NULL};

/* A `head` node with `selfSize` is a heap profile's: the legacy CPU profile's `head` has
 * `hitCount` instead. */
static int heapprofile_probe(const uint8_t *data, size_t size)
{
    pk_json_probe_key keys[] = {
        {"head/selfSize", NULL, false},
        {"head/children/#/selfSize", NULL, false},
    };
    if (pk_json_first_byte(data, size) != '{' ||
        pk_json_probe(data, size, keys, sizeof keys / sizeof keys[0]) <= 0)
        return PK_PROBE_NO;
    if (keys[0].found || keys[1].found)
        return 95;
    return PK_PROBE_NO;
}

typedef struct heapprofile_reader {
    v8_walk walk;
    v8_builder builder;
    bool saw_samples;        /* the `samples` member: the count of samples is a value */
    int64_t sample_node;     /* of the sample being read */
    bool sample_has_node;
    uint64_t negative_sizes; /* nodes left out */
} heapprofile_reader;

/* The walk's findings: nodes weigh their bytes; a CPU profile's arrays have no place here. */
static bool heap_node(void *sink, const v8_node *node)
{
    heapprofile_reader *r = sink;
    if (!v8_builder_sink.node(&r->builder, node))
        return false;
    if (node->self_size < 0)
        r->negative_sizes++;
    return node->self_size <= 0 || v8_builder_add(&r->builder, node->id, node->self_size, 0);
}

static bool heap_link(void *sink, int64_t child, int64_t parent)
{
    heapprofile_reader *r = sink;
    return v8_builder_sink.link(&r->builder, child, parent);
}

static bool heap_tick(void *sink, int64_t node, int64_t line, int64_t ticks)
{
    heapprofile_reader *r = sink;
    return v8_builder_sink.tick(&r->builder, node, line, ticks);
}

static bool heap_ignore_number(void *sink, int64_t value)
{
    (void)sink;
    (void)value;
    return true;
}

static void heap_ignore_time(void *sink, double value)
{
    (void)sink;
    (void)value;
}

static const v8_sink_ops heap_sink = {
    heap_node,          heap_link,          heap_tick,        heap_ignore_number,
    heap_ignore_number, heap_ignore_number, heap_ignore_time, heap_ignore_time,
};

/* `samples/#/nodeId`: each sample counts one for its node. Its `size` is the share of the node's
 * `selfSize` it stands for, which the node already says. */
static bool in_sample(pk_json_parser *jp)
{
    return pk_json_parser_depth(jp) == 3 && pk_json_parser_key_is(jp, 0, "samples") &&
           pk_json_parser_in_array(jp, 1);
}

static bool on_scalar(void *ctx, pk_json_parser *jp, const pk_json_scalar *v)
{
    heapprofile_reader *r = ctx;
    if (in_sample(jp)) {
        if (!pk_json_parser_key_is(jp, 2, "nodeId"))
            return true;
        if (!pk_json_scalar_i64(v, &r->sample_node))
            return pk_json_parser_fail(jp, "a sample's nodeId is not an integer");
        r->sample_has_node = true;
        return true;
    }
    return v8_walk_scalar(&r->walk, jp, 0, v);
}

static bool on_begin(void *ctx, pk_json_parser *jp, bool is_array)
{
    heapprofile_reader *r = ctx;
    uint32_t d = pk_json_parser_depth(jp);
    if (d == 1 && is_array && pk_json_parser_key_is(jp, 0, "samples"))
        r->saw_samples = true;
    if (d == 2 && !is_array && pk_json_parser_key_is(jp, 0, "samples"))
        r->sample_has_node = false;
    return v8_walk_begin(&r->walk, jp, 0, is_array);
}

static bool on_end(void *ctx, pk_json_parser *jp, bool is_array)
{
    heapprofile_reader *r = ctx;
    if (pk_json_parser_depth(jp) == 2 && !is_array && pk_json_parser_key_is(jp, 0, "samples") &&
        r->sample_has_node && !v8_builder_add(&r->builder, r->sample_node, 0, 1))
        return pk_json_parser_fail(jp, "out of memory reading the heap profile");
    return v8_walk_end(&r->walk, jp, 0, is_array);
}

/* The rows: bytes by stack, and samples when the profile lists them. */
static pk_status heapprofile_finish(heapprofile_reader *r, pk_profile *p, uint64_t offset,
                                    pk_error *err)
{
    uint32_t space = pk_add_value_type(p, "space", "bytes");
    uint32_t count = r->saw_samples ? pk_add_value_type(p, "samples", "count") : PK_NONE;
    uint32_t thread = pk_add_thread(p, pk_intern_cstr(p, "main"), -1, -1);
    if (space == PK_NONE || (r->saw_samples && count == PK_NONE) || thread == PK_NONE)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    pk_set_default_value(p, space);
    if (r->negative_sizes)
        pk_warn(p, "main: %" PRIu64 " node%s with a negative selfSize left out", r->negative_sizes,
                r->negative_sizes == 1 ? "" : "s");
    return v8_builder_finish(&r->builder, thread, space, count, offset, err);
}

static pk_status heapprofile_read(pk_input *in, pk_profile *p, const pk_read_options *options,
                                  pk_error *err)
{
    (void)options;
    heapprofile_reader r = {0};
    v8_builder_init(&r.builder, p);
    v8_walk_init(&r.walk, p, &heap_sink, &r);
    pk_status status = pk_json_read(in, &(pk_json_handler){on_scalar, on_begin, on_end}, &r,
                                    "the heap profile", "not a heap profile", NULL, err);
    /* Damage inside the tree (a cut, bad JSON, nesting too deep): the nodes still open are the
     * ancestors of what was read, and their own members come before their children. */
    if (status == PK_ERR_INPUT && !v8_walk_close(&r.walk))
        status = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    if (status == PK_OK || status == PK_ERR_INPUT) {
        if (!r.walk.saw_head) {
            if (status == PK_OK)
                status = pk_error_set(err, PK_ERR_INPUT, 0, "not a heap profile: no head");
        } else {
            /* What was read is kept: with damage, salvage decides whether it stands. */
            pk_error finish_err;
            pk_status finished = heapprofile_finish(&r, p, pk_in_offset(in), &finish_err);
            status = pk_json_read_settle(status, err, finished, &finish_err);
        }
    }
    v8_walk_free(&r.walk);
    v8_builder_free(&r.builder);
    return status;
}

const pk_format pk_format_heapprofile = {
    .name = "heapprofile",
    .aliases = heapprofile_aliases,
    .extensions = heapprofile_extensions,
    .description = "Chrome / Node sampling heap profile (Node's --heap-prof, DevTools' allocation "
                   "sampling)",
    .flags = PK_FORMAT_TEXT,
    .probe = heapprofile_probe,
    .read = heapprofile_read,
};
