/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for the callgrind reader: any bytes, with and without salvage; what is read
 * is written back as folded stacks and speedscope JSON (every stack and value walked). */
#include <stddef.h>
#include <stdint.h>

#include "formats/formats.h"
#include "profkit/format.h"
#include "write_back.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pk_format_callgrind.probe(data, size < PK_PROBE_BYTES ? size : PK_PROBE_BYTES);
    for (int mode = 0; mode < 2; mode++) {
        pk_read_options options = {0};
        options.salvage = mode == 1;
        pk_profile *p = NULL;
        pk_error err;
        if (pk_read_memory(data, size, &pk_format_callgrind, &options, &p, &err) == PK_OK && p) {
            write_back(p, &pk_format_folded);
            if (mode == 0)
                write_back(p, &pk_format_speedscope);
        }
        pk_profile_free(p);
    }
    return 0;
}
