/* SPDX-License-Identifier: MIT */
/* Checking gzip output: what a stream in memory decompresses to. */
#ifndef PK_TEST_GUNZIP_H
#define PK_TEST_GUNZIP_H

#include <stddef.h>

/* Asserts that the gzip stream [compressed, compressed + compressed_size) decompresses to the
 * size bytes of text, and to nothing more. */
void tb_assert_gunzips_to(const void *compressed, size_t compressed_size, const void *text,
                          size_t size);

#endif
