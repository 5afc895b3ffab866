/* SPDX-License-Identifier: MIT */
/* valgrind DHAT's JSON (dhat.out.PID; DHAT's viewer dh_view.html, the Firefox Profiler's DHAT
 * importer; also written by the Rust crate dhat). Documented in docs/formats/dhat.md.
 *
 * `pps` lists the program points: per point its numbers (`tb` total bytes, `tbk` total blocks,
 * `tl` total lifetimes, `mb`/`mbk` its own maximum, `gb`/`gbk` at the global peak, `eb`/`ebk` at
 * the end, `rb`/`wb` bytes read and written) and `fs`, its stack as indexes into `ftbl`,
 * innermost first. `ftbl` usually comes after `pps`, so the points are kept (their numbers and
 * frame indexes: memory grows with the distinct stacks) until the frame table is read, and
 * added at the end.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/input.h"
#include "core/json_input.h"
#include "core/json_probe.h"
#include "core/memory_values.h"
#include "formats/formats.h"
#include "formats/valgrind_frames.h"

static const char *const dhat_extensions[] = {".dhat", NULL};

static int dhat_probe(const uint8_t *data, size_t size)
{
    pk_json_probe_key keys[] = {{"dhatFileVersion", NULL, false}};
    if (pk_json_first_byte(data, size) != '{' || pk_json_probe(data, size, keys, 1) <= 0)
        return PK_PROBE_NO;
    return keys[0].found ? PK_PROBE_CERTAIN : PK_PROBE_NO;
}

/* A point's numbers, in the order of dhat_fields. */
enum { F_TB, F_TBK, F_TL, F_MB, F_MBK, F_GB, F_GBK, F_EB, F_EBK, F_RB, F_WB, F_COUNT };
static const char *const dhat_fields[F_COUNT] = {"tb", "tbk", "tl", "mb", "mbk", "gb",
                                                 "gbk", "eb", "ebk", "rb", "wb"};

typedef struct dhat_point {
    int64_t v[F_COUNT];
    size_t frames_start, frames_count; /* in the reader's frame index pool */
} dhat_point;

typedef enum dhat_mode { MODE_UNKNOWN, MODE_HEAP, MODE_COPY, MODE_AD_HOC } dhat_mode;

typedef struct dhat_reader {
    pk_profile *p;
    dhat_point *points;
    size_t point_count, point_capacity;
    dhat_point current;
    bool in_point;
    uint32_t *indexes;          /* every point's `fs`, end to end */
    size_t index_count, index_capacity;
    uint32_t *table;            /* `ftbl`: the frame of each entry */
    size_t table_count, table_capacity;
    unsigned fields_seen;       /* bit per field any point had */
    bool saw_version, saw_table;
    int64_t version, pid;
    dhat_mode mode;
    char time_unit[32];
    uint32_t *stack;            /* a point's frames, root first */
    size_t stack_capacity;
} dhat_reader;

static bool set_property(dhat_reader *r, const char *key, const char *s, size_t n)
{
    uint32_t id = pk_intern(r->p, s, n);
    return id != PK_NONE && pk_property_set(r->p, key, pk_str(r->p, id)) == PK_OK;
}

static bool set_number(pk_profile *p, const char *key, int64_t v)
{
    char text[32];
    snprintf(text, sizeof text, "%" PRId64, v);
    return pk_property_set(p, key, text) == PK_OK;
}

