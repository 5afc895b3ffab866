/* SPDX-License-Identifier: MIT */
/* The Firefox Profiler reader's state, shared by its parts:
 *
 *   read.c        the JSON walk: the processed format (every version: tables per thread or in
 *                 `shared`, `prefix` or `prefixOffset`, `time` or `timeDeltas`, weights) and the
 *                 Gecko format (schema + data tables, a string table per thread, `processes`,
 *                 alone or in the `profile` of a recording saved by Firefox's old DevTools)
 *   read_build.c  the end: tables to model stacks, summed samples to rows, threads
 *
 * Tables are struct-of-arrays (processed) or rows under a schema (Gecko), and nothing orders a
 * thread's samples after its tables (profkit's own writer writes the samples first), nor the
 * shared tables before the threads. So the tables are kept, as columns of the few members that
 * make frames and stacks: they hold one entry per distinct stack, frame, function, resource and
 * string, which is what the model keeps anyway. Samples are not kept: a thread's `stack` and
 * `weight` columns are paired as they stream (core/pairs.h spools the first of the two) and
 * summed per (thread, stack index) in order of first appearance (core/sums.h); Gecko sample
 * rows carry their stack and are summed at once. Stacks are resolved once every table is known,
 * at the end of the document.
 *
 * Times: every sample added is also spooled in order (core/timed_pending.h) with its stack index
 * and weight, and its time (processed `time`, or the running sum of `timeDeltas`; a Gecko
 * row's `time` cell) into the thread's lane of a spool of times, as exact nanoseconds from the
 * decimal text of the milliseconds. At the end, a thread with as many times as samples gets its
 * timeline: each time on its (sub)profile's clock, meta.startTime plus the time, so that Gecko
 * processes that started apart share one clock; a "tracing-ms" sample is a span as long as its
 * weight.
 */
#ifndef PK_FORMATS_FIREFOX_READ_H
#define PK_FORMATS_FIREFOX_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/json_input.h"
#include "core/pairs.h"
#include "core/spool.h"
#include "core/sums.h"
#include "core/timed_pending.h"
#include "profkit/profile.h"

#define FXR_NULL INT64_MIN /* a null (or missing) cell */

/* The columns kept, whatever table layout they come from. */
typedef enum fxr_col {
    FXR_STACK_FRAME,
    FXR_STACK_PREFIX,
    FXR_STACK_PREFIX_OFFSET, /* version 66 on: 0 for a root, else index - prefix */
    FXR_FRAME_FUNC,
    FXR_FRAME_LINE,
    FXR_FRAME_ADDRESS,       /* relative to the frame's library, -1 for none */
    FXR_FRAME_INLINE_DEPTH,
    FXR_FRAME_LIB,           /* version 70 on */
    FXR_FRAME_LOCATION,      /* Gecko: the string that names the frame */
    FXR_FRAME_RELEVANT_FOR_JS, /* Gecko: a label that the JavaScript-only call tree keeps */
    FXR_FUNC_NAME,
    FXR_FUNC_FILE,           /* until version 57 */
    FXR_FUNC_SOURCE,         /* version 58 on: a row of `sources` */
    FXR_FUNC_LINE,
    FXR_FUNC_COLUMN,
    FXR_FUNC_RESOURCE,
    FXR_FUNC_IS_JS,          /* until version 74 */
    FXR_FUNC_RELEVANT_FOR_JS, /* until version 74 */
    FXR_FUNC_FLAGS,          /* version 75 on: isJS (1), relevantForJS (2) and others */
    FXR_RESOURCE_LIB,
    FXR_SOURCE_FILE,
    FXR_COLUMNS
} fxr_col;

typedef struct fxr_column {
    int64_t *v;
    size_t n, cap;
} fxr_column;

typedef struct fxr_lib {
    uint32_t resource; /* model resource */
    uint64_t start, end; /* Gecko: where it was mapped (absolute addresses) */
} fxr_lib;

/* One set of tables: `shared` (set 0) or a thread's own. */
typedef struct fxr_set {
    fxr_column col[FXR_COLUMNS];
    uint32_t *strings; /* string index -> model string */
    size_t string_count, string_cap;
    bool has_strings, has_stacks;
    fxr_lib *libs;     /* `libs` (set 0: the profile's; a thread's in version 24 and Gecko) */
    size_t lib_count, lib_cap;
    /* at the end */
    uint32_t *stack_model; /* stack index -> model stack (PK_NONE + 1 before: see read_build.c) */
    uint32_t *frame_model;
} fxr_set;

typedef enum fxr_weight { FXR_WEIGHT_SAMPLES, FXR_WEIGHT_MS, FXR_WEIGHT_BYTES, FXR_WEIGHTS } fxr_weight;

