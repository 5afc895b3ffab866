/* SPDX-License-Identifier: MIT */
/* Reading the Firefox Profiler's files: the JSON walk (read.h says what is kept and why). One
 * walk reads both formats; which one a part of the document is in shows in its shape (a table
 * with a `schema` and `data` rows is Gecko's, one with columns is processed). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/arith.h"
#include "core/array.h"
#include "core/input.h"
#include "core/path.h"
#include "formats/firefox/read.h"

enum { GECKO_SAMPLES, GECKO_STACKS, GECKO_FRAMES };

static bool nomem(pk_json_parser *jp)
{
    return pk_json_parser_fail(jp, "out of memory reading the Firefox profile");
}

/* An integer cell: an integer, null (FXR_NULL), a boolean (0 or 1); anything else is null. */
static int64_t cell(const pk_json_scalar *v)
{
    int64_t i;
    if (v->kind == PK_JSON_BOOL)
        return v->boolean;
    return pk_json_scalar_i64(v, &i) && i != FXR_NULL ? i : FXR_NULL;
}

/* A number written as a JSON number or a string of digits (pids are strings since version 47;
 * the crate writes tids such as "123.1" for a second thread of one id). */
static int64_t id_of(const pk_json_scalar *v)
{
    int64_t i;
    if (pk_json_scalar_i64(v, &i))
        return i;
    if (v->kind != PK_JSON_STRING || v->len == 0 || v->len > 20)
        return -1;
    char text[24];
    memcpy(text, v->s, v->len);
    text[v->len] = '\0';
    char *end;
    long long n = strtoll(text, &end, 10);
    return end == text || n < 0 ? -1 : (int64_t)n;
}

/* Milliseconds (a time) as nanoseconds, exactly from the decimal text when it has at most six
 * decimals; FXR_NULL for what is not a number or lies beyond the clock. */
static int64_t ms_to_ns(const pk_json_scalar *v)
{
    int64_t ns;
    if (pk_json_scalar_decimal(v, 6, &ns))
        return ns == FXR_NULL ? FXR_NULL : ns;
    double ms;
    if (v->kind != PK_JSON_DOUBLE || !pk_json_scalar_double(v, &ms) || !(ms > -9e12 && ms < 9e12))
        return FXR_NULL;
    return (int64_t)llround(ms * 1e6);
}

static fxr_set *new_set(fx_reader *r, uint32_t *index)
{
    if (r->set_count >= UINT32_MAX || !PK_ARRAY_RESERVE(r->sets, r->set_cap, r->set_count + 1))
        return NULL;
    fxr_set *s = &r->sets[r->set_count];
    memset(s, 0, sizeof *s);
    *index = (uint32_t)r->set_count++;
    return s;
}

/* ---- processes: libraries and clocks ------------------------------------------------------------ */

/* The (sub)profile being read. */
static const fxr_process *current_process(const fx_reader *r)
{
    return &r->processes[r->process_count - 1];
}

/* The set that holds the libraries of the process being read. */
static uint32_t process_libs(const fx_reader *r)
{
    return current_process(r)->set;
}

/* A (sub)profile begins, whose members are at level of the string document at nesting: its
 * libraries go to a set of their own (the profile's to set 0) and its times count from a clock
 * of its own. */
static bool begin_process(fx_reader *r, uint32_t level, uint32_t nesting)
{
    uint32_t set = 0;
    if ((r->process_count > 0 && !new_set(r, &set)) || r->clock_count >= UINT32_MAX ||
        !PK_ARRAY_RESERVE(r->clock_start, r->clock_cap, r->clock_count + 1) ||
        !PK_ARRAY_RESERVE(r->processes, r->process_cap, r->process_count + 1))
        return false;
    r->clock_start[r->clock_count] = FXR_NULL;
    r->processes[r->process_count++] =
        (fxr_process){set, level, nesting, (uint32_t)r->clock_count++};
    return true;
}

static fxr_thread *current_thread(fx_reader *r)
{
    return &r->threads[r->thread_count - 1];
}

static fxr_set *current_set(fx_reader *r)
{
    return &r->sets[current_thread(r)->set];
}

/* Whether the object at depth d is a thread: an element of `threads` at the top, in a Gecko
 * `processes` sub-profile (at any depth), or in the Gecko profile of a DevTools export's
 * `profile`. */
static bool is_profile_element(const pk_json_parser *jp, uint32_t d, const char *key)
{
    if (d < 2 || !pk_json_parser_key_is(jp, d - 2, key) || !pk_json_parser_in_array(jp, d - 1))
        return false;
    uint32_t l = 0;
    if (d - 2 > 0 && pk_json_parser_key_is(jp, 0, "profile"))
        l = 1;
    while (l + 2 <= d - 2 && pk_json_parser_key_is(jp, l, "processes") &&
           pk_json_parser_in_array(jp, l + 1))
        l += 2;
    return l == d - 2;
}

