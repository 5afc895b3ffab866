/* SPDX-License-Identifier: MIT */
/* File names as shown to people: the last component of a path. Both '/' and '\\' separate
 * components, as profiles come from Windows (BR programs) as well as Unix systems. */
#ifndef PK_CORE_PATH_H
#define PK_CORE_PATH_H

#include <stddef.h>

/* The part of path after its last separator ("lib/libc.so.6" -> "libc.so.6"); the whole path
 * when it has no separator or ends in one (there is no better short name then). */
const char *pk_path_basename(const char *path);
/* The same for a path of len bytes that need not be NUL-terminated: the offset of the base
 * name within it. */
size_t pk_path_basename_offset(const char *path, size_t len);

#endif
