/* SPDX-License-Identifier: MIT */
/* Writing a profile as a Sampler file: the grammar exactly.
 *
 * Thread ids are the profile's thread ids when they are distinct and fit 16 bits, else 1, 2, ...;
 * each gets a "Thread_XXXX" entry (four upper-case hex digits, as in its block header). Symbol
 * ids are 0x00010000 plus the function's index, unknown 0, both paths the function's resource
 * path (or name); TAB and LF in text become spaces. Rows are root first and start with the
 * thread's own id, so the reader's order detection reads them back exactly. The constants 1 0 1
 * are written as they are, and a row of weight w is written w times, for the value chosen (a
 * count value by default); more than 50 million rows is refused.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/hashmap.h"
#include "core/output.h"
#include "core/units.h"
#include "formats/sampler/sampler.h"

#define SM_MAX_WRITTEN_ROWS 50000000u
#define SM_FIRST_SYMBOL_ID 0x00010000u

static void sm_put_be32(pk_output *out, uint32_t v)
{
    char d[4] = {(char)(v >> 24), (char)(v >> 16), (char)(v >> 8), (char)v};
    pk_out_write(out, d, 4);
}

/* Text without the TAB and LF that delimit it. */
static void sm_put_text(pk_output *out, const char *s)
{
    for (const char *c = s; *c; c++)
        pk_out_putc(out, *c == '\t' || *c == '\n' ? ' ' : *c);
}

static void sm_put_symbol(pk_output *out, uint32_t id, const char *name, const char *path)
{
    pk_out_putc(out, '\t');
    sm_put_be32(out, id);
    pk_out_putc(out, '\t');
    sm_put_be32(out, 0);
    pk_out_putc(out, '\t');
    sm_put_text(out, name);
    pk_out_putc(out, '\t');
    sm_put_text(out, path);
    pk_out_putc(out, '\t');
    sm_put_text(out, path);
    pk_out_putc(out, '\n');
}

/* The value asked for when it is a count, else the first count value, else the one asked for. */
static uint32_t sm_choose_value(const pk_profile *p, const pk_write_options *options)
{
    size_t n = pk_value_type_count(p);
    uint32_t chosen = options && options->value != PK_NONE ? options->value : pk_default_value(p);
    if (chosen < n && pk_value_counts_samples(p, chosen))
        return chosen;
    for (uint32_t v = 0; v < n; v++)
        if (pk_value_counts_samples(p, v))
            return v;
    return chosen;
}

