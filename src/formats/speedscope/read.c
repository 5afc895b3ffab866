/* SPDX-License-Identifier: MIT */
/* Reading speedscope's JSON file format, streaming: every version of the schema (the first ones
 * with `version`, evented profiles only; the later ones with sampled profiles, `name`,
 * `activeProfileIndex`, `exporter`), sampled and evented profiles, every unit.
 *
 * Keys come in any order: the profiles may come before `shared.frames`, so frames are known by
 * their index only until the end. Stacks are therefore first built over frame indexes, in a
 * prefix tree of (parent node, frame index) as large as the distinct stacks, and what each
 * profile's samples or events weigh is summed per (profile, node) in order of first appearance
 * (core/sums.h). At the end, once every frame is defined, the nodes become model stacks and the
 * sums rows, in that order. A sampled profile's `samples` and `weights` are paired as they stream
 * (core/pairs.h spools the first of the two). Nothing grows with the number of samples or
 * events.
 *
 * Values: a profile's unit decides its value type: times are summed in nanoseconds ("time"),
 * bytes in bytes ("bytes"), `none` as sample counts ("samples"). An evented profile's events
 * weigh the stack open between one event and the next.
 *
 * Times: a profile whose unit is a time has a timeline, as speedscope lays it out. A sampled
 * profile's samples are instants, each at startValue plus the weights of the samples before
 * it, weighing its own weight; an evented profile's are spans: the innermost open stack from
 * one event to the next (nothing where no frame is open). They are spooled as read
 * (core/timed_pending.h) and go into the timelines at the end, once the unit and the stacks are
 * known. A profile in bytes or counts has no times.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/arith.h"
#include "core/array.h"
#include "core/buffer.h"
#include "core/damage.h"
#include "core/hashmap.h"
#include "core/input.h"
#include "core/json_input.h"
#include "core/pairs.h"
#include "core/position.h"
#include "core/shown_names.h"
#include "core/sums.h"
#include "core/timed_pending.h"
#include "formats/speedscope/speedscope.h"
#include "profkit/timeline.h"

#define ROOT 0u              /* the node of the empty stack */
#define NO_FRAME UINT32_MAX  /* a frame index not given */
#define MAX_FRAME (UINT32_MAX - 1)

enum { SAMPLES = 0, WEIGHTS = 1 };

/* The value types a unit maps to. */
typedef enum unit_kind { UNIT_NONE, UNIT_TIME, UNIT_BYTES, UNIT_KINDS } unit_kind;

static const struct {
    const char *name;
    unit_kind kind;
    int64_t scale; /* nanoseconds or bytes in one */
} units[] = {
    {"none", UNIT_NONE, 1},          {"nanoseconds", UNIT_TIME, 1},
    {"microseconds", UNIT_TIME, 1000}, {"milliseconds", UNIT_TIME, 1000000},
    {"seconds", UNIT_TIME, 1000000000}, {"bytes", UNIT_BYTES, 1},
};

static const char *const value_names[UNIT_KINDS][2] = {
    {"samples", "count"}, {"time", "nanoseconds"}, {"bytes", "bytes"}};

typedef struct node {
    uint32_t parent;
    uint32_t frame; /* speedscope frame index */
    uint32_t stack; /* model stack, once resolved */
    bool resolved;
    /* The child found last, the one the next sample or event asks for most of the time. */
    uint32_t last_frame; /* NO_FRAME before any */
    uint32_t last_child;
} node;

typedef struct frame_def {
    uint32_t frame; /* model frame; PK_NONE until the frame is defined */
} frame_def;

typedef struct profile_info {
    uint32_t name;   /* string, 0 when unnamed */
    uint8_t unit;    /* index into units[] */
    bool unknown_unit;
    bool have_end;
    pk_pair_value end;
    pk_pair_value start; /* startValue: a sampled profile's first time */
    bool sampled;        /* its timed records are relative to start */
} profile_info;

/* The first event of a kind of damage, which its warning names. */
typedef struct event_ref {
    bool set;
    uint32_t profile; /* its index in the file */
    uint64_t event;   /* its index in `events`; UINT64_MAX for none (a profile's end) */
    uint32_t frame;   /* the frame index it names; NO_FRAME for none */
    uint64_t offset;  /* the byte just past it */
} event_ref;

enum { BAD_CLOSE, BACKWARDS, BAD_EVENT, LEFT_OPEN, EVENT_DAMAGE };

/* The member of a profile whose container is being read (profiles/?/KEY), known from its begin
 * on: its values are routed without comparing the keys of their path one by one. */
