/* SPDX-License-Identifier: MIT */
/* The streaming form of an ART method trace (art.h): what ART writes when it streams a trace to
 * its file as it runs (Android Studio's recordings, Debug.startMethodTracing with streaming),
 * binary from the first byte, little-endian:
 *
 *   u32 magic "SLOW"   u16 version | 0xF0   u16 offset of the first entry   u64 start (usec)
 *   u16 record size (version 3 only)
 *
 * then entries: a record as in the other form (its thread id, never 0, first), or a 0 thread id
 * and a code: 1 a method (u16 length, then a *methods line), 2 a thread (u16 id, u16 length,
 * name), 3 the summary (u32 length, then the text header of the other form: *version with
 * clock=, *threads, *methods, *end), which ends the trace. Records go through the same code
 * as the other form's (records.c), methods and threads through the header's.
 *
 * The clock is the record's size until the summary says it: version 3 (14-byte records) is
 * dual; version 2 carries one clock, read as wall time, which a summary saying clock=thread-cpu
 * contradicts with a warning (the records are read as they come, so the summary at the end
 * cannot change how).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/buffer.h"
#include "core/damage.h"
#include "formats/art/art.h"

enum { ENTRY_METHOD = 1, ENTRY_THREAD = 2, ENTRY_SUMMARY = 3 };

/* The summary's length is a u32: it is read as its bytes arrive, never allocated at once. */
#define SUMMARY_STEP 65536u

static uint32_t le16(const uint8_t *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8;
}

static uint32_t le32(const uint8_t *b)
{
    return le16(b) | le16(b + 2) << 16;
}

typedef struct stream_state {
    art_header *h;
    pk_input *in;
    pk_error *err;
    uint8_t text[65536]; /* one method line or thread name (a u16 length) */
    uint64_t entries;
    bool cut; /* the input ended inside an entry (which then returns PK_ERR_INPUT) */
} stream_state;

static pk_status cut(stream_state *s)
{
    s->cut = true;
    return PK_ERR_INPUT;
}

/* Reads n bytes into s->text; false when the input ends first. */
static bool read_text(stream_state *s, size_t n)
{
    return pk_in_read(s->in, s->text, n) == n;
}

static pk_status method_entry(stream_state *s, uint64_t offset)
{
    uint8_t b[2];
    if (pk_in_read(s->in, b, 2) < 2 || !read_text(s, le16(b)))
        return cut(s);
    size_t n = le16(b);
    while (n && (s->text[n - 1] == '\n' || s->text[n - 1] == '\r'))
        n--;
    return art_header_method_line(s->h, (const char *)s->text, n, 0, offset, s->err);
}

