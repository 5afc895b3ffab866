/* SPDX-License-Identifier: MIT */
#include "core/damage.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

pk_status pk_damage(pk_error *err, uint64_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pk_error_vset(err, PK_ERR_INPUT, offset > INT64_MAX ? INT64_MAX : (int64_t)offset, fmt, ap);
    va_end(ap);
    if (err)
        err->salvageable = true;
    return PK_ERR_INPUT;
}

bool pk_salvage_applies(const pk_read_options *options, pk_status status, const pk_error *err)
{
    return status == PK_ERR_INPUT && err->salvageable && options && options->salvage;
}

pk_status pk_salvage(pk_profile *p, const pk_read_options *options, pk_status status,
                     pk_error *err, const char *offsets_of)
{
    if (!pk_salvage_applies(options, status, err))
        return status;
    pk_warn(p, "damaged at byte %" PRId64 "%s%s%s: %s; kept what was read before it",
            err->offset, offsets_of ? " (counting " : "", offsets_of ? offsets_of : "",
            offsets_of ? ")" : "", err->message);
    pk_error_clear(err);
    return PK_OK;
}
