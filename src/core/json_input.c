/* SPDX-License-Identifier: MIT */
/* Streaming JSON input over yajl (see json_input.h). yajl does the lexing and the grammar;
 * this file keeps the path, turns numbers into exact int64 or double values, and maps yajl's
 * ends onto the ones readers act on (complete, cut, invalid). */
#define _GNU_SOURCE /* strtod_l: numbers parse the same whatever the program's locale */
#include "core/json_input.h"

#include <errno.h>
#include <float.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "core/damage.h"
#include "core/input.h"

static uint64_t current_offset(const pk_json_parser *jp)
{
    return jp->chunk_base + yajl_get_bytes_consumed((yajl_handle)jp->yajl);
}

uint64_t pk_json_parser_offset(const pk_json_parser *jp)
{
    return current_offset(jp);
}

bool pk_json_parser_fail(pk_json_parser *jp, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(jp->message, sizeof jp->message, fmt, ap);
    va_end(ap);
    jp->stop = PK_JSON_FAILED;
    jp->error_offset = current_offset(jp);
    return false;
}

bool pk_json_parser_stop(pk_json_parser *jp)
{
    jp->stop = PK_JSON_STOPPED;
    jp->error_offset = current_offset(jp);
    return false;
}

void pk_json_parser_skip(pk_json_parser *jp)
{
    if (jp->skip_depth == 0)
        jp->skip_depth = jp->depth + 1;
}

bool pk_json_parser_match(const pk_json_parser *jp, uint32_t from, const char *pattern)
{
    uint32_t level = from;
    const char *p = pattern;
    for (;;) {
        const char *slash = strchr(p, '/');
        size_t n = slash ? (size_t)(slash - p) : strlen(p);
        if (level >= jp->depth)
            return false;
        const pk_json_level *l = &jp->levels[level];
        if (n == 1 && *p == '#') {
            if (!l->is_array)
                return false;
        } else {
            if (l->is_array)
                return false;
            if (!(n == 1 && *p == '*') &&
                (l->key_len != n || (n && memcmp(jp->keys.data + l->key_start, p, n) != 0)))
                return false;
        }
        level++;
        if (!slash)
            return level == jp->depth;
        p = slash + 1;
    }
}

/* value * 10^shift into *out, exactly: false when it does not fit or (shift < 0) leaves a
 * fraction. */
static bool shift_decimal(uint64_t value, bool negative, int shift, int64_t *out)
{
    for (; shift > 0; shift--) {
        if (value > UINT64_MAX / 10)
            return false;
        value *= 10;
    }
    for (; shift < 0; shift++) {
        if (value % 10 != 0)
            return false;
        value /= 10;
    }
    if (value > (negative ? (uint64_t)1 << 63 : ((uint64_t)1 << 63) - 1))
        return false;
    *out = negative ? (int64_t)(0 - value) : (int64_t)value;
    return true;
}

bool pk_json_scalar_decimal(const pk_json_scalar *v, unsigned digits, int64_t *out)
{
    if (digits > 18)
        return false;
    if (v->kind == PK_JSON_INT)
        return shift_decimal(v->i < 0 ? 0 - (uint64_t)v->i : (uint64_t)v->i, v->i < 0,
                             (int)digits, out);
    if (v->kind != PK_JSON_DOUBLE || !v->s)
        return false;
    /* JSON's grammar (yajl checked it): -?digits(.digits)?([eE][+-]?digits)? */
    const char *s = v->s, *end = v->s + v->len;
    bool negative = s < end && *s == '-';
    s += negative;
    uint64_t mantissa = 0;
    int shift = (int)digits;
    bool fraction = false;
    for (; s < end && *s != 'e' && *s != 'E'; s++) {
        if (*s == '.') {
            fraction = true;
            continue;
        }
        unsigned digit = (unsigned)(*s - '0');
        if (mantissa > (UINT64_MAX - digit) / 10) {
            if (digit != 0 || !fraction)
                return false;
            continue; /* a trailing zero of the fraction that would not fit */
        }
        mantissa = mantissa * 10 + digit;
        shift -= fraction;
    }
    if (s < end) { /* the exponent */
        s++;
        bool minus = s < end && *s == '-';
        s += s < end && (*s == '-' || *s == '+');
        int exponent = 0;
        for (; s < end; s++)
            if ((exponent = exponent * 10 + (*s - '0')) > 400)
                return false;
        shift += minus ? -exponent : exponent;
    }
    if (mantissa == 0) {
        *out = 0;
        return true;
    }
    return shift >= -40 && shift <= 40 && shift_decimal(mantissa, negative, shift, out);
}