static pk_status thread_entry(stream_state *s)
{
    uint8_t b[4];
    if (pk_in_read(s->in, b, 4) < 4 || !read_text(s, le16(b + 2)))
        return cut(s);
    uint32_t name = pk_intern(s->h->p, (const char *)s->text, le16(b + 2));
    uint32_t *slot;
    bool inserted;
    if (name == PK_NONE || !pk_u64map_put(&s->h->thread_names, le16(b), name, &slot, &inserted))
        return pk_error_set(s->err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    *slot = name; /* a later entry of the same id wins */
    return PK_OK;
}

/* The summary: the text header, read through the header's reader from memory. Its errors name
 * offsets in the file. */
static pk_status summary_entry(stream_state *s, int clock, uint64_t offset)
{
    uint8_t b[4];
    if (pk_in_read(s->in, b, 4) < 4)
        return cut(s);
    uint32_t length = le32(b);
    uint64_t text_at = pk_in_offset(s->in);
    pk_buffer text = PK_BUFFER_INIT;
    uint8_t chunk[4096];
    for (uint32_t have = 0; have < length;) {
        size_t want = length - have < sizeof chunk ? length - have : sizeof chunk;
        size_t got = pk_in_read(s->in, chunk, want);
        pk_buffer_append(&text, chunk, got);
        have += (uint32_t)got;
        if (got < want || text.failed) {
            bool failed = text.failed;
            pk_buffer_free(&text);
            return failed ? pk_error_set(s->err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory")
                          : cut(s);
        }
    }
    int version = s->h->version;
    pk_input in;
    pk_input_init_memory(&in, text.data, text.len);
    pk_status st = art_header_read(s->h, &in, s->err);
    pk_input_release(&in);
    pk_buffer_free(&text);
    if (st != PK_OK) {
        if (s->err && s->err->offset >= 0 && st != PK_ERR_NOMEM)
            s->err->offset += (int64_t)text_at;
        return st;
    }
    if (s->h->version != version)
        pk_warn(s->h->p, "the summary (byte %" PRIu64 ") says version %d, the header %d",
                offset, s->h->version, version);
    if (s->h->clock && s->h->clock != clock)
        pk_warn(s->h->p,
                "the summary (byte %" PRIu64 ") says clock=%s; the records were read as %s",
                offset,
                s->h->clock == ART_CLOCK_CPU    ? "thread-cpu"
                : s->h->clock == ART_CLOCK_WALL ? "wall"
                                                : "dual",
                clock == ART_CLOCK_DUAL ? "dual (CPU time, then wall time)" : "wall time");
    return PK_OK;
}

/* The entries to the summary, the end, or a cut (a warning naming the byte). */
static pk_status read_entries(stream_state *s, art_records *r, size_t record_size, int clock)
{
    pk_profile *p = s->h->p;
    for (;;) {
        uint64_t offset = pk_in_offset(s->in);
        const uint8_t *b;
        size_t have = pk_in_peek(s->in, 3, &b);
        if (have == 0) {
            pk_warn(p, "the streaming trace ends at byte %" PRIu64 " without its summary (the "
                       "thread names and clock it gives are missing)",
                    offset);
            return PK_OK;
        }
        pk_status st;
        if (have >= 2 && le16(b) != 0) {
            have = pk_in_peek(s->in, record_size, &b);
            if (have < record_size) {
                st = cut(s);
            } else {
                pk_in_skip_buffered(s->in, record_size);
                st = art_records_add(r, b, s->err);
            }
        } else if (have < 3) {
            st = cut(s);
        } else {
            int code = b[2];
            pk_in_skip_buffered(s->in, 3);
            if (code == ENTRY_METHOD)
                st = method_entry(s, offset);
            else if (code == ENTRY_THREAD)
                st = thread_entry(s);
            else if (code == ENTRY_SUMMARY) {
                st = summary_entry(s, clock, offset);
                if (st == PK_OK) {
                    if (!pk_in_at_end(s->in))
                        pk_warn(p, "bytes after the summary (byte %" PRIu64 ") left out",
                                pk_in_offset(s->in));
                    return PK_OK;
                }
            } else {
                return pk_damage(s->err, offset,
                                 "entry code %d at byte %" PRIu64 ": 1 (method), 2 (thread) and "
                                 "3 (summary) are defined",
                                 code, offset);
            }
        }
        if (st == PK_ERR_INPUT && s->cut) {
            /* the input ended inside the entry: what came before it is whole */
            pk_status io = pk_in_fail(s->in, s->err);
            if (io != PK_OK)
                return io;
            pk_warn(p, "the streaming trace is cut inside the entry at byte %" PRIu64
                       ": the %" PRIu64 " whole entries before it are read",
                    offset, s->entries);
            return PK_OK;
        }
        if (st != PK_OK)
            return st;
        s->entries++;
    }
}

pk_status art_streaming_read(art_header *h, pk_input *in, pk_error *err)
{
    uint8_t head[18];
    size_t got = pk_in_read(in, head, 16);
    if (got < 16) {
        pk_status io = pk_in_fail(in, err);
        return io != PK_OK ? io
                           : pk_error_set(err, PK_ERR_INPUT, (int64_t)got,
                                          "the streaming trace ends inside its header (at byte "
                                          "%zu of 16)",
                                          got);
    }
    if (le32(head) != ART_MAGIC || (le16(head + 4) & 0xf0) != 0xf0)
        return pk_error_set(err, PK_ERR_INPUT, 0, "not a streaming ART trace (SLOW, then a "
                                                  "version with its 0xF0 bits set)");
    int version = (int)(le16(head + 4) & ~0xf0u);
    if (version < 2 || version > 3)
        return pk_error_set(err, PK_ERR_INPUT, 4,
                            "streaming version %d: versions 2 and 3 are read", version);
    uint32_t data_offset = le16(head + 6);
    uint64_t start_usec = (uint64_t)le32(head + 8) | (uint64_t)le32(head + 12) << 32;
    size_t header_size = 16, record_size = 10;
    if (version == 3) {
        if (pk_in_read(in, head + 16, 2) < 2)
            return pk_error_set(err, PK_ERR_INPUT, 16,
                                "the trace ends inside the header's record size");
        header_size = 18;
        record_size = le16(head + 16);
    }
    int clock = version == 3 && record_size >= 14 ? ART_CLOCK_DUAL : ART_CLOCK_WALL;
    size_t need = 2 + 4 + (clock == ART_CLOCK_DUAL ? 8 : 4);
    if (record_size < need || record_size > 4096)
        return pk_error_set(err, PK_ERR_INPUT, 16, "record size %zu: a record needs %zu bytes",
                            record_size, need);
    if (data_offset < header_size)
        return pk_error_set(err, PK_ERR_INPUT, 6,
                            "the entries start at %" PRIu32 ", inside the %zu-byte header",
                            data_offset, header_size);
    if (pk_in_skip(in, data_offset - header_size) < data_offset - header_size)
        return pk_error_set(err, PK_ERR_INPUT, (int64_t)pk_in_offset(in),
                            "the trace ends before its first entry");
    h->version = version;
    int64_t start_ns = 0;
    if (start_usec <= (uint64_t)INT64_MAX / 1000 - ((uint64_t)1 << 42))
        start_ns = (int64_t)start_usec * 1000; /* else the clock starts at 0 */
    art_records *r = art_records_start(h, clock, 2, start_ns);
    stream_state *s = calloc(1, sizeof *s);
    if (!r || !s) {
        art_records_free(r);
        free(s);
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    }
    s->h = h;
    s->in = in;
    s->err = err;
    pk_status st = read_entries(s, r, record_size, clock);
    /* what came before damage is whole: the calls it opened close, the damage stands */
    if (st == PK_OK || (st == PK_ERR_INPUT && err && err->salvageable)) {
        pk_error damage = *err;
        pk_status made = art_records_finish(r, err);
        if (made != PK_OK)
            st = made;
        else if (st != PK_OK)
            *err = damage;
    }
    art_records_free(r);
    free(s);
    return st;
}