pk_status pk_sampler_write(const pk_profile *p, pk_output *out, const pk_write_options *options,
                           pk_error *err)
{
    size_t thread_count = pk_thread_count(p);
    size_t function_count = pk_function_count(p);
    size_t rows = pk_value_type_count(p) ? pk_sample_count(p) : 0;
    uint32_t value = rows ? sm_choose_value(p, options) : PK_NONE;
    if (rows && value >= pk_value_type_count(p))
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET, "no value type %" PRIu32, value);
    if (thread_count > 0x10000)
        return pk_error_set(err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                            "a Sampler file holds at most 65536 threads, not %zu", thread_count);
    if (function_count > UINT32_MAX - SM_FIRST_SYMBOL_ID)
        return pk_error_set(err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET, "too many functions");
    uint64_t total = 0;
    for (size_t row = 0; row < rows; row++) {
        int64_t w = pk_sample_values(p, row)[value];
        if (w < 0)
            return pk_error_set(err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                                "a Sampler file cannot hold negative sample counts");
        total += (uint64_t)w;
        if (total > SM_MAX_WRITTEN_ROWS)
            return pk_error_set(err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                                "the value '%s' would need more than %u sample rows; choose a "
                                "count value",
                                pk_str(p, pk_value_type_at(p, value)->name), SM_MAX_WRITTEN_ROWS);
    }

    /* Thread ids: the profile's when distinct and 16-bit, else 1, 2, ... */
    uint32_t *ids = malloc((thread_count + 1) * sizeof *ids);
    size_t *order = malloc((rows + 1) * sizeof *order);
    size_t *starts = calloc(thread_count + 2, sizeof *starts);
    uint32_t *frames = NULL;
    pk_u64map seen;
    pk_u64map_init(&seen);
    pk_status st = PK_OK;
    if (!ids || !order || !starts) {
        st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
        goto done;
    }
    bool own_ids = true;
    for (size_t t = 0; t < thread_count && own_ids; t++) {
        int64_t tid = pk_thread_at(p, (uint32_t)t)->tid;
        uint32_t *slot;
        bool inserted;
        if (tid < 0 || tid > 0xffff) {
            own_ids = false;
        } else if (!pk_u64map_put(&seen, (uint64_t)tid, 0, &slot, &inserted)) {
            st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
            goto done;
        } else if (!inserted) {
            own_ids = false;
        }
        ids[t] = (uint32_t)tid;
    }
    if (!own_ids)
        for (size_t t = 0; t < thread_count; t++)
            ids[t] = (uint32_t)(t + 1 > 0xffff ? 0 : t + 1);

    /* Rows grouped by thread, in their order within each thread. */
    for (size_t row = 0; row < rows; row++)
        starts[pk_sample_thread(p, row) + 1]++;
    for (size_t t = 0; t < thread_count; t++)
        starts[t + 1] += starts[t];
    for (size_t row = 0; row < rows; row++)
        order[starts[pk_sample_thread(p, row)]++] = row;
    for (size_t t = thread_count; t > 0; t--)
        starts[t] = starts[t - 1];
    starts[0] = 0;

    pk_out_puts(out, SM_MAGIC);
    pk_out_puts(out, SM_SYMBOL_TABLE);
    char thread_name[16];
    for (size_t t = 0; t < thread_count; t++) {
        snprintf(thread_name, sizeof thread_name, "Thread_%04" PRIX32, ids[t]);
        sm_put_symbol(out, ids[t], thread_name, thread_name);
    }
    for (size_t f = 0; f < function_count; f++) {
        const pk_function *fn = pk_function_at(p, (uint32_t)f);
        const char *path = "";
        if (fn->resource != PK_NONE && fn->resource < pk_resource_count(p)) {
            const pk_resource *res = pk_resource_at(p, fn->resource);
            path = pk_str(p, res->path && pk_str_len(p, res->path) ? res->path : res->name);
        }
        sm_put_symbol(out, SM_FIRST_SYMBOL_ID + (uint32_t)f, pk_str(p, fn->name), path);
    }
    pk_out_puts(out, SM_END "\n");

    size_t capacity = 0;
    for (size_t t = 0; t < thread_count && !pk_out_failed(out); t++) {
        pk_out_printf(out, SM_THREAD "%04" PRIX32 "\n", ids[t]);
        for (size_t k = starts[t]; k < starts[t + 1]; k++) {
            size_t row = order[k];
            int64_t weight = pk_sample_values(p, row)[value];
            if (weight <= 0)
                continue;
            uint32_t stack = pk_sample_stack(p, row);
            size_t depth = stack == PK_NONE ? 0 : pk_stack_depth(p, stack);
            if (!PK_ARRAY_RESERVE(frames, capacity, depth)) {
                st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
                goto done;
            }
            if (depth)
                pk_stack_frames(p, stack, frames, capacity);
            for (int64_t w = 0; w < weight; w++) {
                pk_out_putc(out, '\t');
                sm_put_be32(out, 1);
                sm_put_be32(out, 0);
                sm_put_be32(out, 1);
                sm_put_be32(out, (uint32_t)depth + 1);
                sm_put_be32(out, ids[t]);
                for (size_t i = 0; i < depth; i++)
                    sm_put_be32(out, SM_FIRST_SYMBOL_ID + pk_frame_at(p, frames[i])->function);
                pk_out_putc(out, '\n');
            }
        }
    }
    pk_out_puts(out, SM_END "\n");
done:
    pk_u64map_free(&seen);
    free(ids);
    free(order);
    free(starts);
    free(frames);
    return st;
}