typedef enum section { OTHER, IN_SAMPLES, IN_WEIGHTS, IN_EVENTS } section;

typedef struct reader {
    pk_profile *p;
    /* the prefix tree of frame indexes */
    node *nodes;
    size_t node_count, node_cap;
    pk_u64map children; /* (parent << 32 | frame) -> node */
    /* frames by index: those shared.frames defines (as many as its elements), and the
     * placeholders of indexes it does not define, which may be any number up to MAX_FRAME */
    frame_def *frames;
    size_t frame_cap;
    pk_u64map undefined_frames; /* index -> model frame */
    /* the frame being read from shared.frames */
    pk_buffer name, file;
    bool have_file;
    int64_t line, col;
    /* profiles */
    profile_info *profiles;
    size_t profile_count, profile_cap;
    profile_info current;
    section in;           /* the profile member being read */
    uint32_t sample_node; /* the stack of the sample being read */
    pk_pairs pairs;
    /* evented: the open stack and when it was opened */
    uint32_t open;
    bool have_at;
    pk_pair_value at;
    char event_type;
    uint32_t event_frame;
    bool event_has_at;
    pk_pair_value event_at;
    pk_sums sums; /* (profile << 32 | node) -> weight */
    pk_timed_pending timed; /* each sample or span, in the units of its profile */
    pk_pair_value elapsed;  /* a sampled profile's weights so far */
    /* what is reported once at the end */
    uint64_t unpaired[2], bad_closes, backwards, left_open, bad_events;
    event_ref first[EVENT_DAMAGE];
    bool saw_profiles, saw_shared;
    bool in_profile; /* a profile was begun and not ended */
    uint32_t active_profile;
} reader;

static bool nomem(pk_json_parser *jp)
{
    return pk_json_parser_fail(jp, "out of memory reading the speedscope file");
}

static pk_pair_value number_of(const pk_json_scalar *v)
{
    int64_t i;
    if (pk_json_scalar_i64(v, &i))
        return pk_pair_int(i);
    return (pk_pair_value){true, 0, v->d};
}

/* A frame index, or a failure. */
static bool frame_index(pk_json_parser *jp, const pk_json_scalar *v, uint32_t *out)
{
    int64_t i;
    if (!pk_json_scalar_i64(v, &i) || i < 0 || i > MAX_FRAME)
        return pk_json_parser_fail(jp, "a frame index is not an integer from 0 to %u",
                                   MAX_FRAME);
    *out = (uint32_t)i;
    return true;
}

/* The child of parent for frame, made when new; ROOT's index is never returned. */
static bool child(reader *r, uint32_t parent, uint32_t frame, uint32_t *out)
{
    if (r->nodes[parent].last_frame == frame) {
        *out = r->nodes[parent].last_child;
        return true;
    }
    uint64_t key = (uint64_t)parent << 32 | frame;
    uint32_t *slot;
    bool inserted;
    if (r->node_count >= UINT32_MAX ||
        !pk_u64map_put(&r->children, key, (uint32_t)r->node_count, &slot, &inserted))
        return false;
    if (inserted) {
        if (!PK_ARRAY_RESERVE(r->nodes, r->node_cap, r->node_count + 1)) {
            pk_u64map_remove(&r->children, key, NULL);
            return false;
        }
        r->nodes[r->node_count++] = (node){parent, frame, PK_NONE, false, NO_FRAME, 0};
    }
    *out = *slot;
    r->nodes[parent].last_frame = frame;
    r->nodes[parent].last_child = *out;
    return true;
}

static bool weigh(reader *r, uint32_t at_node, pk_pair_value weight)
{
    uint64_t key = (uint64_t)r->profile_count << 32 | at_node;
    return pk_sums_add(&r->sums, key, weight);
}

/* ---- shared.frames ---------------------------------------------------------------------------- */

/* Room for frame index, the new entries not defined. */
static bool frames_reserve(reader *r, uint32_t index)
{
    size_t have = r->frame_cap;
    if (!PK_ARRAY_RESERVE(r->frames, r->frame_cap, (size_t)index + 1))
        return false;
    for (size_t i = have; i < r->frame_cap; i++)
        r->frames[i].frame = PK_NONE;
    return true;
}

