/* SPDX-License-Identifier: MIT */
/* Reading a Chrome JSON trace (trace.h): the container, each event's fields, and the dispatch
 * of whole events. An event's members come in any order (Chrome writes `args` first), so its
 * fields are gathered, and a profile event's data buffered (v8_chunk), until the event ends. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buffer.h"
#include "core/damage.h"
#include "core/input.h"
#include "core/json_input.h"
#include "formats/trace/trace.h"

typedef struct trace_event {
    pk_buffer name;
    pk_buffer arg_name;   /* args.name of an M event */
    pk_buffer arg_labels; /* args.labels of an M event (process_labels) */
    char ph;
    bool has_pid, has_tid, has_ts, has_dur, has_tdur, has_id, has_arg_name, has_arg_labels;
    int64_t pid, tid;
    int64_t ts, dur, tdur; /* ns */
    uint32_t id;        /* string */
    v8_chunk chunk;
} trace_event;

/* A member of the object form's `samples` array or `stackFrames` object (samples.c). */
typedef enum trace_item_kind { ITEM_NONE, ITEM_SAMPLE, ITEM_FRAME } trace_item_kind;

typedef struct trace_item {
    trace_item_kind kind;
    bool has_pid, has_tid, has_ts, has_sf;
    int64_t pid, tid, ts, weight; /* ts in ns */
    uint32_t sf;                  /* string: the sample's frame id */
    uint32_t key;                 /* a frame's id */
    trace_frame_desc frame;
} trace_item;

typedef struct trace_reader {
    pk_profile *p;
    bool object_form;
    bool in_event;
    uint32_t level;     /* of the event's members */
    trace_event ev;
    trace_item item;
    v8_walk walk;
    trace_threads threads;
    trace_profiles profiles;
    trace_samples samples;
    uint32_t cpu, count, wall;
    uint64_t events, other_events, bad_events, untimed, bad_samples;
    uint64_t last_event_end; /* byte offset just past the last whole event */
    char first_bad[160];
} trace_reader;

static bool nomem(pk_json_parser *jp)
{
    return pk_json_parser_fail(jp, "out of memory reading the trace");
}

/* A pid or tid: a number, or a string (of digits, or any: then a key of its own). */
static bool process_or_thread_id(trace_reader *r, const pk_json_scalar *v, int64_t *out)
{
    if (pk_json_scalar_i64(v, out))
        return true;
    if (v->kind != PK_JSON_STRING)
        return false;
    char digits[24];
    if (v->len && v->len < sizeof digits) {
        memcpy(digits, v->s, v->len);
        digits[v->len] = '\0';
        char *end;
        long long n = strtoll(digits, &end, 10);
        if (*end == '\0') {
            *out = n;
            return true;
        }
    }
    uint32_t s = pk_intern(r->p, v->s, v->len);
    *out = s == PK_NONE ? -1 : TRACE_STRING_ID + s;
    return true;
}

/* A time in µs (a number, or a string holding one) as ns. */
static bool microseconds(const pk_json_scalar *v, int64_t *ns)
{
    pk_json_scalar quoted;
    if (pk_json_scalar_quoted_number(v, &quoted))
        v = &quoted;
    double d;
    if (!pk_json_scalar_double(v, &d) || !(fabs(d) < 9e15))
        return false;
    int64_t us;
    *ns = pk_json_scalar_i64(v, &us) ? us * 1000 : (int64_t)llround(d * 1000.0);
    return true;
}

static void event_member(trace_reader *r, const char *key, size_t len, const pk_json_scalar *v)
{
    trace_event *e = &r->ev;
#define KEY(k) (len == sizeof k - 1 && memcmp(key, k, len) == 0)
    if (KEY("ph")) {
        e->ph = v->kind == PK_JSON_STRING && v->len == 1 ? v->s[0] : '?';
    } else if (KEY("name") && v->kind == PK_JSON_STRING) {
        pk_buffer_clear(&e->name);
        pk_buffer_append(&e->name, v->s, v->len);
    } else if (KEY("pid")) {
        e->has_pid = process_or_thread_id(r, v, &e->pid);
    } else if (KEY("tid")) {
        e->has_tid = process_or_thread_id(r, v, &e->tid);
    } else if (KEY("ts")) {
        e->has_ts = microseconds(v, &e->ts);
    } else if (KEY("dur")) {
        e->has_dur = microseconds(v, &e->dur);
    } else if (KEY("tdur")) {
        e->has_tdur = microseconds(v, &e->tdur);
    } else if (KEY("id")) {
        int64_t n;
        if (v->kind == PK_JSON_STRING)
            e->id = pk_intern(r->p, v->s, v->len);
        else if (pk_json_scalar_i64(v, &n))
            e->id = pk_intern_printf(r->p, "%" PRId64, n);
        e->has_id = e->id != PK_NONE;
    }
#undef KEY
}