/* ---- yajl's callbacks -------------------------------------------------------------------------- */

static bool suppressed(const pk_json_parser *jp)
{
    return jp->skip_depth != 0 && jp->depth >= jp->skip_depth;
}

/* A value starts at the current level: an array counts it. */
static void value_starts(pk_json_parser *jp)
{
    if (jp->depth && jp->levels[jp->depth - 1].is_array)
        jp->levels[jp->depth - 1].index++;
}

/* Whether a scalar that starts here goes to the handler (checked before any work on it: inside
 * a skipped container nothing is converted, nor counted, since no one asks). */
static bool wanted(pk_json_parser *jp)
{
    if (suppressed(jp))
        return false;
    value_starts(jp);
    /* At the end of a cut input yajl still ends the number it was reading ("ts": 12 of
     * "ts": 1234...): not a value that was there. */
    if (jp->finishing && jp->depth > 0)
        return false;
    return jp->handler.scalar != NULL;
}

static int deliver(pk_json_parser *jp, const pk_json_scalar *v)
{
    return wanted(jp) ? jp->handler.scalar(jp->ctx, jp, v) : 1;
}

static int on_null(void *ctx)
{
    pk_json_scalar v = {.kind = PK_JSON_NULL};
    return deliver(ctx, &v);
}

static int on_boolean(void *ctx, int b)
{
    pk_json_scalar v = {.kind = PK_JSON_BOOL, .boolean = b != 0};
    return deliver(ctx, &v);
}

/* An integer of 19 digits or more (no fraction, no exponent) that fits int64; false
 * otherwise. */
static bool parse_long_integer(const char *s, size_t len, int64_t *out)
{
    bool negative = s[0] == '-';
    const uint64_t limit = negative ? (uint64_t)1 << 63 : ((uint64_t)1 << 63) - 1;
    uint64_t magnitude = 0;
    for (size_t i = negative; i < len; i++) {
        unsigned digit = (unsigned)(s[i] - '0');
        if (magnitude > (limit - digit) / 10)
            return false;
        magnitude = magnitude * 10 + digit;
    }
    *out = negative ? (int64_t)(0 - magnitude) : (int64_t)magnitude;
    return true;
}

/* Exact powers of ten: every one up to 10^22 is a double exactly. */
static const double exact_powers_of_ten[] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* A number's value in one pass over its text (yajl checked its grammar:
 * -?digits(.digits)?([eE][+-]?digits)?), false for the numbers left to strtod.
 *
 * Integers that fit int64 are PK_JSON_INT; up to 18 digits cannot overflow, so they are read
 * without a check per digit (the times of a trace have 10 to 16). Other numbers whose digits,
 * read as an integer, are at most 2^53 and whose decimal exponent is within +-22 (the times and
 * weights profiles write, "11775663636.899") are PK_JSON_DOUBLE: the integer and the power of
 * ten are both doubles exactly, so one multiplication or division, correctly rounded, gives the
 * correctly rounded value, the one strtod gives. Not where double arithmetic is done at a
 * greater precision (x87), which would round twice. */
