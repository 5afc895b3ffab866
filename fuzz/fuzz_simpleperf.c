/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for the simpleperf report reader (the SIMPLEPERF magic, sized Record
 * messages unpacked by libprotobuf-c, frames named at the end through a profile copy): any
 * bytes, with and without salvage, written back (read_write_back.h). */
#include <stddef.h>
#include <stdint.h>

#include "read_write_back.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    read_write_back(&pk_format_simpleperf, data, size);
    return 0;
}
