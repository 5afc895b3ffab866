/* SPDX-License-Identifier: MIT */
#include "core/json.h"

void pk_json_key(pk_json *j, const char *key)
{
    pk_out_json_string(pk_json_value(j), key);
    pk_out_putc(j->out, ':');
    j->need_comma = false;
}

static void container_begin(pk_json *j, char open)
{
    pk_out_putc(pk_json_value(j), open);
    j->need_comma = false;
    j->depth++;
}

static void container_end(pk_json *j, char close)
{
    pk_out_putc(j->out, close);
    /* The container itself was a value of the enclosing level. */
    j->need_comma = true;
    if (j->depth)
        j->depth--;
}

void pk_json_object_begin(pk_json *j)
{
    container_begin(j, '{');
}

void pk_json_object_end(pk_json *j)
{
    container_end(j, '}');
}

void pk_json_array_begin(pk_json *j)
{
    container_begin(j, '[');
}

void pk_json_array_end(pk_json *j)
{
    container_end(j, ']');
}

void pk_json_line_break(pk_json *j)
{
    if (j->need_comma)
        pk_out_putc(j->out, ',');
    pk_out_putc(j->out, '\n');
    j->need_comma = false;
}

void pk_json_string(pk_json *j, const char *s)
{
    pk_out_json_string(pk_json_value(j), s);
}

void pk_json_string_len(pk_json *j, const char *s, size_t len)
{
    pk_out_json_string_len(pk_json_value(j), s, len);
}

void pk_json_double(pk_json *j, double v)
{
    pk_out_double(pk_json_value(j), v);
}

void pk_json_bool(pk_json *j, bool v)
{
    pk_out_puts(pk_json_value(j), v ? "true" : "false");
}

void pk_json_null(pk_json *j)
{
    pk_out_puts(pk_json_value(j), "null");
}

void pk_json_member_string(pk_json *j, const char *key, const char *s)
{
    pk_json_key(j, key);
    pk_json_string(j, s);
}

void pk_json_member_i64(pk_json *j, const char *key, int64_t v)
{
    pk_json_key(j, key);
    pk_json_i64(j, v);
}

void pk_json_member_u64(pk_json *j, const char *key, uint64_t v)
{
    pk_json_key(j, key);
    pk_json_u64(j, v);
}

void pk_json_member_double(pk_json *j, const char *key, double v)
{
    pk_json_key(j, key);
    pk_json_double(j, v);
}

void pk_json_member_bool(pk_json *j, const char *key, bool v)
{
    pk_json_key(j, key);
    pk_json_bool(j, v);
}
