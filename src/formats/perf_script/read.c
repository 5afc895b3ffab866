/* SPDX-License-Identifier: MIT */
/* Reads `perf script` text into the model, streaming: memory grows with the distinct frame
 * lines, samples' frame runs, stacks and threads, never with the samples.
 *
 * - A thread per pid/tid and command name (a process that execs is first a thread `perf-exec`,
 *   then one of its program), so that every sample's thread names its command.
 * - Stacks hold the sampled frames only: the command name as the root frame, which
 *   stackcollapse-perf.pl makes, is the folded writer's (the property "folded roots" asks for
 *   it; `--perf-pid`, `--perf-tid` add the ids, `--perf-no-root` leaves it out), so the viewers
 *   that have threads show no extra frame.
 * - Frames (frames.c): the function named by the symbol without `+0xOFF`, the DSO as resource,
 *   the address printed. Folded output tidies names as FlameGraph does (folded.c), so the model
 *   keeps perf's.
 * - Each event is two values (metadata.c); the first event's period is the default.
 *
 * Speed: the input is cut into lines by split.c, on a second thread when the process may use
 * two processors (core/batch_ring.h), while this one builds the model; with one processor this
 * thread takes each piece as the splitter finds it (no batch, no copy). After a line that may
 * start a sample the splitter takes the frame lines up to the empty line that ends it as one run
 * of bytes and numbers the distinct runs; a run seen before gives its stack
 * (and the row of its last thread) at once. Other runs are read line by line, each distinct
 * frame line parsed once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/batch_ring.h"
#include "core/damage.h"
#include "core/input.h"
#include "core/processors.h"
#include "formats/perf_script/reader.h"
#include "formats/perf_script/split.h"
#include "profkit/timeline.h"

/* perf's lines are short; a tracepoint's fields or a deep C++ name may make one long. */
#define PERF_MAX_LINE ((size_t)16 << 20)
#define PERF_MAX_LINE_TEXT "16 MiB"
/* Batches between the splitter and the model: enough to ride out a few uneven ones. */
#define PERF_BATCHES 4

static void reader_free(perf_reader *r)
{
    pk_u64map_free(&r->threads);
    pk_buffer_free(&r->texts);
    free(r->frame_lines);
    free(r->runs);
    pk_index_free(&r->frame_index);
    pk_buffer_free(&r->kept_texts);
    free(r->kept);
    free(r->blocks);
    free(r->frames);
    free(r->ordered);
}

/* ---- threads --------------------------------------------------------------------------- */

static uint32_t thread_of(perf_reader *r, const perf_header *h)
{
    /* Samples come in runs of one thread: the last one, when ids and name are the same. */
    if (r->last_thread != PK_NONE) {
        const pk_thread *last = pk_thread_at(r->p, r->last_thread);
        if (last->pid == h->pid && last->tid == h->tid &&
            pk_str_len(r->p, last->name) == h->comm_len &&
            memcmp(pk_str(r->p, last->name), h->comm, h->comm_len) == 0)
            return r->last_thread;
    }
    uint32_t comm = pk_intern(r->p, h->comm, h->comm_len);
    if (comm == PK_NONE)
        return PK_NONE;
    uint64_t key = pk_hash_u64(((uint64_t)h->pid << 32) ^ (uint64_t)h->tid ^
                               ((uint64_t)h->pid >> 32) ^ ((uint64_t)comm << 40));
    uint32_t *known = pk_u64map_find(&r->threads, key);
    uint32_t t;
    if (known && pk_thread_at(r->p, *known)->pid == h->pid &&
        pk_thread_at(r->p, *known)->tid == h->tid && pk_thread_at(r->p, *known)->name == comm) {
        t = *known;
    } else {
        t = pk_add_thread(r->p, comm, h->pid, h->tid);
        uint32_t *slot;
        bool inserted;
        if (t == PK_NONE || !pk_u64map_put(&r->threads, key, t, &slot, &inserted))
            return PK_NONE;
        *slot = t;
    }
    r->last_thread_key = key;
    r->last_thread = t;
    return t;
}

/* ---- samples ------------------------------------------------------------------------------- */

