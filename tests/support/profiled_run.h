/* SPDX-License-Identifier: MIT */
/* Running a program linked with gperftools' libprofiler under CPUPROFILE, for the tests that read
 * a real program's CPU profile. Each test program writes its own profile file, so tests run in
 * parallel never read a profile another one is rewriting. */
#ifndef PK_TEST_PROFILED_RUN_H
#define PK_TEST_PROFILED_RUN_H

#include <stdbool.h>

/* Removes profile, then runs program with one argument, CPUPROFILE=profile and
 * CPUPROFILE_FREQUENCY=1000, its standard output discarded. True when it exited with 0 and left a
 * non-empty profile. */
bool tb_run_profiled(const char *program, const char *argument, const char *profile);

#endif
