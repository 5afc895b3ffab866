/* SPDX-License-Identifier: MIT */
/* Reading a BR profiler file into the model.
 *
 * One sample per group, on one thread "main". The current line is the leaf; the backtrace
 * records are its callers, nearest caller first by default (--br-backtrace-order
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
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/damage.h"
#include "core/hashmap.h"
#include "core/path.h"
#include "formats/br/br.h"

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
    size_t previous_depth, previous_capacity, previous_stacks_capacity;
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
    if (!PK_ARRAY_RESERVE(r->modules, r->module_capacity, r->module_count + 1))
        return PK_NONE;
    br_module *m = &r->modules[r->module_count];
    size_t base_offset = pk_path_basename_offset(file, file_len);
    const char *base = file + base_offset;
    size_t base_len = file_len - base_offset;
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
    /* The file states no sampling interval: what it records is one occurrence per group, so
     * the period is one sample (pprof's period type and period say so). */
    pk_metadata *meta = pk_metadata_of(r->p);
    meta->period = 1;
    meta->period_type = pk_intern_cstr(r->p, "samples");
    meta->period_unit = pk_intern_cstr(r->p, "count");
    if (meta->period_type == PK_NONE || meta->period_unit == PK_NONE)
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
        /* A BR program's code is interpreted: script, as a view of script code takes it. */
        pk_function fn = {.name = name, .file = m->file, .start_line = 0, .resource = m->resource,
                          .flags = PK_FUNCTION_SCRIPT};
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
    if (!PK_ARRAY_RESERVE(r->previous, r->previous_capacity, n) ||
        !PK_ARRAY_RESERVE(r->previous_stacks, r->previous_stacks_capacity, n))
        return br_nomem(r);
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

static pk_status br_push_frame(br_reader *r, const br_record *rec)
{
    if (!PK_ARRAY_RESERVE(r->frames, r->frame_capacity, r->frame_count + 1))
        return br_nomem(r);
    uint32_t module = br_module_of(r, rec->module);
    if (module == PK_NONE)
        return br_nomem(r);
    r->frames[r->frame_count++] = (br_pending_frame){
        .module = module,
        .line = rec->line,
        .clause = rec->clause,
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
        pk_warn(r->p, "%" PRIu64 " frames use a module number that was never mapped",
                r->unmapped_uses);
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

/* Reads the records into samples. Damage (a record the decoder cannot read, or records out of
 * their groups) is reported with pk_damage; the groups before it are samples already. */
static pk_status br_read_records(br_reader *r, pk_input *in)
{
    br_record rec;
    for (;;) {
        br_next next = pk_br_next_record(in, &rec, r->err);
        if (next == BR_NEXT_EOF)
            break;
        if (next == BR_NEXT_DAMAGED)
            return PK_ERR_INPUT;
        if (rec.type != BR_MODULE && rec.type != BR_LINE && !r->in_group)
            return pk_damage(r->err, rec.offset, "%s record outside a current line group",
                             pk_br_record_name(rec.type));
        pk_status st = PK_OK;
        switch (rec.type) {
        case BR_MODULE:
            if (br_add_module(r, rec.module, (const char *)rec.name, rec.name_len) == PK_NONE)
                st = br_nomem(r);
            break;
        case BR_LINE:
            if (r->in_group)
                return pk_damage(r->err, r->group_offset,
                                 "the current line group starting here has no end before "
                                 "the next one at byte %" PRIu64,
                                 rec.offset);
            r->in_group = true;
            r->group_offset = rec.offset;
            r->group_time = 0;
            r->group_timed = false;
            r->frame_count = 0;
            st = br_push_frame(r, &rec);
            break;
        case BR_BACKTRACE:
            st = br_push_frame(r, &rec);
            break;
        case BR_TIME: {
            uint64_t t = rec.nanoseconds;
            r->group_time = t > UINT64_MAX - r->group_time ? UINT64_MAX : r->group_time + t;
            r->group_timed = true;
            break;
        }
        case BR_FUNCTION: {
            uint32_t name = pk_intern(r->p, (const char *)rec.name, rec.name_len);
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
    }
    if (r->in_group)
        return pk_damage(r->err, r->group_offset,
                         "the current line group starting here never ends (no end current "
                         "line record)");
    return PK_OK;
}

pk_status pk_br_read(pk_input *in, pk_profile *p, const pk_read_options *options, pk_error *err)
{
    br_reader *r = calloc(1, sizeof *r);
    if (!r)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    r->p = p;
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
    /* After damage, the groups before it make the profile. */
    if (st == PK_OK || st == PK_ERR_INPUT) {
        pk_status completed = r->values_declared ? PK_OK : br_declare_values(r, false);
        if (completed == PK_OK)
            br_report_oddities(r);
        else
            st = completed;
    }
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
