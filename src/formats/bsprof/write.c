/* SPDX-License-Identifier: MIT */
/* Writing a profile as .bsprof, so that other formats open in Roku's own viewer: modules are
 * the threads, path elements the (thread, callers, function) nodes of the stack tree, each
 * written before the first entry that names it, and the values become incremental CPU, wall
 * and call-count entries; memory events become memory operations in stream order. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/buffer.h"
#include "core/hashmap.h"
#include "core/output.h"
#include "core/varint.h"
#include "formats/bsprof/bsprof.h"

static pk_status bs_nomem(pk_error *err)
{
    return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
}

/* A path element being written: a function called from a stack of callers in a thread. */
/* A path element: a function called from a line of its caller's path element. */
typedef struct bs_wpath {
    uint32_t thread;
    uint32_t caller;       /* path element ID of the caller, 0 for a root */
    uint32_t caller_frame; /* the caller's frame (its line is the call site), PK_NONE at a root */
    uint32_t function;     /* PK_NONE for the placeholder of an empty stack */
} bs_wpath;

typedef struct bs_writer {
    const pk_profile *p;
    pk_output *out;
    pk_error *err;
    bool line_data;
    uint32_t *string_ids;    /* per profile string: its string ID, 0 until written */
    uint32_t next_string_id; /* IDs are handed out in order of writing, so that the output
                                does not depend on the order of the profile's tables */
    uint32_t unknown_name;   /* string ID of "<unknown>", 0 until written */
    uint32_t *module_ids;    /* per thread */
    pk_u64map path_of_stack; /* thread << 32 | stack -> path element index */
    pk_index path_index;     /* (thread, callers, function) -> path element index */
    bs_wpath *paths;
    size_t path_count, path_cap;
    uint32_t *chain;
    size_t chain_cap;
    pk_u64map addresses;     /* 64-bit address -> 32-bit handle, when addresses do not fit */
    bool remap_addresses;
} bs_writer;

static inline void bs_put_varint(pk_output *out, uint64_t v)
{
    uint8_t buf[PK_VARINT_MAX_BYTES];
    pk_out_write(out, buf, pk_varint_encode(buf, v));
}

/* The string ID of profile string s, writing its entry the first time. */
static uint32_t bs_write_string(bs_writer *w, uint32_t s)
{
    if (w->string_ids[s])
        return w->string_ids[s];
    uint32_t id = w->string_ids[s] = ++w->next_string_id;
    bs_put_varint(w->out, (uint64_t)id << 3 | BS_STRING);
    /* .bsprof strings end at a NUL byte, so one inside a name is written as '_', as the
     * folded writer does. */
    const char *text = pk_str(w->p, s);
    size_t len = pk_str_len(w->p, s);
    for (const char *nul; len > 0 && (nul = memchr(text, '\0', len)) != NULL;) {
        size_t before = (size_t)(nul - text);
        pk_out_write(w->out, text, before);
        pk_out_putc(w->out, '_');
        text += before + 1;
        len -= before + 1;
    }
    pk_out_write(w->out, text, len + 1);
    return id;
}

/* Line offset that makes the reader give back the frame's line: 0 (no line) when it has none
 * or when it lies before the function's start line. */
static uint32_t bs_frame_offset(const pk_profile *p, uint32_t frame_index)
{
    const pk_frame *frame = pk_frame_at(p, frame_index);
    if (frame->line == 0)
        return 0;
    uint32_t start = pk_function_at(p, frame->function)->start_line;
    if (frame->line < start)
        return 0;
    uint64_t offset = (uint64_t)frame->line - start + 1;
    return offset > UINT32_MAX ? 0 : (uint32_t)offset;
}

/* The line offset of a stack's innermost frame; 0 for the empty stack. */
static uint32_t bs_frame_offset_of_stack(const pk_profile *p, uint32_t stack)
{
    return stack == PK_NONE ? 0 : bs_frame_offset(p, pk_stack_leaf(p, stack));
}

static bool bs_wpath_equal(const void *context, uint32_t entry, const void *key)
{
    const bs_writer *w = context;
    const bs_wpath *a = &w->paths[entry], *b = key;
    return a->thread == b->thread && a->caller == b->caller &&
           a->caller_frame == b->caller_frame && a->function == b->function;
}

static uint64_t bs_wpath_hash(const bs_wpath *key)
{
    uint32_t words[4] = {key->thread, key->caller, key->caller_frame, key->function};
    return pk_hash_bytes(words, sizeof words);
}

