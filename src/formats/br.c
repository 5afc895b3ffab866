/* The BR (Business Rules!) profiler file: written by `DEBUG PROFILE SAMPLED|TIMED file`.
 *
 * A sequence of records, each opened by a type byte; every number is big-endian:
 *   1 module mapping   u16 module, u16 name length, name
 *   3 current line     u16 module, u32 line, u8 clause      opens a group (one sample)
 *   4 time in line     u64 nanoseconds                      TIMED files, inside a group
 *   5 backtrace        u16 module, u32 line, u8 clause      a caller, inside a group
 *   7 function name    u8 length, name                      labels the frame before it
 *   8 GOSUB                                                 likewise
 *   9 main routine                                          likewise
 *   6 end current line                                      closes the group
 * No type carries a length of its own, so an unknown type ends what can be read.
 *
 * Model: one sample per group, on one thread "main". The current line is the leaf; the
 * backtrace records are its callers, nearest caller first by default (--br-backtrace-order
 * outermost-first reads them the other way). A frame is (function, BR line) in the resource of
 * its module (name = the module file's base name, path = the file as mapped). Its function is
 * named, with B the module's base name (e.g. MENU.BR):
 *   FUNCTION NAME record   the name as written, e.g. FNCALC
 *   GOSUB record           "B gosub"
 *   MAIN ROUTINE record    "B main"
 *   no label               "B"
 * and has the module file as its file. The clause number is not part of these names; with
 * --br-names line every frame is named "B:LINE.CLAUSE" followed by " FNCALC", " gosub",
 * " main" or nothing, which keeps the clause and gives one node per BR line in call trees.
 * A module number used before (or without) a mapping is called "module N".
 * Values: samples (1 per group); time (nanoseconds, the sum of the group's time records) when
 * the first group has a time record, and then it is the default.
 *
 * Writer: a group per sample. Timed when the profile has a time value (a unit of seconds,
 * milliseconds, microseconds or nanoseconds; converted to nanoseconds): each row becomes as many
 * groups as its count value ("samples" or a count unit; 1 when there is none, and 1 when the count
 * is 0 but the time is not), its time split over them. Otherwise each row becomes count groups.
 * Frames map back to BR as the reader names them: the module is the function's file (else its
 * resource's path or name, else "(unknown)"), the line is the frame's line (else the function's
 * start line, else a number of the function's own: 1, 2, ... within its module, in order of first
 * use, so that tools that list by line still tell the functions apart), the clause is 1 unless a "B:LINE.CLAUSE" name gives it, and a name that
 * the reader would derive from the module ("B gosub", "B main", "B") becomes that label again;
 * any other name is written as a FUNCTION NAME (cut to 255 bytes). Backtraces are written
 * nearest caller first, the reader's default order.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hashmap.h"
#include "core/input.h"
#include "core/output.h"
#include "formats/formats.h"

enum {
    BR_MODULE = 1,
    BR_LINE = 3,
    BR_TIME = 4,
    BR_BACKTRACE = 5,
    BR_END = 6,
    BR_FUNCTION = 7,
    BR_GOSUB = 8,
    BR_MAIN = 9
};

enum br_label { BR_LABEL_NONE = 0, BR_LABEL_FUNCTION, BR_LABEL_GOSUB, BR_LABEL_MAIN };

/* More groups than this in one written file is almost certainly a value that is not a count. */
#define BR_MAX_WRITTEN_GROUPS 100000000u

static uint16_t br_be16(const uint8_t *d)
{
    return (uint16_t)((unsigned)d[0] << 8 | d[1]);
}

static uint32_t br_be32(const uint8_t *d)
{
    return (uint32_t)d[0] << 24 | (uint32_t)d[1] << 16 | (uint32_t)d[2] << 8 | d[3];
}

static uint64_t br_be64(const uint8_t *d)
{
    return (uint64_t)br_be32(d) << 32 | br_be32(d + 4);
}

static const char *br_record_name(unsigned type)
{
    switch (type) {
    case BR_MODULE: return "module mapping";
    case BR_LINE: return "current line";
    case BR_TIME: return "time in line";
    case BR_BACKTRACE: return "backtrace";
    case BR_END: return "end current line";
    case BR_FUNCTION: return "function name";
    case BR_GOSUB: return "gosub";
    case BR_MAIN: return "main routine";
    default: return NULL;
    }
}

/* Bytes of a record before its variable part (the name of types 1 and 7). */
static size_t br_fixed_size(unsigned type)
{
    switch (type) {
    case BR_MODULE: return 5;
    case BR_LINE:
    case BR_BACKTRACE: return 8;
    case BR_TIME: return 9;
    case BR_FUNCTION: return 2;
    case BR_END:
    case BR_GOSUB:
    case BR_MAIN: return 1;
    default: return 0;
    }
}

static size_t br_name_length(unsigned type, const uint8_t *fixed)
{
    if (type == BR_MODULE)
        return br_be16(fixed + 3);
    if (type == BR_FUNCTION)
        return fixed[1];
    return 0;
}

/* The part of a path after its last '/' or '\' (BR runs on Windows and Unix). */
static void br_base_name(const char *path, size_t len, const char **base, size_t *base_len)
{
    size_t start = len;
    while (start > 0 && path[start - 1] != '/' && path[start - 1] != '\\')
        start--;
    *base = path + start;
    *base_len = len - start;
}

/* ---- probe --------------------------------------------------------------------------------- */

static bool br_printable(const uint8_t *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < 0x20 || s[i] == 0x7f)
            return false;
    return true;
}

/* The records must parse one after the other from the first byte, which must map a module.
 * Damage after a whole group still looks like a (damaged) BR file. */
