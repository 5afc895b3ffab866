/* SPDX-License-Identifier: MIT */
/* Stack traces known across chunks, on the JFR loader's side (reader.h): each chunk's Method and
 * FrameType pools checked against what is known, its stack traces found by their frames' bytes
 * or decoded, and handed to the reader with the chunk (jfr_ahead). */
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "formats/jfr/reader.h"

/* The most frames known across chunks (8 bytes each, with their bytes) before what is known is
 * forgotten. */
#define JFR_KNOWN_FRAMES (4u << 20)

void jfr_known_init(jfr_known *k)
{
    memset(k, 0, sizeof *k);
    pk_u64map_init(&k->method_by_key);
    pk_index_init(&k->stack_by_bytes);
}

static void known_forget(jfr_known *k)
{
    pk_u64map_free(&k->method_by_key);
    pk_index_free(&k->stack_by_bytes);
    pk_index_init(&k->stack_by_bytes);
    k->method_count = k->names_len = k->stack_count = k->bytes_len = k->frame_count = 0;
    memset(k->frame_type, 0, sizeof k->frame_type);
    k->generation++;
}

void jfr_known_free(jfr_known *k)
{
    known_forget(k);
    pk_index_free(&k->stack_by_bytes);
    free(k->methods);
    free(k->names);
    free(k->stacks);
    free(k->bytes);
    free(k->frames);
}

/* Records that Method key, named name ("Class.method", len bytes, the class class_len of them),
 * is in this chunk's pool; false when it was known under another name (or memory runs out). */
static bool know_method(jfr_known *k, jfr_ahead *a, uint64_t key, size_t len, size_t class_len,
                        const char *name)
{
    uint32_t *known = pk_u64map_find(&k->method_by_key, key);
    uint32_t index;
    if (known) {
        index = *known;
        jfr_known_method *m = &k->methods[index];
        if (m->len != len || m->class_len != class_len ||
            memcmp(k->names + m->name, name, len) != 0)
            return false;
        m->chunk = k->chunk;
    } else {
        uint32_t *slot;
        bool inserted;
        if (k->method_count >= UINT32_MAX ||
            !PK_ARRAY_RESERVE(k->methods, k->method_cap, k->method_count + 1) ||
            !PK_ARRAY_RESERVE(k->names, k->names_cap, k->names_len + len) ||
            !pk_u64map_put(&k->method_by_key, key, (uint32_t)k->method_count, &slot, &inserted))
            return false;
        index = (uint32_t)k->method_count++;
        k->methods[index] = (jfr_known_method){key, k->chunk, k->names_len, len, class_len};
        memcpy(k->names + k->names_len, name, len);
        k->names_len += len;
    }
    if (!PK_ARRAY_RESERVE(a->methods, a->method_cap, a->method_count + 1) ||
        !PK_ARRAY_RESERVE(a->names, a->names_cap, a->names_len + len))
        return false;
    a->methods[a->method_count++] = (jfr_ahead_method){index, a->names_len, len, class_len};
    memcpy(a->names + a->names_len, name, len);
    a->names_len += len;
    return true;
}

/* The constant pool of type (an index into c's types), NULL when the chunk does not describe
 * the type. */
static const pk_u64map *pool_of(const jfr_chunk *c, uint32_t type)
{
    return type < c->type_count && c->types ? &c->types[type].pool : NULL;
}

/* Learns this chunk's methods and frame types (loader's side): each entry of its Method and
 * FrameType pools that decodes is known from this chunk on; one named otherwise than before
 * makes everything known be forgotten. Method entries that do not decode are left out: a
 * stack that uses one is resolved by the reader, which reports it. */
static bool learn_chunk_keys(jfr_reader *d, jfr_known *k, jfr_ahead *a)
{
    const jfr_layout *l = &d->l;
    a->method_count = a->names_len = 0;
    const pk_u64map *pool = pool_of(d->c, l->frame_type);
    for (size_t i = 0; pool && pool->slots && i <= pool->mask; i++) {
        uint64_t key = pool->slots[i].key;
        uint32_t type;
        if (!pool->slots[i].used || key >= JFR_SMALL_KEYS ||
            jfr_frame_type(d, key, &type) != PK_OK)
            continue;
        if (k->frame_type[key] && k->frame_type[key] != type + 1)
            return false;
        k->frame_type[key] = (uint8_t)(type + 1);
        k->frame_type_chunk[key] = k->chunk;
    }
    pool = pool_of(d->c, l->method);
    for (size_t i = 0; pool && pool->slots && i <= pool->mask; i++) {
        size_t len = 0, class_len = 0;
        if (pool->slots[i].used &&
            jfr_method_text(d, pool->slots[i].key, &len, &class_len) == PK_OK &&
            !know_method(k, a, pool->slots[i].key, len, class_len, d->name))
            return false;
    }
    return true;
}

