/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for the perf script reader: any bytes, with and without salvage and with
 * the root and annotation options; the probe sees the first bytes; what is read is written back
 * as folded stacks (the FlameGraph tidying) and, for a quarter of the inputs (these writers are
 * slow enough to slow the search down), pprof and the Firefox Profiler's JSON.
 *
 * The reads run as on one processor (one_processor.h), where the splitter hands each piece
 * over on this thread: a worker thread per read made this harness wait on the scheduler. An
 * eighth of the inputs are also read with the splitter on its worker thread and batches (when
 * the machine has two processors), which must give the same outcome, error and model. */
#include "one_processor.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "formats/formats.h"
#include "profkit/format.h"
#include "same_threaded.h"
#include "write_back.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pk_format_perf_script.probe(data, size < PK_PROBE_BYTES ? size : PK_PROBE_BYTES);
    static const pk_option choices[][2] = {
        {{"perf-tid", ""}, {"perf-all", ""}},
        {{"perf-no-root", ""}, {"perf-kernel", ""}},
    };
    bool threaded_too = (size & 7) == 5;
    for (int mode = 0; mode < 2; mode++) {
        pk_read_options options = {0};
        options.salvage = mode == 1;
        if (size > 0 && (data[0] & 1)) {
            options.extra.items = choices[(data[0] >> 1) & 1];
            options.extra.count = 2;
        }
        pk_profile *p = NULL;
        pk_error err;
        memset(&err, 0, sizeof err);
        one_processor_begin();
        pk_status status = pk_read_memory(data, size, &pk_format_perf_script, &options, &p, &err);
        one_processor_end();
        if (threaded_too && mode == 1)
            expect_same_threaded(&pk_format_perf_script, data, size, &options, status, &err, p);
        if (status == PK_OK && p) {
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
