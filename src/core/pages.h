/* SPDX-License-Identifier: MIT */
/* Giving the memory of a large array back to the system while the array is still allocated:
 * a pass that reads an array once, front to back, and frees it at the end can release the part
 * it has passed, so that what it builds meanwhile does not add to the peak. */
#ifndef PK_CORE_PAGES_H
#define PK_CORE_PAGES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

/* Releases the whole pages inside [start, start + bytes): they read as zeros afterwards, so
 * only for memory that is not read again before it is freed. The allocation stays valid and
 * is freed as usual. Releasing is an optimization: when it fails nothing changes. Returns where
 * the next release of the same array can start: the end of the last page released, or start. */
static inline char *pk_release_pages(void *start, size_t bytes)
{
    long size = sysconf(_SC_PAGESIZE);
    uintptr_t page = size > 0 ? (uintptr_t)size : 4096;
    uintptr_t from = ((uintptr_t)start + page - 1) & ~(page - 1);
    uintptr_t to = ((uintptr_t)start + bytes) & ~(page - 1);
    if (to <= from)
        return start;
    (void)madvise((void *)from, to - from, MADV_DONTNEED);
    return (char *)to;
}

/* Least that pk_release_passed releases at a time: a system call per megabyte passed. */
#define PK_RELEASE_STEP ((size_t)1 << 20)

/* For a pass that reads an array front to back: releases the pages before passed once a step's
 * worth of them is there. *next is where the last release ended (the array's start at first). */
static inline void pk_release_passed(char **next, const void *passed)
{
    if ((const char *)passed > *next && (size_t)((const char *)passed - *next) >= PK_RELEASE_STEP)
        *next = pk_release_pages(*next, (size_t)((const char *)passed - *next));
}

#endif
