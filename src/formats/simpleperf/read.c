/* SPDX-License-Identifier: MIT */
/* Reads a simpleperf report (simpleperf.h) into the model.
 *
 * simpleperf writes the samples first and the files (paths and symbol tables) and threads
 * (names, process ids) after them, at the end, so a sample's frames can only be named once the
 * whole file is read. The records go first into a scratch profile whose frames stand for what
 * the callchain said (file id, symbol id, address), with every sample's value and time; at the
 * end the scratch profile is copied into the caller's (core/profile_copy.c), each frame named
 * on the way from the files read. Memory grows with the distinct frames, stacks and symbols,
 * never with the samples: the scratch timeline spools as any timeline does. libprotobuf-c
 * unpacks each record into the pprof reader's arena (formats/pprof/arena.h), reset after it.
 *
 * The model:
 * - one thread per thread id, named by its Thread record (`thread TID` without one), with its
 *   process id;
 * - each event type is two values, as perf's are (formats/perf_events/): its summed event
 *   counts (nanoseconds for cpu-clock and task-clock) and its samples; the first is the default;
 * - frames named as the Firefox Profiler names them: the file's symbol when the symbol id has
 *   one (its mangled name when the symbol is empty), else `BASENAME+0xVADDR` (`BASENAME
 *   symbol N` for a symbol id past the file's table, `[file N]` for a file id no record
 *   describes); the file is the frame's resource; Java code (the runtime's execution type,
 *   or a file of Java code: .apk, .jar, .oat, .odex, .vdex, the JIT cache) is script code;
 * - a sample's time goes to its thread's timeline;
 * - the meta info names the product (the app's package) and, with the lost counts and the
 *   number of context switches, becomes properties.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/damage.h"
#include "core/hashmap.h"
#include "core/path.h"
#include "formats/perf_events/perf_events.h"
#include "formats/pprof/arena.h"
#include "formats/simpleperf/simpleperf.h"
#include "formats/simpleperf/simpleperf_report.pb-c.h"
#include "profkit/copy.h"
#include "profkit/timeline.h"

typedef SimpleperfReportProto__Record sp_record;
typedef SimpleperfReportProto__Sample sp_sample;
typedef SimpleperfReportProto__Sample__CallChainEntry sp_entry;
#define SP_INTERPRETED \
    SIMPLEPERF_REPORT_PROTO__SAMPLE__CALL_CHAIN_ENTRY__EXECUTION_TYPE__INTERPRETED_JVM_METHOD
#define SP_JIT SIMPLEPERF_REPORT_PROTO__SAMPLE__CALL_CHAIN_ENTRY__EXECUTION_TYPE__JIT_JVM_METHOD

/* At most this many event types: each is two of the model's PK_MAX_VALUES values. */
#define SP_MAX_EVENTS (PK_MAX_VALUES / 2)
/* Records are read into memory in steps of this size, so a size field alone never allocates. */
#define SP_READ_STEP (1u << 20)

typedef struct sp_file {
    uint32_t path;     /* string of the destination */
    uint32_t resource; /* the destination's resource */
    uint32_t *symbols; /* destination strings, by symbol id */
    size_t symbol_count;
    bool java; /* a file of Java code, as the Firefox Profiler sorts files */
} sp_file;

typedef struct sp_thread {
    uint32_t name; /* string of the destination, 0 without a name */
    int64_t pid;
} sp_thread;

typedef struct sp_event {
    uint32_t id; /* Sample.event_type_id */
    uint32_t period, count; /* the scratch profile's values */
} sp_event;