static int br_probe(const uint8_t *data, size_t size)
{
    if (size < 6 || data[0] != BR_MODULE)
        return PK_PROBE_NO;
    size_t pos = 0;
    bool in_group = false, whole_group = false;
    while (pos < size) {
        int damaged = whole_group ? PK_PROBE_WEAK : PK_PROBE_NO;
        unsigned type = data[pos];
        size_t fixed = br_fixed_size(type);
        if (fixed == 0)
            return damaged;
        if (size - pos < fixed)
            break;
        size_t len = br_name_length(type, data + pos);
        if ((type == BR_MODULE || type == BR_FUNCTION) && len == 0)
            return damaged;
        size_t visible = size - pos - fixed < len ? size - pos - fixed : len;
        if (!br_printable(data + pos + fixed, visible))
            return damaged;
        if (type == BR_LINE) {
            if (in_group)
                return damaged;
            in_group = true;
        } else if (type == BR_END) {
            if (!in_group)
                return damaged;
            in_group = false;
            whole_group = true;
        } else if (type != BR_MODULE && !in_group) {
            return damaged;
        }
        if (visible < len)
            break;
        pos += fixed + len;
    }
    return whole_group ? PK_PROBE_LIKELY : PK_PROBE_WEAK;
}

/* ---- options ------------------------------------------------------------------------------- */

static const pk_option_spec br_read_option_specs[] = {
    {"br-backtrace-order", "innermost-first|outermost-first",
     "order of the backtrace records (default: nearest caller first)"},
    {"br-names", "function|line",
     "frame names: FNCALC, MENU.BR main (default) or MENU.BR:120.2 main"},
    {NULL, NULL, NULL},
};

/* Parses --br-backtrace-order; *outermost_first receives the choice. */
static pk_status br_backtrace_order(const pk_option_list *extra, bool *outermost_first,
                                    pk_error *err)
{
    const char *v = pk_option_get(extra, "br-backtrace-order");
    *outermost_first = false;
    if (!v || strcmp(v, "innermost-first") == 0)
        return PK_OK;
    if (strcmp(v, "outermost-first") == 0) {
        *outermost_first = true;
        return PK_OK;
    }
    return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET,
                        "--br-backtrace-order takes innermost-first or outermost-first, not '%s'",
                        v);
}

/* ---- reader -------------------------------------------------------------------------------- */

/* What a module number means from one mapping on (a later mapping of the same number starts a
 * new entry, so frames already read keep their module). */
typedef struct br_module {
    uint32_t file;     /* string: the file as mapped, 0 for an unmapped number */
    uint32_t base;     /* string: base name, or "module N" */
    uint32_t resource;
    uint32_t gosub_name;
    uint32_t main_name;
} br_module;

typedef struct br_pending_frame {
    uint32_t module; /* index into modules */
    uint32_t line;
    uint32_t name;   /* string: the FUNCTION NAME label */
    uint8_t clause;
    uint8_t label;   /* br_label */
} br_pending_frame;

typedef struct br_reader {
    pk_profile *p;
    const pk_read_options *options;
    pk_error *err;
    bool outermost_first;
    bool line_names;

    br_module *modules;
    size_t module_count, module_capacity;
    uint32_t module_by_number[65536]; /* index into modules + 1, 0 = never seen */
    pk_u64map module_by_file;         /* file string (or 1 << 32 | number when unnamed) -> index */
    pk_u64map function_cache;         /* name << 32 | module index -> function */
    pk_u64map frame_cache;            /* function << 32 | line -> frame */

    br_pending_frame *frames; /* of the open group */
    size_t frame_count, frame_capacity;
    br_pending_frame *previous; /* the last group, root first, and its stacks */
    uint32_t *previous_stacks;
    size_t previous_depth, previous_capacity;
    size_t row;                 /* sample row of the last group, SIZE_MAX before any */
    uint32_t row_stack;
    bool in_group;
    uint64_t group_offset;
    uint64_t group_time;
    bool group_timed;

    uint32_t thread;
    bool values_declared;
    bool timed;
    uint32_t samples_value, time_value;
    uint64_t groups;
    uint64_t stray_time_records; /* time records in a file whose first group had none */
    uint64_t relabelled_frames;
    uint64_t unmapped_uses;
    uint64_t clamped_times;
} br_reader;

static pk_status br_nomem(br_reader *r)
{
    return pk_error_set(r->err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
}

/* Maps a module number to a file; modules are shared by file, so that mapping numbers again and
 * again does not grow memory. */
static uint32_t br_add_module(br_reader *r, unsigned number, const char *file, size_t file_len)
{
    pk_profile *p = r->p;
    uint32_t file_id = file_len ? pk_intern(p, file, file_len) : 0;
    if (file_id == PK_NONE)
        return PK_NONE;
    uint64_t key = file_id ? file_id : (uint64_t)1 << 32 | number;
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&r->module_by_file, key, (uint32_t)r->module_count, &slot, &inserted))
        return PK_NONE;
    if (!inserted) {
        r->module_by_number[number] = *slot + 1;
        return *slot;
    }
    if (r->module_count == r->module_capacity) {
        size_t cap = r->module_capacity ? r->module_capacity * 2 : 16;
        br_module *m = realloc(r->modules, cap * sizeof *m);
        if (!m)
            return PK_NONE;
        r->modules = m;
        r->module_capacity = cap;
    }
    br_module *m = &r->modules[r->module_count];
    const char *base;
    size_t base_len;
    br_base_name(file, file_len, &base, &base_len);
    m->file = file_id;
    m->base = base_len ? pk_intern(p, base, base_len) : pk_intern_printf(p, "module %u", number);
    if (m->base == PK_NONE)
        return PK_NONE;
    pk_resource res = {.name = m->base, .path = m->file};
    m->resource = pk_intern_resource(p, &res);
    m->gosub_name = pk_intern_printf(p, "%s gosub", pk_str(p, m->base));
    m->main_name = pk_intern_printf(p, "%s main", pk_str(p, m->base));
    if (m->resource == PK_NONE || m->gosub_name == PK_NONE || m->main_name == PK_NONE)
        return PK_NONE;
    r->module_by_number[number] = (uint32_t)++r->module_count;
    return (uint32_t)(r->module_count - 1);
}

static uint32_t br_module_of(br_reader *r, unsigned number)
{
    if (r->module_by_number[number])
        return r->module_by_number[number] - 1;
    r->unmapped_uses++;
    return br_add_module(r, number, "", 0);
}