static bool is_thread(const pk_json_parser *jp, uint32_t d)
{
    return is_profile_element(jp, d, "threads");
}

/* A Gecko sub-profile: an element of `processes`, with a meta, libraries and threads of its
 * own. */
static bool is_process(const pk_json_parser *jp, uint32_t d)
{
    return is_profile_element(jp, d, "processes");
}

/* The same for a `libs` element: its object's depth. Returns the set its libraries go to. */
static bool is_lib(fx_reader *r, const pk_json_parser *jp, uint32_t d, uint32_t *set)
{
    if (d < 2 || !pk_json_parser_key_is(jp, d - 2, "libs") || !pk_json_parser_in_array(jp, d - 1))
        return false;
    if (r->in_thread && d == r->thread_level + 2) { /* version 24: a thread's own */
        *set = current_thread(r)->set;
        return true;
    }
    if (r->in_thread)
        return false;
    /* The profile's, or a Gecko process's own. */
    *set = process_libs(r);
    return true;
}

/* ---- thread members ---------------------------------------------------------------------------- */

static const struct {
    const char *table, *column;
    int col;
} processed_columns[] = {
    {"stackTable", "frame", FXR_STACK_FRAME},
    {"stackTable", "prefix", FXR_STACK_PREFIX},
    {"stackTable", "prefixOffset", FXR_STACK_PREFIX_OFFSET},
    {"frameTable", "func", FXR_FRAME_FUNC},
    {"frameTable", "line", FXR_FRAME_LINE},
    {"frameTable", "address", FXR_FRAME_ADDRESS},
    {"frameTable", "inlineDepth", FXR_FRAME_INLINE_DEPTH},
    {"frameTable", "lib", FXR_FRAME_LIB},
    {"funcTable", "name", FXR_FUNC_NAME},
    {"funcTable", "fileName", FXR_FUNC_FILE},
    {"funcTable", "source", FXR_FUNC_SOURCE},
    {"funcTable", "lineNumber", FXR_FUNC_LINE},
    {"funcTable", "columnNumber", FXR_FUNC_COLUMN},
    {"funcTable", "resource", FXR_FUNC_RESOURCE},
    {"funcTable", "isJS", FXR_FUNC_IS_JS},
    {"funcTable", "relevantForJS", FXR_FUNC_RELEVANT_FOR_JS},
    {"funcTable", "flags", FXR_FUNC_FLAGS},
    {"resourceTable", "lib", FXR_RESOURCE_LIB},
    {"sources", "filename", FXR_SOURCE_FILE},
};

/* The kept column of a processed table's column at levels `at` (table) and at + 1 (column). */
static int processed_column(const pk_json_parser *jp, uint32_t at)
{
    for (size_t i = 0; i < sizeof processed_columns / sizeof processed_columns[0]; i++)
        if (pk_json_parser_key_is(jp, at, processed_columns[i].table) &&
            pk_json_parser_key_is(jp, at + 1, processed_columns[i].column))
            return processed_columns[i].col;
    return -1;
}

static bool add_string(fx_reader *r, pk_json_parser *jp, fxr_set *s, const pk_json_scalar *v)
{
    s->has_strings = true;
    uint32_t id = v->kind == PK_JSON_STRING ? pk_intern(r->p, v->s, v->len) : 0;
    if (id == PK_NONE || !PK_ARRAY_RESERVE(s->strings, s->string_cap, s->string_count + 1))
        return nomem(jp);
    s->strings[s->string_count++] = id;
    return true;
}

/* A table's column value, or a string of a string array, at levels from `at` (the table's key)
 * on, for set s. */
static bool table_value(fx_reader *r, pk_json_parser *jp, fxr_set *s, uint32_t at,
                        const pk_json_scalar *v)
{
    uint32_t d = pk_json_parser_depth(jp);
    if (d == at + 2 && pk_json_parser_in_array(jp, at + 1) &&
        (pk_json_parser_key_is(jp, at, "stringArray") ||
         pk_json_parser_key_is(jp, at, "stringTable")))
        return add_string(r, jp, s, v);
    if (d == at + 3 && pk_json_parser_in_array(jp, at + 2)) {
        int col = processed_column(jp, at);
        if (col >= 0) {
            if (col <= FXR_STACK_PREFIX_OFFSET)
                s->has_stacks = true;
            return fxr_append(&s->col[col], cell(v)) ? true : nomem(jp);
        }
    }
    return true;
}

/* ---- Gecko tables --------------------------------------------------------------------------- */

