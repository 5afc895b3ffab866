/* SPDX-License-Identifier: MIT */
/* simpleperf reports: probe and registration (simpleperf.h). */
#include <string.h>

#include "formats/formats.h"
#include "formats/simpleperf/simpleperf.h"

static const char *const simpleperf_aliases[] = {"simpleperf-report", NULL};

/* The magic, then the version as a little-endian u16: certain for the version simpleperf
 * writes, likely for another (which the reader then refuses with its number). */
static int simpleperf_probe(const uint8_t *data, size_t size)
{
    if (size < SIMPLEPERF_MAGIC_LEN || memcmp(data, SIMPLEPERF_MAGIC, SIMPLEPERF_MAGIC_LEN) != 0)
        return PK_PROBE_NO;
    if (size >= SIMPLEPERF_MAGIC_LEN + 2 && data[SIMPLEPERF_MAGIC_LEN] == SIMPLEPERF_VERSION &&
        data[SIMPLEPERF_MAGIC_LEN + 1] == 0)
        return PK_PROBE_CERTAIN;
    return PK_PROBE_LIKELY;
}

const pk_format pk_format_simpleperf = {
    .name = "simpleperf",
    .aliases = simpleperf_aliases,
    /* simpleperf names its output report_sample.trace, as ART names method traces: the probe,
     * not the extension, tells them apart */
    .extensions = NULL,
    .description = "simpleperf report-sample --protobuf (Android's native and Java sampling "
                   "profiler, as Android Studio and the Firefox Profiler read it)",
    .flags = 0,
    .probe = simpleperf_probe,
    .read = simpleperf_read,
    .write = NULL,
    .dump = NULL,
    .read_options = NULL,
    .write_options = NULL,
};