/* Starts decoding a chunk's stacks (loader's side): whether they can be found by their bytes
 * (a StackFrame of integers and keys only, laid out as the known stacks' were), its methods
 * and frame types learnt; what no longer holds is forgotten first. */
void jfr_known_begin_chunk(jfr_reader *d, jfr_known *k, jfr_ahead *a)
{
    const jfr_layout *l = &d->l;
    const jfr_type *frame = l->frame != UINT32_MAX ? &d->c->types[l->frame] : NULL;
    int layout[4] = {frame ? (int)frame->field_count : -1, l->frame_method, l->frame_line,
                     l->frame_type_ref};
    k->chunk++;
    k->by_bytes = frame && frame->field_count && frame->varints == frame->field_count &&
                  l->frame_method >= 0;
    if (!k->by_bytes || memcmp(layout, k->layout, sizeof layout) != 0 ||
        k->frame_count > JFR_KNOWN_FRAMES)
        known_forget(k);
    memcpy(k->layout, layout, sizeof layout);
    if (!learn_chunk_keys(d, k, a)) {
        known_forget(k);
        if (!learn_chunk_keys(d, k, a)) /* a pool cannot contradict itself: out of memory */
            k->by_bytes = false;
    }
    a->generation = k->generation;
}

typedef struct jfr_bytes {
    const uint8_t *data;
    size_t len;
} jfr_bytes;

static bool known_stack_is(const void *context, uint32_t entry, const void *key)
{
    const jfr_known *k = context;
    const jfr_bytes *b = key;
    const jfr_known_stack *st = &k->stacks[entry];
    return st->len == b->len && memcmp(k->bytes + st->bytes, b->data, b->len) == 0;
}

/* True when every frame of known stack index names in this chunk what it named before. */
static bool known_stack_holds(const jfr_known *k, uint32_t index)
{
    const jfr_known_stack *st = &k->stacks[index];
    for (uint32_t i = 0; i < st->count; i++) {
        const jfr_known_frame *f = &k->frames[st->first + i];
        if (k->methods[f->method].chunk != k->chunk ||
            (f->type_key != JFR_NO_TYPE_KEY && k->frame_type_chunk[f->type_key] != k->chunk))
            return false;
    }
    return true;
}

/* Decodes the frames of a stack trace (count of them at cur) into a known stack and the
 * chunk's fresh frames; false when one does not decode or names what this chunk's pools do not
 * hold, so that the reader resolves the stack by its key (and reports it). *checked: every
 * frame type key is one whose meaning is checked chunk by chunk (the stack may be found by its
 * bytes). */
static bool decode_known_stack(jfr_reader *d, jfr_known *k, jfr_ahead *a, jfr_cursor *cur,
                               uint32_t count, jfr_ahead_stack *st, bool *checked)
{
    const jfr_layout *l = &d->l;
    *checked = true;
    if (k->stack_count >= UINT32_MAX - 1 ||
        !PK_ARRAY_RESERVE(k->frames, k->frame_cap, k->frame_count + count) ||
        !PK_ARRAY_RESERVE(a->frames, a->frame_cap, a->frame_count + count) ||
        !PK_ARRAY_RESERVE(k->stacks, k->stack_cap, k->stack_count + 1))
        return false;
    uint64_t *frame = d->values + d->c->max_fields; /* past the event's own values */
    for (uint32_t i = 0; i < count; i++) {
        uint32_t type = JFR_FRAME_JAVA;
        uint8_t type_key = JFR_NO_TYPE_KEY;
        if (!jfr_read_struct(cur, l->frame, frame))
            return false;
        if (l->frame_type_ref >= 0) {
            uint64_t key = frame[l->frame_type_ref];
            if (jfr_frame_type(d, key, &type) != PK_OK)
                return false;
            if (key < JFR_SMALL_KEYS)
                type_key = (uint8_t)key;
            else
                *checked = false;
        }
        const uint32_t *method = pk_u64map_find(&k->method_by_key, frame[l->frame_method]);
        if (!method || k->methods[*method].chunk != k->chunk)
            return false;
        k->frames[k->frame_count + i] = (jfr_known_frame){*method, type_key};
        a->frames[a->frame_count + i] = (jfr_ahead_frame){
            *method, jfr_frame_line(l->frame_line >= 0 ? frame[l->frame_line] : 0), type};
    }
    k->stacks[k->stack_count] = (jfr_known_stack){0, 0, k->frame_count, count};
    st->known = (uint32_t)k->stack_count++;
    st->fresh = true;
    st->first = (uint32_t)a->frame_count;
    st->count = count;
    k->frame_count += count;
    a->frame_count += count;
    return true;
}