static int gecko_table(const pk_json_parser *jp, uint32_t at)
{
    if (pk_json_parser_key_is(jp, at, "samples"))
        return GECKO_SAMPLES;
    if (pk_json_parser_key_is(jp, at, "stackTable"))
        return GECKO_STACKS;
    if (pk_json_parser_key_is(jp, at, "frameTable"))
        return GECKO_FRAMES;
    return -1;
}

static void default_schemas(fx_reader *r)
{
    memset(r->schema, -1, sizeof r->schema);
    memset(r->schema_seen, 0, sizeof r->schema_seen);
    /* The documented orders, for data before its schema. */
    r->schema[GECKO_SAMPLES][0] = FXR_SAMPLE_STACK;
    r->schema[GECKO_STACKS][0] = FXR_STACK_PREFIX;
    r->schema[GECKO_STACKS][1] = FXR_STACK_FRAME;
    r->schema[GECKO_FRAMES][0] = FXR_FRAME_LOCATION;
}

static void schema_entry(fx_reader *r, pk_json_parser *jp, int table, const pk_json_scalar *v)
{
    static const struct {
        int table;
        const char *name;
        int col;
    } known[] = {
        {GECKO_SAMPLES, "stack", FXR_SAMPLE_STACK}, {GECKO_SAMPLES, "weight", FXR_SAMPLE_WEIGHT},
        {GECKO_SAMPLES, "time", FXR_SAMPLE_TIME},
        {GECKO_STACKS, "prefix", FXR_STACK_PREFIX}, {GECKO_STACKS, "frame", FXR_STACK_FRAME},
        {GECKO_FRAMES, "location", FXR_FRAME_LOCATION}, {GECKO_FRAMES, "line", FXR_FRAME_LINE},
        {GECKO_FRAMES, "relevantForJS", FXR_FRAME_RELEVANT_FOR_JS},
    };
    int64_t index;
    size_t len;
    const char *name = pk_json_parser_key(jp, pk_json_parser_depth(jp) - 1, &len);
    if (!name || !pk_json_scalar_i64(v, &index))
        return;
    if (!r->schema_seen[table]) {
        memset(r->schema[table], -1, sizeof r->schema[table]);
        r->schema_seen[table] = true;
    }
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        if (known[i].table != table || strlen(known[i].name) != len ||
            memcmp(known[i].name, name, len) != 0)
            continue;
        /* A column moved away is no longer that column. */
        for (int c = 0; c < FXR_GECKO_MAX_COLUMNS; c++)
            if (r->schema[table][c] == known[i].col)
                r->schema[table][c] = -1;
        if (index >= 0 && index < FXR_GECKO_MAX_COLUMNS)
            r->schema[table][index] = (int8_t)known[i].col;
    }
}

static int64_t row_value(const fx_reader *r, int table, int col)
{
    for (int c = 0; c < FXR_GECKO_MAX_COLUMNS; c++)
        if (r->schema[table][c] == col)
            return r->row[c];
    return FXR_NULL;
}

/* Cell c of a Gecko row of table; a sample's time is kept to the nanosecond. */
static void row_cell(fx_reader *r, int table, uint64_t c, const pk_json_scalar *v)
{
    if (c >= FXR_GECKO_MAX_COLUMNS)
        return;
    r->row[c] = cell(v);
    if (table == GECKO_SAMPLES && r->schema[GECKO_SAMPLES][c] == FXR_SAMPLE_TIME)
        r->row_time = ms_to_ns(v);
}

static bool gecko_row_end(fx_reader *r, pk_json_parser *jp, int table)
{
    fxr_set *s = current_set(r);
    r->gecko = true;
    bool ok = true;
    if (table == GECKO_SAMPLES) {
        int64_t stack = row_value(r, table, FXR_SAMPLE_STACK);
        int64_t weight = row_value(r, table, FXR_SAMPLE_WEIGHT);
        if (stack != FXR_NULL && (stack < 0 || stack >= UINT32_MAX - 1)) {
            r->bad_indexes++;
            return true;
        }
        uint32_t thread = (uint32_t)(r->thread_count - 1);
        ok = fxr_add_sample(r, thread, stack == FXR_NULL ? 0 : stack + 1,
                            pk_pair_int(weight == FXR_NULL ? 1 : weight)) &&
             (r->row_time == FXR_NULL || fxr_add_time(r, thread, r->row_time));
    } else if (table == GECKO_STACKS) {
        s->has_stacks = true;
        ok = fxr_append(&s->col[FXR_STACK_PREFIX], row_value(r, table, FXR_STACK_PREFIX)) &&
             fxr_append(&s->col[FXR_STACK_FRAME], row_value(r, table, FXR_STACK_FRAME));
    } else {
        ok = fxr_append(&s->col[FXR_FRAME_LOCATION], row_value(r, table, FXR_FRAME_LOCATION)) &&
             fxr_append(&s->col[FXR_FRAME_LINE], row_value(r, table, FXR_FRAME_LINE)) &&
             fxr_append(&s->col[FXR_FRAME_RELEVANT_FOR_JS],
                        row_value(r, table, FXR_FRAME_RELEVANT_FOR_JS));
    }
    return ok ? true : nomem(jp);
}

