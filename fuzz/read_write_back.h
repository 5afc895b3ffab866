/* SPDX-License-Identifier: MIT */
/* The body of the JSON readers' libFuzzer harnesses: the probe on the first bytes, then the
 * reader on any bytes, with and without salvage; what is read is written back as folded stacks
 * and as the Firefox Profiler's JSON. Included by one harness each (static functions). */
#ifndef PK_FUZZ_READ_WRITE_BACK_H
#define PK_FUZZ_READ_WRITE_BACK_H

#include <stddef.h>
#include <stdint.h>

#include "formats/formats.h"
#include "profkit/format.h"
#include "write_back.h"

static void read_write_back(const pk_format *format, const uint8_t *data, size_t size)
{
    format->probe(data, size < PK_PROBE_BYTES ? size : PK_PROBE_BYTES);
    for (int mode = 0; mode < 2; mode++) {
        pk_read_options options = {0};
        options.salvage = mode == 1;
        pk_profile *p = NULL;
        pk_error err;
        if (pk_read_memory(data, size, format, &options, &p, &err) == PK_OK && p) {
            write_back(p, &pk_format_folded);
            if (mode == 0)
                write_back(p, &pk_format_firefox);
        }
        pk_profile_free(p);
    }
}

#endif
