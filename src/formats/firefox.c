/* Firefox Profiler "processed profile" JSON, version 55: the layout the front end keeps in
 * memory, with every table stored per thread as a struct of arrays and a string array per
 * thread. Version 55 is the newest one with per-thread tables; every front end since
 * 2025-02-28 upgrades it to its own version.
 *
 * What the model gives and how it maps:
 *   - one thread per model thread; each gets its own stack, frame, function, resource and
 *     native-symbol tables holding only what its samples and memory events reach. Model stacks
 *     are numbered parents first, so keeping model order keeps every prefix before its stack.
 *   - sample rows (one per thread and stack) become one weighted sample each; rows whose chosen
 *     value is zero are left out. The weight type follows the value's unit: times become
 *     "tracing-ms" in milliseconds, bytes stay "bytes", anything else counts as "samples".
 *   - memory events become nativeAllocations (+size for an allocation, -size for a free of a
 *     known allocation), with the addresses that the retained-memory view needs. A free goes
 *     to the table of the thread that made the allocation, so that view pairs them.
 *   - the model has no per-sample times, only stream order: rows (at their first contribution)
 *     and memory events are spread evenly in that order over [start, end] of the metadata, or
 *     1 ms apart when the run's length is unknown. meta.extra says so when the metadata marks
 *     times as placed.
 *   - categories name the kind of code: frames with an address are native code; otherwise the
 *     language is the one of the format the profile was read from when that format implies one,
 *     else it follows from the source file's extension. Frames with an address inside a
 *     resource that has a path are attributed to that library (libs, resourceTable,
 *     nativeSymbols).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hashmap.h"
#include "core/output.h"
#include "profkit/format.h"

#define FX_PROCESSED_VERSION 55
#define FX_GECKO_VERSION 24

/* ---- categories ----------------------------------------------------------------------------- */

typedef struct fx_category {
    const char *name;
    const char *color;               /* one of the front end's colour names */
    const char *const *formats;      /* registry names of formats whose code is in this language */
    const char *const *extensions;   /* source file extensions, lowercase, with the dot */
} fx_category;

static const char *const fx_brightscript_formats[] = {"bsprof", NULL};
static const char *const fx_brightscript_ext[] = {".brs", ".bs", NULL};
static const char *const fx_native_ext[] = {".c", ".cc", ".cpp", ".cxx", ".c++", ".h", ".hh",
                                            ".hpp", ".hxx", ".rs", ".m", ".mm", ".s", ".asm",
                                            ".zig", ".swift", ".d", ".f90", NULL};
static const char *const fx_javascript_ext[] = {".js", ".mjs", ".cjs", ".ts", ".jsx", ".tsx",
                                                NULL};
static const char *const fx_python_ext[] = {".py", ".pyx", NULL};
static const char *const fx_java_ext[] = {".java", ".kt", ".scala", ".clj", NULL};
static const char *const fx_go_ext[] = {".go", NULL};
static const char *const fx_br_formats[] = {"br", NULL};
static const char *const fx_br_ext[] = {".br", NULL};

enum { FX_CAT_OTHER = 0, FX_CAT_NATIVE = 1, FX_CAT_COUNT = 8 };

/* The first grey category is the front end's default one, so "Other" must stay first. */
static const fx_category fx_categories[FX_CAT_COUNT] = {
    {"Other", "grey", NULL, NULL},
    {"Native", "blue", NULL, fx_native_ext},
    {"BrightScript", "purple", fx_brightscript_formats, fx_brightscript_ext},
    {"Business Rules", "magenta", fx_br_formats, fx_br_ext},
    {"JavaScript", "yellow", NULL, fx_javascript_ext},
    {"Python", "green", NULL, fx_python_ext},
    {"Java", "orange", NULL, fx_java_ext},
    {"Go", "lightblue", NULL, fx_go_ext},
};

static bool fx_name_in(const char *name, const char *const *list)
{
    for (; list && *list; list++)
        if (strcmp(name, *list) == 0)
            return true;
    return false;
}

/* Category of source file path by its extension, FX_CAT_OTHER when unknown. */
static unsigned fx_category_of_file(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    if (!dot || strlen(dot) > 8)
        return FX_CAT_OTHER;
    char ext[9];
    size_t n = 0;
    for (; dot[n]; n++)
        ext[n] = (char)tolower((unsigned char)dot[n]);
    ext[n] = '\0';
    for (unsigned c = 1; c < FX_CAT_COUNT; c++)
        if (fx_name_in(ext, fx_categories[c].extensions))
            return c;
    return FX_CAT_OTHER;
}

static unsigned fx_category_of_format(const char *format)
{
    for (unsigned c = 1; c < FX_CAT_COUNT; c++)
        if (fx_name_in(format, fx_categories[c].formats))
            return c;
    return FX_CAT_OTHER;
}

/* ---- per-thread index maps ------------------------------------------------------------------- */

/* Maps model indexes to a thread's own dense indexes. Entries are valid only when their stamp
 * is the current thread's, so moving to the next thread costs nothing. */
typedef struct fx_remap {
    uint32_t *local; /* model index -> local index */
    uint32_t *stamp; /* model index -> generation that set local */
    uint32_t *items; /* local index -> model index */
    size_t count;
} fx_remap;

static bool fx_remap_init(fx_remap *m, size_t model_count)
{
    size_t n = model_count ? model_count : 1;
    m->local = malloc(n * sizeof *m->local);
    m->stamp = calloc(n, sizeof *m->stamp);
    m->items = malloc(n * sizeof *m->items);
    m->count = 0;
    return m->local && m->stamp && m->items;
}

static void fx_remap_free(fx_remap *m)
{
    free(m->local);
    free(m->stamp);
    free(m->items);
}

static uint32_t fx_remap_get(const fx_remap *m, uint32_t model, uint32_t gen)
{
    return m->stamp[model] == gen ? m->local[model] : PK_NONE;
}

/* Local index of model, appending it when new. The items array holds every model index, so
 * it never overflows. */
static uint32_t fx_remap_add(fx_remap *m, uint32_t model, uint32_t gen, bool *added)
{
    if (m->stamp[model] == gen) {
        if (added)
            *added = false;
        return m->local[model];
    }
    m->stamp[model] = gen;
    m->local[model] = (uint32_t)m->count;
    m->items[m->count] = model;
    if (added)
        *added = true;
    return (uint32_t)m->count++;
}

