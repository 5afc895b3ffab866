/* SPDX-License-Identifier: MIT */
/* The JFR chunk codec: headers, compressed integers, strings, the metadata event and the
 * constant pools of checkpoint events (jfr.h). Facts from the JDK's own reader: integers in
 * events are compressed seven bits a byte, low bits first, the ninth byte giving all its eight;
 * a string is an encoding byte (0 null, 1 empty, 2 a key into the java.lang.String pool,
 * 3 UTF-8, 4 UTF-16 code units each compressed, 5 Latin-1) and its payload. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/damage.h"
#include "formats/jfr/jfr.h"

#define JFR_MAX_DEPTH 32

static uint64_t be_u64(const uint8_t *b)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | b[i];
    return v;
}

pk_status jfr_chunk_header(jfr_chunk *c, const uint8_t *data, uint64_t file_offset,
                           uint64_t *size, bool *finished, pk_error *err)
{
    if (memcmp(data, "FLR\0", 4) != 0)
        return pk_error_set(err, PK_ERR_INPUT, (int64_t)file_offset,
                            "no JFR chunk here (its magic \"FLR\\0\" is missing)");
    c->file_offset = file_offset;
    c->major = (uint16_t)(data[4] << 8 | data[5]);
    c->minor = (uint16_t)(data[6] << 8 | data[7]);
    if (c->major != 1 && c->major != 2)
        return pk_error_set(err, PK_ERR_INPUT, (int64_t)file_offset + 4,
                            "JFR chunk version %u.%u: only 1.x and 2.x are read%s", c->major,
                            c->minor,
                            c->major == 0 ? " (version 0, JDK 7 and 8's, is another format)" : "");
    *size = be_u64(data + 8);
    c->metadata_offset = be_u64(data + 24);
    c->start_nanos = (int64_t)be_u64(data + 32);
    c->start_ticks = (int64_t)be_u64(data + 48);
    c->ticks_per_second = (int64_t)be_u64(data + 56);
    /* Version 2 keeps a file state at byte 64: 0 once the JVM has finished the chunk, and
     * flags at bytes 66-67; version 1 a 32-bit word of features at bytes 64-67 (JMC's
     * ChunkStructure). Both have bit 0 of byte 67 set when integers are compressed. */
    *finished = c->major < 2 || data[64] == 0;
    c->compressed_integers = data[67] & 1;
    if (*size < JFR_HEADER_SIZE)
        return pk_error_set(err, PK_ERR_INPUT, (int64_t)file_offset + 8,
                            "JFR chunk size %llu is smaller than its header",
                            (unsigned long long)*size);
    if (c->ticks_per_second <= 0)
        return pk_error_set(err, PK_ERR_INPUT, (int64_t)file_offset + 56,
                            "JFR chunk has %lld ticks per second", (long long)c->ticks_per_second);
    return PK_OK;
}

/* ---- integers and strings ------------------------------------------------------------------ */

bool jfr_read_byte(jfr_cursor *cur, uint8_t *value)
{
    if (cur->pos >= cur->end)
        return false;
    *value = cur->chunk->data[cur->pos++];
    return true;
}

bool jfr_read_u64(jfr_cursor *cur, uint64_t *value)
{
    /* seven bits a byte while the top bit is set, the ninth byte whole; cut short, the cursor
     * is left at its end */
    size_t left = jfr_cursor_left(cur);
    const uint8_t *b = cur->chunk->data + (left ? cur->pos : 0);
    uint64_t v = 0;
    for (size_t i = 0; i < 9; i++) {
        if (i >= left) {
            cur->pos = cur->end;
            return false;
        }
        if (i == 8) {
            v |= (uint64_t)b[i] << 56;
            cur->pos += 9;
            break;
        }
        v |= (uint64_t)(b[i] & 0x7f) << (7 * i);
        if (!(b[i] & 0x80)) {
            cur->pos += i + 1;
            break;
        }
    }
    *value = v;
    return true;
}

