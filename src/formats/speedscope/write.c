/* SPDX-License-Identifier: MIT */
/* Writing speedscope's JSON file format: one profile per thread, sampled or evented.
 *
 * A speedscope frame is a function: (name, file, start line and column), so that the flame
 * graph and the sandwich view merge every line of a function into one box. A thread's samples
 * are, when its input gave times and the profile kept them (profkit/timeline.h), its timeline
 * in time order (consecutive samples of one stack as one, as speedscope's time order shows
 * them anyway), else its (thread, stack) rows of the model, in row order; either with a
 * positive value. A thread whose timeline holds traced spans is an evented profile whose frames
 * open and close at the spans' own times (nanoseconds from the profile's earliest timed sample),
 * closed where a gap between spans begins.
 *
 * A sampled profile lists each sample's whole stack, root first: its size is the sum of the
 * stacks' depths, quadratic in the depth for a trace of deeply nested calls. An evented profile
 * lists the frames opened and closed from one sample to the next, each at the time the samples
 * before it add up to: its size is the changes of stack, whatever their depth. Each thread is
 * written the smaller way (choose_evented). Where two samples' stacks part is found among
 * the stacks as sequences of speedscope frames (core/keyed_stacks.h): two model frames of one
 * function are one speedscope frame, which stays open from one sample to the next.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/arith.h"
#include "core/array.h"
#include "core/hashmap.h"
#include "core/json.h"
#include "core/keyed_stacks.h"
#include "core/title.h"
#include "core/units.h"
#include "formats/speedscope/speedscope.h"
#include "profkit/thread_names.h"
#include "profkit/timeline.h"
#include "profkit/version.h"

typedef struct speedscope_writer {
    const pk_profile *p;
    pk_json json;
    uint32_t value;
    const char *unit;            /* speedscope's name of the value's unit */
    int64_t unit_scale;          /* bytes in one unit of the value (1 for other units) */
    uint32_t *frame_of_function; /* function -> speedscope frame, PK_NONE until used */
    uint32_t *function_of_frame; /* speedscope frame -> its first function */
    size_t frame_count, frame_cap;
    pk_index frames;             /* (name, file, start line, column) -> speedscope frame */
    uint8_t *stack_done;         /* stacks whose frames are numbered */
    pk_keyed_stacks stacks;      /* the stacks of evented candidates, as speedscope frames */
    bool stacks_made;            /* stacks is initialised */
    size_t *rows_by_thread;      /* rows grouped by thread (counting sort) */
    size_t *thread_start;        /* thread t's rows: [thread_start[t], thread_start[t + 1]) */
    bool *thread_spans;          /* timed threads whose timeline holds spans */
    uint32_t *path;
    size_t path_cap;
    pk_thread_names *thread_names; /* the profiles' names: the threads' names as shown */
    int64_t time_origin;         /* the earliest timed sample: time 0 of evented timelines */
    pk_status failure;           /* why writing stopped, when not for memory */
} speedscope_writer;

static void writer_free(speedscope_writer *w)
{
    free(w->frame_of_function);
    free(w->function_of_frame);
    pk_index_free(&w->frames);
    free(w->stack_done);
    if (w->stacks_made)
        pk_keyed_stacks_free(&w->stacks);
    free(w->rows_by_thread);
    free(w->thread_start);
    free(w->thread_spans);
    free(w->path);
    pk_thread_names_free(w->thread_names);
}

static bool same_frame(const void *context, uint32_t entry, const void *key)
{
    const speedscope_writer *w = context;
    const pk_function *a = pk_function_at(w->p, w->function_of_frame[entry]);
    const pk_function *b = key;
    return a->name == b->name && a->file == b->file && a->start_line == b->start_line &&
           a->start_column == b->start_column;
}