/* ---- the writer's state ---------------------------------------------------------------------- */

enum fx_weight_kind { FX_WEIGHT_SAMPLES, FX_WEIGHT_MS, FX_WEIGHT_BYTES };

typedef struct fx_writer {
    const pk_profile *p;
    pk_output *out;

    uint32_t value;        /* value type written as sample weight, PK_NONE when there is none */
    enum fx_weight_kind weight_kind;
    int64_t weight_unit_ns; /* FX_WEIGHT_MS: nanoseconds in one unit of the value */
    double time_step_ns;    /* distance between two stream positions */

    /* whole profile */
    uint8_t *frame_category;      /* model frame -> fx_categories index */
    uint8_t category_used[FX_CAT_COUNT];
    uint32_t category_out[FX_CAT_COUNT]; /* fx_categories index -> index in meta.categories */
    uint32_t *resource_lib;       /* model resource -> index in libs, PK_NONE when not a library */
    uint32_t lib_count;
    uint32_t *thread_rows;        /* sample rows grouped by thread */
    size_t *thread_rows_start;    /* thread -> first entry in thread_rows; thread_count + 1 */
    uint32_t *event_owner;        /* memory event -> thread whose table holds it */
    uint32_t *thread_events;      /* memory events grouped by owner thread */
    size_t *thread_events_start;

    /* current thread */
    uint32_t gen;
    fx_remap stacks, frames, funcs, resources, symbols, strings;
    uint32_t *frame_inline_depth; /* local frame -> inline depth */
    uint32_t *func_resource;      /* local func -> model resource or PK_NONE */
    uint64_t *symbol_address;     /* local native symbol -> lowest library-relative address */
    uint32_t *symbol_lib;         /* local native symbol -> lib index */
    uint32_t *row_order;          /* the thread's rows, by stream order */
    size_t allocation_count;      /* the thread's memory events with a known size */
} fx_writer;

static bool fx_is_native(const pk_profile *p, const pk_frame *f, uint32_t *resource_out)
{
    if (!(f->flags & PK_FRAME_HAS_ADDRESS))
        return false;
    uint32_t r = f->resource;
    if (r == PK_NONE)
        r = pk_function_at(p, f->function)->resource;
    if (r == PK_NONE || pk_resource_at(p, r)->path == 0)
        return false;
    if (resource_out)
        *resource_out = r;
    return true;
}

/* Library-relative address of a native frame, or -1 when it lies outside its library. */
static int64_t fx_relative_address(const pk_profile *p, const pk_frame *f, uint32_t resource)
{
    const pk_resource *r = pk_resource_at(p, resource);
    if (f->address < r->start || f->address >= r->limit)
        return -1;
    uint64_t rel = f->address - r->start + r->offset;
    return rel > (uint64_t)INT64_MAX ? -1 : (int64_t)rel;
}

/* ---- JSON helpers ---------------------------------------------------------------------------- */

static void fx_key(pk_output *out, const char *key)
{
    pk_out_putc(out, ',');
    pk_out_json_string(out, key);
    pk_out_putc(out, ':');
}

/* Local string index of model string s in the current thread. */
static uint32_t fx_string(fx_writer *w, uint32_t s)
{
    return fx_remap_add(&w->strings, s, w->gen, NULL);
}

static void fx_u32_or_null(pk_output *out, uint32_t v)
{
    if (v == PK_NONE)
        pk_out_puts(out, "null");
    else
        pk_out_u64(out, v);
}

/* Writes `,"key":[v0,v1,...]` with the same text for every entry. */
static void fx_repeat_column(pk_output *out, const char *key, const char *text, size_t n)
{
    fx_key(out, key);
    pk_out_putc(out, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            pk_out_putc(out, ',');
        pk_out_puts(out, text);
    }
    pk_out_putc(out, ']');
}

/* ---- set-up ---------------------------------------------------------------------------------- */

/* Nanoseconds in one unit of time, 0 when unit is not a time unit. */
static int64_t fx_unit_ns(const char *unit)
{
    static const struct {
        const char *name;
        int64_t ns;
    } units[] = {
        {"nanoseconds", 1}, {"nanosecond", 1}, {"ns", 1},
        {"microseconds", 1000}, {"microsecond", 1000}, {"us", 1000}, {"\xc2\xb5s", 1000},
        {"milliseconds", 1000000}, {"millisecond", 1000000}, {"ms", 1000000},
        {"seconds", 1000000000}, {"second", 1000000000}, {"s", 1000000000},
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(unit, units[i].name) == 0)
            return units[i].ns;
    return 0;
}

/* Nanoseconds as exact decimal milliseconds: far cheaper than a shortest round-trip double,
 * which matters for millions of times. */
static void fx_out_ms(pk_output *out, int64_t ns)
{
    uint64_t magnitude = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    if (ns < 0)
        pk_out_putc(out, '-');
    pk_out_u64(out, magnitude / 1000000);
    uint32_t fraction = (uint32_t)(magnitude % 1000000);
    if (fraction == 0)
        return;
    char digits[8];
    int n = 6;
    while (fraction % 10 == 0) {
        fraction /= 10;
        n--;
    }
    digits[0] = '.';
    for (int i = n; i > 0; i--) {
        digits[i] = (char)('0' + fraction % 10);
        fraction /= 10;
    }
    pk_out_write(out, digits, (size_t)n + 1);
}

static pk_status fx_choose_value(fx_writer *w, const pk_write_options *options, pk_error *err)
{
    const pk_profile *p = w->p;
    size_t count = pk_value_type_count(p);
    w->weight_kind = FX_WEIGHT_SAMPLES;
    w->weight_unit_ns = 0;
    if (count == 0) {
        w->value = PK_NONE;
        return PK_OK;
    }
    uint32_t v = options && options->value != PK_NONE ? options->value : pk_default_value(p);
    if (v >= count)
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET, "value %u does not exist (%zu values)",
                            (unsigned)v, count);
    w->value = v;
    const char *unit = pk_str(p, pk_value_type_at(p, v)->unit);
    int64_t unit_ns = fx_unit_ns(unit);
    if (unit_ns > 0) {
        w->weight_kind = FX_WEIGHT_MS;
        w->weight_unit_ns = unit_ns;
    } else if (strcmp(unit, "bytes") == 0) {
        w->weight_kind = FX_WEIGHT_BYTES;
    }
    return PK_OK;
}

