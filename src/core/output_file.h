/* SPDX-License-Identifier: MIT */
/* The file behind an output, which appears under its name only when complete.
 *
 * A regular file is written unnamed in its target directory (O_TMPFILE) and given its name at
 * commit: linked under a temporary name and renamed over the old file in one step, so that
 * readers see the old file or the whole new one, and a run that dies (SIGKILL included) leaves
 * nothing behind. Where the file system refuses unnamed files, a hidden temporary with a short
 * name is used instead, removed on failure and, once pk_output_remove_on_signals has been
 * called, when SIGINT, SIGTERM, SIGHUP or SIGXFSZ end the run.
 *
 * The target is what the path names: a symbolic link is followed to the file it points at;
 * character devices, FIFOs and sockets are written in place (/dev/stdout, /dev/null, pipes).
 * A file that is replaced keeps its mode and, where permitted, its owner; a file whose mode
 * forbids writing is not replaced. A replaced file is a new file: other hard links to the old
 * one keep the old content.
 */
#ifndef PK_CORE_OUTPUT_FILE_H
#define PK_CORE_OUTPUT_FILE_H

#include <stdbool.h>
#include <sys/types.h>

#include "profkit/error.h"

typedef struct pk_output_file {
    int fd;             /* where bytes go */
    char *path;         /* the final path, symbolic links followed; as given when in place */
    char *temp_path;    /* the named temporary, NULL when unnamed or written in place */
    int cleanup_slot;   /* registration of temp_path for removal on signals, -1 for none */
    bool in_place;      /* a device, FIFO or socket: written directly */
    bool replaces;      /* an existing regular file is replaced */
    mode_t mode;        /* the mode the file gets */
    uid_t owner;        /* the replaced file's owner and group */
    gid_t group;
} pk_output_file;

/* Opens the target of path for writing. protect_path (may be NULL) is never written over. */
pk_status pk_output_file_open(pk_output_file *f, const char *path, const char *protect_path,
                              pk_error *err);
/* Syncs the file and gives it its name. Releases f either way; on failure nothing appears at
 * the path and an old file stays as it was. */
pk_status pk_output_file_commit(pk_output_file *f, pk_error *err);
/* Abandons the file: nothing appears at the path. */
void pk_output_file_abort(pk_output_file *f);

#endif
