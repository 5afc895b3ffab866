/* SPDX-License-Identifier: MIT */
/* The yardstick of the JSON readers: yajl alone, parsing a file in 1 MiB chunks with no
 * callbacks, the floor under any reader built on it (bench/bench_chrome.sh prints it beside
 * profkit's readers).
 *
 *   yajl_parse [--no-utf8-check] FILE     prints "bytes seconds" on success, exits 1 on a parse
 *                                         error; --no-utf8-check turns yajl's validation of
 *                                         strings off (yajl_dont_validate_strings), to measure
 *                                         what it costs */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <yajl/yajl_parse.h>

int main(int argc, char **argv)
{
    int validate = argc == 3 && strcmp(argv[1], "--no-utf8-check") == 0 ? 0 : 1;
    if (argc != 3 - validate) {
        fprintf(stderr, "usage: yajl_parse [--no-utf8-check] FILE\n");
        return 2;
    }
    const char *path = argv[argc - 1];
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 2;
    }
    static const yajl_callbacks none;
    yajl_handle h = yajl_alloc(&none, NULL, NULL);
    if (!validate)
        yajl_config(h, yajl_dont_validate_strings, 1);
    static unsigned char buf[1 << 20];
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    size_t n, total = 0;
    int status = yajl_status_ok;
    while (status == yajl_status_ok && (n = fread(buf, 1, sizeof buf, f)) > 0) {
        status = yajl_parse(h, buf, n);
        total += n;
    }
    if (status == yajl_status_ok)
        status = yajl_complete_parse(h);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    yajl_free(h);
    fclose(f);
    if (status != yajl_status_ok)
        return 1;
    printf("%zu %.3f\n", total, (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
    return 0;
}