/* Numbers the function's speedscope frame. False when out of memory. */
static bool number_function(speedscope_writer *w, uint32_t function)
{
    if (w->frame_of_function[function] != PK_NONE)
        return true;
    const pk_function *f = pk_function_at(w->p, function);
    uint32_t key[4] = {f->name, f->file, f->start_line, f->start_column};
    uint64_t h = pk_hash_bytes(key, sizeof key);
    uint32_t frame = pk_index_find(&w->frames, h, same_frame, w, f);
    if (frame == UINT32_MAX) {
        if (!PK_ARRAY_RESERVE(w->function_of_frame, w->frame_cap, w->frame_count + 1))
            return false;
        frame = (uint32_t)w->frame_count;
        w->function_of_frame[frame] = function;
        if (!pk_index_insert(&w->frames, h, frame))
            return false;
        w->frame_count++;
    }
    w->frame_of_function[function] = frame;
    return true;
}

/* Numbers the frames of a stack not numbered yet, callers first: the stacks of its prefix chain
 * not done yet, outermost first, each by the frames of its run. */
static bool number_stack(speedscope_writer *w, uint32_t stack)
{
    size_t count = 0;
    for (uint32_t s = stack; s != PK_NONE && !w->stack_done[s];) {
        if (!PK_ARRAY_RESERVE(w->path, w->path_cap, count + 1))
            return false;
        w->path[count++] = s;
        const uint32_t *frames;
        pk_stack_run(w->p, s, &s, &frames);
    }
    while (count > 0) {
        uint32_t s = w->path[--count], prefix;
        const uint32_t *frames;
        size_t length = pk_stack_run(w->p, s, &prefix, &frames);
        w->stack_done[s] = 1;
        for (size_t k = 0; k < length; k++)
            if (!number_function(w, pk_frame_at(w->p, frames[k])->function))
                return false;
    }
    return true;
}

/* The speedscope frame of a model frame numbered before. */
static uint32_t speedscope_frame(const speedscope_writer *w, uint32_t frame)
{
    return w->frame_of_function[pk_frame_at(w->p, frame)->function];
}

/* A frame's key among the stacks: its speedscope frame. */
static uint32_t frame_key(void *context, uint32_t frame)
{
    return speedscope_frame(context, frame);
}

/* Fills path with the frames of a stack below depth `from`, innermost first, and returns how
 * many; SIZE_MAX when out of memory. Steps through as many runs as hold them. */
static size_t frames_below(speedscope_writer *w, uint32_t stack, uint32_t from)
{
    size_t count = pk_stack_depth(w->p, stack) - from, k = 0;
    if (!PK_ARRAY_RESERVE(w->path, w->path_cap, count))
        return SIZE_MAX;
    for (uint32_t s = stack; k < count;) {
        const uint32_t *frames;
        for (size_t i = pk_stack_run(w->p, s, &s, &frames); i-- > 0 && k < count;)
            w->path[k++] = frames[i];
    }
    return count;
}

static int64_t row_weight(const speedscope_writer *w, size_t row)
{
    return pk_sample_values(w->p, row)[w->value];
}

/* speedscope's units are the canonical names of times and "bytes"; a value in a larger unit of
 * size (kilobytes, ...) is written in bytes, anything else has no unit ("none"). */
static void choose_unit(speedscope_writer *w)
{
    const pk_value_type *vt = pk_value_type_at(w->p, w->value);
    pk_unit_info unit = pk_unit_lookup(pk_str(w->p, vt->unit));
    w->unit = "none";
    w->unit_scale = 1;
    if (unit.kind == PK_UNIT_TIME) {
        w->unit = unit.canonical;
    } else if (unit.kind == PK_UNIT_BYTES) {
        w->unit = "bytes";
        w->unit_scale = unit.scale;
    }
}

/* A positive weight in speedscope's unit; at most INT64_MAX. */
static int64_t written_weight(const speedscope_writer *w, int64_t v)
{
    int64_t scaled;
    return __builtin_mul_overflow(v, w->unit_scale, &scaled) ? INT64_MAX : scaled;
}

