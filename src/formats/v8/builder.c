/* SPDX-License-Identifier: MIT */
/* The V8 CPU profile builder (v8.h): nodes and weighted samples in, rows out. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "core/arith.h"
#include "core/array.h"
#include "core/damage.h"
#include "core/position.h"
#include "core/varint.h"
#include "profkit/timeline.h"
#include "formats/v8/v8.h"

#define NO_TICK UINT32_MAX

void v8_builder_init(v8_builder *b, pk_profile *p)
{
    memset(b, 0, sizeof *b);
    b->p = p;
    pk_u64map_init(&b->node_index);
    pk_u64map_init(&b->sum_index);
    pk_pairs_init(&b->pairs);
}

void v8_builder_free(v8_builder *b)
{
    free(b->nodes);
    free(b->links);
    free(b->ticks);
    free(b->sums);
    free(b->path);
    pk_u64map_free(&b->node_index);
    pk_u64map_free(&b->sum_index);
    pk_pairs_free(&b->pairs);
    pk_spool_free(b->timed);
    memset(b, 0, sizeof *b);
}

static bool builder_node(void *sink, const v8_node *node)
{
    v8_builder *b = sink;
    uint32_t *slot;
    bool inserted;
    if (b->node_count >= UINT32_MAX - 1 ||
        !pk_u64map_put(&b->node_index, (uint64_t)node->id, (uint32_t)b->node_count, &slot,
                       &inserted))
        return false;
    if (!inserted)
        return true; /* a node id given twice: the first stands */
    if (!PK_ARRAY_RESERVE(b->nodes, b->node_cap, b->node_count + 1))
        return false;
    b->nodes[b->node_count++] = (v8_node_entry){*node, NO_TICK, PK_NONE, PK_NONE, 0};
    return true;
}

static bool builder_link(void *sink, int64_t child, int64_t parent)
{
    v8_builder *b = sink;
    if (!PK_ARRAY_RESERVE(b->links, b->link_cap, b->link_count + 1))
        return false;
    b->links[b->link_count++] = (v8_link){child, parent};
    return true;
}

static bool builder_tick(void *sink, int64_t node, int64_t line, int64_t ticks)
{
    v8_builder *b = sink;
    if (ticks <= 0)
        return true;
    if (!PK_ARRAY_RESERVE(b->ticks, b->tick_cap, b->tick_count + 1))
        return false;
    b->ticks[b->tick_count++] = (v8_tick){node, line, ticks, NO_TICK};
    return true;
}

static v8_sum *sum_of(v8_builder *b, int64_t node)
{
    uint32_t *slot;
    bool inserted;
    if (b->sum_count >= UINT32_MAX ||
        !pk_u64map_put(&b->sum_index, (uint64_t)node, (uint32_t)b->sum_count, &slot, &inserted))
        return NULL;
    if (inserted) {
        if (!PK_ARRAY_RESERVE(b->sums, b->sum_cap, b->sum_count + 1)) {
            pk_u64map_remove(&b->sum_index, (uint64_t)node, NULL);
            return NULL;
        }
        b->sums[b->sum_count++] = (v8_sum){node, 0, 0};
    }
    return &b->sums[*slot];
}

static int64_t ns_of_us(int64_t us)
{
    return pk_mul_saturating(us, 1000);
}

bool v8_builder_add(v8_builder *b, int64_t node, int64_t weight, int64_t count)
{
    v8_sum *s = sum_of(b, node);
    if (!s)
        return false;
    s->weight = pk_add_saturating(s->weight, weight);
    s->count = pk_add_saturating(s->count, count);
    return true;
}

/* A sample of node lasting us. */
static bool weigh(v8_builder *b, int64_t node, int64_t us, int64_t count)
{
    return v8_builder_add(b, node, ns_of_us(us), count);
}

/* Spools a weighed sample for the timeline: node, raw time and weight, the time as a delta
 * from the previous record's (the spool's lane 0). */
