/* SPDX-License-Identifier: MIT */
/* What a profile holds, in brief: what `profkit info` shows. The totals of every value, per
 * thread and overall, and how many items of each kind the model holds; rendered as text or as
 * one JSON object together with the profile's metadata, properties and warnings.
 *
 * Ownership: a summary belongs to the caller (pk_summary_free) and refers to nothing else; the
 * writers read the profile it was built from, which must be passed again.
 */
#ifndef PROFKIT_SUMMARY_H
#define PROFKIT_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "profkit/error.h"
#include "profkit/export.h"
#include "profkit/output.h"
#include "profkit/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pk_summary {
    size_t value_count;
    int64_t totals[PK_MAX_VALUES];  /* every sample row's value v */
    size_t thread_count;
    int64_t *thread_totals;         /* thread t's total of value v at [t * value_count + v] */
    size_t strings, resources, functions, frames, stacks, sample_rows, memory_events;
} pk_summary;

/* Sums p's values per thread and overall into a new summary (*out). */
PK_API pk_status pk_summary_build(const pk_profile *p, pk_summary **out, pk_error *err);
/* NULL is allowed. */
PK_API void pk_summary_free(pk_summary *s);

/* file names the input in the output ("standard input", a path). Both writers fail with
 * PK_ERR_USAGE when p is visibly not the profile s was built from. */
PK_API pk_status pk_summary_write_text(const pk_summary *s, const pk_profile *p,
                                       const char *file, pk_output *out, pk_error *err);
/* One JSON object with the keys file, format, metadata, threads, counts, values, warnings and
 * warnings_dropped, then a line feed. Each thread has its name as the profile holds it (name)
 * and as every output shows it (display_name, profkit/thread_names.h), and its times
 * (profkit/timeline.h): kind "measured" with samples, first_ns and last_ns (on the input's
 * clock), or "placed". The text lists threads by their display names; it says what the sample
 * times are in the metadata ("sample times") and, when some thread's are measured, under each
 * thread. */
PK_API pk_status pk_summary_write_json(const pk_summary *s, const pk_profile *p,
                                       const char *file, pk_output *out, pk_error *err);

#ifdef __cplusplus
}
#endif

#endif
