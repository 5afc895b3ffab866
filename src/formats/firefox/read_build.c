/* SPDX-License-Identifier: MIT */
/* The Firefox Profiler reader's end (read.h): the kept tables become model frames and stacks,
 * the summed samples rows, each file thread a model thread. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/arith.h"
#include "core/array.h"
#include "core/damage.h"
#include "core/position.h"
#include "core/process_names.h"
#include "core/shown_names.h"
#include "formats/firefox/read.h"
#include "profkit/timeline.h"

bool fxr_append(fxr_column *c, int64_t v)
{
    if (!PK_ARRAY_RESERVE(c->v, c->cap, c->n + 1))
        return false;
    c->v[c->n++] = v;
    return true;
}

void fxr_free(fx_reader *r)
{
    for (size_t i = 0; i < r->set_count; i++) {
        fxr_set *s = &r->sets[i];
        for (int c = 0; c < FXR_COLUMNS; c++)
            free(s->col[c].v);
        free(s->strings);
        free(s->libs);
        free(s->stack_model);
        free(s->frame_model);
    }
    free(r->sets);
    free(r->threads);
    free(r->processes);
    pk_pairs_free(&r->pairs);
    pk_sums_free(&r->sums);
    pk_timed_pending_free(&r->timed);
    pk_spool_free(r->times);
    free(r->clock_start);
}

bool fxr_add_time(fx_reader *r, uint32_t thread, int64_t ns)
{
    if (r->times_failed)
        return false;
    if ((!r->times && !(r->times = pk_spool_new())) ||
        !pk_spool_append(r->times, thread, &ns, sizeof ns)) {
        r->times_failed = true;
        return false;
    }
    r->threads[thread].times++;
    return true;
}

/* Nanoseconds or bytes in one unit of each weight type. */
static const int64_t weight_scale[FXR_WEIGHTS] = {1, 1000000, 1};

bool fxr_add_sample(fx_reader *r, uint32_t thread, int64_t stack, pk_pair_value weight)
{
    fxr_thread *t = &r->threads[thread];
    /* With the weight type known, each weight is scaled to the model's unit at once (a
     * millisecond written with six decimals is a whole nanosecond again); else the sums are
     * scaled at the end. */
    if (!t->decided) {
        t->decided = true;
        t->scaled = t->weight_known;
    }
    if (t->scaled) {
        int64_t scale = t->in_ns ? 1 : weight_scale[t->weight];
        if (weight.is_double) {
            double v = weight.d * (double)scale;
            weight = pk_pair_int(v != v                 ? 0
                                 : v >= 9.2e18         ? INT64_MAX
                                 : v <= -9.2e18        ? INT64_MIN
                                                       : llround(v));
        } else {
            weight = pk_pair_int(pk_mul_saturating(weight.i, scale));
        }
    }
    /* The sample, for the thread's timeline (its time is in the thread's lane of times). */
    pk_timed_record sample = {thread, (uint32_t)stack, pk_pair_int(0), pk_pair_int(0), weight};
    t->records++;
    return pk_sums_add(&r->sums, (uint64_t)thread << 32 | (uint64_t)stack, weight) &&
           pk_timed_pending_add(&r->timed, &sample);
}

/* ---- frames ---------------------------------------------------------------------------------- */

static int64_t at(const fxr_set *s, fxr_col col, int64_t row)
{
    return row >= 0 && (uint64_t)row < s->col[col].n ? s->col[col].v[row] : FXR_NULL;
}

static uint32_t string_at(const fxr_set *strings, int64_t index)
{
    return index >= 0 && (uint64_t)index < strings->string_count ? strings->strings[index] : 0;
}

/* A boolean cell: true, or a number other than 0 (null and missing cells are false). */
static bool flag(int64_t cell)
{
    return cell != FXR_NULL && cell != 0;
}

/* The resource of lib index `lib` in libs (the libraries of a thread's set, else of its
 * process). */
static uint32_t lib_resource(const fxr_set *libs, int64_t lib)
{
    return lib >= 0 && (uint64_t)lib < libs->lib_count ? libs->libs[lib].resource : PK_NONE;
}

