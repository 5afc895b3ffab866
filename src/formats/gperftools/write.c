/* SPDX-License-Identifier: MIT */
/* The gperftools writer: any profile whose frames have native addresses, as libprofiler would
 * have written it (header, one record per sample row, trailer, one maps line per resource). */
#include <endian.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/output.h"
#include "core/units.h"
#include "formats/gperftools/codec.h"
#include "formats/gperftools/gperftools.h"

static void put_slot(pk_output *out, gp_layout l, uint64_t v)
{
    if (l.word == 8) {
        uint64_t x = l.big ? htobe64(v) : htole64(v);
        pk_out_write(out, &x, 8);
    } else {
        uint32_t x = l.big ? htobe32((uint32_t)v) : htole32((uint32_t)v);
        pk_out_write(out, &x, 4);
    }
}

/* The slot layout asked for with --word-size and --big-endian. */
static pk_status chosen_layout(const pk_write_options *options, gp_layout *l, pk_error *err)
{
    *l = (gp_layout){8, false};
    const pk_option_list *extra = options ? &options->extra : NULL;
    const char *bits = extra ? pk_option_get(extra, "word-size") : NULL;
    if (bits) {
        if (strcmp(bits, "32") == 0 || strcmp(bits, "4") == 0)
            l->word = 4;
        else if (strcmp(bits, "64") != 0 && strcmp(bits, "8") != 0)
            return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET,
                                "--word-size must be 32 or 64, not '%s'", bits);
    }
    l->big = extra && pk_option_get(extra, "big-endian") != NULL;
    return PK_OK;
}

/* The sampling period in nanoseconds: the profile's when it is a time of at least a
 * microsecond, else gperftools' default of 100 Hz. */
static int64_t period_ns(const pk_profile *p)
{
    const pk_metadata *meta = pk_metadata_get(p);
    int64_t ns = 0;
    int64_t unit = pk_unit_ns(pk_str(p, meta->period_unit));
    if (meta->period > 0 && unit > 0 && meta->period <= INT64_MAX / unit)
        ns = meta->period * unit;
    if (ns < 1000)
        ns = ns > 0 ? 1000 : 10000000;
    return ns;
}

pk_status gp_write(const pk_profile *p, pk_output *out, const pk_write_options *options,
                   pk_error *err)
{
    gp_layout l;
    pk_status status = chosen_layout(options, &l, err);
    if (status != PK_OK)
        return status;

    /* A profile without frames is written as a profile without records, as libprofiler
     * writes a run that took no samples; frames that all lack addresses cannot be written. */
    bool any_address = false;
    for (size_t i = 0; i < pk_frame_count(p) && !any_address; i++)
        any_address = (pk_frame_at(p, (uint32_t)i)->flags & PK_FRAME_HAS_ADDRESS) != 0;
    if (!any_address && pk_frame_count(p) > 0)
        return pk_error_set(err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                            "a gperftools profile holds native code addresses, and this profile "
                            "has none (its frames carry names only)");

    size_t rows = pk_value_type_count(p) > 0 ? pk_sample_count(p) : 0;
    uint32_t value = options && options->value != PK_NONE ? options->value : PK_NONE;
    if (value == PK_NONE)
        value = pk_value_find(p, "samples");
    if (value == PK_NONE)
        value = pk_default_value(p);
    if (rows > 0 && value >= pk_value_type_count(p))
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET, "no value %u in the profile", value);
    int64_t period = period_ns(p);
    /* Time values become sample counts at the period; anything else is written as counts. */
    int64_t value_ns =
        rows > 0 ? pk_unit_ns(pk_str(p, pk_value_type_at(p, value)->unit)) : 0;
    uint64_t max_slot = l.word == 8 ? UINT64_MAX : UINT32_MAX;

    put_slot(out, l, 0);
    put_slot(out, l, 3);
    put_slot(out, l, 0);
    put_slot(out, l, (uint64_t)(period / 1000));
    put_slot(out, l, 0);

    /* What a reader sums, counts and CPU time (counts x the period written), must fit int64,
     * or the file written would not read back. */
    uint64_t total = 0, max_total = (uint64_t)INT64_MAX / (uint64_t)(period / 1000 * 1000);
    uint64_t *pcs = NULL;
    uint32_t *stack_frames = NULL;
    size_t pcs_cap = 0, stack_frames_cap = 0;
    for (size_t row = 0; row < rows && status == PK_OK; row++) {
        int64_t v = pk_sample_values(p, row)[value];
        if (v <= 0)
            continue;
        uint64_t count = (uint64_t)v;
        if (value_ns > 0) {
            long double samples = (long double)v * value_ns / period + 0.5L;
            count = samples < 1 ? 1 : samples >= 1.8e19L ? UINT64_MAX : (uint64_t)samples;
        }
        uint32_t stack = pk_sample_stack(p, row);
        size_t frames = pk_stack_depth(p, stack), depth = 0;
        if (!PK_ARRAY_RESERVE(stack_frames, stack_frames_cap, frames + 1) ||
            !PK_ARRAY_RESERVE(pcs, pcs_cap, frames + 1)) {
            status = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
            break;
        }
        pk_stack_frames(p, stack, stack_frames, frames);
        /* Leaf first. */
        for (size_t k = frames; k-- > 0;) {
            const pk_frame *f = pk_frame_at(p, stack_frames[k]);
            if (!(f->flags & PK_FRAME_HAS_ADDRESS) || (f->flags & PK_FRAME_INLINED))
                continue;
            /* Callers were stored one byte into their call; the file holds return addresses. */
            uint64_t pc = depth == 0 ? f->address : f->address + 1;
            if (pc > max_slot) {
                status = pk_error_set(err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                                      "address 0x%" PRIx64 " does not fit 32-bit slots", pc);
                break;
            }
            pcs[depth++] = pc;
        }
        if (status != PK_OK || depth == 0)
            continue;
        if (count > max_slot) {
            status = pk_error_set(err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                                  "a sample count of %" PRIu64 " does not fit 32-bit slots", count);
            break;
        }
        if (count > max_total - total) {
            status = pk_error_set(err, PK_ERR_LIMIT, PK_NO_OFFSET,
                                  "the sample counts add up to more than %" PRIu64 ", which at "
                                  "the period of %" PRId64 " us is more CPU time than a 64-bit "
                                  "total in nanoseconds holds", max_total, period / 1000);
            break;
        }
        total += count;
        put_slot(out, l, count);
        put_slot(out, l, depth);
        for (size_t i = 0; i < depth; i++)
            put_slot(out, l, pcs[i]);
        if (pk_out_failed(out))
            break;
    }
    free(pcs);
    free(stack_frames);
    if (status != PK_OK)
        return status;
    put_slot(out, l, 0);
    put_slot(out, l, 1);
    put_slot(out, l, 0);

    for (size_t i = 0; i < pk_resource_count(p); i++) {
        const pk_resource *r = pk_resource_at(p, (uint32_t)i);
        if (r->limit <= r->start || r->limit - 1 > max_slot)
            continue;
        const char *path = pk_str(p, r->path);
        if (!*path)
            path = pk_str(p, r->name);
        /* The mappings are one line each; a line break in a name would forge another. */
        if (strpbrk(path, "\n\r"))
            continue;
        pk_out_printf(out, "%08" PRIx64 "-%08" PRIx64 " r-xp %08" PRIx64 " 00:00 0 %s\n",
                      r->start, r->limit, r->offset, path);
    }
    return PK_OK;
}