static bool define_frame(reader *r, pk_json_parser *jp, uint64_t index)
{
    if (index > MAX_FRAME)
        return pk_json_parser_fail(jp, "more than %u frames", MAX_FRAME);
    if (!frames_reserve(r, (uint32_t)index))
        return nomem(jp);
    static const char unnamed[] = "(unnamed)";
    /* An empty name is written "(unnamed)", as profkit's writer does. */
    uint32_t name = r->name.len ? pk_intern(r->p, (const char *)r->name.data, r->name.len)
                                : pk_intern(r->p, unnamed, sizeof unnamed - 1);
    uint32_t file = r->have_file && r->file.len
                        ? pk_intern(r->p, (const char *)r->file.data, r->file.len)
                        : 0;
    /* A speedscope frame is a function: its line and column (1-based, as speedscope's importers
     * make them) are where the function starts. */
    pk_function f = {.name = name, .file = file, .start_line = pk_position(r->line),
                     .resource = PK_NONE, .start_column = pk_position(r->col)};
    uint32_t function = name == PK_NONE || file == PK_NONE ? PK_NONE : pk_intern_function(r->p, &f);
    pk_frame fr = {function, 0, 0, PK_NONE, 0};
    uint32_t frame = function == PK_NONE ? PK_NONE : pk_intern_frame(r->p, &fr);
    if (frame == PK_NONE)
        return nomem(jp);
    if (r->frames[index].frame == PK_NONE) /* an index given twice: the first stands */
        r->frames[index].frame = frame;
    return true;
}

static bool frame_member(reader *r, pk_json_parser *jp, const pk_json_scalar *v)
{
    if (pk_json_parser_key_is(jp, 3, "name") && v->kind == PK_JSON_STRING) {
        pk_buffer_clear(&r->name);
        pk_buffer_append(&r->name, v->s, v->len);
    } else if (pk_json_parser_key_is(jp, 3, "file") && v->kind == PK_JSON_STRING) {
        pk_buffer_clear(&r->file);
        pk_buffer_append(&r->file, v->s, v->len);
        r->have_file = true;
    } else if (pk_json_parser_key_is(jp, 3, "line")) {
        pk_json_scalar_i64(v, &r->line);
    } else if (pk_json_parser_key_is(jp, 3, "col")) {
        pk_json_scalar_i64(v, &r->col);
    }
    return r->name.failed || r->file.failed ? nomem(jp) : true;
}

/* ---- profiles ---------------------------------------------------------------------------------- */

static bool profile_member(reader *r, pk_json_parser *jp, const pk_json_scalar *v)
{
    profile_info *c = &r->current;
    if (pk_json_parser_key_is(jp, 2, "name") && v->kind == PK_JSON_STRING) {
        if ((c->name = pk_intern(r->p, v->s, v->len)) == PK_NONE)
            return nomem(jp);
    } else if (pk_json_parser_key_is(jp, 2, "unit")) {
        c->unknown_unit = true;
        for (uint8_t u = 0; u < sizeof units / sizeof units[0]; u++)
            if (pk_json_scalar_is(v, units[u].name)) {
                c->unit = u;
                c->unknown_unit = false;
            }
    } else if (pk_json_parser_key_is(jp, 2, "startValue") &&
               (v->kind == PK_JSON_INT || v->kind == PK_JSON_DOUBLE)) {
        c->start = number_of(v);
    } else if (pk_json_parser_key_is(jp, 2, "endValue") &&
               (v->kind == PK_JSON_INT || v->kind == PK_JSON_DOUBLE)) {
        c->have_end = true;
        c->end = number_of(v);
    }
    return true;
}

/* a + b, as an integer when both are. */
static pk_pair_value sum_of(pk_pair_value a, pk_pair_value b)
{
    if (!a.is_double && !b.is_double)
        return pk_pair_int(pk_add_saturating(a.i, b.i));
    double x = a.is_double ? a.d : (double)a.i, y = b.is_double ? b.d : (double)b.i;
    return (pk_pair_value){true, 0, x + y};
}

/* b - a, as an integer when both are. */
static pk_pair_value difference(pk_pair_value a, pk_pair_value b)
{
    if (!a.is_double && !b.is_double)
        return pk_pair_int(pk_sub_saturating(b.i, a.i));
    double x = a.is_double ? a.d : (double)a.i, y = b.is_double ? b.d : (double)b.i;
    return (pk_pair_value){true, 0, y - x};
}

static bool negative(pk_pair_value v)
{
    return v.is_double ? v.d < 0 : v.i < 0;
}

static bool positive(pk_pair_value v)
{
    return v.is_double ? v.d > 0 : v.i > 0;
}

/* Remembers the event being read (at an event's end) as the first of its kind of damage. */
static void note_event(reader *r, const pk_json_parser *jp, int kind, uint32_t frame)
{
    if (r->first[kind].set)
        return;
    r->first[kind] = (event_ref){true, (uint32_t)r->profile_count,
                                 jp ? pk_json_parser_index(jp, 3) : UINT64_MAX, frame,
                                 jp ? pk_json_parser_offset(jp) : 0};
}

