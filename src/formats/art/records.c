/* SPDX-License-Identifier: MIT */
/* The binary part of an ART method trace (art.h): a header, little-endian,
 *
 *   u32 magic "SLOW"   u16 version   u16 offset of the first record   u64 start time (usec)
 *   u16 record size (version 3 only)
 *
 * then records of one size: the thread id (u8 in version 1, else u16), the method id with the
 * action in its low 2 bits (0 enter, 1 exit, 2 unwind), then the clocks in microseconds since
 * tracing started: one (wall or the thread's CPU time, as clock= says), or both (CPU first) for
 * clock=dual. Each thread's records go, in file order, into its call spans (core/call_spans.h):
 * wall time is the timeline's clock and the value "wall", a thread's CPU time the value "cpu"
 * (and the timeline's clock when it is the only one). Memory: the threads and their open calls.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/arith.h"
#include "core/array.h"
#include "core/call_spans.h"
#include "formats/art/art.h"

typedef struct art_thread {
    uint32_t tid;
    uint32_t thread; /* in the profile */
    pk_call_spans *spans;
} art_thread;

struct art_records {
    art_header *h;
    art_thread *threads;
    size_t count, cap;
    pk_u64map index; /* tid -> threads */
    uint32_t time_value, cpu_value;
    uint64_t bad_actions;
    size_t tid_size; /* 1 in version 1, else 2 */
    int clock;       /* enum art_clock */
    int64_t start_ns; /* added to wall times */
};

static uint32_t le16(const uint8_t *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8;
}

static uint32_t le32(const uint8_t *b)
{
    return le16(b) | le16(b + 2) << 16;
}

static art_thread *thread_of(art_records *r, uint32_t tid)
{
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&r->index, tid, (uint32_t)r->count, &slot, &inserted))
        return NULL;
    if (!inserted)
        return &r->threads[*slot];
    if (!PK_ARRAY_RESERVE(r->threads, r->cap, r->count + 1))
        return NULL;
    const uint32_t *named = pk_u64map_find(&r->h->thread_names, tid);
    uint32_t name = named ? *named : pk_intern_cstr(r->h->p, "thread");
    art_thread *t = &r->threads[r->count];
    t->tid = tid;
    t->thread = name == PK_NONE ? PK_NONE : pk_add_thread(r->h->p, name, 0, tid);
    t->spans = pk_call_spans_new(0); /* the file's order is the truth: ticks are coarse */
    if (t->thread == PK_NONE || !t->spans) {
        pk_call_spans_free(t->spans);
        return NULL;
    }
    r->count++;
    return t;
}

static const char *plural(uint64_t n)
{
    return n == 1 ? "" : "s";
}

pk_status art_records_finish(art_records *r, pk_error *err)
{
    pk_call_spans_counts counts = {0, 0, 0, 0};
    for (size_t i = 0; i < r->count; i++) {
        art_thread *t = &r->threads[i];
        /* the streaming form may name a thread after its first records */
        const uint32_t *named = pk_u64map_find(&r->h->thread_names, t->tid);
        if (named)
            pk_thread_rename(r->h->p, t->thread, *named);
        pk_call_spans_target to = {r->h->p, t->thread, r->time_value, r->cpu_value};
        if (!pk_call_spans_finish(t->spans, &to, &counts))
            return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    }
    pk_profile *p = r->h->p;
    if (counts.unmatched_ends)
        pk_warn(p, "%" PRIu64 " method exit%s with no open call of the method ignored",
                counts.unmatched_ends, plural(counts.unmatched_ends));
    if (counts.overlapping)
        pk_warn(p, "%" PRIu64 " call%s left open by an exit further out closed with it",
                counts.overlapping, plural(counts.overlapping));
    if (counts.late)
        pk_warn(p, "%" PRIu64 " record%s earlier than the one before on their thread placed at "
                   "its time",
                counts.late, plural(counts.late));
    if (counts.unclosed)
        pk_warn(p, "%" PRIu64 " call%s never exited, closed at the thread's last time",
                counts.unclosed, plural(counts.unclosed));
    if (r->bad_actions)
        pk_warn(p, "%" PRIu64 " record%s with action 3 (none is defined) left out", r->bad_actions,
                plural(r->bad_actions));
    return PK_OK;
}

pk_status art_records_add(art_records *r, const uint8_t *b, pk_error *err)
{
    uint32_t tid = r->tid_size == 1 ? b[0] : le16(b);
    uint32_t method = le32(b + r->tid_size);
    uint32_t first = le32(b + r->tid_size + 4);
    uint32_t second = r->clock == ART_CLOCK_DUAL ? le32(b + r->tid_size + 8) : 0;
    int action = (int)(method & 3);
    if (action == 3) {
        r->bad_actions++;
        return PK_OK;
    }
    /* Times in microseconds, as nanoseconds: 2^32 us is at most 4.3e15 ns. */
    int64_t wall = 0, cpu = PK_SPAN_NO_CPU;
    if (r->clock == ART_CLOCK_WALL)
        wall = (int64_t)first * 1000;
    else if (r->clock == ART_CLOCK_CPU)
        wall = (int64_t)first * 1000; /* the only clock: the timeline's too */
    else {
        cpu = (int64_t)first * 1000;
        wall = (int64_t)second * 1000;
    }
    if (r->clock != ART_CLOCK_CPU)
        wall += r->start_ns;
    uint32_t frame = art_method_frame(r->h, method & ~(uint32_t)3);
    art_thread *t = frame == PK_NONE ? NULL : thread_of(r, tid);
    if (!t)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    pk_call_spans_target to = {r->h->p, t->thread, r->time_value, r->cpu_value};
    if (!pk_call_spans_add(t->spans, &to, action == 0 ? PK_SPAN_BEGIN : PK_SPAN_END, wall, 0,
                           cpu, frame))
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    return PK_OK;
}

