/* SPDX-License-Identifier: MIT */
/* Reading a differential profile: its marks and its two call trees. */
#include "analysis/differential.h"

#include <stdlib.h>
#include <string.h>

#include "profkit/diff.h"

bool pk_is_differential(const pk_profile *p)
{
    return pk_metadata_get(p)->differential && pk_value_type_count(p) > PK_DIFF_NEW;
}

const char *pk_differential_value_name(const pk_profile *p)
{
    const char *name = pk_property_get(p, PK_DIFF_VALUE_PROPERTY);
    return name ? name : "";
}

double pk_differential_base_scale(const pk_profile *p, bool *scaled)
{
    const char *text = pk_property_get(p, PK_DIFF_SCALE_PROPERTY);
    char *end = NULL;
    double scale = text ? strtod(text, &end) : 1.0;
    *scaled = text && end != text && *end == '\0';
    return *scaled ? scale : 1.0;
}

pk_status pk_differential_trees(const pk_profile *p, unsigned flags, pk_calltree *base,
                                pk_calltree *newer, pk_error *err)
{
    memset(base, 0, sizeof *base);
    flags |= PK_CALLTREE_KEEP_ZERO;
    pk_status st = pk_calltree_build(newer, p, PK_DIFF_NEW, flags, NULL, NULL, err);
    if (st != PK_OK)
        return st;
    st = pk_calltree_build(base, p, PK_DIFF_BASE, flags, NULL, NULL, err);
    if (st != PK_OK) {
        pk_calltree_free(newer);
        return st;
    }
    bool same = base->count == newer->count;
    for (uint32_t i = 0; same && i < newer->count; i++)
        same = base->nodes[i].name == newer->nodes[i].name &&
               base->nodes[i].parent == newer->nodes[i].parent;
    if (!same) {
        pk_calltree_free(base);
        pk_calltree_free(newer);
        return pk_error_set(err, PK_ERR_LIMIT, PK_NO_OFFSET,
                            "the call trees of the two values do not line up");
    }
    return PK_OK;
}
