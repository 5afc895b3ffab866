/* SPDX-License-Identifier: MIT */
/* Reading a Sampler file into the model, from the parser's events.
 *
 * One sample per row (the 1 0 1 words are kept opaque; other values are counted in a warning).
 * A symbol is a function in the resource of its first library path. A thread is named by its
 * symbol entry when that starts with "Thread_", else "Thread_" and the hex digits of its block
 * header. An unknown frame id becomes a function "0x%08x".
 * Frame order inside a row is not documented. Unless --sampler-order says, it is detected from
 * the first 4096 rows (kept until then; the rest stream straight into the model):
 *   1. rows that start with their own thread's id are root first (this writer's files), rows
 *      that end with it leaf first; the majority decides;
 *   2. else the end with fewer distinct ids over rows of two or more frames is the root (real
 *      stacks share their thread-start frames);
 *   3. else the end whose most frequent id carries more samples is the root;
 *   4. else root first.
 * The decision is kept as the property sampler.frame-order. A thread's own id at the root end
 * of its rows is dropped: it is the thread, not a function.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/hashmap.h"
#include "core/path.h"
#include "formats/sampler/sampler.h"

typedef enum sm_order { SM_ORDER_DETECT, SM_ORDER_ROOT_FIRST, SM_ORDER_LEAF_FIRST } sm_order;

/* Rows kept while the frame order is not decided yet, and how many of them decide it. */
#define SM_DETECT_ROWS 4096
#define SM_DETECT_WORDS ((size_t)1 << 22)

typedef struct sm_reader {
    sm_parser parser;
    pk_profile *p;
    pk_error *err;

    pk_u64map thread_by_id; /* thread id -> model thread */
    uint32_t *thread_ids;   /* model thread -> thread id */
    size_t thread_capacity;
    uint32_t thread;        /* model thread of the open block */
    uint32_t thread_id;

    sm_order order;
    const char *order_reason;
    uint32_t value;       /* samples */
    uint32_t *row;        /* frame ids of the row being read */
    size_t row_capacity;
    uint32_t row_length;
    uint32_t *previous_ids, *previous_stacks; /* the last row, root first, and its stacks */
    size_t previous_depth, previous_ids_capacity, previous_stacks_capacity;
    uint32_t previous_thread, previous_stack; /* and its sample row */
    size_t previous_row;
    /* Until the order is decided: (model thread, n, n frame ids) per row. */
    uint32_t *pending;
    size_t pending_words, pending_capacity, pending_rows;

    uint64_t odd_words;
    uint64_t two_paths;
    uint64_t unknown_frames;
} sm_reader;