static pk_status read_records(art_records *r, pk_input *in, size_t record_size, pk_error *err)
{
    uint64_t records = 0;
    for (;;) {
        uint64_t offset = pk_in_offset(in);
        const uint8_t *b;
        size_t have = pk_in_peek(in, record_size, &b);
        if (have == 0) {
            pk_status io = pk_in_fail(in, err);
            if (io != PK_OK)
                return io;
            break;
        }
        if (have < record_size) {
            pk_status io = pk_in_fail(in, err);
            if (io != PK_OK)
                return io;
            if (!records)
                return pk_error_set(err, PK_ERR_INPUT, (int64_t)offset,
                                    "the trace ends inside its first record (byte %" PRIu64 ")",
                                    offset);
            pk_warn(r->h->p, "the trace ends inside a record (byte %" PRIu64 "): the %" PRIu64
                             " whole record%s before are read",
                    offset, records, plural(records));
            break;
        }
        pk_in_skip_buffered(in, record_size);
        records++;
        pk_status st = art_records_add(r, b, err);
        if (st != PK_OK)
            return st;
    }
    return art_records_finish(r, err);
}

pk_status art_records_read(art_header *h, pk_input *in, pk_error *err)
{
    uint64_t offset = pk_in_offset(in);
    uint8_t head[18];
    size_t got = pk_in_read(in, head, 16);
    if (got < 16) {
        pk_status io = pk_in_fail(in, err);
        return io != PK_OK ? io
                           : pk_error_set(err, PK_ERR_INPUT, (int64_t)(offset + got),
                                          "the trace ends inside the binary header (at byte %"
                                          PRIu64 " of its 16)",
                                          (uint64_t)got);
    }
    if (le32(head) != ART_MAGIC)
        return pk_error_set(err, PK_ERR_INPUT, (int64_t)offset,
                            "no binary part after *end: the magic is not SLOW");
    int version = (int)le16(head + 4);
    uint32_t data_offset = le16(head + 6);
    uint64_t start_usec = (uint64_t)le32(head + 8) | (uint64_t)le32(head + 12) << 32;
    if (version < 1 || version > 3)
        return pk_error_set(err, PK_ERR_INPUT, (int64_t)offset + 4,
                            "binary version %d: versions 1 to 3 are read", version);
    size_t header_size = 16;
    size_t record_size = version == 1 ? 9 : 10;
    int clock = h->clock ? h->clock : ART_CLOCK_WALL;
    if (version == 3) {
        if (pk_in_read(in, head + 16, 2) < 2)
            return pk_error_set(err, PK_ERR_INPUT, (int64_t)offset + 16,
                                "the trace ends inside the binary header's record size");
        header_size = 18;
        record_size = le16(head + 16);
        if (!h->clock)
            clock = record_size >= 14 ? ART_CLOCK_DUAL : ART_CLOCK_WALL;
    } else if (clock == ART_CLOCK_DUAL) {
        clock = ART_CLOCK_WALL; /* versions 1 and 2 carry one clock */
    }
    size_t need = (version == 1 ? 1 : 2) + 4 + (clock == ART_CLOCK_DUAL ? 8 : 4);
    if (record_size < need || record_size > 4096)
        return pk_error_set(err, PK_ERR_INPUT, (int64_t)offset + 16,
                            "record size %zu: the clock (%s) needs %zu bytes", record_size,
                            clock == ART_CLOCK_DUAL ? "dual" : "single", need);
    if (data_offset < header_size)
        return pk_error_set(err, PK_ERR_INPUT, (int64_t)offset + 6,
                            "the records start at %" PRIu32 ", inside the %zu-byte header",
                            data_offset, header_size);
    if (pk_in_skip(in, data_offset - header_size) < data_offset - header_size)
        return pk_error_set(err, PK_ERR_INPUT, (int64_t)pk_in_offset(in),
                            "the trace ends before its first record");
    int64_t start_ns = 0;
    if (start_usec <= (uint64_t)INT64_MAX / 1000 - ((uint64_t)1 << 42))
        start_ns = (int64_t)start_usec * 1000; /* else the clock starts at 0 */
    art_records *r = art_records_start(h, clock, version == 1 ? 1 : 2, start_ns);
    pk_status status = r ? read_records(r, in, record_size, err)
                         : pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    art_records_free(r);
    return status;
}

art_records *art_records_start(art_header *h, int clock, size_t tid_size, int64_t start_ns)
{
    art_records *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->h = h;
    r->clock = clock;
    r->tid_size = tid_size;
    r->start_ns = start_ns;
    pk_u64map_init(&r->index);
    pk_profile *p = h->p;
    r->cpu_value = PK_NONE;
    if (clock == ART_CLOCK_CPU) {
        r->time_value = pk_add_value_type(p, "cpu", "nanoseconds");
    } else {
        r->time_value = pk_add_value_type(p, "wall", "nanoseconds");
        if (clock == ART_CLOCK_DUAL) {
            r->cpu_value = pk_add_value_type(p, "cpu", "nanoseconds");
            if (r->cpu_value == PK_NONE)
                r->time_value = PK_NONE;
        }
    }
    if (r->time_value == PK_NONE) {
        art_records_free(r);
        return NULL;
    }
    return r;
}

void art_records_free(art_records *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->count; i++)
        pk_call_spans_free(r->threads[i].spans);
    free(r->threads);
    pk_u64map_free(&r->index);
    free(r);
}