/* ---- processed samples --------------------------------------------------------------------------- */

static bool offer(fx_reader *r, pk_json_parser *jp, int kind, pk_pair_value value)
{
    bool paired;
    pk_pair_value other;
    if (!pk_pairs_offer(&r->pairs, kind, value, &paired, &other))
        return nomem(jp);
    if (!paired)
        return true;
    pk_pair_value stack = kind == 0 ? value : other, weight = kind == 0 ? other : value;
    return fxr_add_sample(r, (uint32_t)(r->thread_count - 1), stack.i, weight) ? true
                                                                              : nomem(jp);
}

static bool sample_value(fx_reader *r, pk_json_parser *jp, const pk_json_scalar *v)
{
    fxr_thread *t = current_thread(r);
    if (r->sample_column == 0) {
        int64_t stack = 0;
        if (v->kind != PK_JSON_NULL) {
            if (!pk_json_scalar_i64(v, &stack) || stack < 0 || stack >= UINT32_MAX - 1)
                return pk_json_parser_fail(jp, "a sample's stack is not a stack index");
            stack++;
        }
        return offer(r, jp, 0, pk_pair_int(stack));
    }
    if (r->sample_column >= 2) { /* time, or timeDeltas */
        int64_t ns = ms_to_ns(v);
        if (ns == FXR_NULL) /* a time that is not one: the thread's times no longer count */
            return true;
        if (r->sample_column == 3)
            ns = t->delta_sum = pk_add_saturating(t->delta_sum, ns);
        return fxr_add_time(r, (uint32_t)(r->thread_count - 1), ns) ? true : nomem(jp);
    }
    if (r->sample_column == 1) {
        if (!t->weight_column) {
            t->weight_column = true;
            /* Milliseconds whose type is known before them (as writers write them) are taken
             * to the nanosecond from their text: a double holds 2^53 ns at most, which the
             * decimals of a long run's milliseconds exceed. */
            t->in_ns = t->weight_known && t->weight == FXR_WEIGHT_MS && !t->decided;
        }
        int64_t w;
        if (t->in_ns) {
            if (pk_json_scalar_decimal(v, 6, &w))
                return offer(r, jp, 1, pk_pair_int(w));
            if (v->kind == PK_JSON_DOUBLE) /* more decimals than nanoseconds, or beyond int64 */
                return offer(r, jp, 1, (pk_pair_value){true, 0, v->d * 1e6});
            return offer(r, jp, 1, pk_pair_int(v->kind == PK_JSON_INT
                                                   ? pk_mul_saturating(v->i, 1000000)
                                                   : 1000000));
        }
        if (v->kind == PK_JSON_DOUBLE)
            return offer(r, jp, 1, (pk_pair_value){true, 0, v->d});
        return offer(r, jp, 1, pk_pair_int(pk_json_scalar_i64(v, &w) ? w : 1));
    }
    return true;
}

/* The end of a thread's samples: stacks without a weight column weigh 1 each. */
static bool samples_end(fx_reader *r, pk_json_parser *jp)
{
    fxr_thread *t = current_thread(r);
    int kind;
    pk_pair_value value;
    while (pk_pairs_take_unpaired(&r->pairs, &kind, &value)) {
        if (kind == 0 && !t->weight_column) {
            if (!fxr_add_sample(r, (uint32_t)(r->thread_count - 1), value.i, pk_pair_int(1)))
                return nomem(jp);
        } else {
            r->unpaired[kind]++;
        }
    }
    return r->pairs.reader.error ? nomem(jp) : true;
}

/* ---- the handler -------------------------------------------------------------------------------- */