static bool spool_timed(v8_builder *b, int64_t node, int64_t raw, int64_t us)
{
    if (!b->timed && !(b->timed = pk_spool_new()))
        return false;
    uint8_t record[3 * PK_VARINT_MAX_BYTES];
    size_t n = pk_varint_encode(record, pk_zigzag_encode(node));
    n += pk_varint_encode(record + n, pk_zigzag_encode(pk_sub_saturating(raw, b->timed_last)));
    n += pk_varint_encode(record + n, (uint64_t)us);
    b->timed_last = raw;
    return pk_spool_append(b->timed, 0, record, n);
}

/* A sample of node at raw time `raw` lasting us: to its sums and the timeline's spool. */
static bool weigh_timed(v8_builder *b, int64_t node, int64_t raw, int64_t us)
{
    return weigh(b, node, us, 1) && spool_timed(b, node, raw, us);
}

/* Sample `node` at `delta` µs after the previous one: the previous sample's weight is known.
 * A delta that goes back leaves the weighing time where it was until the deltas' sum passes
 * it again (as speedscope weighs); the timeline gets the sum itself. */
static bool place(v8_builder *b, int64_t node, int64_t delta)
{
    int64_t raw = b->have_previous ? pk_add_saturating(b->raw_now, delta) : delta;
    int64_t t = raw;
    if (b->have_previous && t < b->now) {
        b->backwards++;
        t = b->now;
    }
    if (b->have_previous && !weigh_timed(b, b->previous_node, b->previous_raw, t - b->now))
        return false;
    if (!b->have_previous)
        b->first_time = t;
    b->have_previous = true;
    b->previous_node = node;
    b->previous_raw = raw;
    b->raw_now = raw;
    b->now = t;
    b->samples++;
    return true;
}

bool v8_builder_pair(v8_builder *b, int64_t node, int64_t delta)
{
    return place(b, node, delta);
}

static bool builder_sample(void *sink, int64_t node)
{
    v8_builder *b = sink;
    bool paired;
    pk_pair_value delta;
    if (!pk_pairs_offer(&b->pairs, V8_SAMPLES, pk_pair_int(node), &paired, &delta))
        return false;
    return !paired || place(b, node, delta.i);
}

static bool builder_delta(void *sink, int64_t microseconds)
{
    v8_builder *b = sink;
    bool paired;
    pk_pair_value node;
    if (!pk_pairs_offer(&b->pairs, V8_DELTAS, pk_pair_int(microseconds), &paired, &node))
        return false;
    return !paired || place(b, node.i, microseconds);
}

/* Legacy absolute timestamps become deltas: only differences weigh samples. */
static bool builder_timestamp(void *sink, int64_t microseconds)
{
    v8_builder *b = sink;
    b->legacy = true;
    if (!b->have_first_timestamp) {
        b->have_first_timestamp = true;
        b->first_timestamp = microseconds;
    }
    int64_t delta = b->have_last_timestamp ? pk_sub_saturating(microseconds, b->last_timestamp) : 0;
    b->have_last_timestamp = true;
    b->last_timestamp = microseconds;
    return builder_delta(b, delta);
}

static void builder_start_time(void *sink, double value)
{
    v8_builder *b = sink;
    b->have_start = true;
    b->start = value;
}

static void builder_end_time(void *sink, double value)
{
    v8_builder *b = sink;
    b->have_end = true;
    b->end = value;
}

const v8_sink_ops v8_builder_sink = {
    builder_node,   builder_link,      builder_tick,       builder_sample,
    builder_delta,  builder_timestamp, builder_start_time, builder_end_time,
};

bool v8_builder_end_arrays(v8_builder *b)
{
    int kind;
    pk_pair_value value;
    while (pk_pairs_take_unpaired(&b->pairs, &kind, &value)) {
        b->unpaired[kind]++;
        /* A sample without a time delta weighs no time; on a timeline it sits at the last
         * sample's time, so that the timeline holds every sample its rows count. */
        if (kind == V8_SAMPLES && !(b->have_previous ? weigh_timed(b, value.i, b->raw_now, 0)
                                                     : weigh(b, value.i, 0, 1)))
            return false;
    }
    return !b->pairs.reader.error;
}