typedef struct sp_reader {
    pk_input *in;
    pk_profile *p;       /* the destination */
    pk_profile *scratch; /* frames as the callchains say them, samples, timelines */
    pk_error *err;
    pprof_arena arena;
    uint8_t *record;
    size_t record_cap;
    uint64_t records;

    pk_u64map file_index; /* File.id -> files */
    sp_file *files;
    size_t file_count, file_cap;
    pk_u64map thread_info; /* thread id -> threads (the Thread records) */
    sp_thread *threads;
    size_t thread_count, thread_cap;
    pk_u64map scratch_threads; /* thread id -> scratch thread */
    pk_u64map symbol_frames; /* file id << 32 | Java << 31 | symbol id -> scratch frame */

    uint32_t *event_names; /* destination strings: MetaInfo.event_type */
    size_t event_name_count, event_name_cap;
    sp_event events[SP_MAX_EVENTS];
    size_t event_count;
    uint64_t samples_of_too_many_events;

    uint32_t *frames;
    size_t frame_cap;
    int64_t values[PK_MAX_VALUES];

    /* the meta info, lost counts and context switches, for the destination at the end */
    uint32_t product;
    bool has_lost;
    uint64_t sample_count, lost_count, context_switches;

    /* naming frames at the end */
    uint32_t *named; /* scratch frame -> destination frame */
    uint64_t unknown_files, unknown_symbols;
} sp_reader;

static pk_status nomem(sp_reader *r)
{
    return pk_error_set(r->err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
}

static uint32_t intern_text(pk_profile *p, const char *s)
{
    return pk_intern_cstr(p, s ? s : "");
}

/* ---- records ---------------------------------------------------------------------------- */

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

static pk_status read_file_record(sp_reader *r, const SimpleperfReportProto__File *f)
{
    uint32_t id = f->has_id ? f->id : 0;
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&r->file_index, id, (uint32_t)r->file_count, &slot, &inserted))
        return nomem(r);
    if (!inserted) {
        pk_warn(r->p, "file id %" PRIu32 " described twice: the first description is used", id);
        return PK_OK;
    }
    if (!PK_ARRAY_RESERVE(r->files, r->file_cap, r->file_count + 1)) {
        pk_u64map_remove(&r->file_index, id, NULL);
        return nomem(r);
    }
    sp_file *file = &r->files[r->file_count++];
    memset(file, 0, sizeof *file);
    const char *path = f->path ? f->path : "";
    file->path = pk_intern_cstr(r->p, path);
    uint32_t base = pk_intern_cstr(r->p, pk_path_basename(path));
    if (file->path == PK_NONE || base == PK_NONE)
        return nomem(r);
    pk_resource res = {base, file->path, 0, 0, 0, 0};
    if ((file->resource = pk_intern_resource(r->p, &res)) == PK_NONE)
        return nomem(r);
    file->java = strcmp(path, "[JIT app cache]") == 0 || ends_with(path, ".vdex") ||
                 ends_with(path, ".apk") || ends_with(path, ".jar") || ends_with(path, ".oat") ||
                 ends_with(path, ".odex");
    if (f->n_symbol) {
        file->symbols = malloc(f->n_symbol * sizeof *file->symbols);
        if (!file->symbols)
            return nomem(r);
        file->symbol_count = f->n_symbol;
        for (size_t i = 0; i < f->n_symbol; i++) {
            const char *name = f->symbol[i];
            /* the symbol is demangled; the mangled one stands in when it is empty */
            if ((!name || !*name) && i < f->n_mangled_symbol)
                name = f->mangled_symbol[i];
            if ((file->symbols[i] = intern_text(r->p, name)) == PK_NONE)
                return nomem(r);
        }
    }
    return PK_OK;
}

static pk_status read_thread_record(sp_reader *r, const SimpleperfReportProto__Thread *t)
{
    uint32_t *slot;
    bool inserted;
    uint64_t tid = t->has_thread_id ? t->thread_id : 0;
    if (!pk_u64map_put(&r->thread_info, tid, (uint32_t)r->thread_count, &slot, &inserted))
        return nomem(r);
    if (inserted && !PK_ARRAY_RESERVE(r->threads, r->thread_cap, r->thread_count + 1)) {
        pk_u64map_remove(&r->thread_info, tid, NULL);
        return nomem(r);
    }
    sp_thread *th = &r->threads[inserted ? r->thread_count++ : *slot];
    th->name = intern_text(r->p, t->thread_name);
    th->pid = t->has_process_id ? (int64_t)t->process_id : -1;
    return th->name == PK_NONE ? nomem(r) : PK_OK;
}

