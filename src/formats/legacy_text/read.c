/* SPDX-License-Identifier: MIT */
/* The reader of legacy text profiles (legacy_text.h). Lines of stacks of addresses come first
 * and the process's mappings last, so the stacks are kept as the reader's own (distinct per
 * thread and stack, their values summed) until the mappings are read; then, as the gperftools
 * CPU reader does, each distinct address becomes a frame named by its address in the mapping
 * that holds it, for the symbolization pass (profkit/symbolize.h), and each stack goes to the
 * model. Memory grows with distinct stacks, addresses and threads, never with lines.
 *
 * Values are pprof's legacy parser's (google/pprof profile/legacy_profile.go): heap samples
 * unsampled by scaleHeapSample's formula, contention delays from cycles to nanoseconds, return
 * addresses less one (as the pprof of Go 1.19 here does). Documented in
 * docs/formats/legacy-text.md.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/damage.h"
#include "core/hashmap.h"
#include "core/memory_values.h"
#include "core/path.h"
#include "core/procmaps.h"
#include "core/symbolize.h"
#include "core/text_lines.h"
#include "formats/legacy_text/legacy_text.h"

/* Longest line read: a stack of 64 Ki addresses fits many times over. */
#define LT_MAX_LINE ((size_t)4 << 20)
#define LT_VALUES 4

/* A distinct (thread, stack) and its values, in the profile's order of values. */
typedef struct lt_record {
    uint32_t thread; /* index into the reader's threads */
    uint32_t first;  /* addresses: pool[first, first + depth), root first, return addresses less one */
    uint32_t depth;
    int64_t values[LT_VALUES];
} lt_record;

typedef struct lt_thread {
    uint32_t name; /* string of the profile; PK_NONE: the process (named once maps are read) */
    int64_t tid;
} lt_thread;

typedef enum lt_section {
    LT_IN_RECORDS,
    LT_IN_CONTENTION_HEADER,
    LT_IN_THREAD,    /* the lines of one thread of a thread listing */
    LT_IN_SKIPPED,   /* lines up to the mappings that no profile needs */
    LT_IN_MAPS
} lt_section;

typedef struct lt_reader {
    pk_profile *p;
    pk_input *in;
    pk_text_lines lines;
    lt_header header;
    lt_section section;

    lt_record *records;
    size_t record_count, record_cap;
    pk_index record_index;
    uint64_t *pool;
    size_t pool_count, pool_cap;
    lt_thread *threads;
    size_t thread_count, thread_cap;
    pk_u64map jemalloc_threads; /* jemalloc's thread number -> reader thread */

    uint64_t *scratch; /* the addresses of the line being read, leaf first */
    size_t scratch_cap;

    /* jemalloc: the stack of the last "@" line, what its "t*:" line counts and what its "tN:"
     * lines counted so far. */
    uint64_t *stack;
    size_t stack_depth, stack_cap;
    bool stack_open, stack_has_total, before_first_stack;
    lt_pairs stack_total, stack_threads;

    /* contention */
    int64_t cycles_per_second, contention_period;
    /* threads: the current one and the stack of the one before ("same as previous") */
    uint32_t current_thread;
    bool thread_same_as_previous;
    size_t thread_depth;
    uint64_t *previous_stack;
    size_t previous_depth, previous_cap;
    bool have_previous;

    pk_procmaps maps;
    bool saw_maps;
    bool has_alloc;
    uint64_t lines_cut;     /* an unterminated last line left out */
    uint64_t cut_line;
    uint64_t negative_remainders;
    uint64_t unknown_attributes;
} lt_reader;

typedef struct lt_key {
    uint32_t thread;
    const uint64_t *addresses; /* root first */
    size_t depth;
} lt_key;

static bool lt_record_eq(const void *context, uint32_t entry, const void *key_)
{
    const lt_reader *r = context;
    const lt_key *key = key_;
    const lt_record *rec = &r->records[entry];
    return rec->thread == key->thread && rec->depth == key->depth &&
           memcmp(r->pool + rec->first, key->addresses, key->depth * sizeof *key->addresses) == 0;
}

static int64_t lt_add_saturating(int64_t a, int64_t b)
{
    int64_t v;
    if (!__builtin_add_overflow(a, b, &v))
        return v;
    return b > 0 ? INT64_MAX : INT64_MIN;
}

