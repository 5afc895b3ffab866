/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for the BR profiler reader and dump. Whatever it reads must write back as a
 * BR file that reads again with the same totals. */
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
    pk_format_br.dump(&in, &out, raw, NULL, &err);
    pk_output_abort(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pk_format_br.probe(data, size < PK_PROBE_BYTES ? size : PK_PROBE_BYTES);
    dump(data, size, false);
    dump(data, size, true);
    /* The first byte's low bits pick the options; the whole input is still read. */
    unsigned pick = size ? data[0] : 0;
    pk_option extra[2] = {
        {"br-backtrace-order", pick & 2 ? "outermost-first" : "innermost-first"},
        {"br-names", pick & 4 ? "line" : "function"},
    };
    pk_read_options options = {.salvage = pick & 1, .extra = {extra, 2}};
    pk_profile *p = NULL;
    pk_error err;
    if (pk_read_memory(data, size, &pk_format_br, &options, &p, &err) != PK_OK)
        return 0;
    char *written = NULL;
    size_t written_size = 0;
    pk_write_options write_options = {.value = PK_NONE, .with_threads = pick & 8};
    pk_status st = pk_write_memory(p, &pk_format_br, &write_options, &written, &written_size, &err);
    if (st == PK_OK && written_size > 0) {
        pk_read_options plain = {.extra = {extra, 2}};
        pk_profile *q = NULL;
        if (pk_read_memory(written, written_size, &pk_format_br, &plain, &q, &err) != PK_OK)
            abort();
        for (uint32_t v = 0; v < pk_value_type_count(p); v++)
            if (pk_value_total(p, v) != pk_value_total(q, pk_value_find(q, pk_str(p, pk_value_type_at(p, v)->name))))
                abort();
        pk_profile_free(q);
    }
    free(written);
    /* And through the other writer of this family. */
    if (pk_write_memory(p, &pk_format_sampler, &write_options, &written, &written_size, &err) == PK_OK)
        free(written);
    pk_profile_free(p);
    return 0;
}