/* Declares event type `id`'s values in the scratch profile, named by the meta info. */
static sp_event *declare_event(sp_reader *r, uint32_t id)
{
    for (size_t i = 0; i < r->event_count; i++)
        if (r->events[i].id == id)
            return &r->events[i];
    if (r->event_count == SP_MAX_EVENTS)
        return NULL;
    char given[64];
    const char *e = given;
    if (id < r->event_name_count)
        e = pk_str(r->p, r->event_names[id]);
    else
        snprintf(given, sizeof given, "event-%" PRIu32, id);
    char value_name[PERF_VALUE_NAME_SIZE];
    size_t n = strlen(e);
    size_t base = perf_event_value_name(r->scratch, e, n, value_name);
    sp_event *ev = &r->events[r->event_count];
    ev->id = id;
    if (!perf_event_declare_values(r->scratch, value_name, perf_event_is_clock(e, base),
                                   r->event_count == 0, &ev->period, &ev->count))
        return NULL;
    r->event_count++;
    return ev;
}

static pk_status read_meta_info(sp_reader *r, const SimpleperfReportProto__MetaInfo *m)
{
    for (size_t i = 0; i < m->n_event_type; i++) {
        if (!PK_ARRAY_RESERVE(r->event_names, r->event_name_cap, r->event_name_count + 1))
            return nomem(r);
        uint32_t name = intern_text(r->p, m->event_type[i]);
        if (name == PK_NONE)
            return nomem(r);
        r->event_names[r->event_name_count++] = name;
    }
    /* every event type the meta info lists is a value, sampled or not, in its order */
    for (size_t i = 0; i < m->n_event_type && i < SP_MAX_EVENTS; i++)
        if (!declare_event(r, (uint32_t)i) && r->event_count < SP_MAX_EVENTS)
            return nomem(r);
    if (m->app_package_name && *m->app_package_name &&
        (r->product = pk_intern_cstr(r->p, m->app_package_name)) == PK_NONE)
        return nomem(r);
    const struct {
        const char *key, *value;
    } texts[] = {{"simpleperf.app_type", m->app_type},
                 {"simpleperf.android_sdk_version", m->android_sdk_version},
                 {"simpleperf.android_build_type", m->android_build_type},
                 {"simpleperf.trace_offcpu",
                  m->has_trace_offcpu ? (m->trace_offcpu ? "true" : "false") : NULL}};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        if (texts[i].value && *texts[i].value &&
            pk_property_set(r->p, texts[i].key, texts[i].value) != PK_OK)
            return nomem(r);
    return PK_OK;
}

/* The scratch thread of a thread id, named by the id so that the destination's thread of the
 * same id meets it in the copy (profile_copy.c matches threads by name). */
static uint32_t scratch_thread(sp_reader *r, int64_t tid)
{
    uint32_t *known = pk_u64map_find(&r->scratch_threads, (uint64_t)tid);
    if (known)
        return *known;
    uint32_t name = pk_intern_printf(r->scratch, "\x01simpleperf thread %" PRId64, tid);
    uint32_t thread = name == PK_NONE ? PK_NONE : pk_add_thread(r->scratch, name, -1, tid);
    uint32_t *slot;
    bool inserted;
    if (thread == PK_NONE ||
        !pk_u64map_put(&r->scratch_threads, (uint64_t)tid, thread, &slot, &inserted))
        return PK_NONE;
    return thread;
}

/* The scratch frame of a callchain entry: a function whose name says the file id, the symbol
 * id (-1: none) and whether the runtime ran it as Java, and for an entry without a symbol the
 * address. name_frame reads them back. */
