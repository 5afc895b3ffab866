/* SPDX-License-Identifier: MIT */
/* Probing JSON formats by the keys of their first block (see json_probe.h). */
#include "core/json_probe.h"

#include "core/json_input.h"

typedef struct probe_state {
    pk_json_probe_key *keys;
    size_t n;
} probe_state;

static void mark(pk_json_parser *jp, probe_state *st, const pk_json_scalar *v)
{
    for (size_t i = 0; i < st->n; i++) {
        pk_json_probe_key *k = &st->keys[i];
        if (k->found || !pk_json_parser_match(jp, 0, k->path))
            continue;
        if (!k->value || (v && pk_json_scalar_is(v, k->value)))
            k->found = true;
    }
}

static bool on_scalar(void *ctx, pk_json_parser *jp, const pk_json_scalar *v)
{
    mark(jp, ctx, v);
    return true;
}

static bool on_begin(void *ctx, pk_json_parser *jp, bool is_array)
{
    (void)is_array;
    mark(jp, ctx, NULL);
    return true;
}

int pk_json_first_byte(const uint8_t *data, size_t size)
{
    size_t i = 0;
    if (size >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF)
        i = 3;
    for (; i < size; i++) {
        uint8_t c = data[i];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            return c;
    }
    return -1;
}

int pk_json_probe(const uint8_t *data, size_t size, pk_json_probe_key *keys, size_t n)
{
    int first = pk_json_first_byte(data, size);
    if (first != '{' && first != '[')
        return -1;
    for (size_t i = 0; i < n; i++)
        keys[i].found = false;
    probe_state st = {keys, n};
    pk_json_parser jp;
    pk_json_parser_init(&jp, &(pk_json_handler){.scalar = on_scalar, .begin = on_begin}, &st);
    pk_json_end how = pk_json_parser_run_memory(&jp, data, size);
    pk_json_parser_release(&jp);
    int found = 0;
    for (size_t i = 0; i < n; i++)
        found += keys[i].found;
    /* Keys met before a syntax error count: a damaged file is still its format, and its reader
     * says where the damage is. */
    if (how != PK_JSON_COMPLETE && how != PK_JSON_CUT && found == 0)
        return -1;
    return found;
}