/* Adds values to the record of (thread, leaf-first addresses), made when new. */
static bool lt_add(lt_reader *r, uint32_t thread, const uint64_t *leaf_first, size_t depth,
                   const int64_t *values)
{
    /* Root first, return addresses looked up one byte into their call, as pprof does: in a
     * heap or contention profile every address is one (the leaf returns from the call to
     * malloc or into the lock), in a thread listing all but the leaf, which is where the
     * thread is. The root-first copy goes at the end of the pool, kept only when the stack is
     * new. */
    size_t exact = r->header.kind == LT_THREADZ ? 0 : SIZE_MAX;
    if (depth > UINT32_MAX - r->pool_count ||
        !PK_ARRAY_RESERVE(r->pool, r->pool_cap, r->pool_count + depth + 1))
        return false;
    uint64_t *root_first = r->pool + r->pool_count;
    for (size_t k = 0; k < depth; k++) {
        size_t from = depth - 1 - k;
        root_first[k] = from != exact ? leaf_first[from] - 1 : leaf_first[from];
    }
    uint64_t hash = pk_hash_bytes(root_first, depth * sizeof *root_first) ^
                    pk_hash_u64(thread);
    lt_key key = {thread, root_first, depth};
    uint32_t found = pk_index_find(&r->record_index, hash, lt_record_eq, r, &key);
    if (found == UINT32_MAX) {
        if (r->record_count >= UINT32_MAX - 1 ||
            !PK_ARRAY_RESERVE(r->records, r->record_cap, r->record_count + 1) ||
            !pk_index_insert(&r->record_index, hash, (uint32_t)r->record_count))
            return false;
        found = (uint32_t)r->record_count++;
        r->records[found] = (lt_record){thread, (uint32_t)r->pool_count, (uint32_t)depth,
                                        {0, 0, 0, 0}};
        r->pool_count += depth;
    }
    for (size_t v = 0; v < LT_VALUES; v++)
        r->records[found].values[v] = lt_add_saturating(r->records[found].values[v], values[v]);
    return true;
}

static uint32_t lt_new_thread(lt_reader *r, uint32_t name, int64_t tid)
{
    if (r->thread_count >= UINT32_MAX - 1 ||
        !PK_ARRAY_RESERVE(r->threads, r->thread_cap, r->thread_count + 1))
        return PK_NONE;
    r->threads[r->thread_count] = (lt_thread){name, tid};
    return (uint32_t)r->thread_count++;
}

static pk_status lt_nomem(pk_error *err)
{
    return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
}

static pk_status lt_bad_line(lt_reader *r, pk_error *err, const char *what)
{
    return pk_damage(err, r->lines.offset, "line %" PRIu64 ": %s", r->lines.number, what);
}

/* Room for every address a line of len bytes can hold (each takes at least "0x0 "). */
static bool lt_scratch_for(lt_reader *r, size_t len)
{
    return PK_ARRAY_RESERVE(r->scratch, r->scratch_cap, len / 3 + 1);
}

/* The values of a heap line in the profile's order: [alloc objects, alloc bytes,] in-use
 * objects, in-use bytes; unsampled as the header says. */
static const char *lt_heap_values(lt_reader *r, lt_pairs pairs, int64_t *values)
{
    if (pairs.inuse_count == 0 && pairs.inuse_bytes != 0)
        return "the in-use count is 0 but its bytes are not";
    if (pairs.alloc_count == 0 && pairs.alloc_bytes != 0)
        return "the allocated count is 0 but its bytes are not";
    if (r->header.sampling == LT_SAMPLING_V2) {
        lt_unsample(&pairs.inuse_count, &pairs.inuse_bytes, r->header.rate);
        lt_unsample(&pairs.alloc_count, &pairs.alloc_bytes, r->header.rate);
    }
    size_t v = 0;
    if (r->has_alloc) {
        values[v++] = pairs.alloc_count;
        values[v++] = pairs.alloc_bytes;
    }
    values[v++] = pairs.inuse_count;
    values[v++] = pairs.inuse_bytes;
    while (v < LT_VALUES)
        values[v++] = 0;
    return NULL;
}