typedef struct fxr_thread {
    uint32_t name;    /* model string, 0 when unnamed */
    uint32_t process_name; /* processName, model string, 0 when absent */
    int64_t pid, tid; /* -1 when unknown */
    uint32_t set;     /* its own tables */
    uint32_t libs;    /* the set holding its process's libraries (its frames' addresses are
                       * looked up in its process's, not in another process's) */
    uint8_t weight;   /* fxr_weight */
    bool weight_known;   /* weightType was read before the weights were paired */
    bool decided;        /* its first sample decided `scaled` */
    bool scaled;         /* its sums are in the model's unit already */
    bool weight_column;  /* samples.weight was an array (not null, not missing) */
    bool in_ns;          /* its millisecond weights are read as whole nanoseconds, exactly from
                          * their decimal text (the weight type came first) */
    uint32_t clock;      /* the (sub)profile whose meta.startTime its times count from */
    uint64_t records;    /* samples added (and spooled to `timed`) */
    uint64_t times;      /* times spooled to its lane of `times` */
    int64_t delta_sum;   /* ns: timeDeltas so far */
} fxr_thread;

/* A (sub)profile being read, a process: the profile itself (set 0, clock 0), a Gecko
 * `processes` sub-profile, or a child process's profile in a string (to version 4). Its
 * libraries are its own (two processes may map different libraries at one address) and its
 * threads' times count from its own meta.startTime. */
typedef struct fxr_process {
    uint32_t set;     /* where its libraries go */
    uint32_t level;   /* where its members are (its meta's key) */
    uint32_t nesting; /* the string document it is in */
    uint32_t clock;   /* index into clock_start */
} fxr_process;

/* A Gecko table's schema: which element of a row is which kept column. */
#define FXR_GECKO_MAX_COLUMNS 16

typedef struct fx_reader {
    pk_profile *p;
    fxr_set *sets;
    size_t set_count, set_cap;
    fxr_thread *threads;
    size_t thread_count, thread_cap;
    bool in_thread;
    uint32_t thread_level;
    fxr_process *processes; /* the (sub)profiles enclosing what is being read, innermost last;
                             * the first is the profile itself */
    size_t process_count, process_cap;
    pk_pairs pairs;        /* the current thread's samples: stack (0) and weight (1) */
    pk_sums sums;          /* (thread << 32 | stack index + 1) -> weight */
    /* the lib being read */
    bool in_lib;
    uint32_t lib_set, lib_level; /* where its libraries go; the depth of its object */
    uint32_t lib_name, lib_path, lib_code_id;
    int64_t lib_start, lib_end, lib_offset;
    /* Gecko versions 3 and 4 held documents in strings: `libs` (to version 3) and child
     * processes' profiles in `threads` (to version 4); they are read where they stand. */
    uint32_t nesting;      /* strings being read inside strings */
    bool libs_in_string;   /* the libs being read are a string's (a path as their name) */
    /* a Gecko table: its schema (by table) and the row being read */
    int8_t schema[3][FXR_GECKO_MAX_COLUMNS]; /* samples, stackTable, frameTable: column -> kept */
    bool schema_seen[3];
    int64_t row[FXR_GECKO_MAX_COLUMNS];
    /* Where the values being read go, known at their container's begin (-1: elsewhere), so
     * that each is routed without comparing the keys of its path: the table of the Gecko row
     * being read, and the processed `samples` column (0 stack, 1 weight). */
    int8_t row_table, sample_column;
    /* what is reported once */
    uint64_t markers, unpaired[2], bad_prefixes, bad_indexes;
    uint64_t devtools_ticks, devtools_memory, devtools_allocations; /* a DevTools export's */
    bool gecko, processed, saw_threads;
    int64_t version;
    /* times */
    pk_timed_pending timed; /* every sample added: thread, stack index + 1, weight */
    pk_spool *times;        /* lane t: thread t's sample times, ns from its clock's start */
    bool times_failed;
    int64_t row_time;       /* the Gecko sample row's time, FXR_NULL when none */
    int64_t *clock_start;   /* ns since the epoch; FXR_NULL when its meta gave none */
    size_t clock_count, clock_cap;
} fx_reader;

/* The columns of the Gecko tables' schemas that are kept: FXR_* for frames and stacks, and
 * these for samples. */
enum { FXR_SAMPLE_STACK = FXR_COLUMNS, FXR_SAMPLE_WEIGHT, FXR_SAMPLE_TIME };

pk_status fx_read(pk_input *in, pk_profile *p, const pk_read_options *options, pk_error *err);

/* read_build.c */
bool fxr_append(fxr_column *c, int64_t v);
void fxr_free(fx_reader *r);
/* The thread's weight of one sample (the scale of its weight type applied when known). */
bool fxr_add_sample(fx_reader *r, uint32_t thread, int64_t stack, pk_pair_value weight);
/* Appends a time (ns from the thread's clock) to the thread's lane of times. */
bool fxr_add_time(fx_reader *r, uint32_t thread, int64_t ns);
/* Threads, stacks and rows. */
pk_status fxr_finish(fx_reader *r, pk_error *err);

#endif
