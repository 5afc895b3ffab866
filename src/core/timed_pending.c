/* SPDX-License-Identifier: MIT */
/* Spooled timed samples (timed_pending.h): varints of the thread and key, then each number as
 * a tag byte (0 an integer, zigzag varint after it; 1 a double, its 8 bytes after it). */
#include <string.h>

#include "core/timed_pending.h"
#include "core/varint.h"

#define NUMBER_MAX (1 + PK_VARINT_MAX_BYTES)

static size_t put_number(uint8_t *out, pk_pair_value v)
{
    if (v.is_double) {
        out[0] = 1;
        memcpy(out + 1, &v.d, sizeof v.d);
        return 1 + sizeof v.d;
    }
    out[0] = 0;
    return 1 + pk_varint_encode(out + 1, pk_zigzag_encode(v.i));
}

static bool get_number(const uint8_t **at, const uint8_t *end, pk_pair_value *v)
{
    if (*at >= end)
        return false;
    uint8_t tag = *(*at)++;
    if (tag == 1) {
        if ((size_t)(end - *at) < sizeof v->d)
            return false;
        *v = (pk_pair_value){true, 0, 0};
        memcpy(&v->d, *at, sizeof v->d);
        *at += sizeof v->d;
        return true;
    }
    uint64_t u;
    if (tag != 0 || pk_varint_decode(at, end, &u) != PK_VARINT_OK)
        return false;
    *v = pk_pair_int(pk_zigzag_decode(u));
    return true;
}

void pk_timed_pending_free(pk_timed_pending *t)
{
    pk_spool_free(t->spool);
    memset(t, 0, sizeof *t);
}

bool pk_timed_pending_add(pk_timed_pending *t, const pk_timed_record *record)
{
    if (t->failed)
        return false;
    if (!t->spool && !(t->spool = pk_spool_new())) {
        t->failed = true;
        return false;
    }
    uint8_t bytes[2 * PK_VARINT_MAX_BYTES + 3 * NUMBER_MAX];
    size_t n = pk_varint_encode(bytes, record->thread);
    n += pk_varint_encode(bytes + n, record->key);
    n += put_number(bytes + n, record->time);
    n += put_number(bytes + n, record->duration);
    n += put_number(bytes + n, record->weight);
    if (!pk_spool_append(t->spool, 0, bytes, n)) {
        t->failed = true;
        return false;
    }
    t->count++;
    return true;
}

bool pk_timed_pending_replay(const pk_timed_pending *t, pk_timed_pending_fn fn, void *ctx,
                             bool *io_error)
{
    *io_error = false;
    if (!t->spool)
        return true;
    pk_spool_reader reader;
    pk_spool_reader_init(&reader, t->spool, 0);
    const uint8_t *at, *end;
    size_t n;
    bool ok = true;
    while (ok && pk_spool_reader_next(&reader, &at, &n)) {
        for (end = at + n; ok && at < end;) {
            pk_timed_record r;
            uint64_t thread, key;
            if (pk_varint_decode(&at, end, &thread) != PK_VARINT_OK ||
                pk_varint_decode(&at, end, &key) != PK_VARINT_OK || !get_number(&at, end, &r.time) ||
                !get_number(&at, end, &r.duration) || !get_number(&at, end, &r.weight)) {
                *io_error = true; /* the spool holds what was written: only a bad read differs */
                ok = false;
                break;
            }
            r.thread = (uint32_t)thread;
            r.key = (uint32_t)key;
            ok = fn(ctx, &r);
        }
    }
    if (reader.error != 0) {
        *io_error = true;
        ok = false;
    }
    pk_spool_reader_free(&reader);
    return ok;
}
