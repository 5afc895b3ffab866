/* Memory events of the model: allocations and frees in stream order, frees matched to the live
 * allocation at the same address. */
#include <stdlib.h>

#include "core/array.h"
#include "core/profile_internal.h"

static bool memory_reserve(pk_memory_table *m, size_t need)
{
    if (need <= m->capacity)
        return true;
    size_t old = m->capacity, cap;
    /* Every column grows from the same capacity to the same capacity. */
#define GROW(column)                                                  \
    cap = old;                                                        \
    if (!PK_ARRAY_RESERVE(m->column, cap, need))                      \
        return false;
    GROW(address)
    GROW(size)
    GROW(order)
    GROW(thread)
    GROW(stack)
    GROW(kind)
    GROW(matched)
#undef GROW
    m->capacity = cap;
    return true;
}

static size_t memory_append(pk_profile *p, uint32_t thread, uint32_t stack, uint64_t address,
                            uint64_t size, pk_memory_kind kind)
{
    pk_memory_table *m = &p->memory;
    if (m->count >= PK_NONE - 1 || !memory_reserve(m, m->count + 1))
        return SIZE_MAX;
    size_t i = m->count++;
    m->address[i] = address;
    m->size[i] = size;
    m->order[i] = p->next_order++;
    m->thread[i] = thread;
    m->stack[i] = stack;
    m->kind[i] = (uint8_t)kind;
    m->matched[i] = 0;
    return i;
}

static bool memory_event_valid(const pk_profile *p, uint32_t thread, uint32_t stack)
{
    return thread < p->thread_count && (stack == PK_NONE || stack < p->stacks.count);
}

pk_status pk_memory_alloc(pk_profile *p, uint32_t thread, uint32_t stack, uint64_t address,
                          uint64_t size)
{
    if (!memory_event_valid(p, thread, stack))
        return PK_ERR_USAGE;
    size_t i = memory_append(p, thread, stack, address, size, PK_MEM_ALLOC);
    if (i == SIZE_MAX)
        return PK_ERR_NOMEM;
    /* An address allocated again without a free in between: the older block stays live
     * (it leaked as far as the profile can tell); frees now match the newer one. */
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&p->memory.live, address, (uint32_t)i, &slot, &inserted))
        return PK_ERR_NOMEM;
    *slot = (uint32_t)i;
    return PK_OK;
}

pk_status pk_memory_free(pk_profile *p, uint32_t thread, uint32_t stack, uint64_t address,
                         pk_memory_kind kind, uint64_t *freed_size)
{
    if (freed_size)
        *freed_size = 0;
    if (!memory_event_valid(p, thread, stack) || kind == PK_MEM_ALLOC)
        return PK_ERR_USAGE;
    size_t i = memory_append(p, thread, stack, address, 0, kind);
    if (i == SIZE_MAX)
        return PK_ERR_NOMEM;
    pk_memory_table *m = &p->memory;
    uint32_t alloc;
    if (pk_u64map_remove(&m->live, address, &alloc)) {
        m->matched[alloc] = 1;
        m->matched[i] = 1;
        m->size[i] = m->size[alloc];
        if (freed_size)
            *freed_size = m->size[alloc];
    }
    return PK_OK;
}

size_t pk_memory_event_count(const pk_profile *p)
{
    return p->memory.count;
}

void pk_memory_event_at(const pk_profile *p, size_t index, pk_memory_event *out)
{
    const pk_memory_table *m = &p->memory;
    if (index >= m->count) {
        *out = (pk_memory_event){0, 0, 0, PK_NONE, PK_NONE, 0, false};
        return;
    }
    *out = (pk_memory_event){
        .address = m->address[index],
        .size = m->size[index],
        .order = m->order[index],
        .thread = m->thread[index],
        .stack = m->stack[index],
        .kind = m->kind[index],
        .matched = m->matched[index] != 0,
    };
}

pk_status pk_memory_add_live_values(pk_profile *p, uint32_t value, uint32_t count_value)
{
    const pk_memory_table *m = &p->memory;
    if (value >= p->value_count || (count_value != PK_NONE && count_value >= p->value_count))
        return PK_ERR_USAGE;
    /* In event order, so rows created here are created deterministically. */
    for (size_t i = 0; i < m->count; i++) {
        if (m->kind[i] != PK_MEM_ALLOC || m->matched[i])
            continue;
        size_t row = pk_sample_row(p, m->thread[i], m->stack[i]);
        if (row == SIZE_MAX)
            return PK_ERR_NOMEM;
        int64_t size = m->size[i] > INT64_MAX ? INT64_MAX : (int64_t)m->size[i];
        pk_sample_row_add(p, row, value, size);
        if (count_value != PK_NONE)
            pk_sample_row_add(p, row, count_value, 1);
    }
    return PK_OK;
}