/* The path element ID of key, writing its entry (and the strings it names) the first time. */
static uint32_t bs_write_path(bs_writer *w, const bs_wpath *key)
{
    uint32_t caller_id = key->caller;
    uint64_t hash = bs_wpath_hash(key);
    uint32_t found = pk_index_find(&w->path_index, hash, bs_wpath_equal, w, key);
    if (found != UINT32_MAX)
        return found + 1;
    if (w->path_count >= UINT32_MAX - 1) {
        pk_error_set(w->err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                     "too many call paths for 32-bit path element IDs");
        return 0;
    }
    if (!PK_ARRAY_RESERVE(w->paths, w->path_cap, w->path_count + 1) ||
        !pk_index_insert(&w->path_index, hash, (uint32_t)w->path_count)) {
        bs_nomem(w->err);
        return 0;
    }
    w->paths[w->path_count++] = *key;
    uint32_t id = (uint32_t)w->path_count;

    uint32_t name, file = 0, line = 0;
    if (key->function == PK_NONE) {
        if (w->unknown_name == 0) {
            w->unknown_name = ++w->next_string_id;
            bs_put_varint(w->out, (uint64_t)w->unknown_name << 3 | BS_STRING);
            pk_out_write(w->out, "<unknown>", sizeof "<unknown>");
        }
        name = w->unknown_name;
    } else {
        const pk_function *fn = pk_function_at(w->p, key->function);
        name = bs_write_string(w, fn->name);
        if (fn->file)
            file = bs_write_string(w, fn->file);
        line = fn->start_line;
    }
    bs_put_varint(w->out, (uint64_t)id << 3 | BS_PATH);
    bs_put_varint(w->out, caller_id);
    if (caller_id == 0)
        bs_put_varint(w->out, w->module_ids[key->thread]);
    else if (w->line_data)
        bs_put_varint(w->out, bs_frame_offset(w->p, key->caller_frame));
    bs_put_varint(w->out, file);
    bs_put_varint(w->out, line);
    bs_put_varint(w->out, name);
    return id;
}

/* The path element ID for the leaf of (thread, stack), writing the entries of the callers that
 * are not written yet, root first: each frame of a stack's run is a function called from the
 * frame before it. 0 on failure. */
static uint32_t bs_path_of(bs_writer *w, uint32_t thread, uint32_t stack)
{
    if (stack == PK_NONE) {
        bs_wpath key = {thread, 0, PK_NONE, PK_NONE};
        return bs_write_path(w, &key);
    }
    uint64_t key = (uint64_t)thread << 32 | stack;
    uint32_t *found = pk_u64map_find(&w->path_of_stack, key);
    if (found)
        return *found;
    /* The stacks whose paths are not known yet, innermost first. */
    size_t n = 0;
    uint32_t s = stack;
    uint32_t caller_id = 0;
    while (s != PK_NONE) {
        found = pk_u64map_find(&w->path_of_stack, (uint64_t)thread << 32 | s);
        if (found) {
            caller_id = *found;
            break;
        }
        if (!PK_ARRAY_RESERVE(w->chain, w->chain_cap, n + 1)) {
            bs_nomem(w->err);
            return 0;
        }
        w->chain[n++] = s;
        const uint32_t *frames;
        pk_stack_run(w->p, s, &s, &frames);
    }
    while (n > 0) {
        s = w->chain[--n];
        uint32_t prefix;
        const uint32_t *frames;
        size_t length = pk_stack_run(w->p, s, &prefix, &frames);
        uint32_t caller_frame = pk_stack_leaf(w->p, prefix);
        for (size_t k = 0; k < length; k++) {
            bs_wpath path = {thread, caller_id, caller_id ? caller_frame : PK_NONE,
                             pk_frame_at(w->p, frames[k])->function};
            caller_id = bs_write_path(w, &path);
            if (caller_id == 0)
                return 0;
            caller_frame = frames[k];
        }
        uint32_t *slot;
        bool inserted;
        if (!pk_u64map_put(&w->path_of_stack, (uint64_t)thread << 32 | s, caller_id, &slot,
                           &inserted)) {
            bs_nomem(w->err);
            return 0;
        }
    }
    return caller_id;
}

/* Incremental entries carry 32-bit amounts: a larger total becomes several entries. This
 * bounds how many a single value may take. */