/* The open stack weighs the time from the last event to `at`. No time weighs nothing: the
 * stacks become rows in the order they were first given time, not in the order they were
 * passed through (a caller opened at the moment its callee is). */
static bool advance(reader *r, const pk_json_parser *jp, pk_pair_value at)
{
    if (r->have_at) {
        pk_pair_value d = difference(r->at, at);
        if (negative(d)) {
            r->backwards++;
            note_event(r, jp, BACKWARDS, r->event_frame);
            return true; /* weighs nothing; the later time stands */
        }
        if (r->open != ROOT && positive(d)) {
            /* The open stack, as a span from the last event to this one. */
            pk_timed_record span = {(uint32_t)r->profile_count, r->open, r->at, d, d};
            if (!weigh(r, r->open, d) || !pk_timed_pending_add(&r->timed, &span))
                return false;
        }
    }
    r->have_at = true;
    r->at = at;
    return true;
}

static bool event(reader *r, pk_json_parser *jp)
{
    if ((r->event_type != 'O' && r->event_type != 'C') || r->event_frame == NO_FRAME ||
        !r->event_has_at) {
        r->bad_events++;
        note_event(r, jp, BAD_EVENT, r->event_frame);
        return true;
    }
    if (!advance(r, jp, r->event_at))
        return nomem(jp);
    if (r->event_type == 'O')
        return child(r, r->open, r->event_frame, &r->open) ? true : nomem(jp);
    /* A close of the innermost frame, or of one further out (the frames inside it close with
     * it); a frame that is not open is left alone. */
    uint32_t n = r->open;
    while (n != ROOT && r->nodes[n].frame != r->event_frame)
        n = r->nodes[n].parent;
    if (n == ROOT || n != r->open) {
        r->bad_closes++;
        note_event(r, jp, BAD_CLOSE, r->event_frame);
    }
    if (n != ROOT)
        r->open = r->nodes[n].parent;
    return true;
}

static bool weight_or_sample(reader *r, pk_json_parser *jp, int kind, pk_pair_value value)
{
    bool paired;
    pk_pair_value other;
    if (!pk_pairs_offer(&r->pairs, kind, value, &paired, &other))
        return nomem(jp);
    if (!paired)
        return true;
    pk_pair_value sample = kind == SAMPLES ? value : other, weight = kind == SAMPLES ? other : value;
    /* An instant at the weights before it, as speedscope lays samples out. */
    pk_timed_record instant = {(uint32_t)r->profile_count, (uint32_t)sample.i, r->elapsed,
                               pk_pair_int(0), weight};
    r->current.sampled = true;
    r->elapsed = sum_of(r->elapsed, weight);
    return weigh(r, (uint32_t)sample.i, weight) && pk_timed_pending_add(&r->timed, &instant)
               ? true
               : nomem(jp);
}

static bool begin_profile(reader *r)
{
    r->in_profile = true;
    r->current = (profile_info){0};
    r->open = ROOT;
    r->have_at = false;
    r->elapsed = pk_pair_int(0);
    return true;
}

/* The profile being read is complete (or cut: what it holds so far stands). False when memory
 * runs out. */
static bool end_profile(reader *r)
{
    r->in_profile = false;
    int kind;
    pk_pair_value value;
    while (pk_pairs_take_unpaired(&r->pairs, &kind, &value))
        r->unpaired[kind]++;
    if (r->pairs.reader.error)
        return false;
    /* Frames left open last until the profile's end value. */
    if (r->open != ROOT) {
        r->left_open++;
        note_event(r, NULL, LEFT_OPEN, r->nodes[r->open].frame);
        if (r->current.have_end && !advance(r, NULL, r->current.end))
            return false;
    }
    if (r->profile_count >= UINT32_MAX ||
        !PK_ARRAY_RESERVE(r->profiles, r->profile_cap, r->profile_count + 1))
        return false;
    r->profiles[r->profile_count++] = r->current;
    return true;
}

/* ---- the handler -------------------------------------------------------------------------------- */