bool v8_builder_has_samples(const v8_builder *b)
{
    if (b->sum_count)
        return true;
    for (size_t i = 0; i < b->node_count; i++)
        if (b->nodes[i].node.hit_count > 0)
            return true;
    return false;
}

/* ---- the end: stacks and rows ------------------------------------------------------------------ */

static pk_status nomem(pk_error *err)
{
    return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory reading the CPU profile");
}

static v8_node_entry *entry_of(v8_builder *b, int64_t id)
{
    uint32_t *i = pk_u64map_find(&b->node_index, (uint64_t)id);
    return i ? &b->nodes[*i] : NULL;
}

/* The microseconds the profile's times count in one of its start and end units. */
static double time_scale(const v8_builder *b)
{
    return b->legacy ? 1e6 : 1.0;
}

/* The last sample weighs nothing, as DevTools and speedscope weigh it: no later sample says
 * how long it lasted. It still counts. */
static bool weigh_last(v8_builder *b)
{
    if (!b->have_previous)
        return true;
    b->have_previous = false;
    return weigh_timed(b, b->previous_node, b->previous_raw, 0);
}

/* A profile with hit counts and no samples (DevTools' tree view): the run's length shared out
 * by hits. */
static bool weigh_hits(v8_builder *b)
{
    int64_t total = 0;
    for (size_t i = 0; i < b->node_count; i++)
        if (b->nodes[i].node.hit_count > 0)
            total = pk_add_saturating(total, b->nodes[i].node.hit_count);
    double run = b->have_start && b->have_end ? (b->end - b->start) * time_scale(b) : 0;
    double per_hit = total > 0 && run > 0 ? run / (double)total : 0;
    for (size_t i = 0; i < b->node_count; i++) {
        const v8_node *n = &b->nodes[i].node;
        if (n->hit_count <= 0)
            continue;
        double us = per_hit * (double)n->hit_count;
        if (!weigh(b, n->id, us < 9e15 ? (int64_t)llround(us) : INT64_MAX / 1000, n->hit_count))
            return false;
    }
    return true;
}

/* The stacks of e and of every ancestor not computed yet: up the parent links to a node whose
 * stack is known (or a root), then down again interning. */
static pk_status compute_stack(v8_builder *b, v8_node_entry *e, uint64_t offset, pk_error *err)
{
    b->path_count = 0;
    v8_node_entry *const nodes = b->nodes;
    if (!nodes) /* e is one of them */
        return PK_OK;
    v8_node_entry *x = e;
    while (x && x->state != 2) {
        if (x->state == 1)
            return pk_damage(err, offset, "the profile's nodes form a cycle (node %" PRId64 ")",
                             x->node.id);
        x->state = 1;
        if (!PK_ARRAY_RESERVE(b->path, b->path_cap, b->path_count + 1))
            return nomem(err);
        b->path[b->path_count++] = (uint32_t)(x - b->nodes);
        v8_node_entry *parent = x->node.has_parent ? entry_of(b, x->node.parent) : NULL;
        if (x->node.has_parent && !parent)
            b->unknown_parents++;
        x = parent;
    }
    uint32_t prefix = x ? x->stack : PK_NONE;
    for (size_t i = b->path_count; i-- > 0;) {
        v8_node_entry *y = nodes + b->path[i];
        y->prefix = prefix;
        if (y->node.is_root && prefix == PK_NONE) {
            y->stack = PK_NONE;
        } else {
            pk_frame f = {y->node.function, 0, 0, PK_NONE, 0};
            uint32_t frame = pk_intern_frame(b->p, &f);
            y->stack = frame == PK_NONE ? PK_NONE : pk_intern_stack(b->p, prefix, frame);
            if (y->stack == PK_NONE)
                return nomem(err);
        }
        y->state = 2;
        prefix = y->stack;
    }
    return PK_OK;
}

