/* SPDX-License-Identifier: MIT */
/* Reading a heaptrack recording into a profile (heaptrack.h). Strings, instruction pointers,
 * trace nodes and allocation infos are kept as they come (they grow with distinct strings,
 * code addresses, stacks and sizes); an allocation or a free only changes the counts of its
 * allocation info, so that memory does not grow with events. heaptrack_print's figures are the
 * reference: its counts per trace, its peak (each trace's bytes at the first moment the heap
 * was at its largest), its temporary allocations and its leaks. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/buffer.h"
#include "core/damage.h"
#include "core/input.h"
#include "core/memory_values.h"
#include "formats/heaptrack/heaptrack.h"
#include "profkit/counters.h"
#include "profkit/profile.h"

/* C++ symbols reach a few kilobytes; nothing heaptrack writes comes near this. */
#define HT_MAX_LINE (4u << 20)
/* An instruction pointer's frames: its own and those inlined into it. */
#define HT_MAX_FIELDS (3 * 64 + 2)

typedef struct ht_ip {
    uint32_t frames_start, frame_count; /* in frame_pool, root first */
    bool operator_new;                  /* its function is operator new: traces skip it */
} ht_ip;

typedef struct ht_trace {
    uint32_t stack; /* PK_NONE for the root */
} ht_trace;

/* An allocation info: its counts and size, what an event touches (its trace is apart). */
typedef struct ht_info {
    ht_counts counts;
    int64_t size;
} ht_info;

typedef struct ht_reader {
    pk_profile *p;
    uint64_t line_number;  /* of the line being read, 1-based */
    uint64_t line_offset;  /* where it starts */
    pk_buffer long_line;   /* a line longer than the input's buffer, gathered */
    uint32_t *strings; /* profile string of each string record (1-based in the file) */
    size_t string_count, string_capacity;
    uint32_t *resources; /* resource of each string used as a module, PK_NONE until then */
    size_t resource_capacity;
    ht_ip *ips;
    size_t ip_count, ip_capacity;
    uint32_t *frame_pool;
    size_t frame_pool_count, frame_pool_capacity;
    ht_trace *traces; /* [0] is the root */
    size_t trace_count, trace_capacity;
    ht_info *infos;
    uint32_t *info_traces; /* the trace of each info */
    size_t info_count, info_capacity, info_trace_capacity;
    ht_costs costs;
    uint64_t file_version, heaptrack_version;
    bool saw_version, saw_debuggee, attached;
    uint64_t time, rss_pages, page_size, physical_pages;
    uint32_t heap_counter, rss_counter; /* memory over time, PK_NONE until the first sample */
    uint64_t unknown_lines, first_unknown_line, suppressions;
    uint64_t fields[HT_MAX_FIELDS + 1]; /* one more, to tell a line with too many */
    uint32_t frames[HT_MAX_FIELDS];
} ht_reader;

typedef enum { LINE_OK, LINE_BAD, LINE_NOMEM } line_outcome;

static bool set_number(pk_profile *p, const char *key, uint64_t v)
{
    char text[32];
    snprintf(text, sizeof text, "%" PRIu64, v);
    return pk_property_set(p, key, text) == PK_OK;
}

static bool set_signed(pk_profile *p, const char *key, int64_t v)
{
    char text[32];
    snprintf(text, sizeof text, "%" PRId64, v);
    return pk_property_set(p, key, text) == PK_OK;
}

/* The profile string of string record `index` (1-based), 0 for index 0 (none). */
static bool string_at(const ht_reader *r, uint64_t index, uint32_t *out)
{
    if (index > r->string_count)
        return false;
    *out = index ? r->strings[index - 1] : 0;
    return true;
}

static uint32_t module_resource(ht_reader *r, uint64_t index)
{
    if (index == 0)
        return PK_NONE;
    if (r->resource_capacity < r->string_count) {
        size_t old = r->resource_capacity;
        if (!PK_ARRAY_RESERVE(r->resources, r->resource_capacity, r->string_count))
            return PK_NONE - 1;
        for (size_t i = old; i < r->resource_capacity; i++)
            r->resources[i] = PK_NONE;
    }
    if (r->resources[index - 1] != PK_NONE)
        return r->resources[index - 1];
    const char *path = pk_str(r->p, r->strings[index - 1]);
    const char *base = strrchr(path, '/');
    pk_resource res = {0};
    res.path = r->strings[index - 1];
    res.name = pk_intern_cstr(r->p, base ? base + 1 : path);
    uint32_t id = res.name == PK_NONE ? PK_NONE : pk_intern_resource(r->p, &res);
    if (id == PK_NONE)
        return PK_NONE - 1;
    r->resources[index - 1] = id;
    return id;
}

