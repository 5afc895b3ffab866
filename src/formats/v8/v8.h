/* SPDX-License-Identifier: MIT */
/* V8's CPU profile: what Node's --cpu-prof (.cpuprofile), Chrome DevTools' JavaScript profiler and
 * the Profile / ProfileChunk / CpuProfile events of Chrome traces carry. Shared by the
 * cpuprofile format and the Chrome trace format; docs/formats/cpuprofile.md says what is read.
 * V8's sampling heap profile (.heapprofile) is the same tree of call frames, nested under `head`,
 * with bytes on its nodes (`selfSize`) instead of samples in time: the heapprofile format walks
 * it here too and weighs the nodes itself (v8_builder_add).
 *
 * The profile is a tree of nodes (a call frame each, linked by `children` ids, `parent` ids, or,
 * in the legacy form, by nesting under `head`) and two parallel arrays: `samples` (the leaf node
 * of each sample) and `timeDeltas` (µs since the previous sample). Sample i lasts until sample
 * i + 1, as Chrome DevTools and speedscope weigh it, and the last sample weighs nothing (its
 * count still counts). A delta that goes back (V8 writes some) is weighed as speedscope does:
 * the time stays at the latest reached until the sum of deltas passes it again; the timeline
 * gets the sums as they are and puts the samples in time order.
 *
 * Streaming: the arrays can hold millions of entries and come in any order relative to the
 * nodes, so nothing per sample is kept. The first of the two arrays to arrive is spooled
 * (core/pairs.h: out of memory beyond a few MiB) and paired with the second as it streams; each
 * weighted sample is added to its node's sums (time, count), a table as large as the distinct
 * nodes, and spooled (node, time, weight) for the thread's timeline. The nodes' stacks are built
 * at the end, once every node and link is known, the sums become the profile's rows, in the
 * order their nodes were first sampled, and the spooled samples the thread's timed samples.
 *
 *   v8_walk      the JSON: routes a profile object's members (at any depth of a document) to a
 *                sink
 *   v8_sink      what the walk found: the builder itself (a .cpuprofile), or a chunk buffer
 *                replayed into the builder of its profile (a trace's events, whose identifying
 *                members may come after their data)
 *   v8_builder   nodes, links, ticks, weighted samples; v8_builder_finish makes the rows
 */
#ifndef PK_FORMATS_V8_V8_H
#define PK_FORMATS_V8_V8_H

#include <stdbool.h>
#include <stdint.h>

#include "core/buffer.h"
#include "core/hashmap.h"
#include "core/json_input.h"
#include "core/pairs.h"
#include "core/spool.h"
#include "profkit/error.h"
#include "profkit/profile.h"

/* A node as the walk found it: its function is already interned. */
typedef struct v8_node {
    int64_t id;
    int64_t parent;     /* when has_parent */
    bool has_parent;
    bool is_root;       /* the synthetic "(root)": no frame of its own */
    uint32_t function;  /* model function */
    int64_t hit_count;
    int64_t self_size;  /* a heap profile's bytes */
} v8_node;

/* Where a walk's findings go. Every call returns false when memory (or the spool) fails. */
typedef struct v8_sink_ops {
    bool (*node)(void *sink, const v8_node *node);
    bool (*link)(void *sink, int64_t child, int64_t parent);
    bool (*tick)(void *sink, int64_t node, int64_t line, int64_t ticks);
    bool (*sample)(void *sink, int64_t node);
    bool (*delta)(void *sink, int64_t microseconds);     /* timeDeltas */
    bool (*timestamp)(void *sink, int64_t microseconds); /* legacy `timestamps`: absolute */
    void (*start_time)(void *sink, double value);        /* µs (seconds in the legacy form) */
    void (*end_time)(void *sink, double value);
} v8_sink_ops;

/* The two arrays paired (core/pairs.h): kind 0 and 1. */
enum { V8_SAMPLES = 0, V8_DELTAS = 1 };

/* ---- the builder ----------------------------------------------------------------------------- */

typedef struct v8_node_entry {
    v8_node node;
    uint32_t ticks_first; /* the node's positionTicks: a chain through v8_tick.next */
    uint32_t prefix;      /* the parent's stack, computed at the end */
    uint32_t stack;       /* the node's */
    uint8_t state;        /* of the stack's computation: 0 not yet, 1 on the path, 2 done */
} v8_node_entry;

typedef struct v8_tick {
    int64_t node;
    int64_t line;
    int64_t ticks;
    uint32_t next; /* UINT32_MAX ends the chain */
} v8_tick;

/* What a node weighs: nanoseconds (a CPU profile) or bytes (a heap profile), and samples. */
typedef struct v8_sum {
    int64_t node;
    int64_t weight;
    int64_t count;
} v8_sum;

typedef struct v8_link {
    int64_t child, parent;
} v8_link;