/* A Gecko location: "0x7f..." (an address), "name (in lib)", "name (url:line[:col])" with an
 * optional " [source]" after it, else a label. A JavaScript function's line and column are
 * where it starts (SpiderMonkey names a function by its script's position; the Firefox
 * Profiler makes them its funcTable's lineNumber and columnNumber). The profiler takes a
 * location with a url and a line for JavaScript, and a label for what its frame's
 * relevantForJS says. */
typedef struct location {
    const char *name;
    size_t name_len;
    const char *file;
    size_t file_len;
    uint32_t line, column;
    bool has_address;
    bool script, label;
    uint64_t address;
} location;

static bool parse_digits(const char *s, size_t n, uint32_t *out)
{
    if (n == 0 || n > 9)
        return false;
    uint32_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (uint32_t)(s[i] - '0');
    }
    *out = v;
    return true;
}

static location parse_location(const char *s, size_t n)
{
    location l = {s, n, NULL, 0, 0, 0, false, false, true, 0};
    if (n > 2 && s[0] == '0' && s[1] == 'x' && n <= 18) {
        uint64_t a = 0;
        size_t i = 2;
        for (; i < n; i++) {
            char c = s[i];
            int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                                   : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (d < 0)
                break;
            a = a << 4 | (uint64_t)d;
        }
        if (i == n) {
            l.has_address = true;
            l.label = false;
            l.address = a;
            return l;
        }
    }
    /* " [N]" after the parentheses (version 32 on). */
    size_t end = n;
    if (end > 0 && s[end - 1] == ']') {
        size_t open = end;
        while (open > 0 && s[open - 1] != '[')
            open--;
        if (open >= 2 && s[open - 2] == ' ')
            end = open - 2;
    }
    if (end == 0 || s[end - 1] != ')')
        return l;
    size_t open = end - 1;
    while (open > 0 && s[open - 1] != '(')
        open--;
    if (open < 2 || s[open - 2] != ' ')
        return l;
    const char *inside = s + open;
    size_t inside_len = end - 1 - open;
    l.name_len = open - 2;
    if (inside_len > 3 && memcmp(inside, "in ", 3) == 0) {
        l.label = false;
        return l; /* native, with its library's name */
    }
    /* url:line[:col]: the line is the last or second-to-last number. */
    size_t colon = inside_len;
    uint32_t a, b;
    while (colon > 0 && inside[colon - 1] != ':')
        colon--;
    if (colon == 0 || !parse_digits(inside + colon, inside_len - colon, &a)) {
        l.file = inside;
        l.file_len = inside_len;
        return l;
    }
    size_t colon2 = colon - 1;
    while (colon2 > 0 && inside[colon2 - 1] != ':')
        colon2--;
    if (colon2 > 0 && parse_digits(inside + colon2, colon - 1 - colon2, &b)) {
        l.file_len = colon2 - 1;
        l.line = b;
        l.column = a;
    } else {
        l.file_len = colon - 1;
        l.line = a;
    }
    l.file = inside;
    l.script = l.file_len > 0;
    l.label = !l.script;
    return l;
}

static uint32_t gecko_frame(fx_reader *r, const fxr_set *s, const fxr_set *strings,
                            const fxr_set *libs, int64_t f)
{
    uint32_t text = string_at(strings, at(s, FXR_FRAME_LOCATION, f));
    location l = parse_location(pk_str(r->p, text), pk_str_len(r->p, text));
    pk_function fn = {
        .name = l.name_len ? pk_intern(r->p, l.name, l.name_len)
                           : pk_intern_cstr(r->p, "(unnamed)"),
        .file = l.file_len ? pk_intern(r->p, l.file, l.file_len) : 0,
        .start_line = l.line,
        .start_column = l.column,
    };
    if (l.script)
        fn.flags = PK_FUNCTION_SCRIPT;
    else if (l.label && flag(at(s, FXR_FRAME_RELEVANT_FOR_JS, f)))
        fn.flags = PK_FUNCTION_SCRIPT_RELEVANT;
    if (fn.name == PK_NONE || fn.file == PK_NONE)
        return PK_NONE;
    pk_frame fr = {0, l.line ? l.line : pk_position(at(s, FXR_FRAME_LINE, f)), 0, PK_NONE, 0};
    if (l.has_address) {
        fr.address = l.address;
        fr.flags = PK_FRAME_HAS_ADDRESS;
        for (size_t i = 0; i < libs->lib_count; i++)
            if (l.address >= libs->libs[i].start && l.address < libs->libs[i].end)
                fr.resource = libs->libs[i].resource;
    }
    fn.resource = fr.resource;
    fr.function = pk_intern_function(r->p, &fn);
    return fr.function == PK_NONE ? PK_NONE : pk_intern_frame(r->p, &fr);
}

