/* SPDX-License-Identifier: MIT */
/* Writing a profile back in a format, its output dropped: what the readers' libFuzzer harnesses
 * do with what they read, so that every stack and value is walked by a writer too. Included by
 * one harness each (a static function). */
#ifndef PK_FUZZ_WRITE_BACK_H
#define PK_FUZZ_WRITE_BACK_H

#include <stddef.h>
#include <stdlib.h>

#include "profkit/format.h"

static void write_back(const pk_profile *p, const pk_format *format)
{
    pk_write_options options = {0};
    options.value = PK_NONE;
    char *out = NULL;
    size_t out_size = 0;
    pk_error err;
    pk_write_memory(p, format, &options, &out, &out_size, &err);
    free(out);
}

#endif
