/* SPDX-License-Identifier: MIT */
/* The kernel's records of a perf.data put in time order, as perf does before it uses them.
 *
 * perf record drains each processor's buffer in turn, so the records of a file are in time order
 * per processor only: a sample can come before the MMAP of its code. perf's session queues every
 * record with a time and, at each PERF_RECORD_FINISHED_ROUND, delivers in time order those no
 * later than the greatest time seen at the previous round's end (later ones may still have
 * earlier company in the next round); at the end it delivers the rest. Records without a time
 * (0, or an event without sample_id_all) are taken at once.
 *
 * The queue holds copies of the records of about a round, so memory is bounded by a round, not
 * the file; past PD_ORDER_MAX_BYTES (a file with no rounds) the earlier half is delivered, as
 * perf does when its queue outgrows its limit. */
#ifndef PK_FORMATS_PERF_DATA_ORDER_H
#define PK_FORMATS_PERF_DATA_ORDER_H

#include "formats/perf_data/codec.h"

#define PD_ORDER_MAX_BYTES ((size_t)64 << 20)

typedef struct pd_queued {
    uint64_t time, seq, offset;
    size_t at; /* of the record's body in pd_order.bytes */
    uint32_t type;
    uint16_t misc, size;
    bool compressed;
} pd_queued;

typedef struct pd_order {
    pd_queued *items;
    size_t count, cap;
    uint8_t *bytes;
    size_t len, bytes_cap;
    uint64_t seq;
    uint64_t max_time;   /* greatest time queued */
    uint64_t next_flush; /* what the next round delivers up to */
    uint64_t delivered;  /* greatest time delivered */
    uint64_t late;       /* records delivered after a later one had been */
    bool big;
} pd_order;

/* Takes one record in its order; an error stops the delivery. */
typedef pk_status (*pd_deliver_fn)(void *context, const pd_record *rec, pk_error *err);

void pd_order_init(pd_order *o, bool big);
void pd_order_free(pd_order *o);
/* Queues a copy of rec (of time > 0); false when memory runs out. May deliver the earlier half
 * when the queue is full. */
pk_status pd_order_push(pd_order *o, const pd_record *rec, uint64_t time, pd_deliver_fn deliver,
                        void *context, pk_error *err);
/* At a PERF_RECORD_FINISHED_ROUND. */
pk_status pd_order_round(pd_order *o, pd_deliver_fn deliver, void *context, pk_error *err);
/* At the end of the records: delivers all. */
pk_status pd_order_finish(pd_order *o, pd_deliver_fn deliver, void *context, pk_error *err);

#endif