/* gperftools: "inuse: bytes [alloc: bytes] @ stack". */
static pk_status lt_heap_line(lt_reader *r, const char *line, size_t len, pk_error *err)
{
    const char *at = line, *end = line + len;
    lt_pairs pairs;
    const char *bad = lt_parse_pairs(&at, end, &pairs);
    size_t depth = 0;
    if (!bad && !lt_scratch_for(r, len))
        return lt_nomem(err);
    if (!bad)
        bad = lt_parse_stack(at, end, r->scratch, r->scratch_cap, &depth);
    int64_t values[LT_VALUES];
    if (!bad)
        bad = lt_heap_values(r, pairs, values);
    if (bad)
        return lt_bad_line(r, err, bad);
    return lt_add(r, 0, r->scratch, depth, values) ? PK_OK : lt_nomem(err);
}

/* jemalloc: ends the stack of the last "@" line. What "t*:" counts beyond the "tN:" lines
 * (threads whose counts were not kept apart) is the process's. */
static pk_status lt_jemalloc_close(lt_reader *r, pk_error *err)
{
    if (!r->stack_open)
        return PK_OK;
    r->stack_open = false;
    if (!r->stack_has_total) {
        pk_warn(r->p, "a jemalloc stack without its \"t*:\" line was left out (before line %"
                      PRIu64 ")", r->lines.number);
        return PK_OK;
    }
    lt_pairs rest = {r->stack_total.inuse_count - r->stack_threads.inuse_count,
                     r->stack_total.inuse_bytes - r->stack_threads.inuse_bytes,
                     r->stack_total.alloc_count - r->stack_threads.alloc_count,
                     r->stack_total.alloc_bytes - r->stack_threads.alloc_bytes};
    if (rest.inuse_count < 0 || rest.inuse_bytes < 0 || rest.alloc_count < 0 ||
        rest.alloc_bytes < 0) {
        r->negative_remainders++;
        return PK_OK;
    }
    if (!rest.inuse_count && !rest.inuse_bytes && !rest.alloc_count && !rest.alloc_bytes)
        return PK_OK;
    int64_t values[LT_VALUES];
    const char *bad = lt_heap_values(r, rest, values);
    if (bad)
        return lt_bad_line(r, err, bad);
    return lt_add(r, 0, r->stack, r->stack_depth, values) ? PK_OK : lt_nomem(err);
}

static bool lt_sum_pairs(lt_pairs *sum, const lt_pairs *add)
{
    return !__builtin_add_overflow(sum->inuse_count, add->inuse_count, &sum->inuse_count) &&
           !__builtin_add_overflow(sum->inuse_bytes, add->inuse_bytes, &sum->inuse_bytes) &&
           !__builtin_add_overflow(sum->alloc_count, add->alloc_count, &sum->alloc_count) &&
           !__builtin_add_overflow(sum->alloc_bytes, add->alloc_bytes, &sum->alloc_bytes);
}

static pk_status lt_jemalloc_line(lt_reader *r, const char *line, size_t len, pk_error *err)
{
    const char *at = line, *end = line + len;
    if (*line == '@') {
        pk_status st = lt_jemalloc_close(r, err);
        if (st != PK_OK)
            return st;
        if (!PK_ARRAY_RESERVE(r->stack, r->stack_cap, len / 3 + 1))
            return lt_nomem(err);
        const char *bad = lt_parse_stack(at, end, r->stack, r->stack_cap, &r->stack_depth);
        if (bad)
            return lt_bad_line(r, err, bad);
        r->stack_open = true;
        r->stack_has_total = false;
        r->before_first_stack = false;
        memset(&r->stack_threads, 0, sizeof r->stack_threads);
        return PK_OK;
    }
    if (*line != 't')
        return lt_bad_line(r, err, "expected \"@ stack\", \"t*:\" or \"tN:\"");
    at++;
    bool total = at < end && *at == '*';
    uint64_t number = 0;
    if (total) {
        at++;
    } else {
        const char *digits = at;
        for (; at < end && *at >= '0' && *at <= '9'; at++) {
            if (number > (UINT64_MAX - 9) / 10)
                return lt_bad_line(r, err, "a thread number beyond 64 bits");
            number = number * 10 + (uint64_t)(*at - '0');
        }
        if (at == digits)
            return lt_bad_line(r, err, "expected \"t*:\" or \"tN:\"");
    }
    if (at >= end || *at != ':')
        return lt_bad_line(r, err, "expected \":\" after the thread");
    at++;
    lt_pairs pairs;
    const char *bad = lt_parse_pairs(&at, end, &pairs);
    if (!bad && (pairs.inuse_count < 0 || pairs.inuse_bytes < 0))
        bad = "negative counts";
    if (bad)
        return lt_bad_line(r, err, bad);
    if (pairs.alloc_count || pairs.alloc_bytes)
        r->has_alloc = true; /* jemalloc's prof_accum: the file says so in every line */
    if (r->before_first_stack || !r->stack_open)
        return PK_OK; /* the profile's totals, per thread: the stacks say it all again */
    if (total) {
        if (r->stack_has_total)
            return lt_bad_line(r, err, "a second \"t*:\" line for one stack");
        r->stack_total = pairs;
        r->stack_has_total = true;
        return PK_OK;
    }
    if (!lt_sum_pairs(&r->stack_threads, &pairs))
        return lt_bad_line(r, err, "the threads' counts add up beyond 64 bits");
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&r->jemalloc_threads, number, (uint32_t)r->thread_count, &slot,
                       &inserted))
        return lt_nomem(err);
    if (inserted) {
        uint32_t name = pk_intern_printf(r->p, "thread %" PRIu64, number);
        if (name == PK_NONE || lt_new_thread(r, name, -1) == PK_NONE)
            return lt_nomem(err);
    }
    uint32_t thread = *pk_u64map_find(&r->jemalloc_threads, number);
    int64_t values[LT_VALUES];
    bad = lt_heap_values(r, pairs, values);
    if (bad)
        return lt_bad_line(r, err, bad);
    return lt_add(r, thread, r->stack, r->stack_depth, values) ? PK_OK : lt_nomem(err);
}

