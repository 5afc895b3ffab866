/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for the legacy text reader (gperftools and jemalloc heap profiles,
 * contention profiles, thread listings): any bytes, with and without salvage (without reading
 * binaries: the maps text would name arbitrary files), written back (read_write_back.h) and as
 * pprof, which carries every value. */
#include <stddef.h>
#include <stdint.h>

#include "read_write_back.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    read_write_back(&pk_format_legacy_text, data, size);
    pk_profile *p = NULL;
    pk_error err;
    pk_read_options options = {0};
    options.salvage = true;
    if (pk_read_memory(data, size, &pk_format_legacy_text, &options, &p, &err) == PK_OK && p)
        write_back(p, &pk_format_pprof);
    pk_profile_free(p);
    return 0;
}