static bool on_scalar(void *ctx, pk_json_parser *jp, const pk_json_scalar *v)
{
    reader *r = ctx;
    uint32_t d = pk_json_parser_depth(jp);
    if (r->in != OTHER) { /* in profiles/?/samples, weights or events */
        if (!pk_json_parser_in_array(jp, 1))
            return true;
        if (r->in == IN_WEIGHTS && d == 4)
            return weight_or_sample(r, jp, WEIGHTS, number_of(v));
        if (r->in == IN_SAMPLES && d == 5) {
            uint32_t frame = NO_FRAME;
            if (!frame_index(jp, v, &frame))
                return false;
            return child(r, r->sample_node, frame, &r->sample_node) ? true : nomem(jp);
        }
        if (r->in == IN_EVENTS && d == 5) {
            if (pk_json_parser_key_is(jp, 4, "type"))
                r->event_type = pk_json_scalar_is(v, "O") ? 'O' : pk_json_scalar_is(v, "C") ? 'C' : '?';
            else if (pk_json_parser_key_is(jp, 4, "frame"))
                return frame_index(jp, v, &r->event_frame);
            else if (pk_json_parser_key_is(jp, 4, "at") &&
                     (v->kind == PK_JSON_INT || v->kind == PK_JSON_DOUBLE)) {
                r->event_has_at = true;
                r->event_at = number_of(v);
            }
        }
        return true;
    }
    if (pk_json_parser_key_is(jp, 0, "profiles"))
        return d == 3 && pk_json_parser_in_array(jp, 1) ? profile_member(r, jp, v) : true;
    if (d == 4 && pk_json_parser_match(jp, 0, "shared/frames/#/*"))
        return frame_member(r, jp, v);
    if (d == 1) {
        if (pk_json_parser_key_is(jp, 0, "name") && v->kind == PK_JSON_STRING) {
            uint32_t name = pk_intern(r->p, v->s, v->len);
            if (name == PK_NONE)
                return nomem(jp);
            pk_metadata_of(r->p)->product = name;
        } else if (pk_json_parser_key_is(jp, 0, "exporter") && v->kind == PK_JSON_STRING) {
            pk_buffer_clear(&r->name);
            pk_buffer_append(&r->name, v->s, v->len);
            pk_buffer_append(&r->name, "", 1);
            if (r->name.failed ||
                pk_property_set(r->p, "exporter", (const char *)r->name.data) != PK_OK)
                return nomem(jp);
        } else if (pk_json_parser_key_is(jp, 0, "activeProfileIndex")) {
            int64_t i;
            if (pk_json_scalar_i64(v, &i) && i >= 0 && i < UINT32_MAX)
                r->active_profile = (uint32_t)i;
        }
    }
    return true;
}

static bool on_begin(void *ctx, pk_json_parser *jp, bool is_array)
{
    reader *r = ctx;
    uint32_t d = pk_json_parser_depth(jp);
    if (d == 0)
        return true;
    if (r->in == IN_SAMPLES) {
        if (d == 4 && is_array)
            r->sample_node = ROOT;
        return true;
    }
    if (r->in == IN_EVENTS) {
        if (d == 4 && !is_array) {
            r->event_type = 0;
            r->event_frame = NO_FRAME;
            r->event_has_at = false;
        }
        return true;
    }
    if (r->in == IN_WEIGHTS)
        return true;
    if (pk_json_parser_key_is(jp, 0, "profiles")) {
        r->saw_profiles = true;
        if (d == 2 && !is_array && pk_json_parser_in_array(jp, 1))
            return begin_profile(r);
        if (d == 3)
            r->in = pk_json_parser_key_is(jp, 2, "samples")   ? IN_SAMPLES
                    : pk_json_parser_key_is(jp, 2, "weights") ? IN_WEIGHTS
                    : pk_json_parser_key_is(jp, 2, "events")  ? IN_EVENTS
                                                              : OTHER;
        return true;
    }
    if (d == 3 && !is_array && pk_json_parser_match(jp, 0, "shared/frames/#")) {
        r->saw_shared = true;
        pk_buffer_clear(&r->name);
        pk_buffer_clear(&r->file);
        r->have_file = false;
        r->line = r->col = 0;
    }
    return true;
}

static bool on_end(void *ctx, pk_json_parser *jp, bool is_array)
{
    reader *r = ctx;
    uint32_t d = pk_json_parser_depth(jp);
    if (r->in != OTHER) {
        if (d == 3)
            r->in = OTHER; /* the member ends */
        else if (r->in == IN_SAMPLES && d == 4 && is_array)
            return weight_or_sample(r, jp, SAMPLES, pk_pair_int(r->sample_node));
        else if (r->in == IN_EVENTS && d == 4 && !is_array)
            return event(r, jp);
        return true;
    }
    if (pk_json_parser_key_is(jp, 0, "profiles")) {
        if (d == 2 && !is_array && pk_json_parser_in_array(jp, 1))
            return end_profile(r) ? true : nomem(jp);
        return true;
    }
    if (d == 3 && !is_array && pk_json_parser_match(jp, 0, "shared/frames/#"))
        return define_frame(r, jp, pk_json_parser_index(jp, 2));
    return true;
}