static pk_status br_declare_values(br_reader *r, bool timed)
{
    r->values_declared = true;
    r->timed = timed;
    r->samples_value = pk_add_value_type(r->p, "samples", "count");
    if (r->samples_value == PK_NONE)
        return br_nomem(r);
    if (timed) {
        r->time_value = pk_add_value_type(r->p, "time", "nanoseconds");
        if (r->time_value == PK_NONE)
            return br_nomem(r);
        pk_set_default_value(r->p, r->time_value);
    }
    if (pk_property_set(r->p, "br.mode", timed ? "timed" : "sampled") != PK_OK)
        return br_nomem(r);
    return PK_OK;
}

static uint32_t br_function_name(br_reader *r, const br_pending_frame *f)
{
    const br_module *m = &r->modules[f->module];
    pk_profile *p = r->p;
    if (r->line_names) {
        const char *base = pk_str(p, m->base);
        switch (f->label) {
        case BR_LABEL_FUNCTION:
            return pk_intern_printf(p, "%s:%" PRIu32 ".%u %s", base, f->line, f->clause,
                                    pk_str(p, f->name));
        case BR_LABEL_GOSUB:
            return pk_intern_printf(p, "%s:%" PRIu32 ".%u gosub", base, f->line, f->clause);
        case BR_LABEL_MAIN:
            return pk_intern_printf(p, "%s:%" PRIu32 ".%u main", base, f->line, f->clause);
        default:
            return pk_intern_printf(p, "%s:%" PRIu32 ".%u", base, f->line, f->clause);
        }
    }
    switch (f->label) {
    case BR_LABEL_FUNCTION: return f->name;
    case BR_LABEL_GOSUB: return m->gosub_name;
    case BR_LABEL_MAIN: return m->main_name;
    default: return m->base;
    }
}

/* A function is its name in its module, a frame the function at a line: both are cached by
 * those numbers, which is much cheaper than interning their fields again for every record. */
static uint32_t br_intern_frame(br_reader *r, const br_pending_frame *f)
{
    const br_module *m = &r->modules[f->module];
    uint32_t name = br_function_name(r, f);
    if (name == PK_NONE)
        return PK_NONE;
    uint64_t function_key = (uint64_t)name << 32 | f->module;
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&r->function_cache, function_key, PK_NONE, &slot, &inserted))
        return PK_NONE;
    if (inserted) {
        pk_function fn = {.name = name, .file = m->file, .start_line = 0, .resource = m->resource};
        *slot = pk_intern_function(r->p, &fn);
    }
    uint32_t function = *slot;
    if (function == PK_NONE) {
        pk_u64map_remove(&r->function_cache, function_key, NULL);
        return PK_NONE;
    }
    uint64_t frame_key = (uint64_t)function << 32 | f->line;
    if (!pk_u64map_put(&r->frame_cache, frame_key, PK_NONE, &slot, &inserted))
        return PK_NONE;
    if (inserted) {
        pk_frame fr = {.function = function, .line = f->line, .resource = m->resource};
        *slot = pk_intern_frame(r->p, &fr);
    }
    uint32_t frame = *slot;
    if (frame == PK_NONE)
        pk_u64map_remove(&r->frame_cache, frame_key, NULL);
    return frame;
}

/* Turns the closed group into one sample. */
static pk_status br_finish_group(br_reader *r)
{
    if (!r->values_declared) {
        pk_status st = br_declare_values(r, r->group_timed);
        if (st != PK_OK)
            return st;
    } else if (r->group_timed && !r->timed) {
        r->stray_time_records++;
    }
    /* frames[0] is the current line (the leaf); frames[1..] the backtrace. Neighbouring samples
     * mostly share their callers: the previous group's stacks serve its common root part. */
    uint32_t stack = PK_NONE;
    size_t n = r->frame_count;
    if (n > r->previous_capacity) {
        br_pending_frame *frames = realloc(r->previous, n * sizeof *frames);
        if (frames)
            r->previous = frames;
        uint32_t *stacks = realloc(r->previous_stacks, n * sizeof *stacks);
        if (stacks)
            r->previous_stacks = stacks;
        if (!frames || !stacks)
            return br_nomem(r);
        r->previous_capacity = n;
    }
    bool same = true;
    for (size_t k = 0; k < n; k++) {
        /* k-th frame from the root */
        size_t i;
        if (k == n - 1)
            i = 0;
        else if (r->outermost_first)
            i = 1 + k;
        else
            i = n - 1 - k;
        const br_pending_frame *f = &r->frames[i], *before = &r->previous[k];
        if (same && k < r->previous_depth && f->module == before->module &&
            f->line == before->line && f->clause == before->clause &&
            f->label == before->label && f->name == before->name) {
            stack = r->previous_stacks[k];
            continue;
        }
        same = false;
        uint32_t frame = br_intern_frame(r, f);
        stack = frame == PK_NONE ? PK_NONE : pk_intern_stack(r->p, stack, frame);
        if (stack == PK_NONE) {
            r->previous_depth = 0;
            return br_nomem(r);
        }
        r->previous[k] = *f;
        r->previous_stacks[k] = stack;
    }
    r->previous_depth = n;
    if (r->row == SIZE_MAX || stack != r->row_stack) {
        r->row = pk_sample_row(r->p, r->thread, stack);
        r->row_stack = stack;
        if (r->row == SIZE_MAX)
            return br_nomem(r);
    }
    pk_sample_row_add(r->p, r->row, r->samples_value, 1);
    if (r->timed) {
        if (r->group_time > INT64_MAX) {
            r->clamped_times++;
            r->group_time = INT64_MAX;
        }
        pk_sample_row_add(r->p, r->row, r->time_value, (int64_t)r->group_time);
    }
    r->groups++;
    r->in_group = false;
    return PK_OK;
}

static pk_status br_push_frame(br_reader *r, const uint8_t *rec)
{
    if (r->frame_count == r->frame_capacity) {
        size_t cap = r->frame_capacity ? r->frame_capacity * 2 : 32;
        br_pending_frame *f = realloc(r->frames, cap * sizeof *f);
        if (!f)
            return br_nomem(r);
        r->frames = f;
        r->frame_capacity = cap;
    }
    uint32_t module = br_module_of(r, br_be16(rec + 1));
    if (module == PK_NONE)
        return br_nomem(r);
    r->frames[r->frame_count++] = (br_pending_frame){
        .module = module,
        .line = br_be32(rec + 3),
        .clause = rec[7],
        .label = BR_LABEL_NONE,
    };
    return PK_OK;
}