static bool top_scalar(dhat_reader *r, pk_json_parser *jp, const pk_json_scalar *v)
{
    size_t len = 0;
    const char *key = pk_json_parser_key(jp, 0, &len);
#define KEY(name) (len == strlen(name) && memcmp(key, name, len) == 0)
    bool is_string = v->kind == PK_JSON_STRING;
    if (KEY("dhatFileVersion")) {
        if (!pk_json_scalar_i64(v, &r->version))
            return pk_json_parser_fail(jp, "dhatFileVersion is not an integer");
        if (r->version != 1 && r->version != 2)
            return pk_json_parser_fail(jp, "dhatFileVersion %" PRId64 " is not one profkit "
                                           "knows (1 or 2)", r->version);
        r->saw_version = true;
        return true;
    }
    if (KEY("mode") && is_string) {
        /* the Rust crate dhat writes "rust-heap" and "rust-ad-hoc" */
        r->mode = pk_json_scalar_is(v, "heap") || pk_json_scalar_is(v, "rust-heap") ? MODE_HEAP
                  : pk_json_scalar_is(v, "copy")                                   ? MODE_COPY
                  : pk_json_scalar_is(v, "ad-hoc") || pk_json_scalar_is(v, "rust-ad-hoc")
                      ? MODE_AD_HOC
                      : MODE_UNKNOWN;
        if (r->mode == MODE_UNKNOWN)
            return pk_json_parser_fail(jp, "mode is none of heap, copy, ad-hoc (rust-heap, "
                                           "rust-ad-hoc)");
        return set_property(r, "dhat.mode", v->s, v->len) ||
               pk_json_parser_fail(jp, "out of memory");
    }
    if (KEY("cmd") && is_string) {
        uint32_t id = pk_intern(r->p, v->s, v->len);
        if (id == PK_NONE || pk_property_set(r->p, "dhat.cmd", pk_str(r->p, id)) != PK_OK)
            return pk_json_parser_fail(jp, "out of memory");
        pk_metadata_of(r->p)->product = id;
        return true;
    }
    if (KEY("tu") && is_string) {
        size_t k = v->len < sizeof r->time_unit - 1 ? v->len : sizeof r->time_unit - 1;
        memcpy(r->time_unit, v->s, k);
        r->time_unit[k] = '\0';
        return set_property(r, "dhat.time_unit", v->s, v->len) ||
               pk_json_parser_fail(jp, "out of memory");
    }
    int64_t n = 0;
    const char *property = KEY("pid")   ? "dhat.pid"
                           : KEY("te")  ? "dhat.time_end"
                           : KEY("tg")  ? "dhat.time_global_peak"
                           : KEY("tuth") ? "dhat.time_threshold"
                                        : NULL;
    if (property && pk_json_scalar_i64(v, &n)) {
        if (KEY("pid"))
            r->pid = n;
        return set_number(r->p, property, n) || pk_json_parser_fail(jp, "out of memory");
    }
#undef KEY
    return true;
}

static bool on_scalar(void *ctx, pk_json_parser *jp, const pk_json_scalar *v)
{
    dhat_reader *r = ctx;
    uint32_t depth = pk_json_parser_depth(jp);
    if (depth == 1)
        return top_scalar(r, jp, v);
    if (depth == 2 && pk_json_parser_key_is(jp, 0, "ftbl")) {
        if (v->kind != PK_JSON_STRING)
            return pk_json_parser_fail(jp, "a frame table entry is not a string");
        uint32_t frame = pk_valgrind_frame(r->p, v->s, v->len);
        if (frame == PK_NONE ||
            !PK_ARRAY_RESERVE(r->table, r->table_capacity, r->table_count + 1))
            return pk_json_parser_fail(jp, "out of memory");
        r->table[r->table_count++] = frame;
        return true;
    }
    if (!r->in_point || !pk_json_parser_key_is(jp, 0, "pps"))
        return true;
    if (depth == 3) {
        for (unsigned f = 0; f < F_COUNT; f++)
            if (pk_json_parser_key_is(jp, 2, dhat_fields[f])) {
                if (!pk_json_scalar_i64(v, &r->current.v[f]) || r->current.v[f] < 0)
                    return pk_json_parser_fail(jp, "a program point's %s is not an integer >= 0",
                                               dhat_fields[f]);
                r->fields_seen |= 1u << f;
                break;
            }
        return true;
    }
    if (depth == 4 && pk_json_parser_key_is(jp, 2, "fs")) {
        int64_t index = 0;
        if (!pk_json_scalar_i64(v, &index) || index < 0 || index >= UINT32_MAX)
            return pk_json_parser_fail(jp, "a program point's frame index is not an integer "
                                           "from 0 to 2^32 - 2");
        if (!PK_ARRAY_RESERVE(r->indexes, r->index_capacity, r->index_count + 1))
            return pk_json_parser_fail(jp, "out of memory");
        r->indexes[r->index_count++] = (uint32_t)index;
        r->current.frames_count++;
    }
    return true;
}

