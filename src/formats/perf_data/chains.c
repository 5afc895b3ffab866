/* SPDX-License-Identifier: MIT */
/* The stacks of the callchains already seen: see chains.h. */
#include "formats/perf_data/chains.h"

#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "profkit/profile.h"

void pd_chains_init(pd_chains *c)
{
    memset(c, 0, sizeof *c);
    pk_index_init(&c->index);
}

void pd_chains_free(pd_chains *c)
{
    pk_index_free(&c->index);
    free(c->items);
    free(c->bytes);
    memset(c, 0, sizeof *c);
}

void pd_chains_clear(pd_chains *c)
{
    if (c->count == 0)
        return;
    pk_index_free(&c->index);
    pk_index_init(&c->index);
    c->count = 0;
    c->bytes_len = 0;
}

pd_chain_key pd_chain_key_of(const uint8_t *bytes, size_t len, uint32_t pid, uint32_t mode,
                             uint32_t root)
{
    uint64_t seed = pk_hash_u64(((uint64_t)pid << 32 | root) ^ ((uint64_t)mode << 61));
    return (pd_chain_key){bytes, (uint32_t)len, pid, mode, root,
                          XXH3_64bits_withSeed(bytes, len, seed)};
}

static bool chain_equal(const void *context, uint32_t entry, const void *key)
{
    const pd_chains *c = context;
    const pd_chain *item = &c->items[entry];
    const pd_chain_key *k = key;
    return item->len == k->len && item->pid == k->pid && item->mode == k->mode &&
           item->root == k->root &&
           (k->len == 0 || memcmp(c->bytes + item->offset, k->bytes, k->len) == 0);
}

uint32_t pd_chains_find(const pd_chains *c, const pd_chain_key *key)
{
    if (c->count == 0)
        return PK_NONE;
    uint32_t entry = pk_index_find(&c->index, key->hash, chain_equal, c, key);
    return entry == UINT32_MAX ? PK_NONE : c->items[entry].stack;
}

bool pd_chains_add(pd_chains *c, const pd_chain_key *key, uint32_t stack)
{
    if (key->len > PD_CHAINS_MAX_BYTES - c->bytes_len || c->count >= UINT32_MAX - 1)
        return true; /* full: the callchain is resolved again when it comes back */
    if (!PK_ARRAY_RESERVE(c->bytes, c->bytes_cap, c->bytes_len + key->len) ||
        !PK_ARRAY_RESERVE(c->items, c->cap, c->count + 1) ||
        !pk_index_insert(&c->index, key->hash, (uint32_t)c->count))
        return false;
    if (key->len) /* an empty callchain has no bytes to copy (and bytes may be NULL) */
        memcpy(c->bytes + c->bytes_len, key->bytes, key->len);
    c->items[c->count++] =
        (pd_chain){c->bytes_len, key->len, key->pid, key->mode, key->root, stack};
    c->bytes_len += key->len;
    return true;
}