static bool thread_scalar(fx_reader *r, pk_json_parser *jp, const pk_json_scalar *v)
{
    uint32_t b = r->thread_level, d = pk_json_parser_depth(jp);
    if (r->row_table >= 0) { /* in a Gecko row */
        if (d == b + 4)
            row_cell(r, r->row_table, pk_json_parser_index(jp, b + 3), v);
        return true;
    }
    if (r->sample_column >= 0) /* in samples.stack, weight, time or timeDeltas */
        return d == b + 3 ? sample_value(r, jp, v) : true;
    fxr_thread *t = current_thread(r);
    if (d == b + 1) {
        if (pk_json_parser_key_is(jp, b, "name") && v->kind == PK_JSON_STRING) {
            if ((t->name = pk_intern(r->p, v->s, v->len)) == PK_NONE)
                return nomem(jp);
        } else if (pk_json_parser_key_is(jp, b, "processName") && v->kind == PK_JSON_STRING) {
            if ((t->process_name = pk_intern(r->p, v->s, v->len)) == PK_NONE)
                return nomem(jp);
        } else if (pk_json_parser_key_is(jp, b, "pid")) {
            t->pid = id_of(v);
        } else if (pk_json_parser_key_is(jp, b, "tid")) {
            t->tid = id_of(v);
        }
        return true;
    }
    if (pk_json_parser_key_is(jp, b, "markers")) {
        /* processed: a marker per name (Gecko: a row per marker, counted as it begins) */
        if (d == b + 3 && pk_json_parser_key_is(jp, b + 1, "name"))
            r->markers++;
        return true;
    }
    int table = gecko_table(jp, b);
    if (table >= 0 && d == b + 3 && pk_json_parser_key_is(jp, b + 1, "schema")) {
        r->gecko = true;
        schema_entry(r, jp, table, v);
        return true;
    }
    if (table >= 0 && d == b + 4 && pk_json_parser_key_is(jp, b + 1, "data") &&
        pk_json_parser_in_array(jp, b + 3)) {
        row_cell(r, table, pk_json_parser_index(jp, b + 3), v);
        return true;
    }
    if (table == GECKO_SAMPLES) {
        if (d == b + 2 && pk_json_parser_key_is(jp, b + 1, "weightType")) {
            t->weight = pk_json_scalar_is(v, "tracing-ms") ? FXR_WEIGHT_MS
                        : pk_json_scalar_is(v, "bytes")    ? FXR_WEIGHT_BYTES
                                                           : FXR_WEIGHT_SAMPLES;
            t->weight_known = true;
        }
        return true;
    }
    return table_value(r, jp, current_set(r), b, v);
}

static bool lib_scalar(fx_reader *r, pk_json_parser *jp, const pk_json_scalar *v)
{
    uint32_t k = pk_json_parser_depth(jp) - 1;
    uint32_t *target = pk_json_parser_key_is(jp, k, "name")     ? &r->lib_name
                       : pk_json_parser_key_is(jp, k, "path")   ? &r->lib_path
                       : pk_json_parser_key_is(jp, k, "codeId") ? &r->lib_code_id
                                                                : NULL;
    if (target && v->kind == PK_JSON_STRING) {
        if ((*target = pk_intern(r->p, v->s, v->len)) == PK_NONE)
            return nomem(jp);
    } else if (pk_json_parser_key_is(jp, k, "start")) {
        r->lib_start = cell(v);
    } else if (pk_json_parser_key_is(jp, k, "end")) {
        r->lib_end = cell(v);
    } else if (pk_json_parser_key_is(jp, k, "offset")) {
        r->lib_offset = cell(v);
    }
    return true;
}

static void begin_lib(fx_reader *r, uint32_t set, uint32_t level)
{
    r->in_lib = true;
    r->lib_set = set;
    r->lib_level = level;
    r->lib_name = r->lib_path = r->lib_code_id = 0;
    r->lib_start = r->lib_end = r->lib_offset = FXR_NULL;
}

static bool lib_end(fx_reader *r, pk_json_parser *jp)
{
    r->in_lib = false;
    fxr_set *s = &r->sets[r->lib_set];
    if (r->libs_in_string && r->lib_name && !r->lib_path) {
        /* Version 3 named a library by its path (version 4 made that `path`, and the file's
         * name `name`). */
        const char *path = pk_str(r->p, r->lib_name);
        r->lib_path = r->lib_name;
        if ((r->lib_name = pk_intern_cstr(r->p, pk_path_basename(path))) == PK_NONE)
            return nomem(jp);
    }
    /* A Gecko lib says where it was mapped; a processed one does not, and its frames' addresses
     * are relative to it: the whole address space, from 0. */
    bool mapped = r->lib_start >= 0 && r->lib_end > r->lib_start && r->lib_start != FXR_NULL;
    pk_resource res = {r->lib_name, r->lib_path, r->lib_code_id,
                       mapped ? (uint64_t)r->lib_start : 0,
                       mapped ? (uint64_t)r->lib_end : UINT64_MAX,
                       mapped && r->lib_offset > 0 ? (uint64_t)r->lib_offset : 0};
    uint32_t resource = pk_intern_resource(r->p, &res);
    if (resource == PK_NONE || !PK_ARRAY_RESERVE(s->libs, s->lib_cap, s->lib_count + 1))
        return nomem(jp);
    s->libs[s->lib_count++] = (fxr_lib){resource, res.start, res.limit};
    return true;
}

/* ---- documents in strings (Gecko versions 3 and 4) ------------------------------------------- */

#define FXR_MAX_NESTING 8 /* a child process's child's ...: each level escapes the one inside */

static bool on_scalar(void *ctx, pk_json_parser *jp, const pk_json_scalar *v);
static bool on_begin(void *ctx, pk_json_parser *jp, bool is_array);
static bool on_end(void *ctx, pk_json_parser *jp, bool is_array);

