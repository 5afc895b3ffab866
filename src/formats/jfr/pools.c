/* SPDX-License-Identifier: MIT */
/* A chunk's constant-pool entries decoded for the JFR reader and its loader (reader.h): entries
 * found by key, their strings, the names of classes and methods, frame types. Nothing here
 * touches the profile. */
#include <string.h>

#include "formats/jfr/reader.h"

pk_status jfr_nomem(jfr_reader *r)
{
    return pk_error_set(r->err, PK_ERR_NOMEM, -1, "out of memory");
}

pk_status jfr_dangling(jfr_reader *r, const char *what, uint64_t key)
{
    return pk_error_set(r->err, PK_ERR_INPUT, (int64_t)r->event_offset,
                        "JFR event refers to %s %llu, which no constant pool of its chunk holds",
                        what, (unsigned long long)key);
}

pk_status jfr_malformed(jfr_reader *r, const char *what)
{
    return pk_error_set(r->err, PK_ERR_INPUT, (int64_t)r->event_offset,
                        "JFR event: %s is cut short or malformed", what);
}

/* Reads the pool entry key of type into values; false with an error when there is none. */
pk_status jfr_read_entry(jfr_reader *r, uint32_t type, uint64_t key, const char *what,
                         uint64_t *values)
{
    size_t at;
    if (type == UINT32_MAX || !jfr_pool_entry(r->c, type, key, &at))
        return jfr_dangling(r, what, key);
    jfr_cursor cur = {r->c, at, r->c->size};
    if (!jfr_read_struct(&cur, type, values))
        return jfr_malformed(r, what);
    return PK_OK;
}

/* Reads the fields of the pool entry key of type that come before field `before` into values,
 * and where that field starts into *at (the frames of a stack trace, read where they are). */
pk_status jfr_read_entry_before(jfr_reader *r, uint32_t type, uint64_t key, const char *what,
                                int before, uint64_t *values, size_t *at)
{
    if (type == UINT32_MAX || !jfr_pool_entry(r->c, type, key, at))
        return jfr_dangling(r, what, key);
    jfr_cursor cur = {r->c, *at, r->c->size};
    if (before < 0 || !jfr_read_fields(&cur, type, values, (uint32_t)before))
        return jfr_malformed(r, what);
    *at = cur.pos;
    return PK_OK;
}

/* The text of a string field of a struct read into values (field index i of type). */
bool jfr_field_text(jfr_reader *r, uint32_t type, int i, const uint64_t *values, char **text,
                    size_t *cap)
{
    if (i < 0)
        return false;
    const jfr_field *f = &r->c->types[type].fields[i];
    if (f->array || r->c->types[f->type].kind != JFR_KIND_STRING)
        return false;
    /* a constant-pool string field holds a key: decode it from where it was read */
    if (f->constant_pool) {
        size_t at;
        if (r->c->string_type == UINT32_MAX || !jfr_pool_entry(r->c, r->c->string_type, values[i], &at))
            return false;
        return jfr_string_at(r->c, at, false, text, cap);
    }
    return jfr_string_at(r->c, (size_t)values[i], false, text, cap);
}

/* The text of a Symbol key into *text, class names with dots as the JDK shows them. */
static pk_status symbol_text(jfr_reader *r, uint64_t key, char **text, size_t *cap)
{
    uint64_t *v = r->entry_values;
    pk_status s = jfr_read_entry(r, r->l.symbol, key, "symbol", v);
    if (s != PK_OK)
        return s;
    if (!jfr_field_text(r, r->l.symbol, r->l.symbol_string, v, text, cap))
        return jfr_malformed(r, "symbol");
    return PK_OK;
}

pk_status jfr_class_text(jfr_reader *r, uint64_t key, char **text, size_t *cap)
{
    uint64_t *v = r->entry_values;
    pk_status s = jfr_read_entry(r, r->l.klass, key, "class", v);
    if (s != PK_OK)
        return s;
    if (r->l.class_name < 0)
        return jfr_malformed(r, "class");
    s = symbol_text(r, v[r->l.class_name], text, cap);
    if (s == PK_OK)
        for (char *t = *text; *t; t++)
            if (*t == '/')
                *t = '.';
    return s;
}

/* The name of Method key into r->name: "package.Class.method" (its length in *len). */
pk_status jfr_method_text(jfr_reader *r, uint64_t key, size_t *len, size_t *class_len_out)
{
    pk_status s = jfr_read_entry(r, r->l.method, key, "method", r->entry_values);
    if (s != PK_OK)
        return s;
    if (r->l.method_class < 0 || r->l.method_name < 0)
        return jfr_malformed(r, "method");
    uint64_t method_class = r->entry_values[r->l.method_class];
    uint64_t method_name = r->entry_values[r->l.method_name];
    if ((s = jfr_class_text(r, method_class, &r->name, &r->name_cap)) != PK_OK ||
        (s = symbol_text(r, method_name, &r->text, &r->text_cap)) != PK_OK)
        return s;
    size_t class_len = strlen(r->name), method_len = strlen(r->text);
    if (!jfr_text_reserve(&r->name, &r->name_cap, class_len + method_len + 2))
        return jfr_nomem(r);
    r->name[class_len] = '.';
    memcpy(r->name + class_len + 1, r->text, method_len + 1);
    *len = class_len + 1 + method_len;
    *class_len_out = class_len;
    return PK_OK;
}

/* A frame's line as the model keeps it: 0 for none or one out of range. */
uint32_t jfr_frame_line(uint64_t line)
{
    return (int64_t)line > 0 && line < UINT32_MAX ? (uint32_t)line : 0;
}

/* The frame kind (JFR_FRAME_JAVA, ...) of FrameType key, from its description. */
pk_status jfr_frame_type(jfr_reader *r, uint64_t key, uint32_t *out)
{
    *out = 0;
    if (r->l.frame_type == UINT32_MAX)
        return PK_OK;
    if (key < sizeof r->frame_type_of_key && r->frame_type_of_key[key]) {
        *out = r->frame_type_of_key[key] - 1u;
        return PK_OK;
    }
    uint32_t *known = pk_u64map_find(&r->c->types[r->l.frame_type].resolved, key);
    if (known) {
        *out = *known;
        return PK_OK;
    }
    pk_status s = jfr_read_entry(r, r->l.frame_type, key, "frame type", r->entry_values);
    if (s != PK_OK)
        return s;
    if (jfr_field_text(r, r->l.frame_type, r->l.frame_type_description, r->entry_values, &r->text,
                       &r->text_cap))
        *out = strcmp(r->text, "Inlined") == 0  ? JFR_FRAME_INLINED
               : strcmp(r->text, "Native") == 0 ? JFR_FRAME_NATIVE_METHOD
               : strcmp(r->text, "C++") == 0    ? JFR_FRAME_NATIVE_CODE
               : strcmp(r->text, "Kernel") == 0 ? JFR_FRAME_KERNEL
                                                : JFR_FRAME_JAVA;
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&r->c->types[r->l.frame_type].resolved, key, *out, &slot, &inserted))
        return jfr_nomem(r);
    if (key < sizeof r->frame_type_of_key)
        r->frame_type_of_key[key] = (uint8_t)(*out + 1);
    return PK_OK;
}
