/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "core/processors.h"

#include <sched.h>

bool pk_several_processors(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return false;
    return CPU_COUNT(&set) > 1;
}