static void write_frames(speedscope_writer *w)
{
    pk_json *j = &w->json;
    pk_json_key(j, "shared");
    pk_json_object_begin(j);
    pk_json_key(j, "frames");
    pk_json_array_begin(j);
    for (size_t i = 0; i < w->frame_count; i++) {
        const pk_function *f = pk_function_at(w->p, w->function_of_frame[i]);
        size_t name_len = pk_str_len(w->p, f->name);
        pk_json_line_break(j);
        pk_json_object_begin(j);
        /* Whole names: a NUL byte inside is written \u0000. */
        pk_json_key(j, "name");
        if (name_len)
            pk_json_string_len(j, pk_str(w->p, f->name), name_len);
        else
            pk_json_string(j, "(unnamed)");
        if (f->file != 0 && f->file != PK_NONE) {
            pk_json_key(j, "file");
            pk_json_string_len(j, pk_str(w->p, f->file), pk_str_len(w->p, f->file));
        }
        if (f->start_line != 0)
            pk_json_member_u64(j, "line", f->start_line);
        if (f->start_column != 0)
            pk_json_member_u64(j, "col", f->start_column);
        pk_json_object_end(j);
    }
    pk_json_array_end(j);
    pk_json_object_end(j);
}

/* Whether the thread is written from its timeline. */
static bool thread_timed(const speedscope_writer *w, uint32_t thread)
{
    if (!pk_timeline_kept(w->p))
        return false;
    pk_timeline_info info;
    pk_timeline_info_get(w->p, thread, &info);
    return info.measured && info.count > 0;
}

/* One sample of a pass over a thread: a row, or a run of a timeline's samples. */
typedef struct pass_sample {
    uint32_t stack;
    int64_t weight; /* the value, in the model's unit */
    int64_t time;   /* timed: ns on the profile's clock */
    int64_t end;    /* timed: a span's end, an instant's time */
    bool span;
} pass_sample;

/* A pass over a thread's samples with a positive weight (spans too: speedscope would weigh a
 * span by its duration whatever the value written, so one weighing nothing there, a trace's
 * duration event written by cpu, is left out as a row weighing nothing is), in row
 * order or, timed, in time order with consecutive instants of one stack merged. */
typedef struct thread_pass {
    speedscope_writer *w;
    size_t next_row, last_row;
    pk_timeline_cursor *cursor; /* NULL: rows */
    pass_sample ahead;
    bool have_ahead;
} thread_pass;

static bool pass_begin(speedscope_writer *w, uint32_t thread, thread_pass *pass)
{
    *pass = (thread_pass){.w = w,
                          .next_row = w->thread_start[thread],
                          .last_row = w->thread_start[thread + 1]};
    if (!thread_timed(w, thread))
        return true;
    pk_status status = pk_timeline_open(w->p, thread, &pass->cursor);
    if (status != PK_OK) {
        w->failure = status;
        return false;
    }
    return true;
}

/* The timeline's next sample worth writing. */
static bool pass_fetch(thread_pass *pass, pass_sample *out)
{
    pk_timed_sample s;
    while (pk_timeline_next(pass->cursor, &s)) {
        int64_t weight = s.values ? s.values[pass->w->value] : 0;
        if (weight <= 0)
            continue;
        *out = (pass_sample){s.stack, weight, s.time, pk_add_saturating(s.time, s.duration),
                             s.duration > 0};
        return true;
    }
    return false;
}

static bool pass_next(thread_pass *pass, pass_sample *out)
{
    if (!pass->cursor) {
        while (pass->next_row < pass->last_row) {
            size_t row = pass->w->rows_by_thread[pass->next_row++];
            int64_t v = row_weight(pass->w, row);
            if (v > 0) {
                *out = (pass_sample){pk_sample_stack(pass->w->p, row), v, 0, 0, false};
                return true;
            }
        }
        return false;
    }
    if (!pass->have_ahead && !pass_fetch(pass, &pass->ahead))
        return false;
    *out = pass->ahead;
    pass->have_ahead = false;
    pass_sample next;
    while (!out->span && pass_fetch(pass, &next)) {
        if (next.span || next.stack != out->stack) {
            pass->ahead = next;
            pass->have_ahead = true;
            break;
        }
        out->weight = pk_add_saturating(out->weight, next.weight);
        out->end = next.end;
    }
    return true;
}

/* Ends a pass; false when the timeline could not be read back. */
static bool pass_end(thread_pass *pass)
{
    if (!pass->cursor)
        return true;
    pk_status status = pk_timeline_close(pass->cursor);
    pass->cursor = NULL;
    if (status != PK_OK)
        pass->w->failure = status;
    return status == PK_OK;
}