static pk_status sm_nomem(sm_reader *r)
{
    return pk_error_set(r->err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
}

/* ---- the model ------------------------------------------------------------------------------- */

static uint32_t sm_frame_of(sm_reader *r, uint32_t id)
{
    sm_symbol *sym = pk_sampler_symbol(&r->parser, id);
    if (!sym) {
        char name[16];
        snprintf(name, sizeof name, "0x%08" PRIx32, id);
        r->unknown_frames++;
        if (!pk_sampler_add_symbol(&r->parser, id, name, strlen(name), "", 0))
            return PK_NONE;
        sym = pk_sampler_symbol(&r->parser, id);
    }
    if (sym->frame != PK_NONE)
        return sym->frame;
    uint32_t resource = PK_NONE;
    if (pk_str_len(r->p, sym->path)) {
        const char *path = pk_str(r->p, sym->path);
        const char *base = pk_path_basename(path);
        pk_resource res = {.name = base == path ? sym->path : pk_intern_cstr(r->p, base),
                           .path = sym->path};
        resource = res.name == PK_NONE ? PK_NONE : pk_intern_resource(r->p, &res);
        if (resource == PK_NONE)
            return PK_NONE;
    }
    pk_function fn = {.name = sym->name, .resource = resource};
    uint32_t function = pk_intern_function(r->p, &fn);
    if (function == PK_NONE)
        return PK_NONE;
    pk_frame frame = {.function = function, .resource = resource};
    sym->frame = pk_intern_frame(r->p, &frame);
    return sym->frame;
}

/* The model stack of a row given root first or leaf first; the thread's own id at the root end
 * is the thread, not a function, and is left out. Neighbouring samples mostly share their root
 * part, so the stacks of the previous row's common prefix are reused without hashing. */
static pk_status sm_stack_of(sm_reader *r, uint32_t own, const uint32_t *ids, size_t n,
                             bool leaf_first, uint32_t *stack)
{
    *stack = PK_NONE;
    size_t skip = n > 0 && ids[leaf_first ? n - 1 : 0] == own;
    size_t depth = n - skip;
    if (!PK_ARRAY_RESERVE(r->previous_ids, r->previous_ids_capacity, depth) ||
        !PK_ARRAY_RESERVE(r->previous_stacks, r->previous_stacks_capacity, depth))
        return sm_nomem(r);
    bool same = true;
    for (size_t k = 0; k < depth; k++) {
        uint32_t id = ids[leaf_first ? n - 1 - skip - k : skip + k];
        if (same && k < r->previous_depth && r->previous_ids[k] == id) {
            *stack = r->previous_stacks[k];
            continue;
        }
        same = false;
        uint32_t frame = sm_frame_of(r, id);
        *stack = frame == PK_NONE ? PK_NONE : pk_intern_stack(r->p, *stack, frame);
        if (*stack == PK_NONE) {
            r->previous_depth = 0;
            return sm_nomem(r);
        }
        r->previous_ids[k] = id;
        r->previous_stacks[k] = *stack;
    }
    r->previous_depth = depth;
    return PK_OK;
}

static pk_status sm_add_row(sm_reader *r, uint32_t thread, uint32_t stack)
{
    if (thread != r->previous_thread || stack != r->previous_stack) {
        r->previous_row = pk_sample_row(r->p, thread, stack);
        if (r->previous_row == SIZE_MAX)
            return sm_nomem(r);
        r->previous_thread = thread;
        r->previous_stack = stack;
    }
    pk_sample_row_add(r->p, r->previous_row, r->value, 1);
    return PK_OK;
}

/* ---- the frame order ------------------------------------------------------------------------- */

/* Sample weight per distinct id at one end of the rows. */
typedef struct sm_tally {
    pk_u64map index; /* id -> weight */
    size_t count;
    uint32_t top;
} sm_tally;

static bool sm_tally_add(sm_tally *t, uint32_t id)
{
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&t->index, id, 0, &slot, &inserted))
        return false;
    t->count += inserted;
    if (++*slot > t->top)
        t->top = *slot;
    return true;
}

/* Decides the order from the rows kept so far (see the top of the file), then adds them. */
static pk_status sm_decide(sm_reader *r)
{
    uint64_t own_first = 0, own_last = 0;
    sm_tally first = {0}, last = {0};
    pk_u64map_init(&first.index);
    pk_u64map_init(&last.index);
    bool ok = true;
    for (size_t w = 0; w < r->pending_words && ok; w += 2 + r->pending[w + 1]) {
        uint32_t own = r->thread_ids[r->pending[w]], n = r->pending[w + 1];
        const uint32_t *ids = r->pending + w + 2;
        if (n < 2)
            continue;
        own_first += ids[0] == own;
        own_last += ids[n - 1] == own;
        ok = sm_tally_add(&first, ids[0]) && sm_tally_add(&last, ids[n - 1]);
    }
    pk_u64map_free(&first.index);
    pk_u64map_free(&last.index);
    if (!ok)
        return sm_nomem(r);
    if (own_first != own_last) {
        r->order = own_first > own_last ? SM_ORDER_ROOT_FIRST : SM_ORDER_LEAF_FIRST;
        r->order_reason = "thread id at the root end";
    } else if (first.count != last.count) {
        r->order = first.count < last.count ? SM_ORDER_ROOT_FIRST : SM_ORDER_LEAF_FIRST;
        r->order_reason = "fewer distinct frames at the root end";
    } else if (first.top != last.top) {
        r->order = first.top > last.top ? SM_ORDER_ROOT_FIRST : SM_ORDER_LEAF_FIRST;
        r->order_reason = "most frequent frame at the root end";
    } else {
        r->order = SM_ORDER_ROOT_FIRST;
        r->order_reason = "no evidence, the default";
    }
    pk_status st = PK_OK;
    for (size_t w = 0; w < r->pending_words && st == PK_OK; w += 2 + r->pending[w + 1]) {
        uint32_t thread = r->pending[w], n = r->pending[w + 1];
        uint32_t stack;
        st = sm_stack_of(r, r->thread_ids[thread], r->pending + w + 2, n,
                         r->order == SM_ORDER_LEAF_FIRST, &stack);
        if (st == PK_OK)
            st = sm_add_row(r, thread, stack);
    }
    free(r->pending);
    r->pending = NULL;
    r->pending_words = r->pending_capacity = r->pending_rows = 0;
    return st;
}

