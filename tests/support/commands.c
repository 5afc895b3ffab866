/* SPDX-License-Identifier: MIT */
#include "commands.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "strfmt.h"

static bool executable_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

bool tb_command_exists(const char *name)
{
    if (!name || !*name)
        return false;
    if (strchr(name, '/'))
        return executable_file(name);
    const char *path = getenv("PATH");
    if (!path)
        return false;
    for (const char *dir = path;;) {
        size_t length = strcspn(dir, ":");
        /* An empty entry is the current directory. */
        char *candidate = length ? tb_strfmt("%.*s/%s", (int)length, dir, name)
                                 : tb_strfmt("./%s", name);
        bool found = executable_file(candidate);
        free(candidate);
        if (found)
            return true;
        if (!dir[length])
            return false;
        dir += length + 1;
    }
}