/* The libraries of a `libs` string: an array of lib objects. */
static bool string_libs_begin(void *ctx, pk_json_parser *jp, bool is_array)
{
    fx_reader *r = ctx;
    if (!is_array && !r->in_lib && pk_json_parser_depth(jp) == 1 && pk_json_parser_in_array(jp, 0))
        begin_lib(r, process_libs(r), 1);
    return true;
}

/* Reads the document in the string v with handler h, as part of the document jp reads (yajl
 * delivers a string whole: the string is in memory while it is read, as it was already). */
static bool read_string_document(fx_reader *r, pk_json_parser *jp, const pk_json_scalar *v,
                                 const pk_json_handler *h, const char *what)
{
    if (r->nesting >= FXR_MAX_NESTING)
        return pk_json_parser_fail(jp, "%s nests more than %d documents in strings", what,
                                   FXR_MAX_NESTING);
    r->nesting++;
    pk_json_parser inner;
    pk_json_parser_init(&inner, h, r);
    pk_json_end how = pk_json_parser_run_memory(&inner, v->s, v->len);
    r->nesting--;
    bool ok = how == PK_JSON_COMPLETE;
    if (how == PK_JSON_NOMEM)
        ok = nomem(jp);
    else if (!ok)
        ok = pk_json_parser_fail(jp, "%s (a JSON string), at byte %" PRIu64 " of it: %s", what,
                                 pk_json_parser_error_offset(&inner),
                                 how == PK_JSON_CUT ? "it ends early" : pk_json_parser_message(&inner));
    pk_json_parser_release(&inner);
    return ok;
}

/* Whether the string at depth d is a document of its own: a `libs` list or a thread's place in
 * `threads` (the path of one). */
static bool is_string_document(const pk_json_parser *jp, uint32_t d)
{
    return d >= 1 && (pk_json_parser_key_is(jp, d - 1, "libs") || is_thread(jp, d));
}

static bool string_document(fx_reader *r, pk_json_parser *jp, const pk_json_scalar *v, uint32_t d)
{
    if (pk_json_parser_key_is(jp, d - 1, "libs")) {
        r->libs_in_string = true;
        bool ok = read_string_document(
            r, jp, v, &(pk_json_handler){on_scalar, string_libs_begin, on_end}, "a `libs` list");
        r->libs_in_string = false;
        return ok;
    }
    /* A child process's profile: its own libraries, its own meta and clock, in the string
     * document about to be read. */
    if (!begin_process(r, 0, r->nesting + 1))
        return nomem(jp);
    bool ok = read_string_document(r, jp, v, &(pk_json_handler){on_scalar, on_begin, on_end},
                                   "a child process's profile");
    r->process_count--;
    return ok;
}

/* ---- the DevTools export ------------------------------------------------------------------------ */

/* Firefox's old DevTools Performance panel (Firefox 59 to 79 at least) saved a recording: its
 * own timeline at the top (`markers`, framerate `ticks`, `memory` measurements, an allocation
 * log in `allocations` with the `frames` of its stacks) beside the Gecko profile in `profile`,
 * which is what is read. The timeline is counted, for a warning, and not walked. Which of these
 * a member at the top is: */
typedef enum {
    DEVTOOLS_NONE,
    DEVTOOLS_MARKERS,
    DEVTOOLS_TICKS,
    DEVTOOLS_MEMORY,
    DEVTOOLS_ALLOCATIONS,
    DEVTOOLS_FRAMES
} devtools_member;

static devtools_member devtools_member_at_top(const fx_reader *r, const pk_json_parser *jp)
{
    if (r->nesting > 0 || pk_json_parser_depth(jp) < 2)
        return DEVTOOLS_NONE;
    return pk_json_parser_key_is(jp, 0, "markers")       ? DEVTOOLS_MARKERS
           : pk_json_parser_key_is(jp, 0, "ticks")       ? DEVTOOLS_TICKS
           : pk_json_parser_key_is(jp, 0, "memory")      ? DEVTOOLS_MEMORY
           : pk_json_parser_key_is(jp, 0, "allocations") ? DEVTOOLS_ALLOCATIONS
           : pk_json_parser_key_is(jp, 0, "frames")      ? DEVTOOLS_FRAMES
                                                         : DEVTOOLS_NONE;
}

/* Counts an entry of the timeline that begins here (a marker, tick or measurement: an element
 * of its array; an allocation: an element of `allocations.timestamps`). Returns whether the
 * value is the timeline's, which nothing else reads. */
