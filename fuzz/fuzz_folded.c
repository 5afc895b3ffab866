/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for the folded stacks reader: any bytes, with and without salvage and the
 * thread-roots option; what is read is written back as folded stacks, speedscope JSON and a
 * flame graph (a differential one for lines with two counts). The bytes are also read as after
 * probing, the format not given, where the reader judges whether they are folded stacks. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/input.h"
#include "formats/formats.h"
#include "profkit/format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void write_back(const pk_profile *p, const pk_format *format, bool with_threads)
{
    pk_write_options options = {0};
    options.value = PK_NONE;
    options.with_threads = with_threads;
    char *out = NULL;
    size_t out_size = 0;
    pk_error err;
    pk_write_memory(p, format, &options, &out, &out_size, &err);
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pk_format_folded.probe(data, size < PK_PROBE_BYTES ? size : PK_PROBE_BYTES);
    for (int mode = 0; mode < 2; mode++) {
        pk_option thread_roots = {"folded-threads", ""};
        pk_read_options options = {0};
        options.salvage = mode == 1;
        if (size > 0 && (data[0] & 1)) {
            options.extra.items = &thread_roots;
            options.extra.count = 1;
        }
        pk_profile *p = NULL;
        pk_error err;
        if (pk_read_memory(data, size, &pk_format_folded, &options, &p, &err) == PK_OK && p) {
            write_back(p, &pk_format_folded, mode == 1);
            write_back(p, &pk_format_speedscope, false);
            write_back(p, &pk_format_svg, mode == 0);
        }
        pk_profile_free(p);
    }
    pk_input in;
    pk_input_init_memory(&in, data, size);
    pk_read_options judged = {0};
    pk_error err;
    pk_profile *p = pk_profile_new();
    if (p)
        pk_format_folded.read(&in, p, &judged, &err);
    pk_input_release(&in);
    pk_profile_free(p);
    return 0;
}