#define BS_MAX_SPLIT ((uint64_t)1 << 20)

static pk_status bs_check_amount(bs_writer *w, int64_t v, const char *what)
{
    if (v < 0)
        return pk_error_set(w->err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                            ".bsprof cannot carry the negative %s value %" PRId64, what, v);
    if ((uint64_t)v / UINT32_MAX > BS_MAX_SPLIT)
        return pk_error_set(w->err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                            "the %s value %" PRId64 " is too large for .bsprof", what, v);
    return PK_OK;
}

typedef struct bs_value_choice {
    uint32_t cpu, wall, calls;
} bs_value_choice;

static pk_status bs_write_row(bs_writer *w, const bs_value_choice *vc, size_t row)
{
    const int64_t *values = pk_sample_values(w->p, row);
    int64_t cpu = vc->cpu != PK_NONE ? values[vc->cpu] : 0;
    int64_t wall = vc->wall != PK_NONE ? values[vc->wall] : 0;
    int64_t calls = vc->calls != PK_NONE ? values[vc->calls] : 0;
    if (cpu == 0 && wall == 0 && calls == 0)
        return PK_OK;
    pk_status st;
    if ((st = bs_check_amount(w, cpu, "cpu")) || (st = bs_check_amount(w, wall, "wall")) ||
        (st = bs_check_amount(w, calls, "calls")))
        return st;
    uint32_t stack = pk_sample_stack(w->p, row);
    uint32_t id = bs_path_of(w, pk_sample_thread(w->p, row), stack);
    if (id == 0)
        return w->err->status;
    uint32_t offset = bs_frame_offset_of_stack(w->p, stack);
    uint64_t cpu_left = (uint64_t)cpu, wall_left = (uint64_t)wall;
    while (cpu_left || wall_left) {
        uint32_t c = cpu_left > UINT32_MAX ? UINT32_MAX : (uint32_t)cpu_left;
        uint32_t t = wall_left > UINT32_MAX ? UINT32_MAX : (uint32_t)wall_left;
        bs_put_varint(w->out, (uint64_t)id << 3 | BS_CPU);
        if (w->line_data)
            bs_put_varint(w->out, offset);
        bs_put_varint(w->out, c);
        bs_put_varint(w->out, t);
        cpu_left -= c;
        wall_left -= t;
    }
    for (uint64_t left = (uint64_t)calls; left;) {
        uint32_t c = left > UINT32_MAX ? UINT32_MAX : (uint32_t)left;
        bs_put_varint(w->out, (uint64_t)id << 3 | BS_CALLS);
        bs_put_varint(w->out, c);
        left -= c;
    }
    return PK_OK;
}

static pk_status bs_write_memory_event(bs_writer *w, const pk_memory_event *ev)
{
    if (ev->thread >= pk_thread_count(w->p))
        return pk_error_set(w->err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                            "a memory event has no thread");
    if (ev->kind == PK_MEM_ALLOC && ev->size > UINT32_MAX)
        return pk_error_set(w->err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                            "an allocation of %" PRIu64
                            " bytes exceeds the 32-bit size field of .bsprof",
                            ev->size);
    uint64_t address = ev->address;
    if (w->remap_addresses) {
        uint32_t *slot;
        bool inserted;
        uint32_t next = (uint32_t)w->addresses.count + 1;
        if (w->addresses.count >= UINT32_MAX - 1)
            return pk_error_set(w->err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                                "too many distinct addresses for .bsprof");
        if (!pk_u64map_put(&w->addresses, address, next, &slot, &inserted))
            return bs_nomem(w->err);
        address = *slot;
    }
    uint32_t id = bs_path_of(w, ev->thread, ev->stack);
    if (id == 0)
        return w->err->status;
    unsigned op = ev->kind == PK_MEM_ALLOC ? BS_OP_ALLOC
                  : ev->kind == PK_MEM_FREE ? BS_OP_FREE
                                            : BS_OP_FREE_REALLOC;
    bs_put_varint(w->out, (uint64_t)id << 5 | (uint64_t)op << 3 | BS_MEMORY);
    if (w->line_data)
        bs_put_varint(w->out, bs_frame_offset_of_stack(w->p, ev->stack));
    bs_put_varint(w->out, address);
    if (op == BS_OP_ALLOC)
        bs_put_varint(w->out, ev->size);
    return PK_OK;
}