static bool is_operator_new(const char *name)
{
    return strcmp(name, "operator new(unsigned long)") == 0 ||
           strcmp(name, "operator new[](unsigned long)") == 0 ||
           strcmp(name, "operator new(unsigned int)") == 0 ||
           strcmp(name, "operator new[](unsigned int)") == 0;
}

/* "i IP MODULE [FUNCTION FILE LINE]...": the frame of the address, then those inlined into it,
 * innermost first. */
static line_outcome read_ip(ht_reader *r, const char *line, size_t len, const char **why)
{
    size_t n = 0;
    *why = ht_parse_hex(line + 1, line + len, r->fields, HT_MAX_FIELDS + 1, &n);
    if (*why)
        return LINE_BAD;
    if (n < 2 || n > HT_MAX_FIELDS) {
        *why = n > HT_MAX_FIELDS ? "has more inlined frames than profkit reads (63)"
                                  : "is not `i IP MODULE [FUNCTION FILE LINE]...`";
        return LINE_BAD;
    }
    /* heaptrack writes a frame without a file as its function alone; it reads the fields
     * missing from the first frame as 0 and drops an inlined frame with fields missing */
    if (n > 2 && n < 5)
        memset(r->fields + n, 0, (5 - n) * sizeof r->fields[0]);
    uint64_t address = r->fields[0];
    uint32_t module_name;
    if (!string_at(r, r->fields[1], &module_name)) {
        *why = "names a module past the strings read so far";
        return LINE_BAD;
    }
    uint32_t resource = module_resource(r, r->fields[1]);
    if (resource == PK_NONE - 1)
        return LINE_NOMEM;
    size_t count = n < 5 ? 1 : (n - 2) / 3;
    bool operator_new = false;
    for (size_t k = 0; k < count; k++) {
        pk_function fn = {.resource = resource};
        pk_frame frame = {.address = address, .resource = resource,
                          .flags = PK_FRAME_HAS_ADDRESS};
        uint32_t name = 0;
        if (n > 2) {
            const uint64_t *f = r->fields + 2 + 3 * k;
            if (!string_at(r, f[0], &name) || !string_at(r, f[1], &fn.file)) {
                *why = "names a function or file past the strings read so far";
                return LINE_BAD;
            }
            frame.line = f[2] > UINT32_MAX ? 0 : (uint32_t)f[2];
        }
        if (name == 0) {
            /* heaptrack shows a frame without a symbol by its address */
            char text[24];
            snprintf(text, sizeof text, "0x%" PRIx64, address);
            name = pk_intern_cstr(r->p, text);
        }
        fn.name = name;
        if (k == 0 && name != PK_NONE)
            operator_new = is_operator_new(pk_str(r->p, name));
        /* every frame but the outermost was inlined into the one after it */
        if (k + 1 < count)
            frame.flags |= PK_FRAME_INLINED;
        frame.function = name == PK_NONE ? PK_NONE : pk_intern_function(r->p, &fn);
        uint32_t id = frame.function == PK_NONE ? PK_NONE : pk_intern_frame(r->p, &frame);
        if (id == PK_NONE)
            return LINE_NOMEM;
        r->frames[count - 1 - k] = id;
    }
    if (r->frame_pool_count + count > UINT32_MAX) {
        *why = "is an instruction pointer past the 2^32 frames that profkit reads";
        return LINE_BAD;
    }
    if (!PK_ARRAY_RESERVE(r->ips, r->ip_capacity, r->ip_count + 1) ||
        !PK_ARRAY_RESERVE(r->frame_pool, r->frame_pool_capacity, r->frame_pool_count + count))
        return LINE_NOMEM;
    memcpy(r->frame_pool + r->frame_pool_count, r->frames, count * sizeof *r->frames);
    r->ips[r->ip_count++] = (ht_ip){(uint32_t)r->frame_pool_count, (uint32_t)count, operator_new};
    r->frame_pool_count += count;
    return LINE_OK;
}

