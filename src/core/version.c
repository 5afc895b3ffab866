/* SPDX-License-Identifier: MIT */
/* The library's version, and the versions of the libraries it was built with: asked of each
 * library at run time where it can say (a newer shared library may have replaced the one built
 * against), else the version of its headers. */
#include <curl/curl.h>
#include <elfutils/libdwfl.h>
#include <elfutils/version.h>
#include <protobuf-c/protobuf-c.h>
#include <pthread.h>
#include <stdio.h>
#include <xxhash.h>
#include <zip.h>
#include <zlib.h>

#include "profkit/version.h"

#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

unsigned pk_version(void)
{
    return PROFKIT_VERSION_NUMBER;
}

const char *pk_version_string(void)
{
    return PROFKIT_VERSION;
}

enum { DEP_ZLIB, DEP_LIBDW, DEP_LIBCURL, DEP_LIBZIP, DEP_PROTOBUF_C, DEP_XXHASH, DEP_LIBIBERTY,
       DEP_COUNT };

static pk_dependency dependencies[DEP_COUNT] = {
    [DEP_ZLIB] = {"zlib", NULL, true, ZLIB_VERSION},
    /* elfutils numbers its releases 0.N; its header holds N. */
    [DEP_LIBDW] = {"libdw", NULL, true, "0." STRINGIFY(_ELFUTILS_VERSION)},
    [DEP_LIBCURL] = {"libcurl", NULL, true, LIBCURL_VERSION},
    [DEP_LIBZIP] = {"libzip", NULL, true, LIBZIP_VERSION},
    [DEP_PROTOBUF_C] = {"protobuf-c", NULL, true, PROTOBUF_C_VERSION},
    [DEP_XXHASH] = {"xxhash", NULL, true,
                    STRINGIFY(XXH_VERSION_MAJOR) "." STRINGIFY(XXH_VERSION_MINOR) "." STRINGIFY(
                        XXH_VERSION_RELEASE)},
    /* Linked from a static archive that carries no version. */
    [DEP_LIBIBERTY] = {"libiberty", NULL, false, NULL},
};
static char xxhash_version[32];
static pthread_once_t dependencies_once = PTHREAD_ONCE_INIT;

static void ask_dependencies(void)
{
    dependencies[DEP_ZLIB].version = zlibVersion();
    dependencies[DEP_LIBDW].version = dwfl_version(NULL);
    dependencies[DEP_LIBCURL].version = curl_version_info(CURLVERSION_NOW)->version;
    dependencies[DEP_LIBZIP].version = zip_libzip_version();
    dependencies[DEP_PROTOBUF_C].version = protobuf_c_version();
    unsigned xxh = XXH_versionNumber();
    snprintf(xxhash_version, sizeof xxhash_version, "%u.%u.%u", xxh / 10000, xxh / 100 % 100,
             xxh % 100);
    dependencies[DEP_XXHASH].version = xxhash_version;
}

size_t pk_dependency_count(void)
{
    return DEP_COUNT;
}

const pk_dependency *pk_dependency_at(size_t index)
{
    if (index >= DEP_COUNT)
        return NULL;
    pthread_once(&dependencies_once, ask_dependencies);
    return &dependencies[index];
}