static void bs_header_varint_append(pk_buffer *b, uint64_t v)
{
    uint8_t buf[PK_VARINT_MAX_BYTES];
    pk_buffer_append(b, buf, pk_varint_encode(buf, v));
}

static void bs_header_float_append(pk_buffer *b, float v)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    uint8_t le[4] = {(uint8_t)bits, (uint8_t)(bits >> 8), (uint8_t)(bits >> 16),
                     (uint8_t)(bits >> 24)};
    pk_buffer_append(b, le, 4);
}

static float bs_property_ratio(const pk_profile *p, const char *key)
{
    const char *text = pk_property_get(p, key);
    if (!text || !*text)
        return 1.0f;
    char *end;
    float v = strtof(text, &end);
    return *end == '\0' ? v : 1.0f;
}

static pk_status bs_write_header(bs_writer *w, bool memory_ops)
{
    const pk_profile *p = w->p;
    const pk_metadata *meta = pk_metadata_get(p);
    pk_buffer fields = PK_BUFFER_INIT;
    bs_header_float_append(&fields, bs_property_ratio(p, "requested-sample-ratio"));
    bs_header_float_append(&fields, bs_property_ratio(p, "actual-sample-ratio"));
    bs_header_varint_append(&fields, w->line_data);
    bs_header_varint_append(&fields, memory_ops);
    bs_header_varint_append(&fields,
                            meta->start_time > 0 ? (uint64_t)meta->start_time / 1000000 : 0);
    char converted[128];
    for (int i = 0; i < BS_HEADER_TEXT_COUNT; i++) {
        const char *text = pk_property_get(p, pk_bsprof_header_text_keys[i]);
        if (i == BS_TARGET && meta->product)
            text = pk_str(p, meta->product);
        if (!text && i == BS_SUPPLEMENTAL && meta->source_format) {
            snprintf(converted, sizeof converted, "converted by profkit from %s",
                     pk_str(p, meta->source_format));
            text = converted;
        }
        if (!text)
            text = "";
        pk_buffer_append(&fields, text, strlen(text) + 1);
    }
    if (fields.failed) {
        pk_buffer_free(&fields);
        return bs_nomem(w->err);
    }
    uint8_t versions[3 * PK_VARINT_MAX_BYTES];
    size_t nversions = pk_varint_encode(versions, BS_WRITE_MAJOR);
    nversions += pk_varint_encode(versions + nversions, BS_WRITE_MINOR);
    nversions += pk_varint_encode(versions + nversions, BS_WRITE_PATCH);
    /* The header size counts itself: find the size whose varint makes the total. */
    uint64_t without_size = BS_MAGIC_SIZE + nversions + fields.len;
    uint64_t size = without_size + 1;
    while (without_size + pk_varint_size(size) != size)
        size = without_size + pk_varint_size(size);
    if (size > UINT32_MAX) {
        pk_buffer_free(&fields);
        return pk_error_set(w->err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                            "the header strings are too long for .bsprof");
    }
    pk_out_write(w->out, pk_bsprof_magic, BS_MAGIC_SIZE);
    pk_out_write(w->out, versions, nversions);
    bs_put_varint(w->out, size);
    pk_out_write(w->out, fields.data, fields.len);
    pk_buffer_free(&fields);
    return PK_OK;
}

/* Module IDs: the thread ID when it fits and is unique (so .bsprof round trips keep them),
 * otherwise the smallest unused number. */
static pk_status bs_assign_modules(bs_writer *w)
{
    size_t nthreads = pk_thread_count(w->p);
    pk_u64map used;
    pk_u64map_init(&used);
    w->module_ids = calloc(nthreads ? nthreads : 1, sizeof *w->module_ids);
    if (!w->module_ids)
        return bs_nomem(w->err);
    for (size_t t = 0; t < nthreads; t++) {
        int64_t tid = pk_thread_at(w->p, (uint32_t)t)->tid;
        uint32_t *slot;
        bool inserted;
        if (tid < 1 || tid > UINT32_MAX)
            continue;
        if (!pk_u64map_put(&used, (uint64_t)tid, (uint32_t)t, &slot, &inserted)) {
            pk_u64map_free(&used);
            return bs_nomem(w->err);
        }
        if (inserted)
            w->module_ids[t] = (uint32_t)tid;
    }
    uint64_t next = 1;
    for (size_t t = 0; t < nthreads; t++) {
        if (w->module_ids[t])
            continue;
        while (pk_u64map_find(&used, next))
            next++;
        w->module_ids[t] = (uint32_t)next++;
    }
    pk_u64map_free(&used);
    return PK_OK;
}

