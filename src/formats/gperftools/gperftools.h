/* SPDX-License-Identifier: MIT */
/* The parts of the gperftools format (pk_format_gperftools, registered in gperftools.c): the
 * reader, the writer and the dump; the probe and the decoding they share are in codec.h. */
#ifndef PK_FORMATS_GPERFTOOLS_GPERFTOOLS_H
#define PK_FORMATS_GPERFTOOLS_GPERFTOOLS_H

#include <stdbool.h>

#include "profkit/format.h"

pk_status gp_read(pk_input *in, pk_profile *p, const pk_read_options *options, pk_error *err);
pk_status gp_write(const pk_profile *p, pk_output *out, const pk_write_options *options,
                   pk_error *err);
pk_status gp_dump(pk_input *in, pk_output *out, bool raw, const pk_read_options *options,
                  pk_error *err);

#endif
