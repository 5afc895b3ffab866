/* SPDX-License-Identifier: MIT */
/* The Sampler format in the registry: recognised by its first line, read, written and dumped. */
#include <string.h>

#include "formats/formats.h"
#include "formats/sampler/sampler.h"

static int sm_probe(const uint8_t *data, size_t size)
{
    size_t n = sizeof SM_MAGIC - 1;
    if (size >= n && memcmp(data, SM_MAGIC, n) == 0)
        return PK_PROBE_CERTAIN;
    /* A file cut inside its first line still starts like one. */
    if (size >= 12 && size < n && memcmp(data, SM_MAGIC, size) == 0)
        return PK_PROBE_LIKELY;
    return PK_PROBE_NO;
}

static const char *const sm_extensions[] = {".sample", NULL};

static const pk_option_spec sm_read_option_specs[] = {
    {"sampler-order", "leaf-first|root-first",
     "frame order in sample rows (default: detected)"},
    {NULL, NULL, NULL},
};

const pk_format pk_format_sampler = {
    .name = "sampler",
    .aliases = NULL,
    .extensions = sm_extensions,
    .description = "Apple Sampler @supersamplerV1.0 file",
    .probe = sm_probe,
    .read = pk_sampler_read,
    .write = pk_sampler_write,
    .dump = pk_sampler_dump,
    .read_options = sm_read_option_specs,
    .write_options = NULL,
};
