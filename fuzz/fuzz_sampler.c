/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for the Apple Sampler reader and dump. Whatever it reads must write back as
 * a Sampler file that reads again with the same total and as many threads. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/input.h"
#include "core/output.h"
#include "formats/formats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void dump(const uint8_t *data, size_t size, bool raw)
{
    pk_input in;
    pk_output out;
    pk_error err;
    pk_input_init_memory(&in, data, size);
    pk_output_init_memory(&out);
    pk_format_sampler.dump(&in, &out, raw, NULL, &err);
    pk_output_abort(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pk_format_sampler.probe(data, size < PK_PROBE_BYTES ? size : PK_PROBE_BYTES);
    dump(data, size, false);
    dump(data, size, true);
    /* The last byte picks the options (the first is always '@' in interesting inputs). */
    unsigned pick = size ? data[size - 1] : 0;
    static const char *const orders[] = {NULL, "root-first", "leaf-first", NULL};
    pk_option extra = {"sampler-order", orders[(pick >> 1) & 3]};
    pk_read_options options = {.salvage = pick & 1, .extra = {&extra, extra.value ? 1 : 0}};
    pk_profile *p = NULL;
    pk_error err;
    if (pk_read_memory(data, size, &pk_format_sampler, &options, &p, &err) != PK_OK)
        return 0;
    char *written = NULL;
    size_t written_size = 0;
    pk_write_options write_options = {.value = PK_NONE};
    if (pk_write_memory(p, &pk_format_sampler, &write_options, &written, &written_size, &err) ==
        PK_OK) {
        pk_profile *q = NULL;
        if (pk_read_memory(written, written_size, &pk_format_sampler, NULL, &q, &err) != PK_OK)
            abort();
        if (pk_value_total(p, 0) != pk_value_total(q, 0) ||
            pk_thread_count(p) != pk_thread_count(q))
            abort();
        pk_profile_free(q);
        free(written);
    }
    if (pk_write_memory(p, &pk_format_br, &write_options, &written, &written_size, &err) == PK_OK)
        free(written);
    pk_profile_free(p);
    return 0;
}