static bool add_trace(ht_reader *r, ht_trace trace)
{
    if (!PK_ARRAY_RESERVE(r->traces, r->trace_capacity, r->trace_count + 1))
        return false;
    r->traces[r->trace_count++] = trace;
    return true;
}

/* "t IP PARENT": a stack, its parent's with the address's frames inside. */
static line_outcome read_trace(ht_reader *r, const char *line, size_t len, const char **why)
{
    size_t n = 0;
    *why = ht_parse_hex(line + 1, line + len, r->fields, 2, &n);
    if (*why)
        return LINE_BAD;
    if (n != 2) {
        *why = "is not `t IP PARENT`";
        return LINE_BAD;
    }
    if (r->fields[0] == 0 || r->fields[0] > r->ip_count) {
        *why = "names an instruction pointer not read before it";
        return LINE_BAD;
    }
    if (r->fields[1] >= r->trace_count) {
        *why = "names a parent trace not read before it";
        return LINE_BAD;
    }
    if (r->trace_count >= UINT32_MAX) {
        *why = "is a trace past the 2^32 - 1 that profkit reads";
        return LINE_BAD;
    }
    const ht_ip *ip = &r->ips[r->fields[0] - 1];
    ht_trace parent = r->traces[r->fields[1]];
    /* heaptrack_print leaves operator new out of the top of stacks: the trace is its parent */
    if (ip->operator_new)
        return add_trace(r, parent) ? LINE_OK : LINE_NOMEM;
    uint32_t stack = pk_intern_stack_frames(r->p, parent.stack, r->frame_pool + ip->frames_start,
                                            ip->frame_count);
    if (stack == PK_NONE)
        return LINE_NOMEM;
    return add_trace(r, (ht_trace){stack}) ? LINE_OK : LINE_NOMEM;
}

/* "a SIZE TRACE": an allocation info, which "+" and "-" lines name by index. */
static line_outcome read_info(ht_reader *r, const char *line, size_t len, const char **why)
{
    size_t n = 0;
    *why = ht_parse_hex(line + 1, line + len, r->fields, 2, &n);
    if (*why)
        return LINE_BAD;
    if (n != 2) {
        *why = "is not `a SIZE TRACE`";
        return LINE_BAD;
    }
    if (r->fields[0] > INT64_MAX) {
        *why = "gives a size beyond 2^63 - 1 bytes";
        return LINE_BAD;
    }
    if (r->fields[1] >= r->trace_count) {
        *why = "names a trace not read before it";
        return LINE_BAD;
    }
    if (!PK_ARRAY_RESERVE(r->infos, r->info_capacity, r->info_count + 1) ||
        !PK_ARRAY_RESERVE(r->info_traces, r->info_trace_capacity, r->info_count + 1))
        return LINE_NOMEM;
    r->info_traces[r->info_count] = (uint32_t)r->fields[1];
    r->infos[r->info_count++] = (ht_info){.size = (int64_t)r->fields[0]};
    return LINE_OK;
}

/* "+ INFO" and "- INFO": an allocation and a free, of allocation info INFO (0-based). */
static line_outcome read_event(ht_reader *r, const char *line, size_t len, const char **why)
{
    if (r->file_version < 1) {
        *why = "is an allocation of heaptrack's file format 0 (before heaptrack 1.0), which "
               "profkit does not read";
        return LINE_BAD;
    }
    const char *at = line + 1, *end = line + len;
    uint64_t index = 0;
    /* the hot path: one space, then the digits */
    if (at < end && *at == ' ' && ++at < end) {
        const char *start = at;
        for (; at < end && at - start < 16; at++) {
            char c = *at;
            unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
                         : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                                                : 16;
            if (d == 16)
                break;
            index = index << 4 | d;
        }
        if (at == start || at != end) {
            size_t n = 0;
            *why = ht_parse_hex(line + 1, end, r->fields, 1, &n);
            if (*why || n != 1) {
                *why = *why ? *why : "is not `+ INFO` or `- INFO`";
                return LINE_BAD;
            }
            index = r->fields[0];
        }
    } else {
        *why = "is not `+ INFO` or `- INFO`";
        return LINE_BAD;
    }
    if (index >= r->info_count) {
        *why = "names an allocation info not read before it";
        return LINE_BAD;
    }
    ht_info *info = &r->infos[index];
    if (line[0] == '+')
        ht_costs_allocate(&r->costs, &info->counts, index, info->size, r->time);
    else
        ht_costs_free(&r->costs, &info->counts, index, info->size);
    return LINE_OK;
}