/* contention: "key = value" lines before the samples. */
static pk_status lt_contention_attribute(lt_reader *r, const char *line, size_t len,
                                         bool *is_attribute, pk_error *err)
{
    const char *eq = memchr(line, '=', len);
    *is_attribute = eq != NULL;
    if (!eq)
        return PK_OK;
    const char *key = line, *value = eq + 1;
    size_t key_len = (size_t)(eq - line), value_len = len - key_len - 1;
    lt_trim(&key, &key_len);
    lt_trim(&value, &value_len);
    int64_t *target = NULL;
    if (key_len == 13 && memcmp(key, "cycles/second", 13) == 0)
        target = &r->cycles_per_second;
    else if (key_len == 15 && memcmp(key, "sampling period", 15) == 0)
        target = &r->contention_period;
    else if ((key_len == 6 && memcmp(key, "format", 6) == 0) ||
             (key_len == 10 && memcmp(key, "resolution", 10) == 0))
        return lt_bad_line(r, err, "a Go contention profile (\"format\" or \"resolution\"), "
                                   "which pprof does not read as a C++ one either");
    else if (!(key_len == 14 && memcmp(key, "ms since reset", 14) == 0) &&
             !(key_len == 17 && memcmp(key, "discarded samples", 17) == 0))
        r->unknown_attributes++;
    if (target) {
        int64_t v = 0;
        const char *end = value + value_len;
        bool ok = value_len > 0;
        for (const char *s = value; ok && s < end; s++)
            ok = *s >= '0' && *s <= '9' && !__builtin_mul_overflow(v, 10, &v) &&
                 !__builtin_add_overflow(v, *s - '0', &v);
        if (!ok)
            return lt_bad_line(r, err, "the value is not a whole number");
        *target = v;
    }
    return PK_OK;
}

static pk_status lt_contention_line(lt_reader *r, const char *line, size_t len, pk_error *err)
{
    const char *at = line, *end = line + len;
    int64_t delay, count;
    const char *bad = lt_parse_contention(&at, end, &delay, &count);
    size_t depth = 0;
    if (!bad && !lt_scratch_for(r, len))
        return lt_nomem(err);
    if (!bad)
        bad = lt_parse_stack(at, end, r->scratch, r->scratch_cap, &depth);
    if (bad)
        return lt_bad_line(r, err, bad);
    /* pprof: delays from cycles to nanoseconds, counts times the sampling period. */
    int64_t period = r->contention_period;
    if (period > 0) {
        if (r->cycles_per_second > 0) {
            double ns = (double)delay * (double)period / ((double)r->cycles_per_second / 1e9);
            delay = ns >= 9.2e18 ? INT64_MAX : (int64_t)ns;
        }
        if (__builtin_mul_overflow(count, period, &count))
            count = INT64_MAX;
    }
    int64_t values[LT_VALUES] = {count, delay, 0, 0};
    return lt_add(r, 0, r->scratch, depth, values) ? PK_OK : lt_nomem(err);
}

