/* SPDX-License-Identifier: MIT */
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
    uint8_t kind;      /* perf_piece_kind */
    bool unterminated; /* LINE: it ends the input without a line end */
    bool new_run;      /* RUN: the first time this run is handed over (its text is given) */
    uint32_t run;      /* RUN: the distinct run's number, from 0 in order of first sight; UINT32_MAX
                        * for a run not kept (not all frame lines), whose text is always given */
    uint32_t lines;    /* RUN: how many lines, the empty line after them not counted */
    uint32_t at;       /* where the text is in the batch's bytes, when text is NULL */
    uint32_t len;      /* the text's length (lines and runs are at most 16 MiB) */
    uint64_t number;   /* the line's number (RUN: its first line's), 1-based */
    uint64_t offset;   /* where it starts */
    const char *text;  /* the text (from perf_split_next: valid until the next call); in a batch,
                        * where it stays put, else NULL (see at), and none for a RUN that is
                        * neither new nor UINT32_MAX */
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
    /* Filling batches, which the model reads later: this stage decides where a run may start
     * (after_gap) and keeps the new runs of frame lines only. Else the model, which takes each
     * piece as it comes, asks for a run after a sample's header (perf_split_expect_run) and
     * keeps the runs that made a sample's stack (perf_split_keep). */
    bool batched;
    uint64_t unkept_hash; /* of the last run not kept */
    pk_buffer texts;
    perf_split_run *runs;
    size_t run_count, run_cap;
    pk_index index;
} perf_splitter;

void perf_splitter_init(perf_splitter *s, pk_input *in, size_t max_line);
void perf_splitter_free(perf_splitter *s);
typedef enum perf_split_result {
    PERF_SPLIT_PIECE, /* *p is the next piece (a TOO_LONG one is the last) */
    PERF_SPLIT_END,   /* no piece is left */
    PERF_SPLIT_NOMEM  /* memory ran out: nothing comes after the pieces before */
} perf_split_result;

/* The next piece, its text given where it is (on a single thread the reader takes each piece as
 * it comes, without batches). */
perf_split_result perf_split_next(perf_splitter *s, perf_piece *p);
/* The next piece may be a run: the line perf_split_next returned last started a sample. */
static inline void perf_split_expect_run(perf_splitter *s)
{
    s->want_run = true;
}
/* Keeps the run of the RUN piece perf_split_next returned last, not kept then, under the next
 * number (*run; UINT32_MAX when there are too many). False when memory runs out. */
bool perf_split_keep(perf_splitter *s, const perf_piece *p, uint32_t *run);
/* Fills a perf_batch (a pk_batch_fill_fn) with pieces whose texts stay valid while the batch is
 * in the ring: false with the last one. */
bool perf_split_fill(void *splitter, void *batch);
void perf_batch_free(perf_batch *b);

/* A piece's text in a batch; NULL for a RUN given by its number alone. */
static inline const char *perf_piece_text(const perf_batch *b, const perf_piece *p)
{
    if (p->text)
        return p->text;
    if (p->kind == PERF_PIECE_RUN && p->run != UINT32_MAX && !p->new_run)
        return NULL;
    return b->bytes.data ? (const char *)b->bytes.data + p->at : "";
}

#endif
