/* SPDX-License-Identifier: MIT */
/* Time order of a perf.data's records (order.h). */
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "formats/perf_data/order.h"

void pd_order_init(pd_order *o, bool big)
{
    memset(o, 0, sizeof *o);
    o->big = big;
}

void pd_order_free(pd_order *o)
{
    free(o->items);
    free(o->bytes);
    memset(o, 0, sizeof *o);
}

static int queued_order(const void *a, const void *b)
{
    const pd_queued *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int queued_in_sequence(const void *a, const void *b)
{
    const pd_queued *x = a, *y = b;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Delivers, in time order, the first `count` records once sorted (all those of time <= limit
 * when count is SIZE_MAX), and keeps the others. */
static pk_status deliver_until(pd_order *o, uint64_t limit, size_t count, pd_deliver_fn deliver,
                               void *context, pk_error *err)
{
    if (o->count == 0)
        return PK_OK;
    qsort(o->items, o->count, sizeof *o->items, queued_order);
    size_t n = 0;
    pk_status status = PK_OK;
    while (n < o->count && (count == SIZE_MAX ? o->items[n].time <= limit : n < count)) {
        const pd_queued *q = &o->items[n++];
        pd_record rec = {q->type, q->misc, q->size, o->bytes + q->at,
                         (size_t)q->size - PD_RECORD_HEADER_SIZE, q->offset, q->compressed};
        if (q->time < o->delivered)
            o->late++;
        else
            o->delivered = q->time;
        status = deliver(context, &rec, err);
        if (status != PK_OK)
            break;
    }
    if (n == 0)
        return status;
    /* Keep the rest, their bytes packed at the front. In queueing order their bytes are in
     * increasing places, so each moves down onto bytes already moved or delivered. */
    memmove(o->items, o->items + n, (o->count - n) * sizeof *o->items);
    o->count -= n;
    qsort(o->items, o->count, sizeof *o->items, queued_in_sequence);
    size_t len = 0;
    for (size_t i = 0; i < o->count; i++) {
        size_t body = (size_t)o->items[i].size - PD_RECORD_HEADER_SIZE;
        memmove(o->bytes + len, o->bytes + o->items[i].at, body);
        o->items[i].at = len;
        len += body;
    }
    o->len = len;
    return status;
}

pk_status pd_order_push(pd_order *o, const pd_record *rec, uint64_t time, pd_deliver_fn deliver,
                        void *context, pk_error *err)
{
    if (o->len > PD_ORDER_MAX_BYTES) {
        pk_status status = deliver_until(o, 0, o->count / 2, deliver, context, err);
        if (status != PK_OK)
            return status;
    }
    if (!PK_ARRAY_RESERVE(o->items, o->cap, o->count + 1) ||
        !PK_ARRAY_RESERVE(o->bytes, o->bytes_cap, o->len + rec->body_size + 1))
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    memcpy(o->bytes + o->len, rec->body, rec->body_size);
    o->items[o->count++] = (pd_queued){time,      o->seq++,  rec->offset,   o->len,
                                       rec->type, rec->misc, rec->size, rec->compressed};
    o->len += rec->body_size;
    if (time > o->max_time)
        o->max_time = time;
    return PK_OK;
}

pk_status pd_order_round(pd_order *o, pd_deliver_fn deliver, void *context, pk_error *err)
{
    pk_status status = deliver_until(o, o->next_flush, SIZE_MAX, deliver, context, err);
    o->next_flush = o->max_time;
    return status;
}

pk_status pd_order_finish(pd_order *o, pd_deliver_fn deliver, void *context, pk_error *err)
{
    return deliver_until(o, UINT64_MAX, SIZE_MAX, deliver, context, err);
}