/* threads: ends the current one, whose stack is its own or its predecessor's. */
static pk_status lt_thread_close(lt_reader *r, pk_error *err)
{
    if (r->current_thread == PK_NONE)
        return PK_OK;
    uint32_t thread = r->current_thread;
    r->current_thread = PK_NONE;
    int64_t values[LT_VALUES] = {1, 0, 0, 0};
    if (r->thread_same_as_previous || r->thread_depth == 0) {
        if (!r->have_previous)
            return lt_add(r, thread, NULL, 0, values) ? PK_OK : lt_nomem(err);
        return lt_add(r, thread, r->previous_stack, r->previous_depth, values) ? PK_OK
                                                                               : lt_nomem(err);
    }
    if (!PK_ARRAY_RESERVE(r->previous_stack, r->previous_cap, r->thread_depth))
        return lt_nomem(err);
    memcpy(r->previous_stack, r->stack, r->thread_depth * sizeof *r->stack);
    r->previous_depth = r->thread_depth;
    r->have_previous = true;
    return lt_add(r, thread, r->stack, r->thread_depth, values) ? PK_OK : lt_nomem(err);
}

/* A line of a thread's stack: every 0x number on it is an address ("PC: 0x1 0x2"). */
static pk_status lt_thread_line(lt_reader *r, const char *line, size_t len, pk_error *err)
{
    static const char same[] = "same as previous thread";
    for (size_t i = 0; i + sizeof same - 1 <= len; i++)
        if (memcmp(line + i, same, sizeof same - 1) == 0) {
            r->thread_same_as_previous = true;
            return PK_OK;
        }
    for (size_t i = 0; i + 2 < len; i++) {
        if (line[i] != '0' || line[i + 1] != 'x')
            continue;
        uint64_t v = 0;
        size_t j = i + 2, digits = 0;
        for (; j < len; j++) {
            char c = line[j];
            int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
            if (d < 0)
                break;
            v = v << 4 | (uint64_t)d;
            digits++;
        }
        if (!digits)
            continue;
        if (digits > 16)
            return lt_bad_line(r, err, "an address longer than 64 bits");
        if (r->thread_depth >= UINT32_MAX - 1 ||
            !PK_ARRAY_RESERVE(r->stack, r->stack_cap, r->thread_depth + 1))
            return lt_nomem(err);
        r->stack[r->thread_depth++] = v;
        i = j - 1;
    }
    return PK_OK;
}

static pk_status lt_thread_header(lt_reader *r, const char *line, size_t len, pk_error *err)
{
    const char *name;
    size_t name_len;
    int64_t tid;
    if (!lt_parse_thread_header(line, len, &name, &name_len, &tid))
        return lt_bad_line(r, err, "expected \"--- Thread ID (name: NAME/TID) stack: ---\"");
    uint32_t name_id = pk_intern(r->p, name, name_len);
    uint32_t thread = name_id == PK_NONE ? PK_NONE : lt_new_thread(r, name_id, tid);
    if (thread == PK_NONE)
        return lt_nomem(err);
    r->current_thread = thread;
    r->thread_same_as_previous = false;
    r->thread_depth = 0;
    r->section = LT_IN_THREAD;
    return PK_OK;
}

/* Ends whatever the records section had open. */
static pk_status lt_close_records(lt_reader *r, pk_error *err)
{
    if (r->header.kind == LT_JEMALLOC)
        return lt_jemalloc_close(r, err);
    if (r->header.kind == LT_THREADZ)
        return lt_thread_close(r, err);
    return PK_OK;
}

