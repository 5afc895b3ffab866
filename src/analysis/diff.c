/* SPDX-License-Identifier: MIT */
/* Differential profiles: two profiles copied into one whose value 0 is the base's and value 1
 * the newer's (profkit/diff.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/differential.h"
#include "core/title.h"
#include "profkit/diff.h"
#include "profkit/merge.h"
#include "profkit/timeline.h"

static pk_status pick_value(const pk_profile *p, uint32_t requested, const char *which,
                            uint32_t *value, pk_error *err)
{
    uint32_t v = requested == PK_NONE ? pk_default_value(p) : requested;
    if (v >= pk_value_type_count(p))
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET, "the %s profile has no value %u",
                            which, (unsigned)v);
    *value = v;
    return PK_OK;
}

/* Scales every row's base value by scale, rounded to the nearest whole value per row. */
static void scale_base(pk_profile *p, double scale)
{
    for (size_t row = 0; row < pk_sample_count(p); row++) {
        int64_t base = pk_sample_values(p, row)[PK_DIFF_BASE];
        double scaled = (double)base * scale;
        int64_t rounded = scaled >= 9.2e18 ? INT64_MAX
                          : scaled <= -9.2e18 ? INT64_MIN
                                              : (int64_t)llround(scaled);
        pk_sample_row_add(p, row, PK_DIFF_BASE, rounded - base);
    }
}

pk_status pk_diff_profiles(const pk_profile *base, uint32_t base_value, const pk_profile *newer,
                           uint32_t new_value, bool normalize, pk_profile **out, pk_error *err)
{
    *out = NULL;
    pk_status st = pick_value(base, base_value, "base", &base_value, err);
    if (st == PK_OK)
        st = pick_value(newer, new_value, "new", &new_value, err);
    if (st != PK_OK)
        return st;
    const pk_value_type *bv = pk_value_type_at(base, base_value);
    const pk_value_type *nv = pk_value_type_at(newer, new_value);
    const char *unit = pk_str(newer, nv->unit);
    if (strcmp(pk_str(base, bv->unit), unit) != 0)
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET,
                            "cannot compare '%s' in %s with '%s' in %s", pk_str(base, bv->name),
                            pk_str(base, bv->unit), pk_str(newer, nv->name), unit);
    pk_profile *p = pk_profile_new();
    if (!p || pk_add_value_type(p, "base", unit) != PK_DIFF_BASE ||
        pk_add_value_type(p, "new", unit) != PK_DIFF_NEW) {
        pk_profile_free(p);
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    }
    pk_set_default_value(p, PK_DIFF_NEW);
    /* A comparison has no one time line: only what each thread's times were is kept. */
    pk_timeline_keep(p, false);
    uint32_t base_map[PK_MAX_VALUES], new_map[PK_MAX_VALUES];
    for (size_t i = 0; i < PK_MAX_VALUES; i++)
        base_map[i] = new_map[i] = PK_NONE;
    base_map[base_value] = PK_DIFF_BASE;
    new_map[new_value] = PK_DIFF_NEW;
    /* The newer profile's addresses are tagged: its blocks never free the base's. */
    pk_copy_options from_base = {.value_map = base_map};
    pk_copy_options from_newer = {.value_map = new_map, .address_tag = (uint64_t)1 << 56};
    st = pk_profile_copy(p, base, &from_base, err);
    if (st == PK_OK)
        st = pk_profile_copy(p, newer, &from_newer, err);
    if (st != PK_OK) {
        pk_profile_free(p);
        return st;
    }
    pk_metadata *m = pk_metadata_of(p);
    m->differential = true;
    m->source_format = 0; /* made here, not read */
    /* The title says what was compared: one product, else both files (core/title.h). */
    if (strcmp(pk_str(p, m->product), pk_str(newer, pk_metadata_get(newer)->product)) != 0)
        m->product = 0;
    st = pk_title_join(p, newer, " vs ");
    if (st == PK_OK)
        st = pk_property_set(p, PK_DIFF_VALUE_PROPERTY, pk_str(newer, nv->name));
    int64_t base_total = pk_value_total(p, PK_DIFF_BASE);
    int64_t new_total = pk_value_total(p, PK_DIFF_NEW);
    if (st == PK_OK && normalize) {
        double scale = base_total != 0 ? (double)new_total / (double)base_total : 1.0;
        char text[32];
        snprintf(text, sizeof text, "%.17g", scale);
        scale_base(p, scale);
        st = pk_property_set(p, PK_DIFF_SCALE_PROPERTY, text);
    }
    if (st != PK_OK) {
        pk_profile_free(p);
        return pk_error_set(err, st, PK_NO_OFFSET, "out of memory");
    }
    *out = p;
    return PK_OK;
}