/* Resolves StackTrace key of this chunk to a known stack (loader's side), found by its bytes
 * or decoded; st->known stays UINT32_MAX when the reader is to resolve it. */
static void resolve_ahead_stack(jfr_reader *d, jfr_known *k, jfr_ahead *a, uint64_t key,
                                jfr_ahead_stack *st)
{
    const jfr_layout *l = &d->l;
    size_t frames_at;
    if (l->stack == UINT32_MAX || l->stack_frames < 0 || l->frame == UINT32_MAX ||
        l->frame_method < 0 || l->method == UINT32_MAX ||
        jfr_read_entry_before(d, l->stack, key, "stack trace", l->stack_frames, d->entry_values,
                              &frames_at) != PK_OK)
        return;
    jfr_cursor cur = {d->c, frames_at, d->c->size};
    uint64_t count;
    if (!jfr_read_u64(&cur, &count) || count > d->c->size - cur.pos || count > JFR_KNOWN_FRAMES)
        return;
    jfr_bytes bytes = {d->c->data + frames_at, 0};
    uint64_t hash = 0;
    if (k->by_bytes) {
        /* the count and the frames, as they are */
        jfr_cursor end = cur;
        if (!jfr_skip_varints(&end, count * d->c->types[l->frame].varints))
            return;
        bytes.len = end.pos - frames_at;
        hash = XXH3_64bits(bytes.data, bytes.len);
        uint32_t found = pk_index_find(&k->stack_by_bytes, hash, known_stack_is, k, &bytes);
        if (found != UINT32_MAX && known_stack_holds(k, found)) {
            st->known = found;
            return;
        }
    }
    bool checked;
    if (!decode_known_stack(d, k, a, &cur, (uint32_t)count, st, &checked))
        return;
    /* found by its bytes in the chunks to come */
    jfr_known_stack *known = &k->stacks[st->known];
    if (k->by_bytes && checked &&
        PK_ARRAY_RESERVE(k->bytes, k->bytes_cap, k->bytes_len + bytes.len) &&
        pk_index_insert(&k->stack_by_bytes, hash, st->known)) {
        known->bytes = k->bytes_len;
        known->len = bytes.len;
        memcpy(k->bytes + k->bytes_len, bytes.data, bytes.len);
        k->bytes_len += bytes.len;
    }
}

/* The index of StackTrace key among the chunk's stacks (loader's side), resolved on first use;
 * UINT32_MAX when there is no room, so that the reader resolves it by its key. */
uint32_t jfr_ahead_stack_slot(jfr_reader *d, jfr_known *k, jfr_ahead *a, uint64_t key)
{
    uint32_t *known = pk_u64map_find(&a->stack_slots, key);
    if (known)
        return *known;
    uint32_t *slot;
    bool inserted;
    if (a->stack_count >= UINT32_MAX - 1 ||
        !PK_ARRAY_RESERVE(a->stacks, a->stack_cap, a->stack_count + 1) ||
        !pk_u64map_put(&a->stack_slots, key, (uint32_t)a->stack_count, &slot, &inserted))
        return UINT32_MAX;
    jfr_ahead_stack *st = &a->stacks[a->stack_count];
    *st = (jfr_ahead_stack){key, UINT32_MAX, false, 0, 0};
    resolve_ahead_stack(d, k, a, key, st);
    return (uint32_t)a->stack_count++;
}

void jfr_ahead_clear(jfr_ahead *a)
{
    pk_u64map_free(&a->stack_slots);
    a->stack_count = a->frame_count = a->method_count = a->names_len = 0;
}

void jfr_ahead_free(jfr_ahead *a)
{
    jfr_ahead_clear(a);
    free(a->stacks);
    free(a->frames);
    free(a->methods);
    free(a->names);
}
