/* SPDX-License-Identifier: MIT */
/* Chrome's JSON traces: the Trace Event Format (chrome://tracing, Perfetto's JSON export, Node's
 * trace events) and the Chrome DevTools performance traces built on it, one format reading
 * both: duration events (B/E, X) become a timed call tree per thread, V8 CPU profiles carried by
 * Profile / ProfileChunk / CpuProfile events become sampled stacks on the thread they profiled,
 * M events name processes and threads. A thread's duration events become a call tree through
 * core/call_spans.h, reordered in a bounded window. Documented in docs/formats/chrome-trace.md.
 *
 *   read.c       the container (a bare array of events, or {"traceEvents": [...], ...}, cut or
 *                not) and the fields of each event, dispatched at the event's end
 *   threads.c    (pid, tid) -> the profile's thread, created when it gets rows; names from M
 *   profiles.c   the V8 CPU profiles by (pid, id), fed chunk by chunk
 *   samples.c    the object form's sampled stacks: `stackFrames` and `samples` (Hermes)
 *   format.c     probe and registration
 */
#ifndef PK_FORMATS_TRACE_TRACE_H
#define PK_FORMATS_TRACE_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/call_spans.h"
#include "core/hashmap.h"
#include "formats/v8/v8.h"
#include "profkit/error.h"
#include "profkit/format.h"
#include "profkit/profile.h"

/* Duration events a thread's timeline holds back to put them in time order: X events are
 * written when they end (children before their parents), so a window lets a parent come
 * first. Events later than the window are warned about and placed where they fall. */
#define TRACE_REORDER_WINDOW 16384

/* The reader (read.c). */
pk_status trace_read(pk_input *in, pk_profile *p, const pk_read_options *options, pk_error *err);

/* ---- threads ---------------------------------------------------------------------------------- */


typedef struct trace_thread {
    int64_t pid, tid;
    uint32_t thread;         /* in the profile, PK_NONE until it has rows */
    uint32_t name;           /* from thread_name (process_name for a process), 0 when none */
    uint32_t labels;         /* a process's process_labels, 0 when none */
    pk_call_spans *timeline;  /* NULL until a duration event */
    uint64_t sampled;        /* samples of the object form's `samples` so far */
    int64_t first_ts, last_ts; /* ns, of the first and the last of those */
    uint32_t last_sum;       /* trace_samples sum of the last one */
    int64_t last_count;      /* and its weight (a count) */
} trace_thread;

typedef struct trace_threads {
    pk_profile *p;
    trace_thread *items;
    size_t count, cap;
    pk_index index;
} trace_threads;

void trace_threads_init(trace_threads *t, pk_profile *p);
void trace_threads_free(trace_threads *t);
/* The entry of (pid, tid), created when absent; NULL when memory runs out. The pointer is valid
 * until the next call. */
trace_thread *trace_threads_get(trace_threads *t, int64_t pid, int64_t tid);
/* The profile's thread of an entry, created when absent; PK_NONE when memory runs out. */
uint32_t trace_threads_model(trace_threads *t, trace_thread *entry);
bool trace_threads_name_process(trace_threads *t, int64_t pid, uint32_t name);
/* Records a process's labels (process_labels: "label, label"), which its name shows after a
 * colon, as Chrome's tracing UI shows them. False when memory runs out. */
bool trace_threads_label_process(trace_threads *t, int64_t pid, uint32_t labels);
/* Names the profile's threads: the thread's name, else its process's (else its labels), else
 * "thread"; and the processes of threads with rows by their names. False when memory runs
 * out. */
bool trace_threads_apply_names(trace_threads *t);

/* ---- V8 CPU profiles ------------------------------------------------------------------------ */

typedef struct trace_profile {
    int64_t pid;
    uint32_t id;             /* string: the events' id */
    bool has_thread;         /* a Profile or CpuProfile event said which thread */
    int64_t tid;
    int64_t chunk_tid;       /* the first chunk's thread, when no Profile event came */
    uint32_t thread;         /* in the profile, once trace_profiles_make_threads ran */
    v8_builder builder;
} trace_profile;

typedef struct trace_profiles {
    pk_profile *p;
    trace_profile **items;
    size_t count, cap;
    pk_index index; /* (pid, id) -> items */
} trace_profiles;

/* A pid or tid written as a string that is not a number ("stream 7") is kept as the id
 * TRACE_STRING_ID + its interned string, apart from every numeric id a trace writes. */