bool jfr_skip_varints(jfr_cursor *cur, uint64_t n)
{
    const uint8_t *data = cur->chunk->data;
    size_t pos = cur->pos, end = cur->end;
    for (uint64_t k = 0; k < n; k++) {
        size_t last = pos + 8; /* the ninth byte ends an integer whatever its top bit */
        for (;;) {
            if (pos >= end) {
                cur->pos = end;
                return false;
            }
            if (!(data[pos++] & 0x80) || pos > last)
                break;
        }
    }
    cur->pos = pos;
    return true;
}

/* A count of items that take at least one byte each: never more than the bytes left. */
static bool read_count(jfr_cursor *cur, uint64_t *count)
{
    return jfr_read_u64(cur, count) && *count <= jfr_cursor_left(cur);
}

static bool skip_bytes(jfr_cursor *cur, uint64_t n)
{
    if (n > jfr_cursor_left(cur))
        return false;
    cur->pos += (size_t)n;
    return true;
}

/* Room for need bytes in *text (capacity *cap), growing it by doubling; false when memory runs
 * out. true always leaves a buffer in *text, even for need 0. */
bool jfr_text_reserve(char **text, size_t *cap, size_t need)
{
    if (need <= *cap && *text)
        return true;
    size_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    char *t = realloc(*text, n);
    if (!t)
        return false;
    *text = t;
    *cap = n;
    return true;
}

