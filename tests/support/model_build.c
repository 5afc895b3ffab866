/* SPDX-License-Identifier: MIT */
#include "model_build.h"

#include <stdio.h>
#include <stdlib.h>

static uint32_t checked(uint32_t id, const char *what)
{
    if (id == PK_NONE) {
        fprintf(stderr, "model_build: cannot intern the %s\n", what);
        abort();
    }
    return id;
}

uint32_t tb_function(pk_profile *p, const char *name, const char *file, uint32_t start,
                     uint32_t resource)
{
    pk_function f = {.name = pk_intern_cstr(p, name), .file = file ? pk_intern_cstr(p, file) : 0,
                     .start_line = start, .resource = resource};
    return pk_intern_function(p, &f);
}

uint32_t tb_push(pk_profile *p, uint32_t parent, uint32_t function, uint32_t line,
                 uint64_t address, uint32_t resource, uint32_t flags)
{
    pk_frame f = {function, line, address, resource, flags};
    uint32_t frame = checked(pk_intern_frame(p, &f), "frame");
    return checked(pk_intern_stack(p, parent, frame), "stack");
}
