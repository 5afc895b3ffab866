/* SPDX-License-Identifier: MIT */
#include "core/path.h"

#include <string.h>

size_t pk_path_basename_offset(const char *path, size_t len)
{
    size_t start = len;
    while (start > 0 && path[start - 1] != '/' && path[start - 1] != '\\')
        start--;
    return start == len ? 0 : start;
}

const char *pk_path_basename(const char *path)
{
    return path + pk_path_basename_offset(path, strlen(path));
}
