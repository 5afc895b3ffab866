/* SPDX-License-Identifier: MIT */
/* Lines and runs of frame lines of perf script text, for read.c (split.h).
 *
 * Most of a sample's bytes are its frame lines, and most samples repeat a run of them seen
 * before: that run is found whole (pk_text_lines_paragraph), hashed and compared here, so that
 * the reader gets a number in place of the bytes. Only runs of frame and source lines are kept
 * (a line that may be a sample header never is), so what is kept grows with the distinct
 * stacks, not with the samples. */
#include "formats/perf_script/split.h"

#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "formats/perf_script/perf_script.h"

/* A batch is handed over when it holds this many pieces or bytes of copies. */
#define BATCH_PIECES 4096
#define BATCH_BYTES ((size_t)256 << 10)
/* A batch whose copies grew past this (long lines) gives the memory back. */
#define BATCH_BYTES_KEPT ((size_t)4 << 20)

void perf_splitter_init(perf_splitter *s, pk_input *in, size_t max_line)
{
    memset(s, 0, sizeof *s);
    pk_text_lines_init(&s->lines, in, max_line);
    s->stable = pk_in_stable(in);
    s->after_gap = true;
    pk_index_init(&s->index);
}

void perf_splitter_free(perf_splitter *s)
{
    pk_text_lines_free(&s->lines);
    pk_buffer_free(&s->texts);
    free(s->runs);
    pk_index_free(&s->index);
}

void perf_batch_free(perf_batch *b)
{
    free(b->pieces);
    pk_buffer_free(&b->bytes);
}

/* Copies the piece's text into the batch when it would not stay put: only the input's own bytes
 * in memory mode do (not a long line gathered apart). */
static bool keep_text(const perf_splitter *s, perf_batch *b, perf_piece *p)
{
    const pk_input *in = s->lines.in;
    const uint8_t *text = (const uint8_t *)p->text;
    if (s->stable && text >= in->start && text + p->len <= in->end)
        return true;
    p->text = NULL;
    p->at = (uint32_t)b->bytes.len;
    pk_buffer_append(&b->bytes, text, p->len);
    return !b->bytes.failed;
}

/* True when every line of the run is a frame or source line that cannot be read as a sample
 * header: such a run is the frames of one sample, worth keeping. */
static bool frame_lines_only(const char *text, size_t len, uint64_t *lines)
{
    uint64_t count = 0;
    for (size_t pos = 0; pos < len;) {
        const char *lf = memchr(text + pos, '\n', len - pos);
        size_t n = (size_t)(lf - text) - pos;
        const char *line = text + pos;
        perf_frame f;
        perf_header h;
        const char *file;
        size_t file_len;
        uint32_t number;
        if (n == 0 || (line[0] != ' ' && line[0] != '\t') || perf_parse_header(line, n, &h) ||
            !(perf_parse_frame(line, n, &f) ||
              perf_parse_srcline(line, n, &file, &file_len, &number)))
            return false;
        count++;
        pos += n + 1;
    }
    *lines = count;
    return true;
}

static uint64_t count_lines(const char *text, size_t len)
{
    uint64_t count = 0;
    for (const char *p = text, *end = text + len; (p = memchr(p, '\n', (size_t)(end - p)));
         p++)
        count++;
    return count;
}

static bool run_equal(const void *context, uint32_t entry, const void *key)
{
    const perf_splitter *s = context;
    const perf_text_key *k = key;
    const perf_split_run *run = &s->runs[entry];
    return run->len == k->len && memcmp(s->texts.data + run->text, k->text, k->len) == 0;
}

/* Keeps a run under the next number. False when memory runs out. */
static bool keep_run(perf_splitter *s, uint64_t hash, const char *text, size_t len,
                     uint64_t lines)
{
    if (!PK_ARRAY_RESERVE(s->runs, s->run_cap, s->run_count + 1))
        return false;
    s->runs[s->run_count] = (perf_split_run){s->texts.len, len, lines};
    pk_buffer_append(&s->texts, text, len);
    if (s->texts.failed || !pk_index_insert(&s->index, hash, (uint32_t)s->run_count))
        return false;
    s->run_count++;
    return true;
}

