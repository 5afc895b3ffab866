/* SPDX-License-Identifier: MIT */
/* The stacks of the callchains already seen, so that a sample whose callchain came before is
 * one hash lookup instead of a mapping and frame lookup per address: a sampled program spends
 * its time in few places, and most samples repeat the callchain of an earlier one.
 *
 * A callchain is keyed by its bytes as the file has them (context markers included) with the
 * process, the sample's processor mode and its root stack (the thread's command), which is all
 * a stack depends on besides the process's mappings: the reader clears the table when
 * mappings change. The bytes kept are bounded (PD_CHAINS_MAX_BYTES); past that, new callchains
 * are no longer kept, and are resolved address by address. */
#ifndef PK_FORMATS_PERF_DATA_CHAINS_H
#define PK_FORMATS_PERF_DATA_CHAINS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/hashmap.h"

#define PD_CHAINS_MAX_BYTES (32u << 20)

typedef struct pd_chain {
    size_t offset; /* in bytes */
    uint32_t len, pid, mode, root, stack;
} pd_chain;

typedef struct pd_chains {
    pk_index index;
    pd_chain *items;
    size_t count, cap;
    uint8_t *bytes;
    size_t bytes_len, bytes_cap;
} pd_chains;

/* The key looked up or added. */
typedef struct pd_chain_key {
    const uint8_t *bytes;
    uint32_t len, pid, mode, root;
    uint64_t hash;
} pd_chain_key;

void pd_chains_init(pd_chains *c);
void pd_chains_free(pd_chains *c);
/* Forgets every callchain (the mappings changed). */
void pd_chains_clear(pd_chains *c);

pd_chain_key pd_chain_key_of(const uint8_t *bytes, size_t len, uint32_t pid, uint32_t mode,
                             uint32_t root);
/* The stack of key, PK_NONE when not kept. */
uint32_t pd_chains_find(const pd_chains *c, const pd_chain_key *key);
/* Keeps key's stack (nothing when the table is full); false when memory runs out. */
bool pd_chains_add(pd_chains *c, const pd_chain_key *key, uint32_t stack);

#endif
