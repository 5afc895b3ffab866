/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for the JFR reader: any bytes, probed, read with and without salvage (every
 * chunk's metadata, constant pools and events decoded); what is read is written back as folded
 * stacks, so every stack and value is walked. */
#include <stddef.h>
#include <stdint.h>

#include "formats/formats.h"
#include "profkit/format.h"
#include "write_back.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pk_format_jfr.probe(data, size < PK_PROBE_BYTES ? size : PK_PROBE_BYTES);
    for (int mode = 0; mode < 2; mode++) {
        pk_read_options options = {0};
        options.salvage = mode == 1;
        pk_profile *p = NULL;
        pk_error err;
        if (pk_read_memory(data, size, &pk_format_jfr, &options, &p, &err) == PK_OK && p)
            write_back(p, &pk_format_folded);
        pk_profile_free(p);
    }
    return 0;
}
