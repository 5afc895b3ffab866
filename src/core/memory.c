/* SPDX-License-Identifier: MIT */
/* Memory events of the model: frees matched to the live allocation at the same address, sums
 * per allocating (thread, stack), and the events spooled for the outputs that list them.
 *
 * A spooled event is one record: a byte of kind and flags, then varints: the order's distance
 * from the previous event's, the thread, the stack + 1 (0 for none), the address's distance
 * from the previous event's (zigzag), the size, and for a free of another thread's allocation
 * that thread. About 10 bytes for a typical event, against 40 in memory. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/profile_internal.h"
#include "core/spool.h"
#include "core/varint.h"

enum {
    EVENT_KIND_MASK = 0x3,
    EVENT_MATCHED = 0x4,     /* a free that found its allocation */
    EVENT_OTHER_OWNER = 0x8, /* a free of an allocation made by another thread */
};

void pk_memory_table_free(pk_memory_table *m)
{
    pk_spool_free(m->events);
    pk_u64map64_free(&m->live);
    pk_u64map64_free(&m->live_big_sizes);
    pk_u64map64_free(&m->live_orders);
    free(m->displaced);
    free(m->displaced_orders);
    free(m->sites);
    pk_u64map_free(&m->site_index);
    free(m->thread_unmatched_frees);
}

void pk_memory_keep_events(pk_profile *p, bool keep)
{
    p->memory.discard_events = !keep;
}

static pk_status spool_event(pk_memory_table *m, const pk_memory_event *e)
{
    if (m->discard_events)
        return PK_OK;
    if (!m->events && !(m->events = pk_spool_new()))
        return PK_ERR_NOMEM;
    uint8_t record[1 + 6 * PK_VARINT_MAX_BYTES];
    size_t n = 1;
    uint8_t flags = (uint8_t)e->kind;
    if (e->kind != PK_MEM_ALLOC && e->matched)
        flags |= EVENT_MATCHED;
    if (e->owner != e->thread)
        flags |= EVENT_OTHER_OWNER;
    record[0] = flags;
    n += pk_varint_encode(record + n, e->order - m->last_order);
    n += pk_varint_encode(record + n, e->thread);
    n += pk_varint_encode(record + n, (uint64_t)e->stack + 1u);
    n += pk_varint_encode(record + n,
                          pk_zigzag_encode((int64_t)(e->address - m->last_address)));
    n += pk_varint_encode(record + n, e->size);
    if (flags & EVENT_OTHER_OWNER)
        n += pk_varint_encode(record + n, e->owner);
    if (!pk_spool_append(m->events, 0, record, n))
        return pk_spool_error(m->events) == ENOMEM ? PK_ERR_NOMEM : PK_ERR_IO;
    m->last_order = e->order;
    m->last_address = e->address;
    return PK_OK;
}

static bool memory_event_valid(const pk_profile *p, uint32_t thread, uint32_t stack)
{
    return thread < p->thread_count && (stack == PK_NONE || stack < p->stacks.count);
}

/* The index of the site of (thread, stack), created when new; PK_NONE when memory runs out. */
static uint32_t site_of(pk_memory_table *m, uint32_t thread, uint32_t stack)
{
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&m->site_index, (uint64_t)thread << 32 | stack, (uint32_t)m->site_count,
                       &slot, &inserted))
        return PK_NONE;
    if (inserted) {
        if (m->site_count >= PK_NONE - 1 ||
            !PK_ARRAY_RESERVE(m->sites, m->site_capacity, m->site_count + 1)) {
            pk_u64map_remove(&m->site_index, (uint64_t)thread << 32 | stack, NULL);
            return PK_NONE;
        }
        m->sites[m->site_count++] = (pk_alloc_site){.thread = thread, .stack = stack};
    }
    return *slot;
}

