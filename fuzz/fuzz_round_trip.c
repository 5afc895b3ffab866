/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for round trips: any bytes are read with the probed reader (salvaging, as
 * `--salvage` does) into a profile P; each format F that profkit both writes and reads writes P,
 * and F's reader reads it back into Q; Q is written and read once more into R. Two checks:
 *
 *   1. P -> Q: what F can carry of P arrives in Q (per format, below).
 *   2. Q -> R: Q holds only what F carries, so a second pass is a fixed point: the same value
 *      types in the same order, the same totals, the same rows (thread name, every frame's
 *      function name, file, line, address and kind of code, values) and the same memory events.
 *
 * A difference is a finding: the harness says what differs and aborts, so libFuzzer saves the
 * input. A writer may refuse P (PK_ERR_UNSUPPORTED, PK_ERR_LIMIT: a negative value, names
 * without addresses, too many groups), but what it writes must read back.
 *
 * "The chosen value" is the profile's default value, as the command writes without --value.
 * What each format carries of P, with the rows it writes:
 *
 *   bsprof      the chosen value as cpu, "wall" and "calls" when P has them (other values,
 *               lines before a function's start, addresses and files are not carried); rows
 *               whose three values are 0 are not written; the memory events, one for one.
 *               Distinct stacks per thread by function names.
 *   BR          sample groups: a row gives as many groups as its count value, or one when it
 *               has only time; the time value in nanoseconds. One thread (threads are merged),
 *               names through modules, lines and labels, so no distinct-stack check here: the
 *               fixed point covers the names.
 *   gperftools  the chosen value as sample counts of rows with a positive value and at least
 *               one frame with an address (interpreted and inlined frames are left out); a
 *               time value becomes counts at the period, rounded, so its total is not
 *               compared. One thread. Distinct stacks by their addresses.
 *   Sampler     a count value (the chosen one when it counts samples, else the first that
 *               does) as repeated rows; threads but not their names; function names (TAB and
 *               line breaks become spaces). Distinct stacks by names when no name has blanks.
 *   pprof       every value type, every total, threads (names, ids) as labels, frames with
 *               names, files, lines and addresses; no memory events. Distinct stacks by
 *               names, files and lines (an inlined frame takes its location's address).
 *   folded      the chosen value (base and new of a differential profile), positive line sums
 *               only, by function names; rows without frames are not written (but for a
 *               thread's root, with perf script's "folded roots"). Totals are
 *               compared when no value is negative; distinct stacks when every name is plain
 *               (non-empty, without blanks or ';'), as other names are rewritten and may merge.
 *   speedscope  the chosen value of rows with a positive one: a time in nanoseconds, a size in
 *               bytes, anything else as a count; every thread, one profile each (named as
 *               shown, so only their number is compared); frames as functions (name, file,
 *               start line and column: lines within a function and addresses are not
 *               carried). Distinct stacks by names and files when every name is plain (an
 *               empty name is written "(unnamed)").
 *   firefox     the chosen value of rows where it is not 0: a time in nanoseconds, a size in
 *               bytes, anything else as a count (compared when every row's value in that unit
 *               stays within 2^50, beyond which milliseconds with six decimals lose digits in
 *               a double); every thread (named as shown, so only their number is compared);
 *               stacks by names, files and lines (addresses only within libraries, relative
 *               to them), by names and files when a thread is timed: its samples are written
 *               with the stacks of its timeline, whose leaves may be coarser than the sums'
 *               (a CPU profile's positionTicks split a node's sums by line, not its samples,
 *               whose line nobody knows). Memory events are written as native allocations, which the reader
 *               leaves aside, so none come back.
 *   callgrind   a call graph, not stacks: self cost per function name (line ends and NUL bytes
 *               in names become '_', blanks around them go, an empty one is "???") and the
 *               total of every value without negative rows (callgrind costs are unsigned), as
 *               many value types. Reading expands the graph into stacks again, whose shares
 *               of inclusive cost are rounded and cut at recursion: so Q -> R is checked on
 *               the same, self cost per function name and totals, not on the rows.
 *
 * Before the round trips, P itself: each thread's timeline, where kept, adds up to what its
 * rows hold, value by value (profkit/timeline.h: all of a thread's samples or none), as the
 * writers that show time write a timed thread from its timeline alone.
 *
 * Writers that expand counts into records (BR groups, Sampler rows, .bsprof 32-bit entries)
 * are only tried when that expansion stays small, so each run stays fast; their own limits are
 * covered by the unit tests. The Firefox writer spreads the rows of threads without times over
 * up to 100,000 samples, one per quantum of weight: when the chosen value's total (a bound on
 * those samples) passes FIREFOX_SAMPLES, it is asked for at most that many (its option
 * max-samples), the same weights and stacks in coarser samples, so every input takes that leg
 * and none writes and reads back tens of thousands of samples twice. Whether the output is
 * also recognised by probing is not checked here (the probes have harnesses of their own).
 */
#include "one_processor.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/arith.h"
#include "core/units.h"
#include "formats/formats.h"
#include "profkit/diff.h"
#include "profkit/format.h"
#include "profkit/timeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Most records (a group or row per sample, with one record per frame) an expanding writer may
 * produce here. */
#define MAX_EXPANSION 65536

/* The digests' own loops are not what is being fuzzed: without coverage instrumentation they
 * cost a fraction of the time, and they add no features to guide the fuzzer astray. */
#if defined(__clang__)
#define NOT_FUZZED __attribute__((no_sanitize("coverage")))
#else
#define NOT_FUZZED /* (the seeds' replay in a gcc test build: no coverage to leave out) */
#endif

/* ---- digests ------------------------------------------------------------------------------- */

/* What identifies a stack: any of these parts of each frame, and the thread's name. */
enum stack_key {
    KEY_NAMES = 1u << 0,
    KEY_FILES = 1u << 1,
    KEY_LINES = 1u << 2,
    KEY_ADDRESSES = 1u << 3,   /* every frame's address */
    KEY_NATIVE_ONLY = 1u << 4, /* only frames with an address that are not inlined */
    KEY_THREAD = 1u << 5,
    KEY_KINDS = 1u << 6,       /* every frame's function's flags (script code or not) */
    KEY_FULL = KEY_NAMES | KEY_FILES | KEY_LINES | KEY_ADDRESSES | KEY_THREAD | KEY_KINDS
};

/* Which rows of a profile are compared, and by what. */
typedef struct view {
    uint32_t values[PK_MAX_VALUES]; /* value indexes compared, in order */
    size_t count;
    unsigned key;                   /* stack_key bits */
    bool positive_only;             /* rows count when their first value is above 0 */
    bool skip_empty;                /* rows whose key has no frames do not count */
} view;

typedef struct digest {
    int64_t totals[PK_MAX_VALUES]; /* saturating, like pk_value_total */
    size_t rows;                   /* rows that count */
    size_t stacks;                 /* distinct keys among them */
    uint64_t rows_hash;            /* order-free: the sum of one hash per row */
    bool plain_names;              /* every name on a counted row is non-empty, without blanks
                                      or ';' */
} digest;

NOT_FUZZED static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9u;
    return h ^ (h >> 29);
}

NOT_FUZZED static uint64_t hash_text(uint64_t h, const char *s)
{
    h = mix(h, 0x7e57);
    for (; *s; s++)
        h = mix(h, (unsigned char)*s);
    return h;
}

/* A model string, all its bytes (NUL bytes included). */
NOT_FUZZED static uint64_t hash_string(uint64_t h, const pk_profile *p, uint32_t s)
{
    const char *text = pk_str(p, s);
    size_t len = pk_str_len(p, s);
    h = mix(h, 0x7e57);
    for (size_t i = 0; i < len; i++)
        h = mix(h, (unsigned char)text[i]);
    return h;
}

NOT_FUZZED static bool plain_name(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if ((unsigned char)*s <= ' ' || *s == ';' || *s == 0x7f)
            return false;
    return true;
}

NOT_FUZZED static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The key of a row's stack (0 frames counted in *frames_used) under the key bits: the one place
 * that walks stacks, root first, through pk_stack_frames. */
NOT_FUZZED static uint64_t stack_key_hash(const pk_profile *p, size_t row, unsigned key, uint32_t **buf,
                               size_t *cap, size_t *frames_used, bool *plain)
{
    uint64_t h = 0x5eed;
    if (key & KEY_THREAD) {
        const pk_thread *t = pk_thread_at(p, pk_sample_thread(p, row));
        h = hash_text(h, t ? pk_str(p, t->name) : "");
    }
    uint32_t stack = pk_sample_stack(p, row);
    size_t depth = pk_stack_depth(p, stack);
    if (depth > *cap) {
        free(*buf);
        *cap = depth * 2;
        *buf = malloc(*cap * sizeof **buf);
        if (!*buf)
            abort();
    }
    pk_stack_frames(p, stack, *buf, *cap);
    size_t used = 0;
    for (size_t i = 0; i < depth; i++) {
        const pk_frame *f = pk_frame_at(p, (*buf)[i]);
        if ((key & KEY_NATIVE_ONLY) &&
            (!(f->flags & PK_FRAME_HAS_ADDRESS) || (f->flags & PK_FRAME_INLINED)))
            continue;
        used++;
        const pk_function *fn = pk_function_at(p, f->function);
        h = mix(h, 0xf4a3e);
        if (key & KEY_NAMES) {
            h = hash_string(h, p, fn->name);
            /* A NUL byte inside a name is written as another character by the text formats. */
            *plain = *plain && plain_name(pk_str(p, fn->name)) &&
                     strlen(pk_str(p, fn->name)) == pk_str_len(p, fn->name);
        }
        if (key & KEY_FILES)
            h = hash_text(h, pk_str(p, fn->file));
        if (key & KEY_LINES)
            h = mix(h, f->line);
        if (key & KEY_ADDRESSES)
            h = mix(h, f->address);
        if (key & KEY_KINDS)
            h = mix(h, fn->flags);
    }
    *frames_used = used;
    return h;
}

NOT_FUZZED static digest digest_of(const pk_profile *p, const view *v)
{
    digest d;
    memset(&d, 0, sizeof d);
    d.plain_names = true;
    size_t rows = pk_sample_count(p);
    uint64_t *keys = malloc((rows ? rows : 1) * sizeof *keys);
    uint32_t *buf = NULL;
    size_t cap = 0;
    if (!keys)
        abort();
    for (size_t row = 0; row < rows; row++) {
        const int64_t *values = pk_sample_values(p, row);
        bool any = false;
        for (size_t i = 0; i < v->count; i++)
            any = any || values[v->values[i]] != 0;
        if (!any || (v->positive_only && values[v->values[0]] <= 0))
            continue;
        size_t frames;
        bool plain = true;
        uint64_t key = stack_key_hash(p, row, v->key, &buf, &cap, &frames, &plain);
        if (v->skip_empty && frames == 0)
            continue;
        d.plain_names = d.plain_names && plain;
        uint64_t h = key;
        for (size_t i = 0; i < v->count; i++) {
            int64_t x = values[v->values[i]];
            d.totals[i] = pk_add_saturating(d.totals[i], x);
            h = mix(h, (uint64_t)x);
        }
        keys[d.rows++] = key;
        d.rows_hash += h;
    }
    qsort(keys, d.rows, sizeof *keys, compare_u64);
    for (size_t i = 0; i < d.rows; i++)
        if (i == 0 || keys[i] != keys[i - 1])
            d.stacks++;
    free(keys);
    free(buf);
    return d;
}

/* Self cost per function name, as callgrind carries it: one entry per name (hashed as the
 * callgrind writer spells it), with the sums of the values of the rows whose leaf it is;
 * entries that sum to zero are left out. Sorted by name hash. */
typedef struct name_sums {
    uint64_t name;
    int64_t sums[PK_MAX_VALUES];
} name_sums;

NOT_FUZZED static int compare_name_sums(const void *a, const void *b)
{
    const name_sums *x = a, *y = b;
    return x->name < y->name ? -1 : x->name > y->name;
}

NOT_FUZZED static uint64_t callgrind_name_hash(const pk_profile *p, uint32_t s)
{
    const char *text = pk_str(p, s);
    size_t start = 0, len = pk_str_len(p, s);
    while (start < len && (text[start] == ' ' || text[start] == '\t'))
        start++;
    while (len > start && (text[len - 1] == ' ' || text[len - 1] == '\t'))
        len--;
    uint64_t h = mix(0x5eed, 0x7e57);
    if (len == start)
        return hash_text(0x5eed, "???");
    for (size_t i = start; i < len; i++) {
        char c = text[i];
        h = mix(h, (unsigned char)(c == '\n' || c == '\r' || c == '\0' ? '_' : c));
    }
    return h;
}

NOT_FUZZED static size_t self_by_name(const pk_profile *p, const uint32_t *values, size_t count,
                                      name_sums **out)
{
    size_t rows = pk_sample_count(p), n = 0;
    name_sums *all = calloc(rows ? rows : 1, sizeof *all);
    if (!all)
        abort();
    for (size_t row = 0; row < rows; row++) {
        uint32_t leaf = pk_stack_leaf(p, pk_sample_stack(p, row));
        if (leaf == PK_NONE)
            continue;
        uint32_t function = pk_frame_at(p, leaf)->function;
        all[n].name = callgrind_name_hash(p, pk_function_at(p, function)->name);
        for (size_t i = 0; i < count; i++)
            all[n].sums[i] = pk_sample_values(p, row)[values[i]];
        n++;
    }
    qsort(all, n, sizeof *all, compare_name_sums);
    size_t merged = 0;
    for (size_t i = 0; i < n; i++) {
        if (merged > 0 && all[merged - 1].name == all[i].name) {
            for (size_t v = 0; v < count; v++)
                all[merged - 1].sums[v] =
                    pk_add_saturating(all[merged - 1].sums[v], all[i].sums[v]);
        } else {
            all[merged++] = all[i];
        }
    }
    size_t kept = 0;
    for (size_t i = 0; i < merged; i++) {
        bool any = false;
        for (size_t v = 0; v < count; v++)
            any = any || all[i].sums[v] != 0;
        if (any)
            all[kept++] = all[i];
    }
    *out = all;
    return kept;
}

/* ---- findings ------------------------------------------------------------------------------ */

static const char *current_format; /* the format being checked, for messages */
static const char *current_step;   /* "P -> Q" or "Q -> R" */

static void finding(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void finding(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "round trip through %s, %s: ", current_format, current_step);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

static void expect_equal(const char *what, int64_t before, int64_t after)
{
    if (before != after)
        finding("%s: %" PRId64 " before, %" PRId64 " after", what, before, after);
}

/* ---- values and views ---------------------------------------------------------------------- */

/* The index of the value called name, PK_NONE when absent. */
static uint32_t value_named(const pk_profile *p, const char *name)
{
    return pk_value_find(p, name);
}

static bool any_negative(const pk_profile *p, const uint32_t *values, size_t count)
{
    for (size_t row = 0; row < pk_sample_count(p); row++)
        for (size_t i = 0; i < count; i++)
            if (pk_sample_values(p, row)[values[i]] < 0)
                return true;
    return false;
}

/* Records of one row written `copies` times: one per frame, one for the row itself. */
static uint64_t row_records(const pk_profile *p, size_t row, uint64_t copies)
{
    uint64_t per_copy = (uint64_t)pk_stack_depth(p, pk_sample_stack(p, row)) + 1;
    return copies > MAX_EXPANSION / per_copy ? MAX_EXPANSION + 1 : copies * per_copy;
}

/* How many records writing value `value` expands to, a copy of the row per `unit` of it,
 * capped just past MAX_EXPANSION. */
static uint64_t expansion(const pk_profile *p, uint32_t value, uint64_t unit)
{
    uint64_t n = 0;
    for (size_t row = 0; row < pk_sample_count(p) && n <= MAX_EXPANSION; row++) {
        int64_t x = pk_sample_values(p, row)[value];
        if (x > 0)
            n += row_records(p, row, (uint64_t)x / unit + 1);
    }
    return n;
}

static view view_of(unsigned key, size_t count, const uint32_t *values)
{
    view v;
    memset(&v, 0, sizeof v);
    v.key = key;
    v.count = count;
    memcpy(v.values, values, count * sizeof *values);
    return v;
}

/* ---- what each format carries (P -> Q) ---------------------------------------------------- */

/* Whether the harness tries the format with p: false when its output would expand too much. */
typedef bool (*worth_trying_fn)(const pk_profile *p);
typedef void (*carried_fn)(const pk_profile *p, const pk_profile *q);

static bool always(const pk_profile *p)
{
    (void)p;
    return true;
}

/* firefox: a row of a thread without times becomes a sample per quantum of its weight, up to
 * 100,000 samples in all (firefox/timeline.c), each with a time and a weight: written and read
 * back twice, the largest of these took most of the harness's time, and their number adds no
 * code. When the chosen value's total, a bound on the samples, passes FIREFOX_SAMPLES, the
 * writer is asked for at most that many (max-samples): each holds more weight, so the totals
 * and the stacks compared are the same. Below it the option would change nothing and is not
 * given, so the default path is fuzzed too. */
#define FIREFOX_SAMPLES 1024
#define FIREFOX_SAMPLES_TEXT "1024"

static bool firefox_needs_fewer_samples(const pk_profile *p)
{
    if (pk_value_type_count(p) == 0)
        return false;
    uint32_t chosen = pk_default_value(p);
    uint64_t samples = 0;
    for (size_t row = 0; row < pk_sample_count(p) && samples <= FIREFOX_SAMPLES; row++) {
        int64_t x = pk_sample_values(p, row)[chosen];
        uint64_t m = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
        samples += m > FIREFOX_SAMPLES ? FIREFOX_SAMPLES + 1 : m;
    }
    return samples > FIREFOX_SAMPLES;
}

/* bsprof: the chosen value as cpu, wall and calls by name; memory events one for one. */
static void bsprof_values(const pk_profile *p, uint32_t out[3])
{
    uint32_t chosen = pk_default_value(p);
    out[0] = chosen;
    out[1] = value_named(p, "wall");
    out[2] = value_named(p, "calls");
    if (out[1] == chosen)
        out[1] = PK_NONE;
    if (out[2] == chosen)
        out[2] = PK_NONE;
}

static bool bsprof_worth_trying(const pk_profile *p)
{
    if (pk_value_type_count(p) == 0)
        return true;
    uint32_t v[3];
    bsprof_values(p, v);
    uint64_t n = 0;
    for (int i = 0; i < 3; i++)
        if (v[i] != PK_NONE)
            n += expansion(p, v[i], UINT32_MAX);
    return n <= MAX_EXPANSION;
}

static void bsprof_carried(const pk_profile *p, const pk_profile *q)
{
    static const char *const names[3] = {"cpu", "wall", "calls"};
    uint32_t from[3], to[3];
    bsprof_values(p, from);
    uint32_t present[3], read[3];
    size_t n = 0;
    for (int i = 0; i < 3; i++) {
        to[i] = value_named(q, names[i]);
        if (to[i] == PK_NONE)
            finding("the value %s is missing", names[i]);
        if (from[i] != PK_NONE) {
            present[n] = from[i];
            read[n++] = to[i];
        }
    }
    view vp = view_of(KEY_THREAD | KEY_NAMES, n, present);
    view vq = view_of(KEY_THREAD | KEY_NAMES, n, read);
    digest dp = digest_of(p, &vp), dq = digest_of(q, &vq);
    for (size_t i = 0; i < n; i++)
        expect_equal(pk_str(q, pk_value_type_at(q, read[i])->name), dp.totals[i], dq.totals[i]);
    expect_equal("distinct stacks by thread and names", (int64_t)dp.stacks, (int64_t)dq.stacks);
    expect_equal("memory events", (int64_t)pk_memory_event_count(p),
                 (int64_t)pk_memory_event_count(q));
}

/* BR: the time value (the chosen one when it is a time, else the first time) and the count
 * value (the chosen one when it counts samples, else the first other that does; the chosen
 * one when neither exists). */
static void br_values(const pk_profile *p, uint32_t *time_value, uint32_t *count_value)
{
    size_t n = pk_value_type_count(p);
    uint32_t chosen = pk_default_value(p);
    *time_value = *count_value = PK_NONE;
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
}

/* Groups a row is written as: its count, or 1 when it has only time. */
static uint64_t br_groups(const int64_t *values, uint32_t time_value, uint32_t count_value)
{
    int64_t count = count_value != PK_NONE ? values[count_value] : 0;
    int64_t time = time_value != PK_NONE ? values[time_value] : 0;
    if (count < 0 || time < 0)
        return 0;
    return count == 0 && time > 0 ? 1 : (uint64_t)count;
}

static bool br_worth_trying(const pk_profile *p)
{
    if (pk_value_type_count(p) == 0)
        return true;
    uint32_t time_value, count_value;
    br_values(p, &time_value, &count_value);
    uint64_t n = 0;
    for (size_t row = 0; row < pk_sample_count(p) && n <= MAX_EXPANSION; row++)
        n += row_records(p, row, br_groups(pk_sample_values(p, row), time_value, count_value));
    return n <= MAX_EXPANSION;
}

static void br_carried(const pk_profile *p, const pk_profile *q)
{
    uint32_t time_value, count_value;
    br_values(p, &time_value, &count_value);
    int64_t groups = 0, time = 0;
    int64_t scale = time_value != PK_NONE
                        ? pk_unit_ns(pk_str(p, pk_value_type_at(p, time_value)->unit))
                        : 0;
    for (size_t row = 0; row < pk_sample_count(p); row++) {
        const int64_t *values = pk_sample_values(p, row);
        uint64_t n = br_groups(values, time_value, count_value);
        if (n == 0)
            continue;
        groups = pk_add_saturating(groups, (int64_t)n);
        if (time_value != PK_NONE) {
            int64_t t = values[time_value];
            time = pk_add_saturating(time, t > INT64_MAX / scale ? INT64_MAX : t * scale);
        }
    }
    uint32_t samples = value_named(q, "samples"), q_time = value_named(q, "time");
    if (samples == PK_NONE)
        finding("no samples value");
    expect_equal("sample groups", groups, pk_value_total(q, samples));
    if (time_value != PK_NONE) {
        if (q_time == PK_NONE)
            finding("no time value in a timed file");
        expect_equal("time in nanoseconds", time, pk_value_total(q, q_time));
    }
}

/* gperftools: the chosen value as counts of rows that have an address. */
static void gperftools_carried(const pk_profile *p, const pk_profile *q)
{
    uint32_t chosen = pk_default_value(p);
    view vp = view_of(KEY_ADDRESSES | KEY_NATIVE_ONLY, 1, &chosen);
    vp.positive_only = vp.skip_empty = true;
    uint32_t samples = value_named(q, "samples");
    if (samples == PK_NONE)
        finding("no samples value");
    view vq = view_of(KEY_ADDRESSES | KEY_NATIVE_ONLY, 1, &samples);
    vq.skip_empty = true;
    digest dp = digest_of(p, &vp), dq = digest_of(q, &vq);
    if (!pk_unit_ns(pk_str(p, pk_value_type_at(p, chosen)->unit)))
        expect_equal("samples", dp.totals[0], dq.totals[0]);
    expect_equal("distinct address stacks", (int64_t)dp.stacks, (int64_t)dq.stacks);
}

/* Sampler: the count value as repeated rows, per thread, by names. */
static uint32_t sampler_value(const pk_profile *p)
{
    uint32_t chosen = pk_default_value(p);
    if (pk_value_counts_samples(p, chosen))
        return chosen;
    for (uint32_t v = 0; v < pk_value_type_count(p); v++)
        if (pk_value_counts_samples(p, v))
            return v;
    return chosen;
}

static bool sampler_worth_trying(const pk_profile *p)
{
    return pk_value_type_count(p) == 0 || expansion(p, sampler_value(p), 1) <= MAX_EXPANSION;
}

static void sampler_carried(const pk_profile *p, const pk_profile *q)
{
    uint32_t weight = sampler_value(p);
    view vp = view_of(KEY_NAMES, 1, &weight);
    vp.positive_only = true;
    uint32_t samples = value_named(q, "samples");
    if (samples == PK_NONE)
        finding("no samples value");
    view vq = view_of(KEY_NAMES, 1, &samples);
    digest dp = digest_of(p, &vp), dq = digest_of(q, &vq);
    expect_equal("samples", dp.totals[0], dq.totals[0]);
    if (dp.plain_names)
        expect_equal("distinct stacks by names", (int64_t)dp.stacks, (int64_t)dq.stacks);
    expect_equal("threads", (int64_t)pk_thread_count(p), (int64_t)pk_thread_count(q));
}

/* pprof: every value type and total; stacks by names, files and lines with their threads. */
static void pprof_carried(const pk_profile *p, const pk_profile *q)
{
    size_t n = pk_value_type_count(p);
    expect_equal("value types", (int64_t)n, (int64_t)pk_value_type_count(q));
    uint32_t all[PK_MAX_VALUES] = {0};
    for (uint32_t v = 0; v < n; v++) {
        all[v] = v;
        const pk_value_type *a = pk_value_type_at(p, v), *b = pk_value_type_at(q, v);
        if (strcmp(pk_str(p, a->name), pk_str(q, b->name)) != 0 ||
            strcmp(pk_str(p, a->unit), pk_str(q, b->unit)) != 0)
            finding("value type %u: %s/%s before, %s/%s after", v, pk_str(p, a->name),
                    pk_str(p, a->unit), pk_str(q, b->name), pk_str(q, b->unit));
    }
    view vp = view_of(KEY_THREAD | KEY_NAMES | KEY_FILES | KEY_LINES, n, all);
    digest dp = digest_of(p, &vp), dq = digest_of(q, &vp);
    for (size_t v = 0; v < n; v++)
        expect_equal(pk_str(p, pk_value_type_at(p, (uint32_t)v)->name), dp.totals[v],
                     dq.totals[v]);
    expect_equal("distinct stacks", (int64_t)dp.stacks, (int64_t)dq.stacks);
}

/* folded: the chosen value (base and new when differential) by names. */
static void folded_carried(const pk_profile *p, const pk_profile *q)
{
    uint32_t from[2], to[2] = {0, 1};
    size_t n = 1;
    if (pk_value_type_count(q) == 2) { /* read back as a differential profile */
        from[0] = PK_DIFF_BASE;
        from[1] = PK_DIFF_NEW;
        n = 2;
    } else {
        from[0] = pk_default_value(p);
    }
    if (any_negative(p, from, n))
        return; /* line sums mix signs: only the fixed point is checked */
    /* With roots from the threads' command names (perf script's "folded roots", one of the
     * three the writer knows), the written stacks start with a frame that P keeps as its
     * thread: a row without frames is written as its root alone, and the same frames under
     * threads of two names are one stack by names in P and two in Q. */
    const char *roots = pk_property_get(p, "folded roots");
    bool rooted = roots && (strcmp(roots, "command") == 0 || strcmp(roots, "command-pid") == 0 ||
                            strcmp(roots, "command-tid") == 0);
    view vp = view_of(KEY_NAMES, n, from), vq = view_of(KEY_NAMES, n, to);
    vp.skip_empty = !rooted;
    digest dp = digest_of(p, &vp), dq = digest_of(q, &vq);
    for (size_t i = 0; i < n; i++)
        expect_equal(i == 0 && n == 2 ? "base" : "value", dp.totals[i], dq.totals[i]);
    if (dp.plain_names && !roots)
        expect_equal("distinct stacks by names", (int64_t)dp.stacks, (int64_t)dq.stacks);
}

/* How speedscope and Firefox files read a value back: a time in nanoseconds ("time"), a size in
 * bytes ("bytes"), anything else as a count ("samples"); *scale is the factor from p's unit. */
static const char *read_back_as(const pk_profile *p, uint32_t value, int64_t *scale)
{
    pk_unit_info unit = pk_unit_lookup(pk_str(p, pk_value_type_at(p, value)->unit));
    *scale = unit.kind == PK_UNIT_OTHER ? 1 : unit.scale;
    return unit.kind == PK_UNIT_TIME ? "time" : unit.kind == PK_UNIT_BYTES ? "bytes" : "samples";
}

/* speedscope: the chosen value, positive rows, in nanoseconds, bytes or counts. */
static void speedscope_carried(const pk_profile *p, const pk_profile *q)
{
    uint32_t chosen = pk_default_value(p);
    int64_t scale;
    const char *name = read_back_as(p, chosen, &scale);
    uint32_t read = value_named(q, name);
    if (read == PK_NONE)
        finding("the value %s is missing", name);
    int64_t total = 0;
    for (size_t row = 0; row < pk_sample_count(p); row++) {
        int64_t v = pk_sample_values(p, row)[chosen];
        if (v > 0)
            total = pk_add_saturating(total, pk_mul_saturating(v, scale));
    }
    if (total < INT64_MAX)
        expect_equal(name, total, pk_value_total(q, read));
    view vp = view_of(KEY_NAMES | KEY_FILES, 1, &chosen), vq = view_of(KEY_NAMES | KEY_FILES, 1, &read);
    vp.positive_only = true;
    digest dp = digest_of(p, &vp), dq = digest_of(q, &vq);
    if (dp.plain_names)
        expect_equal("distinct stacks by names and files", (int64_t)dp.stacks, (int64_t)dq.stacks);
    expect_equal("threads", (int64_t)(pk_thread_count(p) ? pk_thread_count(p) : 1),
                 (int64_t)pk_thread_count(q));
}

/* Firefox: the chosen value, rows that are not 0, in nanoseconds, bytes or counts. */
static void firefox_carried(const pk_profile *p, const pk_profile *q)
{
    uint32_t chosen = pk_default_value(p);
    int64_t scale;
    const char *name = read_back_as(p, chosen, &scale);
    expect_equal("threads", (int64_t)(pk_thread_count(p) ? pk_thread_count(p) : 1),
                 (int64_t)pk_thread_count(q));
    size_t weighed = 0;
    for (size_t row = 0; row < pk_sample_count(p); row++)
        weighed += pk_sample_values(p, row)[chosen] != 0;
    if (weighed == 0)
        return; /* no samples: no weight type says what the value was */
    uint32_t read = value_named(q, name);
    if (read == PK_NONE)
        finding("the value %s is missing", name);
    int64_t total = 0;
    bool exact = true;
    for (size_t row = 0; row < pk_sample_count(p); row++) {
        int64_t v = pk_sample_values(p, row)[chosen], scaled = pk_mul_saturating(v, scale);
        exact = exact && scaled > -(INT64_C(1) << 50) && scaled < (INT64_C(1) << 50);
        total = pk_add_saturating(total, scaled);
    }
    if (!exact)
        return;
    expect_equal(name, total, pk_value_total(q, read));
    bool timed = pk_timeline_bounds(p, NULL, NULL);
    unsigned key = KEY_NAMES | KEY_FILES | (timed ? 0 : KEY_LINES);
    view vp = view_of(key, 1, &chosen);
    view vq = view_of(key, 1, &read);
    digest dp = digest_of(p, &vp), dq = digest_of(q, &vq);
    expect_equal(timed ? "distinct stacks by names and files"
                       : "distinct stacks by names, files and lines",
                 (int64_t)dp.stacks, (int64_t)dq.stacks);
}

/* callgrind: self cost per function name, and so the totals, of the values without negative
 * rows (the same check serves P -> Q and Q -> R). */
static void callgrind_carried(const pk_profile *p, const pk_profile *q)
{
    size_t n = pk_value_type_count(p);
    expect_equal("value types", (int64_t)n, (int64_t)pk_value_type_count(q));
    uint32_t from[PK_MAX_VALUES], to[PK_MAX_VALUES];
    size_t count = 0;
    for (uint32_t v = 0; v < n; v++) {
        if (any_negative(p, &v, 1))
            continue;
        from[count] = v;
        to[count++] = v;
    }
    /* Rows without frames are not written: the totals are those of the names' sums. */
    name_sums *a, *b;
    size_t na = self_by_name(p, from, count, &a), nb = self_by_name(q, to, count, &b);
    expect_equal("functions with self cost", (int64_t)na, (int64_t)nb);
    for (size_t i = 0; i < na; i++) {
        if (a[i].name != b[i].name)
            finding("function %zu of those with self cost has another name", i);
        for (size_t v = 0; v < count; v++)
            expect_equal("self cost of a function", a[i].sums[v], b[i].sums[v]);
    }
    free(a);
    free(b);
}

static void fixed_point(const pk_profile *q, const pk_profile *r);
static void firefox_again(const pk_profile *q, const pk_profile *r);

typedef struct format_check {
    const pk_format *format;
    worth_trying_fn worth_trying;
    carried_fn carried;
    carried_fn again; /* Q -> R: fixed_point, or what the format keeps of a second pass */
} format_check;

static const format_check checks[] = {
    {&pk_format_bsprof, bsprof_worth_trying, bsprof_carried, fixed_point},
    {&pk_format_br, br_worth_trying, br_carried, fixed_point},
    {&pk_format_gperftools, always, gperftools_carried, fixed_point},
    {&pk_format_sampler, sampler_worth_trying, sampler_carried, fixed_point},
    {&pk_format_pprof, always, pprof_carried, fixed_point},
    {&pk_format_folded, always, folded_carried, fixed_point},
    {&pk_format_speedscope, always, speedscope_carried, fixed_point},
    {&pk_format_firefox, always, firefox_carried, firefox_again},
    {&pk_format_callgrind, always, callgrind_carried, callgrind_carried},
};

/* ---- the round trip ------------------------------------------------------------------------ */

/* Writes p as format and reads it back; NULL when the writer refuses p. A writer that fails
 * otherwise, or output that does not read back, is a finding. */
static pk_profile *through(const pk_profile *p, const pk_format *format)
{
    pk_write_options options = {0};
    options.value = PK_NONE;
    options.compression = PK_COMPRESSION_NONE;
    static const pk_option fewer_samples = {"max-samples", FIREFOX_SAMPLES_TEXT};
    if (format == &pk_format_firefox && firefox_needs_fewer_samples(p))
        options.extra = (pk_option_list){&fewer_samples, 1};
    char *out = NULL;
    size_t out_size = 0;
    pk_error err;
    pk_status st = pk_write_memory(p, format, &options, &out, &out_size, &err);
    if (st == PK_ERR_UNSUPPORTED || st == PK_ERR_LIMIT || st == PK_ERR_NOMEM) {
        free(out);
        return NULL;
    }
    if (st != PK_OK)
        finding("the writer failed: %s", err.message);
    /* Folded stacks of a profile that weighs nothing are no line at all, which no reader
     * takes for a profile: nothing to carry, as when a writer refuses. */
    if (out_size == 0 && format == &pk_format_folded) {
        free(out);
        return NULL;
    }
    pk_read_options strict = {0};
    pk_profile *q = NULL;
    if (pk_read_memory(out, out_size, format, &strict, &q, &err) != PK_OK)
        finding("%zu bytes written do not read back: byte %lld: %s", out_size,
                (long long)err.offset, err.message);
    free(out);
    return q;
}

static void fixed_point_values(const pk_profile *q, const pk_profile *r, bool values_exact);

/* Q -> R: everything Q holds survives another pass. */
static void fixed_point(const pk_profile *q, const pk_profile *r)
{
    fixed_point_values(q, r, true);
}

/* Firefox's Q -> R: as P -> Q, its values are compared when every row's value in its unit
 * stays within 2^50 (milliseconds with six decimals in a double lose digits beyond); the rest
 * of the fixed point always. */
static void firefox_again(const pk_profile *q, const pk_profile *r)
{
    bool exact = true;
    for (uint32_t v = 0; v < pk_value_type_count(q) && exact; v++) {
        int64_t scale;
        read_back_as(q, v, &scale);
        for (size_t row = 0; row < pk_sample_count(q) && exact; row++) {
            int64_t scaled = pk_mul_saturating(pk_sample_values(q, row)[v], scale);
            exact = scaled > -(INT64_C(1) << 50) && scaled < (INT64_C(1) << 50);
        }
    }
    fixed_point_values(q, r, exact);
}

static void fixed_point_values(const pk_profile *q, const pk_profile *r, bool values_exact)
{
    size_t n = pk_value_type_count(q);
    expect_equal("value types", (int64_t)n, (int64_t)pk_value_type_count(r));
    uint32_t all[PK_MAX_VALUES] = {0};
    for (uint32_t v = 0; v < n; v++) {
        all[v] = v;
        const pk_value_type *a = pk_value_type_at(q, v), *b = pk_value_type_at(r, v);
        if (strcmp(pk_str(q, a->name), pk_str(r, b->name)) != 0 ||
            strcmp(pk_str(q, a->unit), pk_str(r, b->unit)) != 0)
            finding("value type %u: %s/%s before, %s/%s after", v, pk_str(q, a->name),
                    pk_str(q, a->unit), pk_str(r, b->name), pk_str(r, b->unit));
    }
    view full = view_of(KEY_FULL, n, all);
    digest dq = digest_of(q, &full), dr = digest_of(r, &full);
    if (values_exact)
        for (size_t v = 0; v < n; v++)
            expect_equal(pk_str(q, pk_value_type_at(q, (uint32_t)v)->name), dq.totals[v],
                         dr.totals[v]);
    expect_equal("rows", (int64_t)dq.rows, (int64_t)dr.rows);
    expect_equal("distinct stacks", (int64_t)dq.stacks, (int64_t)dr.stacks);
    if (values_exact && dq.rows_hash != dr.rows_hash)
        finding("the rows (thread, frames, values) differ");
    expect_equal("memory events", (int64_t)pk_memory_event_count(q),
                 (int64_t)pk_memory_event_count(r));
}

/* Each timed thread's samples, value by value, sum to its rows' (unless a sum saturates). */
static void timelines_add_up(const pk_profile *p)
{
    if (!pk_timeline_kept(p))
        return;
    current_format = "(none)";
    current_step = "reading P";
    size_t n = pk_value_type_count(p);
    for (uint32_t t = 0; t < pk_thread_count(p); t++) {
        pk_timeline_info info;
        pk_timeline_info_get(p, t, &info);
        if (info.count == 0)
            continue;
        int64_t rows[PK_MAX_VALUES] = {0}, timed[PK_MAX_VALUES] = {0};
        for (size_t row = 0; row < pk_sample_count(p); row++)
            if (pk_sample_thread(p, row) == t)
                for (size_t v = 0; v < n; v++)
                    rows[v] = pk_add_saturating(rows[v], pk_sample_values(p, row)[v]);
        pk_timeline_cursor *c;
        if (pk_timeline_open(p, t, &c) != PK_OK)
            return; /* out of memory or a temporary file: not the input's doing */
        pk_timed_sample s;
        while (pk_timeline_next(c, &s))
            for (size_t v = 0; v < n; v++)
                timed[v] = pk_add_saturating(timed[v], s.values[v]);
        if (pk_timeline_close(c) != PK_OK)
            return;
        for (size_t v = 0; v < n; v++) {
            bool saturated = rows[v] == INT64_MAX || rows[v] == INT64_MIN ||
                             timed[v] == INT64_MAX || timed[v] == INT64_MIN;
            if (!saturated && rows[v] != timed[v])
                finding("thread %u (%s), value %s: its rows sum to %" PRId64 ", its timeline to "
                        "%" PRId64, t, pk_str(p, pk_thread_at(p, t)->name),
                        pk_str(p, pk_value_type_at(p, (uint32_t)v)->name), rows[v], timed[v]);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pk_read_options options = {0};
    options.salvage = true;
    pk_profile *p = NULL;
    pk_error err;
    /* The perf script reader's worker thread is compared with its single-thread path in
     * fuzz_perf_script; here it would only wait on the scheduler (one_processor.h). */
    one_processor_begin();
    pk_status status = pk_read_memory(data, size, NULL, &options, &p, &err);
    one_processor_end();
    if (status != PK_OK)
        return 0;
    timelines_add_up(p);
    for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++) {
        const format_check *c = &checks[i];
        current_format = c->format->name;
        if (!c->worth_trying(p))
            continue;
        current_step = "writing P and reading it back";
        pk_profile *q = through(p, c->format);
        if (!q)
            continue;
        current_step = "P -> Q";
        if (pk_value_type_count(p) > 0) /* without values, nothing is carried but the fixed point */
            c->carried(p, q);
        current_step = "writing Q and reading it back";
        pk_profile *r = through(q, c->format);
        if (!r)
            finding("the writer refused what it wrote before");
        current_step = "Q -> R";
        c->again(q, r);
        pk_profile_free(r);
        pk_profile_free(q);
    }
    pk_profile_free(p);
    return 0;
}