static bool on_begin(void *ctx, pk_json_parser *jp, bool is_array)
{
    dhat_reader *r = ctx;
    if (pk_json_parser_depth(jp) == 2 && !is_array && pk_json_parser_key_is(jp, 0, "pps")) {
        r->current = (dhat_point){.frames_start = r->index_count};
        r->in_point = true;
    }
    if (pk_json_parser_depth(jp) == 1 && is_array && pk_json_parser_key_is(jp, 0, "ftbl"))
        r->saw_table = true;
    return true;
}

static bool on_end(void *ctx, pk_json_parser *jp, bool is_array)
{
    dhat_reader *r = ctx;
    if (pk_json_parser_depth(jp) == 2 && !is_array && r->in_point &&
        pk_json_parser_key_is(jp, 0, "pps")) {
        r->in_point = false;
        if (!PK_ARRAY_RESERVE(r->points, r->point_capacity, r->point_count + 1))
            return pk_json_parser_fail(jp, "out of memory");
        r->points[r->point_count++] = r->current;
    }
    return true;
}

/* The values of the mode, for the fields the points have: declared in this order. */
typedef struct dhat_value {
    unsigned field;
    const char *name;
    const char *unit; /* NULL: the file's time unit */
} dhat_value;

static const dhat_value heap_values[] = {
    /* the memory vocabulary (core/memory_values.h), in pk_memory_values_declare's order */
    {F_TBK, PK_MEMORY_ALLOC_OBJECTS, PK_MEMORY_OBJECTS_UNIT},
    {F_TB, PK_MEMORY_ALLOC_SPACE, PK_MEMORY_SPACE_UNIT},
    {F_EBK, PK_MEMORY_INUSE_OBJECTS, PK_MEMORY_OBJECTS_UNIT},
    {F_EB, PK_MEMORY_INUSE_SPACE, PK_MEMORY_SPACE_UNIT},
    {F_GB, PK_MEMORY_PEAK_SPACE, PK_MEMORY_SPACE_UNIT},
    /* DHAT's own (docs/formats/dhat.md) */
    {F_GBK, "peak_objects", "count"},
    {F_MB, "max_space", "bytes"},      {F_MBK, "max_objects", "count"},
    {F_TL, "lifetime", NULL},          {F_RB, "read_bytes", "bytes"},
    {F_WB, "write_bytes", "bytes"},
};
static const dhat_value copy_values[] = {{F_TBK, "copies", "count"},
                                         {F_TB, "copied_bytes", "bytes"}};
static const dhat_value ad_hoc_values[] = {{F_TBK, "events", "count"},
                                           {F_TB, "units", "count"}};

