/* SPDX-License-Identifier: MIT */
/* Naming native code addresses from the binaries they came from, as a pass over a profile:
 * ELF symbol tables and DWARF debug information, read with elfutils.
 *
 * Readers of native profiles (gperftools, pprof, ...) leave an address they cannot name as a
 * frame with PK_FRAME_HAS_ADDRESS whose function is named by the address ("0x4011d6") and
 * whose resource is the mapping it falls into (path, build ID, start, limit, file offset).
 * pk_symbolize copies such a profile, replacing each unresolved frame by the function that
 * contains the address and every function inlined into it there (innermost last, flagged
 * PK_FRAME_INLINED), with files and lines.
 *
 * Binaries are looked for under each search directory first (by base name, by full path and
 * by build ID), then at the resource's path, then by build ID in the debug directories
 * (DIR/.build-id/xx/rest.debug); a candidate with another build ID, or without a loadable
 * segment where the mapping's file offset says, is passed over. Separate debug files are found
 * the way elfutils finds them. Each binary is opened once and each distinct address looked up
 * once. A binary that is missing or does not match its mapping leaves its addresses as they
 * were and yields one warning in the profile.
 */
#ifndef PROFKIT_SYMBOLIZE_H
#define PROFKIT_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profkit/error.h"
#include "profkit/export.h"
#include "profkit/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The profile property that says how to name an address nothing names. Unset, the frame keeps
 * its name (the address); "perf" (the perf.data reader sets it), it is named as `perf script`
 * names it, so that a perf.data file and its `perf script` text convert alike: `[DSO base
 * name]` (`[libfoo.so]`, `[perf-1234.map]`), `[unknown]` outside every mapping. */
#define PK_UNNAMED_ADDRESSES "unnamed addresses"

typedef struct pk_symbolize_options {
    const char *const *search_dirs; /* looked in before the resources' own paths */
    size_t search_dir_count;
    const char *const *debug_dirs;  /* by build ID; NULL = "/usr/lib/debug" */
    size_t debug_dir_count;
} pk_symbolize_options;

/* True for a frame pk_symbolize would name: it has an address, is not inlined, and its
 * function is named "" or by an address ("0x" followed by hex digits only). */
PK_API bool pk_frame_is_unresolved(const pk_profile *p, uint32_t frame);
/* True when some frame of p is unresolved: whether the pass has anything to do. */
PK_API bool pk_profile_has_unresolved_frames(const pk_profile *p);

/* A new profile (*out), which belongs to the caller: a copy of p (pk_profile_copy) with every
 * unresolved frame named. p is only read and may be freed afterwards. options may be NULL; its
 * directories are only read during the call. */
PK_API pk_status pk_symbolize(const pk_profile *p, const pk_symbolize_options *options,
                              pk_profile **out, pk_error *err);
/* pk_symbolize followed by pk_profile_free(p), whatever the outcome, with p's memory given
 * back as the pass copies it: the peak is about one profile and the symbolizer's tables rather
 * than two profiles (for a profile of many distinct stacks, its largest part). */
PK_API pk_status pk_symbolize_consume(pk_profile *p, const pk_symbolize_options *options,
                                      pk_profile **out, pk_error *err);

#ifdef __cplusplus
}
#endif

#endif
