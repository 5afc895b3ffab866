/* SPDX-License-Identifier: MIT */
/* The streaming JSON input (core/json_input.h, core/json_probe.h): the path at every callback,
 * exact numbers, strings with their length, the same callbacks whatever the chunking, cut and
 * invalid documents with their offsets, handler failures, skipped containers, and probing the
 * keys of a document's first bytes. */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/buffer.h"
#include "core/input.h"
#include "core/json_input.h"
#include "core/json_probe.h"

/* Each callback as one line: "path kind value", the path as keys and indexes joined by '/'. */
typedef struct recorder {
    pk_buffer text;
    const char *fail_at_key;  /* a scalar under this key fails */
    const char *skip_key;     /* containers under this key are skipped */
} recorder;

static void append_path(recorder *r, const pk_json_parser *jp)
{
    for (uint32_t level = 0; level < pk_json_parser_depth(jp); level++) {
        char part[64];
        size_t len;
        const char *key = pk_json_parser_key(jp, level, &len);
        if (key)
            snprintf(part, sizeof part, "%.*s", (int)len, key);
        else
            snprintf(part, sizeof part, "%llu",
                     (unsigned long long)pk_json_parser_index(jp, level));
        if (level)
            pk_buffer_byte(&r->text, '/');
        pk_buffer_append(&r->text, part, strlen(part));
    }
}

