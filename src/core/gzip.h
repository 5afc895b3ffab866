/* SPDX-License-Identifier: MIT */
/* gzip as a filter of the I/O layer: any input is read through it when its first bytes are
 * gzip's magic number, and any output can be written through it. Concatenated gzip members
 * read as one stream, as `gzip -d` reads them. */
#ifndef PK_CORE_GZIP_H
#define PK_CORE_GZIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/input.h"
#include "profkit/error.h"

/* True when data starts like a gzip member (magic 1f 8b, method deflate). */
bool pk_gzip_detect(const uint8_t *data, size_t size);

/* Makes *out an input of the decompressed bytes of compressed, which must stay alive (and is
 * not released) while out is used. Damaged or cut-off compressed data ends out early, with the
 * failure recorded (its offset in the compressed bytes). Bytes after the last member are
 * ignored; pk_gzip_trailing_bytes tells whether there were any. */
pk_status pk_input_init_gzip(pk_input *out, pk_input *compressed, pk_error *err);
/* True when bytes that are not gzip data followed the last member of a gzip input. */
bool pk_gzip_trailing_bytes(const pk_input *gzip_input);

/* The compressing side, used by the output (output.c): a gzip member, written in pieces. */
typedef struct pk_deflate pk_deflate;
typedef void (*pk_deflate_emit_fn)(void *context, const void *data, size_t size);

/* A compressor at level 1-9 (0 = 1); NULL when memory runs out. */
pk_deflate *pk_deflate_new(int level);
/* Compresses size bytes, handing compressed bytes to emit as they come; finish ends the
 * member. False when memory runs out. */
bool pk_deflate_run(pk_deflate *d, const void *data, size_t size, bool finish,
                    pk_deflate_emit_fn emit, void *context);
/* Ends the worker, if any (after its last job). */
void pk_deflate_free(pk_deflate *d);

/* Compressing beside the caller. pk_deflate_start_worker starts a thread that runs the jobs of
 * pk_deflate_post; it declines (false) when the process may use only one processor, where the
 * thread would gain nothing. Jobs run one at a time, in order, and make the same bytes as
 * pk_deflate_run; their emit is called on the worker. */
bool pk_deflate_start_worker(pk_deflate *d);
/* Waits for the previous job and queues this one (without a worker: runs it now). data must
 * stay as it is until pk_deflate_wait returns or the next post. False when an earlier job ran
 * out of memory. */
bool pk_deflate_post(pk_deflate *d, const void *data, size_t size, bool finish,
                     pk_deflate_emit_fn emit, void *context);
/* Waits until every posted job is done. False when one ran out of memory. */
bool pk_deflate_wait(pk_deflate *d);

#endif
