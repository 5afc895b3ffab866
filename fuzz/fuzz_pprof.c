/* libFuzzer harness for the pprof reader: any bytes, plain or gzip, strict and salvaging;
 * whatever reads is written back and read again. */
#include <stdint.h>
#include <stdlib.h>

#include "formats/formats.h"
#include "profkit/format.h"

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
    return 0;
}
