/* SPDX-License-Identifier: MIT */
/* Writing a profile as a BR profiler file: a group per sample.
 *
 * Timed when the profile has a time value (a unit of seconds, milliseconds, microseconds or
 * nanoseconds; converted to nanoseconds): each row becomes as many groups as its count value
 * ("samples" or a count unit; 1 when there is none, and 1 when the count is 0 but the time is
 * not), its time split over them. Otherwise each row becomes count groups. Frames map back to BR
 * as the reader names them: the module is the function's file (else its resource's path or name,
 * else "(unknown)"), the line is the frame's line (else the function's start line, else, for a
 * function without a source file, a number of the function's own: 1, 2, ... within its module,
 * in order of first use, so that tools that list by line still tell the functions apart; else
 * 0), the clause is 1 unless a "B:LINE.CLAUSE" name
 * gives it, and a name that the reader would derive from the module ("B gosub", "B main", "B")
 * becomes that label again; any other name is written as a FUNCTION NAME (cut to 255 bytes).
 * Backtraces are written nearest caller first, the reader's default order.
 */
#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/buffer.h"
#include "core/hashmap.h"
#include "core/output.h"
#include "core/path.h"
#include "core/units.h"
#include "profkit/thread_names.h"
#include "formats/br/br.h"

/* More groups than this in one written file is almost certainly a value that is not a count. */
#define BR_MAX_WRITTEN_GROUPS 100000000u

static void br_put_be16(pk_buffer *b, unsigned v)
{
    uint8_t d[2] = {(uint8_t)(v >> 8), (uint8_t)v};
    pk_buffer_append(b, d, 2);
}

static void br_put_be32(pk_buffer *b, uint32_t v)
{
    uint8_t d[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    pk_buffer_append(b, d, 4);
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
    pk_thread_names *thread_names; /* the names of the thread root frames */
    uint32_t *function_lines; /* made-up line per function without one, 0 = none yet */
    pk_u64map last_line;      /* module number -> last made-up line in it */
    uint32_t next_module;
    pk_buffer head, tail;   /* a group before and after its time record */
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

/* Whether string s has text before its first NUL byte: what a module's file is written as
 * (a mapping of an empty file would read back as a module named "module N"). */
static bool br_has_text(const pk_profile *p, uint32_t s)
{
    return s != 0 && s != PK_NONE && pk_str(p, s)[0] != '\0';
}

/* The file a function's frames are put in: its source file, else its resource. */
static uint64_t br_module_key(const pk_profile *p, const pk_function *fn, const pk_frame *fr)
{
    if (fn && br_has_text(p, fn->file))
        return fn->file;
    uint32_t resources[2] = {fr ? fr->resource : PK_NONE, fn ? fn->resource : PK_NONE};
    for (int i = 0; i < 2; i++) {
        if (resources[i] == PK_NONE || resources[i] >= pk_resource_count(p))
            continue;
        const pk_resource *res = pk_resource_at(p, resources[i]);
        if (br_has_text(p, res->path))
            return res->path;
        if (br_has_text(p, res->name))
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
    if (f->line == 0 && fn && fr && !pk_str_len(w->p, fn->file)) {
        /* BR tools list by line: give each function without lines a number of its own. A
         * function with a source file keeps line 0: its file tells it apart, and a BR file read
         * back (whose functions all have their module as file) must write the same lines. */
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
    size_t file_len = strlen(file);
    size_t base_offset = pk_path_basename_offset(file, file_len);
    const char *base = file + base_offset;
    size_t base_len = file_len - base_offset;
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
    assert(w->frames); /* made for every frame and the unknown one before anything is written */
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
        uint16_t module = 0;
        pk_status st = br_writer_module(w, BR_KEY_THREADS, &module);
        if (st != PK_OK)
            return st;
        const char *name = pk_thread_display_name(w->thread_names, thread);
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

static void br_put_frame(pk_buffer *b, unsigned type, const br_out_frame *f)
{
    pk_buffer_byte(b, type);
    br_put_be16(b, f->module);
    br_put_be32(b, f->line);
    pk_buffer_byte(b, f->clause);
    switch (f->label) {
    case BR_LABEL_FUNCTION:
        pk_buffer_byte(b, BR_FUNCTION);
        pk_buffer_byte(b, f->name_len);
        pk_buffer_append(b, f->name, f->name_len);
        break;
    case BR_LABEL_GOSUB: pk_buffer_byte(b, BR_GOSUB); break;
    case BR_LABEL_MAIN: pk_buffer_byte(b, BR_MAIN); break;
    default: break;
    }
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
    if (pk_unit_ns(pk_str(p, pk_value_type_at(p, chosen)->unit)))
        *time_value = chosen;
    else if (pk_value_counts_samples(p, chosen))
        *count_value = chosen;
    for (uint32_t v = 0; v < n && *time_value == PK_NONE; v++)
        if (v != *count_value && pk_unit_ns(pk_str(p, pk_value_type_at(p, v)->unit)))
            *time_value = v;
    for (uint32_t v = 0; v < n && *count_value == PK_NONE; v++)
        if (v != *time_value && pk_value_counts_samples(p, v))
            *count_value = v;
    if (*time_value == PK_NONE && *count_value == PK_NONE)
        *count_value = chosen;
    if (*time_value != PK_NONE)
        *time_scale = pk_unit_ns(pk_str(p, pk_value_type_at(p, *time_value)->unit));
    return PK_OK;
}

static int64_t br_scale_time(int64_t v, int64_t scale)
{
    if (v > INT64_MAX / scale)
        return INT64_MAX;
    return v * scale;
}

pk_status pk_br_write(const pk_profile *p, pk_output *out, const pk_write_options *options,
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
        if (total_groups > BR_MAX_WRITTEN_GROUPS) {
            uint32_t value = count_value != PK_NONE ? count_value : time_value;
            return pk_error_set(err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                                "the value '%s' would need more than %u sample groups; choose a "
                                "count or time value",
                                pk_str(p, pk_value_type_at(p, value)->name),
                                BR_MAX_WRITTEN_GROUPS);
        }
    }

    /* A BR file is nothing but its sample groups: without one it would be an empty file,
     * which no reader takes for a profile. */
    if (total_groups == 0) {
        if (rows == 0)
            return pk_error_set(err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                                "the profile has no samples, and a BR profile without samples "
                                "would be an empty file");
        uint32_t value = count_value != PK_NONE ? count_value : time_value;
        return pk_error_set(err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                            "no sample has a value of '%s' above 0, and a BR profile without "
                            "samples would be an empty file",
                            pk_str(p, pk_value_type_at(p, value)->name));
    }

    pk_u64map_init(&w.modules);
    pk_u64map_init(&w.last_line);
    w.frames = calloc(pk_frame_count(p) + 1, sizeof *w.frames);
    w.thread_frames = calloc(pk_thread_count(p) + 1, sizeof *w.thread_frames);
    w.function_lines = calloc(pk_function_count(p) + 1, sizeof *w.function_lines);
    if (with_threads)
        w.thread_names = pk_thread_names_new(p);
    if (!w.frames || !w.thread_frames || !w.function_lines || (with_threads && !w.thread_names))
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
        if (!PK_ARRAY_RESERVE(w.stack_frames, w.stack_capacity, depth + 2)) {
            st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
            break;
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
        pk_buffer_clear(&w.head);
        pk_buffer_clear(&w.tail);
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
        pk_buffer_byte(&w.tail, BR_END);
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
    pk_thread_names_free(w.thread_names);
    pk_buffer_free(&w.head);
    pk_buffer_free(&w.tail);
    free(w.stack_frames);
    return st;
}
