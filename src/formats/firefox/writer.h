/* SPDX-License-Identifier: MIT */
/* The Firefox Profiler writer's state, shared by its parts:
 *
 *   format.c     registration, and the document: meta, libs, threads
 *   writer.c     what holds for the whole profile: the value written, times, frame categories,
 *                libraries, rows and memory events grouped by thread
 *   meta.c       the meta object (categories, profile information)
 *   libs.c       native frames and the libraries they are in
 *   timeline.c   where samples and memory events sit in time, for threads without times
 *   timed.c      threads with measured times, written from their timelines
 *   allocations.c memory events spooled by the thread whose table lists them and by process;
 *                the processes' memory counters
 *   collect.c    what one thread reaches, numbered for its own tables
 *   thread.c     one thread object: its samples, native allocations and markers
 *   tables.c     one thread's stack, frame, function, resource and native-symbol tables and
 *                its string array
 *   numbers.c    numbers as the columns hold them: exact milliseconds, weights
 *   remap.h      per-thread numbering of model items
 *
 * docs/formats/firefox.md says how the model maps to the processed profile.
 */
#ifndef PK_FORMATS_FIREFOX_WRITER_H
#define PK_FORMATS_FIREFOX_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/categories.h"
#include "core/json.h"
#include "core/memory_values.h"
#include "core/spool.h"
#include "formats/firefox/remap.h"
#include "profkit/counters.h"
#include "profkit/format.h"
#include "profkit/profile.h"
#include "profkit/thread_names.h"

/* The processed-profile version written, and the Gecko version that goes with it. */
#define FX_PROCESSED_VERSION 55
#define FX_GECKO_VERSION 24

/* The most samples the threads without times are spread over (timeline.c), unless the option
 * max-samples asks for fewer: enough for any activity graph, and the size of the samples
 * tables stays bounded. */
#define FX_MAX_SAMPLES 100000

/* What the weights of samples are, as the front end's weightType says. */
typedef enum fx_weight_kind { FX_WEIGHT_SAMPLES, FX_WEIGHT_MS, FX_WEIGHT_BYTES } fx_weight_kind;

typedef struct fx_writer {
    const pk_profile *p;
    pk_json json;

    uint32_t value;           /* value type written as sample weight, PK_NONE when there is none */
    fx_weight_kind weight_kind;
    int64_t weight_scale;     /* nanoseconds (FX_WEIGHT_MS) or bytes (FX_WEIGHT_BYTES) in one
                               * unit of the value; 1 otherwise */
    /* the timeline (timeline.c) */
    double unit_ns;           /* the time one unit of the value occupies */
    int64_t quantum;          /* units of the value per written sample */
    double max_samples;       /* samples of the threads without times, at most: FX_MAX_SAMPLES
                               * or the option max-samples */
    double timeline_ns;       /* the profile's time range */
    uint32_t *ordered_rows;   /* the rows placed (threads without times), in stream order */
    size_t ordered_row_count;
    double *row_start_ns;     /* model row -> where its span begins */
    /* measured times (timed.c) */
    bool *thread_timed;       /* thread -> written from its timeline */
    size_t timed_thread_count;
    int64_t time_origin;      /* the earliest timed sample (ns on the profile's clock): time 0 */
    int64_t timed_ns;         /* from time 0 to the end of the latest timed sample */
    double timed_interval_ns; /* the densest timed thread's mean distance between samples */
    struct pk_spool *timed_samples; /* the current timed thread's samples as written */

    /* whole profile */
    uint8_t *frame_category;  /* model frame -> pk_category */
    bool category_used[PK_CATEGORY_COUNT];
    uint32_t category_out[PK_CATEGORY_COUNT]; /* pk_category -> index in meta.categories */
    uint32_t *resource_lib;   /* model resource -> index in libs, PK_NONE when not a library */
    uint32_t lib_count;
    /* Script sources (docs/formats/firefox.md, "Sources"): with the writer option "source",
     * frames of script functions that name a file and are in no resource are attributed to one
     * library standing for the script sources, at an address that is their line. */
    uint32_t script_resource; /* that library's resource: the model's resource count (an index
                               * past the model's resources), PK_NONE when there is none */
    uint32_t script_string;   /* its name as a string index past the model's strings */
    const char *script_name;
    pk_thread_names *thread_names; /* the threads' names as shown */
    uint32_t *thread_rows;    /* sample rows grouped by thread */
    size_t *thread_rows_start; /* thread -> first entry in thread_rows; thread_count + 1 */
    bool *thread_has_events;  /* thread -> whether its table holds memory events */
    bool memory_from_values;  /* no memory events, but memory values by stack (a heap
                               * profile): the native allocations tables are made of them */
    pk_memory_values memory_values;
    struct pk_spool *allocations; /* the events with a known size (allocations.c), NULL
                                   * without events: lane t holds thread t's table, lane
                                   * thread_count + m the events of the process whose main
                                   * thread is m, with only order, size and kind */
    uint64_t *process_allocations; /* main thread -> events of known size of its process */
    uint32_t *thread_process; /* thread -> the main thread of its process, which stands for
                               * the process (the thread itself when it is the main one) */

    /* current thread */
    uint32_t gen;             /* generation of the remaps: thread index + 1 */
    fx_remap stacks, frames, funcs, resources, symbols, strings;
    uint32_t *frame_inline_depth; /* local frame -> inline depth */
    uint32_t *func_resource;  /* local func -> model resource or PK_NONE */
    uint64_t *symbol_address; /* local native symbol -> lowest library-relative address */
    uint32_t *symbol_lib;     /* local native symbol -> lib index */
    uint32_t *row_order;      /* the thread's rows, by stream order */
    size_t row_count;         /* entries of row_order */
    bool thread_is_timed;     /* the current thread is written from its timeline */
    uint64_t sample_count;    /* samples the thread's rows (or timeline) are written as */
    size_t allocation_count;  /* the thread's memory events with a known size */
    size_t stack_rows;        /* rows of the thread's stack table: the frames of its stacks'
                               * runs */
} fx_writer;