static void apply_links(v8_builder *b)
{
    for (size_t i = 0; i < b->link_count; i++) {
        v8_node_entry *child = entry_of(b, b->links[i].child);
        if (child && !child->node.has_parent) {
            child->node.has_parent = true;
            child->node.parent = b->links[i].parent;
        }
    }
    for (size_t i = 0; i < b->tick_count; i++) {
        v8_node_entry *e = entry_of(b, b->ticks[i].node);
        if (e) {
            b->ticks[i].next = e->ticks_first;
            e->ticks_first = (uint32_t)i;
        }
    }
}

/* A node's sums as rows: split by its positionTicks over line-level leaf frames, in proportion
 * to the ticks (cumulative rounding keeps the sums exact). */
static pk_status add_rows(v8_builder *b, const v8_sum *s, const v8_node_entry *e, uint32_t thread,
                          uint32_t weight, uint32_t count, pk_error *err)
{
    int64_t values[PK_MAX_VALUES] = {0};
    int64_t total_ticks = 0;
    for (uint32_t t = e->ticks_first; t != NO_TICK; t = b->ticks[t].next)
        total_ticks = pk_add_saturating(total_ticks, b->ticks[t].ticks);
    if (total_ticks <= 0 || e->node.is_root) {
        values[weight] = s->weight;
        if (count != PK_NONE)
            values[count] = s->count;
        return pk_add_sample(b->p, thread, e->stack, values) == PK_OK ? PK_OK : nomem(err);
    }
    /* Ticks are chained last first: the cumulative split goes in that order, which only
     * decides where rounding lands. */
    int64_t cumulative = 0, weight_done = 0, count_done = 0;
    for (uint32_t t = e->ticks_first; t != NO_TICK; t = b->ticks[t].next) {
        cumulative += b->ticks[t].ticks;
        double share = (double)cumulative / (double)total_ticks;
        int64_t weight_to = (int64_t)((double)s->weight * share);
        int64_t count_to = (int64_t)((double)s->count * share);
        if (b->ticks[t].next == NO_TICK) {
            weight_to = s->weight;
            count_to = s->count;
        }
        pk_frame f = {e->node.function, pk_position(b->ticks[t].line), 0, PK_NONE, 0};
        uint32_t frame = pk_intern_frame(b->p, &f);
        uint32_t stack = frame == PK_NONE ? PK_NONE : pk_intern_stack(b->p, e->prefix, frame);
        if (stack == PK_NONE)
            return nomem(err);
        values[weight] = weight_to - weight_done;
        if (count != PK_NONE)
            values[count] = count_to - count_done;
        weight_done = weight_to;
        count_done = count_to;
        if (pk_add_sample(b->p, thread, stack, values) != PK_OK)
            return nomem(err);
    }
    return PK_OK;
}

/* The time the samples' raw times count from, in µs: the profile's startTime (on the trace's
 * clock in a trace), or a legacy profile's first timestamp. */
static int64_t timeline_origin(const v8_builder *b)
{
    if (b->legacy)
        return b->have_first_timestamp ? b->first_timestamp : 0;
    if (b->have_start && b->start > -9e15 && b->start < 9e15)
        return (int64_t)llround(b->start);
    return 0;
}

/* The spooled samples become the thread's timed samples, each on its node's stack (a node's
 * positionTicks split only its rows: which line a sample was at is not known), weighing its
 * time and one sample. Stacks exist for every sampled node once the rows are made. */