static void fx_place_times(fx_writer *w)
{
    const pk_metadata *md = pk_metadata_get(w->p);
    uint64_t positions = pk_event_order_count(w->p);
    w->time_step_ns = 1e6;
    if (md->start_time != PK_TIME_UNKNOWN && md->end_time != PK_TIME_UNKNOWN &&
        md->end_time > md->start_time && positions > 0)
        w->time_step_ns = (double)(md->end_time - md->start_time) / (double)positions;
}

/* Time of a stream position in nanoseconds after the start. */
static int64_t fx_time_of(const fx_writer *w, uint64_t order)
{
    double ns = (double)order * w->time_step_ns;
    return ns < 9e18 ? (int64_t)(ns + 0.5) : INT64_MAX;
}

static bool fx_classify(fx_writer *w)
{
    const pk_profile *p = w->p;
    size_t frames = pk_frame_count(p), resources = pk_resource_count(p);
    w->frame_category = malloc(frames ? frames : 1);
    w->resource_lib = malloc((resources ? resources : 1) * sizeof *w->resource_lib);
    if (!w->frame_category || !w->resource_lib)
        return false;
    for (size_t r = 0; r < resources; r++)
        w->resource_lib[r] = PK_NONE;

    const pk_metadata *md = pk_metadata_get(p);
    unsigned format_category = fx_category_of_format(pk_str(p, md->source_format));
    memset(w->category_used, 0, sizeof w->category_used);
    w->category_used[FX_CAT_OTHER] = 1;
    for (size_t i = 0; i < frames; i++) {
        const pk_frame *f = pk_frame_at(p, (uint32_t)i);
        const pk_function *fn = pk_function_at(p, f->function);
        uint32_t lib_resource = PK_NONE;
        unsigned c;
        if (f->flags & PK_FRAME_HAS_ADDRESS)
            c = FX_CAT_NATIVE;
        else if (format_category != FX_CAT_OTHER)
            c = format_category;
        else
            c = fx_category_of_file(pk_str(p, fn->file));
        if (fx_is_native(p, f, &lib_resource))
            w->resource_lib[lib_resource] = 0; /* numbered below */
        w->frame_category[i] = (uint8_t)c;
        w->category_used[c] = 1;
    }
    /* Libraries in resource order, so the output does not depend on frame order. */
    w->lib_count = 0;
    for (size_t r = 0; r < resources; r++)
        if (w->resource_lib[r] != PK_NONE)
            w->resource_lib[r] = w->lib_count++;
    uint32_t next = 0;
    for (unsigned c = 0; c < FX_CAT_COUNT; c++)
        w->category_out[c] = w->category_used[c] ? next++ : PK_NONE;
    return true;
}

/* Groups n items by thread with a counting sort: start gets thread_count + 1 offsets. */
typedef uint32_t (*fx_thread_of_fn)(const fx_writer *w, size_t item);

static bool fx_group_by_thread(size_t n, size_t threads, fx_thread_of_fn thread_of,
                               const fx_writer *w, uint32_t **items_out, size_t **start_out)
{
    size_t *start = calloc(threads + 2, sizeof *start);
    uint32_t *items = malloc((n ? n : 1) * sizeof *items);
    if (!start || !items) {
        free(start);
        free(items);
        return false;
    }
    for (size_t i = 0; i < n; i++)
        start[thread_of(w, i) + 2]++;
    for (size_t t = 0; t < threads; t++)
        start[t + 2] += start[t + 1];
    for (size_t i = 0; i < n; i++)
        items[start[thread_of(w, i) + 1]++] = (uint32_t)i;
    *items_out = items;
    *start_out = start;
    return true;
}

static uint32_t fx_row_thread(const fx_writer *w, size_t row)
{
    return pk_sample_thread(w->p, row);
}

static uint32_t fx_event_owner(const fx_writer *w, size_t index)
{
    return w->event_owner[index];
}

/* The thread whose table holds each memory event: for an allocation its own thread, for a free
 * the thread of the allocation it releases. The front end pairs frees with allocations by
 * address within one table, so a free has to sit with its allocation for the retained-memory
 * view to see it (threadId still names the thread that freed). */
static bool fx_find_event_owners(fx_writer *w)
{
    size_t n = pk_memory_event_count(w->p);
    w->event_owner = malloc((n ? n : 1) * sizeof *w->event_owner);
    if (!w->event_owner)
        return false;
    pk_u64map live;
    pk_u64map_init(&live);
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        pk_memory_event e;
        pk_memory_event_at(w->p, i, &e);
        w->event_owner[i] = e.thread;
        if (e.kind == PK_MEM_ALLOC) {
            uint32_t *slot;
            bool inserted;
            ok = pk_u64map_put(&live, e.address, e.thread, &slot, &inserted);
            if (ok)
                *slot = e.thread;
        } else {
            pk_u64map_remove(&live, e.address, &w->event_owner[i]);
        }
    }
    pk_u64map_free(&live);
    return ok;
}

/* ---- meta and libs --------------------------------------------------------------------------- */

static const char *fx_product(const pk_profile *p)
{
    const pk_metadata *md = pk_metadata_get(p);
    if (md->product && pk_str_len(p, md->product))
        return pk_str(p, md->product);
    if (md->source_format && pk_str_len(p, md->source_format))
        return pk_str(p, md->source_format);
    return "profkit";
}

static void fx_extra_entry(pk_output *out, bool *first, const char *label, const char *value)
{
    if (!*first)
        pk_out_putc(out, ',');
    *first = false;
    pk_out_puts(out, "{\"label\":");
    pk_out_json_string(out, label);
    pk_out_puts(out, ",\"format\":\"string\",\"value\":");
    pk_out_json_string(out, value);
    pk_out_putc(out, '}');
}