#define TRACE_STRING_ID ((int64_t)1 << 62)

/* The string of such an id, or PK_NONE for a numeric one (a number as large as the marker
 * that is no string of p is taken as the number it is). */
static inline uint32_t trace_id_string(const pk_profile *p, int64_t id)
{
    return id >= TRACE_STRING_ID && (uint64_t)(id - TRACE_STRING_ID) < pk_string_count(p)
               ? (uint32_t)(id - TRACE_STRING_ID)
               : PK_NONE;
}

/* The hash of a pair of keys, for the tables of threads and profiles. */
static inline uint64_t trace_pair_hash(int64_t a, int64_t b)
{
    return pk_hash_u64((uint64_t)a ^ pk_hash_u64((uint64_t)b));
}

void trace_profiles_init(trace_profiles *t, pk_profile *p);
void trace_profiles_free(trace_profiles *t);
/* The profile (pid, id), created when absent; NULL when memory runs out. */
trace_profile *trace_profiles_get(trace_profiles *t, int64_t pid, uint32_t id);
/* Gives every profile with samples its thread in the profile (so that names can be applied
 * before warnings name threads). False when memory runs out. */
bool trace_profiles_make_threads(trace_profiles *t, trace_threads *threads);
/* Turns every profile into rows of its thread. */
pk_status trace_profiles_finish(trace_profiles *t, uint32_t cpu, uint32_t count, uint64_t offset,
                                pk_error *err);
bool trace_profiles_have_samples(const trace_profiles *t);

/* ---- the object form's sampled stacks (stackFrames + samples) ------------------------------ */

/* A member of stackFrames as written: the name (Hermes appends the place,
 * "render(http://host/index.bundle:12:3)"), the parent's id (string, PK_NONE for none), the
 * line executing and where the function starts (Hermes' funcLine and funcColumn), 0 when not
 * given, and whether it is script code (category "JavaScript", as Hermes writes). The model
 * has no column for a frame: Hermes' `column` is not kept. */
typedef struct trace_frame_desc {
    uint32_t name, parent;
    uint32_t line, func_line, func_column;
    bool script;
} trace_frame_desc;

typedef struct trace_stack_frame {
    pk_function function; /* name, file and start as the frame says them */
    uint32_t parent;      /* string: the parent's id, PK_NONE at a root */
    uint32_t line;        /* 0 when unknown */
    uint32_t stack;       /* in the profile, once resolved */
    uint8_t state;
} trace_stack_frame;

typedef struct trace_sample_sum {
    uint32_t entry; /* in trace_threads.items */
    uint32_t sf;    /* string: the frame id */
    int64_t ns, count;
} trace_sample_sum;

typedef struct trace_samples {
    pk_profile *p;
    trace_stack_frame *frames;
    size_t frame_count, frame_cap;
    pk_u64map frame_index; /* frame id (string) -> frames */
    trace_sample_sum *sums;
    size_t sum_count, sum_cap;
    pk_u64map sum_index;   /* (entry, frame id) -> sums */
    uint32_t *path;        /* frames on the way to a root, while resolving */
    size_t path_cap;
    uint64_t samples, backwards;
    int64_t left_out;      /* weights of samples whose frame is unknown */
    pk_spool *timed;       /* (sum, ts, ns, count) per weighed sample, for the timelines */
    int64_t timed_last;    /* the ts of the last record spooled: times are deltas */
} trace_samples;

void trace_samples_init(trace_samples *s, pk_profile *p);
void trace_samples_free(trace_samples *s);
/* The member `key` (its id, a string) of stackFrames. False when memory runs out. */
bool trace_samples_frame(trace_samples *s, uint32_t key, const trace_frame_desc *desc);
/* A sample of frame id `sf` on the thread of `entry` at ts (ns), counted `weight` times; the
 * thread's previous sample lasts until ts. False when memory runs out. */
bool trace_samples_add(trace_samples *s, trace_threads *threads, trace_thread *entry,
                       uint32_t sf, int64_t ts, int64_t weight);
/* Turns the sums into rows (values cpu and count) of their threads, and the samples into their
 * threads' timed samples; the last sample of each thread weighs nothing (as speedscope weighs
 * it). False when memory or the spool fails. */
bool trace_samples_finish(trace_samples *s, trace_threads *threads, uint32_t cpu, uint32_t count);

#endif