/* A level of a memory counter at the current time stamp (ms since the start), the counter made
 * at its first sample. A time stamp before the one ahead of it (not heaptrack's output) stays
 * out of the counter. False when memory or the spool fails. */
static bool add_level(ht_reader *r, uint32_t *counter, const char *name, const char *description,
                      int64_t level)
{
    if (*counter == PK_NONE &&
        (*counter = pk_add_counter(r->p, name, description, "bytes", PK_NONE)) == PK_NONE)
        return false;
    int64_t ns = r->time > (uint64_t)INT64_MAX / 1000000 ? INT64_MAX : (int64_t)r->time * 1000000;
    pk_status added = pk_counter_append(r->p, *counter, ns, level);
    return added == PK_OK || added == PK_ERR_USAGE;
}

static line_outcome read_version(ht_reader *r, const char *line, size_t len, const char **why)
{
    size_t n = 0;
    *why = ht_parse_hex(line + 1, line + len, r->fields, 2, &n);
    if (*why)
        return LINE_BAD;
    if (n == 0) {
        *why = "is not `v VERSION FILEVERSION`";
        return LINE_BAD;
    }
    r->heaptrack_version = r->fields[0];
    /* heaptrack 1.0 wrote no file version and 0x010200 for version 1 */
    r->file_version = n == 2 ? r->fields[1] : r->heaptrack_version == 0x010200 ? 1 : 0;
    if (r->file_version > HT_FILE_VERSION_MAX) {
        *why = "gives a file format version newer than profkit reads (3)";
        return LINE_BAD;
    }
    r->saw_version = true;
    return LINE_OK;
}

static line_outcome read_line(ht_reader *r, const char *line, size_t len, const char **why)
{
    size_t n = 0;
    switch (len ? line[0] : '#') {
    case '+':
    case '-':
        return read_event(r, line, len, why);
    case 'a':
        return read_info(r, line, len, why);
    case 't':
        return read_trace(r, line, len, why);
    case 'i':
        return read_ip(r, line, len, why);
    case 's': {
        const char *text;
        size_t text_len;
        *why = ht_parse_string(line, len, r->file_version >= 3, &text, &text_len);
        if (*why)
            return LINE_BAD;
        uint32_t id = pk_intern(r->p, text, text_len);
        if (id == PK_NONE || !PK_ARRAY_RESERVE(r->strings, r->string_capacity,
                                               r->string_count + 1))
            return LINE_NOMEM;
        r->strings[r->string_count++] = id;
        return LINE_OK;
    }
    case 'c':
        *why = ht_parse_hex(line + 1, line + len, r->fields, 1, &n);
        if (!*why && n != 1)
            *why = "is not `c TIME`";
        if (*why)
            return LINE_BAD;
        r->time = r->fields[0];
        /* What the heap held at each time stamp: heaptrack_gui's "Consumed" chart. */
        return add_level(r, &r->heap_counter, "heap",
                         "bytes allocated and not freed, at each of heaptrack's time stamps",
                         r->costs.live_bytes)
                   ? LINE_OK
                   : LINE_NOMEM;
    case 'R':
        *why = ht_parse_hex(line + 1, line + len, r->fields, 1, &n);
        if (!*why && n != 1)
            *why = "is not `R PAGES`";
        if (*why)
            return LINE_BAD;
        if (r->fields[0] > r->rss_pages)
            r->rss_pages = r->fields[0];
        if (r->page_size == 0 || r->fields[0] > (uint64_t)INT64_MAX / r->page_size)
            return LINE_OK; /* no page size yet (the `I` line comes first) */
        return add_level(r, &r->rss_counter, "RSS", "the process's resident set size",
                         (int64_t)(r->fields[0] * r->page_size))
                   ? LINE_OK
                   : LINE_NOMEM;
    case 'I':
        *why = ht_parse_hex(line + 1, line + len, r->fields, 2, &n);
        if (!*why && n != 2)
            *why = "is not `I PAGESIZE PAGES`";
        if (*why)
            return LINE_BAD;
        r->page_size = r->fields[0];
        r->physical_pages = r->fields[1];
        return LINE_OK;
    case 'v':
        return read_version(r, line, len, why);
    case 'X': {
        if (r->saw_debuggee) {
            *why = "names the debuggee a second time (heaptrack refuses such a file)";
            return LINE_BAD;
        }
        r->saw_debuggee = true;
        const char *cmd = len > 2 ? line + 2 : "";
        uint32_t id = pk_intern(r->p, cmd, len > 2 ? len - 2 : 0);
        if (id == PK_NONE || pk_property_set(r->p, "heaptrack.command", pk_str(r->p, id)) != PK_OK)
            return LINE_NOMEM;
        pk_metadata_of(r->p)->product = id;
        return LINE_OK;
    }
    case 'A':
        r->attached = true;
        return LINE_OK;
    case 'S':
        r->suppressions++;
        return LINE_OK;
    case '#':
        return LINE_OK;
    default:
        /* heaptrack_print skips a line it does not know */
        if (r->unknown_lines++ == 0)
            r->first_unknown_line = r->line_number;
        return LINE_OK;
    }
}