static bool devtools_entry(fx_reader *r, const pk_json_parser *jp)
{
    devtools_member m = devtools_member_at_top(r, jp);
    uint32_t d = pk_json_parser_depth(jp);
    if (m == DEVTOOLS_MARKERS && d == 2)
        r->markers++;
    else if (m == DEVTOOLS_TICKS && d == 2)
        r->devtools_ticks++;
    else if (m == DEVTOOLS_MEMORY && d == 2)
        r->devtools_memory++;
    else if (m == DEVTOOLS_ALLOCATIONS && d == 3 && pk_json_parser_key_is(jp, 1, "timestamps"))
        r->devtools_allocations++;
    return m != DEVTOOLS_NONE;
}

/* Whether the scalar at depth d is a member of the Gecko profile's `meta`: at the top, or in a
 * DevTools export's `profile`. */
static bool is_meta_member(const fx_reader *r, const pk_json_parser *jp, uint32_t d)
{
    if (r->nesting > 0)
        return false;
    if (d == 2)
        return pk_json_parser_key_is(jp, 0, "meta");
    return d == 3 && pk_json_parser_key_is(jp, 0, "profile") &&
           pk_json_parser_key_is(jp, 1, "meta");
}

static bool on_scalar(void *ctx, pk_json_parser *jp, const pk_json_scalar *v)
{
    fx_reader *r = ctx;
    uint32_t d = pk_json_parser_depth(jp);
    if (r->in_lib)
        return d == r->lib_level + 1 ? lib_scalar(r, jp, v) : true;
    if (r->in_thread)
        return thread_scalar(r, jp, v);
    if (pk_json_parser_key_is(jp, 0, "shared")) {
        r->processed = true;
        return table_value(r, jp, &r->sets[0], 1, v);
    }
    if (v->kind == PK_JSON_STRING && !r->processed && is_string_document(jp, d))
        return string_document(r, jp, v, d);
    if (devtools_entry(r, jp))
        return true;
    if (d >= 2 && pk_json_parser_key_is(jp, d - 1, "startTime") &&
        pk_json_parser_key_is(jp, d - 2, "meta")) {
        /* The clock of the (sub)profile this meta is of. */
        const fxr_process *scope = current_process(r);
        bool own = scope->nesting == r->nesting &&
                   (scope->level == d - 2 ||
                    (r->process_count == 1 && d - 2 == 1 && pk_json_parser_key_is(jp, 0, "profile")));
        if (own)
            r->clock_start[scope->clock] = ms_to_ns(v);
    }
    if (is_meta_member(r, jp, d)) {
        double t;
        uint32_t k = d - 1;
        if (pk_json_parser_key_is(jp, k, "preprocessedProfileVersion")) {
            r->processed = true;
            r->version = cell(v);
        } else if (pk_json_parser_key_is(jp, k, "version") && !r->processed) {
            r->version = cell(v);
        } else if (pk_json_parser_key_is(jp, k, "product") && v->kind == PK_JSON_STRING) {
            uint32_t product = pk_intern(r->p, v->s, v->len);
            if (product == PK_NONE)
                return nomem(jp);
            pk_metadata_of(r->p)->product = product;
        } else if (pk_json_parser_key_is(jp, k, "startTime") && pk_json_scalar_double(v, &t) &&
                   t > 0 && t < 9e12) {
            pk_metadata_of(r->p)->start_time = (int64_t)llround(t * 1e6);
        }
    }
    return true;
}

static bool begin_thread(fx_reader *r, pk_json_parser *jp, uint32_t d)
{
    uint32_t set;
    if (!new_set(r, &set) || r->thread_count >= UINT32_MAX ||
        !PK_ARRAY_RESERVE(r->threads, r->thread_cap, r->thread_count + 1))
        return nomem(jp);
    r->threads[r->thread_count++] =
        (fxr_thread){.pid = -1, .tid = -1, .set = set, .libs = process_libs(r),
                     .weight = FXR_WEIGHT_SAMPLES, .clock = current_process(r)->clock};
    r->in_thread = true;
    r->thread_level = d;
    r->row_table = r->sample_column = -1;
    r->saw_threads = true;
    pk_pairs_free(&r->pairs);
    pk_pairs_init(&r->pairs);
    default_schemas(r);
    return true;
}

