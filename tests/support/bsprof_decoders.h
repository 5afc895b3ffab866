/* SPDX-License-Identifier: MIT */
/* Reading .bsprof bytes with each of the reader's decoders for CPU and call-count entries: the
 * wide one where this processor runs it (else the byte-wise loop again) and the byte-wise loop
 * that every other processor runs. For the unit test and the fuzz harness that check they agree
 * (no test runner: it returns what differs). */
#ifndef PK_TEST_BSPROF_DECODERS_H
#define PK_TEST_BSPROF_DECODERS_H

#include <stdbool.h>
#include <stddef.h>

/* NULL when both reads of [data, data + size) end alike (status, error offset, salvageability
 * and message) with the same model, else a description of the first difference (a static
 * buffer, valid until the next call). */
const char *tb_bsprof_decoders_difference(const void *data, size_t size, bool salvage);

#endif
