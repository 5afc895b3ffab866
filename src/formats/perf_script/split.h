/* The first stage of the perf script reader (split.c): the input cut into lines and, after each
 * line that may start a sample, the sample's frame lines as one run of bytes, found again by
 * those bytes when seen before. It knows nothing of the model and may run on a thread of its
 * own (core/batch_ring.h); read.c reads its batches in order and decides what the lines are. */
#ifndef PK_FORMATS_PERF_SCRIPT_SPLIT_H
#define PK_FORMATS_PERF_SCRIPT_SPLIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buffer.h"
#include "core/hashmap.h"
#include "core/text_lines.h"

typedef enum perf_piece_kind {
    PERF_PIECE_LINE,     /* one line, without its end */
    PERF_PIECE_RUN,      /* lines up to an empty line, with their LF ends; then that empty line */
    PERF_PIECE_TOO_LONG  /* a line longer than the limit (the last piece) */
} perf_piece_kind;

typedef struct perf_piece {
    perf_piece_kind kind;
    bool unterminated; /* LINE: it ends the input without a line end */
    bool new_run;      /* RUN: the first time this run is handed over (its text is given) */
    uint32_t run;      /* RUN: the distinct run's number, from 0 in order of first sight; UINT32_MAX
                        * for a run not kept (not all frame lines), whose text is always given */
    uint64_t number;   /* the line's number (RUN: its first line's), 1-based */
    uint64_t offset;   /* where it starts */
    uint64_t lines;    /* RUN: how many lines, the empty line after them not counted */
    const char *text;  /* the text where it stays put, else NULL and at in the batch's bytes;
                        * none for a RUN that is neither new nor UINT32_MAX */
    size_t at, len;
} perf_piece;

typedef struct perf_batch {
    perf_piece *pieces;
    size_t count, cap;
    pk_buffer bytes; /* copies of texts that would not stay put */
    bool nomem;      /* memory ran out after the pieces: the last batch */
} perf_batch;

/* A kept run of frame lines. */
typedef struct perf_split_run {
    size_t text, len; /* in perf_splitter.texts */
    uint64_t lines;
} perf_split_run;

typedef struct perf_splitter {
    pk_text_lines lines;
    bool stable;    /* the input's bytes stay where they are until it is released */
    bool after_gap; /* at the start, or after an empty or comment line: a sample may start */
    bool want_run;  /* the last line may have started a sample */
    pk_buffer texts;
    perf_split_run *runs;
    size_t run_count, run_cap;
    pk_index index;
} perf_splitter;

void perf_splitter_init(perf_splitter *s, pk_input *in, size_t max_line);
void perf_splitter_free(perf_splitter *s);
/* Fills a perf_batch (a pk_batch_fill_fn): false with the last one. */
bool perf_split_fill(void *splitter, void *batch);
void perf_batch_free(perf_batch *b);

/* A piece's text (a RUN's when it was given). */
static inline const char *perf_piece_text(const perf_batch *b, const perf_piece *p)
{
    if (p->text)
        return p->text;
    return b->bytes.data ? (const char *)b->bytes.data + p->at : "";
}

#endif