static bool name_is(const trace_event *e, const char *name)
{
    size_t n = strlen(name);
    return e->name.len == n && memcmp(e->name.data, name, n) == 0;
}

static void bad_event(trace_reader *r, pk_json_parser *jp, const char *why)
{
    if (!r->bad_events++)
        snprintf(r->first_bad, sizeof r->first_bad, "the first, '%.*s' ending at byte %" PRIu64
                 ", %s", (int)(r->ev.name.len > 60 ? 60 : r->ev.name.len),
                 r->ev.name.data ? (const char *)r->ev.name.data : "", pk_json_parser_offset(jp),
                 why);
}

static bool duration_event(trace_reader *r, pk_json_parser *jp, int phase)
{
    trace_event *e = &r->ev;
    if (!e->has_ts) {
        bad_event(r, jp, "has no ts");
        return true;
    }
    if (phase == PK_SPAN_COMPLETE && !e->has_dur) {
        /* Its thread-clock duration is the only length such an event has (speedscope takes it
         * too); without one it is zero-length. */
        r->untimed++;
        e->dur = e->has_tdur ? e->tdur : 0;
    }
    uint32_t frame = PK_NONE;
    if (e->name.len || phase != PK_SPAN_END) {
        pk_function f = {.name = e->name.len
                                     ? pk_intern(r->p, (const char *)e->name.data, e->name.len)
                                     : pk_intern_cstr(r->p, "(unnamed)"),
                         .resource = PK_NONE};
        pk_frame fr = {f.name == PK_NONE ? PK_NONE : pk_intern_function(r->p, &f), 0, 0,
                       PK_NONE, 0};
        frame = fr.function == PK_NONE ? PK_NONE : pk_intern_frame(r->p, &fr);
        if (frame == PK_NONE)
            return nomem(jp);
    }
    trace_thread *entry = trace_threads_get(&r->threads, e->pid, e->tid);
    if (!entry)
        return nomem(jp);
    if (!entry->timeline && !(entry->timeline = pk_call_spans_new(TRACE_REORDER_WINDOW)))
        return nomem(jp);
    uint32_t thread = trace_threads_model(&r->threads, entry);
    if (thread == PK_NONE ||
        !pk_call_spans_add(entry->timeline, &(pk_call_spans_target){r->p, thread, r->wall, PK_NONE},
                           phase, e->ts, e->dur, PK_SPAN_NO_CPU, frame))
        return nomem(jp);
    return true;
}

static bool metadata_event(trace_reader *r, pk_json_parser *jp)
{
    trace_event *e = &r->ev;
    if (name_is(e, "process_labels") && e->has_arg_labels) {
        uint32_t labels = pk_intern(r->p, (const char *)e->arg_labels.data, e->arg_labels.len);
        if (labels == PK_NONE || !trace_threads_label_process(&r->threads, e->pid, labels))
            return nomem(jp);
        return true;
    }
    if (!e->has_arg_name)
        return true;
    uint32_t name = pk_intern(r->p, (const char *)e->arg_name.data, e->arg_name.len);
    if (name == PK_NONE)
        return nomem(jp);
    if (name_is(e, "process_name"))
        return trace_threads_name_process(&r->threads, e->pid, name) ? true : nomem(jp);
    if (name_is(e, "thread_name")) {
        trace_thread *entry = trace_threads_get(&r->threads, e->pid, e->tid);
        if (!entry)
            return nomem(jp);
        entry->name = name;
    }
    return true;
}

static bool profile_event(trace_reader *r, pk_json_parser *jp)
{
    trace_event *e = &r->ev;
    bool whole = name_is(e, "CpuProfile");
    uint32_t id = e->has_id ? e->id : pk_intern_printf(r->p, "%" PRId64, e->tid);
    if (whole)
        id = pk_intern_printf(r->p, "CpuProfile of thread %" PRId64 " at %" PRId64, e->tid, e->ts);
    trace_profile *profile = id == PK_NONE ? NULL : trace_profiles_get(&r->profiles, e->pid, id);
    if (!profile)
        return nomem(jp);
    if (whole || name_is(e, "Profile")) {
        profile->has_thread = true;
        profile->tid = e->tid;
    } else if (profile->chunk_tid < 0) {
        profile->chunk_tid = e->tid;
    }
    return v8_chunk_replay(&e->chunk, &profile->builder) ? true : nomem(jp);
}

