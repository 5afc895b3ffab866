/* Categories of code: the kind of code a frame runs (native code, BrightScript, Business Rules,
 * JavaScript, ...), decided once for every visual output so that a frame gets the same
 * category, name and colour in each of them.
 *
 * A frame with an address is native code. Any other frame takes the language of the format the
 * profile was read from when that format implies one (.bsprof: BrightScript, BR: Business
 * Rules), else the language of its function's source file extension, else "Other".
 */
#ifndef PK_ANALYSIS_CATEGORIES_H
#define PK_ANALYSIS_CATEGORIES_H

#include <stdint.h>

#include "profkit/profile.h"

/* In the order visual outputs list them. "Other" comes first: the Firefox Profiler takes its
 * first grey category as the default one. */
typedef enum pk_category {
    PK_CATEGORY_OTHER = 0,
    PK_CATEGORY_NATIVE,
    PK_CATEGORY_BRIGHTSCRIPT,
    PK_CATEGORY_BUSINESS_RULES,
    PK_CATEGORY_JAVASCRIPT,
    PK_CATEGORY_PYTHON,
    PK_CATEGORY_JAVA,
    PK_CATEGORY_GO,
    PK_CATEGORY_COUNT
} pk_category;

/* Name shown to people ("BrightScript"). */
const char *pk_category_name(pk_category category);
/* A colour name that both the Firefox Profiler and CSS know ("purple"); "Other" is "grey". */
const char *pk_category_colour(pk_category category);

/* The language that code read from format `format` (a registry name) is in, PK_CATEGORY_OTHER
 * when the format does not imply one. */
pk_category pk_category_of_format(const char *format);
/* The language of a source file by its extension, matched without regard to case
 * ("lib/Main.BRS"), PK_CATEGORY_OTHER when unknown. */
pk_category pk_category_of_file(const char *path);

/* The language that the format p was read from implies: pass it to pk_frame_category. */
pk_category pk_profile_category(const pk_profile *p);
/* Category of frame `frame` of p; format_category is pk_profile_category(p), looked up once
 * by the caller for all frames. */
pk_category pk_frame_category(const pk_profile *p, uint32_t frame, pk_category format_category);

#endif
