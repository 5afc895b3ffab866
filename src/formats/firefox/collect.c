/* SPDX-License-Identifier: MIT */
/* What one thread reaches: its rows with a non-zero weight in stream order, its memory events
 * with a known size, and the stacks, frames, functions, resources and native symbols that
 * those reach, each numbered for the thread's own tables. */
#include <stdlib.h>

#include "formats/firefox/writer.h"

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The caller sorts the list of marked stacks afterwards. */
void fx_mark_stack(fx_writer *w, uint32_t stack)
{
    while (stack != PK_NONE && w->stacks.stamp[stack] != w->gen) {
        w->stacks.stamp[stack] = w->gen;
        w->stacks.items[w->stacks.count++] = stack;
        const uint32_t *frames;
        pk_stack_run(w->p, stack, &stack, &frames);
    }
}

/* The thread's rows with a non-zero weight, sorted by stream order, and their stacks. */
static bool collect_rows(fx_writer *w, uint32_t thread)
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
    w->row_count = kept;
    w->sample_count = 0;
    for (size_t i = 0; i < kept; i++)
        w->sample_count += fx_row_samples(w, w->row_order[i]);
    if (sorted)
        return true;
    fx_ordered_row *tmp = malloc(kept * sizeof *tmp);
    if (!tmp)
        return false;
    for (size_t i = 0; i < kept; i++)
        tmp[i] = (fx_ordered_row){pk_sample_order(p, w->row_order[i]), w->row_order[i]};
    qsort(tmp, kept, sizeof *tmp, fx_compare_ordered_rows);
    for (size_t i = 0; i < kept; i++)
        w->row_order[i] = tmp[i].row;
    free(tmp);
    return true;
}

/* The thread's memory events with a known size (a free whose allocation is unknown has none)
 * and their stacks. */
static bool collect_allocations(fx_writer *w, uint32_t thread)
{
    w->allocation_count = 0;
    if (w->memory_from_values) {
        for (size_t i = w->thread_rows_start[thread]; i < w->thread_rows_start[thread + 1]; i++) {
            uint64_t live, freed;
            size_t entries = fx_value_allocations(w, w->thread_rows[i], &live, &freed);
            if (entries)
                fx_mark_stack(w, pk_sample_stack(w->p, w->thread_rows[i]));
            w->allocation_count += entries;
        }
        return true;
    }
    fx_allocations it;
    fx_allocation a;
    fx_allocations_begin(w->allocations, thread, &it);
    while (fx_allocations_next(&it, &a)) {
        fx_mark_stack(w, a.stack);
        w->allocation_count++;
    }
    return fx_allocations_end(&it);
}

/* Frames of the marked stacks' runs, with their inline depths. */
static void collect_frames(fx_writer *w)
{
    const pk_profile *p = w->p;
    for (size_t i = 0; i < w->stacks.count; i++) {
        uint32_t prefix;
        const uint32_t *frames;
        size_t length = pk_stack_run(p, w->stacks.items[i], &prefix, &frames);
        uint32_t caller = pk_stack_leaf(p, prefix);
        for (size_t k = 0; k < length; caller = frames[k++]) {
            bool added;
            uint32_t local = fx_remap_add(&w->frames, frames[k], w->gen, &added);
            if (!added)
                continue;
            /* An inlined frame sits one level deeper than the frame it is inlined into. */
            uint32_t depth = 0;
            if ((pk_frame_at(p, frames[k])->flags & PK_FRAME_INLINED) && caller != PK_NONE)
                depth = w->frame_inline_depth[fx_remap_get(&w->frames, caller, w->gen)] + 1;
            w->frame_inline_depth[local] = depth;
        }
    }
}

/* Functions of the frames, their resources, and the native symbols of native frames at the
 * lowest address seen. */
static void collect_functions(fx_writer *w)
{
    const pk_profile *p = w->p;
    for (size_t i = 0; i < w->frames.count; i++) {
        const pk_frame *f = pk_frame_at(p, w->frames.items[i]);
        bool added;
        uint32_t func = fx_remap_add(&w->funcs, f->function, w->gen, &added);
        uint32_t lib_resource = PK_NONE;
        bool native = fx_is_native(p, f, &lib_resource);
        if (added) {
            uint32_t r = pk_function_at(p, f->function)->resource;
            w->func_resource[func] = r != PK_NONE ? r : lib_resource;
            if (w->func_resource[func] == PK_NONE && fx_is_script_source(w, f))
                w->func_resource[func] = w->script_resource;
            if (w->func_resource[func] != PK_NONE)
                fx_remap_add(&w->resources, w->func_resource[func], w->gen, NULL);
        }
        if (!native)
            continue;
        fx_remap_add(&w->resources, lib_resource, w->gen, NULL);
        uint32_t symbol = fx_remap_add(&w->symbols, f->function, w->gen, &added);
        int64_t rel = fx_relative_address(p, f, lib_resource);
        uint64_t address = rel < 0 ? 0 : (uint64_t)rel;
        if (added) {
            w->symbol_lib[symbol] = w->resource_lib[lib_resource];
            w->symbol_address[symbol] = address;
        } else if (address < w->symbol_address[symbol]) {
            w->symbol_address[symbol] = address;
        }
    }
}

pk_status fx_collect_thread(fx_writer *w, uint32_t thread)
{
    w->gen = thread + 1;
    w->stacks.count = w->frames.count = w->funcs.count = 0;
    w->resources.count = w->symbols.count = w->strings.count = 0;
    w->thread_is_timed = w->thread_timed[thread];
    if (w->thread_is_timed) {
        w->row_count = 0;
        w->sample_count = 0;
        pk_status status = fx_timed_collect(w, thread);
        if (status != PK_OK)
            return status;
    } else if (!collect_rows(w, thread)) {
        return PK_ERR_NOMEM;
    }
    if (!collect_allocations(w, thread))
        return PK_ERR_IO;
    /* Model order puts prefixes first; keeping it keeps the table topological. Each model
     * stack is as many rows of the table as its run has frames, the last one its own. */
    qsort(w->stacks.items, w->stacks.count, sizeof *w->stacks.items, compare_u32);
    size_t rows = 0;
    for (size_t i = 0; i < w->stacks.count; i++) {
        uint32_t prefix;
        const uint32_t *frames;
        rows += pk_stack_run(w->p, w->stacks.items[i], &prefix, &frames);
        w->stacks.local[w->stacks.items[i]] = (uint32_t)(rows - 1);
    }
    w->stack_rows = rows;
    collect_frames(w);
    collect_functions(w);
    return PK_OK;
}