static bool dispatch(trace_reader *r, pk_json_parser *jp)
{
    trace_event *e = &r->ev;
    r->events++;
    if (e->name.failed || e->arg_name.failed || e->arg_labels.failed)
        return nomem(jp);
    if (!e->has_pid)
        e->pid = 0;
    if (!e->has_tid)
        e->tid = 0;
    bool ok = true;
    if (name_is(e, "Profile") || name_is(e, "ProfileChunk") || name_is(e, "CpuProfile"))
        ok = profile_event(r, jp);
    else if (e->ph == 'B')
        ok = duration_event(r, jp, PK_SPAN_BEGIN);
    else if (e->ph == 'E')
        ok = duration_event(r, jp, PK_SPAN_END);
    else if (e->ph == 'X')
        ok = duration_event(r, jp, PK_SPAN_COMPLETE);
    else if (e->ph == 'M')
        ok = metadata_event(r, jp);
    else
        r->other_events++;
    r->last_event_end = pk_json_parser_offset(jp);
    return ok;
}

static void event_start(trace_reader *r, uint32_t level)
{
    trace_event *e = &r->ev;
    r->in_event = true;
    r->level = level;
    pk_buffer_clear(&e->name);
    pk_buffer_clear(&e->arg_name);
    pk_buffer_clear(&e->arg_labels);
    e->ph = 0;
    e->has_pid = e->has_tid = e->has_ts = e->has_dur = e->has_tdur = e->has_id = false;
    e->has_arg_name = e->has_arg_labels = false;
    e->dur = e->tdur = 0;
    v8_chunk_clear(&e->chunk);
}

/* A frame id, a parent's id or a sample's sf: a string, or a number as its decimal text (so that
 * "sf": 3 finds the member "3" of stackFrames). */
static uint32_t frame_id(trace_reader *r, const pk_json_scalar *v)
{
    int64_t n;
    if (v->kind == PK_JSON_STRING)
        return pk_intern(r->p, v->s, v->len);
    if (pk_json_scalar_i64(v, &n))
        return pk_intern_printf(r->p, "%" PRId64, n);
    return PK_NONE;
}

/* A count or line: a whole number >= 0, or a string holding one. */
static bool whole_number(const pk_json_scalar *v, int64_t *out)
{
    pk_json_scalar quoted;
    if (pk_json_scalar_quoted_number(v, &quoted))
        v = &quoted;
    return pk_json_scalar_i64(v, out) && *out >= 0;
}

static void item_start(trace_reader *r, trace_item_kind kind, pk_json_parser *jp)
{
    r->item = (trace_item){.kind = kind, .weight = 1, .key = PK_NONE,
                           .frame = {.name = PK_NONE, .parent = PK_NONE}};
    if (kind == ITEM_FRAME) {
        size_t len;
        const char *key = pk_json_parser_key(jp, 1, &len);
        r->item.key = key ? pk_intern(r->p, key, len) : PK_NONE;
    }
}

static void item_member(trace_reader *r, const char *key, size_t len, const pk_json_scalar *v)
{
    trace_item *it = &r->item;
    int64_t n;
#define KEY(k) (len == sizeof k - 1 && memcmp(key, k, len) == 0)
    if (it->kind == ITEM_SAMPLE) {
        if (KEY("pid"))
            it->has_pid = process_or_thread_id(r, v, &it->pid);
        else if (KEY("tid"))
            it->has_tid = process_or_thread_id(r, v, &it->tid);
        else if (KEY("ts"))
            it->has_ts = microseconds(v, &it->ts);
        else if (KEY("sf"))
            it->has_sf = (it->sf = frame_id(r, v)) != PK_NONE;
        else if (KEY("weight") && whole_number(v, &n))
            it->weight = n;
    } else {
        trace_frame_desc *f = &it->frame;
        if (KEY("name") && v->kind == PK_JSON_STRING)
            f->name = pk_intern(r->p, v->s, v->len);
        else if (KEY("parent"))
            f->parent = frame_id(r, v);
        else if (KEY("category") && v->kind == PK_JSON_STRING)
            f->script = v->len == 10 && memcmp(v->s, "JavaScript", 10) == 0;
        else if (whole_number(v, &n) && n <= UINT32_MAX) {
            uint32_t *place = KEY("line")         ? &f->line
                              : KEY("funcLine")   ? &f->func_line
                              : KEY("funcColumn") ? &f->func_column
                                                  : NULL;
            if (place)
                *place = (uint32_t)n;
        }
    }
#undef KEY
}

