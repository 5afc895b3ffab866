/* SPDX-License-Identifier: MIT */
/* speedscope's JSON file format (https://www.speedscope.app/file-format-schema.json): read
 * (read.c) and written (write.c), registered in format.c. Documented in
 * docs/formats/speedscope.md. */
#ifndef PK_FORMATS_SPEEDSCOPE_SPEEDSCOPE_H
#define PK_FORMATS_SPEEDSCOPE_SPEEDSCOPE_H

#include "profkit/format.h"

#define SPEEDSCOPE_SCHEMA "https://www.speedscope.app/file-format-schema.json"

pk_status speedscope_read(pk_input *in, pk_profile *p, const pk_read_options *options,
                          pk_error *err);
pk_status speedscope_write(const pk_profile *p, pk_output *out, const pk_write_options *options,
                           pk_error *err);

#endif