/* The infos' counts as samples by stack, and the recording's totals as properties. */
static bool finish(ht_reader *r)
{
    pk_profile *p = r->p;
    pk_memory_values mv;
    if (!pk_memory_values_declare(p, true, &mv))
        return false;
    uint32_t peak = pk_add_value_type(p, PK_MEMORY_PEAK_SPACE, PK_MEMORY_SPACE_UNIT);
    uint32_t temporary = pk_add_value_type(p, "temporary_objects", "count");
    if (peak == PK_NONE || temporary == PK_NONE)
        return false;
    pk_set_default_value(p, mv.alloc_space);
    uint32_t thread = pk_add_thread(p, pk_intern_cstr(p, "main"), -1, -1);
    if (thread == PK_NONE)
        return false;
    /* each info's counts in bytes, summed by trace, then one row per trace */
    enum { S_ALLOCATIONS, S_ALLOCATED, S_LIVE, S_LIVE_BYTES, S_PEAK, S_TEMPORARY, S_COUNT };
    int64_t (*sums)[S_COUNT] = calloc(r->trace_count, sizeof *sums);
    if (!sums)
        return false;
    int64_t leaked = 0;
    for (size_t i = 0; i < r->info_count; i++) {
        const ht_info *info = &r->infos[i];
        const ht_counts *n = &info->counts;
        int64_t *sum = sums[r->info_traces[i]];
        sum[S_ALLOCATIONS] += n->allocations;
        sum[S_ALLOCATED] = ht_add(sum[S_ALLOCATED], (int64_t)((uint64_t)n->allocations *
                                                              (uint64_t)info->size));
        sum[S_LIVE] += n->live;
        sum[S_LIVE_BYTES] = ht_add(sum[S_LIVE_BYTES],
                                   (int64_t)((uint64_t)n->live * (uint64_t)info->size));
        sum[S_PEAK] = ht_add(sum[S_PEAK], (int64_t)((uint64_t)ht_peak_live(&r->costs, n) *
                                                    (uint64_t)info->size));
        sum[S_TEMPORARY] += n->temporary;
    }
    int64_t row[PK_MAX_VALUES];
    bool ok = true;
    for (size_t t = 1; t < r->trace_count && ok; t++) {
        const int64_t *sum = sums[t];
        if (!sum[S_ALLOCATIONS] && !sum[S_LIVE] && !sum[S_LIVE_BYTES] && !sum[S_PEAK])
            continue;
        memset(row, 0, sizeof row);
        row[mv.alloc_objects] = sum[S_ALLOCATIONS];
        row[mv.alloc_space] = sum[S_ALLOCATED];
        row[mv.inuse_objects] = sum[S_LIVE];
        row[mv.inuse_space] = sum[S_LIVE_BYTES];
        row[peak] = sum[S_PEAK];
        row[temporary] = sum[S_TEMPORARY];
        leaked = ht_add(leaked, sum[S_LIVE_BYTES]);
        ok = pk_add_sample(p, thread, r->traces[t].stack, row) == PK_OK;
    }
    free(sums);
    if (!ok)
        return false;
    const ht_costs *c = &r->costs;
    ok = set_number(p, "heaptrack.file_version", r->file_version) &&
              set_number(p, "heaptrack.calls", (uint64_t)c->allocations) &&
              set_number(p, "heaptrack.temporary", (uint64_t)c->temporary) &&
              set_signed(p, "heaptrack.peak_heap_B", c->peak_bytes) &&
              set_number(p, "heaptrack.peak_time_ms", c->peak_time) &&
              set_signed(p, "heaptrack.leaked_B", leaked) &&
              set_number(p, "heaptrack.runtime_ms", r->time);
    if (ok && r->heaptrack_version) {
        char text[32];
        snprintf(text, sizeof text, "%u.%u.%u", (unsigned)(r->heaptrack_version >> 16 & 0xff),
                 (unsigned)(r->heaptrack_version >> 8 & 0xff),
                 (unsigned)(r->heaptrack_version & 0xff));
        ok = pk_property_set(p, "heaptrack.version", text) == PK_OK;
    }
    if (ok && r->page_size)
        ok = set_number(p, "heaptrack.page_size_B", r->page_size) &&
             set_number(p, "heaptrack.peak_rss_B", r->rss_pages * r->page_size);
    if (ok && r->attached)
        ok = pk_property_set(p, "heaptrack.attached", "true") == PK_OK;
    if (!ok)
        return false;
    if (r->unknown_lines)
        pk_warn(p, "heaptrack: %" PRIu64 " line%s of a kind profkit does not know skipped "
                   "(the first is line %" PRIu64 ")",
                r->unknown_lines, r->unknown_lines == 1 ? "" : "s", r->first_unknown_line);
    if (r->suppressions)
        pk_warn(p, "heaptrack: the recording's %" PRIu64 " leak suppression%s not applied: "
                   "inuse_space counts every leak",
                r->suppressions, r->suppressions == 1 ? " is" : "s are");
    return true;
}