static size_t put_utf8(char *out, uint32_t cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xc0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | cp >> 12);
        out[1] = (char)(0x80 | (cp >> 6 & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | cp >> 18);
    out[1] = (char)(0x80 | (cp >> 12 & 0x3f));
    out[2] = (char)(0x80 | (cp >> 6 & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* Decodes an inline string (not a pool key) at the cursor; *key_out receives a pool key for
 * encoding 2 (with *is_key set). */
static bool decode_string(jfr_cursor *cur, char **text, size_t *cap, size_t *len, bool *is_key,
                          uint64_t *key)
{
    uint8_t encoding;
    uint64_t n;
    *len = 0;
    *is_key = false;
    if (!jfr_read_byte(cur, &encoding))
        return false;
    switch (encoding) {
    case 0:
    case 1:
        break;
    case 2:
        *is_key = true;
        return jfr_read_u64(cur, key);
    case 3:
    case 5:
        if (!read_count(cur, &n) || !jfr_text_reserve(text, cap, (size_t)n * 2 + 1))
            return false;
        for (uint64_t i = 0; i < n; i++) {
            uint8_t b = cur->chunk->data[cur->pos++];
            *len += encoding == 3 ? (size_t)((*text)[*len] = (char)b, 1) : put_utf8(*text + *len, b);
        }
        break;
    case 4:
        if (!read_count(cur, &n) || !jfr_text_reserve(text, cap, (size_t)n * 4 + 1))
            return false;
        for (uint64_t i = 0; i < n; i++) {
            uint64_t unit;
            if (!jfr_read_u64(cur, &unit))
                return false;
            uint32_t cp = (uint32_t)(unit & 0xffff);
            /* a high surrogate followed by a low one is one code point */
            if (cp >= 0xd800 && cp < 0xdc00 && i + 1 < n) {
                jfr_cursor peek = *cur;
                uint64_t low;
                if (jfr_read_u64(&peek, &low) && (low & 0xffff) >= 0xdc00 &&
                    (low & 0xffff) < 0xe000) {
                    cp = 0x10000 + ((cp - 0xd800) << 10) + ((uint32_t)(low & 0xffff) - 0xdc00);
                    *cur = peek;
                    i++;
                }
            }
            *len += put_utf8(*text + *len, cp);
        }
        break;
    default:
        return false;
    }
    if (!jfr_text_reserve(text, cap, *len + 1))
        return false;
    (*text)[*len] = '\0';
    return true;
}

static bool skip_string(jfr_cursor *cur)
{
    uint8_t encoding;
    uint64_t n, unit;
    if (!jfr_read_byte(cur, &encoding))
        return false;
    switch (encoding) {
    case 0:
    case 1:
        return true;
    case 2:
        return jfr_read_u64(cur, &n);
    case 3:
    case 5:
        return read_count(cur, &n) && skip_bytes(cur, n);
    case 4:
        if (!read_count(cur, &n))
            return false;
        for (uint64_t i = 0; i < n; i++)
            if (!jfr_read_u64(cur, &unit))
                return false;
        return true;
    default:
        return false;
    }
}

bool jfr_string_at(const jfr_chunk *c, size_t offset, bool constant_pool, char **text,
                   size_t *cap)
{
    uint64_t key = 0;
    bool is_key = constant_pool;
    jfr_cursor cur = {c, offset, c->size};
    /* a string pool entry may itself be a key, but not for ever */
    for (int hops = 0; hops < 4; hops++) {
        if (is_key) {
            if (constant_pool && hops == 0 && !jfr_read_u64(&cur, &key))
                return false;
            size_t at;
            if (c->string_type == UINT32_MAX || !jfr_pool_entry(c, c->string_type, key, &at))
                return false;
            cur.pos = at;
        }
        size_t len;
        if (!decode_string(&cur, text, cap, &len, &is_key, &key))
            return false;
        if (!is_key)
            return true;
    }
    return false;
}

/* ---- values ---------------------------------------------------------------------------------- */

static bool skip_value(jfr_cursor *cur, uint32_t type, int depth);

static bool skip_fields(jfr_cursor *cur, uint32_t type, int depth)
{
    const jfr_type *t = &cur->chunk->types[type];
    for (uint32_t i = 0; i < t->field_count; i++) {
        uint64_t ignored;
        const jfr_field *f = &t->fields[i];
        if (f->array || f->constant_pool || t->fields[i].type != type) {
            if (depth > JFR_MAX_DEPTH)
                return false;
            uint64_t n = 1;
            if (f->array && !read_count(cur, &n))
                return false;
            /* keys, or structs of integers: one run of integers */
            uint64_t per_item = f->constant_pool ? 1
                                : depth < JFR_MAX_DEPTH ? cur->chunk->types[f->type].varints : 0;
            if (per_item) {
                if (n > UINT64_MAX / per_item || !jfr_skip_varints(cur, n * per_item))
                    return false;
                continue;
            }
            for (uint64_t k = 0; k < n; k++)
                if (f->constant_pool ? !jfr_read_u64(cur, &ignored)
                                     : !skip_value(cur, f->type, depth + 1))
                    return false;
        } else {
            return false; /* a struct that holds itself inline never ends */
        }
    }
    return true;
}

static bool skip_value(jfr_cursor *cur, uint32_t type, int depth)
{
    uint64_t ignored;
    uint8_t b;
    switch (cur->chunk->types[type].kind) {
    case JFR_KIND_BOOLEAN:
    case JFR_KIND_BYTE:
        return jfr_read_byte(cur, &b);
    case JFR_KIND_INTEGER:
        return jfr_read_u64(cur, &ignored);
    case JFR_KIND_FLOAT:
        return skip_bytes(cur, 4);
    case JFR_KIND_DOUBLE:
        return skip_bytes(cur, 8);
    case JFR_KIND_STRING:
        return skip_string(cur);
    case JFR_KIND_STRUCT:
        /* nothing to skip: nested structs of nothing would otherwise be visited 2^depth times */
        if (cur->chunk->types[type].empty)
            return true;
        if (depth > JFR_MAX_DEPTH)
            return false;
        if (cur->chunk->types[type].varints)
            return jfr_skip_varints(cur, cur->chunk->types[type].varints);
        return skip_fields(cur, type, depth);
    }
    return false;
}

bool jfr_read_field(jfr_cursor *cur, const jfr_field *f, uint64_t *value)
{
    uint8_t b;
    *value = cur->pos;
    if (f->array) {
        uint64_t n;
        if (!read_count(cur, &n))
            return false;
        /* an array of keys or of structs of integers (a stack trace's frames): one run */
        const jfr_type *t = &cur->chunk->types[f->type];
        uint64_t per_item = f->constant_pool ? 1 : t->varints;
        if (per_item)
            return n <= UINT64_MAX / per_item && jfr_skip_varints(cur, n * per_item);
        for (uint64_t k = 0; k < n; k++)
            if (!skip_value(cur, f->type, 1))
                return false;
        return true;
    }
    if (f->constant_pool)
        return jfr_read_u64(cur, value);
    switch (cur->chunk->types[f->type].kind) {
    case JFR_KIND_BOOLEAN:
    case JFR_KIND_BYTE:
        if (!jfr_read_byte(cur, &b))
            return false;
        *value = b;
        return true;
    case JFR_KIND_INTEGER:
        return jfr_read_u64(cur, value);
    default:
        return skip_value(cur, f->type, 1);
    }
}

bool jfr_read_fields(jfr_cursor *cur, uint32_t type, uint64_t *values, uint32_t count)
{
    const jfr_type *t = &cur->chunk->types[type];
    if (count > t->field_count)
        count = t->field_count;
    if (t->varints == t->field_count) {
        /* compressed integers and keys only (a stack frame): each field one integer */
        for (uint32_t i = 0; i < count; i++)
            if (!jfr_read_u64(cur, &values[i]))
                return false;
        return true;
    }
    for (uint32_t i = 0; i < count; i++)
        if (!jfr_read_field(cur, &t->fields[i], &values[i]))
            return false;
    return true;
}

bool jfr_read_struct(jfr_cursor *cur, uint32_t type, uint64_t *values)
{
    return jfr_read_fields(cur, type, values, cur->chunk->types[type].field_count);
}

bool jfr_pool_entry(const jfr_chunk *c, uint32_t type, uint64_t key, size_t *offset)
{
    const uint32_t *entry = pk_u64map_find(&c->types[type].pool, key);
    if (!entry)
        return false;
    *offset = (size_t)c->entries[*entry];
    return true;
}

static uint32_t type_spelled(const jfr_chunk *c, const char *prefix, const char *rest)
{
    size_t n = strlen(prefix);
    for (uint32_t i = 0; i < c->type_count; i++)
        if (strncmp(c->types[i].name, prefix, n) == 0 && strcmp(c->types[i].name + n, rest) == 0)
            return i;
    return UINT32_MAX;
}

/* Version 1 chunks (JDK 9 and 10) spell the JDK's events "com.oracle.jdk.X" and its types
 * "com.oracle.jfr.types.X" where version 2 has "jdk.X" and "jdk.types.X"; their layout is the
 * same (the JDK's own parser maps the type names so, jdk.jfr.internal.consumer.ObjectFactory).
 * A name asked for in its version 2 spelling finds either. */
uint32_t jfr_type_named(const jfr_chunk *c, const char *name)
{
    uint32_t i = type_spelled(c, "", name);
    if (i != UINT32_MAX)
        return i;
    if (strncmp(name, "jdk.types.", 10) == 0)
        return type_spelled(c, "com.oracle.jfr.types.", name + 10);
    if (strncmp(name, "jdk.", 4) == 0)
        return type_spelled(c, "com.oracle.jdk.", name + 4);
    return UINT32_MAX;
}

int jfr_field_named(const jfr_chunk *c, uint32_t type, const char *name)
{
    if (type == UINT32_MAX)
        return -1;
    const jfr_type *t = &c->types[type];
    for (uint32_t i = 0; i < t->field_count; i++)
        if (strcmp(t->fields[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* ---- metadata -------------------------------------------------------------------------------- */

/* The metadata as read: its strings, then a tree of elements, each a name, attributes (pairs of
 * string indexes) and children. Only classes and their fields matter here. */
typedef struct meta_reader {
    jfr_chunk *c;
    jfr_cursor cur;
    const char **strings;
    uint64_t string_count;
    uint64_t *field_type_ids; /* per field, its type's id until every type is known */
    size_t type_cap, field_count, field_cap;
    pk_error *err;
} meta_reader;

static const char *meta_string(meta_reader *m, uint64_t index)
{
    return index < m->string_count ? m->strings[index] : NULL;
}

static bool parse_u64(const char *s, uint64_t *v)
{
    if (!s || !*s)
        return false;
    char *end;
    *v = strtoull(s, &end, 10);
    return *end == '\0';
}

static pk_status meta_fail(meta_reader *m, const char *what)
{
    return pk_error_set(m->err, PK_ERR_INPUT, (int64_t)(m->c->file_offset + m->cur.pos),
                        "JFR metadata: %s", what);
}

/* Reads one element; parent_kind 1 inside a class (its fields are children). */
static pk_status meta_element(meta_reader *m, int depth, bool in_class)
{
    uint64_t name_index, attribute_count, child_count;
    if (depth > JFR_MAX_DEPTH)
        return meta_fail(m, "elements nested too deep");
    if (!jfr_read_u64(&m->cur, &name_index) || !read_count(&m->cur, &attribute_count))
        return meta_fail(m, "an element is cut short");
    const char *name = meta_string(m, name_index);
    if (!name)
        return meta_fail(m, "an element names a string the metadata does not have");
    const char *id = NULL, *type_name = NULL, *field_class = NULL, *pool = NULL, *dimension = NULL;
    for (uint64_t i = 0; i < attribute_count; i++) {
        uint64_t k, v;
        if (!jfr_read_u64(&m->cur, &k) || !jfr_read_u64(&m->cur, &v))
            return meta_fail(m, "an attribute is cut short");
        const char *key = meta_string(m, k), *value = meta_string(m, v);
        if (!key || !value)
            return meta_fail(m, "an attribute names a string the metadata does not have");
        if (strcmp(key, "id") == 0)
            id = value;
        else if (strcmp(key, "name") == 0)
            type_name = value;
        else if (strcmp(key, "class") == 0)
            field_class = value;
        else if (strcmp(key, "constantPool") == 0)
            pool = value;
        else if (strcmp(key, "dimension") == 0)
            dimension = value;
    }
    jfr_chunk *c = m->c;
    bool is_class = strcmp(name, "class") == 0;
    if (is_class) {
        uint64_t type_id;
        if (!parse_u64(id, &type_id) || !type_name)
            return meta_fail(m, "a class without a numeric id or a name");
        if (c->type_count == m->type_cap) {
            size_t n = m->type_cap ? m->type_cap * 2 : 256;
            jfr_type *t = realloc(c->types, n * sizeof *t);
            if (!t)
                return pk_error_set(m->err, PK_ERR_NOMEM, -1, "out of memory");
            c->types = t;
            m->type_cap = n;
        }
        jfr_type *t = &c->types[c->type_count];
        memset(t, 0, sizeof *t);
        t->id = type_id;
        t->name = type_name;
        t->fields = (jfr_field *)(uintptr_t)m->field_count; /* an index until fields settle */
        pk_u64map_init(&t->pool);
        pk_u64map_init(&t->resolved);
        uint32_t *slot;
        bool inserted;
        if (!pk_u64map_put(&c->type_by_id, type_id, c->type_count, &slot, &inserted))
            return pk_error_set(m->err, PK_ERR_NOMEM, -1, "out of memory");
        if (!inserted)
            return meta_fail(m, "two classes have one id");
        c->type_count++;
    } else if (in_class && strcmp(name, "field") == 0) {
        uint64_t type_id;
        if (!type_name || !parse_u64(field_class, &type_id))
            return meta_fail(m, "a field without a name or a numeric class");
        if (m->field_count == m->field_cap) {
            size_t n = m->field_cap ? m->field_cap * 2 : 1024;
            jfr_field *f = realloc(c->fields, n * sizeof *f);
            uint64_t *ids = realloc(m->field_type_ids, n * sizeof *ids);
            if (f)
                c->fields = f;
            if (ids)
                m->field_type_ids = ids;
            if (!f || !ids)
                return pk_error_set(m->err, PK_ERR_NOMEM, -1, "out of memory");
            m->field_cap = n;
        }
        jfr_field *f = &c->fields[m->field_count];
        f->name = type_name;
        f->type = UINT32_MAX;
        f->constant_pool = pool && strcmp(pool, "true") == 0;
        f->array = dimension && strcmp(dimension, "0") != 0;
        m->field_type_ids[m->field_count++] = type_id;
        c->types[c->type_count - 1].field_count++;
    }
    if (!read_count(&m->cur, &child_count))
        return meta_fail(m, "an element is cut short");
    for (uint64_t i = 0; i < child_count; i++) {
        pk_status s = meta_element(m, depth + 1, is_class);
        if (s != PK_OK)
            return s;
    }
    return PK_OK;
}

static jfr_kind kind_of(const char *name)
{
    static const struct {
        const char *name;
        jfr_kind kind;
    } primitives[] = {
        {"boolean", JFR_KIND_BOOLEAN}, {"byte", JFR_KIND_BYTE},    {"char", JFR_KIND_INTEGER},
        {"short", JFR_KIND_INTEGER},   {"int", JFR_KIND_INTEGER},  {"long", JFR_KIND_INTEGER},
        {"float", JFR_KIND_FLOAT},     {"double", JFR_KIND_DOUBLE}, {"java.lang.String", JFR_KIND_STRING},
    };
    for (size_t i = 0; i < sizeof primitives / sizeof primitives[0]; i++)
        if (strcmp(name, primitives[i].name) == 0)
            return primitives[i].kind;
    return JFR_KIND_STRUCT;
}

/* Marks the structs whose values take no bytes: those whose every field is a single value of
 * such a struct. Settled one level of nesting a pass; past JFR_MAX_DEPTH levels, where values
 * are not read anyway, a struct is left marked. */
static void mark_empty_types(jfr_chunk *c)
{
    for (uint32_t i = 0; i < c->type_count; i++)
        c->types[i].empty = c->types[i].kind == JFR_KIND_STRUCT;
    bool changed = true;
    for (int pass = 0; changed && pass <= JFR_MAX_DEPTH + 1; pass++) {
        changed = false;
        for (uint32_t i = 0; i < c->type_count; i++) {
            jfr_type *t = &c->types[i];
            for (uint32_t k = 0; t->empty && k < t->field_count; k++) {
                const jfr_field *f = &t->fields[k];
                if (f->array || f->constant_pool || !c->types[f->type].empty) {
                    t->empty = false;
                    changed = true;
                }
            }
        }
    }
}

/* Counts the compressed integers of the structs made of nothing else (single integers,
 * constant-pool keys, structs of no bytes): a stack frame, for one, is skipped as a run of them
 * without a walk through its fields. 0 for every other type. */
static void count_varints(jfr_chunk *c)
{
    for (uint32_t i = 0; i < c->type_count; i++) {
        jfr_type *t = &c->types[i];
        uint32_t n = 0;
        bool flat = t->kind == JFR_KIND_STRUCT && !t->empty;
        for (uint32_t k = 0; flat && k < t->field_count; k++) {
            const jfr_field *f = &t->fields[k];
            const jfr_type *ft = &c->types[f->type];
            if (f->array)
                flat = false;
            else if (f->constant_pool || ft->kind == JFR_KIND_INTEGER)
                n++;
            else if (!(ft->kind == JFR_KIND_STRUCT && ft->empty))
                flat = false;
        }
        t->varints = flat ? n : 0;
    }
}

static pk_status read_metadata(jfr_chunk *c, pk_error *err)
{
    meta_reader m = {.c = c, .cur = {c, (size_t)c->metadata_offset, c->size}, .err = err};
    uint64_t event_size, type_id, ignored;
    if (c->metadata_offset < JFR_HEADER_SIZE || c->metadata_offset >= c->size)
        return pk_error_set(err, PK_ERR_INPUT, (int64_t)c->file_offset + 24,
                            "JFR metadata offset %llu is outside its chunk of %zu bytes",
                            (unsigned long long)c->metadata_offset, c->size);
    if (!jfr_read_u64(&m.cur, &event_size) || event_size > c->size - c->metadata_offset ||
        !jfr_read_u64(&m.cur, &type_id))
        return meta_fail(&m, "its event size is past the chunk");
    m.cur.end = (size_t)(c->metadata_offset + event_size);
    if (m.cur.pos > m.cur.end)
        return meta_fail(&m, "its event size is smaller than its own size and type");
    if (type_id != JFR_TYPE_METADATA)
        return meta_fail(&m, "the event at the metadata offset is not metadata");
    /* start time, duration, metadata id */
    if (!jfr_read_u64(&m.cur, &ignored) || !jfr_read_u64(&m.cur, &ignored) ||
        !jfr_read_u64(&m.cur, &ignored) || !read_count(&m.cur, &m.string_count))
        return meta_fail(&m, "its header is cut short");
    pk_status status = PK_OK;
    char *text = NULL;
    size_t cap = 0, arena_size = 0, arena_cap = 0;
    size_t *offsets = calloc(m.string_count ? (size_t)m.string_count : 1, sizeof *offsets);
    if (!offsets)
        return pk_error_set(err, PK_ERR_NOMEM, -1, "out of memory");
    for (uint64_t i = 0; i < m.string_count && status == PK_OK; i++) {
        size_t len;
        bool is_key;
        uint64_t key;
        if (!decode_string(&m.cur, &text, &cap, &len, &is_key, &key) || is_key) {
            status = meta_fail(&m, "a string is cut short or of an unknown encoding");
            break;
        }
        if (!jfr_text_reserve(&c->strings_arena, &arena_cap, arena_size + len + 1)) {
            status = pk_error_set(err, PK_ERR_NOMEM, -1, "out of memory");
            break;
        }
        memcpy(c->strings_arena + arena_size, text ? text : "", len);
        c->strings_arena[arena_size + len] = '\0';
        offsets[i] = arena_size;
        arena_size += len + 1;
    }
    free(text);
    if (status == PK_OK) {
        m.strings = calloc(m.string_count ? (size_t)m.string_count : 1, sizeof *m.strings);
        if (!m.strings)
            status = pk_error_set(err, PK_ERR_NOMEM, -1, "out of memory");
        else
            for (uint64_t i = 0; i < m.string_count; i++)
                m.strings[i] = c->strings_arena + offsets[i];
    }
    free(offsets);
    if (status == PK_OK)
        status = meta_element(&m, 0, false);
    /* settle the fields: their types by id, their place in their class */
    for (uint32_t i = 0; status == PK_OK && i < c->type_count; i++) {
        jfr_type *t = &c->types[i];
        size_t first = (size_t)(uintptr_t)t->fields;
        t->fields = t->field_count ? c->fields + first : NULL;
        t->kind = kind_of(t->name);
        if (t->kind != JFR_KIND_STRUCT)
            t->field_count = 0;
        if (t->field_count > c->max_fields)
            c->max_fields = t->field_count;
        for (uint32_t k = 0; k < t->field_count; k++) {
            const uint32_t *index = pk_u64map_find(&c->type_by_id, m.field_type_ids[first + k]);
            if (!index) {
                status = pk_error_set(err, PK_ERR_INPUT, (int64_t)(c->file_offset + c->metadata_offset),
                                      "JFR metadata: field %s of %s has type %llu, which it does "
                                      "not describe", t->fields[k].name, t->name,
                                      (unsigned long long)m.field_type_ids[first + k]);
                break;
            }
            t->fields[k].type = *index;
        }
    }
    if (status != PK_OK)
        for (uint32_t i = 0; i < c->type_count; i++)
            c->types[i].fields = NULL;
    else {
        mark_empty_types(c);
        count_varints(c);
    }
    c->string_type = jfr_type_named(c, "java.lang.String");
    free(m.strings);
    free(m.field_type_ids);
    return status;
}

/* ---- constant pools -------------------------------------------------------------------------- */

static pk_status read_checkpoint(jfr_chunk *c, jfr_cursor *cur, pk_error *err)
{
    uint64_t ignored, pool_count;
    uint8_t flags;
    /* start time, duration, delta to the previous checkpoint, then a byte of flags */
    if (!jfr_read_u64(cur, &ignored) || !jfr_read_u64(cur, &ignored) ||
        !jfr_read_u64(cur, &ignored) || !jfr_read_byte(cur, &flags) ||
        !read_count(cur, &pool_count))
        return pk_error_set(err, PK_ERR_INPUT, (int64_t)(c->file_offset + cur->pos),
                            "JFR checkpoint is cut short");
    for (uint64_t i = 0; i < pool_count; i++) {
        uint64_t type_id, count;
        size_t at = cur->pos;
        if (!jfr_read_u64(cur, &type_id) || !read_count(cur, &count))
            return pk_error_set(err, PK_ERR_INPUT, (int64_t)(c->file_offset + at),
                                "JFR constant pool is cut short");
        const uint32_t *type = pk_u64map_find(&c->type_by_id, type_id);
        if (!type)
            return pk_error_set(err, PK_ERR_INPUT, (int64_t)(c->file_offset + at),
                                "JFR constant pool of type %llu, which the metadata does not "
                                "describe", (unsigned long long)type_id);
        for (uint64_t k = 0; k < count; k++) {
            uint64_t key;
            size_t entry_at = cur->pos;
            if (!jfr_read_u64(cur, &key))
                return pk_error_set(err, PK_ERR_INPUT, (int64_t)(c->file_offset + entry_at),
                                    "JFR constant pool entry is cut short");
            size_t value_at = cur->pos;
            if (!skip_value(cur, *type, 0))
                return pk_error_set(err, PK_ERR_INPUT, (int64_t)(c->file_offset + value_at),
                                    "JFR constant pool entry of %s is cut short or malformed",
                                    c->types[*type].name);
            if (c->entry_count == c->entry_cap) {
                size_t n = c->entry_cap ? c->entry_cap * 2 : 1024;
                uint64_t *e = realloc(c->entries, n * sizeof *e);
                if (!e)
                    return pk_error_set(err, PK_ERR_NOMEM, -1, "out of memory");
                c->entries = e;
                c->entry_cap = n;
            }
            uint32_t *slot;
            bool inserted;
            if (!pk_u64map_put(&c->types[*type].pool, key, (uint32_t)c->entry_count, &slot,
                               &inserted))
                return pk_error_set(err, PK_ERR_NOMEM, -1, "out of memory");
            if (inserted)
                c->entries[c->entry_count++] = value_at;
        }
    }
    return PK_OK;
}

static pk_status chunk_load(jfr_chunk *c, pk_error *err);

pk_status jfr_chunk_load(jfr_chunk *c, pk_error *err)
{
    pk_status status = chunk_load(c, err);
    /* a chunk that says its integers are fixed-width, read as compressed ones as the JDK
     * does, may well fail for that: say so */
    if (status == PK_ERR_INPUT && !c->compressed_integers) {
        size_t n = strlen(err->message);
        snprintf(err->message + n, sizeof err->message - n,
                 " (the chunk says its integers are not compressed, bit 0 of header byte %llu "
                 "clear; they are read compressed, as the JDK reads them)",
                 (unsigned long long)c->file_offset + 67);
    }
    return status;
}

static pk_status chunk_load(jfr_chunk *c, pk_error *err)
{
    pk_u64map_init(&c->type_by_id);
    pk_status status = read_metadata(c, err);
    if (status != PK_OK)
        return status;
    /* every event is a size and a type; checkpoints carry the constant pools */
    jfr_cursor cur = {c, JFR_HEADER_SIZE, c->size};
    while (cur.pos < c->size) {
        size_t at = cur.pos;
        uint64_t size, type;
        if (!jfr_read_u64(&cur, &size) || size == 0 || size > c->size - at)
            return pk_error_set(err, PK_ERR_INPUT, (int64_t)(c->file_offset + at),
                                "JFR event size runs past its chunk (which ends at offset %llu)",
                                (unsigned long long)(c->file_offset + c->size));
        jfr_cursor event = {c, cur.pos, at + (size_t)size};
        if (event.pos > event.end || !jfr_read_u64(&event, &type))
            return pk_error_set(err, PK_ERR_INPUT, (int64_t)(c->file_offset + at),
                                "JFR event is cut short");
        if (type == JFR_TYPE_CHECKPOINT) {
            status = read_checkpoint(c, &event, err);
            if (status != PK_OK)
                return status;
        } else if (type != JFR_TYPE_METADATA && !pk_u64map_find(&c->type_by_id, type)) {
            return pk_error_set(err, PK_ERR_INPUT, (int64_t)(c->file_offset + at),
                                "JFR event of type %llu, which the metadata does not describe",
                                (unsigned long long)type);
        }
        cur.pos = at + (size_t)size;
    }
    return PK_OK;
}

void jfr_chunk_release(jfr_chunk *c)
{
    for (uint32_t i = 0; i < c->type_count; i++) {
        pk_u64map_free(&c->types[i].pool);
        pk_u64map_free(&c->types[i].resolved);
    }
    pk_u64map_free(&c->type_by_id);
    free(c->types);
    free(c->fields);
    free(c->entries);
    free(c->strings_arena);
    memset(c, 0, sizeof *c);
}