/* The stack of the frames read for the sample, caller first. */
static uint32_t sample_stack(perf_reader *r)
{
    size_t n = r->frame_count;
    if (n == 0)
        return PK_NONE;
    if (!PK_ARRAY_RESERVE(r->ordered, r->ordered_cap, n))
        return PK_NONE;
    for (size_t i = 0; i < n; i++)
        r->ordered[i] = r->frames[n - 1 - i];
    return pk_intern_stack_frames(r->p, PK_NONE, r->ordered, n);
}

/* Adds the sample read so far to the model. False when memory runs out. */
static bool end_sample(perf_reader *r)
{
    if (!r->in_sample)
        return true;
    r->in_sample = false;
    if (r->sample_skipped)
        return true;
    size_t row;
    uint32_t stack;
    perf_block *block = r->block != PK_NONE ? &r->blocks[r->block] : NULL;
    if (block && block->thread == r->thread) {
        row = block->row;
        stack = block->stack;
    } else {
        /* A block's stack was interned when the block was first read (PK_NONE: its sample
         * has no frames, every line of it stray); only a stack interned now can fail. */
        stack = block ? block->stack : sample_stack(r);
        if (stack == PK_NONE && !block && r->frame_count > 0)
            return false;
        row = pk_sample_row(r->p, r->thread, stack);
        if (row == SIZE_MAX)
            return false;
        if (block) {
            block->thread = r->thread;
            block->row = row;
        }
    }
    const perf_event_values *e = &r->events[r->event];
    pk_sample_row_add(r->p, row, e->period, r->period);
    pk_sample_row_add(r->p, row, e->count, 1);
    r->samples++;
    if (r->timed) {
        /* The thread's timeline: the sample where it happened, weighing what it added. */
        int64_t values[PK_MAX_VALUES];
        memset(values, 0, pk_value_type_count(r->p) * sizeof *values);
        values[e->period] = r->period;
        values[e->count] = 1;
        pk_status status = pk_timeline_append(r->p, r->thread, stack, r->sample_time, 0, values);
        if (status != PK_OK) {
            r->timeline_io_failed = status == PK_ERR_IO;
            return false;
        }
    } else if (pk_timeline_drop(r->p, r->thread) != PK_OK) {
        return false; /* a sample without a time: in the rows, so not in a timeline */
    }
    return true;
}

/* Starts the sample of a header line. Returns PK_OK, or PK_ERR_NOMEM. */
static pk_status start_sample(perf_reader *r, const perf_header *h)
{
    r->in_sample = true;
    r->sample_serial++;
    r->sample_skipped = false;
    r->frame_count = 0;
    r->last_run_len = 0;
    r->block = PK_NONE;
    r->callchain_less = false;
    r->has_frame_lines = false;
    if (h->event) {
        r->headers_have_event = true;
        /* Side-band records (--show-mmap-events, ...) are no samples. */
        if (perf_has_prefix(h->event, h->event_len, "PERF_RECORD_")) {
            r->sample_skipped = true;
            return PK_OK;
        }
    }
    size_t e = h->event ? perf_event_index(r, h->event, h->event_len, h->has_period)
                        : perf_event_index(r, "event", 5, h->has_period);
    if (e == SIZE_MAX - 1)
        return PK_ERR_NOMEM;
    if (e == SIZE_MAX) {
        r->sample_skipped = true;
        return PK_OK;
    }
    r->event = e;
    /* No period, or 0, counts 1 (as stackcollapse-perf.pl counts it). */
    r->period = h->has_period && h->period > 0 && h->period <= INT64_MAX ? (int64_t)h->period : 1;
    r->thread = thread_of(r, h);
    if (r->thread == PK_NONE)
        return PK_ERR_NOMEM;
    /* A time past the int64 range of the model's clock leaves the sample untimed. */
    r->timed = h->has_time && h->time_ns <= INT64_MAX;
    r->sample_time = r->timed ? (int64_t)h->time_ns : 0;
    if (h->has_time) {
        if (!r->have_time || h->time_ns < r->first_ns)
            r->first_ns = h->time_ns;
        if (!r->have_time || h->time_ns > r->last_ns)
            r->last_ns = h->time_ns;
        r->have_time = true;
    }
    if (r->in_header_block) {
        r->in_header_block = false;
        pk_metadata *md = pk_metadata_of(r->p);
        if (md->product == 0 || md->product == PK_NONE)
            md->product = pk_thread_at(r->p, r->thread)->name;
    }
    /* Without call graphs the frame follows the event on the same line (without its DSO under
     * `-F ...,ip,sym`). */
    perf_frame f;
    if (perf_event_line_frame(h, &f)) {
        r->callchain_less = true;
        if (!perf_add_frame_line(r, h->rest, h->rest_len, &f))
            return PK_ERR_NOMEM;
    }
    return PK_OK;
}