static bool convert_number(const char *s, size_t len, pk_json_scalar *v)
{
    const char *p = s, *end = s + len;
    bool negative = *p == '-';
    p += negative;
    const char *first = p;
    uint64_t mantissa = 0;
    for (; p < end && (unsigned)(*p - '0') <= 9; p++)
        mantissa = mantissa * 10 + (unsigned)(*p - '0'); /* wraps beyond 19 digits: unused */
    size_t digits = (size_t)(p - first);
    if (p == end) {
        int64_t i;
        if (digits <= 18)
            i = negative ? (int64_t)(0 - mantissa) : (int64_t)mantissa;
        else if (!parse_long_integer(s, len, &i))
            return false;
        *v = (pk_json_scalar){.kind = PK_JSON_INT, .i = i, .d = (double)i};
        return true;
    }
    if (FLT_EVAL_METHOD != 0)
        return false;
    int exponent = 0;
    if (*p == '.') {
        const char *fraction = ++p;
        for (; p < end && (unsigned)(*p - '0') <= 9; p++)
            mantissa = mantissa * 10 + (unsigned)(*p - '0');
        if ((size_t)(p - fraction) > 22)
            return false;
        digits += (size_t)(p - fraction);
        exponent = -(int)(p - fraction);
    }
    /* Up to 19 digits cannot overflow the mantissa. */
    if (digits > 19 || mantissa > (uint64_t)1 << 53)
        return false;
    if (p < end) { /* the exponent */
        p++;
        bool minus = *p == '-';
        p += *p == '-' || *p == '+';
        int e = 0;
        for (; p < end; p++)
            if ((e = e * 10 + (*p - '0')) > 100)
                return false;
        exponent += minus ? -e : e;
    }
    if (exponent < -22 || exponent > 22)
        return false;
    double d = (double)mantissa; /* exact: at most 2^53 */
    d = exponent < 0 ? d / exact_powers_of_ten[-exponent] : d * exact_powers_of_ten[exponent];
    *v = (pk_json_scalar){.kind = PK_JSON_DOUBLE, .d = negative ? -d : d, .s = s, .len = len};
    return true;
}

/* Whether s is a JSON number: -?digits(.digits)?([eE][+-]?digits)? */
static bool number_grammar(const char *s, size_t len)
{
    const char *p = s, *end = s + len;
    p += p < end && *p == '-';
    const char *digits = p;
    while (p < end && (unsigned)(*p - '0') <= 9)
        p++;
    if (p == digits)
        return false;
    if (p < end && *p == '.') {
        const char *fraction = ++p;
        while (p < end && (unsigned)(*p - '0') <= 9)
            p++;
        if (p == fraction)
            return false;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        p += p < end && (*p == '+' || *p == '-');
        const char *exponent = p;
        while (p < end && (unsigned)(*p - '0') <= 9)
            p++;
        if (p == exponent)
            return false;
    }
    return p == end;
}

bool pk_json_scalar_quoted_number(const pk_json_scalar *v, pk_json_scalar *number)
{
    return v->kind == PK_JSON_STRING && number_grammar(v->s, v->len) &&
           convert_number(v->s, v->len, number);
}

static int on_number(void *ctx, const char *s, size_t len)
{
    pk_json_parser *jp = ctx;
    if (!wanted(jp))
        return 1;
    pk_json_scalar v;
    if (convert_number(s, len, &v))
        return jp->handler.scalar(jp->ctx, jp, &v);
    v = (pk_json_scalar){.kind = PK_JSON_DOUBLE, .s = s, .len = len};
    /* yajl checked the grammar; strtod wants a terminated string. */
    char small[64];
    const char *text = small;
    if (len < sizeof small) {
        memcpy(small, s, len);
        small[len] = '\0';
    } else {
        pk_buffer_clear(&jp->number);
        pk_buffer_append(&jp->number, s, len);
        if (!pk_buffer_terminate(&jp->number)) {
            jp->nomem = true;
            return 0;
        }
        text = (const char *)jp->number.data;
    }
    if (!jp->c_locale) {
        jp->c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
        if (!jp->c_locale) {
            jp->nomem = true;
            return 0;
        }
    }
    v.d = strtod_l(text, NULL, (locale_t)jp->c_locale); /* overflow gives ±HUGE_VAL */
    return jp->handler.scalar(jp->ctx, jp, &v);
}

