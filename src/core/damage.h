/* SPDX-License-Identifier: MIT */
/* Damage and salvage, decided in one place.
 *
 * A reader that finds bytes it cannot read in the middle of an input reports the damage with
 * pk_damage and its byte offset, stops decoding, completes the profile from what it read
 * before (every record before the damage is whole), and returns PK_ERR_INPUT. Whole-file
 * reading then applies the policy (pk_salvage): with salvage asked for, the profile is kept
 * and the damage becomes one warning; otherwise the profile is discarded and the error stands.
 * Errors that leave nothing worth keeping (not the format at all, a broken header) are plain
 * pk_error_set errors: salvage does not apply to them, and messages do not suggest it.
 */
#ifndef PK_CORE_DAMAGE_H
#define PK_CORE_DAMAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "profkit/error.h"
#include "profkit/format.h"
#include "profkit/profile.h"

/* Records damage at offset (PK_ERR_INPUT, salvageable) and returns PK_ERR_INPUT. */
pk_status pk_damage(pk_error *err, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The policy, applied to what a reader returned: turns salvageable damage into a warning of p
 * and PK_OK when options ask for salvage; returns status unchanged otherwise. offsets_of names
 * the bytes offsets count when they are not the stored ones ("decompressed bytes"), which the
 * messages then say; NULL when they are. */
pk_status pk_salvage(pk_profile *p, const pk_read_options *options, pk_status status,
                     pk_error *err, const char *offsets_of);

/* The same for a record dump: the damage is printed as the last record (by the caller) and
 * the dump succeeds when salvage is asked for. */
bool pk_salvage_applies(const pk_read_options *options, pk_status status, const pk_error *err);

#endif
