/* SPDX-License-Identifier: MIT */
/* Pairing two parallel arrays (core/pairs.h): the first is spooled, a record per value (a tag
 * byte, then a zigzag varint or the double's 8 bytes), the second takes them back in order. */
#include "core/pairs.h"

#include <string.h>

#include "core/varint.h"

void pk_pairs_init(pk_pairs *q)
{
    memset(q, 0, sizeof *q);
    q->queued_kind = -1;
}

void pk_pairs_free(pk_pairs *q)
{
    if (q->reading)
        pk_spool_reader_free(&q->reader);
    pk_spool_free(q->spool);
    pk_pairs_init(q);
}

static bool append(pk_pairs *q, int kind, pk_pair_value value)
{
    if (!q->spool && !(q->spool = pk_spool_new()))
        return false;
    uint8_t record[1 + PK_VARINT_MAX_BYTES];
    size_t n = 1;
    record[0] = value.is_double;
    if (value.is_double) {
        memcpy(record + 1, &value.d, sizeof value.d);
        n += sizeof value.d;
    } else {
        n += pk_varint_encode(record + 1, pk_zigzag_encode(value.i));
    }
    if (!pk_spool_append(q->spool, 0, record, n))
        return false;
    q->queued_kind = kind;
    q->queued++;
    return true;
}

/* The next queued value; false when none is left. */
static bool take(pk_pairs *q, pk_pair_value *value)
{
    if (q->taken == q->queued)
        return false;
    if (!q->reading) {
        pk_spool_reader_init(&q->reader, q->spool, 0);
        q->reading = true;
        q->chunk = q->chunk_end = NULL;
    }
    while (q->chunk == q->chunk_end) {
        size_t n;
        if (!pk_spool_reader_next(&q->reader, &q->chunk, &n))
            return false;
        q->chunk_end = q->chunk + n;
    }
    /* The records were written whole by append: they decode. */
    if (*q->chunk++) {
        double d;
        memcpy(&d, q->chunk, sizeof d);
        q->chunk += sizeof d;
        *value = (pk_pair_value){true, 0, d};
    } else {
        uint64_t u = 0;
        pk_varint_decode(&q->chunk, q->chunk_end, &u);
        *value = pk_pair_int(pk_zigzag_decode(u));
    }
    q->taken++;
    return true;
}

/* Empties the queue for a new first array. */
static void reset(pk_pairs *q)
{
    if (q->reading)
        pk_spool_reader_free(&q->reader);
    pk_spool_free(q->spool);
    q->spool = NULL;
    q->reading = false;
    q->queued = q->taken = 0;
    q->queued_kind = -1;
}

bool pk_pairs_offer(pk_pairs *q, int kind, pk_pair_value value, bool *paired,
                    pk_pair_value *other)
{
    *paired = false;
    if (q->queued_kind == -1 || (q->queued_kind == kind && !q->reading))
        return append(q, kind, value);
    if (q->queued_kind != kind) {
        if (take(q, other)) {
            *paired = true;
            return true;
        }
        if (q->reading && q->reader.error)
            return false; /* the spool could not be read back */
    }
    /* Nothing left to pair with (this array is longer), or the first array's kind again (a
     * repeated member, whose predecessor's unpaired rest is dropped): this array queues now. */
    reset(q);
    return append(q, kind, value);
}

bool pk_pairs_take_unpaired(pk_pairs *q, int *kind, pk_pair_value *value)
{
    if (q->queued_kind == -1 || !take(q, value)) {
        reset(q);
        return false;
    }
    *kind = q->queued_kind;
    return true;
}
