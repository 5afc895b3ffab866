/* SPDX-License-Identifier: MIT */
/* A channel's source (source_tree.h): a directory, or a package zip read with libzip. */
#include "analysis/source_tree.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zip.h>

struct pk_source {
    char *path;
    zip_t *zip;    /* NULL for a directory */
    char *prefix;  /* zip: the folder holding the manifest ("" or "name/") */
};

static pk_status source_nomem(pk_error *err)
{
    return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
}

/* The zip folder holding the manifest: the root, or the one top-level folder that has it
 * (a zip made of the channel's folder rather than of its contents). */
static bool zip_find_prefix(pk_source *s)
{
    if (zip_name_locate(s->zip, "manifest", ZIP_FL_NOCASE) >= 0) {
        s->prefix = strdup("");
        return s->prefix != NULL;
    }
    zip_int64_t count = zip_get_num_entries(s->zip, 0);
    const char *found = NULL;
    for (zip_int64_t i = 0; i < count; i++) {
        const char *name = zip_get_name(s->zip, (zip_uint64_t)i, 0);
        const char *slash = name ? strchr(name, '/') : NULL;
        if (slash && slash != name && strcasecmp(slash + 1, "manifest") == 0) {
            if (found) { /* two candidates: use the root, as the device would */
                found = NULL;
                break;
            }
            found = name;
        }
    }
    size_t n = found ? (size_t)(strchr(found, '/') - found) + 1 : 0;
    s->prefix = malloc(n + 1);
    if (!s->prefix)
        return false;
    memcpy(s->prefix, found ? found : "", n);
    s->prefix[n] = '\0';
    return true;
}

pk_status pk_source_open(const char *path, pk_source **out, pk_error *err)
{
    *out = NULL;
    struct stat st;
    if (stat(path, &st) != 0)
        return pk_error_set(err, PK_ERR_IO, PK_NO_OFFSET, "%s: %s", path, strerror(errno));
    pk_source *s = calloc(1, sizeof *s);
    if (!s || !(s->path = strdup(path))) {
        free(s);
        return source_nomem(err);
    }
    if (S_ISDIR(st.st_mode)) {
        *out = s;
        return PK_OK;
    }
    int code = 0;
    s->zip = zip_open(path, ZIP_RDONLY, &code);
    if (!s->zip) {
        zip_error_t ze;
        zip_error_init_with_code(&ze, code);
        pk_status status = pk_error_set(err, code == ZIP_ER_NOZIP ? PK_ERR_INPUT : PK_ERR_IO,
                                        PK_NO_OFFSET,
                                        "%s: not a channel source (a directory or a zip): %s",
                                        path, zip_error_strerror(&ze));
        zip_error_fini(&ze);
        pk_source_close(s);
        return status;
    }
    if (!zip_find_prefix(s)) {
        pk_source_close(s);
        return source_nomem(err);
    }
    *out = s;
    return PK_OK;
}

void pk_source_close(pk_source *source)
{
    if (!source)
        return;
    if (source->zip)
        zip_discard(source->zip); /* opened read-only: nothing to write back */
    free(source->prefix);
    free(source->path);
    free(source);
}

const char *pk_source_name(const pk_source *source)
{
    return source->path;
}

/* The path inside the source of a "pkg:/..." path: NULL for anything else, and for paths that
 * would leave the source ("..") or name no file. */
static const char *relative_path(const char *pkg_path)
{
    if (strncasecmp(pkg_path, "pkg:/", 5) != 0)
        return NULL;
    const char *rel = pkg_path + 5;
    while (*rel == '/')
        rel++;
    if (!*rel)
        return NULL;
    for (const char *c = rel; *c;) {
        const char *end = strchr(c, '/');
        size_t n = end ? (size_t)(end - c) : strlen(c);
        if (n == 2 && c[0] == '.' && c[1] == '.')
            return NULL;
        c += n + (end ? 1 : 0);
    }
    return rel;
}

static pk_status too_large(const char *pkg_path, pk_error *err)
{
    return pk_error_set(err, PK_ERR_INPUT, PK_NO_OFFSET,
                        "%s is larger than %u MiB: not a source file", pkg_path,
                        PK_SOURCE_FILE_MAX >> 20);
}

static pk_status not_found(const pk_source *s, const char *pkg_path, pk_error *err)
{
    return pk_error_set(err, PK_ERR_INPUT, PK_NO_OFFSET, "%s is not in %s", pkg_path, s->path);
}

