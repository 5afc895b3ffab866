/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for the heaptrack reader (heaptrack.NAME.PID recordings, plain or through
 * the zstd and gzip filters): any bytes, with and without salvage, written back
 * (read_write_back.h). */
#include <stddef.h>
#include <stdint.h>

#include "read_write_back.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    read_write_back(&pk_format_heaptrack, data, size);
    return 0;
}