/* ---- the end: threads, stacks, rows ----------------------------------------------------------- */

static pk_status out_of_memory(pk_error *err)
{
    return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory reading the speedscope file");
}

/* The model frame of a frame index; a placeholder for one shared.frames does not define. */
static uint32_t model_frame(reader *r, uint32_t index, uint64_t *undefined)
{
    if (index < r->frame_cap && r->frames[index].frame != PK_NONE)
        return r->frames[index].frame;
    const uint32_t *known = pk_u64map_find(&r->undefined_frames, index);
    if (known)
        return *known;
    (*undefined)++;
    pk_function f = {.name = pk_intern_printf(r->p, "(frame %" PRIu32 ")", index),
                      .resource = PK_NONE};
    if (f.name == PK_NONE)
        return PK_NONE;
    uint32_t function = pk_intern_function(r->p, &f);
    pk_frame fr = {function, 0, 0, PK_NONE, 0};
    uint32_t frame = function == PK_NONE ? PK_NONE : pk_intern_frame(r->p, &fr);
    if (frame == PK_NONE || !pk_u64map_put(&r->undefined_frames, index, frame, NULL, NULL))
        return PK_NONE;
    return frame;
}

/* The model stack of node n: up to a resolved ancestor, then down interning. */
static uint32_t resolve(reader *r, uint32_t n, uint32_t **path, size_t *cap, uint64_t *undefined)
{
    size_t count = 0;
    for (uint32_t x = n; x != ROOT && !r->nodes[x].resolved; x = r->nodes[x].parent) {
        if (!pk_array_reserve((void **)path, cap, sizeof **path, count + 1))
            return PK_NONE;
        (*path)[count++] = x;
    }
    while (count > 0) {
        node *y = &r->nodes[(*path)[--count]];
        uint32_t prefix = y->parent == ROOT ? PK_NONE : r->nodes[y->parent].stack;
        uint32_t frame = model_frame(r, y->frame, undefined);
        y->stack = frame == PK_NONE ? PK_NONE : pk_intern_stack(r->p, prefix, frame);
        if (y->stack == PK_NONE)
            return PK_NONE;
        y->resolved = true;
    }
    return r->nodes[n].stack;
}

/* Threads, one per profile, named as shown: profiles sharing a name are told apart as every
 * output tells threads apart, so that what is written reads back with the same names. */
static pk_status make_threads(reader *r, pk_error *err)
{
    for (size_t i = 0; i < r->profile_count; i++) {
        uint32_t name = r->profiles[i].name;
        if (name == 0)
            name = pk_intern_printf(r->p, "Thread %zu", i + 1);
        if (name == PK_NONE || pk_add_thread(r->p, name, -1, -1) == PK_NONE)
            return out_of_memory(err);
    }
    return pk_rename_threads_as_shown(r->p) ? PK_OK : out_of_memory(err);
}

/* "; the first: event 4 of profile 1 ("main"), frame 2 ("parse"), ending at byte 310": the
 * first event of a kind of damage, for its warning (frames are named once all are defined). */
static void describe_first(reader *r, const event_ref *e, char *text, size_t size)
{
    const char *profile = e->profile < pk_thread_count(r->p)
                              ? pk_str(r->p, pk_thread_at(r->p, e->profile)->name)
                              : "";
    int n = e->event == UINT64_MAX
                ? snprintf(text, size, "; the first: profile %" PRIu32 " (\"%s\")", e->profile + 1,
                           profile)
                : snprintf(text, size, "; the first: event %" PRIu64 " of profile %" PRIu32
                                       " (\"%s\")",
                           e->event + 1, e->profile + 1, profile);
    if (n < 0 || (size_t)n >= size)
        return;
    if (e->frame != NO_FRAME) {
        uint64_t undefined = 0;
        uint32_t frame = model_frame(r, e->frame, &undefined);
        const char *name = frame == PK_NONE
                               ? ""
                               : pk_str(r->p, pk_function_at(r->p, pk_frame_at(r->p, frame)->function)->name);
        int m = snprintf(text + n, size - (size_t)n, ", %sframe %" PRIu32 " (\"%s\")",
                         e->event == UINT64_MAX ? "innermost open " : "", e->frame, name);
        if (m < 0 || (size_t)m >= size - (size_t)n)
            return;
        n += m;
    }
    if (e->event != UINT64_MAX)
        snprintf(text + n, size - (size_t)n, ", ending at byte %" PRIu64, e->offset);
}