/* Numbers the frames of what a timed thread's pass writes, which the rows may not all have:
 * a row sums its timed samples, so one weighing nothing may hold a sample that weighs. The
 * same pass notes whether the timeline holds spans (thread_spans), which decides how the
 * thread is written. */
static bool number_timed_stacks(speedscope_writer *w, uint32_t thread)
{
    if (!thread_timed(w, thread))
        return true;
    thread_pass pass;
    pass_sample s;
    if (!pass_begin(w, thread, &pass))
        return false;
    bool ok = true;
    while (ok && pass_next(&pass, &s)) {
        ok = number_stack(w, s.stack);
        w->thread_spans[thread] = w->thread_spans[thread] || s.span;
    }
    return pass_end(&pass) && ok;
}

/* Sum of the thread's positive weights, in speedscope's unit. */
static int64_t thread_total(const speedscope_writer *w, uint32_t thread)
{
    int64_t total = 0;
    for (size_t i = w->thread_start[thread]; i < w->thread_start[thread + 1]; i++) {
        int64_t v = row_weight(w, w->rows_by_thread[i]);
        if (v > 0)
            total = pk_add_saturating(total, written_weight(w, v));
    }
    return total;
}

/* How many times the bytes of a sample's frame index an open or close event takes: written,
 * `{"type":"O","frame":12,"at":1234567890},` against `12,`, the frame index as long in both and
 * the time some 7 to 12 digits (nanoseconds in a profile of milliseconds to seconds), a sample's
 * brackets and weight spread over its frames. docs/formats/speedscope.md says what it was
 * measured on. */
#define EVENT_BYTES_PER_FRAME_INDEX 10

/* Whether the thread's samples take fewer bytes as an evented profile than as a sampled one,
 * in *evented: from the frame indexes the samples list (the sum of their depths) and the events
 * that open and close frames between them. Those are bounded below first by the changes of
 * depth from one sample to the next, which settles most profiles (call chains that part near
 * their leaves) without placing their stacks; else counted among the stacks placed as
 * speedscope frames, until they are too many (so that counting costs at most a tenth of
 * writing the samples). Never evented when a sample has no frame (no frame is open to weigh
 * it), nor when the thread's total is the largest weight there is (the times of the events
 * could not run on). False when out of memory. */
static bool choose_evented(speedscope_writer *w, uint32_t thread, int64_t total, bool *evented)
{
    *evented = false;
    if (total == INT64_MAX)
        return true;
    uint64_t frames = 0, fewest_events = 0;
    uint32_t depth_before = 0;
    thread_pass pass;
    pass_sample sample;
    if (!pass_begin(w, thread, &pass))
        return false;
    bool has_empty = false;
    while (!has_empty && pass_next(&pass, &sample)) {
        if (sample.stack == PK_NONE) {
            has_empty = true;
            break;
        }
        uint32_t depth = pk_stack_depth(w->p, sample.stack);
        frames += depth;
        fewest_events += depth > depth_before ? depth - depth_before : depth_before - depth;
        depth_before = depth;
    }
    if (!pass_end(&pass))
        return false;
    if (has_empty)
        return true;
    fewest_events += depth_before;
    if (fewest_events * EVENT_BYTES_PER_FRAME_INDEX >= frames)
        return true;
    if (!w->stacks_made) {
        w->stacks_made = true;
        if (!pk_keyed_stacks_init(&w->stacks, w->p, frame_key, w))
            return false;
    }
    uint64_t events = 0;
    uint32_t open = PK_NONE;
    if (!pass_begin(w, thread, &pass))
        return false;
    bool decided = false, ok = true;
    while (pass_next(&pass, &sample)) {
        uint32_t stack = sample.stack;
        if (!pk_keyed_stacks_add(&w->stacks, stack)) {
            ok = false;
            break;
        }
        uint32_t common = pk_keyed_stacks_common(&w->stacks, open, stack);
        events += pk_stack_depth(w->p, open) + pk_stack_depth(w->p, stack) - 2 * (uint64_t)common;
        if (events * EVENT_BYTES_PER_FRAME_INDEX >= frames) {
            decided = true;
            break;
        }
        open = stack;
    }
    if (!pass_end(&pass) || !ok)
        return false;
    if (decided)
        return true;
    events += pk_stack_depth(w->p, open);
    *evented = events * EVENT_BYTES_PER_FRAME_INDEX < frames;
    return true;
}

