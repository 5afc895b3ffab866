/* SPDX-License-Identifier: MIT */
/* Removal of temporary files on SIGINT, SIGTERM, SIGHUP and SIGXFSZ, after which the signal
 * takes its default course, so that the exit status still says what ended the run. */
#include "core/cleanup.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profkit/output.h"

#define CLEANUP_SLOTS 16

/* The signals whose default ends the run and whose handler removes the registered files. */
static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGXFSZ};
#define CLEANUP_SIGNAL_COUNT (sizeof cleanup_signals / sizeof cleanup_signals[0])

static char cleanup_paths[CLEANUP_SLOTS][PATH_MAX];
static volatile sig_atomic_t cleanup_used[CLEANUP_SLOTS];

int pk_cleanup_add(const char *path)
{
    size_t n = strlen(path);
    if (n >= PATH_MAX)
        return -1;
    for (int i = 0; i < CLEANUP_SLOTS; i++) {
        if (!cleanup_used[i]) {
            memcpy(cleanup_paths[i], path, n + 1);
            cleanup_used[i] = 1; /* only once the path is whole */
            return i;
        }
    }
    return -1;
}

void pk_cleanup_remove(int slot)
{
    if (slot >= 0 && slot < CLEANUP_SLOTS)
        cleanup_used[slot] = 0;
}

int pk_cleanup_mkstemp(char *template, int *slot)
{
    sigset_t held, old;
    sigemptyset(&held);
    for (size_t i = 0; i < CLEANUP_SIGNAL_COUNT; i++)
        sigaddset(&held, cleanup_signals[i]);
    sigprocmask(SIG_BLOCK, &held, &old);
    int fd = mkstemp(template);
    int e = errno;
    *slot = fd >= 0 ? pk_cleanup_add(template) : -1;
    sigprocmask(SIG_SETMASK, &old, NULL);
    errno = e;
    return fd;
}

static void remove_and_die(int sig)
{
    for (int i = 0; i < CLEANUP_SLOTS; i++)
        if (cleanup_used[i])
            unlink(cleanup_paths[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

void pk_output_remove_on_signals(void)
{
    for (size_t i = 0; i < CLEANUP_SIGNAL_COUNT; i++) {
        struct sigaction old;
        /* A disposition set by the caller (ignored under nohup, a handler of its own) stays. */
        if (sigaction(cleanup_signals[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL ||
            (old.sa_flags & SA_SIGINFO))
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = remove_and_die;
        sigemptyset(&sa.sa_mask);
        for (size_t k = 0; k < CLEANUP_SIGNAL_COUNT; k++)
            sigaddset(&sa.sa_mask, cleanup_signals[k]);
        sigaction(cleanup_signals[i], &sa, NULL);
    }
}
