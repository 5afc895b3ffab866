/* SPDX-License-Identifier: MIT */
/* Status codes and error details shared by every profkit call. */
#ifndef PROFKIT_ERROR_H
#define PROFKIT_ERROR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "profkit/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pk_status {
    PK_OK = 0,
    PK_ERR_INPUT,       /* the input bytes are not a valid file of the format */
    PK_ERR_IO,          /* reading or writing failed at the operating system */
    PK_ERR_NOMEM,       /* an allocation failed */
    PK_ERR_USAGE,       /* the caller asked for something impossible (unknown value, bad option) */
    PK_ERR_UNSUPPORTED, /* the format cannot carry this profile (e.g. no addresses) */
    PK_ERR_LIMIT        /* a count exceeds what profkit can represent */
} pk_status;

/* Where and why an operation failed. offset is a byte offset into the input, or -1 when the
 * failure has no position (I/O errors, usage errors). salvageable is set for damage in the
 * middle of an input: what was read before offset is sound, and reading with salvage keeps
 * it. */
typedef struct pk_error {
    pk_status status;
    int64_t offset;
    bool salvageable;
    char message[512];
} pk_error;

#define PK_NO_OFFSET (-1)

/* Records an error (not salvageable) and returns status, so that callers can write
 * `return pk_error_set(...)`. A NULL err is allowed. The message is printf-formatted. */
PK_API pk_status pk_error_set(pk_error *err, pk_status status, int64_t offset, const char *fmt,
                             ...) __attribute__((format(printf, 4, 5)));
PK_API pk_status pk_error_vset(pk_error *err, pk_status status, int64_t offset, const char *fmt,
                              va_list ap) __attribute__((format(printf, 4, 0)));
PK_API void pk_error_clear(pk_error *err);

/* A short English name of a status ("bad input", "I/O error", ...). */
PK_API const char *pk_status_name(pk_status status);

#ifdef __cplusplus
}
#endif

#endif
