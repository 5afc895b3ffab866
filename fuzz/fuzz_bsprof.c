/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for the .bsprof reader and dump: any bytes, with and without salvage. What
 * is read is written back as .bsprof, and that output must read again without error. The
 * reader's two decoders of CPU and call-count entries, the wide one where this processor runs
 * it and the byte-wise loop of every other processor, must read the bytes alike: the same
 * outcome, error offset and model. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "bsprof_decoders.h"
#include "core/output.h"
#include "formats/formats.h"
#include "profkit/format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void write_and_read_back(const pk_profile *p)
{
    pk_write_options options = {0};
    options.value = PK_NONE;
    char *out = NULL;
    size_t out_size = 0;
    pk_error err;
    if (pk_write_memory(p, &pk_format_bsprof, &options, &out, &out_size, &err) == PK_OK) {
        pk_read_options strict = {0};
        pk_profile *again = NULL;
        if (pk_read_memory(out, out_size, &pk_format_bsprof, &strict, &again, &err) != PK_OK)
            abort(); /* the writer produced a file its own reader rejects */
        pk_profile_free(again);
    }
    free(out);
}

/* Through an opened reader, as the command dumps: with salvage, the damage line is its. */
static void dump(const uint8_t *data, size_t size, bool raw, bool salvage)
{
    pk_reader *r;
    pk_output out;
    pk_error err;
    pk_read_options options = {0};
    options.salvage = salvage;
    if (pk_reader_open_memory(data, size, &pk_format_bsprof, &r, &err) != PK_OK)
        return;
    pk_output_init_memory(&out);
    pk_reader_dump(r, raw, &options, &out, &err);
    pk_reader_close(r);
    pk_output_abort(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pk_format_bsprof.probe(data, size < PK_PROBE_BYTES ? size : PK_PROBE_BYTES);
    for (int mode = 0; mode < 2; mode++) {
        pk_read_options options = {0};
        options.salvage = mode == 1;
        pk_profile *p = NULL;
        pk_error err;
        if (pk_read_memory(data, size, &pk_format_bsprof, &options, &p, &err) == PK_OK && p)
            write_and_read_back(p);
        pk_profile_free(p);
        const char *difference = tb_bsprof_decoders_difference(data, size, options.salvage);
        if (difference) {
            fprintf(stderr, "the decoders differ: %s\n", difference);
            abort();
        }
    }
    dump(data, size, size > 0 && (data[size - 1] & 1), size > 0 && (data[size - 1] & 2));
    return 0;
}
