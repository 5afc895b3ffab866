/* SPDX-License-Identifier: MIT */
/* A channel's source, a directory or a package zip (profkit/source_names.h): its files read by
 * their pkg:/ paths. */
#ifndef PK_ANALYSIS_SOURCE_TREE_H
#define PK_ANALYSIS_SOURCE_TREE_H

#include <stddef.h>

#include "profkit/source_names.h"

/* No BrightScript file or component comes near this; it bounds what one lookup may allocate
 * (a zip states sizes of its own, which are checked against it before reading). */
#define PK_SOURCE_FILE_MAX (16u << 20)

/* Reads the file a "pkg:/dir/file.brs" path names: *data (malloc'ed, NUL-terminated, *size
 * without the NUL) belongs to the caller. Looked up exactly, then without regard to case.
 * PK_ERR_INPUT with a message for a path that is not pkg:/, names no file of the source, or
 * names one too large; PK_ERR_IO when reading fails. */
pk_status pk_source_read(pk_source *source, const char *pkg_path, char **data, size_t *size,
                         pk_error *err);
/* How the source was given (its path), for messages. */
const char *pk_source_name(const pk_source *source);

#endif