/* ---- lines --------------------------------------------------------------------------------- */

/* Where a line is, for messages; unterminated: it ends the input without a line end. */
typedef struct line_place {
    uint64_t number, offset;
    bool unterminated;
} line_place;

/* Parses a header line; one that starts as the last header did, up to its ids, has their
 * command and ids (samples come in runs of one thread). */
static bool parse_header_cached(perf_reader *r, const char *text, size_t len, perf_header *h)
{
    size_t known = r->header_prefix_len;
    if (known > 0 && len > known && (text[known] == ' ' || text[known] == '\t') &&
        memcmp(text, r->header_prefix, known) == 0) {
        *h = r->header_ids;
        h->comm = text + r->header_comm_offset;
        return perf_parse_header_after_ids(text, len, h);
    }
    if (!perf_parse_header(text, len, h))
        return false;
    r->header_prefix_len = 0;
    if (h->ids_end <= sizeof r->header_prefix) {
        memcpy(r->header_prefix, text, h->ids_end);
        r->header_prefix_len = h->ids_end;
        r->header_ids = *h;
        r->header_comm_offset = (size_t)(h->comm - text);
    }
    return true;
}

/* A frame line of the sample (text from its first byte, f parsed). */
static pk_status take_frame_line(perf_reader *r, const char *text, size_t len, const perf_frame *f)
{
    if (f->dso)
        r->frames_have_dso = true;
    r->has_frame_lines = true;
    if (r->sample_skipped)
        return PK_OK;
    size_t start = 0;
    while (text[start] == ' ' || text[start] == '\t')
        start++;
    return perf_add_frame_line(r, text + start, len - start, f) ? PK_OK : PK_ERR_NOMEM;
}

/* Takes one line (without its end). Returns PK_OK, PK_ERR_NOMEM, or damage (PK_ERR_INPUT with
 * err set). */