/* The run's number, and whether it is new or not kept. False when memory runs out. */
static bool describe_run(perf_splitter *s, perf_piece *p, const char *text, size_t len)
{
    p->text = text;
    p->len = (uint32_t)len;
    perf_text_key key = {text, len};
    uint64_t hash = pk_hash_bytes(text, len);
    uint32_t entry = pk_index_find(&s->index, hash, run_equal, s, &key);
    if (entry != UINT32_MAX) {
        p->run = entry;
        p->lines = (uint32_t)s->runs[entry].lines;
        return true;
    }
    uint64_t lines;
    bool keep = s->batched && s->run_count < UINT32_MAX - 1 &&
                frame_lines_only(text, len, &lines);
    if (keep) {
        if (!keep_run(s, hash, text, len, lines))
            return false;
        p->run = (uint32_t)(s->run_count - 1);
        p->new_run = true;
    } else {
        lines = count_lines(text, len);
        s->unkept_hash = hash;
    }
    p->lines = (uint32_t)lines;
    return true;
}

bool perf_split_keep(perf_splitter *s, const perf_piece *p, uint32_t *run)
{
    *run = UINT32_MAX;
    if (s->run_count >= UINT32_MAX - 1)
        return true;
    if (!keep_run(s, s->unkept_hash, p->text, p->len, p->lines))
        return false;
    *run = (uint32_t)(s->run_count - 1);
    return true;
}

/* The run of lines after a line that may have started a sample, as a RUN piece when the lines
 * are buffered whole (*taken). Returns false when memory runs out. */
static bool take_run(perf_splitter *s, perf_piece *p, bool *taken)
{
    *taken = false;
    const char *text;
    size_t len;
    /* (A run is at most the buffered bytes: only a huge block of memory holds more.) */
    if (!pk_text_lines_paragraph(&s->lines, &text, &len) || len >= UINT32_MAX)
        return true;
    *p = (perf_piece){.kind = PERF_PIECE_RUN, .run = UINT32_MAX, .number = s->lines.number + 1,
                      .offset = pk_in_offset(s->lines.in)};
    if (!describe_run(s, p, text, len))
        return false;
    /* The lines and the empty line after them. */
    pk_text_lines_consume(&s->lines, len + 1, p->lines + 1);
    *taken = true;
    return true;
}

perf_split_result perf_split_next(perf_splitter *s, perf_piece *p)
{
    if (s->want_run) {
        s->want_run = false;
        bool taken;
        if (!take_run(s, p, &taken))
            return PERF_SPLIT_NOMEM;
        if (taken) {
            s->after_gap = true;
            return PERF_SPLIT_PIECE;
        }
    }
    const char *text = NULL;
    size_t len = 0;
    pk_text_line_result got = pk_text_lines_next(&s->lines, &text, &len);
    if (got == PK_TEXT_END)
        return PERF_SPLIT_END;
    if (got == PK_TEXT_NOMEM)
        return PERF_SPLIT_NOMEM;
    *p = (perf_piece){.kind = PERF_PIECE_LINE, .run = UINT32_MAX, .number = s->lines.number,
                      .offset = s->lines.offset};
    if (got == PK_TEXT_TOO_LONG) {
        p->kind = PERF_PIECE_TOO_LONG;
        return PERF_SPLIT_PIECE;
    }
    p->text = text;
    p->len = (uint32_t)len;
    p->unterminated = s->lines.unterminated;
    if (!s->batched)
        return PERF_SPLIT_PIECE;
    bool gap = len == 0 || text[0] == '#' || perf_blank_line(text, len);
    s->want_run = s->after_gap && !gap;
    s->after_gap = gap;
    return PERF_SPLIT_PIECE;
}

bool perf_split_fill(void *splitter, void *batch)
{
    perf_splitter *s = splitter;
    perf_batch *b = batch;
    /* The model reads the pieces later: this stage decides where runs are and which to keep. */
    s->batched = true;
    b->count = 0;
    b->nomem = false;
    if (b->bytes.cap > BATCH_BYTES_KEPT)
        pk_buffer_free(&b->bytes);
    pk_buffer_clear(&b->bytes);
    if (!PK_ARRAY_RESERVE(b->pieces, b->cap, BATCH_PIECES)) {
        b->nomem = true;
        return false;
    }
    while (b->count < BATCH_PIECES && b->bytes.len < BATCH_BYTES) {
        perf_piece *p = &b->pieces[b->count];
        perf_split_result got = perf_split_next(s, p);
        if (got == PERF_SPLIT_END)
            return false;
        /* Memory ran out: the pieces before are good, and nothing comes after them. */
        if (got == PERF_SPLIT_NOMEM) {
            b->nomem = true;
            return false;
        }
        /* A run seen before is known by its number: its text stays behind. */
        if (p->kind == PERF_PIECE_RUN && p->run != UINT32_MAX && !p->new_run)
            p->text = NULL;
        else if (p->kind != PERF_PIECE_TOO_LONG && !keep_text(s, b, p)) {
            b->nomem = true;
            return false;
        }
        b->count++;
        if (p->kind == PERF_PIECE_TOO_LONG)
            return false;
    }
    return true;
}
