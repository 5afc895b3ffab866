/* SPDX-License-Identifier: MIT */
/* Naming anonymous BrightScript functions from the channel's source.
 *
 * Roku's profiler names a function defined without a name ("function(...)" assigned to a
 * variable or a member, or given as the value of an associative-array key) "$anon_" followed by
 * hex digits, and records the file ("pkg:/components/Home.brs") and the line it starts on,
 * which readers keep as the function's file and start line. With the channel's source tree or
 * its package zip at hand, that line says what the function is called:
 *
 *     onKeyEvent = function(key, press)        -> onKeyEvent
 *     m.onItemSelected = Sub()                 -> onItemSelected
 *     m.top.handlers.retry = function()        -> retry
 *     onFocus: function()                      -> onFocus    (in an associative array)
 *     "on-select": sub()                       -> on-select
 *
 * Keywords are matched without regard to case, with any spaces and tabs, and lines may end in
 * CR LF. A component's .xml file holds its script inline (in <script> elements, CDATA or not)
 * or names .brs files (which the profiler then names instead); the line of an inline script
 * counts lines of the .xml file. A line that does not define exactly one function in one of
 * these ways leaves the name as it was: nothing is guessed. The new name keeps the original
 * after it ("onItemSelected ($anon_1f3)") where the name alone would be shared with another
 * function of the profile.
 *
 * Ownership: a source belongs to the caller until pk_source_close; profiles made here belong
 * to the caller (pk_profile_free); the input profile is only read.
 */
#ifndef PROFKIT_SOURCE_NAMES_H
#define PROFKIT_SOURCE_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "profkit/error.h"
#include "profkit/export.h"
#include "profkit/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A channel's source: a directory (the channel's root, where its manifest is) or a package
 * zip (the manifest at its root or in its one top-level folder). */
typedef struct pk_source pk_source;

/* Opens path as a source. Fails for a path that is neither a directory nor a readable zip. */
PK_API pk_status pk_source_open(const char *path, pk_source **out, pk_error *err);
/* NULL is allowed. */
PK_API void pk_source_close(pk_source *source);

/* What a naming pass did. Anonymous functions are the functions of the profile whose name
 * starts with "$anon_". */
typedef struct pk_source_naming {
    size_t named;   /* anonymous functions named from the source */
    size_t unnamed; /* anonymous functions left as they were (each with a warning saying why) */
} pk_source_naming;

/* A new profile (*out): a copy of p (pk_profile_copy) with its anonymous functions named from
 * source where the source says what they are. The copy records the counts in the property
 * "anonymous-functions" ("3 named from SOURCE, 1 not named"), which `profkit info` shows, and
 * one warning per function left unnamed. counts may be NULL. */
PK_API pk_status pk_name_anonymous_functions(const pk_profile *p, pk_source *source,
                                             pk_profile **out, pk_source_naming *counts,
                                             pk_error *err);

#ifdef __cplusplus
}
#endif

#endif
