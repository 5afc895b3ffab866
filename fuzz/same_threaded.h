/* SPDX-License-Identifier: MIT */
/* For the harnesses of readers that hand work to a worker thread when a second processor is
 * there (core/batch_ring.h) and read on one processor otherwise (one_processor.h): the read
 * made with the worker thread must give the outcome, error and model the read on one processor
 * gave, or the harness aborts with both. Include after one_processor.h. */
#ifndef PK_FUZZ_SAME_THREADED_H
#define PK_FUZZ_SAME_THREADED_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile_diff.h"
#include "profkit/format.h"

static void expect_same_threaded(const pk_format *format, const uint8_t *data, size_t size,
                                 const pk_read_options *options, pk_status status,
                                 const pk_error *err, const pk_profile *p)
{
    pk_profile *threaded = NULL;
    pk_error threaded_err;
    memset(&threaded_err, 0, sizeof threaded_err);
    pk_status threaded_status = pk_read_memory(data, size, format, options, &threaded, &threaded_err);
    const char *difference = NULL;
    if (threaded_status != status || threaded_err.offset != err->offset ||
        threaded_err.salvageable != err->salvageable ||
        strcmp(threaded_err.message, err->message) != 0)
        difference = "the outcome or the error differs";
    else if (!threaded != !p)
        difference = "one read made a profile, the other none";
    else if (p)
        difference = tb_profile_difference(p, threaded);
    if (difference) {
        fprintf(stderr, "%s read on one thread: %d at %lld (%s); with the worker thread: %d at "
                        "%lld (%s): %s\n",
                format->name, (int)status, (long long)err->offset, err->message,
                (int)threaded_status, (long long)threaded_err.offset, threaded_err.message,
                difference);
        abort();
    }
    pk_profile_free(threaded);
}

#endif
