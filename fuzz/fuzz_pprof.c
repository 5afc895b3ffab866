/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for the pprof reader: any bytes, plain or gzip, strict and salvaging;
 * whatever reads is written back and read again. The bytes are also dumped field by field. */
#include <stdint.h>
#include <stdlib.h>

#include "formats/formats.h"
#include "profkit/format.h"
#include "profkit/output.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (int salvage = 0; salvage <= 1; salvage++) {
        pk_read_options options = {.salvage = salvage};
        pk_profile *p = NULL;
        pk_error err;
        if (pk_read_memory(data, size, &pk_format_pprof, &options, &p, &err) != PK_OK)
            continue;
        char *out = NULL;
        size_t out_size = 0;
        if (pk_write_memory(p, &pk_format_pprof, NULL, &out, &out_size, &err) == PK_OK) {
            pk_profile *again = NULL;
            if (pk_read_memory(out, out_size, &pk_format_pprof, NULL, &again, &err) != PK_OK)
                abort(); /* profkit must read what it writes */
            pk_profile_free(again);
        }
        free(out);
        pk_profile_free(p);
    }
    pk_reader *r;
    pk_error err;
    if (pk_reader_open_memory(data, size, &pk_format_pprof, &r, &err) == PK_OK) {
        pk_output *out = pk_output_create_memory();
        if (out) {
            pk_read_options options = {.salvage = true};
            pk_reader_dump(r, false, &options, out, &err);
            pk_output_discard(out);
        }
        pk_reader_close(r);
    }
    return 0;
}