static pk_status zip_read(pk_source *s, const char *pkg_path, const char *rel, char **data,
                          size_t *size, pk_error *err)
{
    size_t n = strlen(s->prefix) + strlen(rel);
    char *name = malloc(n + 1);
    if (!name)
        return source_nomem(err);
    strcpy(name, s->prefix);
    strcat(name, rel);
    zip_int64_t index = zip_name_locate(s->zip, name, 0);
    if (index < 0)
        index = zip_name_locate(s->zip, name, ZIP_FL_NOCASE);
    free(name);
    if (index < 0)
        return not_found(s, pkg_path, err);
    zip_stat_t st;
    if (zip_stat_index(s->zip, (zip_uint64_t)index, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE))
        return pk_error_set(err, PK_ERR_IO, PK_NO_OFFSET, "%s: %s in %s", pkg_path,
                            zip_strerror(s->zip), s->path);
    if (st.size > PK_SOURCE_FILE_MAX)
        return too_large(pkg_path, err);
    char *buf = malloc((size_t)st.size + 1);
    if (!buf)
        return source_nomem(err);
    zip_file_t *f = zip_fopen_index(s->zip, (zip_uint64_t)index, 0);
    zip_int64_t got = f ? zip_fread(f, buf, st.size) : -1;
    pk_status status = PK_OK;
    if (got < 0 || (zip_uint64_t)got != st.size)
        status = pk_error_set(err, PK_ERR_IO, PK_NO_OFFSET, "%s in %s: cannot read it: %s",
                              pkg_path, s->path, f ? zip_file_strerror(f) : zip_strerror(s->zip));
    if (f)
        zip_fclose(f);
    if (status != PK_OK) {
        free(buf);
        return status;
    }
    buf[st.size] = '\0';
    *data = buf;
    *size = (size_t)st.size;
    return PK_OK;
}

/* Opens rel under the directory at dirfd, one component at a time, each matched exactly or
 * else without regard to case. Returns a descriptor or -1 with errno set. */
static int open_nocase(int dirfd, const char *rel)
{
    const char *slash = strchr(rel, '/');
    size_t n = slash ? (size_t)(slash - rel) : strlen(rel);
    if (n == 0)
        return slash ? open_nocase(dirfd, slash + 1) : (errno = ENOENT, -1);
    char component[256];
    if (n >= sizeof component) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(component, rel, n);
    component[n] = '\0';
    /* A link is never followed: it could lead out of the source (what `profkit view` serves
     * must stay inside it). */
    int flags = (slash ? O_RDONLY | O_DIRECTORY : O_RDONLY) | O_NOFOLLOW;
    int fd = openat(dirfd, component, flags | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) {
        int scan = dup(dirfd);
        DIR *dir = scan >= 0 ? fdopendir(scan) : NULL;
        if (!dir && scan >= 0)
            close(scan);
        struct dirent *entry;
        while (dir && (entry = readdir(dir)) != NULL) {
            if (strcasecmp(entry->d_name, component) == 0) {
                fd = openat(dirfd, entry->d_name, flags | O_CLOEXEC);
                break;
            }
        }
        if (dir)
            closedir(dir);
        if (fd < 0)
            errno = ENOENT;
    }
    if (fd < 0 || !slash)
        return fd;
    int inner = open_nocase(fd, slash + 1);
    int saved = errno;
    close(fd);
    errno = saved;
    return inner;
}

static pk_status dir_read(pk_source *s, const char *pkg_path, const char *rel, char **data,
                          size_t *size, pk_error *err)
{
    int dirfd = open(s->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int fd = dirfd >= 0 ? open_nocase(dirfd, rel) : -1;
    int saved = errno;
    if (dirfd >= 0)
        close(dirfd);
    if (fd < 0) {
        if (saved == ENOENT || saved == ENOTDIR)
            return not_found(s, pkg_path, err);
        return pk_error_set(err, PK_ERR_IO, PK_NO_OFFSET, "%s in %s: %s", pkg_path, s->path,
                            strerror(saved));
    }
    struct stat st;
    pk_status status = PK_OK;
    char *buf = NULL;
    size_t len = 0;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        status = not_found(s, pkg_path, err);
    } else if ((uint64_t)st.st_size > PK_SOURCE_FILE_MAX) {
        status = too_large(pkg_path, err);
    } else if (!(buf = malloc((size_t)st.st_size + 1))) {
        status = source_nomem(err);
    } else {
        /* Read what is there: the file may change size under us. */
        while (len < (size_t)st.st_size) {
            ssize_t got = read(fd, buf + len, (size_t)st.st_size - len);
            if (got < 0 && errno == EINTR)
                continue;
            if (got < 0) {
                status = pk_error_set(err, PK_ERR_IO, PK_NO_OFFSET, "%s in %s: %s", pkg_path,
                                      s->path, strerror(errno));
                break;
            }
            if (got == 0)
                break;
            len += (size_t)got;
        }
    }
    close(fd);
    if (status != PK_OK) {
        free(buf);
        return status;
    }
    assert(buf); /* read into, since nothing failed */
    buf[len] = '\0';
    *data = buf;
    *size = len;
    return PK_OK;
}

pk_status pk_source_read(pk_source *source, const char *pkg_path, char **data, size_t *size,
                         pk_error *err)
{
    *data = NULL;
    *size = 0;
    const char *rel = relative_path(pkg_path);
    if (!rel)
        return pk_error_set(err, PK_ERR_INPUT, PK_NO_OFFSET,
                            "%s is not a file of the channel (a pkg:/ path)", pkg_path);
    return source->zip ? zip_read(source, pkg_path, rel, data, size, err)
                       : dir_read(source, pkg_path, rel, data, size, err);
}