/* A number of a profile's unit in the model's (nanoseconds), as the sums are scaled. */
static int64_t scaled(pk_pair_value v, int64_t scale)
{
    pk_sum one = {0, v.is_double ? 0 : v.i, v.is_double ? v.d : 0, 1};
    return pk_sum_scaled(&one, scale);
}

typedef struct timed_replay {
    reader *r;
    const uint32_t *value_of;
    uint32_t **path;
    size_t *cap;
    uint64_t *undefined;
    bool nomem;
    pk_status status;
} timed_replay;

/* One spooled sample or span into its profile's timeline, when the profile's unit is a time. */
static bool replay_one(void *ctx, const pk_timed_record *t)
{
    timed_replay *x = ctx;
    reader *r = x->r;
    if (t->thread >= r->profile_count || t->key >= r->node_count)
        return true; /* a profile the document cut */
    const profile_info *info = &r->profiles[t->thread];
    if (units[info->unit].kind != UNIT_TIME || info->unknown_unit)
        return true;
    int64_t scale = units[info->unit].scale;
    int64_t weight = scaled(t->weight, scale), duration = scaled(t->duration, scale);
    if (weight == 0 && duration == 0)
        return true; /* as rows of weight zero are passed over */
    int64_t time = scaled(info->sampled ? sum_of(info->start, t->time) : t->time, scale);
    uint32_t stack = t->key == ROOT ? PK_NONE : resolve(r, t->key, x->path, x->cap, x->undefined);
    if (t->key != ROOT && stack == PK_NONE) {
        x->nomem = true;
        return false;
    }
    int64_t values[PK_MAX_VALUES];
    memset(values, 0, pk_value_type_count(r->p) * sizeof *values);
    values[x->value_of[UNIT_TIME]] = weight;
    pk_status status = pk_timeline_append(r->p, t->thread, stack, time, duration < 0 ? 0 : duration,
                                          values);
    /* A time or span beyond the model's clock: the rows hold it alone. */
    if (status == PK_ERR_USAGE)
        status = pk_timeline_drop(r->p, t->thread);
    x->status = status;
    return status == PK_OK;
}

static pk_status timed_samples(reader *r, const uint32_t *value_of, uint32_t **path, size_t *cap,
                               uint64_t *undefined, pk_error *err)
{
    if (r->timed.failed)
        return pk_error_set(err, PK_ERR_IO, PK_NO_OFFSET,
                            "cannot write the sample times to a temporary file");
    timed_replay x = {r, value_of, path, cap, undefined, false, PK_OK};
    bool io_error;
    if (pk_timed_pending_replay(&r->timed, replay_one, &x, &io_error))
        return PK_OK;
    if (x.nomem || x.status == PK_ERR_NOMEM)
        return out_of_memory(err);
    return pk_error_set(err, PK_ERR_IO, PK_NO_OFFSET,
                        io_error ? "cannot read the sample times back from a temporary file"
                                 : "cannot write the sample times to a temporary file");
}

