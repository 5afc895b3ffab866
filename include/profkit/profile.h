/* SPDX-License-Identifier: MIT */
/* The profile model: the one representation that every reader fills and every writer reads.
 *
 * Everything is interned and referred to by a uint32_t index into its table:
 *   strings    - bytes (UTF-8 where the format says so) with a terminating NUL; index 0 is
 *                always the empty string
 *   resources  - a library, binary or script module that code comes from
 *   functions  - (name, file, start line, resource, start column), and flags saying whether
 *                it is script code
 *   frames     - (function, line, address, resource, flags)
 *   stacks     - sequences of frames, root first, each stored once as a prefix stack and a
 *                run of its own frames
 *   threads    - (name, pid, tid)
 * Samples are aggregated per (thread, stack, label set): each row carries one int64 per value
 * type. A label set is what a format attaches to samples besides their thread and stack
 * (pprof's sample labels: key and a string, or key and a number with its unit).
 * Memory events (alloc, free, realloc-free) are kept as sums per allocating site, the live
 * allocations, and a spool of the events read back in stream order.
 *
 * Call edges count how often one function called another, where the input counts calls.
 *
 * Memory grows with the number of distinct strings, functions, frames, stacks, label sets,
 * (thread, stack, label set) rows and call edges, plus the memory events; never with the number
 * of samples added.
 */
#ifndef PROFKIT_PROFILE_H
#define PROFKIT_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profkit/error.h"
#include "profkit/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "No such item": no parent stack, no resource, no file, ... */
#define PK_NONE UINT32_MAX
/* A time that is not known. Times are nanoseconds since 1970-01-01T00:00:00Z. */
#define PK_TIME_UNKNOWN INT64_MIN
/* At most this many value types per profile: enough for every event valgrind's callgrind
 * writes (its cache and branch simulations, system call counts and times, bus events). */
#define PK_MAX_VALUES 64

typedef struct pk_profile pk_profile;

typedef struct pk_value_type {
    uint32_t name; /* string: "cpu", "wall", "samples", "alloc-bytes", ... */
    uint32_t unit; /* string: "nanoseconds", "bytes", "count", ... */
} pk_value_type;

typedef struct pk_thread {
    uint32_t name; /* string */
    int64_t pid;   /* process id, or -1 when unknown */
    int64_t tid;   /* thread id, or -1 when unknown */
} pk_thread;

typedef struct pk_resource {
    uint32_t name;     /* string: short name, e.g. "libc.so.6" or a script module */
    uint32_t path;     /* string: full path, 0 when unknown */
    uint32_t build_id; /* string: hex build ID, 0 when unknown */
    uint64_t start;    /* mapped address range [start, limit) and file offset of start; */
    uint64_t limit;    /* all zero when the resource has no addresses */
    uint64_t offset;
} pk_resource;

/* What kind of code a function is, where the format says so (0: not known). */
enum pk_function_flags {
    /* Script code: interpreted or JIT-compiled by a language runtime (JavaScript, WebAssembly,
     * BrightScript, ...), as opposed to the runtime's own code. */
    PK_FUNCTION_SCRIPT = 1u << 0,
    /* Not script, but belongs with it in a view of script code alone: a built-in or native
     * function that script called, a label the runtime puts on the work script asked for. */
    PK_FUNCTION_SCRIPT_RELEVANT = 1u << 1
};

/* A function is identified by its fields up to start_column: in minified JavaScript every
 * function of a bundle starts on line 1, and only the column tells them apart. Its flags are
 * what is known about it, not what makes it one: interning a function that exists adds the
 * flags given to those it has, so that a profile read from a format that does not say (a
 * speedscope file) meets the same functions as one that does when they are merged or
 * compared. */
typedef struct pk_function {
    uint32_t name;         /* string; never PK_NONE (an unnamed function gets a placeholder) */
    uint32_t file;         /* string: source file, 0 when unknown */
    uint32_t start_line;   /* 1-based line where the function starts, 0 when unknown */
    uint32_t resource;     /* PK_NONE when unknown */
    uint32_t start_column; /* 1-based column of start_line where the function starts, 0 when
                            * unknown */
    uint32_t flags;        /* pk_function_flags; not part of the identity (above) */
    /* start_column and flags come after the four fields before them, so that initializers
     * written for those four still mean what they meant */
} pk_function;

enum pk_frame_flags {
    PK_FRAME_HAS_ADDRESS = 1u << 0, /* address is meaningful */
    PK_FRAME_INLINED = 1u << 1      /* inlined into the parent frame, at the parent's address */
};