/* Opens a profile of a type and writes its members up to its end value. */
static void profile_begin(speedscope_writer *w, const char *type, const char *name,
                          const char *unit, int64_t start_value, int64_t end_value)
{
    pk_json *j = &w->json;
    pk_json_object_begin(j);
    pk_json_member_string(j, "type", type);
    pk_json_member_string(j, "name", name);
    pk_json_member_string(j, "unit", unit);
    pk_json_member_i64(j, "startValue", start_value);
    pk_json_member_i64(j, "endValue", end_value);
}

/* {"type":"O","frame":12,"at":345}: type 'O' opens the frame, 'C' closes it. */
static void write_event(speedscope_writer *w, char type, uint32_t frame, int64_t at)
{
    pk_output *out = pk_json_value(&w->json);
    pk_out_write(out, "{\"type\":\"", 9);
    pk_out_putc(out, type);
    pk_out_write(out, "\",\"frame\":", 10);
    pk_out_u64(out, speedscope_frame(w, frame));
    pk_out_write(out, ",\"at\":", 6);
    pk_out_i64(out, at);
    pk_out_putc(out, '}');
}

/* On a line of its own, the events from stack `from` to stack `to` at `at`: `from`'s frames
 * closed down to what the two share, innermost first, then `to`'s opened below it, outermost
 * first. False when out of memory. */
static bool write_move(speedscope_writer *w, uint32_t from, uint32_t to, int64_t at)
{
    uint32_t common = pk_keyed_stacks_common(&w->stacks, from, to);
    if (common == pk_stack_depth(w->p, from) && common == pk_stack_depth(w->p, to))
        return true; /* one speedscope stack: nothing closes or opens */
    pk_json_line_break(&w->json);
    size_t closes = frames_below(w, from, common);
    if (closes == SIZE_MAX)
        return false;
    for (size_t k = 0; k < closes; k++)
        write_event(w, 'C', w->path[k], at);
    size_t opens = frames_below(w, to, common);
    if (opens == SIZE_MAX)
        return false;
    for (size_t k = opens; k-- > 0;)
        write_event(w, 'O', w->path[k], at);
    return true;
}

/* The thread's samples as events, at times running on by their weights. */
static bool write_events(speedscope_writer *w, uint32_t thread)
{
    pk_json *j = &w->json;
    pk_json_line_break(j);
    pk_json_key(j, "events");
    pk_json_array_begin(j);
    uint32_t open = PK_NONE;
    int64_t at = 0;
    thread_pass pass;
    pass_sample sample;
    if (!pass_begin(w, thread, &pass))
        return false;
    bool ok = true;
    while (ok && pass_next(&pass, &sample)) {
        ok = write_move(w, open, sample.stack, at);
        open = sample.stack;
        at += written_weight(w, sample.weight); /* below the total, which did not saturate */
    }
    if (!pass_end(&pass) || !ok || !write_move(w, open, PK_NONE, at))
        return false;
    pk_json_array_end(j);
    return true;
}

/* A timeline with spans as events at their own times, in nanoseconds from the profile's
 * earliest timed sample: a span's frames open at its start and stay open until the next
 * sample, or close at its end where a gap follows; an instant's until the next sample. */
static bool write_timed_events(speedscope_writer *w, uint32_t thread, int64_t end_value)
{
    pk_json *j = &w->json;
    pk_json_line_break(j);
    pk_json_key(j, "events");
    pk_json_array_begin(j);
    uint32_t open = PK_NONE;
    int64_t open_end = 0;
    bool open_span = false;
    thread_pass pass;
    pass_sample sample;
    if (!pass_begin(w, thread, &pass))
        return false;
    bool ok = true;
    while (ok && pass_next(&pass, &sample)) {
        int64_t at = pk_sub_saturating(sample.time, w->time_origin);
        ok = pk_keyed_stacks_add(&w->stacks, sample.stack);
        if (ok && open_span && open_end < at) { /* a gap: nothing open until this sample */
            ok = write_move(w, open, PK_NONE, open_end);
            open = PK_NONE;
        }
        ok = ok && write_move(w, open, sample.stack, at);
        open = sample.stack;
        open_span = sample.span;
        open_end = pk_sub_saturating(sample.end, w->time_origin);
    }
    /* The last span closes at its end; an instant at the end of the thread's timeline. */
    if (!pass_end(&pass) || !ok || !write_move(w, open, PK_NONE, open_span ? open_end : end_value))
        return false;
    pk_json_array_end(j);
    return true;
}