/* ---- timeline.c ---- */

/* Lays the rows out in time; false when memory runs out. */
bool fx_timeline_place(fx_writer *w);
/* How many samples row is written as, and sample i's weight and time (ns). */
uint64_t fx_row_samples(const fx_writer *w, size_t row);
int64_t fx_row_sample_weight(const fx_writer *w, size_t row, uint64_t i);
int64_t fx_row_sample_time(const fx_writer *w, size_t row, uint64_t i);
/* The time of the memory event at stream position order (ns). */
int64_t fx_event_time(const fx_writer *w, uint64_t order);

/* ---- timed.c ---- */

/* Which threads are written from their timelines, the origin of times and the timed range;
 * false when memory runs out. */
bool fx_timed_prepare(fx_writer *w);
/* One pass over the thread's timeline: marks the stacks it reaches, counts the samples written
 * (sample_count) and spools them. PK_ERR_NOMEM or PK_ERR_IO on failure. */
pk_status fx_timed_collect(fx_writer *w, uint32_t thread);
/* The stack, time and weight columns of the collected thread. */
void fx_timed_write_columns(fx_writer *w);

/* ---- allocations.c ---- */

/* An event of a native allocations table. */
typedef struct fx_allocation {
    uint64_t order, size, address;
    uint32_t stack, thread;
    uint8_t kind; /* pk_memory_kind */
} fx_allocation;

typedef struct fx_allocations {
    pk_spool_reader reader;
    const uint8_t *at, *end;
    bool active, failed;
} fx_allocations;

/* One pass over the profile's memory events, spooling those with a known size by the thread
 * whose table holds them and by its process, and noting which threads have events. */
pk_status fx_allocations_collect(fx_writer *w, pk_error *err);
/* A pass over one lane of spooled events (spool may be NULL: no events), in stream order. end
 * says whether the pass read everything (false on a read error). */
void fx_allocations_begin(const struct pk_spool *spool, uint32_t lane, fx_allocations *it);
bool fx_allocations_next(fx_allocations *it, fx_allocation *a);
bool fx_allocations_end(fx_allocations *it);
/* The columns an event can give: its time, +size for an allocation and -size for a free, its
 * stack, address, thread id, or a 1 (one operation). */
typedef enum fx_event_column {
    FX_EVENT_TIME,
    FX_EVENT_BYTES,
    FX_EVENT_STACK,
    FX_EVENT_ADDRESS,
    FX_EVENT_THREAD,
    FX_EVENT_ONE
} fx_event_column;
/* One JSON array member, key, over the thread's spooled events; a spool that cannot be read
 * back fails the output. */
void fx_write_event_column(fx_writer *w, uint32_t thread, const char *key,
                           fx_event_column column);
/* The counters array: the model's counters in bytes, then a memory counter per process whose
 * threads' tables list events of known size, the process's live bytes over time. PK_ERR_IO
 * when a counter's spooled samples cannot be read back. */
pk_status fx_write_counters(fx_writer *w);
/* Whether a model counter is written (the front end draws memory counters only: bytes). */
bool fx_counter_written(const pk_profile *p, const pk_counter *c);
/* The earliest and latest times of the counters written; false when there is none. */
bool fx_counters_bounds(const pk_profile *p, int64_t *first, int64_t *last);

/* Rows in stream order (timeline.c and collect.c sort by it). */
typedef struct fx_ordered_row {
    uint64_t order;
    uint32_t row;
} fx_ordered_row;
int fx_compare_ordered_rows(const void *a, const void *b);

/* ---- writer.c ----
 * Everything here is linear in the model's tables: a profile can hold tens of thousands of
 * threads (a thread-per-request server), so no per-thread step may look at all threads. */

