/* SPDX-License-Identifier: MIT */
/* A small profile built with the model API for the report, diff, merge and flame graph tests.
 *
 * Threads "main" (tid 1) and "worker" (tid 2); value 0 "cpu" in nanoseconds, value 1 "calls".
 *   main:   main;foo 10 ms, main;foo;bar 20 ms, main;bar 5 ms, main 1 ms
 *   worker: main;rec;rec;bar 4 ms, main;rec 2 ms
 * Lines: main.c:3, foo.c:12, lib.c:7 (bar, in libfoo.so), rec.c:20.
 * Memory: 100 B at main;foo (freed), 1000 B at main;foo;bar and 50 B at main;bar (unfreed),
 * 10 B at main;rec;rec;bar on worker (freed), and one free of an unknown block. */
#ifndef PK_TEST_REPORT_FIXTURE_H
#define PK_TEST_REPORT_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "profkit/profile.h"

#define MS 1000000

static uint32_t fixture_frame(pk_profile *p, const char *name, const char *file, uint32_t line,
                              const char *library)
{
    uint32_t resource = PK_NONE;
    if (library) {
        pk_resource r = {pk_intern_cstr(p, library), 0, 0, 0, 0, 0};
        resource = pk_intern_resource(p, &r);
    }
    pk_function fn = {.name = pk_intern_cstr(p, name), .file = pk_intern_cstr(p, file),
                      .start_line = line, .resource = resource};
    pk_frame fr = {pk_intern_function(p, &fn), line, 0, resource, 0};
    return pk_intern_frame(p, &fr);
}

/* Interns the stack of names separated by ';', root first. */
static uint32_t fixture_stack(pk_profile *p, const char *path)
{
    static const struct {
        const char *name, *file, *library;
        uint32_t line;
    } known[] = {
        {"main", "main.c", NULL, 3},
        {"foo", "foo.c", NULL, 12},
        {"bar", "lib.c", "libfoo.so", 7},
        {"rec", "rec.c", NULL, 20},
    };
    uint32_t stack = PK_NONE;
    char copy[256];
    strncpy(copy, path, sizeof copy - 1);
    copy[sizeof copy - 1] = '\0';
    for (char *save = NULL, *name = strtok_r(copy, ";", &save); name;
         name = strtok_r(NULL, ";", &save)) {
        uint32_t frame = PK_NONE;
        for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
            if (strcmp(known[i].name, name) == 0)
                frame = fixture_frame(p, name, known[i].file, known[i].line, known[i].library);
        if (frame == PK_NONE)
            frame = fixture_frame(p, name, "", 0, NULL);
        stack = pk_intern_stack(p, stack, frame);
    }
    return stack;
}

static void fixture_add(pk_profile *p, uint32_t thread, const char *path, int64_t cpu)
{
    int64_t values[2] = {cpu, 1};
    pk_add_sample(p, thread, fixture_stack(p, path), values);
}

static pk_profile *fixture_profile(void)
{
    pk_profile *p = pk_profile_new();
    pk_add_value_type(p, "cpu", "nanoseconds");
    pk_add_value_type(p, "calls", "count");
    uint32_t main_thread = pk_add_thread(p, pk_intern_cstr(p, "main"), 1, 1);
    uint32_t worker = pk_add_thread(p, pk_intern_cstr(p, "worker"), 1, 2);
    fixture_add(p, main_thread, "main;foo", 10 * MS);
    fixture_add(p, main_thread, "main;foo;bar", 20 * MS);
    fixture_add(p, main_thread, "main;bar", 5 * MS);
    fixture_add(p, main_thread, "main", 1 * MS);
    fixture_add(p, worker, "main;rec;rec;bar", 4 * MS);
    fixture_add(p, worker, "main;rec", 2 * MS);
    pk_memory_alloc(p, main_thread, fixture_stack(p, "main;foo"), 0x10, 100);
    pk_memory_alloc(p, main_thread, fixture_stack(p, "main;foo;bar"), 0x20, 1000);
    pk_memory_free(p, main_thread, fixture_stack(p, "main;foo"), 0x10, PK_MEM_FREE, NULL);
    pk_memory_alloc(p, main_thread, fixture_stack(p, "main;bar"), 0x30, 50);
    pk_memory_alloc(p, worker, fixture_stack(p, "main;rec;rec;bar"), 0x40, 10);
    pk_memory_free(p, worker, fixture_stack(p, "main;rec"), 0x40, PK_MEM_FREE, NULL);
    pk_memory_free(p, worker, fixture_stack(p, "main;rec"), 0x99, PK_MEM_FREE, NULL);
    return p;
}

#endif