static pk_status br_label_frame(br_reader *r, uint8_t label, uint32_t name)
{
    br_pending_frame *f = &r->frames[r->frame_count - 1];
    if (f->label != BR_LABEL_NONE)
        r->relabelled_frames++;
    f->label = label;
    f->name = name;
    return PK_OK;
}

static void br_report_oddities(br_reader *r)
{
    if (r->unmapped_uses)
        pk_warn(r->p, "%" PRIu64 " frames use a module number that was never mapped", r->unmapped_uses);
    if (r->stray_time_records)
        pk_warn(r->p,
                "%" PRIu64 " groups have time records although the first group had none; "
                "their time is ignored",
                r->stray_time_records);
    if (r->relabelled_frames)
        pk_warn(r->p, "%" PRIu64 " frames have more than one label; the last one is kept",
                r->relabelled_frames);
    if (r->clamped_times)
        pk_warn(r->p, "%" PRIu64 " group times exceed the largest representable time",
                r->clamped_times);
}

/* A damaged file: an error, or with salvage a warning and the complete groups read so far. */
static pk_status br_damage(br_reader *r, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static pk_status br_damage(br_reader *r, uint64_t offset, const char *fmt, ...)
{
    char message[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    if (!r->options || !r->options->salvage)
        return pk_error_set(r->err, PK_ERR_INPUT, (int64_t)offset, "%s", message);
    pk_warn(r->p, "damaged at byte %" PRIu64 ": %s; kept the %" PRIu64 " complete groups before it",
            offset, message, r->groups);
    return PK_OK;
}

static pk_status br_read_records(br_reader *r, pk_input *in)
{
    for (;;) {
        uint64_t offset = pk_in_offset(in);
        const uint8_t *rec;
        if (pk_in_peek(in, 1, &rec) == 0)
            break;
        unsigned type = rec[0];
        size_t size = br_fixed_size(type);
        if (size == 0)
            return br_damage(r, offset, "unknown record type %u", type);
        if (pk_in_peek(in, size, &rec) < size)
            goto truncated;
        size += br_name_length(type, rec);
        if (pk_in_peek(in, size, &rec) < size)
            goto truncated;

        if (type != BR_MODULE && type != BR_LINE && !r->in_group)
            return br_damage(r, offset, "%s record outside a current line group",
                             br_record_name(type));
        pk_status st = PK_OK;
        switch (type) {
        case BR_MODULE:
            if (br_add_module(r, br_be16(rec + 1), (const char *)rec + 5, size - 5) == PK_NONE)
                st = br_nomem(r);
            break;
        case BR_LINE:
            if (r->in_group)
                return br_damage(r, r->group_offset,
                                 "the current line group starting here has no end before "
                                 "the next one at byte %" PRIu64,
                                 offset);
            r->in_group = true;
            r->group_offset = offset;
            r->group_time = 0;
            r->group_timed = false;
            r->frame_count = 0;
            st = br_push_frame(r, rec);
            break;
        case BR_BACKTRACE:
            st = br_push_frame(r, rec);
            break;
        case BR_TIME: {
            uint64_t t = br_be64(rec + 1);
            r->group_time = t > UINT64_MAX - r->group_time ? UINT64_MAX : r->group_time + t;
            r->group_timed = true;
            break;
        }
        case BR_FUNCTION: {
            uint32_t name = pk_intern(r->p, (const char *)rec + 2, size - 2);
            if (name == PK_NONE)
                st = br_nomem(r);
            else
                st = br_label_frame(r, name ? BR_LABEL_FUNCTION : BR_LABEL_NONE, name);
            break;
        }
        case BR_GOSUB:
            st = br_label_frame(r, BR_LABEL_GOSUB, 0);
            break;
        case BR_MAIN:
            st = br_label_frame(r, BR_LABEL_MAIN, 0);
            break;
        case BR_END:
            st = br_finish_group(r);
            break;
        }
        if (st != PK_OK)
            return st;
        pk_in_skip_buffered(in, size);
        continue;

    truncated:
        if (pk_in_error(in))
            return pk_in_fail(in, r->err);
        return br_damage(r, offset, "the %s record runs past the end of the input",
                         br_record_name(type));
    }
    if (pk_in_error(in))
        return pk_in_fail(in, r->err);
    if (r->in_group)
        return br_damage(r, r->group_offset,
                         "the current line group starting here never ends (no end current "
                         "line record)");
    return PK_OK;
}

static pk_status br_read(pk_input *in, pk_profile *p, const pk_read_options *options,
                         pk_error *err)
{
    br_reader *r = calloc(1, sizeof *r);
    if (!r)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    r->p = p;
    r->options = options;
    r->err = err;
    r->row = SIZE_MAX;
    pk_u64map_init(&r->module_by_file);
    pk_u64map_init(&r->function_cache);
    pk_u64map_init(&r->frame_cache);
    pk_status st = br_backtrace_order(options ? &options->extra : NULL, &r->outermost_first, err);
    const char *names = options ? pk_option_get(&options->extra, "br-names") : NULL;
    if (st == PK_OK && names) {
        if (strcmp(names, "line") == 0)
            r->line_names = true;
        else if (strcmp(names, "function") != 0)
            st = pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET,
                              "--br-names takes function or line, not '%s'", names);
    }
    if (st == PK_OK) {
        uint32_t name = pk_intern_cstr(p, "main");
        r->thread = name == PK_NONE ? PK_NONE : pk_add_thread(p, name, -1, -1);
        if (r->thread == PK_NONE)
            st = br_nomem(r);
    }
    if (st == PK_OK)
        st = br_read_records(r, in);
    if (st == PK_OK && !r->values_declared)
        st = br_declare_values(r, false);
    if (st == PK_OK)
        br_report_oddities(r);
    free(r->frames);
    free(r->previous);
    free(r->previous_stacks);
    free(r->modules);
    pk_u64map_free(&r->module_by_file);
    pk_u64map_free(&r->function_cache);
    pk_u64map_free(&r->frame_cache);
    free(r);
    return st;
}

/* ---- dump ---------------------------------------------------------------------------------- */

static void br_dump_text(pk_output *out, const uint8_t *s, size_t n)
{
    pk_out_putc(out, '"');
    for (size_t i = 0; i < n; i++) {
        uint8_t c = s[i];
        if (c == '"' || c == '\\')
            pk_out_printf(out, "\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            pk_out_printf(out, "\\x%02x", c);
        else
            pk_out_putc(out, (char)c);
    }
    pk_out_putc(out, '"');
}

typedef struct br_dump_state {
    pk_u64map by_number; /* module number -> index into names */
    char **names;        /* files as mapped, NUL-terminated copies */
    size_t count, capacity;
    uint64_t groups;
} br_dump_state;

static bool br_dump_map(br_dump_state *d, unsigned module, const uint8_t *name, size_t len)
{
    char *copy = malloc(len + 1);
    if (!copy)
        return false;
    memcpy(copy, name, len);
    copy[len] = '\0';
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&d->by_number, module, (uint32_t)d->count, &slot, &inserted)) {
        free(copy);
        return false;
    }
    if (!inserted) {
        free(d->names[*slot]);
        d->names[*slot] = copy;
        return true;
    }
    if (d->count == d->capacity) {
        size_t cap = d->capacity ? d->capacity * 2 : 16;
        char **names = realloc(d->names, cap * sizeof *names);
        if (!names) {
            pk_u64map_remove(&d->by_number, module, NULL);
            free(copy);
            return false;
        }
        d->names = names;
        d->capacity = cap;
    }
    d->names[d->count++] = copy;
    return true;
}

