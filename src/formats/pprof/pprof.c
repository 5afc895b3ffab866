/* SPDX-License-Identifier: MIT */
/* pprof's profile.proto (package perftools.profiles): the format's entry in the registry. */
#include "formats/formats.h"
#include "formats/pprof/pprof.h"

static const char *const pprof_extensions[] = {".pb.gz", ".pprof", ".pb", NULL};

const pk_format pk_format_pprof = {
    .name = "pprof",
    .aliases = NULL,
    .extensions = pprof_extensions,
    .description = "pprof profile.proto (gzip-compressed or plain), as go tool pprof reads",
    .flags = PK_FORMAT_GZIP_BY_DEFAULT,
    .probe = pprof_probe,
    .read = pprof_read,
    .write = pprof_write,
    .dump = pprof_dump,
    .read_options = NULL,
    .write_options = NULL,
};
