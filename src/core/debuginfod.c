/* SPDX-License-Identifier: MIT */
/* debuginfod.h: a thin layer over libdebuginfod that keeps the environment check and the
 * build id's form in one place. */
#include <elfutils/debuginfod.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/debuginfod.h"

struct pk_debuginfod {
    debuginfod_client *client;
};

pk_debuginfod *pk_debuginfod_new(void)
{
    const char *urls = getenv(DEBUGINFOD_URLS_ENV_VAR);
    if (!urls || !*urls)
        return NULL;
    pk_debuginfod *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->client = debuginfod_begin();
    if (!d->client) {
        free(d);
        return NULL;
    }
    return d;
}

void pk_debuginfod_free(pk_debuginfod *d)
{
    if (!d)
        return;
    debuginfod_end(d->client);
    free(d);
}

/* A build id as servers index it, lower-case hexadecimal of at most 64 bytes, into id (129
 * bytes); false when build_id is none. */
static bool server_id(const char *build_id, char *id)
{
    size_t n = build_id ? strlen(build_id) : 0;
    if (n < 2 || n > 128 || n % 2)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = build_id[i];
        if (c >= 'A' && c <= 'F')
            c = (char)(c - 'A' + 'a');
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return false;
        id[i] = c;
    }
    id[n] = '\0';
    return true;
}

/* The fetched file's path, from what a libdebuginfod call returned. */
static char *fetched(int fd, char *path)
{
    if (fd < 0) {
        free(path);
        return NULL;
    }
    close(fd);
    return path;
}

char *pk_debuginfod_executable(pk_debuginfod *d, const char *build_id)
{
    char id[129];
    if (!d || !server_id(build_id, id))
        return NULL;
    char *path = NULL;
    int fd = debuginfod_find_executable(d->client, (const unsigned char *)id, 0, &path);
    return fetched(fd, path);
}

char *pk_debuginfod_source(pk_debuginfod *d, const char *build_id, const char *path)
{
    char id[129];
    if (!d || !server_id(build_id, id) || !path || path[0] != '/')
        return NULL;
    char *out = NULL;
    int fd = debuginfod_find_source(d->client, (const unsigned char *)id, 0, path, &out);
    return fetched(fd, out);
}