typedef struct v8_builder {
    pk_profile *p;
    v8_node_entry *nodes;
    size_t node_count, node_cap;
    pk_u64map node_index; /* id -> nodes */
    v8_link *links;
    size_t link_count, link_cap;
    v8_tick *ticks;
    size_t tick_count, tick_cap;
    v8_sum *sums;          /* in the order nodes were first sampled */
    size_t sum_count, sum_cap;
    pk_u64map sum_index;   /* node id -> sums */
    pk_pairs pairs;
    /* time: sample i's time is known when its delta pairs; its weight when sample i + 1's is */
    bool have_start, have_end, legacy;
    double start, end;
    bool have_previous;
    int64_t previous_node;
    int64_t now;           /* µs: the time of the latest sample (relative to the start), never
                            * going back */
    int64_t raw_now;       /* µs: the sum of the deltas so far, as written */
    int64_t previous_raw;  /* the previous sample's raw_now */
    pk_spool *timed;       /* (node, raw time, weight) per weighed sample, for the timeline */
    int64_t timed_last;    /* the raw time of the last record spooled: times are deltas */
    bool have_first_timestamp;
    int64_t first_timestamp; /* legacy absolute times: the first, the timeline's origin */
    int64_t first_time;
    uint64_t samples;
    uint64_t backwards;    /* samples whose time went back: placed at the previous time */
    uint64_t unpaired[2];  /* samples without a delta, deltas without a sample */
    bool have_last_timestamp;
    int64_t last_timestamp; /* legacy absolute times, turned into deltas */
    uint64_t unknown_parents;
    uint32_t *path;        /* scratch for the stacks' computation */
    size_t path_count, path_cap;
} v8_builder;

extern const v8_sink_ops v8_builder_sink;

void v8_builder_init(v8_builder *b, pk_profile *p);
void v8_builder_free(v8_builder *b);
/* A sample and its time delta, when both arrays are at hand. False when memory runs out. */
bool v8_builder_pair(v8_builder *b, int64_t node, int64_t delta);
/* Ends a run of samples and deltas (a document, a trace's chunk): values of one array that the
 * other did not pair are counted (samples still count, with no time). */
bool v8_builder_end_arrays(v8_builder *b);
/* Makes the rows on thread: value weight (cpu in ns, or a heap profile's bytes) and count
 * (samples; PK_NONE: not kept). Damage at offset for nodes whose links form a cycle; warnings
 * (naming the thread) for what was left out. */
pk_status v8_builder_finish(v8_builder *b, uint32_t thread, uint32_t weight, uint32_t count,
                            uint64_t offset, pk_error *err);
/* Adds weight and count to node's sums, as the builder does for a weighted sample. False when
 * memory runs out. */
bool v8_builder_add(v8_builder *b, int64_t node, int64_t weight, int64_t count);
/* Whether anything was sampled or has hits. */
bool v8_builder_has_samples(const v8_builder *b);

/* ---- the JSON walk ---------------------------------------------------------------------------- */

typedef struct v8_pending_node {
    uint32_t level;       /* the level of the node's members */
    bool legacy;          /* nested under `head`: lines are 1-based, unless in a callFrame */
    bool call_frame;      /* the line and column came from a callFrame: 0-based */
    v8_node node;
    bool has_id;
    int64_t line, column; /* as written: -1 unknown */
    bool in_script;       /* a scriptId other than 0 */
    pk_buffer name, url;
    int64_t *children;    /* ids of children seen inside the node */
    size_t child_count, child_cap;
    int64_t tick_line, tick_ticks; /* the positionTicks entry being read */
    int64_t *ticks;       /* (line, ticks) pairs */
    size_t tick_count, tick_cap;
} v8_pending_node;

typedef struct v8_walk {
    pk_profile *p;
    const v8_sink_ops *ops;
    void *sink;
    v8_pending_node *pending; /* nodes open on the path (the legacy form nests them) */
    uint32_t pending_depth, pending_cap;
    int64_t next_synthetic_id; /* for legacy nodes without an id */
    bool saw_nodes, saw_head, saw_samples, saw_deltas;
} v8_walk;

void v8_walk_init(v8_walk *w, pk_profile *p, const v8_sink_ops *ops, void *sink);
void v8_walk_free(v8_walk *w);
/* The handler callbacks of a profile object whose members are at level `members` (the members
 * `nodes`, `samples`, `timeDeltas`, `timestamps`, `head`, `startTime`, `endTime`); callers call
 * them for values at or below that level. False when the sink fails (out of memory) or the
 * content is not a profile's (pk_json_parser_fail). */
bool v8_walk_scalar(v8_walk *w, pk_json_parser *jp, uint32_t members, const pk_json_scalar *v);
bool v8_walk_begin(v8_walk *w, pk_json_parser *jp, uint32_t members, bool is_array);
bool v8_walk_end(v8_walk *w, pk_json_parser *jp, uint32_t members, bool is_array);
/* For a damaged document: the nodes still open (a `head` tree's ancestors of where the damage
 * is) are finished with the members they had, so that what was read below them keeps its
 * stacks. False when memory fails. */
bool v8_walk_close(v8_walk *w);

/* ---- a buffered chunk ----------------------------------------------------------------------- */

/* A trace event's profile data, held until the event's end says which profile it belongs to.
 * As large as one event. */
typedef struct v8_chunk {
    v8_node *nodes;
    size_t node_count, node_cap;
    int64_t *links;  /* child, parent pairs */
    size_t link_count, link_cap;
    int64_t *ticks;  /* node, line, ticks triples */
    size_t tick_count, tick_cap;
    int64_t *samples;
    size_t sample_count, sample_cap;
    int64_t *deltas;
    size_t delta_count, delta_cap;
    bool have_start, have_end;
    double start, end;
} v8_chunk;

extern const v8_sink_ops v8_chunk_sink;

void v8_chunk_clear(v8_chunk *c);
void v8_chunk_free(v8_chunk *c);
bool v8_chunk_is_empty(const v8_chunk *c);
/* Replays the chunk into b, ending its arrays. False when memory fails. */
bool v8_chunk_replay(const v8_chunk *c, v8_builder *b);

#endif