static uint32_t processed_frame(fx_reader *r, const fxr_set *s, const fxr_set *strings,
                                const fxr_set *libs, int64_t f)
{
    int64_t func = at(s, FXR_FRAME_FUNC, f);
    int64_t name = at(s, FXR_FUNC_NAME, func);
    int64_t file = at(s, FXR_FUNC_FILE, func);
    if (file == FXR_NULL) /* version 58 on: through `sources` */
        file = at(&r->sets[0], FXR_SOURCE_FILE, at(s, FXR_FUNC_SOURCE, func));
    pk_function fn = {
        .name = name == FXR_NULL ? pk_intern_cstr(r->p, "(unnamed)") : string_at(strings, name),
        .file = file == FXR_NULL ? 0 : string_at(strings, file),
        .start_line = pk_position(at(s, FXR_FUNC_LINE, func)),
        .start_column = pk_position(at(s, FXR_FUNC_COLUMN, func)),
    };
    int64_t flags = at(s, FXR_FUNC_FLAGS, func);
    if (flag(at(s, FXR_FUNC_IS_JS, func)) || (flags > 0 && (flags & 1)))
        fn.flags |= PK_FUNCTION_SCRIPT;
    if (flag(at(s, FXR_FUNC_RELEVANT_FOR_JS, func)) || (flags > 0 && (flags & 2)))
        fn.flags |= PK_FUNCTION_SCRIPT_RELEVANT;
    /* A library is what a frame's address is relative to: a frame without an address keeps
     * none (as the writer lists libraries only for frames with addresses, which keeps what is
     * written and read back the same). */
    pk_frame fr = {0, pk_position(at(s, FXR_FRAME_LINE, f)), 0, PK_NONE, 0};
    int64_t address = at(s, FXR_FRAME_ADDRESS, f);
    int64_t lib = at(s, FXR_FRAME_LIB, f);
    if (lib == FXR_NULL)
        lib = at(s, FXR_RESOURCE_LIB, at(s, FXR_FUNC_RESOURCE, func));
    fn.resource = address >= 0 ? lib_resource(libs, lib) : PK_NONE;
    if (address >= 0 && fn.resource != PK_NONE) {
        /* Relative to the library, which the reader maps from 0 (read.c): the same number. */
        fr.address = (uint64_t)address;
        fr.resource = fn.resource;
        fr.flags = PK_FRAME_HAS_ADDRESS;
    }
    int64_t depth = at(s, FXR_FRAME_INLINE_DEPTH, f);
    if (depth > 0 && depth != FXR_NULL)
        fr.flags |= PK_FRAME_INLINED;
    if (fn.name == PK_NONE)
        return PK_NONE;
    fr.function = pk_intern_function(r->p, &fn);
    return fr.function == PK_NONE ? PK_NONE : pk_intern_frame(r->p, &fr);
}

/* The model frame of frame index f of set s (memoized), its address looked up in libs;
 * PK_NONE when memory runs out. */
static uint32_t frame_of(fx_reader *r, fxr_set *s, const fxr_set *strings, const fxr_set *libs,
                         int64_t f)
{
    size_t n = s->col[FXR_FRAME_FUNC].n > s->col[FXR_FRAME_LOCATION].n
                   ? s->col[FXR_FRAME_FUNC].n
                   : s->col[FXR_FRAME_LOCATION].n;
    if (f >= 0 && (uint64_t)f < n && s->frame_model && s->frame_model[f])
        return s->frame_model[f] - 1;
    uint32_t frame;
    if (f < 0 || (uint64_t)f >= n) {
        r->bad_indexes++;
        pk_function fn = {.name = pk_intern_printf(r->p, "(frame %" PRId64 ")", f),
                          .resource = PK_NONE};
        if (fn.name == PK_NONE)
            return PK_NONE;
        pk_frame fr = {pk_intern_function(r->p, &fn), 0, 0, PK_NONE, 0};
        return fr.function == PK_NONE ? PK_NONE : pk_intern_frame(r->p, &fr);
    }
    frame = s->col[FXR_FRAME_LOCATION].n ? gecko_frame(r, s, strings, libs, f)
                                         : processed_frame(r, s, strings, libs, f);
    if (frame == PK_NONE)
        return PK_NONE;
    if (!s->frame_model && !(s->frame_model = calloc(n, sizeof *s->frame_model)))
        return PK_NONE;
    s->frame_model[f] = frame + 1;
    return frame;
}

