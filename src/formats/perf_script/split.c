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
    /* Bytes read in place (memory) are not moved by refills. */
    s->stable = in->owned == NULL;
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

static bool is_blank_line(const char *text, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (text[i] != ' ' && text[i] != '\t')
            return false;
    return true;
}

/* A new piece of the batch, NULL when memory runs out. */
static perf_piece *add_piece(perf_batch *b, perf_piece_kind kind, uint64_t number,
                             uint64_t offset)
{
    if (!PK_ARRAY_RESERVE(b->pieces, b->cap, b->count + 1))
        return NULL;
    perf_piece *p = &b->pieces[b->count++];
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->run = UINT32_MAX;
    p->number = number;
    p->offset = offset;
    return p;
}

/* Gives the piece its text: in place when the bytes stay put, else a copy. */
static bool give_text(const perf_splitter *s, perf_batch *b, perf_piece *p, const char *text,
                      size_t len)
{
    p->len = len;
    const pk_input *in = s->lines.in;
    if (s->stable && (const uint8_t *)text >= in->start && (const uint8_t *)text + len <= in->end) {
        p->text = text;
        return true;
    }
    p->at = b->bytes.len;
    pk_buffer_append(&b->bytes, text, len);
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

typedef struct run_key {
    const char *text;
    size_t len;
} run_key;

static bool run_equal(const void *context, uint32_t entry, const void *key)
{
    const perf_splitter *s = context;
    const run_key *k = key;
    const perf_split_run *run = &s->runs[entry];
    return run->len == k->len && memcmp(s->texts.data + run->text, k->text, k->len) == 0;
}

/* The run's number, or its text when it is new or not kept. False when memory runs out. */
static bool describe_run(perf_splitter *s, perf_batch *b, perf_piece *p, const char *text,
                         size_t len)
{
    run_key key = {text, len};
    uint64_t hash = pk_hash_bytes(text, len);
    uint32_t entry = pk_index_find(&s->index, hash, run_equal, s, &key);
    if (entry != UINT32_MAX) {
        p->run = entry;
        p->lines = s->runs[entry].lines;
        p->len = len;
        return true;
    }
    uint64_t lines;
    if (s->run_count < UINT32_MAX - 1 && frame_lines_only(text, len, &lines)) {
        if (!PK_ARRAY_RESERVE(s->runs, s->run_cap, s->run_count + 1))
            return false;
        s->runs[s->run_count] = (perf_split_run){s->texts.len, len, lines};
        pk_buffer_append(&s->texts, text, len);
        if (s->texts.failed || !pk_index_insert(&s->index, hash, (uint32_t)s->run_count))
            return false;
        p->run = (uint32_t)s->run_count++;
        p->new_run = true;
    } else {
        lines = count_lines(text, len);
    }
    p->lines = lines;
    return give_text(s, b, p, text, len);
}

/* The run of lines after a line that may have started a sample, as a RUN piece when the lines
 * are buffered whole (*taken). Returns false when memory runs out. */
static bool take_run(perf_splitter *s, perf_batch *b, bool *taken)
{
    *taken = false;
    const char *text;
    size_t len;
    if (!pk_text_lines_paragraph(&s->lines, &text, &len))
        return true;
    perf_piece *p = add_piece(b, PERF_PIECE_RUN, s->lines.number + 1,
                              pk_in_offset(s->lines.in));
    if (!p)
        return false;
    if (!describe_run(s, b, p, text, len)) {
        b->count--;
        return false;
    }
    /* The lines and the empty line after them. */
    pk_text_lines_consume(&s->lines, len + 1, p->lines + 1);
    *taken = true;
    return true;
}

bool perf_split_fill(void *splitter, void *batch)
{
    perf_splitter *s = splitter;
    perf_batch *b = batch;
    b->count = 0;
    b->nomem = false;
    if (b->bytes.cap > BATCH_BYTES_KEPT)
        pk_buffer_free(&b->bytes);
    pk_buffer_clear(&b->bytes);
    bool nomem = false;
    while (!nomem && b->count < BATCH_PIECES && b->bytes.len < BATCH_BYTES) {
        if (s->want_run) {
            s->want_run = false;
            bool taken;
            if (!take_run(s, b, &taken)) {
                nomem = true;
                continue;
            }
            if (taken) {
                s->after_gap = true;
                continue;
            }
        }
        const char *text = NULL;
        size_t len = 0;
        pk_text_line_result got = pk_text_lines_next(&s->lines, &text, &len);
        if (got == PK_TEXT_END)
            return false;
        if (got == PK_TEXT_TOO_LONG) {
            if (add_piece(b, PERF_PIECE_TOO_LONG, s->lines.number, s->lines.offset))
                return false;
            nomem = true;
            continue;
        }
        perf_piece *p = got == PK_TEXT_LINE
                            ? add_piece(b, PERF_PIECE_LINE, s->lines.number, s->lines.offset)
                            : NULL;
        if (p && !give_text(s, b, p, text, len)) {
            b->count--;
            p = NULL;
        }
        if (!p) {
            nomem = true;
            continue;
        }
        p->unterminated = s->lines.unterminated;
        bool gap = len == 0 || text[0] == '#' || is_blank_line(text, len);
        s->want_run = s->after_gap && !gap;
        s->after_gap = gap;
    }
    /* Memory ran out: the pieces before are good, and nothing comes after them. */
    b->nomem = nomem;
    return !nomem;
}