static pk_status take_line(perf_reader *r, const char *text, size_t len, line_place at,
                           pk_error *err)
{
    const char *nul = memchr(text, '\0', len);
    if (nul)
        return pk_damage(err, at.offset + (uint64_t)(nul - text),
                         "line %llu holds a NUL byte: this is not text",
                         (unsigned long long)at.number);
    if (perf_blank_line(text, len))
        return end_sample(r) ? PK_OK : PK_ERR_NOMEM;
    if (text[0] == '#') {
        if (r->in_header_block && !perf_header_comment(r, text, len))
            return PK_ERR_NOMEM;
        return PK_OK;
    }
    bool indented = text[0] == ' ' || text[0] == '\t';
    perf_frame f;
    perf_header h;
    const char *file;
    size_t file_len;
    uint32_t number;
    /* Inside a sample, an indented line is a frame or its source line; a line of a file
     * without call graphs is a header even when its command is a hexadecimal word. */
    if (r->in_sample && indented && !r->callchain_less && perf_parse_frame(text, len, &f)) {
        bool cut = at.unterminated && r->frames_have_dso && !f.dso;
        if (!cut)
            return take_frame_line(r, text, len, &f);
    } else if (parse_header_cached(r, text, len, &h) &&
               !(at.unterminated && r->headers_have_event && !h.event)) {
        if (!end_sample(r))
            return PK_ERR_NOMEM;
        return start_sample(r, &h);
    } else if (r->in_sample && !indented && !r->callchain_less && perf_parse_frame(text, len, &f) &&
               f.dso) {
        /* Some perf versions and Java agents print frame lines flush left; with its DSO such a
         * line is no header (those have a time or an event). */
        return take_frame_line(r, text, len, &f);
    } else if (r->in_sample && indented && r->has_frame_lines && !at.unterminated) {
        /* Under a frame, `-F +srcline` prints its source line, `FILE:LINE`, or what perf
         * knows instead (`[kernel.kallsyms][ADDRESS]`, `??:0`), which names nothing. */
        if (perf_parse_srcline(text, len, &file, &file_len, &number)) {
            if (!r->sample_skipped && !perf_add_srcline(r, file, file_len, number))
                return PK_ERR_NOMEM;
            return PK_OK;
        }
        size_t first = 0;
        while (text[first] == ' ' || text[first] == '\t')
            first++;
        if (text[first] == '[')
            return PK_OK;
    }
    if (at.unterminated) {
        /* The sample being read is incomplete: it is dropped. */
        r->in_sample = false;
        return pk_damage(err, at.offset, "line %llu is cut short: the input ends inside it",
                         (unsigned long long)at.number);
    }
    /* A stray line (a frame perf could not format, a header without its fields) is skipped
     * with a warning, as inferno skips it: inside a sample the sample goes on; elsewhere the
     * lines up to the next empty line are its record's, skipped too. Text where such lines
     * outnumber the samples is not perf output. */
    r->stray_lines++;
    if (r->stray_listed < PERF_STRAY_LISTED)
        r->stray_at[r->stray_listed++] = at.number;
    if (r->stray_lines > PERF_STRAY_TOLERATED && r->stray_lines > r->samples) {
        r->in_sample = false;
        return pk_damage(err, at.offset,
                         "line %llu is not perf script output: expected a sample header "
                         "('COMM PID/TID [CPU] TIME: PERIOD EVENT:'), a frame "
                         "('ADDRESS SYMBOL (DSO)') or an empty line (%llu such lines, more "
                         "than the samples before them)",
                         (unsigned long long)at.number, (unsigned long long)r->stray_lines);
    }
    if (!r->in_sample) {
        r->in_sample = true;
        r->sample_skipped = true;
        r->callchain_less = false;
        r->has_frame_lines = false;
    }
    return PK_OK;
}

/* ---- whole samples' frame lines ------------------------------------------------------------ */

/* Takes the run's lines one by one, as any others. */
static pk_status take_run_lines(perf_reader *r, const char *text, size_t len, line_place at,
                                pk_error *err)
{
    for (size_t pos = 0; pos < len;) {
        const char *lf = memchr(text + pos, '\n', len - pos);
        size_t n = (size_t)(lf - text) - pos;
        pk_status s = take_line(r, text + pos, n, at, err);
        if (s != PK_OK)
            return s;
        at.number++;
        at.offset += n + 1;
        pos += n + 1;
    }
    return PK_OK;
}

/* A run of lines up to the empty line that ends a sample (split.h), then that empty line. Right
 * after the header that started a sample (block_ready), a run seen before is the sample's
 * stack at once; another is read line by line and, when it was the sample's
 * frames alone, remembered. Elsewhere its lines are lines as any others. */
