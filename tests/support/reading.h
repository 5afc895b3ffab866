/* Reading a profile file in a given format with format options (pk_option pairs, as the command
 * passes --symbol-path and --no-symbols), and looking for a warning among those it left. */
#ifndef PK_TEST_READING_H
#define PK_TEST_READING_H

#include <stdbool.h>
#include <stddef.h>

#include "profkit/format.h"
#include "profkit/profile.h"

/* The profile at path, or NULL with *status and *err set. */
pk_profile *tb_read_file_with(const char *path, const pk_format *format, const pk_option *options,
                              size_t count, pk_status *status, pk_error *err);
/* True when one of p's warnings contains needle. */
bool tb_has_warning(const pk_profile *p, const char *needle);

#endif
