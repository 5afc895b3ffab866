/* SPDX-License-Identifier: MIT */
/* Counters (profkit/counters.h): a sample is spooled as two varints, the time's change since
 * the counter's previous sample (never negative) and the level's (zigzag), so that a counter
 * sampled at a steady rate with small changes costs two or three bytes a sample. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/profile_internal.h"
#include "core/spool.h"
#include "core/varint.h"
#include "profkit/counters.h"

struct pk_counter_cursor {
    const pk_profile *p;
    pk_spool_reader reader;
    const unsigned char *at, *end;
    int64_t time, level;
    uint64_t left; /* samples still to read */
    bool failed;
};

void pk_counter_table_free(pk_counter_table *t)
{
    free(t->items);
    free(t->last_levels);
    pk_spool_free(t->spool);
    memset(t, 0, sizeof *t);
}

static uint32_t intern_or_none(pk_profile *p, const char *text, bool *failed)
{
    if (!text)
        return PK_NONE;
    uint32_t s = pk_intern(p, text, strlen(text));
    *failed = *failed || s == PK_NONE;
    return s;
}

uint32_t pk_add_counter(pk_profile *p, const char *name, const char *description,
                        const char *unit, uint32_t thread)
{
    pk_counter_table *t = &p->counters;
    if ((thread != PK_NONE && thread >= pk_thread_count(p)) || t->count >= PK_NONE - 1)
        return PK_NONE;
    bool failed = false;
    pk_counter c = {.name = intern_or_none(p, name ? name : "", &failed),
                    .description = intern_or_none(p, description, &failed),
                    .unit = intern_or_none(p, unit ? unit : "count", &failed),
                    .thread = thread,
                    .first = PK_TIME_UNKNOWN,
                    .last = PK_TIME_UNKNOWN};
    if (failed || !PK_ARRAY_RESERVE(t->items, t->capacity, t->count + 1) ||
        !PK_ARRAY_RESERVE(t->last_levels, t->levels_capacity, t->count + 1))
        return PK_NONE;
    t->items[t->count] = c;
    t->last_levels[t->count] = 0;
    return (uint32_t)t->count++;
}

size_t pk_counter_count(const pk_profile *p)
{
    return p->counters.count;
}

const pk_counter *pk_counter_at(const pk_profile *p, uint32_t counter)
{
    return counter < p->counters.count ? &p->counters.items[counter] : NULL;
}

pk_status pk_counter_append(pk_profile *p, uint32_t counter, int64_t time, int64_t level)
{
    pk_counter_table *t = &p->counters;
    if (counter >= t->count)
        return PK_ERR_USAGE;
    pk_counter *c = &t->items[counter];
    if (c->samples > 0 && time < c->last)
        return PK_ERR_USAGE;
    if (!t->spool && !(t->spool = pk_spool_new()))
        return PK_ERR_NOMEM;
    uint64_t time_delta = c->samples > 0 ? (uint64_t)time - (uint64_t)c->last : (uint64_t)time;
    uint64_t level_delta = (uint64_t)level - (uint64_t)t->last_levels[counter];
    uint8_t record[2 * PK_VARINT_MAX_BYTES];
    size_t n = pk_varint_encode(record, time_delta);
    n += pk_varint_encode(record + n, pk_zigzag_encode((int64_t)level_delta));
    if (!pk_spool_append(t->spool, counter, record, n))
        return pk_spool_error(t->spool) == ENOMEM ? PK_ERR_NOMEM : PK_ERR_IO;
    if (c->samples == 0) {
        c->first = time;
        c->min = c->max = level;
    }
    c->min = level < c->min ? level : c->min;
    c->max = level > c->max ? level : c->max;
    c->last = time;
    c->samples++;
    t->last_levels[counter] = level;
    return PK_OK;
}

pk_status pk_counter_open(const pk_profile *p, uint32_t counter, pk_counter_cursor **out)
{
    *out = NULL;
    if (counter >= p->counters.count)
        return PK_ERR_USAGE;
    pk_counter_cursor *c = calloc(1, sizeof *c);
    if (!c)
        return PK_ERR_NOMEM;
    c->p = p;
    c->left = p->counters.items[counter].samples;
    if (c->left > 0)
        pk_spool_reader_init(&c->reader, p->counters.spool, counter);
    *out = c;
    return PK_OK;
}

bool pk_counter_next(pk_counter_cursor *c, int64_t *time, int64_t *level)
{
    if (c->left == 0 || c->failed)
        return false;
    if (c->at == c->end) {
        size_t n;
        if (!pk_spool_reader_next(&c->reader, &c->at, &n)) {
            c->failed = true; /* fewer records than samples appended */
            return false;
        }
        c->end = c->at + n;
    }
    uint64_t time_delta, level_delta;
    if (pk_varint_decode(&c->at, c->end, &time_delta) != PK_VARINT_OK ||
        pk_varint_decode(&c->at, c->end, &level_delta) != PK_VARINT_OK) {
        c->failed = true;
        return false;
    }
    c->time = (int64_t)((uint64_t)c->time + time_delta);
    c->level = (int64_t)((uint64_t)c->level + (uint64_t)pk_zigzag_decode(level_delta));
    c->left--;
    *time = c->time;
    *level = c->level;
    return true;
}

pk_status pk_counter_close(pk_counter_cursor *c)
{
    if (!c)
        return PK_OK;
    bool failed = c->failed || c->reader.error != 0;
    if (c->reader.spool)
        pk_spool_reader_free(&c->reader);
    free(c);
    return failed ? PK_ERR_IO : PK_OK;
}