static void br_dump_location(pk_output *out, br_dump_state *d, const uint8_t *rec)
{
    unsigned module = br_be16(rec + 1);
    uint32_t *slot = pk_u64map_find(&d->by_number, module);
    if (slot)
        br_dump_text(out, (const uint8_t *)d->names[*slot], strlen(d->names[*slot]));
    else
        pk_out_printf(out, "module %u (unmapped)", module);
    pk_out_printf(out, " line %" PRIu32 " clause %u", br_be32(rec + 3), rec[7]);
}

static pk_status br_dump(pk_input *in, pk_output *out, bool raw, const pk_read_options *options,
                         pk_error *err)
{
    (void)options;
    br_dump_state state = {0}, *d = &state;
    pk_u64map_init(&d->by_number);
    pk_status st = PK_OK;
    pk_out_puts(out, raw ? "offset  type fields\n" : "offset  record\n");
    for (;;) {
        uint64_t offset = pk_in_offset(in);
        const uint8_t *rec;
        if (pk_in_peek(in, 1, &rec) == 0)
            break;
        unsigned type = rec[0];
        size_t size = br_fixed_size(type);
        if (size == 0) {
            st = pk_error_set(err, PK_ERR_INPUT, (int64_t)offset, "unknown record type %u", type);
            break;
        }
        bool complete = pk_in_peek(in, size, &rec) == size;
        if (complete) {
            size += br_name_length(type, rec);
            complete = pk_in_peek(in, size, &rec) == size;
        }
        if (!complete) {
            st = pk_error_set(err, PK_ERR_INPUT, (int64_t)offset,
                              "the %s record runs past the end of the input",
                              br_record_name(type));
            break;
        }
        pk_out_printf(out, "%6" PRIu64 "  ", offset);
        if (raw) {
            pk_out_printf(out, "%u", type);
            switch (type) {
            case BR_MODULE:
                pk_out_printf(out, " module=%u name_length=%u name=", br_be16(rec + 1),
                              br_be16(rec + 3));
                br_dump_text(out, rec + 5, size - 5);
                break;
            case BR_LINE:
            case BR_BACKTRACE:
                pk_out_printf(out, " module=%u line=%" PRIu32 " clause=%u", br_be16(rec + 1),
                              br_be32(rec + 3), rec[7]);
                break;
            case BR_TIME:
                pk_out_printf(out, " nanoseconds=%" PRIu64, br_be64(rec + 1));
                break;
            case BR_FUNCTION:
                pk_out_printf(out, " name_length=%u name=", rec[1]);
                br_dump_text(out, rec + 2, size - 2);
                break;
            default:
                break;
            }
        } else {
            pk_out_puts(out, br_record_name(type));
            switch (type) {
            case BR_MODULE: {
                unsigned module = br_be16(rec + 1);
                pk_out_printf(out, " %u = ", module);
                br_dump_text(out, rec + 5, size - 5);
                if (!br_dump_map(d, module, rec + 5, size - 5))
                    st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
                break;
            }
            case BR_LINE:
            case BR_BACKTRACE:
                pk_out_putc(out, ' ');
                br_dump_location(out, d, rec);
                break;
            case BR_TIME:
                pk_out_printf(out, " %" PRIu64 " ns", br_be64(rec + 1));
                break;
            case BR_FUNCTION:
                pk_out_putc(out, ' ');
                br_dump_text(out, rec + 2, size - 2);
                break;
            case BR_END:
                pk_out_printf(out, " (sample %" PRIu64 ")", ++d->groups);
                break;
            default:
                break;
            }
        }
        pk_out_putc(out, '\n');
        pk_in_skip_buffered(in, size);
        if (st != PK_OK || pk_out_failed(out))
            break;
    }
    if (st == PK_OK && pk_in_error(in))
        st = pk_in_fail(in, err);
    for (size_t i = 0; i < d->count; i++)
        free(d->names[i]);
    free(d->names);
    pk_u64map_free(&d->by_number);
    return st;
}

/* ---- writer -------------------------------------------------------------------------------- */

typedef struct br_bytes {
    uint8_t *data;
    size_t len, cap;
    bool failed;
} br_bytes;

static void br_put(br_bytes *b, const void *data, size_t n)
{
    if (b->failed)
        return;
    if (b->cap - b->len < n) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap - b->len < n)
            cap *= 2;
        uint8_t *d = realloc(b->data, cap);
        if (!d) {
            b->failed = true;
            return;
        }
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, data, n);
    b->len += n;
}

