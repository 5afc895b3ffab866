/* SPDX-License-Identifier: MIT */
/* The callgrind format's parts, shared by its files (format.c registers them). */
#ifndef PK_FORMATS_CALLGRIND_CALLGRIND_H
#define PK_FORMATS_CALLGRIND_CALLGRIND_H

#include <stddef.h>
#include <stdint.h>

#include "profkit/format.h"

int cg_probe(const uint8_t *data, size_t size);
pk_status cg_read(pk_input *in, pk_profile *p, const pk_read_options *options, pk_error *err);
pk_status cg_write(const pk_profile *p, pk_output *out, const pk_write_options *options,
                   pk_error *err);

#endif
