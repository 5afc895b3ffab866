/* SPDX-License-Identifier: MIT */
/* The names of processes, as a trace's process_name events or a channel's title give them, kept
 * among the profile's properties as "process.PID.name" so that copying, merging and the
 * symbolization pass carry them like any property. Outputs with processes (the Firefox
 * Profiler's) name a thread's process by it, else by the profile's product. */
#ifndef PK_CORE_PROCESS_NAMES_H
#define PK_CORE_PROCESS_NAMES_H

#include <stdint.h>

#include "profkit/profile.h"

/* Names process pid (not -1, the unknown one). */
pk_status pk_process_name_set(pk_profile *p, int64_t pid, const char *name);
/* The name of process pid, NULL when none was given. */
const char *pk_process_name(const pk_profile *p, int64_t pid);

#endif
