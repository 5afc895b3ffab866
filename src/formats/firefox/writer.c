/* SPDX-License-Identifier: MIT */
#include "formats/firefox/writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hashmap.h"
#include "core/title.h"
#include "core/units.h"

const char *fx_product(const pk_profile *p)
{
    const char *title = pk_profile_title(p);
    if (title)
        return title;
    const pk_metadata *md = pk_metadata_get(p);
    if (md->source_format && pk_str_len(p, md->source_format))
        return pk_str(p, md->source_format);
    return "profkit";
}

/* The weight type follows the value's unit: times become milliseconds, sizes bytes, anything
 * else counts as samples. */
static pk_status choose_value(fx_writer *w, const pk_write_options *options, pk_error *err)
{
    const pk_profile *p = w->p;
    size_t count = pk_value_type_count(p);
    w->weight_kind = FX_WEIGHT_SAMPLES;
    w->weight_scale = 1;
    if (count == 0) {
        w->value = PK_NONE;
        return PK_OK;
    }
    uint32_t v = options && options->value != PK_NONE ? options->value : pk_default_value(p);
    if (v >= count)
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET, "value %u does not exist (%zu values)",
                            (unsigned)v, count);
    w->value = v;
    pk_unit_info unit = pk_unit_lookup(pk_str(p, pk_value_type_at(p, v)->unit));
    if (unit.kind == PK_UNIT_TIME) {
        w->weight_kind = FX_WEIGHT_MS;
        w->weight_scale = unit.scale;
    } else if (unit.kind == PK_UNIT_BYTES) {
        w->weight_kind = FX_WEIGHT_BYTES;
        w->weight_scale = unit.scale;
    }
    return PK_OK;
}

/* Categories of every frame and the categories in use, numbered for meta.categories; the
 * libraries that native frames are in, numbered for libs. */
static bool classify(fx_writer *w)
{
    const pk_profile *p = w->p;
    size_t frames = pk_frame_count(p), resources = pk_resource_count(p);
    w->frame_category = malloc(frames ? frames : 1);
    /* One more entry: the script sources' library, when there is one. */
    w->resource_lib = malloc((resources + 1) * sizeof *w->resource_lib);
    if (!w->frame_category || !w->resource_lib)
        return false;
    for (size_t r = 0; r <= resources; r++)
        w->resource_lib[r] = PK_NONE;
    bool scripts = false;

    pk_category format_category = pk_profile_category(p);
    memset(w->category_used, 0, sizeof w->category_used);
    w->category_used[PK_CATEGORY_OTHER] = true;
    for (size_t i = 0; i < frames; i++) {
        pk_category c = pk_frame_category(p, (uint32_t)i, format_category);
        uint32_t lib_resource = PK_NONE;
        if (fx_is_native(p, pk_frame_at(p, (uint32_t)i), &lib_resource))
            w->resource_lib[lib_resource] = 0; /* numbered below */
        else if (fx_is_script_source(w, pk_frame_at(p, (uint32_t)i)))
            scripts = true;
        w->frame_category[i] = (uint8_t)c;
        w->category_used[c] = true;
    }
    /* Libraries in resource order, so the output does not depend on frame order. */
    w->lib_count = 0;
    for (size_t r = 0; r < resources; r++)
        if (w->resource_lib[r] != PK_NONE)
            w->resource_lib[r] = w->lib_count++;
    if (scripts)
        w->resource_lib[resources] = w->lib_count++;
    else
        w->script_resource = PK_NONE;
    uint32_t next = 0;
    for (unsigned c = 0; c < PK_CATEGORY_COUNT; c++)
        w->category_out[c] = w->category_used[c] ? next++ : PK_NONE;
    return true;
}

/* Thread of item `item` of a list being grouped. */
typedef uint32_t (*thread_of_fn)(const void *context, size_t item);

/* Groups n items by thread with a counting sort: start gets thread_count + 1 offsets. */
static bool group_by_thread(size_t n, size_t threads, thread_of_fn thread_of, const void *context,
                            uint32_t **items_out, size_t **start_out)
{
    size_t *start = calloc(threads + 2, sizeof *start);
    uint32_t *items = malloc((n ? n : 1) * sizeof *items);
    if (!start || !items) {
        free(start);
        free(items);
        return false;
    }
    for (size_t i = 0; i < n; i++)
        start[thread_of(context, i) + 2]++;
    for (size_t t = 0; t < threads; t++)
        start[t + 2] += start[t + 1];
    for (size_t i = 0; i < n; i++)
        items[start[thread_of(context, i) + 1]++] = (uint32_t)i;
    *items_out = items;
    *start_out = start;
    return true;
}

static uint32_t row_thread(const void *profile, size_t row)
{
    return pk_sample_thread(profile, row);
}


static bool group_rows(fx_writer *w, size_t threads)
{
    return group_by_thread(pk_sample_count(w->p), threads, row_thread, w->p, &w->thread_rows,
                           &w->thread_rows_start);
}

/* A process is the threads of one pid as written (threads without a pid are in process 0).
 * Its main thread is the one whose tid is the pid; when the process has no such thread, its
 * first thread in model order. One pass with a map from pid to the thread chosen so far (a
 * first thread is replaced only by the first one named by the pid), and one more to give every
 * thread its process's main thread. */