typedef struct pk_frame {
    uint32_t function; /* index into functions; never PK_NONE */
    uint32_t line;     /* 1-based source line being executed, 0 when unknown */
    uint64_t address;  /* absolute code address (already "return address - 1" for callers) */
    uint32_t resource; /* resource the address falls into, PK_NONE when unknown */
    uint32_t flags;    /* pk_frame_flags */
} pk_frame;

/* A sample label, as pprof's Label message has it: a key with either a string value or a
 * number with its unit. */
typedef struct pk_label {
    uint32_t key;  /* string */
    uint32_t str;  /* string: the value of a string label; PK_NONE for a numeric label */
    int64_t num;   /* the value of a numeric label (0 for a string label) */
    uint32_t unit; /* string: the unit of num ("bytes", ...), 0 for none or a string label */
} pk_label;

typedef enum pk_memory_kind {
    PK_MEM_ALLOC = 0,
    PK_MEM_FREE = 1,
    PK_MEM_REALLOC_FREE = 2 /* the free half of a realloc; an alloc follows */
} pk_memory_kind;

typedef struct pk_memory_event {
    uint64_t address;
    uint64_t size;   /* alloc: bytes requested; free: bytes of the matched alloc, 0 if unmatched */
    uint64_t order;  /* position in the profile's stream of events (see pk_sample_order) */
    uint32_t thread;
    uint32_t stack;  /* PK_NONE when unknown */
    uint32_t owner;  /* the thread whose allocation a free releases (its own thread when
                      * unmatched); for an allocation, its thread */
    uint8_t kind;    /* pk_memory_kind */
    bool matched;    /* alloc: a later free released it; free: an earlier alloc was found */
} pk_memory_event;

/* What the allocations of one (thread, stack) came to: how many and how many bytes, and how
 * many of them were freed again and their bytes. */
typedef struct pk_alloc_site {
    uint32_t thread;
    uint32_t stack; /* PK_NONE when unknown */
    uint64_t allocations, allocated_bytes;
    uint64_t frees, freed_bytes;
} pk_alloc_site;

/* Counts over all memory events. */
typedef struct pk_memory_counts {
    uint64_t events;          /* allocations and frees (realloc halves included) */
    uint64_t allocations;
    uint64_t frees;
    uint64_t unmatched_frees; /* frees of an address with no live allocation */
    uint64_t live;            /* allocations not freed */
    uint64_t max_address;     /* the largest address seen, 0 without events */
} pk_memory_counts;

/* Well-known metadata. Everything else goes into the ordered key/value properties. */
typedef struct pk_metadata {
    uint32_t source_format; /* string: registry name of the format read, 0 when built in memory */
    uint32_t product;       /* string: program, app or target name */
    int64_t start_time;     /* ns since the epoch, PK_TIME_UNKNOWN */
    int64_t end_time;       /* ns since the epoch, PK_TIME_UNKNOWN */
    int64_t period;         /* sampling period in units of period_unit, 0 when unknown */
    uint32_t period_type;   /* string, e.g. "cpu" */
    uint32_t period_unit;   /* string, e.g. "nanoseconds" */
    bool times_approximate; /* sample times are placed, not measured */
    bool differential;      /* a comparison: values 0 and 1 are a base profile's and a newer
                             * one's, in the same unit (see profkit/diff.h) */
} pk_metadata;

/* ---- lifetime ---------------------------------------------------------------------------- */

PK_API pk_profile *pk_profile_new(void);
PK_API void pk_profile_free(pk_profile *p);

/* ---- strings ----------------------------------------------------------------------------- */

/* Interns len bytes, whatever they are (embedded NUL bytes included: pk_str_len is the whole
 * length, and pk_str's text is followed by a NUL for C strings, which stop at the first one).
 * Returns the string index, or PK_NONE when memory runs out. */