static uint32_t scratch_frame(sp_reader *r, const sp_entry *e)
{
    uint32_t file = e->has_file_id ? e->file_id : 0;
    int32_t symbol = e->has_symbol_id ? e->symbol_id : 0;
    if (symbol < 0)
        symbol = -1;
    bool java = e->has_execution_type &&
                (e->execution_type == SP_INTERPRETED || e->execution_type == SP_JIT);
    /* an entry with a symbol is one frame per (file, symbol, Java or not): remembered, so that
     * the many entries of a report cost one lookup each */
    uint64_t key = (uint64_t)file << 32 | (uint32_t)symbol | (java ? 1u << 31 : 0);
    uint32_t *known = symbol >= 0 ? pk_u64map_find(&r->symbol_frames, key) : NULL;
    if (known)
        return *known;
    uint32_t name = pk_intern_printf(r->scratch, "%" PRIu32 ":%" PRId32 ":%d", file, symbol,
                                     java ? 1 : 0);
    pk_function f = {name, 0, 0, PK_NONE, 0, 0};
    uint32_t function = name == PK_NONE ? PK_NONE : pk_intern_function(r->scratch, &f);
    if (function == PK_NONE)
        return PK_NONE;
    uint64_t address = symbol < 0 && e->has_vaddr_in_file ? e->vaddr_in_file : 0;
    pk_frame fr = {function, 0, address, PK_NONE, symbol < 0 ? PK_FRAME_HAS_ADDRESS : 0};
    uint32_t frame = pk_intern_frame(r->scratch, &fr);
    uint32_t *slot;
    bool inserted;
    if (frame == PK_NONE ||
        (symbol >= 0 && !pk_u64map_put(&r->symbol_frames, key, frame, &slot, &inserted)))
        return PK_NONE;
    return frame;
}

static pk_status read_sample(sp_reader *r, const sp_sample *s)
{
    uint32_t thread = scratch_thread(r, s->has_thread_id ? s->thread_id : -1);
    if (thread == PK_NONE)
        return nomem(r);
    sp_event *ev = declare_event(r, s->has_event_type_id ? s->event_type_id : 0);
    if (!ev) {
        if (r->event_count < SP_MAX_EVENTS)
            return nomem(r);
        r->samples_of_too_many_events++;
        return PK_OK;
    }
    size_t n = s->n_callchain;
    if (n > r->frame_cap) {
        uint32_t *f = realloc(r->frames, n * sizeof *f);
        if (!f)
            return nomem(r);
        r->frames = f;
        r->frame_cap = n;
    }
    /* innermost first in the file, root first in the model */
    for (size_t i = 0; i < n; i++)
        if ((r->frames[n - 1 - i] = scratch_frame(r, s->callchain[i])) == PK_NONE)
            return nomem(r);
    uint32_t stack = n ? pk_intern_stack_frames(r->scratch, PK_NONE, r->frames, n) : PK_NONE;
    if (n && stack == PK_NONE)
        return nomem(r);
    uint64_t count = s->has_event_count ? s->event_count : 0;
    r->values[ev->period] = count > INT64_MAX ? INT64_MAX : (int64_t)count;
    r->values[ev->count] = 1;
    pk_status st;
    if (s->has_time && s->time <= INT64_MAX) {
        st = pk_add_timed_sample(r->scratch, thread, stack, (int64_t)s->time, 0, r->values);
    } else { /* without a time: in the rows, so not in a timeline */
        st = pk_add_sample(r->scratch, thread, stack, r->values);
        if (st == PK_OK)
            st = pk_timeline_drop(r->scratch, thread);
    }
    r->values[ev->period] = r->values[ev->count] = 0;
    return st == PK_OK ? PK_OK : nomem(r);
}

static pk_status read_record(sp_reader *r, const sp_record *rec)
{
    switch (rec->record_data_case) {
    case SIMPLEPERF_REPORT_PROTO__RECORD__RECORD_DATA_SAMPLE:
        return read_sample(r, rec->sample);
    case SIMPLEPERF_REPORT_PROTO__RECORD__RECORD_DATA_LOST:
        r->has_lost = true;
        r->sample_count = rec->lost->sample_count;
        r->lost_count = rec->lost->lost_count;
        return PK_OK;
    case SIMPLEPERF_REPORT_PROTO__RECORD__RECORD_DATA_FILE:
        return read_file_record(r, rec->file);
    case SIMPLEPERF_REPORT_PROTO__RECORD__RECORD_DATA_THREAD:
        return read_thread_record(r, rec->thread);
    case SIMPLEPERF_REPORT_PROTO__RECORD__RECORD_DATA_META_INFO:
        return read_meta_info(r, rec->meta_info);
    case SIMPLEPERF_REPORT_PROTO__RECORD__RECORD_DATA_CONTEXT_SWITCH:
        r->context_switches++;
        return PK_OK;
    default: /* a record of a kind newer than this reader: nothing to take from it */
        return PK_OK;
    }
}

