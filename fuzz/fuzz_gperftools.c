/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for the gperftools CPU profile reader: any bytes, with and without
 * salvage (without reading binaries: the maps text would name arbitrary files); what is read is
 * written back in both word sizes and byte orders, and the bytes are dumped raw and resolved.
 * The bytes are also read as maps text on their own (core/procmaps.h), which the reader only
 * reaches after a trailer. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/input.h"
#include "core/output.h"
#include "core/procmaps.h"
#include "formats/formats.h"
#include "profkit/format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void write_back(const pk_profile *p, bool narrow, bool big)
{
    pk_option items[2];
    size_t count = 0;
    if (narrow)
        items[count++] = (pk_option){"word-size", "32"};
    if (big)
        items[count++] = (pk_option){"big-endian", ""};
    pk_write_options options = {0};
    options.value = PK_NONE;
    options.extra.items = items;
    options.extra.count = count;
    char *out = NULL;
    size_t out_size = 0;
    pk_error err;
    pk_write_memory(p, &pk_format_gperftools, &options, &out, &out_size, &err);
    free(out);
}

static void dump(const uint8_t *data, size_t size, bool raw)
{
    pk_input in;
    pk_input_init_memory(&in, data, size);
    pk_output out;
    pk_output_init_memory(&out);
    pk_error err;
    pk_format_gperftools.dump(&in, &out, raw, NULL, &err);
    pk_output_commit(&out, &err);
    size_t n;
    free(pk_output_take_memory(&out, &n));
}

static void maps_text(const uint8_t *data, size_t size)
{
    pk_procmaps maps;
    pk_procmaps_init(&maps);
    pk_input in;
    pk_input_init_memory(&in, data, size);
    pk_error err;
    if (pk_procmaps_read(&maps, &in, &err) == PK_OK) {
        for (size_t i = 0; i < maps.count; i++)
            if (pk_procmaps_find(&maps, maps.items[i].start) == PK_PROCMAPS_NONE)
                abort(); /* every mapping holds its own start */
        pk_procmaps_program(&maps);
    }
    pk_procmaps_free(&maps);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pk_format_gperftools.probe(data, size < PK_PROBE_BYTES ? size : PK_PROBE_BYTES);
    for (int mode = 0; mode < 2; mode++) {
        pk_read_options options = {0};
        options.salvage = mode == 1;
        pk_profile *p = NULL;
        pk_error err;
        if (pk_read_memory(data, size, &pk_format_gperftools, &options, &p, &err) == PK_OK && p) {
            write_back(p, mode == 1, size > 0 && (data[size - 1] & 1));
        }
        pk_profile_free(p);
    }
    dump(data, size, true);
    dump(data, size, false);
    maps_text(data, size);
    return 0;
}