static void fx_write_meta(fx_writer *w)
{
    const pk_profile *p = w->p;
    pk_output *out = w->out;
    const pk_metadata *md = pk_metadata_get(p);
    uint64_t positions = pk_event_order_count(p);

    double interval = w->time_step_ns / 1e6;
    int64_t period_unit_ns = fx_unit_ns(pk_str(p, md->period_unit));
    if (md->period > 0 && period_unit_ns > 0)
        interval = (double)md->period * (double)period_unit_ns / 1e6;

    pk_out_printf(out, "{\"version\":%d,\"preprocessedProfileVersion\":%d", FX_GECKO_VERSION,
                  FX_PROCESSED_VERSION);
    fx_key(out, "interval");
    pk_out_double(out, interval);
    fx_key(out, "startTime");
    pk_out_double(out, md->start_time == PK_TIME_UNKNOWN ? 0.0 : (double)md->start_time / 1e6);
    /* The root range spans the whole run, not only the span of the placed samples. */
    double duration = (double)positions * w->time_step_ns / 1e6;
    if (md->start_time != PK_TIME_UNKNOWN && md->end_time != PK_TIME_UNKNOWN &&
        md->end_time > md->start_time)
        duration = (double)(md->end_time - md->start_time) / 1e6;
    if (duration > 0) {
        pk_out_puts(out, ",\"profilingStartTime\":0,\"profilingEndTime\":");
        pk_out_double(out, duration);
    }
    pk_out_puts(out, ",\"processType\":0,\"product\":");
    pk_out_json_string(out, fx_product(p));
    if (md->source_format && pk_str_len(p, md->source_format)) {
        fx_key(out, "importedFrom");
        pk_out_json_string(out, pk_str(p, md->source_format));
    }
    pk_out_puts(out, ",\"stackwalk\":0,\"debug\":false,\"symbolicated\":true,"
                     "\"usesOnlyOneStackType\":true,\"sourceCodeIsNotOnSearchfox\":true,"
                     "\"pausedRanges\":[],"
                     "\"extensions\":{\"length\":0,\"baseURL\":[],\"id\":[],\"name\":[]},"
                     "\"sampleUnits\":{\"time\":\"ms\",\"eventDelay\":\"ms\","
                     "\"threadCPUDelta\":\"\\u00b5s\"},"
                     "\"markerSchema\":[]");

    fx_key(out, "categories");
    pk_out_putc(out, '[');
    bool first = true;
    for (unsigned c = 0; c < FX_CAT_COUNT; c++) {
        if (!w->category_used[c])
            continue;
        if (!first)
            pk_out_putc(out, ',');
        first = false;
        pk_out_puts(out, "{\"name\":");
        pk_out_json_string(out, fx_categories[c].name);
        pk_out_puts(out, ",\"color\":");
        pk_out_json_string(out, fx_categories[c].color);
        pk_out_puts(out, ",\"subcategories\":[\"Other\"]}");
    }
    pk_out_putc(out, ']');

    /* Shown by the front end under "Profile information". */
    fx_key(out, "extra");
    pk_out_puts(out, "[{\"label\":\"Profile Information\",\"entries\":[");
    first = true;
    if (md->times_approximate)
        fx_extra_entry(out, &first, "Sample times",
                       "approximate: the source records no times, so samples and memory events "
                       "are spread evenly in recording order over the run");
    if (w->value != PK_NONE) {
        const pk_value_type *vt = pk_value_type_at(p, w->value);
        char text[256];
        snprintf(text, sizeof text, "%s (%s)", pk_str(p, vt->name), pk_str(p, vt->unit));
        fx_extra_entry(out, &first, "Sample weight", text);
    }
    if (md->source_format && pk_str_len(p, md->source_format))
        fx_extra_entry(out, &first, "Source format", pk_str(p, md->source_format));
    for (size_t i = 0; i < pk_property_count(p); i++)
        fx_extra_entry(out, &first, pk_property_key(p, i), pk_property_value(p, i));
    pk_out_puts(out, "]}]}");
}

