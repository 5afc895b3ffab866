/* SPDX-License-Identifier: MIT */
/* Where profkit writes: a file, standard output, or memory.
 *
 * A file output is written to an unnamed or temporary file beside the final path and appears
 * under its name only when pk_output_finish succeeds: a failed or interrupted run leaves any
 * old file of that name as it was, and never writes over protect_path (the input). Write calls
 * do not fail one by one: the first error is remembered and reported by pk_output_finish.
 * Outputs may be compressed with gzip on the way out.
 */
#ifndef PROFKIT_OUTPUT_H
#define PROFKIT_OUTPUT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "profkit/error.h"
#include "profkit/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pk_output pk_output;

typedef enum pk_compression {
    PK_COMPRESSION_AUTO = 0, /* writing a profile: gzip when the path ends in ".gz" or the
                              * format is usually compressed (pprof); otherwise none */
    PK_COMPRESSION_NONE,
    PK_COMPRESSION_GZIP
} pk_compression;

typedef struct pk_output_options {
    const char *protect_path;     /* never written over (the input); NULL = none */
    pk_compression compression;   /* AUTO here means: gzip when the path ends in ".gz" */
    int compression_level;        /* gzip level 1-9; 0 = 1, the fastest; any other is refused
                                   * (PK_ERR_USAGE) */
} pk_output_options;

/* Opens path for writing ("-" = standard output); options may be NULL. On success *out is a
 * new output that pk_output_finish or pk_output_discard ends. */
PK_API pk_status pk_output_create(const char *path, const pk_output_options *options,
                                  pk_output **out, pk_error *err);
/* An output into a growing memory buffer; NULL when memory runs out. */
PK_API pk_output *pk_output_create_memory(void);

PK_API void pk_output_write(pk_output *out, const void *data, size_t size);
PK_API void pk_output_printf(pk_output *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* True once a write has failed (the output will not be committed). */
PK_API bool pk_output_failed(const pk_output *out);

/* Completes the output: flushes and, for a file, syncs it and gives it its name. On failure
 * nothing appears at the path. Frees out either way. */
PK_API pk_status pk_output_finish(pk_output *out, pk_error *err);
/* Completes a memory output: *data receives the bytes (malloc'ed, NUL-terminated, the NUL not
 * counted in *size), which the caller frees. Frees out either way. */
PK_API pk_status pk_output_finish_memory(pk_output *out, char **data, size_t *size,
                                         pk_error *err);
/* Abandons the output: nothing appears at the path. NULL is allowed. */
PK_API void pk_output_discard(pk_output *out);

/* For programs: outputs being written when SIGINT, SIGTERM, SIGHUP or SIGXFSZ end the run leave
 * nothing behind (where unnamed files cannot be used and a named temporary is). The signals
 * then take their default course. Signals the program already handles or ignores are left as
 * they are. */
PK_API void pk_output_remove_on_signals(void);

#ifdef __cplusplus
}
#endif

#endif
