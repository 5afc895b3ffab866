/* SPDX-License-Identifier: MIT */
/* Java Flight Recorder recordings, read (jfr.h). */
#include <string.h>

#include "formats/formats.h"
#include "formats/jfr/jfr.h"

static const char *const jfr_extensions[] = {".jfr", NULL};

/* Every chunk starts with "FLR\0" and a major version of 1 or 2. */
static int jfr_probe(const uint8_t *data, size_t size)
{
    if (size < 8 || memcmp(data, "FLR\0", 4) != 0)
        return PK_PROBE_NO;
    return data[4] == 0 && (data[5] == 1 || data[5] == 2) ? PK_PROBE_CERTAIN : PK_PROBE_LIKELY;
}

const pk_format pk_format_jfr = {
    .name = "jfr",
    .aliases = NULL,
    .extensions = jfr_extensions,
    .description = "Java Flight Recorder recordings (JDK, async-profiler): CPU, native, "
                   "allocation, lock and park samples",
    .flags = PK_FORMAT_SHOWS_TIME,
    .probe = jfr_probe,
    .read = jfr_read,
    .write = NULL,
    .dump = NULL,
    .read_options = NULL,
    .write_options = NULL,
};