static bool find_processes(fx_writer *w, size_t threads)
{
    const pk_profile *p = w->p;
    w->thread_process = malloc((threads ? threads : 1) * sizeof *w->thread_process);
    if (!w->thread_process)
        return false;
    pk_u64map chosen;
    pk_u64map_init(&chosen);
    bool ok = pk_u64map_reserve(&chosen, threads);
    for (uint32_t i = 0; ok && i < threads; i++) {
        const pk_thread *t = pk_thread_at(p, i);
        bool named_by_pid = t->pid >= 0 && t->tid == t->pid;
        uint32_t *slot;
        bool inserted;
        ok = pk_u64map_put(&chosen, (uint64_t)fx_thread_pid(t), i, &slot, &inserted);
        if (ok && !inserted) {
            const pk_thread *current = pk_thread_at(p, *slot);
            if (named_by_pid && !(current->pid >= 0 && current->tid == current->pid))
                *slot = i;
        }
    }
    for (uint32_t i = 0; ok && i < threads; i++) {
        uint64_t pid = (uint64_t)fx_thread_pid(pk_thread_at(p, i));
        w->thread_process[i] = *pk_u64map_find(&chosen, pid);
    }
    pk_u64map_free(&chosen);
    return ok;
}

/* The option max-samples: from 1 to FX_MAX_SAMPLES, the default. */
static pk_status choose_max_samples(fx_writer *w, const pk_write_options *options, pk_error *err)
{
    w->max_samples = FX_MAX_SAMPLES;
    const char *text = options ? pk_option_get(&options->extra, "max-samples") : NULL;
    if (!text)
        return PK_OK;
    unsigned long n;
    char tail;
    if (sscanf(text, "%lu%c", &n, &tail) != 1 || text[0] < '0' || text[0] > '9' || n < 1 ||
        n > FX_MAX_SAMPLES)
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET,
                            "--max-samples takes a number of samples from 1 to %d",
                            FX_MAX_SAMPLES);
    w->max_samples = (double)n;
    return PK_OK;
}

pk_status fx_writer_init(fx_writer *w, const pk_profile *p, pk_output *out,
                         const pk_write_options *options, pk_error *err)
{
    memset(w, 0, sizeof *w);
    w->p = p;
    pk_json_init(&w->json, out);
    pk_status status = choose_max_samples(w, options, err);
    if (status != PK_OK)
        return status;
    status = choose_value(w, options, err);
    if (status != PK_OK)
        return status;
    size_t threads = pk_thread_count(p), rows = pk_sample_count(p);
    size_t frames = pk_frame_count(p), functions = pk_function_count(p);
    const char *source = options ? pk_option_get(&options->extra, "source") : NULL;
    w->script_resource = source ? (uint32_t)pk_resource_count(p) : PK_NONE;
    w->script_string = (uint32_t)pk_string_count(p);
    w->script_name = source ? fx_script_library_name(source) : NULL;
    w->thread_names = pk_thread_names_new(p);
    bool ok = w->thread_names && fx_timed_prepare(w) && fx_timeline_place(w) && classify(w) &&
              find_processes(w, threads) && group_rows(w, threads) &&
              fx_remap_init(&w->stacks, pk_stack_count(p)) && fx_remap_init(&w->frames, frames) &&
              fx_remap_init(&w->funcs, functions) &&
              fx_remap_init(&w->resources, pk_resource_count(p) + 1) &&
              fx_remap_init(&w->symbols, functions) &&
              fx_remap_init(&w->strings, pk_string_count(p) + 1);
    w->frame_inline_depth = malloc((frames ? frames : 1) * sizeof *w->frame_inline_depth);
    w->func_resource = malloc((functions ? functions : 1) * sizeof *w->func_resource);
    w->symbol_address = malloc((functions ? functions : 1) * sizeof *w->symbol_address);
    w->symbol_lib = malloc((functions ? functions : 1) * sizeof *w->symbol_lib);
    w->row_order = malloc((rows ? rows : 1) * sizeof *w->row_order);
    if (!ok || !w->frame_inline_depth || !w->func_resource || !w->symbol_address ||
        !w->symbol_lib || !w->row_order)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    w->memory_from_values = pk_memory_event_count(p) == 0 &&
                            pk_memory_values_find(p, &w->memory_values);
    return fx_allocations_collect(w, err);
}

void fx_writer_free(fx_writer *w)
{
    free(w->frame_category);
    free(w->resource_lib);
    pk_thread_names_free(w->thread_names);
    free(w->thread_rows);
    free(w->thread_rows_start);
    free(w->thread_has_events);
    free(w->process_allocations);
    free(w->ordered_rows);
    free(w->row_start_ns);
    free(w->thread_timed);
    pk_spool_free(w->timed_samples);
    pk_spool_free(w->allocations);
    free(w->thread_process);
    fx_remap_free(&w->stacks);
    fx_remap_free(&w->frames);
    fx_remap_free(&w->funcs);
    fx_remap_free(&w->resources);
    fx_remap_free(&w->symbols);
    fx_remap_free(&w->strings);
    free(w->frame_inline_depth);
    free(w->func_resource);
    free(w->symbol_address);
    free(w->symbol_lib);
    free(w->row_order);
}