static bool item_end(trace_reader *r, pk_json_parser *jp)
{
    trace_item *it = &r->item;
    trace_item_kind kind = it->kind;
    it->kind = ITEM_NONE;
    if (kind == ITEM_FRAME) {
        if (it->key == PK_NONE)
            return nomem(jp);
        if (it->frame.name == PK_NONE)
            it->frame.name = pk_intern_cstr(r->p, "(unnamed)");
        return it->frame.name != PK_NONE && trace_samples_frame(&r->samples, it->key, &it->frame)
                   ? true
                   : nomem(jp);
    }
    if (!it->has_ts || !it->has_sf) {
        r->bad_samples++;
        return true;
    }
    trace_thread *entry = trace_threads_get(&r->threads, it->has_pid ? it->pid : 0,
                                            it->has_tid ? it->tid : 0);
    return entry && trace_samples_add(&r->samples, &r->threads, entry, it->sf, it->ts,
                                      it->weight)
               ? true
               : nomem(jp);
}

/* Where the object form's sampled stacks begin: an item of `samples` or of `stackFrames`. */
static trace_item_kind item_at(const pk_json_parser *jp, uint32_t d, bool is_array)
{
    if (d != 2 || is_array)
        return ITEM_NONE;
    if (pk_json_parser_key_is(jp, 0, "samples") && pk_json_parser_in_array(jp, 1))
        return ITEM_SAMPLE;
    if (pk_json_parser_key_is(jp, 0, "stackFrames") && !pk_json_parser_in_array(jp, 1))
        return ITEM_FRAME;
    return ITEM_NONE;
}

/* Inside args.data of an event: where the profile object's members are. Every container in an
 * event other than `args`, `args.data` and what is in those two is skipped (on_begin), so
 * whatever is delivered three levels below the event is inside args.data: only the depth is
 * compared. */
static bool in_profile_data(const trace_reader *r, const pk_json_parser *jp, uint32_t *members)
{
    uint32_t e = r->level, d = pk_json_parser_depth(jp);
    if (d < e + 3)
        return false;
    *members = d > e + 3 && pk_json_parser_key_is(jp, e + 2, "cpuProfile") ? e + 3 : e + 2;
    return true;
}

static bool on_begin(void *ctx, pk_json_parser *jp, bool is_array)
{
    trace_reader *r = ctx;
    uint32_t d = pk_json_parser_depth(jp);
    if (d == 0) {
        r->object_form = !is_array;
        return true;
    }
    if (!r->in_event) {
        if (r->item.kind != ITEM_NONE) {
            pk_json_parser_skip(jp); /* a sample's stack of addresses, ... */
            return true;
        }
        trace_item_kind item = r->object_form ? item_at(jp, d, is_array) : ITEM_NONE;
        if (item != ITEM_NONE) {
            item_start(r, item, jp);
            return true;
        }
        if (!is_array && ((!r->object_form && d == 1) ||
                          (r->object_form && d == 2 && pk_json_parser_key_is(jp, 0, "traceEvents") &&
                           pk_json_parser_in_array(jp, 1)))) {
            event_start(r, d);
            return true;
        }
        /* Around the events and the sampled stacks: metadata, system traces are left aside. */
        if (!(r->object_form && d == 1 &&
              ((is_array && (pk_json_parser_key_is(jp, 0, "traceEvents") ||
                             pk_json_parser_key_is(jp, 0, "samples"))) ||
               (!is_array && pk_json_parser_key_is(jp, 0, "stackFrames")))))
            pk_json_parser_skip(jp);
        return true;
    }
    uint32_t e = r->level, members;
    if (d == e + 1 && !pk_json_parser_key_is(jp, e, "args"))
        pk_json_parser_skip(jp); /* stack, sf, ... */
    else if (d == e + 2 && !pk_json_parser_key_is(jp, e + 1, "data"))
        pk_json_parser_skip(jp);
    else if (d == e + 3 && !pk_json_parser_key_is(jp, e + 2, "cpuProfile") &&
             !pk_json_parser_key_is(jp, e + 2, "timeDeltas"))
        pk_json_parser_skip(jp); /* DevTools' event data: frames, stack traces, ... */
    else if (in_profile_data(r, jp, &members))
        return v8_walk_begin(&r->walk, jp, members, is_array);
    return true;
}