/* Reads the record of `size` bytes into r->record, growing the buffer only as bytes arrive,
 * so that a size field alone never allocates. *have says how many bytes came. */
typedef enum { RECORD_READ, RECORD_CUT, RECORD_NOMEM } record_bytes;

static record_bytes read_record_bytes(sp_reader *r, uint32_t size, size_t *have)
{
    *have = 0;
    while (*have < size) {
        size_t step = size - *have < SP_READ_STEP ? size - *have : SP_READ_STEP;
        if (!PK_ARRAY_RESERVE(r->record, r->record_cap, *have + step))
            return RECORD_NOMEM;
        size_t got = pk_in_read(r->in, r->record + *have, step);
        *have += got;
        if (got < step)
            return RECORD_CUT;
    }
    return RECORD_READ;
}

/* The records to their end (the size 0), to damage, or to where the input was cut, which is
 * a warning: the records before it are whole. */
static pk_status read_records(sp_reader *r)
{
    for (;;) {
        uint64_t at = pk_in_offset(r->in);
        uint8_t le[4];
        size_t got = pk_in_read(r->in, le, sizeof le);
        if (got < sizeof le) {
            if (pk_in_error(r->in))
                return pk_in_fail(r->in, r->err);
            pk_warn(r->p,
                    "simpleperf report cut at offset %" PRIu64 ": no size 0 ends the records; "
                    "read the %" PRIu64 " records before it",
                    at, r->records);
            return PK_OK;
        }
        uint32_t size = (uint32_t)le[0] | (uint32_t)le[1] << 8 | (uint32_t)le[2] << 16 |
                        (uint32_t)le[3] << 24;
        if (size == 0) {
            if (!pk_in_at_end(r->in))
                pk_warn(r->p, "bytes after the end of the records (offset %" PRIu64
                              ") were left out", at + 4);
            return PK_OK;
        }
        if (size > SIMPLEPERF_MAX_RECORD_BYTES)
            return pk_damage(r->err, at, "a record of %" PRIu32 " bytes: more than %u", size,
                             SIMPLEPERF_MAX_RECORD_BYTES);
        size_t have;
        record_bytes bytes = read_record_bytes(r, size, &have);
        if (bytes == RECORD_NOMEM)
            return nomem(r);
        if (bytes == RECORD_CUT) {
            if (pk_in_error(r->in))
                return pk_in_fail(r->in, r->err);
            pk_warn(r->p,
                    "simpleperf report cut at offset %" PRIu64 ", in the record of %" PRIu32
                    " bytes at offset %" PRIu64 ": read the %" PRIu64 " records before it",
                    at + 4 + have, size, at, r->records);
            return PK_OK;
        }
        sp_record *rec = simpleperf_report_proto__record__unpack(&r->arena.allocator, size,
                                                                  r->record);
        if (!rec) {
            pprof_arena_reset(&r->arena);
            return pk_damage(r->err, at + 4,
                             "the record of %" PRIu32 " bytes at offset %" PRIu64
                             " is not a simpleperf Record message",
                             size, at);
        }
        pk_status st = read_record(r, rec);
        pprof_arena_reset(&r->arena);
        if (st != PK_OK)
            return st;
        r->records++;
    }
}

/* ---- naming the frames: the copy into the destination ---------------------------------- */

static const sp_file *file_of(const sp_reader *r, uint32_t id)
{
    const uint32_t *index = pk_u64map_find(&r->file_index, id);
    return index ? &r->files[*index] : NULL;
}

