/* SPDX-License-Identifier: MIT */
/* A streaming JSON emitter over a pk_output: writers say what comes (an object, a key, a value)
 * and the emitter places the commas and colons. Nothing is buffered beyond the output's own
 * buffer, so documents of any size stream out.
 *
 *     pk_json j;
 *     pk_json_init(&j, out);
 *     pk_json_object_begin(&j);
 *     pk_json_key(&j, "name");  pk_json_string(&j, "main");
 *     pk_json_key(&j, "weights");
 *     pk_json_array_begin(&j);  pk_json_i64(&j, 1);  pk_json_i64(&j, 2);  pk_json_array_end(&j);
 *     pk_json_object_end(&j);
 *
 * writes {"name":"main","weights":[1,2]}. A value of a form the emitter does not know (exact
 * decimal milliseconds, say) is written by the caller to the output that pk_json_value returns.
 */
#ifndef PK_CORE_JSON_H
#define PK_CORE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/output.h"

typedef struct pk_json {
    pk_output *out;
    bool need_comma; /* a value was written at this level: the next needs a comma first */
    uint32_t depth;  /* open objects and arrays */
} pk_json;

static inline void pk_json_init(pk_json *j, pk_output *out)
{
    j->out = out;
    j->need_comma = false;
    j->depth = 0;
}

/* Starts a value: writes the comma it needs and returns the output to write it to. */
static inline pk_output *pk_json_value(pk_json *j)
{
    if (j->need_comma)
        pk_out_putc(j->out, ',');
    j->need_comma = true;
    return j->out;
}

/* A key of the object being written; its value follows. */
void pk_json_key(pk_json *j, const char *key);

void pk_json_object_begin(pk_json *j);
void pk_json_object_end(pk_json *j);
void pk_json_array_begin(pk_json *j);
void pk_json_array_end(pk_json *j);

/* A line break before the next key or value (after the comma that precedes it), so that a long
 * document can be read and compared line by line. */
void pk_json_line_break(pk_json *j);

/* A string of UTF-8 text; invalid bytes become U+FFFD. */
void pk_json_string(pk_json *j, const char *s);
/* A string of len bytes, which may hold NUL bytes (written as \u0000). */
void pk_json_string_len(pk_json *j, const char *s, size_t len);
static inline void pk_json_i64(pk_json *j, int64_t v)
{
    pk_out_i64(pk_json_value(j), v);
}
static inline void pk_json_u64(pk_json *j, uint64_t v)
{
    pk_out_u64(pk_json_value(j), v);
}
/* The shortest form that reads back as v; NaN and infinities (which JSON lacks) write 0. */
void pk_json_double(pk_json *j, double v);
void pk_json_bool(pk_json *j, bool v);
void pk_json_null(pk_json *j);

/* Key and value in one call. */
void pk_json_member_string(pk_json *j, const char *key, const char *s);
void pk_json_member_i64(pk_json *j, const char *key, int64_t v);
void pk_json_member_u64(pk_json *j, const char *key, uint64_t v);
void pk_json_member_double(pk_json *j, const char *key, double v);
void pk_json_member_bool(pk_json *j, const char *key, bool v);

#endif
