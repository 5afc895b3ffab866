/* SPDX-License-Identifier: MIT */
/* What a profile is called in outputs that show a title (the Firefox Profiler's product and
 * process names, speedscope's name, the SVG subtitle, callgrind's cmd): what the input said it
 * profiled (the product in the metadata) when it said so, else the name of the file it was
 * read from, which the reader records in the property PK_SOURCE_FILE_PROPERTY. Merging and
 * comparing join the inputs' names. */
#ifndef PK_CORE_TITLE_H
#define PK_CORE_TITLE_H

#include "profkit/profile.h"

/* The base name of the file a profile was read from (not set for standard input or memory). */
#define PK_SOURCE_FILE_PROPERTY "source-file"

/* The product, else the source file's name; NULL when the profile has neither. */
const char *pk_profile_title(const pk_profile *p);

/* Adds the source file of other to dst's, "a.txt + b.txt" (merge) or "a.txt vs b.txt" (diff)
 * with joiner " + " or " vs "; a name already there is not added again, and past
 * PK_TITLE_JOINED_MAX bytes the list ends in " + ...". PK_ERR_NOMEM when memory runs out. */
pk_status pk_title_join(pk_profile *dst, const pk_profile *other, const char *joiner);

#define PK_TITLE_JOINED_MAX 200

#endif
