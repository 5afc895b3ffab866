/* SPDX-License-Identifier: MIT */
/* The perf script reader's state, shared by its parts: read.c (lines, samples, threads, the
 * cache of whole samples), frames.c (frame lines to model frames), metadata.c (events as
 * values, the --header block, times). */
#ifndef PK_FORMATS_PERF_SCRIPT_READER_H
#define PK_FORMATS_PERF_SCRIPT_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/buffer.h"
#include "core/hashmap.h"
#include "formats/perf_script/perf_script.h"

/* Each event takes two of the model's PK_MAX_VALUES values. */
/* Stray lines (read.c): how many are named in the warning, and how many are read past before
 * text where they outnumber the samples is refused. */
#define PERF_STRAY_LISTED 5
#define PERF_STRAY_TOLERATED 8

#define PERF_MAX_EVENTS (PK_MAX_VALUES / 2)

typedef struct perf_event_values {
    uint32_t event;  /* string: the event as printed, `cycles:u` */
    uint32_t period; /* value index of the summed periods */
    uint32_t count;  /* value index of the sample count */
} perf_event_values;

/* A distinct frame line (its text from the address on) and the frames it makes. */
typedef struct perf_frame_line {
    size_t text, text_len; /* in perf_reader.texts */
    size_t run, run_len;   /* in perf_reader.runs */
} perf_frame_line;

/* A distinct run of frame lines (split.h) that made a whole sample's stack. */
typedef struct perf_block {
    uint32_t stack;
    uint32_t thread; /* the thread of the last sample with this block, and its row */
    size_t row;
} perf_block;

typedef struct perf_kept_run {
    size_t text;    /* in perf_reader.kept_texts */
    uint32_t block; /* PK_NONE before the first */
} perf_kept_run;

typedef struct perf_reader {
    pk_profile *p;
    bool annotate_kernel, annotate_jit;

    perf_event_values events[PERF_MAX_EVENTS];
    size_t event_count;
    uint64_t dropped_events; /* samples of events past PERF_MAX_EVENTS */
    uint32_t dropped_event;  /* string: the first such event */

    /* Threads by (pid, tid, command name); the last one found is kept. */
    pk_u64map threads;
    uint64_t last_thread_key;
    uint32_t last_thread;

    /* Distinct frame lines. */
    pk_buffer texts;
    perf_frame_line *frame_lines;
    size_t frame_line_count, frame_line_cap;
    uint32_t *runs;
    size_t run_count, run_cap;
    pk_index frame_index;

    /* The splitter's runs by their number: the text (from batches, which give a run seen
     * before by its number alone), and the block it made. */
    pk_buffer kept_texts;
    /* The splitter, when its pieces come one by one on this thread: it keeps the runs this
     * stage remembers (perf_split_keep); NULL with batches. */
    struct perf_splitter *splitter;
    perf_kept_run *kept;
    size_t kept_count, kept_cap;
    /* Distinct whole samples, found by their run (kept[run].block). */
    perf_block *blocks;
    size_t block_count, block_cap;

    /* The sample being read. */
    bool in_sample;
    bool block_ready;    /* its header came last: a run next may be its frames (split.h) */
    bool sample_skipped; /* a record that is not a sample, or of a dropped event */
    bool callchain_less; /* its header carried its frame */
    bool has_frame_lines;
    uint64_t sample_serial; /* counts the samples started */
    uint32_t thread;
    size_t event;
    int64_t period;
    bool timed;          /* its header had a time, sample_time */
    int64_t sample_time; /* ns on perf's clock */
    uint32_t block;      /* the block the sample's frames were found as, PK_NONE */
    uint32_t *frames;    /* leaf first */
    size_t frame_count, frame_cap;
    uint32_t *ordered;   /* caller first, for interning */
    size_t ordered_cap;
    size_t last_run_len; /* how many frames the last frame line made, for its srcline */

    /* The last header line's bytes up to the end of its ids, and what they said (its pointers
     * are stale: the command is at header_comm_offset in the line). */
    char header_prefix[96];
    size_t header_prefix_len;
    perf_header header_ids;
    size_t header_comm_offset;

    /* What the file showed so far, to tell a cut line from a complete one. */
    bool frames_have_dso;
    bool headers_have_event;

    uint64_t samples;
    uint64_t stray_lines; /* skipped with a warning: neither header, frame nor source line */
    uint64_t stray_at[PERF_STRAY_LISTED];
    size_t stray_listed;
    bool timeline_io_failed; /* the spool of sample times could not be written (else a false
                              * from adding a sample is memory running out) */
    bool have_time;
    uint64_t first_ns, last_ns;
    bool in_header_block; /* before the first sample */
    int64_t captured_on;  /* ns since the epoch, PK_TIME_UNKNOWN */
    size_t event_properties;
} perf_reader;

static inline bool perf_has_prefix(const char *s, size_t n, const char *prefix)
{
    size_t k = strlen(prefix);
    return n >= k && memcmp(s, prefix, k) == 0;
}

/* frames.c */
uint32_t perf_named_frame(pk_profile *p, uint32_t name, uint32_t resource, uint64_t address,
                          uint32_t flags, uint32_t file, uint32_t line);
/* Adds a frame line (its text from the address on, parsed into f) to the sample. False when
 * memory runs out. */
bool perf_add_frame_line(perf_reader *r, const char *text, size_t len, const perf_frame *f);
/* A `-F +srcline` line: the last frame line's frames again, with the file and line. */
bool perf_add_srcline(perf_reader *r, const char *file, size_t file_len, uint32_t line);

/* metadata.c */
/* The index of an event's values, declared when new; SIZE_MAX for an event past the ones the
 * model has room for, SIZE_MAX - 1 when memory runs out. has_period: whether the sample that
 * names the event shows its period (a clock event's periods are nanoseconds only then). */
size_t perf_event_index(perf_reader *r, const char *e, size_t n, bool has_period);
/* A `# key : value` line of the --header block: a property. False when memory runs out. */
bool perf_header_comment(perf_reader *r, const char *text, size_t len);
/* Times, and the warning about events left out. */
void perf_finish_metadata(perf_reader *r);

#endif
