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
    free(m->live);
    pk_u64map_free(&m->live_index);
    free(m->sites);
    pk_u64map_free(&m->site_index);
    free(m->thread_unmatched_frees);
}

void pk_memory_keep_events(pk_profile *p, bool keep)
{
    p->memory.discard_events = !keep;
}

static uint64_t zigzag(int64_t v)
{
    /* All ones for a negative value, without shifting a signed one. */
    return ((uint64_t)v << 1) ^ (0 - ((uint64_t)v >> 63));
}

static int64_t unzigzag(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
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
    n += pk_varint_encode(record + n, zigzag((int64_t)(e->address - m->last_address)));
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

/* The site of (thread, stack), created when new; NULL when memory runs out. */
static pk_alloc_site *site_of(pk_memory_table *m, uint32_t thread, uint32_t stack)
{
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&m->site_index, (uint64_t)thread << 32 | stack, (uint32_t)m->site_count,
                       &slot, &inserted))
        return NULL;
    if (inserted) {
        if (m->site_count >= PK_NONE - 1 ||
            !PK_ARRAY_RESERVE(m->sites, m->site_capacity, m->site_count + 1)) {
            pk_u64map_remove(&m->site_index, (uint64_t)thread << 32 | stack, NULL);
            return NULL;
        }
        m->sites[m->site_count++] = (pk_alloc_site){.thread = thread, .stack = stack};
    }
    return &m->sites[*slot];
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

pk_status pk_memory_alloc(pk_profile *p, uint32_t thread, uint32_t stack, uint64_t address,
                          uint64_t size)
{
    if (!memory_event_valid(p, thread, stack))
        return PK_ERR_USAGE;
    pk_memory_table *m = &p->memory;
    pk_alloc_site *site = site_of(m, thread, stack);
    if (!site || m->live_count >= PK_NONE - 1 ||
        !PK_ARRAY_RESERVE(m->live, m->live_capacity, m->live_count + 1))
        return PK_ERR_NOMEM;
    /* An address allocated again without a free in between: the older block stays live
     * (it leaked as far as the profile can tell); frees now match the newer one. */
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&m->live_index, address, (uint32_t)m->live_count, &slot, &inserted))
        return PK_ERR_NOMEM;
    *slot = (uint32_t)m->live_count;
    pk_memory_event e = {address, size, p->next_order++, thread, stack, thread, PK_MEM_ALLOC,
                         false};
    m->live[m->live_count++] = (pk_live_allocation){address, size, e.order, thread, stack};
    site->allocations++;
    site->allocated_bytes = add_u64_saturating(site->allocated_bytes, size);
    m->allocations++;
    count_event(m, address);
    return spool_event(m, &e);
}

