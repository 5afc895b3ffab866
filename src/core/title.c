/* SPDX-License-Identifier: MIT */
#include "core/title.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/profile_internal.h"

const char *pk_profile_title(const pk_profile *p)
{
    const pk_metadata *md = pk_metadata_get(p);
    if (md->product && pk_str_len(p, md->product))
        return pk_str(p, md->product);
    const char *file = pk_property_get(p, PK_SOURCE_FILE_PROPERTY);
    return file && file[0] ? file : NULL;
}

pk_status pk_title_join(pk_profile *dst, const pk_profile *other, const char *joiner)
{
    const char *mine = pk_property_get(dst, PK_SOURCE_FILE_PROPERTY);
    const char *theirs = pk_property_get(other, PK_SOURCE_FILE_PROPERTY);
    if (!theirs || !theirs[0])
        return PK_OK;
    if (!mine || !mine[0])
        return pk_property_set(dst, PK_SOURCE_FILE_PROPERTY, theirs);
    static const char more[] = " + ...";
    size_t mine_len = strlen(mine), more_len = sizeof more - 1;
    if (strcmp(mine, theirs) == 0 ||
        (mine_len >= more_len && strcmp(mine + mine_len - more_len, more) == 0))
        return PK_OK;
    bool full = mine_len + strlen(joiner) + strlen(theirs) > PK_TITLE_JOINED_MAX;
    size_t size = mine_len + (full ? more_len : strlen(joiner) + strlen(theirs)) + 1;
    char *joined = malloc(size);
    if (!joined)
        return PK_ERR_NOMEM;
    snprintf(joined, size, "%s%s%s", mine, full ? more : joiner, full ? "" : theirs);
    pk_status status = pk_property_set(dst, PK_SOURCE_FILE_PROPERTY, joined);
    free(joined);
    return status;
}
