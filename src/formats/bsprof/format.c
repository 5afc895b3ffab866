/* SPDX-License-Identifier: MIT */
/* The .bsprof format in the registry: found by its magic, read, written and dumped. */
#include <string.h>

#include "formats/bsprof/bsprof.h"
#include "formats/formats.h"

static int bs_probe(const uint8_t *data, size_t size)
{
    return size >= BS_MAGIC_SIZE && memcmp(data, pk_bsprof_magic, BS_MAGIC_SIZE) == 0
               ? PK_PROBE_CERTAIN
               : PK_PROBE_NO;
}

static const char *const bs_extensions[] = {".bsprof", NULL};

const pk_format pk_format_bsprof = {
    .name = "bsprof",
    .aliases = NULL,
    .extensions = bs_extensions,
    .description = "Roku BrightScript profiler data: CPU, wall time, calls, memory, source lines",
    .probe = bs_probe,
    .read = pk_bsprof_read,
    .write = pk_bsprof_write,
    .flags = PK_FORMAT_LISTS_MEMORY_EVENTS,
    .dump = pk_bsprof_dump,
    .thread_id_name = "module",
};
