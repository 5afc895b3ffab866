/* SPDX-License-Identifier: MIT */
/* O_TMPFILE is a Linux extension, declared by <fcntl.h> only for _GNU_SOURCE: without it the
 * unnamed file is compiled out and every output goes through a named temporary. */
#define _GNU_SOURCE
#include "core/output_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/cleanup.h"

/* Symbolic links followed before giving up (the kernel's own limit). */
#define MAX_LINK_DEPTH 40

static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0)
        return false;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* The directory part of path ("." when it has none); malloc'ed. */
static char *directory_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

/* path with its symbolic links followed, down to a name that is not a link (it may not exist
 * yet: a dangling link names the file to create). malloc'ed; NULL with errno set. */
static char *follow_links(const char *path)
{
    char *current = strdup(path);
    for (int depth = 0; current && depth < MAX_LINK_DEPTH; depth++) {
        struct stat st;
        if (lstat(current, &st) != 0 || !S_ISLNK(st.st_mode))
            return current;
        char target[PATH_MAX];
        ssize_t n = readlink(current, target, sizeof target - 1);
        if (n < 0) {
            free(current);
            return NULL;
        }
        target[n] = '\0';
        char *next;
        if (target[0] == '/') {
            next = strdup(target);
        } else {
            char *dir = directory_of(current);
            size_t len = dir ? strlen(dir) + strlen(target) + 2 : 0;
            next = dir ? malloc(len) : NULL;
            if (next)
                snprintf(next, len, "%s/%s", dir, target);
            free(dir);
        }
        free(current);
        current = next;
    }
    if (current) {
        free(current);
        errno = ELOOP;
    }
    return NULL;
}

static mode_t new_file_mode(void)
{
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

/* /proc/self/fd/N, through which an unnamed file is linked into its directory. */
static void fd_path(int fd, char *buf, size_t size)
{
    snprintf(buf, size, "/proc/self/fd/%d", fd);
}

/* An unnamed file in dir, when the file system and /proc allow naming it later; -1 when not. */
static int open_unnamed(const char *dir, mode_t mode)
{
#ifdef O_TMPFILE
    int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
    if (fd < 0)
        return -1;
    char link[64];
    fd_path(fd, link, sizeof link);
    struct stat st;
    if (stat(link, &st) != 0) {
        close(fd);
        return -1;
    }
    return fd;
#else
    (void)dir;
    (void)mode;
    return -1;
#endif
}

/* A hidden temporary with a short name in dir (any valid output name fits beside it). */
static int open_named(pk_output_file *f, const char *dir)
{
    size_t len = strlen(dir) + sizeof "/.profkit-XXXXXX";
    f->temp_path = malloc(len);
    if (!f->temp_path)
        return -1;
    snprintf(f->temp_path, len, "%s/.profkit-XXXXXX", dir);
    int fd = pk_cleanup_mkstemp(f->temp_path, &f->cleanup_slot);
    if (fd < 0) {
        int e = errno;
        free(f->temp_path);
        f->temp_path = NULL;
        errno = e;
        return -1;
    }
    fchmod(fd, f->mode);
    return fd;
}

static void release(pk_output_file *f)
{
    if (f->fd >= 0 && f->fd != STDOUT_FILENO)
        close(f->fd);
    pk_cleanup_remove(f->cleanup_slot);
    free(f->path);
    free(f->temp_path);
    memset(f, 0, sizeof *f);
    f->fd = -1;
    f->cleanup_slot = -1;
}

pk_status pk_output_file_open(pk_output_file *f, const char *path, const char *protect_path,
                              pk_error *err)
{
    memset(f, 0, sizeof *f);
    f->fd = -1;
    f->cleanup_slot = -1;
    if (!path[0])
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET, "the output name is empty");
    if (protect_path && strcmp(protect_path, "-") != 0 &&
        (strcmp(path, protect_path) == 0 || same_file(path, protect_path)))
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET,
                            "%s: refusing to write the output over the input", path);
    f->mode = new_file_mode();
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return pk_error_set(err, PK_ERR_IO, PK_NO_OFFSET, "%s: is a directory", path);
        if (!S_ISREG(st.st_mode)) {
            /* A device, FIFO or socket (/dev/stdout, a pipe) cannot be replaced by a rename:
             * write to it. */
            f->in_place = true;
            f->path = strdup(path);
            if (!f->path)
                return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
            f->fd = open(path, O_WRONLY | O_CLOEXEC);
            if (f->fd < 0) {
                int e = errno;
                release(f);
                return pk_error_set(err, PK_ERR_IO, PK_NO_OFFSET, "%s: %s", path, strerror(e));
            }
            return PK_OK;
        }
        if (!(st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)))
            return pk_error_set(err, PK_ERR_IO, PK_NO_OFFSET,
                                "%s: the file is read-only (mode %04o); not replacing it", path,
                                (unsigned)(st.st_mode & 07777));
        /* The file itself is replaced, wherever links lead to it. */
        f->path = realpath(path, NULL);
        f->replaces = true;
        f->mode = st.st_mode & 07777;
        f->owner = st.st_uid;
        f->group = st.st_gid;
    } else {
        /* A new file; a dangling link names it. */
        f->path = follow_links(path);
    }
    if (!f->path) {
        int e = errno;
        release(f);
        return pk_error_set(err, PK_ERR_IO, PK_NO_OFFSET, "%s: %s", path, strerror(e));
    }
    char *dir = directory_of(f->path);
    if (!dir) {
        release(f);
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    }
    /* Beside the final file, so that naming it stays on one file system. */
    f->fd = open_unnamed(dir, f->mode);
    if (f->fd < 0)
        f->fd = open_named(f, dir);
    int e = errno;
    free(dir);
    if (f->fd < 0) {
        release(f);
        return pk_error_set(err, PK_ERR_IO, PK_NO_OFFSET, "%s: cannot create: %s", path,
                            strerror(e));
    }
    return PK_OK;
}