static int on_string(void *ctx, const unsigned char *s, size_t len)
{
    pk_json_scalar v = {.kind = PK_JSON_STRING, .s = (const char *)s, .len = len};
    return deliver(ctx, &v);
}

static int push(pk_json_parser *jp, bool is_array)
{
    if (jp->depth >= PK_JSON_MAX_DEPTH) {
        snprintf(jp->message, sizeof jp->message, "nested deeper than %u levels",
                 PK_JSON_MAX_DEPTH);
        jp->stop = PK_JSON_INVALID;
        jp->error_offset = current_offset(jp);
        return 0;
    }
    /* Inside a skipped container only the depth is counted: its levels, keys and indexes are
     * never asked for (pop leaves them alone too). */
    if (suppressed(jp)) {
        jp->depth++;
        return 1;
    }
    value_starts(jp);
    if (jp->depth >= jp->levels_capacity) {
        uint32_t capacity = jp->levels_capacity ? jp->levels_capacity * 2 : 32;
        pk_json_level *grown = realloc(jp->levels, capacity * sizeof *grown);
        if (!grown) {
            jp->nomem = true;
            return 0;
        }
        jp->levels = grown;
        jp->levels_capacity = capacity;
    }
    /* Begin sees the container's own position: call it before the level is pushed. */
    if (jp->handler.begin && !jp->handler.begin(jp->ctx, jp, is_array))
        return 0;
    jp->levels[jp->depth] = (pk_json_level){
        .is_array = is_array, .key_start = (uint32_t)jp->keys.len, .index = UINT64_MAX};
    jp->depth++;
    return 1;
}

static int pop(pk_json_parser *jp, bool is_array)
{
    jp->depth--;
    if (jp->skip_depth) {
        if (jp->depth >= jp->skip_depth)
            return 1; /* inside the skipped container: no level was kept */
        if (jp->depth + 1 == jp->skip_depth) {
            jp->keys.len = jp->levels[jp->depth].key_start;
            jp->skip_depth = 0; /* the skipped container ends: no callback for its end either */
            return 1;
        }
    }
    jp->keys.len = jp->levels[jp->depth].key_start;
    if (!jp->handler.end)
        return 1;
    return jp->handler.end(jp->ctx, jp, is_array);
}
static int on_start_map(void *ctx)
{
    return push(ctx, false);
}

static int on_end_map(void *ctx)
{
    return pop(ctx, false);
}

static int on_start_array(void *ctx)
{
    return push(ctx, true);
}

static int on_end_array(void *ctx)
{
    return pop(ctx, true);
}

static int on_map_key(void *ctx, const unsigned char *key, size_t len)
{
    pk_json_parser *jp = ctx;
    if (suppressed(jp))
        return 1;
    pk_json_level *l = &jp->levels[jp->depth - 1];
    if (len > UINT32_MAX - l->key_start) {
        jp->nomem = true;
        return 0;
    }
    jp->keys.len = l->key_start;
    pk_buffer_append(&jp->keys, key, len);
    if (jp->keys.failed) {
        jp->nomem = true;
        return 0;
    }
    l->key_len = (uint32_t)len;
    return 1;
}

static const yajl_callbacks callbacks = {
    .yajl_null = on_null,
    .yajl_boolean = on_boolean,
    .yajl_number = on_number, /* the text: integers stay exact beyond a double's 53 bits */
    .yajl_string = on_string,
    .yajl_start_map = on_start_map,
    .yajl_map_key = on_map_key,
    .yajl_end_map = on_end_map,
    .yajl_start_array = on_start_array,
    .yajl_end_array = on_end_array,
};

/* ---- runs -------------------------------------------------------------------------------------- */