/* Keeps a row until the order is decided; decides once enough rows are in. */
static pk_status sm_keep_row(sm_reader *r)
{
    size_t n = r->row_length;
    if (!PK_ARRAY_RESERVE(r->pending, r->pending_capacity, r->pending_words + n + 2))
        return sm_nomem(r);
    uint32_t *w = r->pending + r->pending_words;
    w[0] = r->thread;
    w[1] = (uint32_t)n;
    if (n)
        memcpy(w + 2, r->row, n * sizeof *w);
    r->pending_words += n + 2;
    r->pending_rows++;
    if (r->pending_rows >= SM_DETECT_ROWS || r->pending_words >= SM_DETECT_WORDS)
        return sm_decide(r);
    return PK_OK;
}

/* ---- the parser's events --------------------------------------------------------------------- */

static pk_status sm_on_symbol(void *context, uint64_t offset, const sm_symbol_row *row)
{
    (void)offset;
    sm_reader *r = context;
    r->two_paths += !row->same_paths;
    return PK_OK;
}

static pk_status sm_on_thread(void *context, uint64_t offset, uint32_t id, const char *digits,
                              uint32_t name)
{
    (void)offset;
    sm_reader *r = context;
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&r->thread_by_id, id, 0, &slot, &inserted))
        return sm_nomem(r);
    if (inserted) {
        if (name == PK_NONE)
            name = pk_intern_printf(r->p, "Thread_%s", digits);
        uint32_t thread = name == PK_NONE ? PK_NONE : pk_add_thread(r->p, name, -1, id);
        if (thread == PK_NONE ||
            !PK_ARRAY_RESERVE(r->thread_ids, r->thread_capacity, (size_t)thread + 1))
            return sm_nomem(r);
        r->thread_ids[thread] = id;
        slot = pk_u64map_find(&r->thread_by_id, id);
        *slot = thread;
    }
    r->thread = *slot;
    r->thread_id = id;
    return PK_OK;
}

static pk_status sm_on_row_begin(void *context, uint64_t offset, const uint32_t words[3],
                                 uint32_t n)
{
    (void)offset;
    sm_reader *r = context;
    if (words[0] != 1 || words[1] != 0 || words[2] != 1)
        r->odd_words++;
    r->row_length = n;
    return PK_OK;
}

static pk_status sm_on_row_frames(void *context, const uint8_t *ids, uint32_t first,
                                  uint32_t count)
{
    sm_reader *r = context;
    /* Grows with the frames actually read, never with the count alone. */
    if (!PK_ARRAY_RESERVE(r->row, r->row_capacity, (size_t)first + count))
        return sm_nomem(r);
    for (uint32_t i = 0; i < count; i++)
        r->row[first + i] = sm_be32(ids + 4 * i);
    return PK_OK;
}

static pk_status sm_on_row_end(void *context)
{
    sm_reader *r = context;
    if (r->order == SM_ORDER_DETECT)
        return sm_keep_row(r);
    uint32_t stack;
    pk_status st = sm_stack_of(r, r->thread_id, r->row, r->row_length,
                               r->order == SM_ORDER_LEAF_FIRST, &stack);
    return st == PK_OK ? sm_add_row(r, r->thread, stack) : st;
}

