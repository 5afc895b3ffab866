/* SPDX-License-Identifier: MIT */
#include "core/process_names.h"

#include <stdio.h>

/* "process." PID ".name": 8 + 20 + 5 characters and the terminator. */
#define KEY_SIZE 40

static void process_key(char *key, int64_t pid)
{
    snprintf(key, KEY_SIZE, "process.%lld.name", (long long)pid);
}

pk_status pk_process_name_set(pk_profile *p, int64_t pid, const char *name)
{
    if (pid < 0)
        return PK_OK;
    char key[KEY_SIZE];
    process_key(key, pid);
    return pk_property_set(p, key, name);
}

const char *pk_process_name(const pk_profile *p, int64_t pid)
{
    if (pid < 0)
        return NULL;
    char key[KEY_SIZE];
    process_key(key, pid);
    return pk_property_get(p, key);
}