void pk_json_parser_init(pk_json_parser *jp, const pk_json_handler *handler, void *ctx)
{
    memset(jp, 0, sizeof *jp);
    if (handler)
        jp->handler = *handler;
    jp->ctx = ctx;
}

void pk_json_parser_release(pk_json_parser *jp)
{
    if (jp->yajl)
        yajl_free((yajl_handle)jp->yajl);
    jp->yajl = NULL;
    free(jp->levels);
    jp->levels = NULL;
    pk_buffer_free(&jp->keys);
    pk_buffer_free(&jp->number);
    if (jp->c_locale)
        freelocale((locale_t)jp->c_locale);
    jp->c_locale = NULL;
}

static bool start(pk_json_parser *jp)
{
    if (jp->yajl)
        yajl_free((yajl_handle)jp->yajl);
    jp->yajl = yajl_alloc(&callbacks, NULL, jp);
    jp->depth = 0;
    jp->skip_depth = 0;
    jp->keys.len = 0;
    jp->chunk_base = 0;
    jp->stop = PK_JSON_COMPLETE;
    jp->nomem = false;
    jp->finishing = false;
    jp->message[0] = '\0';
    return jp->yajl != NULL;
}

/* What a yajl_parse that did not return yajl_status_ok means; records the offset. */
static pk_json_end parse_failed(pk_json_parser *jp, yajl_status status, const uint8_t *data,
                                size_t n)
{
    if (jp->nomem)
        return PK_JSON_NOMEM;
    if (status == yajl_status_client_canceled) {
        if (jp->stop != PK_JSON_COMPLETE)
            return jp->stop;
        /* A handler returned false without saying why. */
        jp->error_offset = current_offset(jp);
        snprintf(jp->message, sizeof jp->message, "the reader stopped here");
        return PK_JSON_FAILED;
    }
    jp->error_offset = current_offset(jp);
    unsigned char *text = yajl_get_error((yajl_handle)jp->yajl, 0, data, n);
    if (text) {
        /* yajl's message ends with a newline; the offset is ours. */
        size_t len = strcspn((const char *)text, "\n");
        snprintf(jp->message, sizeof jp->message, "%.*s", (int)len, (const char *)text);
        yajl_free_error((yajl_handle)jp->yajl, text);
    } else {
        snprintf(jp->message, sizeof jp->message, "not JSON");
    }
    return PK_JSON_INVALID;
}

static pk_json_end finish(pk_json_parser *jp, uint64_t end_offset)
{
    jp->chunk_base = end_offset;
    jp->finishing = true;
    yajl_status status = yajl_complete_parse((yajl_handle)jp->yajl);
    if (status == yajl_status_ok)
        return PK_JSON_COMPLETE;
    if (status == yajl_status_client_canceled)
        return parse_failed(jp, status, NULL, 0);
    /* At the end of the input the only complaint left is that the document is not over. */
    jp->error_offset = end_offset;
    snprintf(jp->message, sizeof jp->message, "the input ends inside the document");
    return PK_JSON_CUT;
}

static void skip_bom(const uint8_t **data, size_t *n)
{
    if (*n >= 3 && (*data)[0] == 0xEF && (*data)[1] == 0xBB && (*data)[2] == 0xBF) {
        *data += 3;
        *n -= 3;
    }
}

pk_json_end pk_json_parser_run(pk_json_parser *jp, pk_input *in)
{
    if (!start(jp))
        return PK_JSON_NOMEM;
    const uint8_t *bom;
    if (pk_in_peek(in, 3, &bom) == 3 && bom[0] == 0xEF && bom[1] == 0xBB && bom[2] == 0xBF)
        pk_in_skip_buffered(in, 3);
    for (;;) {
        size_t n = pk_in_available(in);
        if (n == 0 && (n = pk_input_fill(in, 1)) == 0)
            break;
        const uint8_t *data = in->pos;
        jp->chunk_base = pk_in_offset(in);
        yajl_status status = yajl_parse((yajl_handle)jp->yajl, data, n);
        if (status != yajl_status_ok)
            return parse_failed(jp, status, data, n);
        pk_in_skip_buffered(in, n);
    }
    return finish(jp, pk_in_offset(in));
}

