/* SPDX-License-Identifier: MIT */
/* Call counts per (caller, callee) function pair (profkit/profile.h, "call edges"): what a call
 * graph says about how often each call happened, which stacks cannot say. */
#include "core/array.h"
#include "core/profile_internal.h"

pk_status pk_add_call_edge(pk_profile *p, uint32_t caller, uint32_t callee, uint64_t calls)
{
    if (caller >= p->function_count || callee >= p->function_count)
        return PK_ERR_USAGE;
    uint64_t key = (uint64_t)caller << 32 | callee;
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&p->call_edge_index, key, (uint32_t)p->call_edge_count, &slot, &inserted))
        return PK_ERR_NOMEM;
    if (inserted) {
        if (p->call_edge_count >= UINT32_MAX - 1 ||
            !PK_ARRAY_RESERVE(p->call_edges, p->call_edge_capacity, p->call_edge_count + 1)) {
            pk_u64map_remove(&p->call_edge_index, key, NULL);
            return PK_ERR_NOMEM;
        }
        p->call_edges[p->call_edge_count++] = (pk_call_edge){caller, callee, 0};
    }
    pk_call_edge *e = &p->call_edges[*slot];
    e->calls = e->calls > UINT64_MAX - calls ? UINT64_MAX : e->calls + calls;
    return PK_OK;
}

size_t pk_call_edge_count(const pk_profile *p)
{
    return p->call_edge_count;
}

const pk_call_edge *pk_call_edge_at(const pk_profile *p, size_t index)
{
    return index < p->call_edge_count ? &p->call_edges[index] : NULL;
}

const pk_call_edge *pk_find_call_edge(const pk_profile *p, uint32_t caller, uint32_t callee)
{
    const uint32_t *index = pk_u64map_find(&p->call_edge_index, (uint64_t)caller << 32 | callee);
    return index ? &p->call_edges[*index] : NULL;
}