/* pk_frame_map_fn: the destination frame of a scratch frame, named from the files. */
static size_t name_frame(void *context, const pk_profile *src, uint32_t frame, pk_profile *dst,
                         const uint32_t **frames)
{
    sp_reader *r = context;
    const pk_frame *f = pk_frame_at(src, frame);
    const char *key = pk_str(src, pk_function_at(src, f->function)->name);
    char *end;
    unsigned long file_id = strtoul(key, &end, 10);
    long symbol = *end == ':' ? strtol(end + 1, &end, 10) : -1;
    bool java = *end == ':' && end[1] == '1';
    const sp_file *file = file_of(r, (uint32_t)file_id);
    uint32_t name = 0;
    if (!file)
        r->unknown_files++;
    else if (symbol >= 0 && (size_t)symbol < file->symbol_count)
        name = file->symbols[symbol];
    else if (symbol >= 0)
        r->unknown_symbols++;
    if (name == 0) {
        /* no symbol: the file's name and the address in it, as the Firefox Profiler shows it
         * (the scratch frame keeps the address only then); a symbol id the file does not
         * have is named by its number */
        char unknown[48];
        snprintf(unknown, sizeof unknown, "[file %lu]", file_id);
        const char *base = file ? pk_path_basename(pk_str(dst, file->path)) : unknown;
        name = symbol < 0 ? pk_intern_printf(dst, "%s+0x%" PRIx64, base, f->address)
                          : pk_intern_printf(dst, "%s symbol %ld", base, symbol);
    }
    pk_function fn = {name, 0, 0, file ? file->resource : PK_NONE, 0,
                      java || (file && file->java) ? PK_FUNCTION_SCRIPT : 0};
    uint32_t function = name == PK_NONE ? PK_NONE : pk_intern_function(dst, &fn);
    pk_frame out = {function, 0, 0, fn.resource, 0};
    if (function == PK_NONE || (r->named[frame] = pk_intern_frame(dst, &out)) == PK_NONE)
        return SIZE_MAX;
    *frames = &r->named[frame];
    return 1;
}

/* The destination's threads, one per scratch thread and in its order, under the scratch
 * thread's name so that the copy finds them; named for good after the copy. */
static pk_status add_threads(sp_reader *r)
{
    for (uint32_t i = 0; i < pk_thread_count(r->scratch); i++) {
        const pk_thread *t = pk_thread_at(r->scratch, i);
        const uint32_t *info = pk_u64map_find(&r->thread_info, (uint64_t)t->tid);
        uint32_t name =
            pk_intern(r->p, pk_str(r->scratch, t->name), pk_str_len(r->scratch, t->name));
        if (name == PK_NONE ||
            pk_add_thread(r->p, name, info ? r->threads[*info].pid : -1, t->tid) == PK_NONE)
            return nomem(r);
    }
    return PK_OK;
}

static pk_status name_threads(sp_reader *r)
{
    for (uint32_t i = 0; i < pk_thread_count(r->p); i++) {
        const pk_thread *t = pk_thread_at(r->p, i);
        const uint32_t *info = pk_u64map_find(&r->thread_info, (uint64_t)t->tid);
        uint32_t name = info && r->threads[*info].name ? r->threads[*info].name
                                                       : pk_intern_printf(r->p, "thread %" PRId64,
                                                                          t->tid);
        if (name == PK_NONE)
            return nomem(r);
        pk_thread_rename(r->p, i, name);
    }
    return PK_OK;
}

static pk_status set_properties(sp_reader *r)
{
    pk_metadata *md = pk_metadata_of(r->p);
    if (r->product)
        md->product = r->product;
    const pk_metadata *scratch = pk_metadata_get(r->scratch);
    if (scratch->period_type) {
        md->period_type = pk_intern_cstr(r->p, pk_str(r->scratch, scratch->period_type));
        md->period_unit = pk_intern_cstr(r->p, pk_str(r->scratch, scratch->period_unit));
        if (md->period_type == PK_NONE || md->period_unit == PK_NONE)
            return nomem(r);
    }
    char text[32];
    if (r->has_lost) {
        snprintf(text, sizeof text, "%" PRIu64, r->sample_count);
        if (pk_property_set(r->p, "simpleperf.sample_count", text) != PK_OK)
            return nomem(r);
        snprintf(text, sizeof text, "%" PRIu64, r->lost_count);
        if (pk_property_set(r->p, "simpleperf.lost_count", text) != PK_OK)
            return nomem(r);
        if (r->lost_count)
            pk_warn(r->p, "simpleperf lost %" PRIu64 " samples (it kept %" PRIu64 ")",
                    r->lost_count, r->sample_count);
    }
    if (r->context_switches) {
        snprintf(text, sizeof text, "%" PRIu64, r->context_switches);
        if (pk_property_set(r->p, "simpleperf.context_switches", text) != PK_OK)
            return nomem(r);
    }
    if (r->samples_of_too_many_events)
        pk_warn(r->p, "%" PRIu64 " samples of event types past the first %d were left out",
                r->samples_of_too_many_events, SP_MAX_EVENTS);
    if (r->unknown_files)
        pk_warn(r->p, "%" PRIu64 " frames name a file id no File record describes",
                r->unknown_files);
    if (r->unknown_symbols)
        pk_warn(r->p, "%" PRIu64 " frames name a symbol id past their file's symbol table",
                r->unknown_symbols);
    return PK_OK;
}