static void br_put_u8(br_bytes *b, unsigned v)
{
    uint8_t c = (uint8_t)v;
    br_put(b, &c, 1);
}

static void br_put_be16(br_bytes *b, unsigned v)
{
    uint8_t d[2] = {(uint8_t)(v >> 8), (uint8_t)v};
    br_put(b, d, 2);
}

static void br_put_be32(br_bytes *b, uint32_t v)
{
    uint8_t d[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    br_put(b, d, 4);
}

/* How a model frame is written. */
typedef struct br_out_frame {
    uint16_t module;
    uint8_t clause;
    uint8_t label;     /* br_label */
    uint32_t line;
    const char *name;  /* FUNCTION NAME text */
    uint8_t name_len;
    bool done;
} br_out_frame;

typedef struct br_writer {
    const pk_profile *p;
    pk_output *out;
    pk_error *err;
    pk_u64map modules;       /* module key -> number */
    br_out_frame *frames;    /* by model frame index; one more for the "no stack" frame */
    br_out_frame *thread_frames;
    uint32_t *function_lines; /* made-up line per function without one, 0 = none yet */
    pk_u64map last_line;      /* module number -> last made-up line in it */
    uint32_t next_module;
    br_bytes head, tail;
    uint32_t *stack_frames;
    size_t stack_capacity;
} br_writer;

/* The longest prefix of s, at most max bytes, that does not end inside a UTF-8 sequence. */
static size_t br_utf8_cut(const char *s, size_t len, size_t max)
{
    if (len <= max)
        return len;
    size_t n = max;
    while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
        n--;
    return n;
}

/* Module keys that are not string indexes of the profile. */
#define BR_KEY_UNKNOWN ((uint64_t)1 << 32)
#define BR_KEY_THREADS ((uint64_t)2 << 32)

/* The module number for a module file, writing its mapping on first use. key is the string
 * index of the file, or BR_KEY_UNKNOWN ("(unknown)") or BR_KEY_THREADS ("(threads)"). */
static const char *br_module_file(const br_writer *w, uint64_t key)
{
    if (key == BR_KEY_UNKNOWN)
        return "(unknown)";
    if (key == BR_KEY_THREADS)
        return "(threads)";
    return pk_str(w->p, (uint32_t)key);
}

static pk_status br_writer_module(br_writer *w, uint64_t key, uint16_t *number)
{
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&w->modules, key, w->next_module, &slot, &inserted))
        return pk_error_set(w->err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    if (inserted) {
        if (w->next_module > 65535)
            return pk_error_set(w->err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                                "the profile has more than 65535 source files, more than a BR "
                                "profile can number");
        const char *file = br_module_file(w, key);
        size_t len = br_utf8_cut(file, strlen(file), 65535);
        uint8_t head[5] = {BR_MODULE, (uint8_t)(w->next_module >> 8), (uint8_t)w->next_module,
                           (uint8_t)(len >> 8), (uint8_t)len};
        pk_out_write(w->out, head, sizeof head);
        pk_out_write(w->out, file, len);
        w->next_module++;
    }
    *number = (uint16_t)*slot;
    return PK_OK;
}

/* The file a function's frames are put in: its source file, else its resource. */
static uint64_t br_module_key(const pk_profile *p, const pk_function *fn, const pk_frame *fr)
{
    if (fn && fn->file && pk_str_len(p, fn->file))
        return fn->file;
    uint32_t resources[2] = {fr ? fr->resource : PK_NONE, fn ? fn->resource : PK_NONE};
    for (int i = 0; i < 2; i++) {
        if (resources[i] == PK_NONE || resources[i] >= pk_resource_count(p))
            continue;
        const pk_resource *res = pk_resource_at(p, resources[i]);
        if (res->path && pk_str_len(p, res->path))
            return res->path;
        if (res->name && pk_str_len(p, res->name))
            return res->name;
    }
    return BR_KEY_UNKNOWN;
}

/* Parses the decimal number at *s (advancing it); false when there is none or it overflows. */
static bool br_parse_number(const char **s, uint64_t max, uint64_t *value)
{
    const char *c = *s;
    uint64_t v = 0;
    if (*c < '0' || *c > '9')
        return false;
    while (*c >= '0' && *c <= '9') {
        v = v * 10 + (uint64_t)(*c - '0');
        if (v > max)
            return false;
        c++;
    }
    *s = c;
    *value = v;
    return true;
}

/* Sets the label of f from a function name, undoing the names the reader makes up. */
static void br_label_from_name(br_out_frame *f, const char *name, const char *base,
                               size_t base_len)
{
    size_t len = strlen(name);
    f->label = BR_LABEL_FUNCTION;
    f->name = name;
    f->name_len = (uint8_t)br_utf8_cut(name, len, 255);
    if (len < base_len || memcmp(name, base, base_len) != 0 || base_len == 0)
        return;
    const char *rest = name + base_len;
    if (*rest == ':') {
        /* "B:LINE.CLAUSE[ label]" */
        const char *c = rest + 1;
        uint64_t line, clause;
        if (!br_parse_number(&c, UINT32_MAX, &line) || line != f->line || *c != '.')
            return;
        c++;
        if (!br_parse_number(&c, 255, &clause))
            return;
        if (*c == '\0') {
            f->label = BR_LABEL_NONE;
        } else if (*c == ' ' && c[1] != '\0') {
            c++;
            if (strcmp(c, "gosub") == 0)
                f->label = BR_LABEL_GOSUB;
            else if (strcmp(c, "main") == 0)
                f->label = BR_LABEL_MAIN;
            else {
                f->name = c;
                f->name_len = (uint8_t)br_utf8_cut(c, strlen(c), 255);
            }
        } else {
            return;
        }
        f->clause = (uint8_t)clause;
        return;
    }
    if (*rest == '\0')
        f->label = BR_LABEL_NONE;
    else if (strcmp(rest, " gosub") == 0)
        f->label = BR_LABEL_GOSUB;
    else if (strcmp(rest, " main") == 0)
        f->label = BR_LABEL_MAIN;
}

