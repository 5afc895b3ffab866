/* SPDX-License-Identifier: MIT */
/* gperftools CPU profiles (libprofiler's CPUPROFILE output): the format's entry in the
 * registry. codec.c decodes the binary part for read.c and dump.c; write.c writes it. */
#include "formats/formats.h"
#include "formats/gperftools/codec.h"
#include "formats/gperftools/gperftools.h"

static const char *const gp_extensions[] = {".prof", NULL};
static const char *const gp_aliases[] = {"gperf", NULL};

static const pk_option_spec gp_write_options[] = {
    {"word-size", "BITS", "slot size: 64 (default) or 32"},
    {"big-endian", NULL, "write big-endian slots (default little-endian)"},
    {NULL, NULL, NULL},
};

const pk_format pk_format_gperftools = {
    .name = "gperftools",
    .aliases = gp_aliases,
    .extensions = gp_extensions,
    .description = "gperftools (libprofiler, CPUPROFILE) CPU profile, symbolized with libdw",
    .flags = PK_FORMAT_POSITIVE_WEIGHTS,
    .probe = gp_probe,
    .read = gp_read,
    .write = gp_write,
    .dump = gp_dump,
    .read_options = NULL,
    .write_options = gp_write_options,
};