static pk_status dhat_finish(dhat_reader *r, uint64_t offset, pk_error *err)
{
    pk_profile *p = r->p;
    const dhat_value *values = heap_values;
    size_t value_count = sizeof heap_values / sizeof heap_values[0];
    if (r->mode == MODE_COPY) {
        values = copy_values;
        value_count = 2;
    } else if (r->mode == MODE_AD_HOC) {
        values = ad_hoc_values;
        value_count = 2;
    }
    uint32_t index[F_COUNT];
    for (unsigned f = 0; f < F_COUNT; f++)
        index[f] = PK_NONE;
    uint32_t default_value = PK_NONE;
    r->fields_seen |= 1u << F_TB | 1u << F_TBK;
    for (size_t i = 0; i < value_count; i++) {
        if (!(r->fields_seen & 1u << values[i].field))
            continue;
        const char *unit = values[i].unit ? values[i].unit
                           : r->time_unit[0] ? r->time_unit
                                             : "instrs";
        index[values[i].field] = pk_add_value_type(p, values[i].name, unit);
        if (index[values[i].field] == PK_NONE)
            goto nomem;
        if (values[i].field == F_TB)
            default_value = index[values[i].field];
    }
    pk_set_default_value(p, default_value);
    uint32_t thread = pk_add_thread(p, pk_intern_cstr(p, "main"), r->pid ? r->pid : -1, -1);
    if (thread == PK_NONE)
        goto nomem;
    uint64_t unknown = 0;
    int64_t row[PK_MAX_VALUES];
    for (size_t i = 0; i < r->point_count; i++) {
        const dhat_point *pt = &r->points[i];
        if (!PK_ARRAY_RESERVE(r->stack, r->stack_capacity, pt->frames_count + 1))
            goto nomem;
        bool known = true;
        for (size_t k = 0; k < pt->frames_count; k++) {
            uint32_t entry = r->indexes[pt->frames_start + k];
            if (entry >= r->table_count) {
                known = false;
                break;
            }
            r->stack[pt->frames_count - 1 - k] = r->table[entry];
        }
        if (!known) {
            unknown++;
            continue;
        }
        uint32_t stack = pt->frames_count
                             ? pk_intern_stack_frames(p, PK_NONE, r->stack, pt->frames_count)
                             : PK_NONE;
        if (pt->frames_count && stack == PK_NONE)
            goto nomem;
        memset(row, 0, sizeof row);
        for (unsigned f = 0; f < F_COUNT; f++)
            if (index[f] != PK_NONE)
                row[index[f]] = pt->v[f];
        if (pk_add_sample(p, thread, stack, row) != PK_OK)
            goto nomem;
    }
    if (unknown)
        pk_warn(p, "dhat: %" PRIu64 " program point%s with a frame index past the frame table "
                   "(%zu entries) left out", unknown, unknown == 1 ? "" : "s", r->table_count);
    (void)offset;
    return PK_OK;
nomem:
    return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
}

static pk_status dhat_read(pk_input *in, pk_profile *p, const pk_read_options *options,
                           pk_error *err)
{
    (void)options;
    dhat_reader r;
    memset(&r, 0, sizeof r);
    r.p = p;
    r.mode = MODE_HEAP;
    pk_status status = pk_json_read(in, &(pk_json_handler){on_scalar, on_begin, on_end}, &r,
                                    "the DHAT profile", "not a DHAT profile", NULL, err);
    if (status == PK_OK || status == PK_ERR_INPUT) {
        if (!r.saw_version) {
            if (status == PK_OK)
                status = pk_error_set(err, PK_ERR_INPUT, 0,
                                      "not a DHAT profile: no dhatFileVersion");
        } else {
            if (status == PK_OK && !r.saw_table && r.point_count)
                status = pk_error_set(err, PK_ERR_INPUT, (int64_t)pk_in_offset(in),
                                      "the DHAT profile has no frame table (ftbl)");
            pk_error finish_err;
            pk_status finished = dhat_finish(&r, pk_in_offset(in), &finish_err);
            status = pk_json_read_settle(status, err, finished, &finish_err);
        }
    }
    free(r.points);
    free(r.indexes);
    free(r.table);
    free(r.stack);
    return status;
}

const pk_format pk_format_dhat = {
    .name = "dhat",
    .aliases = NULL,
    .extensions = dhat_extensions,
    .description = "valgrind's DHAT profile (dhat.out.PID: heap, copy and ad-hoc modes; "
                   "dh_view, the Firefox Profiler)",
    .flags = PK_FORMAT_TEXT | PK_FORMAT_POSITIVE_WEIGHTS,
    .probe = dhat_probe,
    .read = dhat_read,
};