static uint64_t add_u64_saturating(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static void count_event(pk_memory_table *m, uint64_t address)
{
    m->event_count++;
    if (address > m->max_address)
        m->max_address = address;
}

/* ---- the live allocations ---------------------------------------------------------------- */

#define SIZE_ELSEWHERE UINT32_MAX /* the size is in live_big_sizes */

static uint64_t live_entry(uint32_t site, uint64_t size)
{
    return (uint64_t)(size < SIZE_ELSEWHERE ? size : SIZE_ELSEWHERE) << 32 | site;
}

static uint32_t live_site(uint64_t entry)
{
    return (uint32_t)entry;
}

static uint64_t live_size(const pk_memory_table *m, uint64_t address, uint64_t entry)
{
    uint64_t size = entry >> 32;
    if (size == SIZE_ELSEWHERE) {
        const uint64_t *big = pk_u64map64_find(&m->live_big_sizes, address);
        if (big)
            size = *big;
    }
    return size;
}

static uint64_t clamp_to_int64(uint64_t v)
{
    return v > INT64_MAX ? INT64_MAX : v;
}

/* The allocation indexed at address gives way to a newer one there: it stays live, counted
 * with its site (and its order kept for the cursor), and frees now match the newer one. */
static pk_displaced_sums *displaced_of(pk_memory_table *m, uint32_t site)
{
    if (site >= m->displaced_capacity) {
        size_t old = m->displaced_capacity;
        if (!PK_ARRAY_RESERVE(m->displaced, m->displaced_capacity, m->site_count))
            return NULL;
        memset(m->displaced + old, 0, (m->displaced_capacity - old) * sizeof *m->displaced);
    }
    return &m->displaced[site];
}

static bool displace(pk_memory_table *m, uint64_t address, uint64_t entry)
{
    pk_displaced_sums *d = displaced_of(m, live_site(entry));
    if (!d)
        return false;
    d->bytes = add_u64_saturating(d->bytes, clamp_to_int64(live_size(m, address, entry)));
    d->count++;
    const uint64_t *order = pk_u64map64_find(&m->live_orders, address);
    if (order) {
        if (!PK_ARRAY_RESERVE(m->displaced_orders, m->displaced_order_capacity,
                              m->displaced_order_count + 1))
            return false;
        m->displaced_orders[m->displaced_order_count++] = *order;
    }
    return true;
}

/* Records an allocation by a site as live; with events kept, its order too. */
static bool add_live(pk_memory_table *m, uint64_t address, uint32_t site, uint64_t size,
                     uint64_t order)
{
    if (m->live_count >= SIZE_MAX - 1)
        return false;
    uint64_t *slot, entry = live_entry(site, size);
    bool inserted;
    if (!pk_u64map64_put(&m->live, address, entry, &slot, &inserted))
        return false;
    if (!inserted) {
        if (!displace(m, address, *slot))
            return false;
        if ((*slot >> 32) == SIZE_ELSEWHERE && size < SIZE_ELSEWHERE)
            pk_u64map64_remove(&m->live_big_sizes, address, NULL);
        *slot = entry;
    }
    uint64_t *value;
    if (size >= SIZE_ELSEWHERE) {
        if (!pk_u64map64_put(&m->live_big_sizes, address, size, &value, &inserted))
            return false;
        *value = size;
    }
    if (!m->discard_events) {
        if (!pk_u64map64_put(&m->live_orders, address, order, &value, &inserted))
            return false;
        *value = order;
    }
    m->live_count++;
    return true;
}

/* Takes the allocation indexed at address out; false when there is none. */
static bool take_live(pk_memory_table *m, uint64_t address, uint32_t *site, uint64_t *size)
{
    uint64_t entry;
    if (!pk_u64map64_remove(&m->live, address, &entry))
        return false;
    *site = live_site(entry);
    *size = entry >> 32;
    if (*size == SIZE_ELSEWHERE)
        pk_u64map64_remove(&m->live_big_sizes, address, size);
    pk_u64map64_remove(&m->live_orders, address, NULL);
    m->live_count--;
    return true;
}

pk_status pk_memory_alloc(pk_profile *p, uint32_t thread, uint32_t stack, uint64_t address,
                          uint64_t size)
{
    if (!memory_event_valid(p, thread, stack))
        return PK_ERR_USAGE;
    pk_memory_table *m = &p->memory;
    uint32_t site = site_of(m, thread, stack);
    pk_memory_event e = {address, size, p->next_order, thread, stack, thread, PK_MEM_ALLOC,
                         false};
    if (site == PK_NONE || !add_live(m, address, site, size, e.order))
        return PK_ERR_NOMEM;
    p->next_order++;
    m->sites[site].allocations++;
    m->sites[site].allocated_bytes = add_u64_saturating(m->sites[site].allocated_bytes, size);
    m->allocations++;
    count_event(m, address);
    return spool_event(m, &e);
}

static bool count_unmatched_frees(pk_memory_table *m, uint32_t thread, uint64_t count)
{
    if (thread >= m->thread_unmatched_capacity) {
        size_t old = m->thread_unmatched_capacity;
        if (!PK_ARRAY_RESERVE(m->thread_unmatched_frees, m->thread_unmatched_capacity,
                              (size_t)thread + 1))
            return false;
        memset(m->thread_unmatched_frees + old, 0,
               (m->thread_unmatched_capacity - old) * sizeof *m->thread_unmatched_frees);
    }
    m->thread_unmatched_frees[thread] = add_u64_saturating(m->thread_unmatched_frees[thread], count);
    m->unmatched_frees = add_u64_saturating(m->unmatched_frees, count);
    return true;
}

pk_status pk_memory_free(pk_profile *p, uint32_t thread, uint32_t stack, uint64_t address,
                         pk_memory_kind kind, uint64_t *freed_size)
{
    if (freed_size)
        *freed_size = 0;
    if (!memory_event_valid(p, thread, stack) || kind == PK_MEM_ALLOC)
        return PK_ERR_USAGE;
    pk_memory_table *m = &p->memory;
    pk_memory_event e = {address, 0, 0, thread, stack, thread, (uint8_t)kind, false};
    uint32_t site;
    uint64_t size;
    if (take_live(m, address, &site, &size)) {
        pk_alloc_site *s = &m->sites[site];
        s->frees++;
        s->freed_bytes = add_u64_saturating(s->freed_bytes, size);
        e.size = size;
        e.owner = s->thread;
        e.matched = true;
    } else if (!count_unmatched_frees(m, thread, 1)) {
        return PK_ERR_NOMEM;
    }
    e.order = p->next_order++;
    m->frees++;
    count_event(m, address);
    if (freed_size)
        *freed_size = e.size;
    return spool_event(m, &e);
}

size_t pk_memory_event_count(const pk_profile *p)
{
    return (size_t)p->memory.event_count;
}

void pk_memory_counts_get(const pk_profile *p, pk_memory_counts *out)
{
    const pk_memory_table *m = &p->memory;
    *out = (pk_memory_counts){m->event_count,     m->allocations, m->frees,
                              m->unmatched_frees, m->live_count,  m->max_address};
}

uint64_t pk_memory_unmatched_frees(const pk_profile *p, uint32_t thread)
{
    const pk_memory_table *m = &p->memory;
    return thread < m->thread_unmatched_capacity ? m->thread_unmatched_frees[thread] : 0;
}

size_t pk_alloc_site_count(const pk_profile *p)
{
    return p->memory.site_count;
}

void pk_alloc_site_at(const pk_profile *p, size_t index, pk_alloc_site *out)
{
    const pk_memory_table *m = &p->memory;
    *out = index < m->site_count ? m->sites[index]
                                 : (pk_alloc_site){.thread = PK_NONE, .stack = PK_NONE};
}

/* ---- reading the events back ---------------------------------------------------------------- */

struct pk_memory_cursor {
    const pk_profile *p;
    pk_spool_reader reader;
    const uint8_t *at, *end; /* what is left of the current chunk */
    uint64_t order, address; /* of the previous event */
    uint64_t *still_live;    /* the orders of the allocations never freed, ascending */
    size_t still_live_count, still_live_next;
    bool damaged;            /* a record that does not decode: the spool is not what was written */
};

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

pk_status pk_memory_events_open(const pk_profile *p, pk_memory_cursor **out)
{
    *out = NULL;
    const pk_memory_table *m = &p->memory;
    if (m->discard_events && m->event_count > 0)
        return PK_ERR_UNSUPPORTED;
    pk_memory_cursor *c = calloc(1, sizeof *c);
    if (!c)
        return PK_ERR_NOMEM;
    c->p = p;
    /* An allocation is matched unless it is still live at the end, which only the live
     * allocations tell: their orders, so that an allocation a newer one at the same address
     * displaced is found too. The cursor meets them in ascending order. */
    size_t n = m->live_orders.count + m->displaced_order_count;
    if (n) {
        c->still_live = malloc(n * sizeof *c->still_live);
        if (!c->still_live) {
            free(c);
            return PK_ERR_NOMEM;
        }
        size_t at = 0;
        uint64_t address, order;
        while (c->still_live_count < n &&
               pk_u64map64_next(&m->live_orders, &at, &address, &order))
            c->still_live[c->still_live_count++] = order;
        for (size_t i = 0; i < m->displaced_order_count && c->still_live_count < n; i++)
            c->still_live[c->still_live_count++] = m->displaced_orders[i];
        qsort(c->still_live, c->still_live_count, sizeof *c->still_live, compare_u64);
    }
    if (m->events)
        pk_spool_reader_init(&c->reader, m->events, 0);
    *out = c;
    return PK_OK;
}

static bool decode_event(pk_memory_cursor *c, pk_memory_event *e)
{
    const uint8_t *at = c->at, *end = c->end;
    uint8_t flags = *at++;
    uint64_t order, thread, stack, address, size, owner;
    if (pk_varint_decode(&at, end, &order) != PK_VARINT_OK ||
        pk_varint_decode(&at, end, &thread) != PK_VARINT_OK ||
        pk_varint_decode(&at, end, &stack) != PK_VARINT_OK ||
        pk_varint_decode(&at, end, &address) != PK_VARINT_OK ||
        pk_varint_decode(&at, end, &size) != PK_VARINT_OK)
        return false;
    owner = thread;
    if ((flags & EVENT_OTHER_OWNER) && pk_varint_decode(&at, end, &owner) != PK_VARINT_OK)
        return false;
    c->order += order;
    c->address += (uint64_t)pk_zigzag_decode(address);
    uint8_t kind = flags & EVENT_KIND_MASK;
    bool matched = (flags & EVENT_MATCHED) != 0;
    if (kind == PK_MEM_ALLOC) {
        while (c->still_live_next < c->still_live_count &&
               c->still_live[c->still_live_next] < c->order)
            c->still_live_next++;
        matched = c->still_live_next == c->still_live_count ||
                  c->still_live[c->still_live_next] != c->order;
    }
    *e = (pk_memory_event){c->address,          size, c->order, (uint32_t)thread,
                           (uint32_t)(stack - 1), (uint32_t)owner, kind, matched};
    c->at = at;
    return true;
}

bool pk_memory_events_next(pk_memory_cursor *c, pk_memory_event *e)
{
    if (!c->p->memory.events || c->damaged)
        return false;
    if (c->at == c->end) {
        size_t n;
        if (!pk_spool_reader_next(&c->reader, &c->at, &n))
            return false;
        c->end = c->at + n;
    }
    if (!decode_event(c, e)) {
        c->damaged = true;
        return false;
    }
    return true;
}

pk_status pk_memory_events_close(pk_memory_cursor *c)
{
    if (!c)
        return PK_OK;
    pk_status st = c->damaged || c->reader.error ? PK_ERR_IO : PK_OK;
    pk_spool_reader_free(&c->reader);
    free(c->still_live);
    free(c);
    return st;
}

/* Adds v, which may be above INT64_MAX, to a row's value as additions of at most INT64_MAX each
 * would: the cell and the overflow bookkeeping come out the same. */
static void row_add_u64(pk_profile *p, size_t row, uint32_t value, uint64_t v)
{
    do {
        uint64_t part = clamp_to_int64(v);
        pk_sample_row_add(p, row, value, (int64_t)part);
        v -= part;
    } while (v);
}

pk_status pk_memory_add_live_values(pk_profile *p, uint32_t value, uint32_t count_value)
{
    pk_memory_table *m = &p->memory;
    if (value >= p->value_count || (count_value != PK_NONE && count_value >= p->value_count))
        return PK_ERR_USAGE;
    if (m->live_count == 0)
        return PK_OK;
    /* Summed per site first; a sum of non-negative additions that saturate is the same in any
     * order. Rows are created in the order of the sites' first allocations. */
    pk_displaced_sums *sums = calloc(m->site_count, sizeof *sums);
    if (!sums)
        return PK_ERR_NOMEM;
    size_t at = 0;
    uint64_t address, entry;
    while (pk_u64map64_next(&m->live, &at, &address, &entry)) {
        pk_displaced_sums *sum = &sums[live_site(entry)];
        sum->bytes = add_u64_saturating(sum->bytes, clamp_to_int64(live_size(m, address, entry)));
        sum->count++;
    }
    for (size_t i = 0; i < m->site_count && i < m->displaced_capacity; i++) {
        sums[i].bytes = add_u64_saturating(sums[i].bytes, m->displaced[i].bytes);
        sums[i].count += m->displaced[i].count;
    }
    /* Every allocation takes one position in the stream, its bytes and its count one sample as
     * when they were added one by one; the count takes none of its own, so that a profile's
     * untimed samples spread the same with or without it. */
    uint64_t next_order = p->next_order + m->live_count;
    pk_status st = PK_OK;
    for (size_t i = 0; i < m->site_count && st == PK_OK; i++) {
        if (!sums[i].count)
            continue;
        size_t row = pk_sample_row(p, m->sites[i].thread, m->sites[i].stack);
        if (row == SIZE_MAX) {
            st = PK_ERR_NOMEM;
            break;
        }
        row_add_u64(p, row, value, sums[i].bytes);
        if (count_value != PK_NONE)
            row_add_u64(p, row, count_value, sums[i].count);
    }
    free(sums);
    if (st == PK_OK)
        p->next_order = next_order;
    return st;
}

pk_status pk_memory_copy_sums(pk_profile *dst, const pk_profile *src, const uint32_t *threads,
                              const uint32_t *stacks, uint64_t address_tag)
{
    const pk_memory_table *from = &src->memory;
    pk_memory_table *to = &dst->memory;
    to->discard_events = true;
    size_t thread_count = src->thread_count, stack_count = src->stacks.count;
    /* src's site index -> dst's (PK_NONE for a thread left out) */
    uint32_t *site_map = malloc((from->site_count ? from->site_count : 1) * sizeof *site_map);
    if (!site_map)
        return PK_ERR_NOMEM;
    pk_status st = PK_ERR_NOMEM;
#define MAP(map, count, i) ((i) < (count) ? (map)[i] : PK_NONE)
    for (size_t i = 0; i < from->site_count; i++) {
        const pk_alloc_site *s = &from->sites[i];
        uint32_t thread = MAP(threads, thread_count, s->thread);
        site_map[i] = PK_NONE;
        if (thread == PK_NONE)
            continue;
        uint32_t index = site_of(to, thread, MAP(stacks, stack_count, s->stack));
        if (index == PK_NONE)
            goto done;
        site_map[i] = index;
        pk_alloc_site *site = &to->sites[index];
        site->allocations = add_u64_saturating(site->allocations, s->allocations);
        site->allocated_bytes = add_u64_saturating(site->allocated_bytes, s->allocated_bytes);
        site->frees = add_u64_saturating(site->frees, s->frees);
        site->freed_bytes = add_u64_saturating(site->freed_bytes, s->freed_bytes);
    }
#undef MAP
    for (size_t t = 0; t < from->thread_unmatched_capacity; t++) {
        uint32_t thread = t < thread_count ? threads[t] : PK_NONE;
        if (thread != PK_NONE && from->thread_unmatched_frees[t] &&
            !count_unmatched_frees(to, thread, from->thread_unmatched_frees[t]))
            goto done;
    }
    /* Each live allocation copied takes a position in dst's stream, as an event would. */
    size_t at = 0;
    uint64_t address, entry;
    while (pk_u64map64_next(&from->live, &at, &address, &entry)) {
        uint32_t site = site_map[live_site(entry)];
        if (site == PK_NONE)
            continue;
        if (!add_live(to, address ^ address_tag, site, live_size(from, address, entry), 0))
            goto done;
        dst->next_order++;
    }
    for (size_t i = 0; i < from->site_count && i < from->displaced_capacity; i++) {
        const pk_displaced_sums *d = &from->displaced[i];
        if (site_map[i] == PK_NONE || !d->count)
            continue;
        pk_displaced_sums *into = displaced_of(to, site_map[i]);
        if (!into)
            goto done;
        into->bytes = add_u64_saturating(into->bytes, d->bytes);
        into->count += d->count;
        to->live_count += d->count;
        dst->next_order += d->count;
    }
    to->event_count = add_u64_saturating(to->event_count, from->event_count);
    to->allocations = add_u64_saturating(to->allocations, from->allocations);
    to->frees = add_u64_saturating(to->frees, from->frees);
    if (from->max_address > to->max_address)
        to->max_address = from->max_address;
    st = PK_OK;
done:
    free(site_map);
    return st;
}