static pk_status take_run(perf_reader *r, const perf_piece *piece, const char *text,
                          bool block_ready, pk_error *err)
{
    uint32_t run = piece->run;
    if (run != UINT32_MAX && piece->new_run) {
        /* Kept, and its text for a later sample whose frames are read line by line (a batch
         * gives none). */
        if (run != r->kept_count || !PK_ARRAY_RESERVE(r->kept, r->kept_cap, r->kept_count + 1))
            return PK_ERR_NOMEM;
        r->kept[r->kept_count++] = (perf_kept_run){r->kept_texts.len, PK_NONE};
        pk_buffer_append(&r->kept_texts, text, piece->len);
        if (r->kept_texts.failed)
            return PK_ERR_NOMEM;
    }
    if (!text)
        text = (const char *)r->kept_texts.data + r->kept[run].text;
    line_place at = {piece->number, piece->offset, false};
    line_place empty = {piece->number + piece->lines, piece->offset + piece->len, false};
    if (block_ready && run != UINT32_MAX) {
        if (r->kept[run].block != PK_NONE) {
            r->block = r->kept[run].block;
            /* The sample ends (the empty line after it would end nothing more). */
            return end_sample(r) ? PK_OK : PK_ERR_NOMEM;
        }
    }
    uint64_t serial = r->sample_serial;
    uint64_t stray_before = r->stray_lines;
    pk_status status = take_run_lines(r, text, piece->len, at, err);
    if (status != PK_OK)
        return status;
    /* Frames of this sample alone (no header, empty, source or stray line among them: a stray
     * line is counted and named where it is, which a repeat of the block would skip):
     * remembered, and the run kept now when the splitter left that to this stage. */
    if (block_ready && r->in_sample && r->sample_serial == serial && !r->sample_skipped &&
        r->stray_lines == stray_before &&
        r->block_count < UINT32_MAX - 1 && (run != UINT32_MAX || r->splitter)) {
        if (run == UINT32_MAX) {
            if (!perf_split_keep(r->splitter, piece, &run) ||
                !PK_ARRAY_RESERVE(r->kept, r->kept_cap, r->kept_count + 1))
                return PK_ERR_NOMEM;
            if (run == UINT32_MAX || run != r->kept_count)
                return take_line(r, "", 0, empty, err);
            r->kept[r->kept_count++] = (perf_kept_run){0, PK_NONE};
        }
        uint32_t stack = sample_stack(r);
        if (stack == PK_NONE && r->frame_count > 0)
            return PK_ERR_NOMEM;
        if (!PK_ARRAY_RESERVE(r->blocks, r->block_cap, r->block_count + 1))
            return PK_ERR_NOMEM;
        r->blocks[r->block_count] = (perf_block){stack, PK_NONE, 0};
        r->block = r->kept[run].block = (uint32_t)r->block_count++;
    }
    return take_line(r, "", 0, empty, err);
}

/* One piece (split.h), its text given where it is (a RUN seen before needs none). */
static pk_status take_piece(perf_reader *r, const perf_piece *piece, const char *text,
                            pk_error *err)
{
    if (piece->kind == PERF_PIECE_LINE) {
        line_place at = {piece->number, piece->offset, piece->unterminated};
        uint64_t serial = r->sample_serial;
        pk_status status = take_line(r, text, piece->len, at, err);
        /* A new sample with call graphs: its frame lines may come next as a run. */
        r->block_ready = r->sample_serial != serial && r->in_sample && !r->callchain_less;
        return status;
    }
    if (piece->kind == PERF_PIECE_RUN) {
        bool block_ready = r->block_ready;
        r->block_ready = false;
        return take_run(r, piece, text, block_ready, err);
    }
    return pk_damage(err, piece->offset, "line %llu is longer than " PERF_MAX_LINE_TEXT,
                     (unsigned long long)piece->number);
}

/* The pieces of one batch, in order. */
static pk_status take_batch(perf_reader *r, const perf_batch *b, pk_error *err)
{
    for (size_t i = 0; i < b->count; i++) {
        const perf_piece *piece = &b->pieces[i];
        pk_status status = take_piece(r, piece, perf_piece_text(b, piece), err);
        if (status != PK_OK)
            return status;
    }
    return b->nomem ? PK_ERR_NOMEM : PK_OK;
}

/* The pieces as the splitter finds them, on this thread. */
static pk_status take_pieces(perf_reader *r, perf_splitter *splitter, pk_error *err)
{
    r->splitter = splitter;
    for (;;) {
        perf_piece piece;
        perf_split_result got = perf_split_next(splitter, &piece);
        if (got != PERF_SPLIT_PIECE)
            return got == PERF_SPLIT_END ? PK_OK : PK_ERR_NOMEM;
        /* Every piece comes with its text where the splitter found it. */
        pk_status status = take_piece(r, &piece, piece.text, err);
        if (status != PK_OK || piece.kind == PERF_PIECE_TOO_LONG)
            return status;
        if (r->block_ready)
            perf_split_expect_run(splitter);
    }
}