static void reader_free(ht_reader *r)
{
    pk_buffer_free(&r->long_line);
    free(r->strings);
    free(r->resources);
    free(r->ips);
    free(r->frame_pool);
    free(r->traces);
    free(r->info_traces);
    free(r->infos);
    free(r);
}

typedef enum { READ_ON, READ_STOP, READ_NOMEM } read_outcome;

/* One whole line (without its LF): damage or an error in *status when it is bad. */
static read_outcome take_line(ht_reader *r, const char *text, size_t len, pk_status *status,
                              pk_error *err, bool *damaged)
{
    r->line_number++;
    if (r->line_number == 1 && (len < 2 || text[0] != 'v' || text[1] != ' ')) {
        *status = pk_error_set(err, PK_ERR_INPUT, 0,
                               "not a heaptrack recording: line 1 is not `v VERSION ...`");
        return READ_STOP;
    }
    const char *why = NULL;
    line_outcome outcome = read_line(r, text, len, &why);
    if (outcome == LINE_NOMEM)
        return READ_NOMEM;
    if (outcome == LINE_BAD) {
        *status = r->line_number == 1
                      ? pk_error_set(err, PK_ERR_INPUT, 0, "line 1 %s", why)
                      : pk_damage(err, r->line_offset, "line %" PRIu64 " %s", r->line_number,
                                  why);
        *damaged = r->line_number > 1;
        return READ_STOP;
    }
    return READ_ON;
}

/* "+ INFO" or "- INFO" ending in LF within [p, end), applied; the end of the line, or NULL when
 * the line is anything else (or has a fault: the general path reads it and says what). */
static inline const char *fast_event(ht_reader *r, const char *p, const char *end)
{
    if (end - p < 4 || p[1] != ' ' || r->file_version < 1)
        return NULL;
    /* the value of each lowercase hexadecimal digit, 16 for any other byte */
    static const uint8_t digit[256] = {
#define D16 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16
        D16, D16, D16,
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 16, 16, 16, 16, 16,
        D16, D16,
        16, 10, 11, 12, 13, 14, 15, 16, 16, 16, 16, 16, 16, 16, 16, 16,
        D16, D16, D16, D16, D16, D16, D16, D16, D16,
#undef D16
    };
    const char *q = p + 2, *limit = end - q > 16 ? q + 16 : end;
    uint64_t index = 0;
    unsigned d;
    for (; q < limit && (d = digit[(unsigned char)*q]) < 16; q++)
        index = index << 4 | d;
    if (q == p + 2 || q == end || *q != '\n' || index >= r->info_count)
        return NULL;
    ht_info *info = &r->infos[index];
    if (*p == '+')
        ht_costs_allocate(&r->costs, &info->counts, index, info->size, r->time);
    else
        ht_costs_free(&r->costs, &info->counts, index, info->size);
    r->line_number++;
    return q;
}