/* ---- stacks ------------------------------------------------------------------------------------ */

/* The prefix of stack i, -1 for a root; a prefix that is not an earlier stack is taken as none
 * (counted), so that walking prefixes always ends. */
static int64_t prefix_of(fx_reader *r, const fxr_set *s, int64_t i)
{
    int64_t prefix;
    if (s->col[FXR_STACK_PREFIX_OFFSET].n) {
        int64_t offset = at(s, FXR_STACK_PREFIX_OFFSET, i);
        prefix = offset == 0 || offset == FXR_NULL ? -1 : i - offset;
    } else {
        prefix = at(s, FXR_STACK_PREFIX, i);
        if (prefix == FXR_NULL)
            prefix = -1;
    }
    if (prefix >= i || prefix < -1) {
        r->bad_prefixes++;
        return -1;
    }
    return prefix;
}

/* Where a thread's stacks, strings and libraries are: its own set's where it has them (a
 * processed profile's thread, a Gecko thread), else the profile's shared ones (set 0) or, for
 * libraries, its process's. */
typedef struct fxr_thread_sets {
    fxr_set *tables;
    const fxr_set *strings, *libs;
} fxr_thread_sets;

static fxr_thread_sets thread_sets(fx_reader *r, const fxr_thread *th)
{
    fxr_set *own = &r->sets[th->set];
    return (fxr_thread_sets){own->has_stacks ? own : &r->sets[0],
                             own->has_strings ? own : &r->sets[0],
                             own->lib_count ? own : &r->sets[th->libs]};
}

/* The model stack of stack index i (within the table) of set s, memoized: up the prefixes to a
 * known stack, then down interning. False when memory runs out. */
static bool stack_of(fx_reader *r, fxr_set *s, const fxr_set *strings, const fxr_set *libs,
                     int64_t i, uint32_t *out, uint32_t **path, size_t *cap)
{
    size_t n = s->col[FXR_STACK_FRAME].n;
    if (!s->stack_model && !(s->stack_model = calloc(n, sizeof *s->stack_model)))
        return false;
    size_t count = 0;
    int64_t x = i;
    while (x >= 0 && !s->stack_model[x]) {
        if (!pk_array_reserve((void **)path, cap, sizeof **path, count + 1))
            return false;
        (*path)[count++] = (uint32_t)x;
        x = prefix_of(r, s, x);
    }
    uint32_t prefix = x >= 0 ? s->stack_model[x] - 1 : PK_NONE;
    while (count > 0) {
        uint32_t y = (*path)[--count];
        uint32_t frame = frame_of(r, s, strings, libs, at(s, FXR_STACK_FRAME, y));
        uint32_t stack = frame == PK_NONE ? PK_NONE : pk_intern_stack(r->p, prefix, frame);
        if (stack == PK_NONE)
            return false;
        s->stack_model[y] = stack + 1;
        prefix = stack;
    }
    *out = prefix;
    return true;
}

/* ---- threads and rows -------------------------------------------------------------------------- */

static pk_status nomem(pk_error *err)
{
    return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory reading the Firefox profile");
}

static const char *const value_names[FXR_WEIGHTS][2] = {
    {"samples", "count"}, {"time", "nanoseconds"}, {"bytes", "bytes"}};

/* ---- timelines -------------------------------------------------------------------------------- */

/* Replaying the spooled samples: thread by thread (a thread's samples are spooled together),
 * each with the next time of its thread's lane. */
typedef struct timed_replay {
    fx_reader *r;
    const uint32_t *value_of;
    uint32_t **path;
    size_t *cap;
    uint32_t thread;          /* whose lane `times` reads; UINT32_MAX before the first */
    pk_spool_reader times;
    const unsigned char *at, *end;
    bool reading, nomem, io_error;
    pk_status status;
} timed_replay;

