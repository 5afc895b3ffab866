/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for the perf script reader: any bytes, with and without salvage and with
 * the root and annotation options; the probe sees the first bytes; what is read is written back
 * as folded stacks (the FlameGraph tidying) and, for a quarter of the inputs (these writers are
 * slow enough to slow the search down), pprof and the Firefox Profiler's JSON. */
#include <stddef.h>
#include <stdint.h>

#include "formats/formats.h"
#include "profkit/format.h"
#include "write_back.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pk_format_perf_script.probe(data, size < PK_PROBE_BYTES ? size : PK_PROBE_BYTES);
    static const pk_option choices[][2] = {
        {{"perf-tid", ""}, {"perf-all", ""}},
        {{"perf-no-root", ""}, {"perf-kernel", ""}},
    };
    for (int mode = 0; mode < 2; mode++) {
        pk_read_options options = {0};
        options.salvage = mode == 1;
        if (size > 0 && (data[0] & 1)) {
            options.extra.items = choices[(data[0] >> 1) & 1];
            options.extra.count = 2;
        }
        pk_profile *p = NULL;
        pk_error err;
        if (pk_read_memory(data, size, &pk_format_perf_script, &options, &p, &err) == PK_OK &&
            p) {
            write_back(p, &pk_format_folded);
            if (mode == 1 && size > 0 && (data[size - 1] & 3) == 0) {
                write_back(p, &pk_format_pprof);
                write_back(p, &pk_format_firefox);
            }
        }
        pk_profile_free(p);
    }
    return 0;
}
