/* SPDX-License-Identifier: MIT */
/* Runs a libFuzzer harness (fuzz/fuzz_*.c) once over each file of the files and directories
 * given, as `harness -runs=0 DIR` does, without libFuzzer: the test builds replay the kept
 * corpora (fuzz/corpus/) on every run, so that a change which makes a seed a finding fails a
 * test there, not the next fuzzing session. Directories are walked recursively, entries in
 * name order so that a failure names the same file every time. A harness reports a finding by
 * aborting; this driver prints the file first. Exits 0 when every file ran, 1 when a file could
 * not be read, 2 on usage. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t replayed;

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    uint8_t *data = NULL;
    size_t size = 0, cap = 0;
    for (;;) {
        if (size == cap) {
            cap = cap ? cap * 2 : 65536;
            uint8_t *grown = realloc(data, cap);
            if (!grown) {
                fprintf(stderr, "%s: out of memory\n", path);
                free(data);
                fclose(f);
                return 1;
            }
            data = grown;
        }
        size_t n = fread(data + size, 1, cap - size, f);
        size += n;
        if (n == 0)
            break;
    }
    int failed = ferror(f);
    fclose(f);
    if (failed) {
        fprintf(stderr, "%s: read error\n", path);
        free(data);
        return 1;
    }
    /* Named before the run: a finding aborts inside it. */
    fprintf(stderr, "replaying %s (%zu bytes)\n", path, size);
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    replayed++;
    return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static int replay(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        perror(path);
        return 1;
    }
    if (!S_ISDIR(st.st_mode))
        return replay_file(path);
    struct dirent **entries;
    int n = scandir(path, &entries, NULL, by_name);
    if (n < 0) {
        perror(path);
        return 1;
    }
    int status = 0;
    for (int i = 0; i < n; i++) {
        const char *name = entries[i]->d_name;
        if (name[0] != '.') {
            size_t len = strlen(path) + strlen(name) + 2;
            char *child = malloc(len);
            if (!child) {
                status = 1;
            } else {
                snprintf(child, len, "%s/%s", path, name);
                status |= replay(child);
                free(child);
            }
        }
        free(entries[i]);
    }
    free(entries);
    return status;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
        return 2;
    }
    int status = 0;
    for (int i = 1; i < argc; i++)
        status |= replay(argv[i]);
    fprintf(stderr, "%zu inputs replayed\n", replayed);
    return status;
}