/* A line longer than the input's buffer (which is full, from its start): gathered until its LF,
 * up to HT_MAX_LINE. */
static read_outcome take_long_line(ht_reader *r, pk_input *in, pk_status *status, pk_error *err,
                                   bool *damaged)
{
    pk_buffer_clear(&r->long_line);
    r->line_offset = pk_in_offset(in);
    for (;;) {
        size_t have = pk_in_available(in);
        if (have == 0 && (have = pk_input_fill(in, PK_INPUT_CHUNK)) == 0) {
            /* the input ended inside it */
            *status = pk_damage(err, r->line_offset,
                                "line %" PRIu64 " is cut short (no line end)",
                                r->line_number + 1);
            *damaged = true;
            return READ_STOP;
        }
        const uint8_t *nl = memchr(in->pos, '\n', have);
        size_t n = nl ? (size_t)(nl - in->pos) : have;
        if (r->long_line.len + n > HT_MAX_LINE) {
            *status = pk_damage(err, r->line_offset, "line %" PRIu64 " is longer than 4 MiB",
                                r->line_number + 1);
            *damaged = true;
            return READ_STOP;
        }
        pk_buffer_append(&r->long_line, in->pos, n);
        if (r->long_line.failed)
            return READ_NOMEM;
        in->pos += n + (nl ? 1 : 0);
        if (nl)
            return take_line(r, (const char *)r->long_line.data, r->long_line.len, status, err,
                             damaged);
    }
}

pk_status ht_read(pk_input *in, pk_profile *p, const pk_read_options *options, pk_error *err)
{
    (void)options;
    ht_reader *r = calloc(1, sizeof *r);
    if (!r)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    r->p = p;
    r->heap_counter = r->rss_counter = PK_NONE;
    pk_status status = PK_OK;
    bool damaged = false;
    if (!add_trace(r, (ht_trace){PK_NONE}))
        goto nomem;
    /* Lines end at LF, the only line end heaptrack writes. The buffered bytes are read in
     * place, allocations and frees on a path of their own. */
    read_outcome outcome = READ_ON;
    while (outcome == READ_ON) {
        const char *start = (const char *)in->pos, *at = start, *end = (const char *)in->end;
        uint64_t base = pk_in_offset(in);
        while (at < end) {
            if (*at == '+' || *at == '-') {
                const char *nl = fast_event(r, at, end);
                if (nl) {
                    at = nl + 1;
                    continue;
                }
            }
            const char *nl = memchr(at, '\n', (size_t)(end - at));
            if (!nl)
                break;
            r->line_offset = base + (uint64_t)(at - start);
            outcome = take_line(r, at, (size_t)(nl - at), &status, err, &damaged);
            at = nl + 1;
            if (outcome != READ_ON)
                break;
        }
        in->pos = (const uint8_t *)at;
        if (outcome != READ_ON)
            break;
        size_t left = pk_in_available(in);
        if (left >= PK_INPUT_CHUNK) {
            outcome = take_long_line(r, in, &status, err, &damaged);
            continue;
        }
        if (pk_input_fill(in, left + 1) > left)
            continue;
        if (left) {
            /* heaptrack ends every line: a last line without its end was cut */
            status = pk_damage(err, pk_in_offset(in),
                               "line %" PRIu64 " is cut short (no line end)",
                               r->line_number + 1);
            damaged = r->line_number > 0;
            if (!damaged)
                status = pk_error_set(err, PK_ERR_INPUT, 0,
                                      "not a heaptrack recording: its one line has no end");
        }
        break;
    }
    if (outcome == READ_NOMEM)
        goto nomem;
    if (status == PK_OK && !r->saw_version)
        status = pk_error_set(err, PK_ERR_INPUT, 0, "not a heaptrack recording: it is empty");
    if ((status == PK_OK || damaged) && !finish(r))
        goto nomem;
    reader_free(r);
    return status;
nomem:
    reader_free(r);
    return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
}
