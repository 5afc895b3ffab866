/* SPDX-License-Identifier: MIT */
/* A trace event's profile data, buffered until the event ends (v8.h). */
#include <string.h>

#include "core/array.h"
#include "formats/v8/v8.h"

static bool chunk_node(void *sink, const v8_node *node)
{
    v8_chunk *c = sink;
    if (!PK_ARRAY_RESERVE(c->nodes, c->node_cap, c->node_count + 1))
        return false;
    c->nodes[c->node_count++] = *node;
    return true;
}

static bool push(int64_t **items, size_t *count, size_t *cap, const int64_t *values, size_t n)
{
    if (!pk_array_reserve((void **)items, cap, sizeof **items, *count + n))
        return false;
    memcpy(*items + *count, values, n * sizeof *values);
    *count += n;
    return true;
}

static bool chunk_link(void *sink, int64_t child, int64_t parent)
{
    v8_chunk *c = sink;
    int64_t pair[2] = {child, parent};
    return push(&c->links, &c->link_count, &c->link_cap, pair, 2);
}

static bool chunk_tick(void *sink, int64_t node, int64_t line, int64_t ticks)
{
    v8_chunk *c = sink;
    int64_t triple[3] = {node, line, ticks};
    return push(&c->ticks, &c->tick_count, &c->tick_cap, triple, 3);
}

static bool chunk_sample(void *sink, int64_t node)
{
    v8_chunk *c = sink;
    return push(&c->samples, &c->sample_count, &c->sample_cap, &node, 1);
}

static bool chunk_delta(void *sink, int64_t microseconds)
{
    v8_chunk *c = sink;
    return push(&c->deltas, &c->delta_count, &c->delta_cap, &microseconds, 1);
}

static bool chunk_timestamp(void *sink, int64_t microseconds)
{
    /* Chunks carry deltas; absolute timestamps belong to the legacy .cpuprofile only. */
    (void)sink;
    (void)microseconds;
    return true;
}

static void chunk_start_time(void *sink, double value)
{
    v8_chunk *c = sink;
    c->have_start = true;
    c->start = value;
}

static void chunk_end_time(void *sink, double value)
{
    v8_chunk *c = sink;
    c->have_end = true;
    c->end = value;
}

const v8_sink_ops v8_chunk_sink = {
    chunk_node,  chunk_link,      chunk_tick,       chunk_sample,
    chunk_delta, chunk_timestamp, chunk_start_time, chunk_end_time,
};

void v8_chunk_clear(v8_chunk *c)
{
    c->node_count = c->link_count = c->tick_count = c->sample_count = c->delta_count = 0;
    c->have_start = c->have_end = false;
}

void v8_chunk_free(v8_chunk *c)
{
    free(c->nodes);
    free(c->links);
    free(c->ticks);
    free(c->samples);
    free(c->deltas);
    memset(c, 0, sizeof *c);
}

bool v8_chunk_is_empty(const v8_chunk *c)
{
    return !c->node_count && !c->link_count && !c->tick_count && !c->sample_count &&
           !c->delta_count && !c->have_start && !c->have_end;
}

bool v8_chunk_replay(const v8_chunk *c, v8_builder *b)
{
    const v8_sink_ops *ops = &v8_builder_sink;
    for (size_t i = 0; i < c->node_count; i++)
        if (!ops->node(b, &c->nodes[i]))
            return false;
    for (size_t i = 0; i + 1 < c->link_count; i += 2)
        if (!ops->link(b, c->links[i], c->links[i + 1]))
            return false;
    for (size_t i = 0; i + 2 < c->tick_count; i += 3)
        if (!ops->tick(b, c->ticks[i], c->ticks[i + 1], c->ticks[i + 2]))
            return false;
    /* Both arrays are at hand: paired directly, without the spool. */
    size_t pairs = c->sample_count < c->delta_count ? c->sample_count : c->delta_count;
    for (size_t i = 0; i < pairs; i++)
        if (!v8_builder_pair(b, c->samples[i], c->deltas[i]))
            return false;
    for (size_t i = pairs; i < c->sample_count; i++)
        if (!ops->sample(b, c->samples[i]))
            return false;
    for (size_t i = pairs; i < c->delta_count; i++)
        if (!ops->delta(b, c->deltas[i]))
            return false;
    if (c->have_start)
        ops->start_time(b, c->start);
    if (c->have_end)
        ops->end_time(b, c->end);
    return v8_builder_end_arrays(b);
}