static pk_status br_prepare_frame(br_writer *w, br_out_frame *f, const pk_function *fn,
                                  const pk_frame *fr, const char *name)
{
    uint64_t key = br_module_key(w->p, fn, fr);
    pk_status st = br_writer_module(w, key, &f->module);
    if (st != PK_OK)
        return st;
    f->line = fr && fr->line ? fr->line : fn ? fn->start_line : 0;
    if (f->line == 0 && fn && fr) {
        /* BR tools list by line: give each function without lines a number of its own. */
        uint32_t *line = &w->function_lines[fr->function];
        if (*line == 0) {
            uint32_t *last;
            bool inserted;
            if (!pk_u64map_put(&w->last_line, f->module, 0, &last, &inserted))
                return pk_error_set(w->err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
            *line = ++*last;
        }
        f->line = *line;
    }
    f->clause = 1;
    const char *file = br_module_file(w, key);
    const char *base;
    size_t base_len;
    br_base_name(file, strlen(file), &base, &base_len);
    char fallback[24];
    if (base_len == 0) {
        snprintf(fallback, sizeof fallback, "module %u", f->module);
        base = fallback;
        base_len = strlen(fallback);
    }
    br_label_from_name(f, name, base, base_len);
    if (f->label == BR_LABEL_FUNCTION && f->name_len == 0)
        f->label = BR_LABEL_NONE;
    f->done = true;
    return PK_OK;
}

static pk_status br_frame_for(br_writer *w, uint32_t frame, const br_out_frame **result)
{
    br_out_frame *f = &w->frames[frame];
    if (!f->done) {
        pk_status st;
        if (frame == pk_frame_count(w->p)) {
            st = br_prepare_frame(w, f, NULL, NULL, "(unknown)");
        } else {
            const pk_frame *fr = pk_frame_at(w->p, frame);
            const pk_function *fn = pk_function_at(w->p, fr->function);
            st = br_prepare_frame(w, f, fn, fr, pk_str(w->p, fn->name));
        }
        if (st != PK_OK)
            return st;
    }
    *result = f;
    return PK_OK;
}

static pk_status br_thread_frame_for(br_writer *w, uint32_t thread, const br_out_frame **result)
{
    br_out_frame *f = &w->thread_frames[thread];
    if (!f->done) {
        uint16_t module;
        pk_status st = br_writer_module(w, BR_KEY_THREADS, &module);
        if (st != PK_OK)
            return st;
        const char *name = pk_str(w->p, pk_thread_at(w->p, thread)->name);
        f->module = module;
        f->line = 0;
        f->clause = 1;
        f->label = BR_LABEL_FUNCTION;
        f->name = name;
        f->name_len = (uint8_t)br_utf8_cut(name, strlen(name), 255);
        if (f->name_len == 0)
            f->label = BR_LABEL_NONE;
        f->done = true;
    }
    *result = f;
    return PK_OK;
}

static void br_put_frame(br_bytes *b, unsigned type, const br_out_frame *f)
{
    br_put_u8(b, type);
    br_put_be16(b, f->module);
    br_put_be32(b, f->line);
    br_put_u8(b, f->clause);
    switch (f->label) {
    case BR_LABEL_FUNCTION:
        br_put_u8(b, BR_FUNCTION);
        br_put_u8(b, f->name_len);
        br_put(b, f->name, f->name_len);
        break;
    case BR_LABEL_GOSUB: br_put_u8(b, BR_GOSUB); break;
    case BR_LABEL_MAIN: br_put_u8(b, BR_MAIN); break;
    default: break;
    }
}

/* Scale of a time unit to nanoseconds, 0 when the unit is not a time. */
static int64_t br_time_scale(const char *unit)
{
    static const struct {
        const char *unit;
        int64_t scale;
    } units[] = {
        {"nanoseconds", 1}, {"ns", 1}, {"nanosecond", 1},
        {"microseconds", 1000}, {"us", 1000}, {"microsecond", 1000},
        {"milliseconds", 1000000}, {"ms", 1000000}, {"millisecond", 1000000},
        {"seconds", 1000000000}, {"s", 1000000000}, {"second", 1000000000},
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(unit, units[i].unit) == 0)
            return units[i].scale;
    return 0;
}

static bool br_is_count(const pk_profile *p, uint32_t v)
{
    const pk_value_type *t = pk_value_type_at(p, v);
    const char *unit = pk_str(p, t->unit);
    return strcmp(pk_str(p, t->name), "samples") == 0 || strcmp(unit, "count") == 0 ||
           strcmp(unit, "samples") == 0 || unit[0] == '\0';
}

/* Picks the time value (PK_NONE for a sampled file) and the count value (PK_NONE: one group
 * per row that has time). The value asked for wins in its role; the other role goes to the
 * first value that fits it. */
static pk_status br_choose_values(const pk_profile *p, const pk_write_options *options,
                                  uint32_t *time_value, int64_t *time_scale, uint32_t *count_value,
                                  pk_error *err)
{
    size_t n = pk_value_type_count(p);
    *time_value = *count_value = PK_NONE;
    *time_scale = 0;
    if (n == 0)
        return PK_OK;
    uint32_t chosen = options && options->value != PK_NONE ? options->value : pk_default_value(p);
    if (chosen >= n)
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET, "no value type %" PRIu32, chosen);
    if (br_time_scale(pk_str(p, pk_value_type_at(p, chosen)->unit)))
        *time_value = chosen;
    else if (br_is_count(p, chosen))
        *count_value = chosen;
    for (uint32_t v = 0; v < n && *time_value == PK_NONE; v++)
        if (v != *count_value && br_time_scale(pk_str(p, pk_value_type_at(p, v)->unit)))
            *time_value = v;
    for (uint32_t v = 0; v < n && *count_value == PK_NONE; v++)
        if (v != *time_value && br_is_count(p, v))
            *count_value = v;
    if (*time_value == PK_NONE && *count_value == PK_NONE)
        *count_value = chosen;
    if (*time_value != PK_NONE)
        *time_scale = br_time_scale(pk_str(p, pk_value_type_at(p, *time_value)->unit));
    return PK_OK;
}

