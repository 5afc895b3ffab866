/* SPDX-License-Identifier: MIT */
/* zstd as a filter of the I/O layer, beside gzip (gzip.h): any input is read through it when its
 * first bytes are a zstd frame's magic number (heaptrack writes its recordings so). Concatenated
 * and skippable frames read as one stream, as `zstd -d` reads them. */
#ifndef PK_CORE_ZSTD_H
#define PK_CORE_ZSTD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/input.h"
#include "profkit/error.h"

/* True when data starts like a zstd frame (magic 28 b5 2f fd). */
bool pk_zstd_detect(const uint8_t *data, size_t size);

/* Makes *out an input of the decompressed bytes of compressed, which must stay alive (and is
 * not released) while out is used. Damaged or cut-off compressed data ends out early, with the
 * failure recorded (its offset in the compressed bytes); so do bytes after the last frame that
 * are not a frame. */
pk_status pk_input_init_zstd(pk_input *out, pk_input *compressed, pk_error *err);

#endif