pk_json_end pk_json_parser_run_memory(pk_json_parser *jp, const void *bytes, size_t size)
{
    if (!start(jp))
        return PK_JSON_NOMEM;
    const uint8_t *data = bytes;
    size_t n = size;
    skip_bom(&data, &n);
    jp->chunk_base = (uint64_t)(size - n);
    if (n) {
        yajl_status status = yajl_parse((yajl_handle)jp->yajl, data, n);
        if (status != yajl_status_ok)
            return parse_failed(jp, status, data, n);
    }
    return finish(jp, size);
}

uint64_t pk_json_parser_error_offset(const pk_json_parser *jp)
{
    return jp->error_offset;
}

const char *pk_json_parser_message(const pk_json_parser *jp)
{
    return jp->message;
}

pk_status pk_json_parser_error(const pk_json_parser *jp, pk_json_end how, const char *what,
                               pk_error *err)
{
    if (!what)
        what = "the document";
    switch (how) {
    case PK_JSON_COMPLETE:
    case PK_JSON_STOPPED:
        return PK_OK;
    case PK_JSON_NOMEM:
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory reading JSON");
    case PK_JSON_CUT:
        return pk_damage(err, jp->error_offset, "%s ends early (the JSON is cut short)", what);
    case PK_JSON_INVALID:
        return pk_damage(err, jp->error_offset, "%s is not valid JSON here: %s", what,
                         jp->message);
    case PK_JSON_FAILED:
        return pk_damage(err, jp->error_offset, "%s", jp->message);
    }
    return pk_damage(err, jp->error_offset, "%s", jp->message);
}

/* ---- a reader's whole parse -------------------------------------------------------------------- */

/* Stands in for the reader's handler until the first callback, which is about the document itself:
 * an object lets the reader's handler take over (from its begin on), anything else is refused. */
typedef struct object_gate {
    pk_json_handler handler;
    void *ctx;
    const char *not_a;
} object_gate;

static bool gate_scalar(void *ctx, pk_json_parser *jp, const pk_json_scalar *v)
{
    (void)v;
    const object_gate *g = ctx;
    return pk_json_parser_fail(jp, "%s: the document is not an object", g->not_a);
}

static bool gate_begin(void *ctx, pk_json_parser *jp, bool is_array)
{
    const object_gate *g = ctx;
    if (is_array)
        return pk_json_parser_fail(jp, "%s: the document is an array", g->not_a);
    jp->handler = g->handler;
    jp->ctx = g->ctx;
    return !jp->handler.begin || jp->handler.begin(jp->ctx, jp, false);
}

pk_status pk_json_read(pk_input *in, const pk_json_handler *handler, void *ctx, const char *what,
                       const char *not_a, pk_json_run *run, pk_error *err)
{
    object_gate gate = {*handler, ctx, not_a};
    pk_json_parser jp;
    if (not_a)
        pk_json_parser_init(&jp, &(pk_json_handler){.scalar = gate_scalar, .begin = gate_begin},
                            &gate);
    else
        pk_json_parser_init(&jp, handler, ctx);
    pk_json_end how = pk_json_parser_run(&jp, in);
    pk_status status = pk_json_parser_error(&jp, how, what, err);
    if (run)
        *run = (pk_json_run){how, pk_json_parser_error_offset(&jp)};
    pk_json_parser_release(&jp);
    return status;
}

pk_status pk_json_read_settle(pk_status status, pk_error *err, pk_status finished,
                              const pk_error *finish_err)
{
    if (finished == PK_OK || (status != PK_OK && finished != PK_ERR_NOMEM))
        return status;
    *err = *finish_err;
    return finished;
}