static pk_status lt_line(lt_reader *r, const char *line, size_t len, pk_error *err)
{
    if (r->section == LT_IN_MAPS)
        return pk_procmaps_add_line(&r->maps, line, len) ? PK_OK : lt_nomem(err);
    lt_trim(&line, &len);
    if (len == 0 || (line[0] == '#' && r->section != LT_IN_THREAD))
        return PK_OK;
    if (lt_is_maps_trigger(line, len)) {
        pk_status st = lt_close_records(r, err);
        r->section = LT_IN_MAPS;
        r->saw_maps = true;
        return st;
    }
    switch (r->section) {
    case LT_IN_SKIPPED:
        return PK_OK;
    case LT_IN_CONTENTION_HEADER:
        if (len >= 3 && memcmp(line, "---", 3) == 0) {
            r->section = LT_IN_SKIPPED;
            return PK_OK;
        }
        bool is_attribute;
        pk_status st = lt_contention_attribute(r, line, len, &is_attribute, err);
        if (st != PK_OK || is_attribute)
            return st;
        r->section = LT_IN_RECORDS;
        return lt_contention_line(r, line, len, err);
    case LT_IN_THREAD:
    case LT_IN_RECORDS:
        break;
    case LT_IN_MAPS:
        break;
    }
    switch (r->header.kind) {
    case LT_HEAP:
    case LT_GROWTH:
        return lt_heap_line(r, line, len, err);
    case LT_JEMALLOC:
        return lt_jemalloc_line(r, line, len, err);
    case LT_CONTENTION:
        if (len >= 3 && memcmp(line, "---", 3) == 0) {
            r->section = LT_IN_SKIPPED;
            return PK_OK;
        }
        return lt_contention_line(r, line, len, err);
    case LT_THREADZ:
        if (len >= 3 && memcmp(line, "---", 3) == 0) {
            pk_status st = lt_thread_close(r, err);
            if (st != PK_OK)
                return st;
            if (len >= 23 && memcmp(line, "---- no stack trace for", 23) == 0) {
                r->section = LT_IN_SKIPPED;
                return PK_OK;
            }
            return lt_thread_header(r, line, len, err);
        }
        return r->section == LT_IN_THREAD ? lt_thread_line(r, line, len, err) : PK_OK;
    case LT_NONE:
        break;
    }
    return PK_OK;
}

/* Reads the lines after the header up to the end. */
static pk_status lt_read_lines(lt_reader *r, pk_error *err)
{
    for (;;) {
        const char *text;
        size_t len;
        pk_text_line_result got = pk_text_lines_next(&r->lines, &text, &len);
        if (got == PK_TEXT_END)
            break;
        if (got == PK_TEXT_NOMEM)
            return lt_nomem(err);
        if (got == PK_TEXT_TOO_LONG)
            return lt_bad_line(r, err, "a line longer than 4 MiB");
        if (r->lines.unterminated) {
            /* The tools end every line: one without its end was cut short. */
            const char *t = text;
            size_t n = len;
            lt_trim(&t, &n);
            if (n) {
                r->lines_cut++;
                r->cut_line = r->lines.number;
            }
            break;
        }
        pk_status st = lt_line(r, text, len, err);
        if (st != PK_OK)
            return st;
    }
    return r->section == LT_IN_MAPS ? PK_OK : lt_close_records(r, err);
}

/* ---- the profile ------------------------------------------------------------------------------ */

static const char *lt_kind_name(lt_kind kind)
{
    switch (kind) {
    case LT_HEAP: return "gperftools heap profile";
    case LT_GROWTH: return "gperftools heap growth stacks";
    case LT_JEMALLOC: return "jemalloc heap profile";
    case LT_CONTENTION: return "contention profile";
    case LT_THREADZ: return "thread listing";
    case LT_NONE: break;
    }
    return "";
}

static pk_status lt_declare_values(lt_reader *r, pk_error *err)
{
    pk_profile *p = r->p;
    pk_metadata *meta = pk_metadata_of(p);
    bool ok = true;
    switch (r->header.kind) {
    case LT_HEAP:
    case LT_JEMALLOC: {
        pk_memory_values mv;
        ok = pk_memory_values_declare(p, r->has_alloc, &mv);
        meta->period_type = pk_intern_cstr(p, "space");
        meta->period_unit = pk_intern_cstr(p, "bytes");
        break;
    }
    case LT_GROWTH:
        ok = pk_add_value_type(p, "objects", "count") != PK_NONE &&
             pk_add_value_type(p, "space", "bytes") != PK_NONE;
        meta->period_type = pk_intern_cstr(p, "space");
        meta->period_unit = pk_intern_cstr(p, "bytes");
        break;
    case LT_CONTENTION:
        ok = pk_add_value_type(p, "contentions", "count") != PK_NONE &&
             pk_add_value_type(p, "delay", "nanoseconds") != PK_NONE;
        meta->period_type = pk_intern_cstr(p, "contentions");
        meta->period_unit = pk_intern_cstr(p, "count");
        break;
    case LT_THREADZ:
        ok = pk_add_value_type(p, "thread", "count") != PK_NONE;
        meta->period_type = pk_intern_cstr(p, "thread");
        meta->period_unit = pk_intern_cstr(p, "count");
        break;
    case LT_NONE:
        break;
    }
    if (!ok || meta->period_type == PK_NONE || meta->period_unit == PK_NONE)
        return lt_nomem(err);
    /* pprof's default is the last value: in-use bytes, delay. */
    pk_set_default_value(p, (uint32_t)pk_value_type_count(p) - 1);
    meta->period = r->header.kind == LT_CONTENTION ? r->contention_period : r->header.rate;
    return pk_property_set(p, "legacy_text.kind", lt_kind_name(r->header.kind)) == PK_OK
               ? PK_OK
               : lt_nomem(err);
}