/* Takes live allocation i out; the last one takes its place. */
static void remove_live(pk_memory_table *m, size_t i)
{
    size_t last = --m->live_count;
    if (i == last)
        return;
    m->live[i] = m->live[last];
    uint32_t *slot = pk_u64map_find(&m->live_index, m->live[i].address);
    /* An allocation that a newer one at its address displaced is no longer indexed. */
    if (slot && *slot == last)
        *slot = (uint32_t)i;
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
    uint32_t index;
    if (pk_u64map_remove(&m->live_index, address, &index)) {
        const pk_live_allocation *a = &m->live[index];
        pk_alloc_site *site = site_of(m, a->thread, a->stack);
        if (!site)
            return PK_ERR_NOMEM;
        site->frees++;
        site->freed_bytes = add_u64_saturating(site->freed_bytes, a->size);
        e.size = a->size;
        e.owner = a->thread;
        e.matched = true;
        remove_live(m, index);
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
    pk_u64map still_live;    /* orders of the allocations never freed */
    bool damaged;            /* a record that does not decode: the spool is not what was written */
};

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
    pk_u64map_init(&c->still_live);
    /* An allocation is matched unless it is still live at the end, which only the live
     * allocations tell: their orders, so that an allocation a newer one at the same address
     * displaced is found too. */
    if (!pk_u64map_reserve(&c->still_live, m->live_count)) {
        free(c);
        return PK_ERR_NOMEM;
    }
    for (size_t i = 0; i < m->live_count; i++) {
        uint32_t *slot;
        bool inserted;
        pk_u64map_put(&c->still_live, m->live[i].order, 1, &slot, &inserted);
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
    c->address += (uint64_t)unzigzag(address);
    uint8_t kind = flags & EVENT_KIND_MASK;
    bool matched = kind == PK_MEM_ALLOC ? pk_u64map_find(&c->still_live, c->order) == NULL
                                        : (flags & EVENT_MATCHED) != 0;
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
    pk_u64map_free(&c->still_live);
    free(c);
    return st;
}

static int compare_live_order(const void *a, const void *b)
{
    const pk_live_allocation *x = a, *y = b;
    return (x->order > y->order) - (x->order < y->order);
}

pk_status pk_memory_add_live_values(pk_profile *p, uint32_t value, uint32_t count_value)
{
    pk_memory_table *m = &p->memory;
    if (value >= p->value_count || (count_value != PK_NONE && count_value >= p->value_count))
        return PK_ERR_USAGE;
    if (m->live_count == 0)
        return PK_OK;
    /* In event order, so rows created here are created deterministically. */
    pk_live_allocation *live = malloc(m->live_count * sizeof *live);
    if (!live)
        return PK_ERR_NOMEM;
    memcpy(live, m->live, m->live_count * sizeof *live);
    qsort(live, m->live_count, sizeof *live, compare_live_order);
    pk_status st = PK_OK;
    for (size_t i = 0; i < m->live_count; i++) {
        size_t row = pk_sample_row(p, live[i].thread, live[i].stack);
        if (row == SIZE_MAX) {
            st = PK_ERR_NOMEM;
            break;
        }
        int64_t size = live[i].size > INT64_MAX ? INT64_MAX : (int64_t)live[i].size;
        pk_sample_row_add(p, row, value, size);
        if (count_value != PK_NONE)
            pk_sample_row_add(p, row, count_value, 1);
    }
    free(live);
    return st;
}

pk_status pk_memory_copy_sums(pk_profile *dst, const pk_profile *src, const uint32_t *threads,
                              const uint32_t *stacks, uint64_t address_tag)
{
    const pk_memory_table *from = &src->memory;
    pk_memory_table *to = &dst->memory;
    size_t thread_count = src->thread_count, stack_count = src->stacks.count;
#define MAP(map, count, i) ((i) < (count) ? (map)[i] : PK_NONE)
    for (size_t i = 0; i < from->site_count; i++) {
        const pk_alloc_site *s = &from->sites[i];
        uint32_t thread = MAP(threads, thread_count, s->thread);
        if (thread == PK_NONE)
            continue;
        pk_alloc_site *site = site_of(to, thread, MAP(stacks, stack_count, s->stack));
        if (!site)
            return PK_ERR_NOMEM;
        site->allocations = add_u64_saturating(site->allocations, s->allocations);
        site->allocated_bytes = add_u64_saturating(site->allocated_bytes, s->allocated_bytes);
        site->frees = add_u64_saturating(site->frees, s->frees);
        site->freed_bytes = add_u64_saturating(site->freed_bytes, s->freed_bytes);
    }
    for (size_t t = 0; t < from->thread_unmatched_capacity; t++) {
        uint32_t thread = MAP(threads, thread_count, t);
        if (thread != PK_NONE && from->thread_unmatched_frees[t] &&
            !count_unmatched_frees(to, thread, from->thread_unmatched_frees[t]))
            return PK_ERR_NOMEM;
    }
    for (size_t i = 0; i < from->live_count; i++) {
        const pk_live_allocation *a = &from->live[i];
        uint32_t thread = MAP(threads, thread_count, a->thread);
        if (thread == PK_NONE)
            continue;
        if (!PK_ARRAY_RESERVE(to->live, to->live_capacity, to->live_count + 1))
            return PK_ERR_NOMEM;
        uint64_t address = a->address ^ address_tag;
        uint32_t *slot;
        bool inserted;
        if (!pk_u64map_put(&to->live_index, address, (uint32_t)to->live_count, &slot, &inserted))
            return PK_ERR_NOMEM;
        *slot = (uint32_t)to->live_count;
        to->live[to->live_count++] = (pk_live_allocation){
            address, a->size, dst->next_order++, thread, MAP(stacks, stack_count, a->stack)};
    }
#undef MAP
    to->discard_events = true;
    to->event_count = add_u64_saturating(to->event_count, from->event_count);
    to->allocations = add_u64_saturating(to->allocations, from->allocations);
    to->frees = add_u64_saturating(to->frees, from->frees);
    if (from->max_address > to->max_address)
        to->max_address = from->max_address;
    return PK_OK;
}
