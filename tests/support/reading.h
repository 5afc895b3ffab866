/* SPDX-License-Identifier: MIT */
/* Reading a profile file in a given format as the command does: the options are pk_option
 * pairs, "symbol-path" and "no-symbols" steer the symbolization pass that follows the read
 * (as the command's --symbol-path and --no-symbols do), and the others are format options. */
#ifndef PK_TEST_READING_H
#define PK_TEST_READING_H

#include <stdbool.h>
#include <stddef.h>

#include "profkit/format.h"
#include "profkit/profile.h"

/* The profile at path, or NULL with *status and *err set. */
pk_profile *tb_read_file_with(const char *path, const pk_format *format, const pk_option *options,
                              size_t count, pk_status *status, pk_error *err);
/* The same for bytes in memory. */
pk_profile *tb_read_memory_with(const void *data, size_t size, const pk_format *format,
                                const pk_option *options, size_t count, bool salvage,
                                pk_status *status, pk_error *err);
/* The profile of text read as format (salvage off); a failure ends the test. */
pk_profile *tb_read_text_ok(const pk_format *format, const char *text);
/* The profile of tests/data/RELATIVE read as format (salvage off, no symbolization); a failure
 * ends the test. */
pk_profile *tb_read_data_ok(const pk_format *format, const char *relative);
/* True when one of p's warnings contains needle. */
bool tb_has_warning(const pk_profile *p, const char *needle);

#endif