static bool on_begin(void *ctx, pk_json_parser *jp, bool is_array)
{
    fx_reader *r = ctx;
    uint32_t d = pk_json_parser_depth(jp);
    if (d == 0)
        return true;
    uint32_t set;
    if (!is_array && !r->in_lib && is_lib(r, jp, d, &set)) {
        begin_lib(r, set, d);
        return true;
    }
    if (r->in_thread) {
        uint32_t b = r->thread_level;
        if (r->row_table >= 0 || r->sample_column >= 0)
            return true; /* a container in a row or a column: nothing in it is read */
        /* Markers are left aside: their contents are not walked. */
        if (d == b + 3 && pk_json_parser_key_is(jp, b, "markers")) {
            if (is_array && pk_json_parser_key_is(jp, b + 1, "data"))
                r->markers++;
            pk_json_parser_skip(jp);
        } else if (d == b + 2 && pk_json_parser_key_is(jp, b, "markers") &&
                   pk_json_parser_key_is(jp, b + 1, "schema")) {
            pk_json_parser_skip(jp);
        } else if (d == b + 3 && is_array && pk_json_parser_key_is(jp, b + 1, "data") &&
                   gecko_table(jp, b) >= 0) {
            for (int c = 0; c < FXR_GECKO_MAX_COLUMNS; c++)
                r->row[c] = FXR_NULL;
            r->row_time = FXR_NULL;
            r->row_table = (int8_t)gecko_table(jp, b);
        } else if (d == b + 2 && is_array && pk_json_parser_key_is(jp, b, "samples")) {
            if (pk_json_parser_key_is(jp, b + 1, "stack"))
                r->sample_column = 0;
            else if (pk_json_parser_key_is(jp, b + 1, "weight"))
                r->sample_column = 1;
            else if (pk_json_parser_key_is(jp, b + 1, "time"))
                r->sample_column = 2;
            else if (pk_json_parser_key_is(jp, b + 1, "timeDeltas"))
                r->sample_column = 3;
            else if (!pk_json_parser_key_is(jp, b + 1, "data") &&
                     !pk_json_parser_key_is(jp, b + 1, "schema"))
                pk_json_parser_skip(jp); /* CPU deltas, ...: nothing in them is kept */
        }
        return true;
    }
    if (!is_array && is_thread(jp, d))
        return begin_thread(r, jp, d);
    if (!is_array && is_process(jp, d) && !begin_process(r, d, r->nesting))
        return nomem(jp);
    /* An entry of the DevTools timeline: nothing in it is read (the allocation log's columns
     * are walked to count its timestamps). */
    if (devtools_entry(r, jp) && !(d == 2 && pk_json_parser_key_is(jp, 0, "allocations")))
        pk_json_parser_skip(jp);
    return true;
}

static bool on_end(void *ctx, pk_json_parser *jp, bool is_array)
{
    fx_reader *r = ctx;
    uint32_t d = pk_json_parser_depth(jp);
    if (r->in_lib)
        return d == r->lib_level && !is_array ? lib_end(r, jp) : true;
    if (!r->in_thread) {
        const fxr_process *scope = current_process(r);
        if (!is_array && r->process_count > 1 && scope->level == d &&
            scope->nesting == r->nesting && is_process(jp, d))
            r->process_count--; /* a sub-profile of `processes` ends */
        return true;
    }
    uint32_t b = r->thread_level;
    if (r->row_table >= 0) {
        if (d != b + 3)
            return true;
        int table = r->row_table;
        r->row_table = -1;
        return gecko_row_end(r, jp, table);
    }
    if (r->sample_column >= 0) {
        if (d == b + 2)
            r->sample_column = -1;
        return true;
    }
    if (d == b && !is_array) {
        r->in_thread = false;
        return samples_end(r, jp);
    }
    int table = gecko_table(jp, b);
    if (table == GECKO_SAMPLES && d == b + 1 && !is_array)
        return samples_end(r, jp);
    return true;
}

pk_status fx_read(pk_input *in, pk_profile *p, const pk_read_options *options, pk_error *err)
{
    (void)options;
    fx_reader r;
    memset(&r, 0, sizeof r);
    r.p = p;
    r.row_table = r.sample_column = -1;
    r.row_time = FXR_NULL;
    pk_pairs_init(&r.pairs);
    pk_sums_init(&r.sums);
    pk_status status = PK_OK;
    uint32_t shared;
    if (!new_set(&r, &shared) || !begin_process(&r, 0, 0)) {
        fxr_free(&r);
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    }
    status = pk_json_read(in, &(pk_json_handler){on_scalar, on_begin, on_end}, &r,
                          "the Firefox profile", "not a Firefox profile", NULL, err);
    if (status == PK_OK || status == PK_ERR_INPUT) {
        if (!r.saw_threads) {
            if (status == PK_OK)
                status = pk_error_set(err, PK_ERR_INPUT, 0, "not a Firefox profile: no threads");
        } else {
            /* What was read is kept (a thread the damage cut included): with damage, salvage
             * decides whether it stands. */
            pk_error finish_err;
            pk_status finished = PK_OK;
            if (r.in_thread) {
                r.in_thread = false;
                int kind;
                pk_pair_value value;
                while (pk_pairs_take_unpaired(&r.pairs, &kind, &value))
                    r.unpaired[kind]++;
            }
            finished = fxr_finish(&r, &finish_err);
            if (finished != PK_OK) {
                *err = finish_err;
                status = finished;
            }
        }
    }
    fxr_free(&r);
    return status;
}