static void lt_warnings(lt_reader *r)
{
    pk_profile *p = r->p;
    if (r->lines_cut)
        pk_warn(p, "line %" PRIu64 " ends without a line end: the file was cut short there, "
                   "the line left out", r->cut_line);
    if (!r->saw_maps)
        pk_warn(p, "no MAPPED_LIBRARIES section: addresses are left unnamed");
    if (r->negative_remainders)
        pk_warn(p, "%" PRIu64 " jemalloc stack%s whose \"tN:\" lines count more than the "
                   "\"t*:\" line: read from the \"tN:\" lines", r->negative_remainders,
                r->negative_remainders == 1 ? "" : "s");
    if (r->unknown_attributes)
        pk_warn(p, "%" PRIu64 " unknown \"key = value\" line%s of the contention header "
                   "ignored", r->unknown_attributes, r->unknown_attributes == 1 ? "" : "s");
    if (r->header.kind == LT_CONTENTION && r->contention_period > 0 && r->cycles_per_second <= 0)
        pk_warn(p, "no cycles/second: delays are in cycles, as pprof leaves them");
}

/* Resources, threads, frames (left for the symbolization pass), stacks and rows. */
static pk_status lt_build(lt_reader *r, pk_error *err)
{
    pk_profile *p = r->p;
    pk_procmaps_finish(&r->maps);
    pk_status st = lt_declare_values(r, err);
    if (st != PK_OK)
        return st;
    lt_warnings(r);
    const pk_procmap *program = pk_procmaps_program(&r->maps);
    const char *program_name = program ? pk_path_basename(program->path) : "";
    if (*program_name)
        pk_metadata_of(p)->product = pk_intern_cstr(p, program_name);

    uint32_t *resources = malloc((r->maps.count + 1) * sizeof *resources);
    uint32_t *threads = malloc((r->thread_count + 1) * sizeof *threads);
    uint32_t *frames = NULL;
    pk_u64map frame_of;
    pk_u64map_init(&frame_of);
    bool failed = !resources || !threads;
    for (size_t i = 0; !failed && i < r->maps.count; i++) {
        const pk_procmap *m = &r->maps.items[i];
        pk_resource res = {pk_intern_cstr(p, pk_path_basename(m->path)),
                           pk_intern_cstr(p, m->path),
                           m->build_id ? pk_intern_cstr(p, m->build_id) : 0,
                           m->start, m->limit, m->offset};
        resources[i] = res.name == PK_NONE ? PK_NONE : pk_intern_resource(p, &res);
        failed = resources[i] == PK_NONE;
    }
    /* Threads are made as their first row comes, so that none is empty. */
    for (size_t t = 0; !failed && t < r->thread_count; t++)
        threads[t] = PK_NONE;
    size_t depth_cap = 0;
    for (size_t i = 0; !failed && i < r->record_count; i++) {
        const lt_record *rec = &r->records[i];
        if (rec->depth > depth_cap)
            depth_cap = rec->depth;
    }
    frames = malloc((depth_cap + 1) * sizeof *frames);
    failed = failed || !frames;
    for (size_t i = 0; !failed && i < r->record_count; i++) {
        const lt_record *rec = &r->records[i];
        for (size_t k = 0; !failed && k < rec->depth; k++) {
            uint64_t address = r->pool[rec->first + k];
            uint32_t *known = pk_u64map_find(&frame_of, address);
            if (known) {
                frames[k] = *known;
                continue;
            }
            /* One frame per address, named by it and in its mapping. */
            size_t m = pk_procmaps_find(&r->maps, address);
            uint32_t resource = m == PK_PROCMAPS_NONE ? PK_NONE : resources[m];
            pk_function fn = {.name = pk_address_name(p, address), .resource = resource};
            uint32_t function = fn.name == PK_NONE ? PK_NONE : pk_intern_function(p, &fn);
            pk_frame frame = {function, 0, address, resource, PK_FRAME_HAS_ADDRESS};
            frames[k] = function == PK_NONE ? PK_NONE : pk_intern_frame(p, &frame);
            uint32_t *slot;
            bool inserted;
            failed = frames[k] == PK_NONE ||
                     !pk_u64map_put(&frame_of, address, frames[k], &slot, &inserted);
        }
        if (failed)
            break;
        uint32_t *thread = &threads[rec->thread];
        if (*thread == PK_NONE) {
            uint32_t name = r->threads[rec->thread].name;
            if (name == PK_NONE)
                name = pk_intern_cstr(p, *program_name ? program_name : "process");
            *thread = name == PK_NONE ? PK_NONE
                                      : pk_add_thread(p, name, -1, r->threads[rec->thread].tid);
            if (*thread == PK_NONE) {
                failed = true;
                break;
            }
        }
        uint32_t stack = pk_intern_stack_frames(p, PK_NONE, frames, rec->depth);
        failed = (stack == PK_NONE && rec->depth > 0) ||
                 pk_add_sample(p, *thread, stack, rec->values) != PK_OK;
    }
    free(resources);
    free(threads);
    free(frames);
    pk_u64map_free(&frame_of);
    return failed ? lt_nomem(err) : PK_OK;
}

