/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for the perf.data reader: any bytes, with and without salvage (in memory,
 * file and pipe layouts alike, zstd records too; kernel frames left unnamed, user stacks not
 * unwound), then the record dump raw and resolved. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/input.h"
#include "core/output.h"
#include "formats/formats.h"
#include "profkit/format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void dump(const uint8_t *data, size_t size, bool raw)
{
    pk_input in;
    pk_input_init_memory(&in, data, size);
    pk_output out;
    pk_output_init_memory(&out);
    pk_error err;
    pk_format_perf_data.dump(&in, &out, raw, NULL, &err);
    pk_output_commit(&out, &err);
    size_t n;
    free(pk_output_take_memory(&out, &n));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pk_format_perf_data.probe(data, size < PK_PROBE_BYTES ? size : PK_PROBE_BYTES);
    for (int mode = 0; mode < 2; mode++) {
        pk_read_options options = {0};
        options.salvage = mode == 1;
        /* Kernel frames stay unnamed and user stacks not unwound: this machine's kallsyms and
         * binaries are no part of the input (the registers and stack copy are still parsed). */
        static const pk_option hermetic[] = {{"no-kallsyms", ""}, {"no-unwind", ""}};
        options.extra.items = hermetic;
        options.extra.count = 2;
        pk_profile *p = NULL;
        pk_error err;
        pk_read_memory(data, size, &pk_format_perf_data, &options, &p, &err);
        pk_profile_free(p);
    }
    dump(data, size, true);
    dump(data, size, false);
    return 0;
}
