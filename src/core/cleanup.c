/* Removal of temporary files on SIGINT, SIGTERM, SIGHUP and SIGXFSZ, after which the signal
 * takes its default course, so that the exit status still says what ended the run. */
#include "core/cleanup.h"

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "profkit/output.h"

#define CLEANUP_SLOTS 16

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
    static const int signals[] = {SIGINT, SIGTERM, SIGHUP, SIGXFSZ};
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        struct sigaction old;
        /* A disposition set by the caller (ignored under nohup, a handler of its own) stays. */
        if (sigaction(signals[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL ||
            (old.sa_flags & SA_SIGINFO))
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = remove_and_die;
        sigemptyset(&sa.sa_mask);
        for (size_t k = 0; k < sizeof signals / sizeof signals[0]; k++)
            sigaddset(&sa.sa_mask, signals[k]);
        sigaction(signals[i], &sa, NULL);
    }
}