static void add(recorder *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(recorder *r, const char *fmt, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    pk_buffer_append(&r->text, line, strlen(line));
}

static bool last_key_is(const pk_json_parser *jp, const char *key)
{
    uint32_t depth = pk_json_parser_depth(jp);
    return depth && pk_json_parser_key_is(jp, depth - 1, key);
}

static bool on_scalar(void *ctx, pk_json_parser *jp, const pk_json_scalar *v)
{
    recorder *r = ctx;
    if (r->fail_at_key && last_key_is(jp, r->fail_at_key))
        return pk_json_parser_fail(jp, "refused %s", r->fail_at_key);
    append_path(r, jp);
    switch (v->kind) {
    case PK_JSON_NULL: add(r, " null\n"); break;
    case PK_JSON_BOOL: add(r, " bool %d\n", v->boolean); break;
    case PK_JSON_INT: add(r, " int %lld\n", (long long)v->i); break;
    case PK_JSON_DOUBLE: add(r, " double %.17g\n", v->d); break;
    case PK_JSON_STRING: add(r, " string %zu %.*s\n", v->len, (int)v->len, v->s); break;
    }
    return true;
}

static bool on_begin(void *ctx, pk_json_parser *jp, bool is_array)
{
    recorder *r = ctx;
    if (r->skip_key && last_key_is(jp, r->skip_key))
        pk_json_parser_skip(jp);
    append_path(r, jp);
    add(r, " %s\n", is_array ? "[" : "{");
    return true;
}

static bool on_end(void *ctx, pk_json_parser *jp, bool is_array)
{
    recorder *r = ctx;
    append_path(r, jp);
    add(r, " %s\n", is_array ? "]" : "}");
    return true;
}

static const pk_json_handler handler = {on_scalar, on_begin, on_end};

/* Runs text in memory with a parser made for r (parsers are reused from run to run); *trace
 * receives the recording (the caller frees it). */
static pk_json_end run_text(const char *text, recorder *r, pk_json_parser *jp, char **trace)
{
    pk_json_end how = pk_json_parser_run_memory(jp, text, strlen(text));
    pk_buffer_byte(&r->text, 0);
    *trace = (char *)r->text.data;
    r->text = (pk_buffer)PK_BUFFER_INIT;
    return how;
}

static const char document[] =
    "\xEF\xBB\xBF {\"a\": [1, -2, {\"b\": \"x\\u00e9\\n\"}], \"n\": null, \"t\": true,"
    " \"big\": 9223372036854775807, \"neg\": -9223372036854775808,"
    " \"over\": 9223372036854775808, \"f\": 1.5e3, \"g\": 0.1, \"e\": [], \"o\": {}} \n";

static const char document_trace[] =
    " {\n"
    "a [\n"
    "a/0 int 1\n"
    "a/1 int -2\n"
    "a/2 {\n"
    "a/2/b string 4 x\xC3\xA9\n\n"
    "a/2 }\n"
    "a ]\n"
    "n null\n"
    "t bool 1\n"
    "big int 9223372036854775807\n"
    "neg int -9223372036854775808\n"
    "over double 9.2233720368547758e+18\n"
    "f double 1500\n"
    "g double 0.10000000000000001\n"
    "e [\n"
    "e ]\n"
    "o {\n"
    "o }\n"
    " }\n";

static void test_values_and_paths(void **state)
{
    (void)state;
    recorder r = {PK_BUFFER_INIT, NULL, NULL};
    pk_json_parser jp;
    pk_json_parser_init(&jp, &handler, &r);
    char *trace;
    assert_int_equal(run_text(document, &r, &jp, &trace), PK_JSON_COMPLETE);
    assert_string_equal(trace, document_trace); /* the top level has no path */
    free(trace);
    pk_json_parser_release(&jp);
}

/* A source that hands out one byte per read, so that every token straddles chunks. */
typedef struct trickle {
    const char *data;
    size_t size, pos;
} trickle;

static size_t trickle_read(void *context, uint8_t *buf, size_t n, pk_error *failure)
{
    (void)failure;
    trickle *t = context;
    if (t->pos == t->size || n == 0)
        return 0;
    buf[0] = (uint8_t)t->data[t->pos++];
    return 1;
}

static void test_same_callbacks_whatever_the_chunks(void **state)
{
    (void)state;
    trickle t = {document, strlen(document), 0};
    pk_input in;
    assert_int_equal(pk_input_init_source(&in, (pk_input_source){trickle_read, NULL, &t, NULL}, 0, NULL),
                     PK_OK);
    recorder r = {PK_BUFFER_INIT, NULL, NULL};
    pk_json_parser jp;
    pk_json_parser_init(&jp, &handler, &r);
    assert_int_equal(pk_json_parser_run(&jp, &in), PK_JSON_COMPLETE);
    pk_buffer_byte(&r.text, 0);
    assert_string_equal((char *)r.text.data, document_trace);
    pk_buffer_free(&r.text);
    pk_json_parser_release(&jp);
    pk_input_release(&in);
}

static void test_cut_keeps_what_came(void **state)
{
    (void)state;
    const char *text = "[{\"a\":1},{\"b\":2},{\"c\":";
    recorder r = {PK_BUFFER_INIT, NULL, NULL};
    pk_json_parser jp;
    pk_json_parser_init(&jp, &handler, &r);
    char *trace;
    assert_int_equal(run_text(text, &r, &jp, &trace), PK_JSON_CUT);
    assert_string_equal(trace, " [\n0 {\n0/a int 1\n0 }\n1 {\n1/b int 2\n1 }\n2 {\n");
    assert_int_equal(pk_json_parser_error_offset(&jp), strlen(text));
    pk_error err;
    assert_int_equal(pk_json_parser_error(&jp, PK_JSON_CUT, "the trace", &err), PK_ERR_INPUT);
    assert_true(err.salvageable);
    assert_int_equal(err.offset, (int64_t)strlen(text));
    assert_non_null(strstr(err.message, "the trace ends early"));
    free(trace);
    /* A cut inside a number does not deliver the digits that came, and nothing at all. */
    assert_int_equal(run_text("{\"a\":12", &r, &jp, &trace), PK_JSON_CUT);
    assert_string_equal(trace, " {\n");
    free(trace);
    assert_int_equal(run_text("  ", &r, &jp, &trace), PK_JSON_CUT);
    free(trace);
    pk_json_parser_release(&jp);
}

static void test_invalid_with_offset(void **state)
{
    (void)state;
    recorder r = {PK_BUFFER_INIT, NULL, NULL};
    pk_json_parser jp;
    pk_json_parser_init(&jp, &handler, &r);
    char *trace;
    /* The error is the ']' at byte 6, where a value was due: the offset is just past it. */
    assert_int_equal(run_text("{\"a\": ]}", &r, &jp, &trace), PK_JSON_INVALID);
    assert_int_equal(pk_json_parser_error_offset(&jp), 7);
    pk_error err;
    assert_int_equal(pk_json_parser_error(&jp, PK_JSON_INVALID, NULL, &err), PK_ERR_INPUT);
    assert_int_equal(err.offset, 7);
    assert_non_null(strstr(err.message, "not valid JSON"));
    free(trace);
    /* Trailing garbage after a whole document, and invalid UTF-8 in a string. */
    assert_int_equal(run_text("{} x", &r, &jp, &trace), PK_JSON_INVALID);
    free(trace);
    assert_int_equal(run_text("[\"\xC3\x28\"]", &r, &jp, &trace), PK_JSON_INVALID);
    free(trace);
    pk_json_parser_release(&jp);
}

static void test_handler_failure(void **state)
{
    (void)state;
    recorder r = {PK_BUFFER_INIT, "bad", NULL};
    pk_json_parser jp;
    pk_json_parser_init(&jp, &handler, &r);
    char *trace;
    const char *text = "{\"ok\":1,\"bad\":2345,\"later\":3}";
    assert_int_equal(run_text(text, &r, &jp, &trace), PK_JSON_FAILED);
    assert_string_equal(trace, " {\nok int 1\n");
    /* The offset is just past the refused token. */
    assert_int_equal(pk_json_parser_error_offset(&jp), strstr(text, ",\"later") - text);
    assert_string_equal(pk_json_parser_message(&jp), "refused bad");
    free(trace);
    pk_json_parser_release(&jp);
}

/* pk_json_read over an input in memory: the recording, and the status and message it gives. */
static pk_status read_text(const char *text, const char *not_a, pk_json_run *run, char **trace,
                           pk_error *err)
{
    recorder r = {PK_BUFFER_INIT, NULL, NULL};
    pk_input in;
    pk_input_init_memory(&in, text, strlen(text));
    pk_status status = pk_json_read(&in, &handler, &r, "the file", not_a, run, err);
    pk_input_release(&in);
    pk_buffer_byte(&r.text, 0);
    *trace = (char *)r.text.data;
    return status;
}

static void test_read_helper(void **state)
{
    (void)state;
    char *trace;
    pk_error err;
    pk_json_run run;
    /* An object reaches the reader's handler whole, its own begin included. */
    assert_int_equal(read_text("{\"a\":[1]}", "not a thing", &run, &trace, &err), PK_OK);
    assert_int_equal(run.how, PK_JSON_COMPLETE);
    assert_string_equal(trace, " {\na [\na/0 int 1\na ]\n }\n");
    free(trace);
    /* An array or a scalar is refused before the reader sees anything, where it starts. */
    assert_int_equal(read_text(" [{\"a\":1}]", "not a thing", &run, &trace, &err), PK_ERR_INPUT);
    assert_string_equal(trace, "");
    assert_int_equal(run.how, PK_JSON_FAILED);
    assert_string_equal(err.message, "not a thing: the document is an array");
    assert_int_equal(err.offset, 2);
    free(trace);
    assert_int_equal(read_text("12 ", "not a thing", NULL, &trace, &err), PK_ERR_INPUT);
    assert_string_equal(err.message, "not a thing: the document is not an object");
    free(trace);
    /* Without the check an array is any document; a cut one says where it ends. */
    assert_int_equal(read_text("[1,", NULL, &run, &trace, &err), PK_ERR_INPUT);
    assert_string_equal(trace, " [\n0 int 1\n");
    assert_int_equal(run.how, PK_JSON_CUT);
    assert_int_equal(run.offset, 3);
    assert_true(err.salvageable);
    assert_non_null(strstr(err.message, "the file ends early"));
    free(trace);
}

/* Which error stands after a reader's parse and its finishing of what it read. */
static void test_read_settle(void **state)
{
    (void)state;
    pk_error err, finish_err;
    /* A complete parse: the finishing's failure stands, whatever it is. */
    pk_error_clear(&err);
    pk_error_set(&finish_err, PK_ERR_LIMIT, 7, "too many");
    assert_int_equal(pk_json_read_settle(PK_OK, &err, PK_ERR_LIMIT, &finish_err), PK_ERR_LIMIT);
    assert_string_equal(err.message, "too many");
    assert_int_equal(err.offset, 7);
    /* Damage: it stands over the finishing's other failures, for salvage to keep past... */
    pk_error_set(&err, PK_ERR_INPUT, 3, "cut");
    assert_int_equal(pk_json_read_settle(PK_ERR_INPUT, &err, PK_ERR_LIMIT, &finish_err),
                     PK_ERR_INPUT);
    assert_string_equal(err.message, "cut");
    assert_int_equal(err.offset, 3);
    /* ... but not over running out of memory. */
    pk_error_set(&finish_err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    assert_int_equal(pk_json_read_settle(PK_ERR_INPUT, &err, PK_ERR_NOMEM, &finish_err),
                     PK_ERR_NOMEM);
    assert_string_equal(err.message, "out of memory");
    /* A finishing that succeeds leaves the parse's status and error as they were. */
    pk_error_set(&err, PK_ERR_INPUT, 5, "bad");
    assert_int_equal(pk_json_read_settle(PK_ERR_INPUT, &err, PK_OK, &finish_err), PK_ERR_INPUT);
    assert_string_equal(err.message, "bad");
    pk_error_clear(&err);
    assert_int_equal(pk_json_read_settle(PK_OK, &err, PK_OK, &finish_err), PK_OK);
}

static void test_skip(void **state)
{
    (void)state;
    recorder r = {PK_BUFFER_INIT, NULL, "args"};
    pk_json_parser jp;
    pk_json_parser_init(&jp, &handler, &r);
    char *trace;
    const char *text = "[{\"args\":{\"x\":[1,{\"y\":2}]},\"ph\":\"X\"},{\"args\":[],\"ph\":\"B\"}]";
    assert_int_equal(run_text(text, &r, &jp, &trace), PK_JSON_COMPLETE);
    assert_string_equal(trace, " [\n0 {\n0/args {\n0/ph string 1 X\n0 }\n1 {\n1/args [\n"
                               "1/ph string 1 B\n1 }\n ]\n");
    free(trace);
    pk_json_parser_release(&jp);
}

typedef struct matcher {
    int hits_events, hits_any_key, hits_from_one;
} matcher;

static bool match_scalar(void *ctx, pk_json_parser *jp, const pk_json_scalar *v)
{
    matcher *m = ctx;
    (void)v;
    m->hits_events += pk_json_parser_match(jp, 0, "traceEvents/#/ph");
    m->hits_any_key += pk_json_parser_match(jp, 0, "*/#/ph");
    m->hits_from_one += pk_json_parser_match(jp, 1, "#/ph");
    return true;
}

static void test_match(void **state)
{
    (void)state;
    const char *text = "{\"traceEvents\":[{\"ph\":\"B\"},{\"ph\":\"E\",\"args\":{\"ph\":1}}],"
                       "\"other\":[{\"ph\":\"X\"}],\"ph\":0}";
    matcher m = {0, 0, 0};
    /* Empty keys, before any other key was kept. */
    pk_json_parser empty;
    pk_json_parser_init(&empty, &(pk_json_handler){.scalar = match_scalar}, &m);
    assert_int_equal(pk_json_parser_run_memory(&empty, "{\"\":{\"\":1}}", 11), PK_JSON_COMPLETE);
    pk_json_parser_release(&empty);
    pk_json_parser jp;
    pk_json_parser_init(&jp, &(pk_json_handler){.scalar = match_scalar}, &m);
    assert_int_equal(pk_json_parser_run_memory(&jp, text, strlen(text)), PK_JSON_COMPLETE);
    assert_int_equal(m.hits_events, 2);
    assert_int_equal(m.hits_any_key, 3);
    assert_int_equal(m.hits_from_one, 3);
    pk_json_parser_release(&jp);
}

static void test_numbers(void **state)
{
    (void)state;
    pk_json_scalar v = {.kind = PK_JSON_DOUBLE, .d = 1500.0};
    int64_t i;
    double d;
    assert_true(pk_json_scalar_i64(&v, &i));
    assert_int_equal(i, 1500);
    v.d = 1.5;
    assert_false(pk_json_scalar_i64(&v, &i));
    v.d = 9223372036854775808.0;
    assert_false(pk_json_scalar_i64(&v, &i));
    v = (pk_json_scalar){.kind = PK_JSON_STRING, .s = "1", .len = 1};
    assert_false(pk_json_scalar_i64(&v, &i));
    assert_false(pk_json_scalar_double(&v, &d));
    assert_true(pk_json_scalar_is(&v, "1"));
    assert_false(pk_json_scalar_is(&v, "12"));
}

/* The doubles delivered for an array of numbers, in order. */
typedef struct double_run {
    double *values;
    size_t count;
} double_run;

static bool double_scalar(void *ctx, pk_json_parser *jp, const pk_json_scalar *v)
{
    (void)jp;
    double_run *d = ctx;
    assert_int_equal(v->kind, PK_JSON_DOUBLE);
    d->values[d->count++] = v->d;
    return true;
}

/* Numbers with a fraction or an exponent come out as strtod reads them, bit for bit: the short
 * ones the parser converts itself, the rest through strtod, on both sides of the line between. */
static void test_doubles_as_strtod(void **state)
{
    (void)state;
    enum { RANDOM = 20000 };
    static const char *const fixed[] = {
        "0.1", "-0.0", "0.0", "1.5", "1e22", "1e23", "9007199254740992.5", "9007199254740993.0",
        "9007199254740.993", "900719925474099.3e1", "0.30000000000000004", "1e-22", "1e-23",
        "123456789012345678.9", "4.9406564584124654e-324", "1.7976931348623157e308", "2e308",
        "-2e308", "11775663636.899", "197.936632", "0.000000000000000000001", "1E+2", "5e-0",
        "120682095.466", "1.0", "00.5"};
    size_t count = sizeof fixed / sizeof fixed[0] + RANDOM;
    pk_buffer text = PK_BUFFER_INIT;
    char **numbers = calloc(count, sizeof *numbers);
    assert_non_null(numbers);
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < count; i++) {
        char number[64];
        if (i < sizeof fixed / sizeof fixed[0]) {
            if (strcmp(fixed[i], "00.5") == 0)
                continue; /* not JSON: checks the list only */
            snprintf(number, sizeof number, "%s", fixed[i]);
        } else {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            uint64_t digits = (seed >> 11) % 10000000000000000000ull;
            int fraction = (int)((seed >> 3) % 21), exponent = (int)((seed >> 40) % 61) - 30;
            int n = snprintf(number, sizeof number, "%s%" PRIu64, seed & 4 ? "-" : "",
                             digits >> (seed >> 58));
            size_t int_len = strlen(number + (number[0] == '-'));
            if (fraction && (size_t)fraction < int_len) {
                /* a point inside the digits */
                size_t at = (size_t)n - (size_t)fraction;
                memmove(number + at + 1, number + at, (size_t)fraction + 1);
                number[at] = '.';
                n++;
            }
            if (seed & 8)
                snprintf(number + n, sizeof number - (size_t)n, "e%d", exponent);
            else if (!strchr(number, '.'))
                snprintf(number + n, sizeof number - (size_t)n, ".5");
        }
        numbers[i] = strdup(number);
        assert_non_null(numbers[i]);
        pk_buffer_append(&text, text.len ? "," : "[", 1);
        pk_buffer_append(&text, number, strlen(number));
    }
    pk_buffer_append(&text, "]", 1);
    assert_false(text.failed);
    double_run run = {calloc(count, sizeof(double)), 0};
    assert_non_null(run.values);
    pk_json_parser jp;
    pk_json_parser_init(&jp, &(pk_json_handler){.scalar = double_scalar}, &run);
    assert_int_equal(pk_json_parser_run_memory(&jp, text.data, text.len), PK_JSON_COMPLETE);
    pk_json_parser_release(&jp);
    size_t at = 0;
    for (size_t i = 0; i < count; i++) {
        if (!numbers[i])
            continue;
        double expected = strtod(numbers[i], NULL);
        if (memcmp(&expected, &run.values[at], sizeof expected) != 0)
            fail_msg("%s: %.17g, strtod %.17g", numbers[i], run.values[at], expected);
        at++;
        free(numbers[i]);
    }
    assert_int_equal(at, run.count);
    free(numbers);
    free(run.values);
    pk_buffer_free(&text);
}

/* A number's exact value at a scale, from its text, as the parser delivers it. */
typedef struct decimal_run {
    unsigned digits;
    bool ok;
    int64_t value;
} decimal_run;

static bool decimal_scalar(void *ctx, pk_json_parser *jp, const pk_json_scalar *v)
{
    (void)jp;
    decimal_run *d = ctx;
    d->ok = pk_json_scalar_decimal(v, d->digits, &d->value);
    return true;
}

static bool decimal_of(const char *text, unsigned digits, int64_t *out)
{
    decimal_run d = {digits, false, 0};
    pk_json_parser jp;
    pk_json_parser_init(&jp, &(pk_json_handler){.scalar = decimal_scalar}, &d);
    assert_int_equal(pk_json_parser_run_memory(&jp, text, strlen(text)), PK_JSON_COMPLETE);
    pk_json_parser_release(&jp);
    *out = d.value;
    return d.ok;
}

static void test_decimal(void **state)
{
    (void)state;
    int64_t v;
    /* Beyond a double's 53 bits: the decimals are kept. */
    assert_true(decimal_of("[4611686018427.387903]", 6, &v));
    assert_int_equal(v, 4611686018427387903LL);
    assert_true(decimal_of("[-1.5]", 6, &v));
    assert_int_equal(v, -1500000);
    assert_true(decimal_of("[12]", 6, &v));
    assert_int_equal(v, 12000000);
    assert_true(decimal_of("[1.5e-3]", 6, &v));
    assert_int_equal(v, 1500);
    assert_true(decimal_of("[25E-1]", 1, &v));
    assert_int_equal(v, 25);
    assert_true(decimal_of("[0.0]", 6, &v));
    assert_int_equal(v, 0);
    /* Zeros past what fits are no fraction. */
    assert_true(decimal_of("[2.5000000000000000000000000]", 1, &v));
    assert_int_equal(v, 25);
    /* A fraction left, or too large. */
    assert_false(decimal_of("[0.0000001]", 6, &v));
    assert_false(decimal_of("[9223372036854.775808]", 6, &v));
    assert_false(decimal_of("[1e30]", 0, &v));
    assert_true(decimal_of("[-9223372036854.775808]", 6, &v));
    assert_int_equal(v, INT64_MIN);
    assert_false(decimal_of("[\"1\"]", 0, &v));
}

static void test_probe(void **state)
{
    (void)state;
    const char *cut = "{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"scr";
    pk_json_probe_key keys[] = {
        {"nodes/#/callFrame", NULL, false},
        {"nodes/#/callFrame/functionName", "(root)", false},
        {"nodes/#/id", "1", false}, /* a number is not the string "1" */
        {"samples", NULL, false},
    };
    assert_int_equal(pk_json_probe((const uint8_t *)cut, strlen(cut), keys, 4), 2);
    assert_true(keys[0].found);
    assert_true(keys[1].found);
    assert_false(keys[2].found);
    assert_false(keys[3].found);
    const char *damaged = "{\"samples\": [1,}";
    assert_int_equal(pk_json_probe((const uint8_t *)damaged, strlen(damaged), keys, 4), 1);
    const char *not_json = "{\"a\" 1}";
    assert_int_equal(pk_json_probe((const uint8_t *)not_json, strlen(not_json), keys, 4), -1);
    const char *scalar = "12345";
    assert_int_equal(pk_json_probe((const uint8_t *)scalar, strlen(scalar), keys, 4), -1);
    assert_int_equal(pk_json_first_byte((const uint8_t *)"\xEF\xBB\xBF \n[", 6), '[');
    assert_int_equal(pk_json_first_byte((const uint8_t *)" ", 1), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values_and_paths),
        cmocka_unit_test(test_same_callbacks_whatever_the_chunks),
        cmocka_unit_test(test_cut_keeps_what_came),
        cmocka_unit_test(test_invalid_with_offset),
        cmocka_unit_test(test_handler_failure),
        cmocka_unit_test(test_read_helper),
        cmocka_unit_test(test_read_settle),
        cmocka_unit_test(test_skip),
        cmocka_unit_test(test_match),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_doubles_as_strtod),
        cmocka_unit_test(test_decimal),
        cmocka_unit_test(test_probe),
    };
    return cmocka_run_group_tests_name("json_input", tests, NULL, NULL);
}
