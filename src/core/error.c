/* SPDX-License-Identifier: MIT */
#include "profkit/error.h"

#include <stdio.h>
#include <string.h>

pk_status pk_error_vset(pk_error *err, pk_status status, int64_t offset, const char *fmt,
                        va_list ap)
{
    if (!err)
        return status;
    err->status = status;
    err->offset = offset;
    err->salvageable = false;
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    return status;
}

pk_status pk_error_set(pk_error *err, pk_status status, int64_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pk_error_vset(err, status, offset, fmt, ap);
    va_end(ap);
    return status;
}

void pk_error_clear(pk_error *err)
{
    if (!err)
        return;
    err->status = PK_OK;
    err->offset = PK_NO_OFFSET;
    err->salvageable = false;
    err->message[0] = '\0';
}

const char *pk_status_name(pk_status status)
{
    switch (status) {
    case PK_OK:
        return "success";
    case PK_ERR_INPUT:
        return "bad input";
    case PK_ERR_IO:
        return "I/O error";
    case PK_ERR_NOMEM:
        return "out of memory";
    case PK_ERR_USAGE:
        return "usage error";
    case PK_ERR_UNSUPPORTED:
        return "not supported";
    case PK_ERR_LIMIT:
        return "limit exceeded";
    }
    return "unknown error";
}