static void bs_choose_values(const pk_profile *p, const pk_write_options *options,
                             bs_value_choice *vc)
{
    vc->cpu = pk_value_find(p, "cpu");
    vc->wall = pk_value_find(p, "wall");
    vc->calls = pk_value_find(p, "calls");
    if (options && options->value != PK_NONE && options->value < pk_value_type_count(p))
        vc->cpu = options->value;
    else if (vc->cpu == PK_NONE && pk_value_type_count(p) > 0)
        vc->cpu = pk_default_value(p);
    if (vc->wall == vc->cpu)
        vc->wall = PK_NONE;
    if (vc->calls == vc->cpu)
        vc->calls = PK_NONE;
}

pk_status pk_bsprof_write(const pk_profile *p, pk_output *out, const pk_write_options *options,
                          pk_error *err)
{
    bs_writer w = {.p = p, .out = out, .err = err};
    pk_u64map_init(&w.path_of_stack);
    pk_index_init(&w.path_index);
    pk_u64map_init(&w.addresses);
    pk_status st = PK_OK;
    size_t nevents = pk_memory_event_count(p);
    size_t nrows = pk_sample_count(p);
    bs_value_choice vc;
    bs_choose_values(p, options, &vc);

    const char *line_property = pk_property_get(p, "line-data");
    w.line_data = line_property && strcmp(line_property, "yes") == 0;
    for (size_t f = 0; f < pk_frame_count(p) && !w.line_data; f++)
        w.line_data = pk_frame_at(p, (uint32_t)f)->line != 0;
    const char *memory_property = pk_property_get(p, "memory-operations");
    bool memory_ops = nevents > 0 || (memory_property && strcmp(memory_property, "yes") == 0);
    pk_memory_counts counts;
    pk_memory_counts_get(p, &counts);
    w.remap_addresses = counts.max_address > UINT32_MAX;
    pk_memory_cursor *events = NULL;
    if (nevents) {
        st = pk_memory_events_open(p, &events);
        if (st != PK_OK) {
            st = st == PK_ERR_UNSUPPORTED
                     ? pk_error_set(err, st, PK_NO_OFFSET,
                                    "the profile kept only the sums of its memory events")
                     : bs_nomem(err);
            goto done;
        }
    }

    w.string_ids = calloc(pk_string_count(p) + 1, sizeof *w.string_ids);
    if (!w.string_ids) {
        st = bs_nomem(err);
        goto done;
    }
    if ((st = bs_write_header(&w, memory_ops)) != PK_OK || (st = bs_assign_modules(&w)) != PK_OK)
        goto done;
    for (size_t t = 0; t < pk_thread_count(p); t++) {
        uint32_t name = bs_write_string(&w, pk_thread_at(p, (uint32_t)t)->name);
        bs_put_varint(out, (uint64_t)w.module_ids[t] << 3 | BS_MODULE);
        bs_put_varint(out, name);
    }

    /* Rows and memory events in the order they were first recorded. */
    size_t row = 0;
    pk_memory_event ev;
    bool have_event = events && pk_memory_events_next(events, &ev);
    while (row < nrows || have_event) {
        if (!have_event || (row < nrows && pk_sample_order(p, row) <= ev.order)) {
            st = bs_write_row(&w, &vc, row++);
        } else {
            st = bs_write_memory_event(&w, &ev);
            have_event = pk_memory_events_next(events, &ev);
        }
        if (st != PK_OK)
            goto done;
        if (pk_out_failed(out))
            break;
    }
    if (events && pk_memory_events_close(events) != PK_OK) {
        events = NULL;
        st = pk_error_set(err, PK_ERR_IO, PK_NO_OFFSET, "cannot read back the memory events");
        goto done;
    }
    events = NULL;
    bs_put_varint(out, 0);
    const pk_metadata *meta = pk_metadata_get(p);
    if (meta->end_time != PK_TIME_UNKNOWN && meta->end_time > 0)
        bs_put_varint(out, (uint64_t)meta->end_time / 1000000);
done:
    pk_memory_events_close(events);
    free(w.string_ids);
    free(w.module_ids);
    free(w.paths);
    free(w.chain);
    pk_u64map_free(&w.path_of_stack);
    pk_index_free(&w.path_index);
    pk_u64map_free(&w.addresses);
    return st;
}
