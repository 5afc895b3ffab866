/* SPDX-License-Identifier: MIT */
/* Categories of code: the kind of code a frame runs (native code, BrightScript, Business Rules,
 * JavaScript, ...), decided once for every visual output so that a frame gets the same
 * category, name and colour in each of them.
 *
 * A function named with the kernel or JIT annotation of folded stacks ("_[k]", "_[j]", as perf
 * and its flame graph tools write them) is kernel or JIT code. Otherwise a frame with an
 * address is native code. Any other frame takes the language of the format the profile was
 * read from when that format implies one (.bsprof: BrightScript, BR: Business Rules, JFR and
 * ART traces: Java), else the language of its function's source file extension, else, for a
 * function that the format marks as script (PK_FUNCTION_SCRIPT), the language of the format's
 * script code when it says (simpleperf: Java) and JavaScript when not (V8's functions of a page
 * or of no file), else "Other" (Apple Sampler's symbols, folded names without a file).
 */
#ifndef PK_ANALYSIS_CATEGORIES_H
#define PK_ANALYSIS_CATEGORIES_H

#include <stdbool.h>
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
    PK_CATEGORY_KERNEL,
    PK_CATEGORY_JIT,
    PK_CATEGORY_COUNT
} pk_category;

/* The fill colours of a category's frames in a flame graph: a range in the hue of the
 * category's colour, light enough for black labels. Each frame's colour is picked in
 * [low, high] by its name, so that neighbours differ and a name keeps its colour. */
typedef struct pk_category_fill {
    unsigned char low[3];  /* red, green, blue */
    unsigned char high[3];
} pk_category_fill;

/* Name shown to people ("BrightScript"). */
const char *pk_category_name(pk_category category);
/* A colour name that both the Firefox Profiler and CSS know ("purple"); "Other" is "grey". */
const char *pk_category_colour(pk_category category);
/* Flame graph fills of the category. */
const pk_category_fill *pk_category_fill_of(pk_category category);

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
/* Category of the code of function `function` of p, run at an address or not: what
 * pk_frame_category says of its frames, for views that merge frames by function (flame
 * graphs). */
pk_category pk_function_category(const pk_profile *p, uint32_t function, bool has_address,
                                 pk_category format_category);

#endif