/* The destination from the scratch profile: threads, the copy naming the frames, names. */
static pk_status finish(sp_reader *r)
{
    /* a report without samples or event types still has a value to show */
    if (pk_value_type_count(r->scratch) == 0 && !declare_event(r, 0))
        return nomem(r);
    r->named = calloc(pk_frame_count(r->scratch) + 1, sizeof *r->named);
    if (!r->named)
        return nomem(r);
    pk_status st = add_threads(r);
    if (st != PK_OK)
        return st;
    pk_copy_options options = {.map_frame = name_frame, .map_context = r};
    pk_error copy_err;
    pk_error_clear(&copy_err);
    st = pk_profile_copy(r->p, r->scratch, &options, &copy_err);
    if (st != PK_OK)
        return pk_error_set(r->err, st, PK_NO_OFFSET, "%s", copy_err.message);
    if ((st = name_threads(r)) != PK_OK)
        return st;
    return set_properties(r);
}

static void reader_release(sp_reader *r)
{
    pprof_arena_release(&r->arena);
    free(r->record);
    for (size_t i = 0; i < r->file_count; i++)
        free(r->files[i].symbols);
    free(r->files);
    free(r->threads);
    free(r->event_names);
    free(r->frames);
    free(r->named);
    pk_u64map_free(&r->file_index);
    pk_u64map_free(&r->thread_info);
    pk_u64map_free(&r->scratch_threads);
    pk_u64map_free(&r->symbol_frames);
    pk_profile_free(r->scratch);
}

pk_status simpleperf_read(pk_input *in, pk_profile *p, const pk_read_options *options,
                          pk_error *err)
{
    (void)options;
    uint8_t head[SIMPLEPERF_MAGIC_LEN + 2];
    size_t got = pk_in_read(in, head, sizeof head);
    if (got < sizeof head) {
        if (pk_in_error(in))
            return pk_in_fail(in, err);
        return pk_error_set(err, PK_ERR_INPUT, (int64_t)got,
                            "not a simpleperf report: it ends inside its magic and version");
    }
    if (memcmp(head, SIMPLEPERF_MAGIC, SIMPLEPERF_MAGIC_LEN) != 0)
        return pk_error_set(err, PK_ERR_INPUT, 0,
                            "not a simpleperf report: it does not start with \"SIMPLEPERF\"");
    unsigned version = head[SIMPLEPERF_MAGIC_LEN] | (unsigned)head[SIMPLEPERF_MAGIC_LEN + 1] << 8;
    if (version != SIMPLEPERF_VERSION)
        return pk_error_set(err, PK_ERR_UNSUPPORTED, SIMPLEPERF_MAGIC_LEN,
                            "simpleperf report version %u: only version %d is known", version,
                            SIMPLEPERF_VERSION);
    sp_reader r;
    memset(&r, 0, sizeof r);
    r.in = in;
    r.p = p;
    r.err = err;
    pprof_arena_init(&r.arena);
    pk_u64map_init(&r.file_index);
    pk_u64map_init(&r.thread_info);
    pk_u64map_init(&r.scratch_threads);
    pk_u64map_init(&r.symbol_frames);
    r.scratch = pk_profile_new();
    if (!r.scratch) {
        reader_release(&r);
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    }
    pk_timeline_keep(r.scratch, pk_timeline_kept(p));
    pk_status st = read_records(&r);
    /* what came before damage is whole: the profile is made of it, the damage stands */
    if (st == PK_OK || (st == PK_ERR_INPUT && err->salvageable)) {
        pk_error damage = *err;
        pk_status made = finish(&r);
        if (made != PK_OK)
            st = made;
        else if (st != PK_OK)
            *err = damage;
    }
    reader_release(&r);
    return st;
}
