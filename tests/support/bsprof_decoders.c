/* SPDX-License-Identifier: MIT */
#include "bsprof_decoders.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "formats/bsprof/bsprof.h"
#include "formats/formats.h"
#include "profile_diff.h"
#include "profkit/format.h"

static char difference[1200];

const char *tb_bsprof_decoders_difference(const void *data, size_t size, bool salvage)
{
    pk_read_options options = {0};
    options.salvage = salvage;
    pk_profile *fastest = NULL, *bytewise = NULL;
    pk_error fastest_err, bytewise_err;
    memset(&fastest_err, 0, sizeof fastest_err);
    memset(&bytewise_err, 0, sizeof bytewise_err);
    pk_status fastest_status =
        pk_read_memory(data, size, &pk_format_bsprof, &options, &fastest, &fastest_err);
    pk_bsprof_force_bytewise(true);
    pk_status bytewise_status =
        pk_read_memory(data, size, &pk_format_bsprof, &options, &bytewise, &bytewise_err);
    pk_bsprof_force_bytewise(false);

    const char *found = NULL;
    /* The wide decoder fetching cells a window ahead, as it does once they are many. */
    pk_profile *batched = NULL;
    pk_error batched_err;
    memset(&batched_err, 0, sizeof batched_err);
    pk_bsprof_force_batched(true);
    pk_status batched_status =
        pk_read_memory(data, size, &pk_format_bsprof, &options, &batched, &batched_err);
    pk_bsprof_force_batched(false);
    if (batched_status != bytewise_status || batched_err.offset != bytewise_err.offset ||
        strcmp(batched_err.message, bytewise_err.message) != 0) {
        snprintf(difference, sizeof difference,
                 "fetching cells ahead: status %d at %" PRId64 " (%s) against %d at %" PRId64
                 " (%s)",
                 (int)batched_status, batched_err.offset, batched_err.message,
                 (int)bytewise_status, bytewise_err.offset, bytewise_err.message);
        found = difference;
    } else if (!batched != !bytewise) {
        found = "fetching cells ahead: one read made a profile, the other none";
    } else if (batched && (found = tb_profile_difference(batched, bytewise)) != NULL) {
        snprintf(difference, sizeof difference, "fetching cells ahead: %s", found);
        found = difference;
    }
    pk_profile_free(batched);
    if (found) {
        pk_profile_free(fastest);
        pk_profile_free(bytewise);
        return found;
    }
    if (fastest_status != bytewise_status || fastest_err.offset != bytewise_err.offset ||
        fastest_err.salvageable != bytewise_err.salvageable ||
        strcmp(fastest_err.message, bytewise_err.message) != 0) {
        snprintf(difference, sizeof difference,
                 "status %d at %" PRId64 " (%s) against %d at %" PRId64 " (%s)",
                 (int)fastest_status, fastest_err.offset, fastest_err.message,
                 (int)bytewise_status, bytewise_err.offset, bytewise_err.message);
        found = difference;
    } else if (!fastest != !bytewise) {
        found = "one read made a profile, the other none";
    } else if (fastest && (found = tb_profile_difference(fastest, bytewise)) != NULL) {
        snprintf(difference, sizeof difference, "%s", found);
        found = difference;
    }
    pk_profile_free(fastest);
    pk_profile_free(bytewise);
    return found;
}
