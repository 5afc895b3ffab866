/* Pairing a profile's two parallel arrays (samples, timeDeltas) when one arrives whole before the
 * other: the first is spooled as zigzag varints, the second takes them back in order. */
#include <string.h>

#include "core/varint.h"
#include "formats/v8/v8.h"

void v8_pairs_init(v8_pairs *q)
{
    memset(q, 0, sizeof *q);
    q->queued_kind = -1;
}

void v8_pairs_free(v8_pairs *q)
{
    if (q->reading)
        pk_spool_reader_free(&q->reader);
    pk_spool_free(q->spool);
    v8_pairs_init(q);
}


static bool append(v8_pairs *q, int kind, int64_t value)
{
    if (!q->spool && !(q->spool = pk_spool_new()))
        return false;
    uint8_t record[PK_VARINT_MAX_BYTES];
    size_t n = pk_varint_encode(record, pk_zigzag_encode(value));
    if (!pk_spool_append(q->spool, 0, record, n))
        return false;
    q->queued_kind = kind;
    q->queued++;
    return true;
}

/* The next queued value; false when none is left. */
static bool take(v8_pairs *q, int64_t *value)
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
    uint64_t u = 0;
    /* The records were written whole by append: they decode. */
    pk_varint_decode(&q->chunk, q->chunk_end, &u);
    *value = pk_zigzag_decode(u);
    q->taken++;
    return true;
}

/* Empties the queue for a new first array. */
static void reset(v8_pairs *q)
{
    if (q->reading)
        pk_spool_reader_free(&q->reader);
    pk_spool_free(q->spool);
    q->spool = NULL;
    q->reading = false;
    q->queued = q->taken = 0;
    q->queued_kind = -1;
}

bool v8_pairs_offer(v8_pairs *q, int kind, int64_t value, bool *paired, int64_t *other)
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

bool v8_pairs_take_unpaired(v8_pairs *q, int *kind, int64_t *value)
{
    if (q->queued_kind == -1 || !take(q, value)) {
        reset(q);
        return false;
    }
    *kind = q->queued_kind;
    return true;
}