/* The thread's samples and their weights. */
static bool write_samples(speedscope_writer *w, uint32_t thread)
{
    pk_json *j = &w->json;
    thread_pass pass;
    pass_sample sample;
    pk_json_line_break(j);
    pk_json_key(j, "samples");
    pk_json_array_begin(j);
    if (!pass_begin(w, thread, &pass))
        return false;
    bool ok = true;
    while (ok && pass_next(&pass, &sample)) {
        size_t depth = pk_stack_depth(w->p, sample.stack);
        if (!PK_ARRAY_RESERVE(w->path, w->path_cap, depth + 1)) {
            ok = false;
            break;
        }
        pk_stack_frames(w->p, sample.stack, w->path, w->path_cap);
        pk_json_line_break(j);
        pk_json_array_begin(j);
        for (size_t d = 0; d < depth; d++)
            pk_json_u64(j, speedscope_frame(w, w->path[d]));
        pk_json_array_end(j);
    }
    if (!pass_end(&pass) || !ok)
        return false;
    pk_json_array_end(j);
    pk_json_line_break(j);
    pk_json_key(j, "weights");
    pk_json_array_begin(j);
    if (!pass_begin(w, thread, &pass))
        return false;
    while (pass_next(&pass, &sample))
        pk_json_i64(j, written_weight(w, sample.weight));
    if (!pass_end(&pass))
        return false;
    pk_json_array_end(j);
    return true;
}

/* One profile: the thread's rows with a positive weight, evented when that is smaller; total
 * is thread_total's. */
static bool write_thread(speedscope_writer *w, uint32_t thread, int64_t total)
{
    const char *name = pk_thread_display_name(w->thread_names, thread);
    if (w->thread_spans[thread]) {
        pk_timeline_info info;
        pk_timeline_info_get(w->p, thread, &info);
        if (!w->stacks_made) {
            w->stacks_made = true;
            if (!pk_keyed_stacks_init(&w->stacks, w->p, frame_key, w))
                return false;
        }
        int64_t end_value = pk_sub_saturating(info.last, w->time_origin);
        profile_begin(w, "evented", name, "nanoseconds",
                      pk_sub_saturating(info.first, w->time_origin), end_value);
        if (!write_timed_events(w, thread, end_value))
            return false;
        pk_json_object_end(&w->json);
        return true;
    }
    bool evented;
    if (!choose_evented(w, thread, total, &evented))
        return false;
    profile_begin(w, evented ? "evented" : "sampled", name, w->unit, 0, total);
    if (!(evented ? write_events(w, thread) : write_samples(w, thread)))
        return false;
    pk_json_object_end(&w->json);
    return true;
}

/* Groups the rows by thread, in row order within a thread (a counting sort). */
static bool group_rows(speedscope_writer *w, size_t threads)
{
    size_t rows = pk_sample_count(w->p);
    w->thread_start = calloc(threads + 1, sizeof *w->thread_start);
    w->rows_by_thread = malloc((rows ? rows : 1) * sizeof *w->rows_by_thread);
    size_t *next = malloc((threads ? threads : 1) * sizeof *next);
    if (!w->thread_start || !w->rows_by_thread || !next) {
        free(next);
        return false;
    }
    for (size_t row = 0; row < rows; row++) {
        uint32_t t = pk_sample_thread(w->p, row);
        if (t < threads)
            w->thread_start[t + 1]++;
    }
    for (size_t t = 0; t < threads; t++) {
        w->thread_start[t + 1] += w->thread_start[t];
        next[t] = w->thread_start[t];
    }
    for (size_t row = 0; row < rows; row++) {
        uint32_t t = pk_sample_thread(w->p, row);
        if (t < threads)
            w->rows_by_thread[next[t]++] = row;
    }
    free(next);
    return true;
}