static bool next_time(timed_replay *x, uint32_t thread, int64_t *ns)
{
    if (x->thread != thread) {
        if (x->reading)
            pk_spool_reader_free(&x->times);
        pk_spool_reader_init(&x->times, x->r->times, thread);
        x->reading = true;
        x->thread = thread;
        x->at = x->end = NULL;
    }
    if (x->at == x->end) {
        size_t n;
        if (!pk_spool_reader_next(&x->times, &x->at, &n)) {
            x->io_error = true; /* as many times as samples were spooled */
            return false;
        }
        x->end = x->at + n;
    }
    memcpy(ns, x->at, sizeof *ns);
    x->at += sizeof *ns;
    return true;
}

static bool replay_one(void *ctx, const pk_timed_record *rec)
{
    timed_replay *x = ctx;
    fx_reader *r = x->r;
    const fxr_thread *th = &r->threads[rec->thread];
    /* A thread is timed when every sample it added has a time. */
    if (th->times == 0 || th->times != th->records)
        return true;
    int64_t rel;
    if (!next_time(x, rec->thread, &rel))
        return false;
    int64_t scale = th->scaled ? 1 : weight_scale[th->weight];
    pk_sum one = {0, rec->weight.is_double ? 0 : rec->weight.i,
                  rec->weight.is_double ? rec->weight.d : 0, 1};
    int64_t weight = pk_sum_scaled(&one, scale);
    if (weight == 0)
        return true; /* as rows weighing nothing are left out (an empty sample ending a span) */
    int64_t index = (int64_t)rec->key - 1;
    fxr_thread_sets sets = thread_sets(r, th);
    fxr_set *tables = sets.tables;
    const fxr_set *strings = sets.strings, *libs = sets.libs;
    if (index >= 0 && (uint64_t)index >= tables->col[FXR_STACK_FRAME].n)
        return true; /* left out of the rows as well */
    uint32_t stack = PK_NONE;
    if (index >= 0 && !stack_of(r, tables, strings, libs, index, &stack, x->path, x->cap)) {
        x->nomem = true;
        return false;
    }
    int64_t start = r->clock_start[th->clock];
    if (start == FXR_NULL)
        start = r->clock_start[0] == FXR_NULL ? 0 : r->clock_start[0];
    int64_t values[PK_MAX_VALUES];
    memset(values, 0, pk_value_type_count(r->p) * sizeof *values);
    values[x->value_of[th->weight]] = weight;
    /* A traced sample lasts as long as it weighs. */
    int64_t duration = th->weight == FXR_WEIGHT_MS && weight > 0 ? weight : 0;
    pk_status status = pk_timeline_append(r->p, rec->thread, stack, pk_add_saturating(start, rel),
                                          duration, values);
    if (status == PK_ERR_USAGE) /* a time or span beyond the clock: the rows hold it alone */
        status = pk_timeline_drop(r->p, rec->thread);
    x->status = status;
    return status == PK_OK;
}

static pk_status timelines(fx_reader *r, const uint32_t *value_of, uint32_t **path, size_t *cap,
                           pk_error *err)
{
    if (r->timed.failed || r->times_failed)
        return pk_error_set(err, PK_ERR_IO, PK_NO_OFFSET,
                            "cannot write the sample times to a temporary file");
    timed_replay x;
    memset(&x, 0, sizeof x);
    x.r = r;
    x.value_of = value_of;
    x.path = path;
    x.cap = cap;
    x.thread = UINT32_MAX;
    bool io_error;
    bool ok = pk_timed_pending_replay(&r->timed, replay_one, &x, &io_error);
    if (x.reading)
        pk_spool_reader_free(&x.times);
    if (ok)
        return PK_OK;
    if (x.nomem || x.status == PK_ERR_NOMEM)
        return nomem(err);
    return pk_error_set(err, PK_ERR_IO, PK_NO_OFFSET,
                        "cannot read the sample times back from a temporary file");
}

