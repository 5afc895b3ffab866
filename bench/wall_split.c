/* SPDX-License-Identifier: MIT */
/* Where a command's wall-clock time goes, thread by thread: time on a CPU, time runnable but
 * waiting for one (the run queue: other processes' load), and for the first thread the rest,
 * time it was blocked (I/O, fsync, waiting for another thread). On a shared machine this tells
 * the load's share of a slow run from the program's own waiting.
 *
 *   wall_split COMMAND [ARG...]
 *
 * Prints one line on standard error when the command ends and exits with its status. The
 * numbers come from /proc/PID/task/TID/schedstat (nanoseconds on a CPU, nanoseconds waiting to
 * run), read every 5 ms while the command runs and once more when it has exited but is not yet
 * reaped: a thread that ends between two readings loses at most its last 5 ms.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 64

typedef struct thread_times {
    long tid;
    double cpu_s, queued_s;
} thread_times;

static thread_times threads[MAX_THREADS];
static size_t thread_count;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The entry of tid, in order of first sight (the first is the main thread); NULL when full. */
static thread_times *entry_of(long tid)
{
    for (size_t i = 0; i < thread_count; i++)
        if (threads[i].tid == tid)
            return &threads[i];
    if (thread_count == MAX_THREADS)
        return NULL;
    threads[thread_count].tid = tid;
    return &threads[thread_count++];
}

static void read_threads(pid_t pid)
{
    char dir_path[64];
    snprintf(dir_path, sizeof dir_path, "/proc/%d/task", (int)pid);
    DIR *dir = opendir(dir_path);
    if (!dir)
        return;
    /* The main thread first, so that it is entry 0 even if a worker is listed before it. */
    entry_of(pid);
    struct dirent *d;
    while ((d = readdir(dir))) {
        if (d->d_name[0] == '.')
            continue;
        char path[sizeof dir_path + sizeof d->d_name + sizeof "/schedstat"];
        snprintf(path, sizeof path, "%s/%s/schedstat", dir_path, d->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        unsigned long long cpu_ns, queued_ns;
        thread_times *t = entry_of(strtol(d->d_name, NULL, 10));
        if (fscanf(f, "%llu %llu", &cpu_ns, &queued_ns) == 2 && t) {
            t->cpu_s = (double)cpu_ns / 1e9;
            t->queued_s = (double)queued_ns / 1e9;
        }
        fclose(f);
    }
    closedir(dir);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: wall_split COMMAND [ARG...]\n");
        return 2;
    }
    double start = now_s();
    pid_t pid = fork();
    if (pid < 0) {
        perror("wall_split: fork");
        return 2;
    }
    if (pid == 0) {
        execvp(argv[1], argv + 1);
        perror("wall_split: exec");
        _exit(127);
    }
    for (;;) {
        siginfo_t info;
        memset(&info, 0, sizeof info);
        /* WNOWAIT leaves the exited command unreaped, its last times still readable. */
        if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
            perror("wall_split: waitid");
            return 2;
        }
        read_threads(pid);
        if (info.si_pid == pid)
            break;
        usleep(5000);
    }
    double wall = now_s() - start;
    int status;
    waitpid(pid, &status, 0);
    fprintf(stderr, "wall %.2f s", wall);
    for (size_t i = 0; i < thread_count; i++)
        fprintf(stderr, "; %s: CPU %.2f, run queue %.2f", i == 0 ? "main" : "thread",
                threads[i].cpu_s, threads[i].queued_s);
    if (thread_count)
        fprintf(stderr, "; main blocked %.2f", wall - threads[0].cpu_s - threads[0].queued_s);
    fprintf(stderr, "\n");
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}
