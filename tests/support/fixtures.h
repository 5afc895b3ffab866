/* SPDX-License-Identifier: MIT */
/* Reading the test data files under tests/data/ and running a format's record dump into text,
 * for the format tests. Failures end the test (cmocka's fail_msg is not used here, so the
 * support library stays independent of the test runner: it aborts with a message). */
#ifndef PK_TEST_FIXTURES_H
#define PK_TEST_FIXTURES_H

#include <stdbool.h>
#include <stddef.h>

#include "profkit/format.h"

/* Path of tests/data/RELATIVE in the source tree (PK_SOURCE_DIR); valid until the next call. */
const char *tb_data_path(const char *relative);
/* The whole file tests/data/RELATIVE, malloc'ed, NUL-terminated; *size excludes the NUL. */
char *tb_read_data_file(const char *relative, size_t *size);
/* The same for any path. */
char *tb_read_whole_file(const char *path, size_t *size);
/* The text format->dump prints for [data, data + size); *status receives what dump returned. */
char *tb_dump_text(const pk_format *format, const void *data, size_t size, bool raw,
                   pk_status *status, pk_error *err);

#endif