PK_API uint32_t pk_intern(pk_profile *p, const char *s, size_t len);
PK_API uint32_t pk_intern_cstr(pk_profile *p, const char *s);
PK_API uint32_t pk_intern_printf(pk_profile *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
PK_API const char *pk_str(const pk_profile *p, uint32_t id); /* "" for PK_NONE */
PK_API size_t pk_str_len(const pk_profile *p, uint32_t id);
PK_API size_t pk_string_count(const pk_profile *p);

/* ---- value types --------------------------------------------------------------------------- */

/* Declares a value type. Rows that exist already get 0 for it (a reader may meet a new kind of
 * event mid-stream). Returns its index, or PK_NONE when PK_MAX_VALUES are declared already or
 * memory runs out. */
PK_API uint32_t pk_add_value_type(pk_profile *p, const char *name, const char *unit);
PK_API size_t pk_value_type_count(const pk_profile *p);
PK_API const pk_value_type *pk_value_type_at(const pk_profile *p, uint32_t index);
/* Index of the value type called name, or PK_NONE. */
PK_API uint32_t pk_value_find(const pk_profile *p, const char *name);
/* The value type called name, else the one name stood for before memory values took one
 * vocabulary in 0.2.0 (alloc-bytes: alloc_space, allocs and alloc-objects: alloc_objects,
 * live-bytes: inuse_space; docs/formats/memory-values.md), else PK_NONE. What a user's choice
 * of value (the command's --value) is looked up with; pk_value_find matches exact names only. */
PK_API uint32_t pk_value_lookup(const pk_profile *p, const char *name);
PK_API void pk_set_default_value(pk_profile *p, uint32_t index);
PK_API uint32_t pk_default_value(const pk_profile *p); /* 0 unless set */

/* ---- threads, resources, functions, frames, stacks ------------------------------------------ */

PK_API uint32_t pk_add_thread(pk_profile *p, uint32_t name, int64_t pid, int64_t tid);
PK_API size_t pk_thread_count(const pk_profile *p);
PK_API const pk_thread *pk_thread_at(const pk_profile *p, uint32_t index);
PK_API void pk_thread_rename(pk_profile *p, uint32_t index, uint32_t name);

/* Resources are interned on every field. */
PK_API uint32_t pk_intern_resource(pk_profile *p, const pk_resource *r);
PK_API size_t pk_resource_count(const pk_profile *p);
PK_API const pk_resource *pk_resource_at(const pk_profile *p, uint32_t index);

/* Functions are interned on every field but flags, which are added to those of the function
 * found (see pk_function). */
PK_API uint32_t pk_intern_function(pk_profile *p, const pk_function *f);
PK_API size_t pk_function_count(const pk_profile *p);
PK_API const pk_function *pk_function_at(const pk_profile *p, uint32_t index);

PK_API uint32_t pk_intern_frame(pk_profile *p, const pk_frame *f);
PK_API size_t pk_frame_count(const pk_profile *p);
PK_API const pk_frame *pk_frame_at(const pk_profile *p, uint32_t index);

/* Stacks are sequences of frames, root (the outermost caller) first and the innermost frame
 * last. Each distinct sequence is stored once, as a prefix (an earlier stack, or PK_NONE) and a
 * run of frames of its own: a reader that builds stacks a frame at a time makes a prefix tree,
 * one that has whole call chains stores each as one run, and memory grows with the distinct
 * stacks and their runs, never with the distinct prefixes of deep stacks. A stack's prefix
 * always has a smaller index, so a pass in index order can extend what it computed for the
 * prefix by the run's frames (pk_stack_run). */

/* The stack of prefix's frames (none for PK_NONE) followed by frame. Returns the stack, or
 * PK_NONE when memory runs out or an index is out of range. */
PK_API uint32_t pk_intern_stack(pk_profile *p, uint32_t prefix, uint32_t frame);
/* The stack of prefix's frames followed by frames[0..count); count 0 gives prefix. */
PK_API uint32_t pk_intern_stack_frames(pk_profile *p, uint32_t prefix, const uint32_t *frames,
                                       size_t count);
/* The same without interning: PK_NONE when the profile has no such stack. */
PK_API uint32_t pk_find_stack_frames(const pk_profile *p, uint32_t prefix,
                                     const uint32_t *frames, size_t count);
PK_API size_t pk_stack_count(const pk_profile *p);
PK_API uint32_t pk_stack_depth(const pk_profile *p, uint32_t stack); /* 0 for PK_NONE */
/* The innermost frame of a stack, PK_NONE for PK_NONE. */
PK_API uint32_t pk_stack_leaf(const pk_profile *p, uint32_t stack);
/* Fills frames[0..depth) with the stack's frames, root first, when depth <= capacity. Returns
 * the depth either way. */
PK_API size_t pk_stack_frames(const pk_profile *p, uint32_t stack, uint32_t *frames,
                              size_t capacity);
/* The stack's own run: *prefix receives its prefix (PK_NONE for none) and *frames the run's
 * frames, which stay valid until the next stack is interned. Returns the run's length (0 for
 * PK_NONE). */
PK_API size_t pk_stack_run(const pk_profile *p, uint32_t stack, uint32_t *prefix,
                           const uint32_t **frames);
/* Name of the function of a frame (a shortcut through pk_frame_at and pk_function_at). */
PK_API const char *pk_frame_name(const pk_profile *p, uint32_t frame);

/* ---- label sets --------------------------------------------------------------------------
 * The labels of a row, interned as a set: the same labels in any order are one set (they are
 * kept ordered by key index, labels of one key in the order given). PK_NONE is no labels. */

/* The set of labels[0..count); PK_NONE for count 0, and when memory runs out or a string index
 * is out of range. */
PK_API uint32_t pk_intern_label_set(pk_profile *p, const pk_label *labels, size_t count);
PK_API size_t pk_label_set_count(const pk_profile *p);
/* The labels of a set into *labels (valid until the next set is interned); returns their
 * number, 0 for PK_NONE or an unknown set. */
PK_API size_t pk_label_set_at(const pk_profile *p, uint32_t set, const pk_label **labels);

/* ---- samples ----------------------------------------------------------------------------- */

/* Adds values (one per value type; NULL adds nothing but creates the row) to the row of
 * (thread, stack) without labels. stack may be PK_NONE for an empty stack. */
PK_API pk_status pk_add_sample(pk_profile *p, uint32_t thread, uint32_t stack, const int64_t *values);
/* The same for the row of (thread, stack, label_set); label_set PK_NONE is pk_add_sample. */
PK_API pk_status pk_add_sample_labeled(pk_profile *p, uint32_t thread, uint32_t stack,
                                       uint32_t label_set, const int64_t *values);
/* Adds v to one value of the row of (thread, stack). */
PK_API pk_status pk_add_sample_value(pk_profile *p, uint32_t thread, uint32_t stack, uint32_t value,
                              int64_t v);
/* The row of (thread, stack), created when absent: readers that add to the same row again and
 * again can keep the row and skip the lookup. Returns SIZE_MAX when out of memory. */
PK_API size_t pk_sample_row(pk_profile *p, uint32_t thread, uint32_t stack);
/* The row of (thread, stack, label_set), created when absent; label_set PK_NONE is
 * pk_sample_row. SIZE_MAX when out of memory or an index is out of range. */
PK_API size_t pk_sample_row_labeled(pk_profile *p, uint32_t thread, uint32_t stack,
                                    uint32_t label_set);
/* Adds v to one value of a row (saturating at the int64 limits; pk_values_overflow then says
 * so). */
PK_API void pk_sample_row_add(pk_profile *p, size_t row, uint32_t value, int64_t v);
PK_API size_t pk_sample_count(const pk_profile *p); /* number of (thread, stack, labels) rows */
PK_API uint32_t pk_sample_thread(const pk_profile *p, size_t row);
PK_API uint32_t pk_sample_stack(const pk_profile *p, size_t row);
/* The row's label set, PK_NONE for none. */
PK_API uint32_t pk_sample_label_set(const pk_profile *p, size_t row);
PK_API const int64_t *pk_sample_values(const pk_profile *p, size_t row); /* value_type_count entries */
/* Position in the stream of the row's first contribution: every pk_add_sample* and pk_memory_*
 * call takes the next position, so rows and memory events can be merged in stream order. */
PK_API uint64_t pk_sample_order(const pk_profile *p, size_t row);
/* Number of positions handed out so far. */
PK_API uint64_t pk_event_order_count(const pk_profile *p);
/* Sum of one value over all rows (saturating). */
PK_API int64_t pk_value_total(const pk_profile *p, uint32_t value);
/* Whether some value's rows cannot all be summed in an int64: the magnitudes of its rows add up
 * beyond INT64_MAX (or a row saturated), so a total, a call tree node or a share could be
 * wrong. *value (may be NULL) receives the first such value. Readers' callers refuse such
 * profiles; any sum over the rows of a profile for which this is false fits. */
PK_API bool pk_values_overflow(const pk_profile *p, uint32_t *value);

/* ---- memory events -----------------------------------------------------------------------
 * The model keeps what memory events come to: per (thread, stack) the sums of its allocations
 * and of their frees (pk_alloc_site), and the allocations still live, so memory grows with
 * live allocations and allocating sites, not with events. The events themselves, which only
 * outputs that list them need, are spooled compactly out of memory (an unnamed temporary file
 * beyond a few MiB) and read back in stream order with a cursor. */

/* Whether to keep the events for pk_memory_events_open (the default) or only their sums. Call
 * before the first event. */
PK_API void pk_memory_keep_events(pk_profile *p, bool keep);
PK_API pk_status pk_memory_alloc(pk_profile *p, uint32_t thread, uint32_t stack, uint64_t address,
                          uint64_t size);
/* Records a free (or the free half of a realloc) and matches it to the live allocation at
 * address. *freed_size (may be NULL) receives the matched size, 0 when no allocation matched.
 * PK_ERR_IO when the spool of events cannot be written. */
PK_API pk_status pk_memory_free(pk_profile *p, uint32_t thread, uint32_t stack, uint64_t address,
                         pk_memory_kind kind, uint64_t *freed_size);
PK_API size_t pk_memory_event_count(const pk_profile *p);
PK_API void pk_memory_counts_get(const pk_profile *p, pk_memory_counts *out);
/* Frees by a thread of addresses with no live allocation. */
PK_API uint64_t pk_memory_unmatched_frees(const pk_profile *p, uint32_t thread);
/* The allocating sites, in order of their first allocation. */
PK_API size_t pk_alloc_site_count(const pk_profile *p);
PK_API void pk_alloc_site_at(const pk_profile *p, size_t index, pk_alloc_site *out);

/* Reading the events back, in stream order. Open returns PK_ERR_UNSUPPORTED when the profile
 * did not keep them (pk_memory_keep_events) and PK_ERR_NOMEM when memory runs out; a profile
 * without events gives a cursor that ends at once. The profile must not change while a cursor
 * is open. next fills *e and returns true, or returns false at the end or on a read error,
 * which close reports (PK_ERR_IO), freeing the cursor. */
typedef struct pk_memory_cursor pk_memory_cursor;
PK_API pk_status pk_memory_events_open(const pk_profile *p, pk_memory_cursor **out);
PK_API bool pk_memory_events_next(pk_memory_cursor *c, pk_memory_event *e);
PK_API pk_status pk_memory_events_close(pk_memory_cursor *c);
/* Adds the size of every allocation still live to value `value` of its (thread, stack) row and,
 * when count_value is not PK_NONE, 1 per allocation to that value. Rows it creates are created
 * in the order of the sites' first allocations. */
PK_API pk_status pk_memory_add_live_values(pk_profile *p, uint32_t value, uint32_t count_value);

/* ---- call edges --------------------------------------------------------------------------
 * How many times one function called another, where the input counts calls: a call graph's
 * (callgrind's calls= lines). Stacks say which calls happened, not how often; a format with
 * counts keeps them here, per (caller, callee) pair of functions summed over threads, and a
 * writer of call counts (callgrind) writes them as its calls' counts. Copies carry them when
 * they copy every row with every value (profkit/copy.h). Memory grows with the distinct
 * pairs. */

typedef struct pk_call_edge {
    uint32_t caller, callee; /* functions */
    uint64_t calls;          /* saturating at UINT64_MAX */
} pk_call_edge;

/* Adds calls to the pair caller -> callee (made when new, with 0 calls: a call whose count the
 * input gives as 0). PK_ERR_USAGE when a function index is out of range, PK_ERR_NOMEM when
 * memory runs out. */
PK_API pk_status pk_add_call_edge(pk_profile *p, uint32_t caller, uint32_t callee,
                                  uint64_t calls);
PK_API size_t pk_call_edge_count(const pk_profile *p); /* pairs, in the order first added */
PK_API const pk_call_edge *pk_call_edge_at(const pk_profile *p, size_t index);
/* The pair caller -> callee, NULL when the profile does not count it. */
PK_API const pk_call_edge *pk_find_call_edge(const pk_profile *p, uint32_t caller,
                                             uint32_t callee);

/* ---- metadata and warnings --------------------------------------------------------------- */

PK_API pk_metadata *pk_metadata_of(pk_profile *p);
PK_API const pk_metadata *pk_metadata_get(const pk_profile *p);
/* Ordered properties for everything else (versions, device, flags). Setting a key again
 * replaces its value. */
PK_API pk_status pk_property_set(pk_profile *p, const char *key, const char *value);
PK_API size_t pk_property_count(const pk_profile *p);
PK_API const char *pk_property_key(const pk_profile *p, size_t index);
PK_API const char *pk_property_value(const pk_profile *p, size_t index);
PK_API const char *pk_property_get(const pk_profile *p, const char *key); /* NULL when absent */

/* Records a warning about the data (at most 100 are kept; the rest are counted). */
PK_API void pk_warn(pk_profile *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
PK_API size_t pk_warning_count(const pk_profile *p);    /* warnings kept */
PK_API size_t pk_warnings_dropped(const pk_profile *p); /* warnings beyond the kept ones */
PK_API const char *pk_warning_at(const pk_profile *p, size_t index);

#ifdef __cplusplus
}
#endif

#endif