static void lt_reader_free(lt_reader *r)
{
    pk_text_lines_free(&r->lines);
    free(r->records);
    pk_index_free(&r->record_index);
    free(r->pool);
    free(r->threads);
    pk_u64map_free(&r->jemalloc_threads);
    free(r->scratch);
    free(r->stack);
    free(r->previous_stack);
    pk_procmaps_free(&r->maps);
}

static bool lt_is_thread_start(const char *line, size_t len)
{
    return len >= 11 && memcmp(line, "--- Thread ", 11) == 0;
}

pk_status lt_read(pk_input *in, pk_profile *p, const pk_read_options *options, pk_error *err)
{
    (void)options;
    lt_reader r;
    memset(&r, 0, sizeof r);
    r.p = p;
    r.in = in;
    r.current_thread = PK_NONE;
    r.before_first_stack = true;
    pk_index_init(&r.record_index);
    pk_u64map_init(&r.jemalloc_threads);
    pk_procmaps_init(&r.maps);
    pk_text_lines_init(&r.lines, in, LT_MAX_LINE);
    /* Thread 0 is the process: heap and contention samples, what jemalloc's "t*:" counts
     * beyond its "tN:" lines. */
    pk_status st = lt_new_thread(&r, PK_NONE, -1) == PK_NONE ? lt_nomem(err) : PK_OK;
    /* The header: the first line that is not blank or a comment. */
    while (st == PK_OK) {
        const char *text;
        size_t len;
        pk_text_line_result got = pk_text_lines_next(&r.lines, &text, &len);
        if (got == PK_TEXT_NOMEM) {
            st = lt_nomem(err);
            break;
        }
        if (got != PK_TEXT_LINE) {
            st = pk_error_set(err, PK_ERR_INPUT, 0, "not a legacy text profile: no header line");
            break;
        }
        const char *t = text;
        size_t n = len;
        lt_trim(&t, &n);
        if (n == 0 || t[0] == '#')
            continue;
        r.header = lt_parse_header(text, len);
        if (r.header.kind == LT_NONE)
            st = pk_error_set(err, PK_ERR_INPUT, (int64_t)r.lines.offset,
                              "line %" PRIu64 ": not a legacy text profile (expected \"heap "
                              "profile: ...\", \"heap_v2/RATE\", \"--- contention\" or "
                              "\"--- threadz\")", r.lines.number);
        r.has_alloc = r.header.has_alloc;
        r.section = r.header.kind == LT_CONTENTION ? LT_IN_CONTENTION_HEADER : LT_IN_RECORDS;
        /* A listing may start with its first thread's header. */
        if (r.header.kind == LT_THREADZ && len > 0 && lt_is_thread_start(t, n))
            st = lt_thread_header(&r, t, n, err);
        break;
    }
    if (st == PK_OK)
        st = lt_read_lines(&r, err);
    /* Damage leaves the lines before it, which make a profile of their own. */
    if (st == PK_OK || (st == PK_ERR_INPUT && err->salvageable)) {
        pk_error build_err;
        pk_status built = lt_build(&r, &build_err);
        if (built != PK_OK) {
            *err = build_err;
            st = built;
        }
    }
    lt_reader_free(&r);
    return st;
}