pk_status speedscope_write(const pk_profile *p, pk_output *out,
                           const pk_write_options *options, pk_error *err)
{
    size_t values = pk_value_type_count(p);
    if (values == 0)
        return pk_error_set(err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                            "the profile has no values to use as sample weights");
    uint32_t value = options && options->value != PK_NONE ? options->value : pk_default_value(p);
    if (value >= values)
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET, "value %u does not exist", value);

    speedscope_writer w;
    memset(&w, 0, sizeof w);
    w.p = p;
    w.value = value;
    pk_index_init(&w.frames);
    size_t functions = pk_function_count(p), stacks = pk_stack_count(p);
    size_t threads = pk_thread_count(p), rows = pk_sample_count(p);
    w.frame_of_function = malloc((functions ? functions : 1) * sizeof *w.frame_of_function);
    w.stack_done = calloc(stacks ? stacks : 1, 1);
    w.thread_names = pk_thread_names_new(p);
    w.thread_spans = calloc(threads ? threads : 1, sizeof *w.thread_spans);
    if (!w.frame_of_function || !w.stack_done || !w.thread_names || !w.thread_spans ||
        !group_rows(&w, threads))
        goto nomem;
    for (size_t i = 0; i < functions; i++)
        w.frame_of_function[i] = PK_NONE;

    /* Frames used by the samples written, numbered in order of first use. */
    for (size_t row = 0; row < rows; row++)
        if (row_weight(&w, row) > 0 && !number_stack(&w, pk_sample_stack(p, row)))
            goto nomem;
    for (size_t t = 0; t < threads; t++)
        if (!number_timed_stacks(&w, (uint32_t)t))
            goto nomem;

    choose_unit(&w);
    int64_t last_time;
    if (!pk_timeline_bounds(p, &w.time_origin, &last_time))
        w.time_origin = 0;

    pk_json *j = &w.json;
    pk_json_init(j, out);
    pk_json_object_begin(j);
    pk_json_member_string(j, "$schema", SPEEDSCOPE_SCHEMA);
    pk_json_line_break(j);
    write_frames(&w);
    pk_json_line_break(j);
    pk_json_key(j, "profiles");
    pk_json_array_begin(j);
    /* The heaviest thread is shown first. */
    size_t heaviest = 0;
    int64_t heaviest_total = -1;
    for (size_t t = 0; t < threads; t++) {
        int64_t total = thread_total(&w, (uint32_t)t);
        if (total > heaviest_total) {
            heaviest_total = total;
            heaviest = t;
        }
        if (t)
            pk_json_line_break(j);
        if (!write_thread(&w, (uint32_t)t, total))
            goto nomem;
    }
    if (threads == 0) {
        /* speedscope names the file after its first profile, so there is always one. */
        profile_begin(&w, "sampled", "empty", w.unit, 0, 0);
        pk_json_key(j, "samples");
        pk_json_array_begin(j);
        pk_json_array_end(j);
        pk_json_key(j, "weights");
        pk_json_array_begin(j);
        pk_json_array_end(j);
        pk_json_object_end(j);
    }
    pk_json_array_end(j);

    const char *title = options ? options->title : NULL;
    if (!title || !title[0])
        title = pk_profile_title(p);
    if (title && title[0]) {
        pk_json_line_break(j);
        pk_json_member_string(j, "name", title);
    }
    pk_json_line_break(j);
    pk_json_member_u64(j, "activeProfileIndex", heaviest);
    pk_json_line_break(j);
    pk_json_member_string(j, "exporter", "profkit@" PROFKIT_VERSION);
    pk_json_object_end(j);
    pk_out_putc(out, '\n');
    writer_free(&w);
    return PK_OK;
nomem:
    writer_free(&w);
    if (w.failure != PK_OK && w.failure != PK_ERR_NOMEM)
        return pk_error_set(err, w.failure, PK_NO_OFFSET, "cannot read back a thread's timeline");
    return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
}