static bool on_end(void *ctx, pk_json_parser *jp, bool is_array)
{
    trace_reader *r = ctx;
    if (!r->in_event) {
        if (r->item.kind != ITEM_NONE && pk_json_parser_depth(jp) == 2 && !is_array)
            return item_end(r, jp);
        return true;
    }
    uint32_t d = pk_json_parser_depth(jp), members;
    if (d == r->level && !is_array) {
        r->in_event = false;
        return dispatch(r, jp);
    }
    if (in_profile_data(r, jp, &members))
        return v8_walk_end(&r->walk, jp, members, is_array);
    return true;
}

static bool on_scalar(void *ctx, pk_json_parser *jp, const pk_json_scalar *v)
{
    trace_reader *r = ctx;
    uint32_t d = pk_json_parser_depth(jp), members;
    if (!r->in_event) {
        if (d == 0)
            return pk_json_parser_fail(jp, "not a trace: the document is not an array or object");
        if (r->item.kind != ITEM_NONE) {
            size_t len;
            const char *key = d == 3 ? pk_json_parser_key(jp, 2, &len) : NULL;
            if (key)
                item_member(r, key, len, v);
            return true;
        }
        if (r->object_form && d == 1 && pk_json_parser_key_is(jp, 0, "displayTimeUnit") &&
            v->kind == PK_JSON_STRING) {
            char unit[32];
            snprintf(unit, sizeof unit, "%.*s", (int)(v->len < 31 ? v->len : 31), v->s);
            if (pk_property_set(r->p, "trace.display_time_unit", unit) != PK_OK)
                return nomem(jp);
        }
        return true;
    }
    uint32_t e = r->level;
    if (d == e + 1) {
        size_t len;
        const char *key = pk_json_parser_key(jp, e, &len);
        if (key)
            event_member(r, key, len, v);
        return true;
    }
    if (d == e + 2 && pk_json_parser_key_is(jp, e + 1, "name") && v->kind == PK_JSON_STRING) {
        /* args.name (only `args` is not skipped among an event's containers) */
        pk_buffer_clear(&r->ev.arg_name);
        pk_buffer_append(&r->ev.arg_name, v->s, v->len);
        r->ev.has_arg_name = true;
        return true;
    }
    if (d == e + 2 && pk_json_parser_key_is(jp, e + 1, "labels") && v->kind == PK_JSON_STRING) {
        pk_buffer_clear(&r->ev.arg_labels);
        pk_buffer_append(&r->ev.arg_labels, v->s, v->len);
        r->ev.has_arg_labels = true;
        return true;
    }
    if (in_profile_data(r, jp, &members))
        return v8_walk_scalar(&r->walk, jp, members, v);
    return true;
}

static void reader_free(trace_reader *r)
{
    pk_buffer_free(&r->ev.name);
    pk_buffer_free(&r->ev.arg_name);
    pk_buffer_free(&r->ev.arg_labels);
    v8_chunk_free(&r->ev.chunk);
    v8_walk_free(&r->walk);
    trace_threads_free(&r->threads);
    trace_profiles_free(&r->profiles);
    trace_samples_free(&r->samples);
}

static const char *plural(uint64_t n)
{
    return n == 1 ? "" : "s";
}

