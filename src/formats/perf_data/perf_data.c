/* SPDX-License-Identifier: MIT */
/* Linux perf.data (`perf record`): the format's entry in the registry. codec.c decodes the
 * layout, layout.c reads what comes before the records, read.c makes the model, dump.c prints
 * the records. */
#include <string.h>

#include "formats/formats.h"
#include "formats/perf_data/perf_data.h"

static const char *const pd_extensions[] = {".data", NULL};
static const char *const pd_aliases[] = {"perf.data", "perfdata", NULL};

static int pd_probe(const uint8_t *data, size_t size)
{
    if (size < 16)
        return PK_PROBE_NO;
    bool little = memcmp(data, PD_MAGIC, 8) == 0;
    bool big = memcmp(data, "2ELIFREP", 8) == 0;
    if (!little && !big)
        return PK_PROBE_NO;
    uint64_t header_size = pd_u64(data + 8, big);
    return header_size == PD_PIPE_HEADER_SIZE || header_size >= PD_FILE_HEADER_SIZE
               ? PK_PROBE_CERTAIN
               : PK_PROBE_LIKELY;
}

static const pk_option_spec pd_read_options[] = {
    {"no-kallsyms", NULL, "leave kernel frames unnamed: read no /proc/kallsyms"},
    {"no-unwind", NULL, "leave --call-graph dwarf user stacks not unwound (their instruction "
                        "pointer alone)"},
    {NULL, NULL, NULL},
};

const pk_format pk_format_perf_data = {
    .name = "perf-data",
    .aliases = pd_aliases,
    .extensions = pd_extensions,
    .description = "Linux perf.data (perf record), file and pipe layouts, zstd-compressed "
                   "records; symbolized with libdw, DWARF callchains unwound with libdwfl",
    .flags = PK_FORMAT_POSITIVE_WEIGHTS,
    .probe = pd_probe,
    .read = pd_read,
    .write = NULL,
    .dump = pd_dump,
    .read_options = pd_read_options,
    .write_options = NULL,
};
