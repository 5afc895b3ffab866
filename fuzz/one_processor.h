/* SPDX-License-Identifier: MIT */
/* Runs the library as a machine of one processor would, for the harnesses: readers that split
 * their input on a worker thread when a second processor is there (core/batch_ring.h) then
 * take each piece on the calling thread, as pk_several_processors (core/processors.h) reads
 * the calling thread's affinity mask. A thread started and joined per read costs little CPU but
 * waits for the scheduler at every hand-over, which on a busy machine made those harnesses
 * run a few inputs a second. The mask is narrowed to the processor the thread is on (no
 * migration, and each of libFuzzer's -fork jobs keeps its own) and restored after. Include
 * before any other header (it needs _GNU_SOURCE). */
#ifndef PK_FUZZ_ONE_PROCESSOR_H
#define PK_FUZZ_ONE_PROCESSOR_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stdbool.h>

static cpu_set_t one_processor_saved;
static bool one_processor_narrowed;

static void one_processor_begin(void)
{
    one_processor_narrowed = false;
    int cpu = sched_getcpu();
    if (cpu < 0 || sched_getaffinity(0, sizeof one_processor_saved, &one_processor_saved) != 0)
        return;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    one_processor_narrowed = sched_setaffinity(0, sizeof one, &one) == 0;
}

static void one_processor_end(void)
{
    if (one_processor_narrowed)
        sched_setaffinity(0, sizeof one_processor_saved, &one_processor_saved);
    one_processor_narrowed = false;
}

#endif