/* Everything read becomes rows: the timelines' held-back events, the profiles; then names. */
static pk_status finish(trace_reader *r, uint64_t offset, pk_error *err)
{
    pk_call_spans_counts counts = {0, 0, 0, 0};
    for (size_t i = 0; i < r->threads.count; i++) {
        trace_thread *t = &r->threads.items[i];
        if (t->timeline &&
            !pk_call_spans_finish(t->timeline,
                                  &(pk_call_spans_target){r->p, t->thread, r->wall, PK_NONE},
                                  &counts))
            return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    }
    if (!trace_profiles_make_threads(&r->profiles, &r->threads))
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    if (!trace_samples_finish(&r->samples, &r->threads, r->cpu, r->count))
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    if (!trace_threads_apply_names(&r->threads))
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    pk_status status = trace_profiles_finish(&r->profiles, r->cpu, r->count, offset, err);
    if (status != PK_OK)
        return status;
    bool sampled = trace_profiles_have_samples(&r->profiles) || r->samples.samples;
    pk_set_default_value(r->p, sampled ? r->cpu : r->wall);
    pk_profile *p = r->p;
    if (r->untimed)
        pk_warn(p, "%" PRIu64 " X event%s without dur: timed by tdur (thread clock) where given, "
                   "else zero-length", r->untimed, plural(r->untimed));
    if (r->bad_samples)
        pk_warn(p, "%" PRIu64 " sample%s without ts or sf left out", r->bad_samples,
                plural(r->bad_samples));
    if (r->samples.left_out)
        pk_warn(p, "%" PRId64 " sample%s of frames stackFrames does not list (or whose parents "
                   "loop) left out", r->samples.left_out, plural((uint64_t)r->samples.left_out));
    if (r->samples.backwards)
        pk_warn(p, "%" PRIu64 " sample%s earlier than the previous one of their thread placed at "
                   "its time", r->samples.backwards, plural(r->samples.backwards));
    if (counts.unmatched_ends)
        pk_warn(p, "%" PRIu64 " E event%s matching no open B event ignored", counts.unmatched_ends,
                plural(counts.unmatched_ends));
    if (counts.overlapping)
        pk_warn(p, "%" PRIu64 " event%s overlapping an enclosing one (not nested) cut at its end",
                counts.overlapping, plural(counts.overlapping));
    if (counts.late)
        pk_warn(p, "%" PRIu64 " event%s out of time order by more than %d events of their thread "
                   "placed at the time reached",
                counts.late, plural(counts.late), TRACE_REORDER_WINDOW);
    if (counts.unclosed)
        pk_warn(p, "%" PRIu64 " B event%s never ended, closed at the thread's last time",
                counts.unclosed, plural(counts.unclosed));
    if (r->bad_events)
        pk_warn(p, "%" PRIu64 " event%s left out: %s", r->bad_events, plural(r->bad_events),
                r->first_bad);
    if (r->other_events)
        pk_warn(p, "%" PRIu64 " event%s of other phases (instant, counter, async, flow, ...) left "
                   "aside", r->other_events, plural(r->other_events));
    return PK_OK;
}

pk_status trace_read(pk_input *in, pk_profile *p, const pk_read_options *options, pk_error *err)
{
    (void)options;
    trace_reader r;
    memset(&r, 0, sizeof r);
    r.p = p;
    trace_threads_init(&r.threads, p);
    trace_profiles_init(&r.profiles, p);
    trace_samples_init(&r.samples, p);
    v8_walk_init(&r.walk, p, &v8_chunk_sink, &r.ev.chunk);
    r.cpu = pk_add_value_type(p, "cpu", "nanoseconds");
    r.count = pk_add_value_type(p, "samples", "count");
    r.wall = pk_add_value_type(p, "wall", "nanoseconds");
    if (r.cpu == PK_NONE || r.count == PK_NONE || r.wall == PK_NONE) {
        reader_free(&r);
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    }
    pk_json_run run;
    pk_status status = pk_json_read(in, &(pk_json_handler){on_scalar, on_begin, on_end}, &r,
                                    "the trace", NULL, &run, err);
    if (run.how == PK_JSON_CUT && r.events) {
        /* A trace whose writer stopped mid-file: the events before are whole. */
        pk_warn(p, "the trace ends early (byte %" PRIu64 "): the %" PRIu64 " whole event%s before "
                   "byte %" PRIu64 " are read",
                run.offset, r.events, plural(r.events), r.last_event_end);
        status = PK_OK;
    } else if (run.how == PK_JSON_CUT) {
        status = pk_error_set(err, PK_ERR_INPUT, (int64_t)run.offset,
                              "not a trace: no events before the input ends");
    }
    if (status == PK_OK && !r.events && !r.samples.samples)
        status = pk_error_set(err, PK_ERR_INPUT, 0, "not a trace: no events");
    if (status == PK_OK || status == PK_ERR_INPUT) {
        pk_error finish_err;
        pk_status finished = finish(&r, pk_in_offset(in), &finish_err);
        status = pk_json_read_settle(status, err, finished, &finish_err);
    }
    reader_free(&r);
    return status;
}