/* Links the unnamed file under a hidden temporary name in dir, for the rename. */
static int link_unnamed(pk_output_file *f, const char *dir)
{
    char link[64];
    fd_path(f->fd, link, sizeof link);
    size_t len = strlen(dir) + sizeof "/.profkit-XXXXXX";
    f->temp_path = malloc(len);
    if (!f->temp_path)
        return ENOMEM;
    for (int attempt = 0; attempt < 100; attempt++) {
        snprintf(f->temp_path, len, "%s/.profkit-XXXXXX", dir);
        /* mkstemp's names, without keeping the file: linkat creates it or finds it taken. The
         * name is registered for removal from the start, so that no signal leaves it. */
        int probe = pk_cleanup_mkstemp(f->temp_path, &f->cleanup_slot);
        if (probe < 0)
            return errno;
        close(probe);
        unlink(f->temp_path);
        if (linkat(AT_FDCWD, link, AT_FDCWD, f->temp_path, AT_SYMLINK_FOLLOW) == 0)
            return 0;
        int e = errno;
        pk_cleanup_remove(f->cleanup_slot);
        f->cleanup_slot = -1;
        if (e != EEXIST)
            return e;
    }
    return EEXIST;
}

/* Gives the written file its name. Returns 0 or an errno. */
static int name_file(pk_output_file *f)
{
    if (!f->temp_path) {
        /* Unnamed: a new name can be linked at once; an existing file is replaced through a
         * temporary name and a rename, which swaps the two in one step. */
        char link[64];
        fd_path(f->fd, link, sizeof link);
        if (!f->replaces && linkat(AT_FDCWD, link, AT_FDCWD, f->path, AT_SYMLINK_FOLLOW) == 0)
            return 0;
        if (!f->replaces && errno != EEXIST)
            return errno;
        char *dir = directory_of(f->path);
        if (!dir)
            return ENOMEM;
        int e = link_unnamed(f, dir);
        free(dir);
        if (e)
            return e;
    }
    if (rename(f->temp_path, f->path) != 0) {
        int e = errno;
        unlink(f->temp_path);
        return e;
    }
    return 0;
}

/* Makes the new name durable too: the directory entry is data of the directory. */
static void sync_directory(const char *path)
{
    char *dir = directory_of(path);
    int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
    free(dir);
}

pk_status pk_output_file_commit(pk_output_file *f, pk_error *err)
{
    int e = 0;
    if (!f->in_place) {
        if (fchmod(f->fd, f->mode) != 0)
            e = errno;
        /* Keeping the owner needs privileges: without them the file is the writer's. */
        if (e == 0 && f->replaces && fchown(f->fd, f->owner, f->group) != 0 && errno != EPERM)
            e = errno;
        /* Written back before it is named: after a crash of the system the name holds the
         * whole output or the old file, never an empty or partial one (docs/design.md,
         * output; measured at a few tens of ms for a 37 MB output). */
        if (e == 0 && fsync(f->fd) != 0)
            e = errno;
        /* Named while still open: an unnamed file is reached through its descriptor. */
        if (e == 0)
            e = name_file(f);
        if (e == 0)
            sync_directory(f->path);
    }
    if (f->fd != STDOUT_FILENO && close(f->fd) != 0 && e == 0 && f->in_place)
        e = errno;
    f->fd = -1;
    pk_status status = PK_OK;
    if (e != 0) {
        if (f->temp_path)
            unlink(f->temp_path);
        status = pk_error_set(err, e == ENOMEM ? PK_ERR_NOMEM : PK_ERR_IO, PK_NO_OFFSET,
                              "%s: cannot write: %s", f->path, strerror(e));
    }
    release(f);
    return status;
}

void pk_output_file_abort(pk_output_file *f)
{
    if (f->temp_path)
        unlink(f->temp_path);
    release(f);
}
