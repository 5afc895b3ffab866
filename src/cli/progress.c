/* SPDX-License-Identifier: MIT */
/* A progress bar on standard error for long reads, shown only on a terminal and only for
 * inputs large enough to take a noticeable time. */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define PROGRESS_MIN_BYTES (64u << 20)

static bool progress_shown;
static struct timespec progress_last;

void cli_progress(void *context, uint64_t done, uint64_t total)
{
    (void)context;
    /* A large file shows the bar from the start; a stream of unknown size once it is large. */
    if (!progress_shown && total < PROGRESS_MIN_BYTES && done < PROGRESS_MIN_BYTES)
        return;
    if (!isatty(STDERR_FILENO))
        return;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double since = (double)(now.tv_sec - progress_last.tv_sec) +
                   (double)(now.tv_nsec - progress_last.tv_nsec) / 1e9;
    if (progress_shown && since < 0.1)
        return;
    progress_last = now;
    progress_shown = true;
    double mib = (double)done / (1024.0 * 1024.0);
    if (total > 0 && done <= total) {
        int width = 40, filled = (int)((double)width * (double)done / (double)total);
        fprintf(stderr, "\r[%.*s%.*s] %5.1f%% %.0f MiB", filled,
                "########################################", width - filled,
                "                                        ", 100.0 * (double)done / (double)total,
                mib);
    } else {
        fprintf(stderr, "\rread %.0f MiB", mib);
    }
    fflush(stderr);
}

void cli_progress_done(void)
{
    if (progress_shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        progress_shown = false;
    }
}