static pk_status finish(reader *r, pk_error *err)
{
    pk_status status = make_threads(r, err);
    if (status != PK_OK)
        return status;
    /* A value type per kind of unit, in the order the profiles use them; the active profile's
     * is the default. */
    uint32_t value_of[UNIT_KINDS] = {PK_NONE, PK_NONE, PK_NONE};
    for (size_t i = 0; i < r->profile_count; i++) {
        unit_kind k = units[r->profiles[i].unit].kind;
        if (value_of[k] == PK_NONE &&
            (value_of[k] = pk_add_value_type(r->p, value_names[k][0], value_names[k][1])) ==
                PK_NONE)
            return out_of_memory(err);
    }
    if (r->active_profile < r->profile_count)
        pk_set_default_value(r->p, value_of[units[r->profiles[r->active_profile].unit].kind]);

    uint32_t *path = NULL;
    size_t cap = 0;
    uint64_t undefined = 0, unknown_units = 0;
    for (size_t i = 0; i < r->profile_count; i++)
        unknown_units += r->profiles[i].unknown_unit;
    for (size_t i = 0; i < r->sums.count; i++) {
        const pk_sum *s = &r->sums.items[i];
        uint32_t profile = (uint32_t)(s->key >> 32), n = (uint32_t)s->key;
        if (profile >= r->profile_count || n >= r->node_count)
            continue; /* a profile the document cut */
        const profile_info *info = &r->profiles[profile];
        int64_t v = pk_sum_scaled(s, units[info->unit].scale);
        if (v == 0)
            continue; /* speedscope passes over weights of zero */
        uint32_t stack = n == ROOT ? PK_NONE : resolve(r, n, &path, &cap, &undefined);
        if ((n != ROOT && stack == PK_NONE) ||
            pk_add_sample_value(r->p, profile, stack, value_of[units[info->unit].kind], v) !=
                PK_OK) {
            free(path);
            return out_of_memory(err);
        }
    }
    status = timed_samples(r, value_of, &path, &cap, &undefined, err);
    free(path);
    if (status != PK_OK)
        return status;
    if (undefined)
        pk_warn(r->p, "%" PRIu64 " frame%s not in shared.frames named by their index", undefined,
                undefined == 1 ? "" : "s");
    if (unknown_units)
        pk_warn(r->p, "%" PRIu64 " profile%s with an unknown unit read as counts", unknown_units,
                unknown_units == 1 ? "" : "s");
    if (r->unpaired[SAMPLES])
        pk_warn(r->p, "%" PRIu64 " sample%s without a weight left out", r->unpaired[SAMPLES],
                r->unpaired[SAMPLES] == 1 ? "" : "s");
    if (r->unpaired[WEIGHTS])
        pk_warn(r->p, "%" PRIu64 " weight%s without a sample left out", r->unpaired[WEIGHTS],
                r->unpaired[WEIGHTS] == 1 ? "" : "s");
    char first[EVENT_DAMAGE][320];
    for (int k = 0; k < EVENT_DAMAGE; k++) {
        first[k][0] = '\0';
        if (r->first[k].set)
            describe_first(r, &r->first[k], first[k], sizeof first[k]);
    }
    if (r->bad_events)
        pk_warn(r->p, "%" PRIu64 " event%s without a type O or C, a frame or a time left out%s",
                r->bad_events, r->bad_events == 1 ? "" : "s", first[BAD_EVENT]);
    if (r->bad_closes)
        pk_warn(r->p, "%" PRIu64 " close event%s not of the innermost open frame (frames inside "
                      "closed with it, or the event left out)%s",
                r->bad_closes, r->bad_closes == 1 ? "" : "s", first[BAD_CLOSE]);
    if (r->backwards)
        pk_warn(r->p, "%" PRIu64 " event%s earlier than the one before weighed nothing%s",
                r->backwards, r->backwards == 1 ? "" : "s", first[BACKWARDS]);
    if (r->left_open)
        pk_warn(r->p, "%" PRIu64 " profile%s with frames left open, closed at the end value%s",
                r->left_open, r->left_open == 1 ? "" : "s", first[LEFT_OPEN]);
    return PK_OK;
}

pk_status speedscope_read(pk_input *in, pk_profile *p, const pk_read_options *options,
                          pk_error *err)
{
    (void)options;
    reader r;
    memset(&r, 0, sizeof r);
    r.p = p;
    pk_u64map_init(&r.children);
    pk_u64map_init(&r.undefined_frames);
    pk_pairs_init(&r.pairs);
    pk_sums_init(&r.sums);
    pk_status status = PK_OK;
    /* Node 0 is the root, the empty stack. */
    if (!PK_ARRAY_RESERVE(r.nodes, r.node_cap, 1)) {
        status = out_of_memory(err);
        goto done;
    }
    r.nodes[r.node_count++] = (node){ROOT, NO_FRAME, PK_NONE, true, NO_FRAME, 0};

    status = pk_json_read(in, &(pk_json_handler){on_scalar, on_begin, on_end}, &r,
                          "the speedscope file", "not a speedscope file", NULL, err);
    if (status == PK_OK || status == PK_ERR_INPUT) {
        if (!r.saw_profiles && !r.saw_shared) {
            if (status == PK_OK)
                status = pk_error_set(err, PK_ERR_INPUT, 0,
                                      "not a speedscope file: no profiles or shared frames");
        } else {
            /* What was read is kept, the profile the damage cut included: with damage, salvage
             * decides whether it stands. */
            pk_error finish_err;
            pk_status finished = r.in_profile && !end_profile(&r) ? out_of_memory(&finish_err)
                                                                  : finish(&r, &finish_err);
            if (finished != PK_OK) {
                *err = finish_err;
                status = finished;
            }
        }
    }
done:
    free(r.nodes);
    pk_u64map_free(&r.children);
    free(r.frames);
    pk_u64map_free(&r.undefined_frames);
    pk_buffer_free(&r.name);
    pk_buffer_free(&r.file);
    free(r.profiles);
    pk_pairs_free(&r.pairs);
    pk_sums_free(&r.sums);
    pk_timed_pending_free(&r.timed);
    return status;
}