static pk_status add_timeline(v8_builder *b, uint32_t thread, uint32_t weight, uint32_t count,
                              pk_error *err)
{
    if (!b->timed)
        return PK_OK;
    int64_t origin = timeline_origin(b), raw = 0;
    int64_t values[PK_MAX_VALUES] = {0};
    pk_spool_reader r;
    pk_spool_reader_init(&r, b->timed, 0);
    const unsigned char *data;
    size_t n;
    pk_status status = PK_OK;
    while (status == PK_OK && pk_spool_reader_next(&r, &data, &n)) {
        const uint8_t *at = data, *end = data + n;
        uint64_t node, delta, us;
        while (status == PK_OK && pk_varint_decode(&at, end, &node) == PK_VARINT_OK &&
               pk_varint_decode(&at, end, &delta) == PK_VARINT_OK &&
               pk_varint_decode(&at, end, &us) == PK_VARINT_OK) {
            raw = pk_add_saturating(raw, pk_zigzag_decode(delta));
            const v8_node_entry *e = entry_of(b, pk_zigzag_decode(node));
            if (!e || e->state != 2)
                continue; /* a node the profile does not list: left out of the rows too */
            values[weight] = ns_of_us((int64_t)us);
            if (count != PK_NONE)
                values[count] = 1;
            pk_status added = pk_timeline_append(b->p, thread, e->stack,
                                                 ns_of_us(pk_add_saturating(origin, raw)), 0,
                                                 values);
            if (added == PK_ERR_USAGE) /* a time beyond the clock's range: rows only */
                added = pk_timeline_drop(b->p, thread);
            if (added != PK_OK)
                status = added;
        }
    }
    if (status == PK_OK && (r.error || pk_spool_error(b->timed)))
        status = PK_ERR_IO;
    pk_spool_reader_free(&r);
    if (status == PK_ERR_NOMEM)
        return nomem(err);
    if (status != PK_OK)
        return pk_error_set(err, status, PK_NO_OFFSET,
                            "the CPU profile's samples could not be read back for the timeline");
    return PK_OK;
}

pk_status v8_builder_finish(v8_builder *b, uint32_t thread, uint32_t weight, uint32_t count,
                            uint64_t offset, pk_error *err)
{
    if (!v8_builder_end_arrays(b) || !weigh_last(b))
        return nomem(err);
    if (b->samples == 0 && b->sum_count == 0 && !weigh_hits(b))
        return nomem(err);
    apply_links(b);
    uint64_t unknown_samples = 0;
    for (size_t i = 0; i < b->sum_count; i++) {
        const v8_sum *s = &b->sums[i];
        v8_node_entry *e = entry_of(b, s->node);
        if (!e) {
            unknown_samples += (uint64_t)s->count;
            continue;
        }
        pk_status status = e->state == 2 ? PK_OK : compute_stack(b, e, offset, err);
        if (status == PK_OK)
            status = add_rows(b, s, e, thread, weight, count, err);
        if (status != PK_OK)
            return status;
    }
    pk_status timed = add_timeline(b, thread, weight, count, err);
    if (timed != PK_OK)
        return timed;
    const char *thread_name = pk_str(b->p, pk_thread_at(b->p, thread)->name);
    if (unknown_samples)
        pk_warn(b->p, "%s: %" PRIu64 " sample%s of nodes the profile does not list left out",
                thread_name, unknown_samples, unknown_samples == 1 ? "" : "s");
    if (b->unknown_parents)
        pk_warn(b->p, "%s: %" PRIu64 " node%s with a parent the profile does not list taken as "
                      "roots", thread_name, b->unknown_parents, b->unknown_parents == 1 ? "" : "s");
    if (b->backwards)
        pk_warn(b->p, "%s: %" PRIu64 " sample%s earlier than one before weighed from the latest time",
                thread_name, b->backwards, b->backwards == 1 ? "" : "s");
    if (b->unpaired[V8_SAMPLES])
        pk_warn(b->p, "%s: %" PRIu64 " sample%s without a time delta counted weighing no time",
                thread_name, b->unpaired[V8_SAMPLES], b->unpaired[V8_SAMPLES] == 1 ? "" : "s");
    if (b->unpaired[V8_DELTAS])
        pk_warn(b->p, "%s: %" PRIu64 " time delta%s without a sample ignored", thread_name,
                b->unpaired[V8_DELTAS], b->unpaired[V8_DELTAS] == 1 ? "" : "s");
    return PK_OK;
}
