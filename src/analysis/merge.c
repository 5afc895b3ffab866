/* SPDX-License-Identifier: MIT */
/* Summing several profiles into one: the union of their value types, threads by name, and a
 * copy of each input (core/profile_copy.c). */
#include <stdlib.h>
#include <string.h>

#include "core/hashmap.h"
#include "core/title.h"
#include "profkit/merge.h"
#include "profkit/timeline.h"

/* One thread per distinct thread name of the inputs, in order of appearance, so that every
 * copy matches its threads to these by name. */
static pk_status add_threads_by_name(pk_profile *dst, const pk_profile *const *inputs,
                                     size_t count, pk_error *err)
{
    pk_u64map names;
    pk_u64map_init(&names);
    pk_status status = PK_OK;
    for (size_t i = 0; i < count && status == PK_OK; i++) {
        for (size_t t = 0; t < pk_thread_count(inputs[i]); t++) {
            const pk_thread *thread = pk_thread_at(inputs[i], (uint32_t)t);
            uint32_t name = pk_intern_cstr(dst, pk_str(inputs[i], thread->name));
            bool inserted = false;
            if (name == PK_NONE || !pk_u64map_put(&names, name, 0, NULL, &inserted) ||
                (inserted && pk_add_thread(dst, name, thread->pid, thread->tid) == PK_NONE)) {
                status = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
                break;
            }
        }
    }
    pk_u64map_free(&names);
    return status;
}

static void merge_metadata(pk_profile *dst, const pk_profile *src, bool first)
{
    pk_metadata *md = pk_metadata_of(dst);
    const pk_metadata *sm = pk_metadata_get(src);
    if (first) {
        md->source_format = pk_intern_cstr(dst, pk_str(src, sm->source_format));
        md->product = pk_intern_cstr(dst, pk_str(src, sm->product));
        md->period = sm->period;
        md->period_type = pk_intern_cstr(dst, pk_str(src, sm->period_type));
        md->period_unit = pk_intern_cstr(dst, pk_str(src, sm->period_unit));
        md->start_time = sm->start_time;
        md->end_time = sm->end_time;
        md->times_approximate = sm->times_approximate;
        for (size_t i = 0; i < pk_property_count(src); i++)
            pk_property_set(dst, pk_property_key(src, i), pk_property_value(src, i));
        return;
    }
    if (sm->start_time != PK_TIME_UNKNOWN &&
        (md->start_time == PK_TIME_UNKNOWN || sm->start_time < md->start_time))
        md->start_time = sm->start_time;
    if (sm->end_time != PK_TIME_UNKNOWN &&
        (md->end_time == PK_TIME_UNKNOWN || sm->end_time > md->end_time))
        md->end_time = sm->end_time;
    if (strcmp(pk_str(dst, md->product), pk_str(src, sm->product)) != 0)
        md->product = 0;
    /* Without one product, the title names every input file (core/title.h). */
    (void)pk_title_join(dst, src, " + ");
    if (md->period != sm->period)
        md->period = 0;
    md->times_approximate = md->times_approximate || sm->times_approximate;
}

pk_status pk_profile_merge(const pk_profile *const *inputs, size_t count, pk_profile **out,
                           pk_error *err)
{
    *out = NULL;
    if (count == 0)
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET, "nothing to merge");
    /* The union of value types, by name. */
    const char *names[PK_MAX_VALUES], *units[PK_MAX_VALUES];
    size_t value_count = 0;
    for (size_t i = 0; i < count; i++) {
        size_t shared = 0, n = pk_value_type_count(inputs[i]);
        for (size_t v = 0; v < n; v++) {
            const pk_value_type *vt = pk_value_type_at(inputs[i], (uint32_t)v);
            const char *name = pk_str(inputs[i], vt->name), *unit = pk_str(inputs[i], vt->unit);
            size_t k = 0;
            while (k < value_count && strcmp(names[k], name) != 0)
                k++;
            if (k < value_count) {
                if (strcmp(units[k], unit) != 0)
                    return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET,
                                        "value '%s' is in %s in one input and in %s in another",
                                        name, units[k], unit);
                shared++;
                continue;
            }
            if (value_count == PK_MAX_VALUES)
                return pk_error_set(err, PK_ERR_LIMIT, PK_NO_OFFSET,
                                    "the inputs have more than %d value types together",
                                    PK_MAX_VALUES);
            names[value_count] = name;
            units[value_count] = unit;
            value_count++;
        }
        if (i > 0 && shared == 0)
            return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET,
                                "input %zu has no value type in common with the first", i + 1);
    }
    pk_profile *dst = pk_profile_new();
    if (!dst)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    for (size_t k = 0; k < value_count; k++) {
        if (pk_add_value_type(dst, names[k], units[k]) == PK_NONE) {
            pk_profile_free(dst);
            return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
        }
    }
    if (value_count > 0) {
        const pk_value_type *dv = pk_value_type_at(inputs[0], pk_default_value(inputs[0]));
        if (dv)
            pk_set_default_value(dst, pk_value_find(dst, pk_str(inputs[0], dv->name)));
    }
    /* The merged timelines are kept when every input's were. */
    bool timelines_kept = true;
    for (size_t i = 0; i < count; i++)
        timelines_kept = timelines_kept && pk_timeline_kept(inputs[i]);
    pk_timeline_keep(dst, timelines_kept);
    pk_status st = add_threads_by_name(dst, inputs, count, err);
    for (size_t i = 0; i < count && st == PK_OK; i++) {
        uint32_t map[PK_MAX_VALUES];
        size_t n = pk_value_type_count(inputs[i]);
        for (size_t v = 0; v < n; v++)
            map[v] = pk_value_find(dst, pk_str(inputs[i], pk_value_type_at(inputs[i], (uint32_t)v)->name));
        merge_metadata(dst, inputs[i], i == 0);
        /* The merged metadata stands even where a copy into a still empty profile (inputs
         * without threads) would take the input's. */
        pk_metadata merged = *pk_metadata_get(dst);
        pk_copy_options copy = {.value_map = map, .address_tag = (uint64_t)i << 56};
        st = pk_profile_copy(dst, inputs[i], &copy, err);
        *pk_metadata_of(dst) = merged;
    }
    uint32_t over;
    if (st == PK_OK && pk_values_overflow(dst, &over))
        st = pk_error_set(err, PK_ERR_LIMIT, PK_NO_OFFSET,
                          "the merged %s values add up beyond the 64-bit range (about 9.2e18), "
                          "so totals and shares cannot be represented",
                          pk_str(dst, pk_value_type_at(dst, over)->name));
    if (st != PK_OK) {
        pk_profile_free(dst);
        return st;
    }
    *out = dst;
    return PK_OK;
}