static int fx_hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)tolower((unsigned char)c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Breakpad debug ID of an ELF build ID: its first 16 bytes as a GUID (first three fields
 * byte-swapped), followed by age 0. Empty when the build ID is not hex. */
static void fx_breakpad_id(const char *build_id, char out[34])
{
    uint8_t bytes[16] = {0};
    size_t len = strlen(build_id);
    out[0] = '\0';
    if (len == 0 || len % 2)
        return;
    for (size_t i = 0; i < len; i++)
        if (fx_hex_digit(build_id[i]) < 0)
            return;
    for (size_t i = 0; i < 16 && 2 * i < len; i++)
        bytes[i] = (uint8_t)(fx_hex_digit(build_id[2 * i]) << 4 |
                             fx_hex_digit(build_id[2 * i + 1]));
    static const uint8_t order[16] = {3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15};
    static const char digits[] = "0123456789ABCDEF";
    for (size_t i = 0; i < 16; i++) {
        out[2 * i] = digits[bytes[order[i]] >> 4];
        out[2 * i + 1] = digits[bytes[order[i]] & 15];
    }
    out[32] = '0';
    out[33] = '\0';
}

static const char *fx_basename(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static const char *fx_resource_name(const pk_profile *p, const pk_resource *r)
{
    if (r->name && pk_str_len(p, r->name))
        return pk_str(p, r->name);
    return fx_basename(pk_str(p, r->path));
}

static void fx_write_libs(fx_writer *w)
{
    const pk_profile *p = w->p;
    pk_output *out = w->out;
    bool first = true;
    pk_out_putc(out, '[');
    for (size_t i = 0; i < pk_resource_count(p); i++) {
        if (w->resource_lib[i] == PK_NONE)
            continue;
        const pk_resource *r = pk_resource_at(p, (uint32_t)i);
        const char *name = fx_resource_name(p, r);
        const char *path = pk_str(p, r->path);
        char breakpad[34];
        fx_breakpad_id(pk_str(p, r->build_id), breakpad);
        if (!first)
            pk_out_putc(out, ',');
        first = false;
        pk_out_puts(out, "\n{\"name\":");
        pk_out_json_string(out, name);
        pk_out_puts(out, ",\"path\":");
        pk_out_json_string(out, path);
        pk_out_puts(out, ",\"debugName\":");
        pk_out_json_string(out, name);
        pk_out_puts(out, ",\"debugPath\":");
        pk_out_json_string(out, path);
        pk_out_puts(out, ",\"breakpadId\":");
        pk_out_json_string(out, breakpad);
        pk_out_puts(out, ",\"codeId\":");
        if (r->build_id && pk_str_len(p, r->build_id))
            pk_out_json_string(out, pk_str(p, r->build_id));
        else
            pk_out_puts(out, "null");
        pk_out_puts(out, ",\"arch\":null}");
    }
    pk_out_putc(out, ']');
}

/* ---- one thread ------------------------------------------------------------------------------ */

static int fx_compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

typedef struct fx_ordered_row {
    uint64_t order;
    uint32_t row;
} fx_ordered_row;

static int fx_compare_order(const void *a, const void *b)
{
    const fx_ordered_row *x = a, *y = b;
    if (x->order != y->order)
        return (x->order > y->order) - (x->order < y->order);
    return (x->row > y->row) - (x->row < y->row);
}

static int64_t fx_row_weight(const fx_writer *w, size_t row)
{
    return w->value == PK_NONE ? 0 : pk_sample_values(w->p, row)[w->value];
}

/* Marks stack and its callers as used by the thread; the caller sorts the list afterwards. */
static void fx_mark_stack(fx_writer *w, uint32_t stack)
{
    while (stack != PK_NONE && w->stacks.stamp[stack] != w->gen) {
        w->stacks.stamp[stack] = w->gen;
        w->stacks.items[w->stacks.count++] = stack;
        stack = pk_stack_at(w->p, stack)->parent;
    }
}

/* Collects the thread's rows (sorted by stream order) and everything their stacks reach. Returns
 * the number of rows kept, or SIZE_MAX when memory runs out. */
static size_t fx_collect_thread(fx_writer *w, uint32_t thread)
{
    const pk_profile *p = w->p;
    size_t kept = 0;
    bool sorted = true;
    uint64_t last_order = 0;
    for (size_t i = w->thread_rows_start[thread]; i < w->thread_rows_start[thread + 1]; i++) {
        uint32_t row = w->thread_rows[i];
        if (fx_row_weight(w, row) == 0)
            continue;
        uint64_t order = pk_sample_order(p, row);
        if (kept && order < last_order)
            sorted = false;
        last_order = order;
        w->row_order[kept++] = row;
        fx_mark_stack(w, pk_sample_stack(p, row));
    }
    if (!sorted) {
        fx_ordered_row *tmp = malloc(kept * sizeof *tmp);
        if (!tmp)
            return SIZE_MAX;
        for (size_t i = 0; i < kept; i++)
            tmp[i] = (fx_ordered_row){pk_sample_order(p, w->row_order[i]), w->row_order[i]};
        qsort(tmp, kept, sizeof *tmp, fx_compare_order);
        for (size_t i = 0; i < kept; i++)
            w->row_order[i] = tmp[i].row;
        free(tmp);
    }
    w->allocation_count = 0;
    for (size_t i = w->thread_events_start[thread]; i < w->thread_events_start[thread + 1]; i++) {
        pk_memory_event e;
        pk_memory_event_at(p, w->thread_events[i], &e);
        if (e.size != 0) {
            fx_mark_stack(w, e.stack);
            w->allocation_count++;
        }
    }

    /* Model order puts callers first; keeping it keeps the table topological. */
    qsort(w->stacks.items, w->stacks.count, sizeof *w->stacks.items, fx_compare_u32);
    for (size_t i = 0; i < w->stacks.count; i++)
        w->stacks.local[w->stacks.items[i]] = (uint32_t)i;

    for (size_t i = 0; i < w->stacks.count; i++) {
        const pk_stack *s = pk_stack_at(p, w->stacks.items[i]);
        bool added;
        uint32_t local = fx_remap_add(&w->frames, s->frame, w->gen, &added);
        if (!added)
            continue;
        /* An inlined frame sits one level deeper than the frame it is inlined into. */
        uint32_t depth = 0;
        if ((pk_frame_at(p, s->frame)->flags & PK_FRAME_INLINED) && s->parent != PK_NONE) {
            uint32_t parent_frame =
                fx_remap_get(&w->frames, pk_stack_at(p, s->parent)->frame, w->gen);
            depth = w->frame_inline_depth[parent_frame] + 1;
        }
        w->frame_inline_depth[local] = depth;
    }

    for (size_t i = 0; i < w->frames.count; i++) {
        const pk_frame *f = pk_frame_at(p, w->frames.items[i]);
        bool added;
        uint32_t func = fx_remap_add(&w->funcs, f->function, w->gen, &added);
        uint32_t lib_resource = PK_NONE;
        bool native = fx_is_native(p, f, &lib_resource);
        if (added) {
            uint32_t r = pk_function_at(p, f->function)->resource;
            w->func_resource[func] = r != PK_NONE ? r : lib_resource;
            if (w->func_resource[func] != PK_NONE)
                fx_remap_add(&w->resources, w->func_resource[func], w->gen, NULL);
        }
        if (native) {
            fx_remap_add(&w->resources, lib_resource, w->gen, NULL);
            uint32_t sym = fx_remap_add(&w->symbols, f->function, w->gen, &added);
            int64_t rel = fx_relative_address(p, f, lib_resource);
            uint64_t address = rel < 0 ? 0 : (uint64_t)rel;
            if (added) {
                w->symbol_lib[sym] = w->resource_lib[lib_resource];
                w->symbol_address[sym] = address;
            } else if (address < w->symbol_address[sym]) {
                w->symbol_address[sym] = address;
            }
        }
    }
    return kept;
}

/* Writes `,"key":[...]` with one entry per i in [0, n), each written by the statement EMIT. */
#define FX_COLUMN(out, key, n, i, EMIT)                                                           \
    do {                                                                                          \
        fx_key(out, key);                                                                         \
        pk_out_putc(out, '[');                                                                    \
        for (size_t i = 0; i < (n); i++) {                                                        \
            if (i)                                                                                \
                pk_out_putc(out, ',');                                                            \
            EMIT;                                                                                 \
        }                                                                                         \
        pk_out_putc(out, ']');                                                                    \
    } while (0)

static uint32_t fx_local_stack(const fx_writer *w, uint32_t stack)
{
    return stack == PK_NONE ? PK_NONE : w->stacks.local[stack];
}

static void fx_out_weight_ms(fx_writer *w, int64_t v)
{
    int64_t ns;
    if (__builtin_mul_overflow(v, w->weight_unit_ns, &ns))
        pk_out_double(w->out, (double)v * (double)w->weight_unit_ns / 1e6);
    else
        fx_out_ms(w->out, ns);
}

static void fx_write_samples(fx_writer *w, size_t rows)
{
    const pk_profile *p = w->p;
    pk_output *out = w->out;
    static const char *const kinds[] = {"samples", "tracing-ms", "bytes"};
    pk_out_puts(out, "{\"length\":");
    pk_out_u64(out, rows);
    pk_out_puts(out, ",\"weightType\":");
    pk_out_json_string(out, kinds[w->weight_kind]);
    FX_COLUMN(out, "stack", rows, i,
              fx_u32_or_null(out, fx_local_stack(w, pk_sample_stack(p, w->row_order[i]))));
    FX_COLUMN(out, "time", rows, i,
              fx_out_ms(out, fx_time_of(w, pk_sample_order(p, w->row_order[i]))));
    if (w->weight_kind == FX_WEIGHT_MS)
        FX_COLUMN(out, "weight", rows, i,
                  fx_out_weight_ms(w, fx_row_weight(w, w->row_order[i])));
    else
        FX_COLUMN(out, "weight", rows, i, pk_out_i64(out, fx_row_weight(w, w->row_order[i])));
    pk_out_putc(out, '}');
}

/* Memory events of the thread with a known size, one column at a time. */
typedef enum fx_allocation_column {
    FX_ALLOC_TIME,
    FX_ALLOC_WEIGHT,
    FX_ALLOC_STACK,
    FX_ALLOC_ADDRESS,
    FX_ALLOC_THREAD
} fx_allocation_column;

static void fx_write_allocation_column(fx_writer *w, uint32_t thread, const char *key,
                                       fx_allocation_column c)
{
    pk_output *out = w->out;
    pk_memory_event e;
    bool first = true;
    fx_key(out, key);
    pk_out_putc(out, '[');
    for (size_t i = w->thread_events_start[thread]; i < w->thread_events_start[thread + 1]; i++) {
        pk_memory_event_at(w->p, w->thread_events[i], &e);
        if (e.size == 0) /* an unmatched free: its size is unknown */
            continue;
        if (!first)
            pk_out_putc(out, ',');
        first = false;
        switch (c) {
        case FX_ALLOC_TIME:
            fx_out_ms(out, fx_time_of(w, e.order));
            break;
        case FX_ALLOC_WEIGHT:
            if (e.kind != PK_MEM_ALLOC)
                pk_out_putc(out, '-');
            pk_out_u64(out, e.size);
            break;
        case FX_ALLOC_STACK:
            fx_u32_or_null(out, fx_local_stack(w, e.stack));
            break;
        case FX_ALLOC_THREAD: {
            const pk_thread *t = pk_thread_at(w->p, e.thread);
            pk_out_i64(out, t->tid >= 0 ? t->tid : (int64_t)e.thread);
            break;
        }
        case FX_ALLOC_ADDRESS:
            pk_out_u64(out, e.address);
            break;
        }
    }
    pk_out_putc(out, ']');
}

static void fx_write_allocations(fx_writer *w, uint32_t thread)
{
    pk_output *out = w->out;
    size_t length = w->allocation_count;
    fx_key(out, "nativeAllocations");
    pk_out_puts(out, "{\"length\":");
    pk_out_u64(out, length);
    pk_out_puts(out, ",\"weightType\":\"bytes\"");
    fx_write_allocation_column(w, thread, "time", FX_ALLOC_TIME);
    fx_write_allocation_column(w, thread, "weight", FX_ALLOC_WEIGHT);
    fx_write_allocation_column(w, thread, "stack", FX_ALLOC_STACK);
    fx_write_allocation_column(w, thread, "memoryAddress", FX_ALLOC_ADDRESS);
    fx_write_allocation_column(w, thread, "threadId", FX_ALLOC_THREAD);
    pk_out_putc(out, '}');
}

static void fx_table_start(pk_output *out, const char *name, size_t length)
{
    fx_key(out, name);
    pk_out_puts(out, "{\"length\":");
    pk_out_u64(out, length);
}

static int64_t fx_frame_address(const fx_writer *w, uint32_t frame)
{
    const pk_frame *f = pk_frame_at(w->p, frame);
    uint32_t lib_resource;
    return fx_is_native(w->p, f, &lib_resource) ? fx_relative_address(w->p, f, lib_resource) : -1;
}

static uint32_t fx_frame_symbol(const fx_writer *w, uint32_t frame)
{
    const pk_frame *f = pk_frame_at(w->p, frame);
    return fx_is_native(w->p, f, NULL) ? fx_remap_get(&w->symbols, f->function, w->gen) : PK_NONE;
}

static uint32_t fx_zero_as_none(uint32_t v)
{
    return v ? v : PK_NONE;
}

static void fx_write_tables(fx_writer *w)
{
    const pk_profile *p = w->p;
    pk_output *out = w->out;
    const uint32_t *items;
    size_t n;

    n = w->stacks.count;
    items = w->stacks.items;
    fx_table_start(out, "stackTable", n);
    FX_COLUMN(out, "prefix", n, i,
              fx_u32_or_null(out, fx_local_stack(w, pk_stack_at(p, items[i])->parent)));
    FX_COLUMN(out, "frame", n, i,
              pk_out_u64(out, fx_remap_get(&w->frames, pk_stack_at(p, items[i])->frame, w->gen)));
    pk_out_putc(out, '}');

    n = w->frames.count;
    items = w->frames.items;
    fx_table_start(out, "frameTable", n);
    FX_COLUMN(out, "address", n, i, pk_out_i64(out, fx_frame_address(w, items[i])));
    FX_COLUMN(out, "inlineDepth", n, i, pk_out_u64(out, w->frame_inline_depth[i]));
    FX_COLUMN(out, "category", n, i,
              pk_out_u64(out, w->category_out[w->frame_category[items[i]]]));
    fx_repeat_column(out, "subcategory", "0", n);
    FX_COLUMN(out, "func", n, i,
              pk_out_u64(out, fx_remap_get(&w->funcs, pk_frame_at(p, items[i])->function, w->gen)));
    FX_COLUMN(out, "nativeSymbol", n, i, fx_u32_or_null(out, fx_frame_symbol(w, items[i])));
    fx_repeat_column(out, "innerWindowID", "0", n);
    FX_COLUMN(out, "line", n, i,
              fx_u32_or_null(out, fx_zero_as_none(pk_frame_at(p, items[i])->line)));
    fx_repeat_column(out, "column", "null", n);
    pk_out_putc(out, '}');

    n = w->funcs.count;
    items = w->funcs.items;
    fx_table_start(out, "funcTable", n);
    FX_COLUMN(out, "name", n, i, pk_out_u64(out, fx_string(w, pk_function_at(p, items[i])->name)));
    fx_repeat_column(out, "isJS", "false", n);
    fx_repeat_column(out, "relevantForJS", "false", n);
    FX_COLUMN(out, "resource", n, i,
              if (w->func_resource[i] == PK_NONE) pk_out_puts(out, "-1");
              else pk_out_u64(out, fx_remap_get(&w->resources, w->func_resource[i], w->gen)));
    FX_COLUMN(out, "fileName", n, i, {
        uint32_t file = pk_function_at(p, items[i])->file;
        fx_u32_or_null(out, file && pk_str_len(p, file) ? fx_string(w, file) : PK_NONE);
    });
    FX_COLUMN(out, "lineNumber", n, i,
              fx_u32_or_null(out, fx_zero_as_none(pk_function_at(p, items[i])->start_line)));
    fx_repeat_column(out, "columnNumber", "null", n);
    pk_out_putc(out, '}');

    n = w->resources.count;
    items = w->resources.items;
    fx_table_start(out, "resourceTable", n);
    FX_COLUMN(out, "lib", n, i, fx_u32_or_null(out, w->resource_lib[items[i]]));
    FX_COLUMN(out, "name", n, i, {
        const pk_resource *r = pk_resource_at(p, items[i]);
        pk_out_u64(out, fx_string(w, r->name && pk_str_len(p, r->name) ? r->name : r->path));
    });
    fx_repeat_column(out, "host", "null", n);
    /* 1 = library; 0 = unknown (script modules and the like). */
    FX_COLUMN(out, "type", n, i,
              pk_out_putc(out, w->resource_lib[items[i]] != PK_NONE ? '1' : '0'));
    pk_out_putc(out, '}');

    n = w->symbols.count;
    items = w->symbols.items;
    fx_table_start(out, "nativeSymbols", n);
    FX_COLUMN(out, "address", n, i, pk_out_u64(out, w->symbol_address[i]));
    fx_repeat_column(out, "functionSize", "null", n);
    FX_COLUMN(out, "libIndex", n, i, pk_out_u64(out, w->symbol_lib[i]));
    FX_COLUMN(out, "name", n, i, pk_out_u64(out, fx_string(w, pk_function_at(p, items[i])->name)));
    pk_out_putc(out, '}');
}

static void fx_write_strings(fx_writer *w)
{
    pk_output *out = w->out;
    fx_key(out, "stringArray");
    /* Complete: the tables above interned every string they refer to. */
    pk_out_putc(out, '[');
    for (size_t i = 0; i < w->strings.count; i++) {
        if (i)
            pk_out_putc(out, ',');
        pk_out_json_string(out, pk_str(w->p, w->strings.items[i]));
    }
    pk_out_putc(out, ']');
}

/* The main thread of a process is the one whose tid is the pid; when the process has no such
 * thread, its first thread in model order. */
static bool fx_is_main_thread(const pk_profile *p, uint32_t thread)
{
    const pk_thread *t = pk_thread_at(p, thread);
    uint32_t first = PK_NONE, named_by_pid = PK_NONE;
    for (uint32_t i = 0; i < pk_thread_count(p); i++) {
        const pk_thread *other = pk_thread_at(p, i);
        if (other->pid != t->pid)
            continue;
        if (first == PK_NONE)
            first = i;
        if (other->pid >= 0 && other->tid == other->pid && named_by_pid == PK_NONE)
            named_by_pid = i;
    }
    return thread == (named_by_pid != PK_NONE ? named_by_pid : first);
}

static pk_status fx_write_thread(fx_writer *w, uint32_t thread, pk_error *err)
{
    const pk_profile *p = w->p;
    pk_output *out = w->out;
    w->gen = thread + 1;
    w->stacks.count = w->frames.count = w->funcs.count = 0;
    w->resources.count = w->symbols.count = w->strings.count = 0;

    size_t rows = fx_collect_thread(w, thread);
    if (rows == SIZE_MAX)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");

    const pk_thread *t = pk_thread_at(p, thread);
    const char *product = fx_product(p);
    int64_t tid = t->tid >= 0 ? t->tid : (int64_t)thread;
    pk_out_puts(out, "\n{\"name\":");
    if (t->name && pk_str_len(p, t->name))
        pk_out_json_string(out, pk_str(p, t->name));
    else
        pk_out_printf(out, "\"Thread %lld\"", (long long)tid);
    pk_out_printf(out, ",\"isMainThread\":%s", fx_is_main_thread(p, thread) ? "true" : "false");
    pk_out_puts(out, ",\"processType\":\"default\",\"processName\":");
    pk_out_json_string(out, product);
    pk_out_puts(out, ",\"processStartupTime\":0,\"processShutdownTime\":null,\"registerTime\":0,"
                     "\"unregisterTime\":null,\"pausedRanges\":[],\"showMarkersInTimeline\":false");
    pk_out_printf(out, ",\"pid\":\"%lld\",\"tid\":%lld", (long long)(t->pid >= 0 ? t->pid : 0),
                  (long long)tid);
    fx_key(out, "samples");
    fx_write_samples(w, rows);
    if (w->thread_events_start[thread + 1] > w->thread_events_start[thread])
        fx_write_allocations(w, thread);
    pk_out_puts(out, ",\"markers\":{\"length\":0,\"category\":[],\"data\":[],\"endTime\":[],"
                     "\"name\":[],\"phase\":[],\"startTime\":[]}");
    fx_write_tables(w);
    fx_write_strings(w);
    pk_out_putc(out, '}');
    return PK_OK;
}

/* A profile without threads still needs one for the front end to show anything. */
static void fx_write_empty_thread(fx_writer *w)
{
    pk_output *out = w->out;
    pk_out_puts(out, "\n{\"name\":");
    pk_out_json_string(out, fx_product(w->p));
    pk_out_puts(out, ",\"isMainThread\":true,\"processType\":\"default\",\"processName\":");
    pk_out_json_string(out, fx_product(w->p));
    pk_out_puts(out,
                ",\"processStartupTime\":0,\"processShutdownTime\":null,\"registerTime\":0,"
                "\"unregisterTime\":null,\"pausedRanges\":[],\"showMarkersInTimeline\":false,"
                "\"pid\":\"0\",\"tid\":0,"
                "\"samples\":{\"length\":0,\"weightType\":\"samples\",\"stack\":[],\"time\":[],"
                "\"weight\":[]},"
                "\"markers\":{\"length\":0,\"category\":[],\"data\":[],\"endTime\":[],\"name\":[],"
                "\"phase\":[],\"startTime\":[]},"
                "\"stackTable\":{\"length\":0,\"prefix\":[],\"frame\":[]},"
                "\"frameTable\":{\"length\":0,\"address\":[],\"inlineDepth\":[],\"category\":[],"
                "\"subcategory\":[],\"func\":[],\"nativeSymbol\":[],\"innerWindowID\":[],"
                "\"line\":[],\"column\":[]},"
                "\"funcTable\":{\"length\":0,\"name\":[],\"isJS\":[],\"relevantForJS\":[],"
                "\"resource\":[],\"fileName\":[],\"lineNumber\":[],\"columnNumber\":[]},"
                "\"resourceTable\":{\"length\":0,\"lib\":[],\"name\":[],\"host\":[],\"type\":[]},"
                "\"nativeSymbols\":{\"length\":0,\"address\":[],\"functionSize\":[],"
                "\"libIndex\":[],\"name\":[]},"
                "\"stringArray\":[]}");
}

/* ---- entry point ----------------------------------------------------------------------------- */

static void fx_writer_free(fx_writer *w)
{
    free(w->frame_category);
    free(w->resource_lib);
    free(w->thread_rows);
    free(w->thread_rows_start);
    free(w->event_owner);
    free(w->thread_events);
    free(w->thread_events_start);
    fx_remap_free(&w->stacks);
    fx_remap_free(&w->frames);
    fx_remap_free(&w->funcs);
    fx_remap_free(&w->resources);
    fx_remap_free(&w->symbols);
    fx_remap_free(&w->strings);
    free(w->frame_inline_depth);
    free(w->func_resource);
    free(w->symbol_address);
    free(w->symbol_lib);
    free(w->row_order);
}

static pk_status fx_write(const pk_profile *p, pk_output *out, const pk_write_options *options,
                          pk_error *err)
{
    fx_writer w;
    memset(&w, 0, sizeof w);
    w.p = p;
    w.out = out;
    pk_status status = fx_choose_value(&w, options, err);
    if (status != PK_OK)
        return status;
    fx_place_times(&w);

    size_t threads = pk_thread_count(p), rows = pk_sample_count(p);
    size_t frames = pk_frame_count(p), functions = pk_function_count(p);
    bool ok = fx_classify(&w) &&
              fx_group_by_thread(rows, threads, fx_row_thread, &w, &w.thread_rows,
                                 &w.thread_rows_start) &&
              fx_find_event_owners(&w) &&
              fx_group_by_thread(pk_memory_event_count(p), threads, fx_event_owner, &w,
                                 &w.thread_events, &w.thread_events_start);
    free(w.event_owner);
    w.event_owner = NULL;
    ok = ok && fx_remap_init(&w.stacks, pk_stack_count(p)) && fx_remap_init(&w.frames, frames) &&
         fx_remap_init(&w.funcs, functions) && fx_remap_init(&w.resources, pk_resource_count(p)) &&
         fx_remap_init(&w.symbols, functions) && fx_remap_init(&w.strings, pk_string_count(p));
    w.frame_inline_depth = malloc((frames ? frames : 1) * sizeof *w.frame_inline_depth);
    w.func_resource = malloc((functions ? functions : 1) * sizeof *w.func_resource);
    w.symbol_address = malloc((functions ? functions : 1) * sizeof *w.symbol_address);
    w.symbol_lib = malloc((functions ? functions : 1) * sizeof *w.symbol_lib);
    w.row_order = malloc((rows ? rows : 1) * sizeof *w.row_order);
    if (!ok || !w.frame_inline_depth || !w.func_resource || !w.symbol_address || !w.symbol_lib ||
        !w.row_order) {
        fx_writer_free(&w);
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    }

    pk_out_puts(out, "{\"meta\":");
    fx_write_meta(&w);
    pk_out_puts(out, ",\n\"libs\":");
    fx_write_libs(&w);
    pk_out_puts(out, ",\n\"pages\":[],\"profilerOverhead\":[],\"counters\":[],\n\"threads\":[");
    for (uint32_t t = 0; t < threads && status == PK_OK && !pk_out_failed(out); t++) {
        if (t)
            pk_out_putc(out, ',');
        status = fx_write_thread(&w, t, err);
    }
    if (threads == 0)
        fx_write_empty_thread(&w);
    pk_out_puts(out, "]}\n");
    fx_writer_free(&w);
    return status;
}

static const char *const fx_aliases[] = {"fxprof", "firefox-profiler", NULL};
static const char *const fx_extensions[] = {".json", NULL};

const pk_format pk_format_firefox = {
    .name = "firefox",
    .aliases = fx_aliases,
    .extensions = fx_extensions,
    .description = "Firefox Profiler processed profile (JSON, version 55)",
    .probe = NULL,
    .read = NULL,
    .write = fx_write,
    .dump = NULL,
    .read_options = NULL,
    .write_options = NULL,
};