static int64_t br_scale_time(int64_t v, int64_t scale)
{
    if (v > INT64_MAX / scale)
        return INT64_MAX;
    return v * scale;
}

static pk_status br_write(const pk_profile *p, pk_output *out, const pk_write_options *options,
                          pk_error *err)
{
    br_writer w = {.p = p, .out = out, .err = err, .next_module = 1};
    uint32_t time_value, count_value;
    int64_t time_scale;
    pk_status st = br_choose_values(p, options, &time_value, &time_scale, &count_value, err);
    if (st != PK_OK)
        return st;
    bool with_threads = options && options->with_threads;
    size_t rows = pk_sample_count(p);
    if (pk_value_type_count(p) == 0)
        rows = 0;

    /* Groups per row; checked first so that nothing is written for an impossible profile. */
    uint64_t total_groups = 0;
    for (size_t row = 0; row < rows; row++) {
        const int64_t *values = pk_sample_values(p, row);
        int64_t count = count_value != PK_NONE ? values[count_value] : 0;
        int64_t time = time_value != PK_NONE ? values[time_value] : 0;
        if (count < 0 || time < 0)
            return pk_error_set(err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                                "a BR profile cannot hold negative values");
        uint64_t groups = (uint64_t)count;
        if (groups == 0 && time > 0)
            groups = 1;
        total_groups += groups;
        if (total_groups > BR_MAX_WRITTEN_GROUPS)
            return pk_error_set(
                err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                "the value '%s' would need more than %u sample groups; choose a count or time "
                "value",
                pk_str(p, pk_value_type_at(p, count_value != PK_NONE ? count_value : time_value)->name),
                BR_MAX_WRITTEN_GROUPS);
    }

    pk_u64map_init(&w.modules);
    pk_u64map_init(&w.last_line);
    w.frames = calloc(pk_frame_count(p) + 1, sizeof *w.frames);
    w.thread_frames = calloc(pk_thread_count(p) + 1, sizeof *w.thread_frames);
    w.function_lines = calloc(pk_function_count(p) + 1, sizeof *w.function_lines);
    if (!w.frames || !w.thread_frames || !w.function_lines)
        st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");

    for (size_t row = 0; row < rows && st == PK_OK && !pk_out_failed(out); row++) {
        const int64_t *values = pk_sample_values(p, row);
        int64_t count = count_value != PK_NONE ? values[count_value] : 0;
        int64_t time = time_value != PK_NONE ? br_scale_time(values[time_value], time_scale) : 0;
        uint64_t groups = (uint64_t)count;
        if (groups == 0 && time > 0)
            groups = 1;
        if (groups == 0)
            continue;

        uint32_t stack = pk_sample_stack(p, row);
        size_t depth = stack == PK_NONE ? 0 : pk_stack_depth(p, stack);
        if (depth + 2 > w.stack_capacity) {
            size_t cap = depth + 2 > 64 ? depth + 2 : 64;
            uint32_t *s = realloc(w.stack_frames, cap * sizeof *s);
            if (!s) {
                st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
                break;
            }
            w.stack_frames = s;
            w.stack_capacity = cap;
        }
        /* Root first, with the thread root and the "no stack" stand-in when wanted. */
        size_t n = 0;
        const br_out_frame *thread_root = NULL;
        if (with_threads) {
            st = br_thread_frame_for(&w, pk_sample_thread(p, row), &thread_root);
            if (st != PK_OK)
                break;
        }
        if (depth)
            n = pk_stack_frames(p, stack, w.stack_frames, w.stack_capacity);
        else if (!thread_root)
            w.stack_frames[n++] = (uint32_t)pk_frame_count(p);

        /* head = current line (+ label); tail = backtraces + end. */
        w.head.len = w.tail.len = 0;
        size_t total = n + (thread_root ? 1 : 0);
        for (size_t k = 0; k < total && st == PK_OK; k++) {
            /* from the leaf: 0 = the current line, then the callers, nearest first */
            size_t from_leaf = k;
            const br_out_frame *f;
            if (thread_root && from_leaf == total - 1)
                f = thread_root;
            else {
                size_t root_index = (thread_root ? total - 1 : total) - 1 - from_leaf;
                st = br_frame_for(&w, w.stack_frames[root_index], &f);
                if (st != PK_OK)
                    break;
            }
            br_put_frame(k == 0 ? &w.head : &w.tail, k == 0 ? BR_LINE : BR_BACKTRACE, f);
        }
        if (st != PK_OK)
            break;
        br_put_u8(&w.tail, BR_END);
        if (w.head.failed || w.tail.failed) {
            st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
            break;
        }
        int64_t share = time_value != PK_NONE ? time / (int64_t)groups : 0;
        int64_t first = time_value != PK_NONE ? time - share * (int64_t)(groups - 1) : 0;
        for (uint64_t g = 0; g < groups; g++) {
            pk_out_write(out, w.head.data, w.head.len);
            if (time_value != PK_NONE) {
                uint64_t t = (uint64_t)(g == 0 ? first : share);
                uint8_t rec[9] = {BR_TIME};
                for (int i = 0; i < 8; i++)
                    rec[1 + i] = (uint8_t)(t >> (56 - 8 * i));
                pk_out_write(out, rec, sizeof rec);
            }
            pk_out_write(out, w.tail.data, w.tail.len);
            if ((g & 0xffff) == 0xffff && pk_out_failed(out))
                break;
        }
    }
    pk_u64map_free(&w.modules);
    pk_u64map_free(&w.last_line);
    free(w.function_lines);
    free(w.frames);
    free(w.thread_frames);
    free(w.head.data);
    free(w.tail.data);
    free(w.stack_frames);
    return st;
}

const pk_format pk_format_br = {
    .name = "br",
    .aliases = NULL,
    .extensions = NULL,
    .description = "Business Rules! profiler file (DEBUG PROFILE SAMPLED/TIMED)",
    .probe = br_probe,
    .read = br_read,
    .write = br_write,
    .dump = br_dump,
    .read_options = br_read_option_specs,
    .write_options = NULL,
};
