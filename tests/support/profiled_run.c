/* SPDX-License-Identifier: MIT */
#include "profiled_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

bool tb_run_profiled(const char *program, const char *argument, const char *profile)
{
    unlink(profile);
    pid_t pid = fork();
    if (pid == 0) {
        setenv("CPUPROFILE", profile, 1);
        setenv("CPUPROFILE_FREQUENCY", "1000", 1);
        if (!freopen("/dev/null", "w", stdout))
            _exit(126);
        execl(program, program, argument, (char *)NULL);
        _exit(127);
    }
    int wstatus;
    struct stat st;
    return pid > 0 && waitpid(pid, &wstatus, 0) == pid && WIFEXITED(wstatus) &&
           WEXITSTATUS(wstatus) == 0 && stat(profile, &st) == 0 && st.st_size > 0;
}