/* Prepares everything that holds for the whole profile: the value written (options->value,
 * else the profile's default), times, categories, libraries, grouping by thread. On failure
 * the error is set and fx_writer_free still applies. */
pk_status fx_writer_init(fx_writer *w, const pk_profile *p, pk_output *out,
                         const pk_write_options *options, pk_error *err);
void fx_writer_free(fx_writer *w);
/* The profile's title (core/title.h: the product, else the input file's name), else the
 * format it was read from: the product in meta and the name of every unnamed process. */
const char *fx_product(const pk_profile *p);

/* The pid written for thread t: its process's, 0 when unknown. */
static inline int64_t fx_thread_pid(const pk_thread *t)
{
    return t->pid >= 0 ? t->pid : 0;
}

/* The chosen value of sample row `row` (0 when the profile has no values). */
static inline int64_t fx_row_weight(const fx_writer *w, size_t row)
{
    return w->value == PK_NONE ? 0 : pk_sample_values(w->p, row)[w->value];
}

/* ---- meta.c ---- */

void fx_write_meta(fx_writer *w);

/* ---- libs.c ---- */

/* True when frame f has an address inside a resource with a path (a library); *resource_out,
 * when given, is then that resource. */
bool fx_is_native(const pk_profile *p, const pk_frame *f, uint32_t *resource_out);
/* Address of native frame f relative to its library, -1 when it lies outside it. */
int64_t fx_relative_address(const pk_profile *p, const pk_frame *f, uint32_t resource);
void fx_write_libs(fx_writer *w);
/* A library's breakpad ID from its ELF build ID (hex): the first 16 bytes as a GUID, age 0;
 * FX_NO_BUILD_ID when there is none or it is not hex. */
void fx_breakpad_id(const char *build_id, char out[34]);
/* A library's name (debugName): the resource's name, else its path's base name. */
const char *fx_library_name(const pk_profile *p, const pk_resource *r);
/* Whether frame f is attributed to the script sources' library (fx_writer.script_resource). */
/* The script sources' library's name: the base name of the writer option "source" (the
 * channel's folder or package), "script sources" when it is empty. */
const char *fx_script_library_name(const char *source);
bool fx_is_script_source(const fx_writer *w, const pk_frame *f);
/* The breakpad ID of a library without a build ID (the script sources' library, a binary whose
 * profile gave none): the ID only has to be present for the profiler to ask for its symbols and
 * sources. */
#define FX_NO_BUILD_ID "000000000000000000000000000000000"

/* ---- collect.c ---- */

/* Starts thread `thread` (the generation of every remap) and collects what its samples and
 * memory events reach: rows in stream order (or its timeline), stacks, frames, functions,
 * resources and native symbols. PK_ERR_NOMEM or PK_ERR_IO on failure. */
pk_status fx_collect_thread(fx_writer *w, uint32_t thread);
/* Marks stack and its prefixes as used by the current thread. */
void fx_mark_stack(fx_writer *w, uint32_t stack);

/* Local index of model stack `stack` in the current thread (the row of its innermost frame),
 * PK_NONE for none. */
static inline uint32_t fx_local_stack(const fx_writer *w, uint32_t stack)
{
    return stack == PK_NONE ? PK_NONE : w->stacks.local[stack];
}

/* ---- thread.c ---- */

void fx_write_thread(fx_writer *w, uint32_t thread);
/* The entries a row's memory values make in its thread's native allocations table (0 to 3:
 * what is in use, what was allocated and freed and its free); *live and *freed receive the
 * bytes. */
size_t fx_value_allocations(const fx_writer *w, size_t row, uint64_t *live, uint64_t *freed);
/* A profile without threads still needs one for the front end to show anything. */
void fx_write_empty_thread(fx_writer *w);

/* ---- tables.c ---- */

/* The thread's tables and its string array, as members of the thread object. */
void fx_write_tables(fx_writer *w);

/* ---- numbers.c ---- */

/* Starts `"key":[`, a column of a table; the caller writes the entries and ends the array. */
static inline void fx_column_begin(pk_json *j, const char *key)
{
    pk_json_key(j, key);
    pk_json_array_begin(j);
}

/* `"key":[]` */
static inline void fx_empty_array(pk_json *j, const char *key)
{
    pk_json_key(j, key);
    pk_json_array_begin(j);
    pk_json_array_end(j);
}

/* A table index, or null for PK_NONE. */
static inline void fx_index_or_null(pk_json *j, uint32_t index)
{
    pk_output *out = pk_json_value(j);
    if (index == PK_NONE)
        pk_out_puts(out, "null");
    else
        pk_out_u64(out, index);
}

/* Nanoseconds as exact decimal milliseconds: far cheaper than a shortest round-trip double,
 * which matters for millions of times. */
void fx_out_ms(pk_output *out, int64_t ns);
/* Sample weight v of the chosen value, in the unit its weightType says. */
void fx_weight(fx_writer *w, int64_t v);

#endif