static void sm_on_trailing(void *context, uint64_t offset)
{
    sm_reader *r = context;
    pk_warn(r->p, "bytes after the final @end at byte %" PRIu64 " are ignored", offset);
}

static const sm_events sm_reader_events = {
    .symbol = sm_on_symbol,
    .thread = sm_on_thread,
    .row_begin = sm_on_row_begin,
    .row_frames = sm_on_row_frames,
    .row_end = sm_on_row_end,
    .trailing = sm_on_trailing,
};

/* ---- reading --------------------------------------------------------------------------------- */

/* Adds the rows still kept, records the order and the oddities. */
static pk_status sm_finish(sm_reader *r)
{
    if (r->order == SM_ORDER_DETECT) {
        pk_status st = sm_decide(r);
        if (st != PK_OK)
            return st;
    }
    char property[96];
    snprintf(property, sizeof property, "%s (%s)",
             r->order == SM_ORDER_ROOT_FIRST ? "root-first" : "leaf-first", r->order_reason);
    if (pk_property_set(r->p, "sampler.frame-order", property) != PK_OK)
        return sm_nomem(r);
    if (r->odd_words)
        pk_warn(r->p,
                "%" PRIu64 " sample rows start with other words than 1 0 1; each still counts once",
                r->odd_words);
    if (r->parser.duplicate_ids)
        pk_warn(r->p, "%" PRIu64 " symbol rows repeat an id; the first row of each id is used",
                r->parser.duplicate_ids);
    if (r->two_paths)
        pk_warn(r->p, "%" PRIu64 " symbols have two different library paths; the first is used",
                r->two_paths);
    if (r->unknown_frames)
        pk_warn(r->p, "%" PRIu64 " frame ids are not in the symbol table", r->unknown_frames);
    return PK_OK;
}

pk_status pk_sampler_read(pk_input *in, pk_profile *p, const pk_read_options *options,
                          pk_error *err)
{
    const char *order = options ? pk_option_get(&options->extra, "sampler-order") : NULL;
    if (order && strcmp(order, "root-first") != 0 && strcmp(order, "leaf-first") != 0)
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET,
                            "--sampler-order takes leaf-first or root-first, not '%s'", order);
    sm_reader *r = calloc(1, sizeof *r);
    if (!r)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    r->p = p;
    r->err = err;
    r->previous_thread = PK_NONE;
    pk_u64map_init(&r->thread_by_id);
    pk_sampler_parser_init(&r->parser, p, &sm_reader_events, r, err);
    r->order = !order ? SM_ORDER_DETECT
               : strcmp(order, "root-first") == 0 ? SM_ORDER_ROOT_FIRST
                                                  : SM_ORDER_LEAF_FIRST;
    r->order_reason = "--sampler-order";
    r->value = pk_add_value_type(p, "samples", "count");
    /* The file states no sampling interval: each row is one whole-stack sample, so the period
     * is one sample (pprof's period type and period say so). */
    pk_metadata *meta = pk_metadata_of(p);
    meta->period = 1;
    meta->period_type = pk_intern_cstr(p, "samples");
    meta->period_unit = pk_intern_cstr(p, "count");
    bool declared = r->value != PK_NONE && meta->period_type != PK_NONE &&
                    meta->period_unit != PK_NONE;
    pk_status st = !declared ? sm_nomem(r) : pk_sampler_parse(&r->parser, in);
    /* After damage, the rows before it make the profile. */
    if (st == PK_OK || st == PK_ERR_INPUT) {
        pk_status finished = sm_finish(r);
        if (finished != PK_OK)
            st = finished;
    }
    pk_sampler_parser_free(&r->parser);
    pk_u64map_free(&r->thread_by_id);
    free(r->thread_ids);
    free(r->row);
    free(r->pending);
    free(r->previous_ids);
    free(r->previous_stacks);
    free(r);
    return st;
}