/* The warning about the stray lines read past, naming the first ones. */
static void warn_stray_lines(perf_reader *r)
{
    char listed[128] = "";
    size_t n = 0;
    for (size_t i = 0; i < r->stray_listed && n < sizeof listed; i++)
        n += (size_t)snprintf(listed + n, sizeof listed - n, "%s%llu", i ? ", " : "",
                              (unsigned long long)r->stray_at[i]);
    bool one = r->stray_lines == 1;
    pk_warn(r->p,
            "%llu line%s that %s no sample header, frame or source line %s skipped (line%s %s%s), "
            "as inferno skips them",
            (unsigned long long)r->stray_lines, one ? "" : "s", one ? "is" : "are",
            one ? "was" : "were", one ? "" : "s", listed,
            r->stray_lines > r->stray_listed ? ", ..." : "");
}

/* ---- the reader ---------------------------------------------------------------------------- */

pk_status pk_perf_script_read(pk_input *in, pk_profile *p, const pk_read_options *options,
                              pk_error *err)
{
    perf_reader r;
    memset(&r, 0, sizeof r);
    r.p = p;
    r.last_thread = PK_NONE;
    r.block = PK_NONE;
    r.in_header_block = true;
    r.captured_on = PK_TIME_UNKNOWN;
    const pk_option_list *extra = options ? &options->extra : NULL;
    /* The root frame folded output gives every stack, as stackcollapse-perf.pl does. */
    const char *roots = "command";
    if (extra && pk_option_get(extra, "perf-pid"))
        roots = "command-pid";
    if (extra && pk_option_get(extra, "perf-tid"))
        roots = "command-tid";
    if (extra && pk_option_get(extra, "perf-no-root"))
        roots = NULL;
    bool all = extra && pk_option_get(extra, "perf-all");
    r.annotate_kernel = all || (extra && pk_option_get(extra, "perf-kernel"));
    r.annotate_jit = all || (extra && pk_option_get(extra, "perf-jit"));
    pk_u64map_init(&r.threads);
    pk_index_init(&r.frame_index);
    pk_status status = PK_OK;
    /* Folded output names frames as FlameGraph's collapsers tidy them (folded.c). */
    if (pk_property_set(p, "folded names", "flamegraph") != PK_OK ||
        (roots && pk_property_set(p, "folded roots", roots) != PK_OK))
        status = PK_ERR_NOMEM;
    /* The lines are split (split.c) on a second thread when there is a second processor, while
     * this one builds the model; with one, this thread takes each piece as it is split. */
    perf_splitter splitter;
    perf_splitter_init(&splitter, in, PERF_MAX_LINE);
    if (status == PK_OK && pk_several_processors()) {
        perf_batch batches[PERF_BATCHES];
        void *slots[PERF_BATCHES];
        memset(batches, 0, sizeof batches);
        for (size_t i = 0; i < PERF_BATCHES; i++)
            slots[i] = &batches[i];
        pk_batch_ring ring;
        pk_batch_ring_start(&ring, slots, PERF_BATCHES, perf_split_fill, &splitter, true);
        for (const perf_batch *b; status == PK_OK && (b = pk_batch_ring_next(&ring));)
            status = take_batch(&r, b, err);
        pk_batch_ring_finish(&ring);
        for (size_t i = 0; i < PERF_BATCHES; i++)
            perf_batch_free(&batches[i]);
    } else if (status == PK_OK) {
        status = take_pieces(&r, &splitter, err);
    }
    perf_splitter_free(&splitter);
    if (status == PK_OK && !end_sample(&r))
        status = PK_ERR_NOMEM;
    if (status == PK_OK && !pk_in_error(in) && r.samples == 0)
        status = pk_error_set(err, PK_ERR_INPUT, (int64_t)pk_in_offset(in),
                              "no samples: expected perf script output, a sample header "
                              "('COMM PID/TID [CPU] TIME: PERIOD EVENT:') and its frames");
    if (status == PK_ERR_NOMEM && r.timeline_io_failed)
        status = pk_error_set(err, PK_ERR_IO, PK_NO_OFFSET,
                              "cannot write the sample times to a temporary file");
    if (status == PK_ERR_NOMEM)
        status = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    if (r.stray_lines > 0 && status == PK_OK)
        warn_stray_lines(&r);
    perf_finish_metadata(&r);
    reader_free(&r);
    return status;
}
