/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for the JFR reader: any bytes, probed, read with and without salvage (every
 * chunk's metadata, constant pools and events decoded); what is read is written back as folded
 * stacks, so every stack and value is walked.
 *
 * The reads run as on one processor (one_processor.h), where the reader loads each chunk on
 * this thread: a worker thread per read would make the harness wait on the scheduler. An eighth
 * of the inputs are also read with chunks loaded on the worker thread (when the machine has two
 * processors and the first chunk claims 64 KiB or more), which must give the same outcome,
 * error and model. */
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
    pk_format_jfr.probe(data, size < PK_PROBE_BYTES ? size : PK_PROBE_BYTES);
    bool threaded_too = (size & 7) == 5;
    for (int mode = 0; mode < 2; mode++) {
        pk_read_options options = {0};
        options.salvage = mode == 1;
        pk_profile *p = NULL;
        pk_error err;
        memset(&err, 0, sizeof err);
        one_processor_begin();
        pk_status status = pk_read_memory(data, size, &pk_format_jfr, &options, &p, &err);
        one_processor_end();
        if (threaded_too && mode == 1)
            expect_same_threaded(&pk_format_jfr, data, size, &options, status, &err, p);
        if (status == PK_OK && p)
            write_back(p, &pk_format_folded);
        pk_profile_free(p);
    }
    return 0;
}