pk_status fxr_finish(fx_reader *r, pk_error *err)
{
    for (size_t t = 0; t < r->thread_count; t++) {
        const fxr_thread *th = &r->threads[t];
        uint32_t name = th->name ? th->name : pk_intern_printf(r->p, "Thread %zu", t + 1);
        if (name == PK_NONE || pk_add_thread(r->p, name, th->pid, th->tid) == PK_NONE)
            return nomem(err);
        /* A process's name reads back as the input's name of it (core/process_names.h), so a
         * conversion to the Firefox Profiler and back keeps it; a processName that is only the
         * product (what profkit writes for a process nothing named) is no name of its own. */
        uint32_t product = pk_metadata_get(r->p)->product;
        if (th->process_name && pk_str_len(r->p, th->process_name) &&
            th->pid != -1 && th->process_name != product &&
            pk_process_name_set(r->p, th->pid, pk_str(r->p, th->process_name)) != PK_OK)
            return nomem(err);
    }
    if (!pk_rename_threads_as_shown(r->p))
        return nomem(err);
    /* A value type per weight type, in the order the threads with samples use them (a thread
     * without samples says nothing of the weights: the first thread's type stands for a
     * profile without any). */
    uint32_t value_of[FXR_WEIGHTS] = {PK_NONE, PK_NONE, PK_NONE};
    for (size_t i = 0; i <= r->sums.count; i++) {
        if (i == r->sums.count && (pk_value_type_count(r->p) > 0 || r->thread_count == 0))
            break;
        uint8_t k = r->threads[i < r->sums.count ? r->sums.items[i].key >> 32 : 0].weight;
        if (value_of[k] == PK_NONE &&
            (value_of[k] = pk_add_value_type(r->p, value_names[k][0], value_names[k][1])) ==
                PK_NONE)
            return nomem(err);
    }
    uint32_t *path = NULL;
    size_t cap = 0;
    for (size_t i = 0; i < r->sums.count; i++) {
        const pk_sum *sum = &r->sums.items[i];
        uint32_t thread = (uint32_t)(sum->key >> 32);
        int64_t index = (int64_t)(uint32_t)sum->key - 1; /* -1: the empty stack */
        const fxr_thread *th = &r->threads[thread];
        int64_t v = pk_sum_scaled(sum, th->scaled ? 1 : weight_scale[th->weight]);
        if (v == 0)
            continue;
        fxr_thread_sets sets = thread_sets(r, th);
        fxr_set *tables = sets.tables;
        const fxr_set *strings = sets.strings, *libs = sets.libs;
        uint32_t stack = PK_NONE;
        if (index >= 0 && (uint64_t)index >= tables->col[FXR_STACK_FRAME].n) {
            r->bad_indexes++; /* a sample of a stack the table does not hold is left out */
            continue;
        }
        if (index >= 0 && !stack_of(r, tables, strings, libs, index, &stack, &path, &cap)) {
            free(path);
            return nomem(err);
        }
        if (pk_add_sample_value(r->p, thread, stack, value_of[th->weight], v) != PK_OK) {
            free(path);
            return nomem(err);
        }
    }
    pk_status timed = timelines(r, value_of, &path, &cap, err);
    free(path);
    if (timed != PK_OK)
        return timed;
    if (r->markers)
        pk_warn(r->p, "%" PRIu64 " marker%s left aside (profkit reads samples)", r->markers,
                r->markers == 1 ? "" : "s");
    if (r->devtools_ticks || r->devtools_memory || r->devtools_allocations)
        pk_warn(r->p,
                "the DevTools recording's own timeline left aside (%" PRIu64
                " framerate ticks, %" PRIu64 " memory measurements, %" PRIu64
                " logged allocations): profkit reads the samples of its profile",
                r->devtools_ticks, r->devtools_memory, r->devtools_allocations);
    if (r->bad_indexes)
        pk_warn(r->p, "%" PRIu64 " reference%s to a stack or frame the tables do not hold",
                r->bad_indexes, r->bad_indexes == 1 ? "" : "s");
    if (r->bad_prefixes)
        pk_warn(r->p, "%" PRIu64 " stack%s whose prefix is not an earlier stack taken as roots",
                r->bad_prefixes, r->bad_prefixes == 1 ? "" : "s");
    if (r->unpaired[0])
        pk_warn(r->p, "%" PRIu64 " sample%s without a weight left out", r->unpaired[0],
                r->unpaired[0] == 1 ? "" : "s");
    if (r->unpaired[1])
        pk_warn(r->p, "%" PRIu64 " weight%s without a sample left out", r->unpaired[1],
                r->unpaired[1] == 1 ? "" : "s");
    return PK_OK;
}
