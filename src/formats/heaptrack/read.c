/* SPDX-License-Identifier: MIT */
/* Reading a heaptrack recording into a profile (heaptrack.h). Strings, instruction pointers,
 * trace nodes and allocation infos are kept as they come (they grow with distinct strings,
 * code addresses and stacks); an allocation or a free only changes its site's counts, so that
 * memory does not grow with events. heaptrack_print's figures are the reference: its counts
 * per trace, its peak (each site's bytes at the first moment the heap was at its largest), its
 * temporary allocations and its leaks. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/damage.h"
#include "core/input.h"
#include "core/memory_values.h"
#include "core/text_lines.h"
#include "formats/heaptrack/heaptrack.h"
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
    uint32_t stack;  /* PK_NONE for the root */
    uint32_t ip, parent;
} ht_trace;

typedef struct ht_info {
    int64_t size;
    uint32_t trace;
} ht_info;

typedef struct ht_reader {
    pk_profile *p;
    pk_text_lines lines;
    uint32_t *strings; /* profile string of each string record (1-based in the file) */
    size_t string_count, string_capacity;
    uint32_t *resources; /* resource of each string used as a module, PK_NONE until then */
    size_t resource_capacity;
    ht_ip *ips;
    size_t ip_count, ip_capacity;
    uint32_t *frame_pool;
    size_t frame_pool_count, frame_pool_capacity;
    ht_trace *traces; /* [0] is the root */
    ht_site *sites;   /* one per trace */
    size_t trace_count, trace_capacity, site_capacity;
    ht_info *infos;
    size_t info_count, info_capacity;
    ht_costs costs;
    uint64_t file_version, heaptrack_version;
    bool saw_version, saw_debuggee, attached;
    uint64_t time, rss_pages, page_size, physical_pages;
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
    if (!PK_ARRAY_RESERVE(r->traces, r->trace_capacity, r->trace_count + 1) ||
        !PK_ARRAY_RESERVE(r->sites, r->site_capacity, r->trace_count + 1))
        return false;
    r->traces[r->trace_count] = trace;
    memset(&r->sites[r->trace_count], 0, sizeof r->sites[0]);
    r->trace_count++;
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
    const ht_ip *ip = &r->ips[r->fields[0] - 1];
    ht_trace parent = r->traces[r->fields[1]];
    /* heaptrack_print leaves operator new out of the top of stacks: the trace is its parent */
    if (ip->operator_new)
        return add_trace(r, parent) ? LINE_OK : LINE_NOMEM;
    uint32_t stack = pk_intern_stack_frames(r->p, parent.stack, r->frame_pool + ip->frames_start,
                                            ip->frame_count);
    if (stack == PK_NONE)
        return LINE_NOMEM;
    ht_trace trace = {stack, (uint32_t)r->fields[0], (uint32_t)r->fields[1]};
    return add_trace(r, trace) ? LINE_OK : LINE_NOMEM;
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
    if (!PK_ARRAY_RESERVE(r->infos, r->info_capacity, r->info_count + 1))
        return LINE_NOMEM;
    r->infos[r->info_count++] = (ht_info){(int64_t)r->fields[0], (uint32_t)r->fields[1]};
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
    const ht_info *info = &r->infos[index];
    if (line[0] == '+')
        ht_costs_allocate(&r->costs, &r->sites[info->trace], index, info->size, r->time);
    else
        ht_costs_free(&r->costs, &r->sites[info->trace], index, info->size);
    return LINE_OK;
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
        return LINE_OK;
    case 'R':
        *why = ht_parse_hex(line + 1, line + len, r->fields, 1, &n);
        if (!*why && n != 1)
            *why = "is not `R PAGES`";
        if (*why)
            return LINE_BAD;
        if (r->fields[0] > r->rss_pages)
            r->rss_pages = r->fields[0];
        return LINE_OK;
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
            r->first_unknown_line = r->lines.number;
        return LINE_OK;
    }
}

/* The sites' counts as samples, and the recording's totals as properties. */
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
    int64_t row[PK_MAX_VALUES];
    int64_t leaked = 0;
    for (size_t t = 1; t < r->trace_count; t++) {
        const ht_site *site = &r->sites[t];
        int64_t site_peak = ht_site_peak(&r->costs, site);
        if (!site->allocations && !site->live_objects && !site->live_bytes && !site_peak)
            continue;
        memset(row, 0, sizeof row);
        row[mv.alloc_objects] = site->allocations;
        row[mv.alloc_space] = site->allocated;
        row[mv.inuse_objects] = site->live_objects;
        row[mv.inuse_space] = site->live_bytes;
        row[peak] = site_peak;
        row[temporary] = site->temporary;
        leaked = (int64_t)((uint64_t)leaked + (uint64_t)site->live_bytes);
        if (pk_add_sample(p, thread, r->traces[t].stack, row) != PK_OK)
            return false;
    }
    const ht_costs *c = &r->costs;
    bool ok = set_number(p, "heaptrack.file_version", r->file_version) &&
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
    pk_text_lines_free(&r->lines);
    free(r->strings);
    free(r->resources);
    free(r->ips);
    free(r->frame_pool);
    free(r->traces);
    free(r->sites);
    free(r->infos);
    free(r);
}

pk_status ht_read(pk_input *in, pk_profile *p, const pk_read_options *options, pk_error *err)
{
    (void)options;
    ht_reader *r = calloc(1, sizeof *r);
    if (!r)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    r->p = p;
    pk_text_lines_init(&r->lines, in, HT_MAX_LINE);
    pk_status status = PK_OK;
    bool damaged = false;
    if (!add_trace(r, (ht_trace){PK_NONE, 0, 0}))
        goto nomem;
    for (;;) {
        const char *text = NULL;
        size_t len = 0;
        pk_text_line_result got = pk_text_lines_next(&r->lines, &text, &len);
        if (got == PK_TEXT_END)
            break;
        if (got == PK_TEXT_NOMEM)
            goto nomem;
        if (got == PK_TEXT_TOO_LONG) {
            status = pk_damage(err, r->lines.offset, "line %" PRIu64 " is longer than 4 MiB",
                               r->lines.number);
            damaged = true;
            break;
        }
        if (r->lines.number == 1 && (len < 2 || text[0] != 'v' || text[1] != ' ')) {
            status = pk_error_set(err, PK_ERR_INPUT, 0,
                                  "not a heaptrack recording: line 1 is not `v VERSION ...`");
            break;
        }
        if (r->lines.unterminated) {
            /* heaptrack ends every line: a last line without its end was cut */
            status = pk_damage(err, r->lines.offset, "line %" PRIu64 " is cut short (no line end)",
                               r->lines.number);
            damaged = true;
            break;
        }
        const char *why = NULL;
        line_outcome outcome = read_line(r, text, len, &why);
        if (outcome == LINE_NOMEM)
            goto nomem;
        if (outcome == LINE_BAD) {
            status = r->lines.number == 1
                         ? pk_error_set(err, PK_ERR_INPUT, 0, "line 1 %s", why)
                         : pk_damage(err, r->lines.offset, "line %" PRIu64 " %s",
                                     r->lines.number, why);
            damaged = r->lines.number > 1;
            break;
        }
    }
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
