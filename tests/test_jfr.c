/* SPDX-License-Identifier: MIT */
/* JFR: the codec (compressed integers at their limits, every string encoding), recordings built
 * here byte by byte (a constant-pool reference to nothing, a type the metadata does not
 * describe, a type whose values take no bytes, a version 1.0 chunk, async-profiler's frame
 * types), and the fixtures of tests/data/jfr cut at many offsets: whole chunks with a
 * warning, or an error naming the offset, never a crash.
 * With PK_JFR_WRITE_SEEDS=DIR it also writes the recordings it builds to DIR (the fuzz corpus
 * fuzz/corpus/jfr was seeded so). tests/cli/jfr.sh checks the command on the fixture. */
#define _GNU_SOURCE /* sched_getcpu, CPU_SET */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/categories.h"
#include "formats/formats.h"
#include "formats/jfr/jfr.h"
#include "profkit/format.h"
#include "profkit/profile.h"
#include "profile_diff.h"

/* ---- a byte builder ---------------------------------------------------------------------- */

typedef struct buf {
    uint8_t *data;
    size_t size, cap;
} buf;

static void put(buf *b, const void *bytes, size_t n)
{
    if (b->size + n > b->cap) {
        b->cap = (b->size + n) * 2 + 64;
        b->data = realloc(b->data, b->cap);
        assert_non_null(b->data);
    }
    memcpy(b->data + b->size, bytes, n);
    b->size += n;
}

static void put_u8(buf *b, uint8_t v)
{
    put(b, &v, 1);
}

static void put_varint(buf *b, uint64_t v)
{
    for (int i = 0; i < 8 && v >= 0x80; i++, v >>= 7)
        put_u8(b, (uint8_t)(v | 0x80));
    put_u8(b, (uint8_t)v);
}

static void put_be64(buf *b, uint64_t v)
{
    for (int i = 7; i >= 0; i--)
        put_u8(b, (uint8_t)(v >> (8 * i)));
}

/* A string as JFR writes it: encoding 0 null, 1 empty, 3 UTF-8, 4 UTF-16, 5 Latin-1 (the text
 * must then be ASCII). */
static void put_string(buf *b, int encoding, const char *s)
{
    put_u8(b, (uint8_t)encoding);
    if (encoding < 3)
        return;
    put_varint(b, strlen(s));
    for (const char *c = s; *c; c++)
        if (encoding == 4)
            put_varint(b, (uint8_t)*c);
        else
            put_u8(b, (uint8_t)*c);
}

/* An event: its size (four bytes, padded as the JVM writes it) then the body. */
static void put_event(buf *b, const buf *body)
{
    uint64_t size = body->size + 4;
    for (int i = 0; i < 3; i++)
        put_u8(b, (uint8_t)((size >> (7 * i)) | 0x80));
    put_u8(b, (uint8_t)(size >> 21));
    put(b, body->data, body->size);
}

/* ---- a recording ------------------------------------------------------------------------- */

/* How a built recording goes wrong (or not). */
typedef struct recipe {
    int name_encoding;        /* the thread's Java name: 2 (a String pool key), 3, 4 or 5 */
    uint64_t stack_key;       /* the events' stack trace: 1 is in the pool */
    uint64_t field_class;     /* the class of the stack frame's line field: 2 is int */
    uint64_t event_type;      /* the second event's type: 20 is jdk.ExecutionSample */
    bool empty_struct_nest;   /* types whose values take no bytes, nested 30 deep, two each */
    bool extreme_times;       /* start times at the int64 limits */
    bool tlab;                /* the second event a jdk.ObjectAllocationInNewTLAB (type 21) */
    bool version1;            /* a version 1.0 chunk: JDK 9 and 10's spellings of the names */
    const char *frame_type;   /* the frames' type ("Interpreted" when NULL) */
    const char *class_name;   /* the methods' class ("pkg/Busy" when NULL) */
    bool fixed_width_flag;    /* the header's flag of compressed integers clear */
    const char *run_name;     /* the name of method 1's symbol (NULL: "run") */
    bool no_run_method;       /* method 1 left out of the pool */
} recipe;

static const recipe good = {3, 1, 2, 20, false, false, false, false, NULL, NULL, false, NULL, false};

enum { STRINGS = 128 };
static char meta_strings[STRINGS][48];
static size_t meta_string_count;

/* The index of s in the metadata's strings (a copy: numbers are made in a scratch buffer). */
static uint64_t sidx(const char *s)
{
    for (size_t i = 0; i < meta_string_count; i++)
        if (strcmp(meta_strings[i], s) == 0)
            return i;
    assert_true(meta_string_count < STRINGS && strlen(s) < sizeof meta_strings[0]);
    strcpy(meta_strings[meta_string_count], s);
    return meta_string_count++;
}

typedef struct field_spec {
    const char *name;
    uint64_t class_id;
    bool pool, array;
} field_spec;

static const char *number(uint64_t v)
{
    static char text[24];
    snprintf(text, sizeof text, "%llu", (unsigned long long)v);
    return text;
}

static void put_class(buf *b, uint64_t id, const char *name, const field_spec *fields, size_t n)
{
    put_varint(b, sidx("class"));
    put_varint(b, 2);
    put_varint(b, sidx("id"));
    put_varint(b, sidx(number(id)));
    put_varint(b, sidx("name"));
    put_varint(b, sidx(name));
    put_varint(b, n);
    for (size_t i = 0; i < n; i++) {
        put_varint(b, sidx("field"));
        put_varint(b, 2 + fields[i].pool + fields[i].array);
        put_varint(b, sidx("name"));
        put_varint(b, sidx(fields[i].name));
        put_varint(b, sidx("class"));
        put_varint(b, sidx(number(fields[i].class_id)));
        if (fields[i].pool) {
            put_varint(b, sidx("constantPool"));
            put_varint(b, sidx("true"));
        }
        if (fields[i].array) {
            put_varint(b, sidx("dimension"));
            put_varint(b, sidx("1"));
        }
        put_varint(b, 0);
    }
}

/* A JDK type or event name as the recipe's chunk version spells it: version 1 (JDK 9 and 10)
 * has com.oracle.jfr.types.X for jdk.types.X and com.oracle.jdk.X for jdk.X. */
static const char *spelled(const recipe *r, const char *name)
{
    static char names[16][48];
    static size_t next;
    if (!r->version1 || strncmp(name, "jdk.", 4) != 0)
        return name;
    char *out = names[next++ % 16];
    if (strncmp(name, "jdk.types.", 10) == 0)
        snprintf(out, sizeof names[0], "com.oracle.jfr.types.%s", name + 10);
    else
        snprintf(out, sizeof names[0], "com.oracle.jdk.%s", name + 4);
    return out;
}

/* A chunk: metadata (every type the reader needs), one checkpoint, two CPU samples on one stack
 * of two frames (Busy.run called by Busy.main) of thread "worker". */
static buf build(const recipe *r)
{
    meta_string_count = 0;
    buf classes = {0};
    size_t class_count = 0;
#define CLASS(id, name, ...)                                                                      \
    do {                                                                                          \
        const field_spec f[] = {__VA_ARGS__};                                                     \
        put_class(&classes, id, spelled(r, name), f, sizeof f / sizeof f[0]);                     \
        class_count++;                                                                            \
    } while (0)
    put_class(&classes, 1, "long", NULL, 0);
    put_class(&classes, 2, "int", NULL, 0);
    put_class(&classes, 3, "java.lang.String", NULL, 0);
    class_count += 3;
    CLASS(4, "java.lang.Thread", {"osName", 3, false, false}, {"osThreadId", 1, false, false},
          {"javaName", 3, false, false}, {"javaThreadId", 1, false, false});
    CLASS(5, "jdk.types.Symbol", {"string", 3, false, false});
    CLASS(6, "java.lang.Class", {"name", 5, true, false});
    CLASS(7, "jdk.types.Method", {"type", 6, true, false}, {"name", 5, true, false});
    CLASS(8, "jdk.types.FrameType", {"description", 3, false, false});
    CLASS(9, "jdk.types.StackFrame", {"method", 7, true, false},
          {"lineNumber", r->field_class, false, false}, {"type", 8, true, false});
    CLASS(10, "jdk.types.StackTrace", {"frames", 9, false, true});
    if (r->empty_struct_nest) {
        /* Nest k holds two values of nest k+1; the last holds nothing. */
        for (uint64_t k = 0; k < 30; k++) {
            static char names[40][16];
            snprintf(names[k], sizeof names[k], "Nest%llu", (unsigned long long)k);
            if (k == 29) {
                put_class(&classes, 100 + k, names[k], NULL, 0);
            } else {
                const field_spec f[] = {{"a", 101 + k, false, false}, {"b", 101 + k, false, false}};
                put_class(&classes, 100 + k, names[k], f, 2);
            }
            class_count++;
        }
        CLASS(20, "jdk.ExecutionSample", {"startTime", 1, false, false},
              {"sampledThread", 4, true, false}, {"stackTrace", 10, true, false},
              {"nest", 100, false, false});
    } else {
        CLASS(20, "jdk.ExecutionSample", {"startTime", 1, false, false},
              {"sampledThread", 4, true, false}, {"stackTrace", 10, true, false});
    }
    if (r->tlab)
        CLASS(21, "jdk.ObjectAllocationInNewTLAB", {"startTime", 1, false, false},
              {"eventThread", 4, true, false}, {"stackTrace", 10, true, false},
              {"objectClass", 6, true, false}, {"allocationSize", 1, false, false});
#undef CLASS
    buf meta = {0};
    put_varint(&meta, 0); /* type: metadata */
    put_varint(&meta, 0);
    put_varint(&meta, 0);
    put_varint(&meta, 1);
    /* the element tree first, as it names the strings */
    buf tree = {0};
    put_varint(&tree, sidx("root"));
    put_varint(&tree, 0);
    put_varint(&tree, 1);
    put_varint(&tree, sidx("metadata"));
    put_varint(&tree, 0);
    put_varint(&tree, class_count);
    put(&tree, classes.data, classes.size);
    put_varint(&meta, meta_string_count);
    for (size_t i = 0; i < meta_string_count; i++)
        put_string(&meta, 3, meta_strings[i]);
    put(&meta, tree.data, tree.size);

    buf cp = {0};
    put_varint(&cp, 1); /* type: checkpoint */
    put_varint(&cp, 0);
    put_varint(&cp, 0);
    put_varint(&cp, 0);
    put_u8(&cp, 1);
    put_varint(&cp, 7 + (r->name_encoding == 2)); /* pools */
    put_varint(&cp, 4); /* threads */
    put_varint(&cp, 1);
    put_varint(&cp, 1);
    put_string(&cp, 3, "main-os");
    put_varint(&cp, 77);
    if (r->name_encoding == 2) {
        put_u8(&cp, 2);
        put_varint(&cp, 9);
    } else {
        put_string(&cp, r->name_encoding, "worker");
    }
    put_varint(&cp, 12);
    put_varint(&cp, 5); /* symbols */
    put_varint(&cp, 3);
    put_varint(&cp, 1);
    put_string(&cp, 3, r->class_name ? r->class_name : "pkg/Busy");
    put_varint(&cp, 2);
    put_string(&cp, 5, r->run_name ? r->run_name : "run");
    put_varint(&cp, 3);
    put_string(&cp, 4, "main");
    put_varint(&cp, 6); /* classes */
    put_varint(&cp, 1);
    put_varint(&cp, 1);
    put_varint(&cp, 1);
    put_varint(&cp, 7); /* methods */
    put_varint(&cp, r->no_run_method ? 1 : 2);
    if (!r->no_run_method) {
        put_varint(&cp, 1);
        put_varint(&cp, 1);
        put_varint(&cp, 2);
    }
    put_varint(&cp, 2);
    put_varint(&cp, 1);
    put_varint(&cp, 3);
    put_varint(&cp, 8); /* frame types */
    put_varint(&cp, 1);
    put_varint(&cp, 1);
    put_string(&cp, 3, r->frame_type ? r->frame_type : "Interpreted");
    put_varint(&cp, 10); /* stack traces: run (line 10) called by main (line 20) */
    put_varint(&cp, 1);
    put_varint(&cp, 1);
    put_varint(&cp, 2);
    put_varint(&cp, 1);
    put_varint(&cp, 10);
    put_varint(&cp, 1);
    put_varint(&cp, 2);
    put_varint(&cp, 20);
    put_varint(&cp, 1);
    put_varint(&cp, 3); /* strings */
    put_varint(&cp, 1);
    put_varint(&cp, 8);
    put_string(&cp, 3, "pooled");
    if (r->name_encoding == 2) {
        put_varint(&cp, 3);
        put_varint(&cp, 1);
        put_varint(&cp, 9);
        put_string(&cp, 3, "worker");
    }

    buf chunk = {0};
    uint8_t header[JFR_HEADER_SIZE] = {'F', 'L', 'R', 0, 0, r->version1 ? 1 : 2, 0, r->version1 ? 0 : 1};
    header[67] = r->fixed_width_flag ? 0 : 1; /* integers compressed */
    put(&chunk, header, sizeof header);
    for (int e = 0; e < 2; e++) {
        buf ev = {0};
        put_varint(&ev, e == 0 ? 20 : r->event_type);
        put_varint(&ev, r->extreme_times ? (uint64_t)INT64_MAX + (uint64_t)e : 1000 + (uint64_t)e);
        put_varint(&ev, 1);
        put_varint(&ev, r->stack_key); /* a nest, when there is one, takes no bytes */
        if (e == 1 && r->tlab) {
            put_varint(&ev, 1);    /* objectClass: pkg/Busy */
            put_varint(&ev, 4096); /* allocationSize */
        }
        put_event(&chunk, &ev);
        free(ev.data);
    }
    size_t cp_offset = chunk.size;
    put_event(&chunk, &cp);
    size_t meta_offset = chunk.size;
    put_event(&chunk, &meta);
    /* the header: size, constant pool and metadata offsets, start, duration, ticks */
    buf h = {0};
    put_be64(&h, chunk.size);
    put_be64(&h, cp_offset);
    put_be64(&h, meta_offset);
    put_be64(&h, 1700000000000000000ull);
    put_be64(&h, 1000);
    put_be64(&h, 1000);
    put_be64(&h, 1000000000);
    memcpy(chunk.data + 8, h.data, h.size);
    free(h.data);
    free(classes.data);
    free(tree.data);
    free(meta.data);
    free(cp.data);
    return chunk;
}

static pk_status read_bytes(const void *data, size_t size, bool salvage, pk_profile **p,
                            pk_error *err)
{
    pk_read_options options = {0};
    options.salvage = salvage;
    *p = NULL;
    return pk_read_memory(data, size, &pk_format_jfr, &options, p, err);
}

static void write_seed(const char *name, const buf *b)
{
    const char *dir = getenv("PK_JFR_WRITE_SEEDS");
    if (!dir)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b->data, 1, b->size, f), b->size);
    fclose(f);
}

/* ---- the codec ----------------------------------------------------------------------------- */

static bool decode(const uint8_t *bytes, size_t n, uint64_t *v, size_t *used)
{
    jfr_chunk c = {0};
    c.data = bytes;
    c.size = n;
    jfr_cursor cur = {&c, 0, n};
    bool ok = jfr_read_u64(&cur, v);
    *used = cur.pos;
    return ok;
}

static void test_integers(void **state)
{
    (void)state;
    uint64_t v;
    size_t used;
    const uint8_t zero[] = {0}, small[] = {0x7f}, two[] = {0x80, 0x01},
                  padded[] = {0x85, 0x80, 0x80, 0x00},
                  max[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x55},
                  top[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
    assert_true(decode(zero, 1, &v, &used));
    assert_int_equal(v, 0);
    assert_true(decode(small, 1, &v, &used));
    assert_int_equal(v, 127);
    assert_true(decode(two, 2, &v, &used));
    assert_int_equal(v, 128);
    assert_true(decode(padded, 4, &v, &used));
    assert_int_equal(v, 5);
    assert_int_equal(used, 4);
    /* the ninth byte gives all its eight bits and ends the number, whatever follows */
    assert_true(decode(max, sizeof max, &v, &used));
    assert_true(v == UINT64_MAX);
    assert_int_equal(used, 9);
    assert_true(decode(top, sizeof top, &v, &used));
    assert_true(v == 1ull << 56);
    /* cut anywhere before its last byte: not a number */
    for (size_t n = 0; n < 9; n++)
        assert_false(decode(max, n, &v, &used));
    assert_false(decode(two, 1, &v, &used));
}

/* An array of structs made only of integers and keys (a stack trace's frames) is skipped as one
 * run of integers: it ends where the walk through every field ends, and cut anywhere it fails. */
static void test_integer_struct_array(void **state)
{
    (void)state;
    const uint8_t bytes[] = {
        0x02,                                                 /* two frames */
        0x05, 0x85, 0x80, 0x80, 0x00, 0x7f,                   /* a small, a padded, a 1-byte */
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, /* nine bytes, the last whole */
        0x80, 0x01, 0x00,                                     /* two bytes, then one */
        0x2a};                                                /* what follows the array */
    jfr_field frame_fields[3] = {{"method", 0, true, false},
                                 {"line", 0, false, false},
                                 {"type", 0, true, false}};
    jfr_type types[2] = {{.id = 1, .name = "long", .kind = JFR_KIND_INTEGER},
                         {.id = 2, .name = "frame", .kind = JFR_KIND_STRUCT,
                          .fields = frame_fields, .field_count = 3}};
    jfr_chunk c = {0};
    c.data = bytes;
    c.size = sizeof bytes;
    c.types = types;
    c.type_count = 2;
    const jfr_field frames = {"frames", 1, false, true};
    const jfr_field keys = {"keys", 0, true, true};
    /* 0: walked field by field; 3: skipped as a run */
    for (uint32_t varints = 0; varints <= 3; varints += 3) {
        types[1].varints = varints;
        uint64_t v;
        jfr_cursor cur = {&c, 0, sizeof bytes};
        assert_true(jfr_read_field(&cur, &frames, &v));
        assert_int_equal(v, 0);
        assert_int_equal(cur.pos, sizeof bytes - 1);
        for (size_t n = 0; n < sizeof bytes - 1; n++) {
            jfr_cursor cut = {&c, 0, n};
            assert_false(jfr_read_field(&cut, &frames, &v));
        }
    }
    /* an array of keys: two of them, then the rest is not the array's */
    jfr_cursor cur = {&c, 0, sizeof bytes};
    uint64_t v;
    assert_true(jfr_read_field(&cur, &keys, &v));
    assert_int_equal(cur.pos, 1 + 1 + 4);
}

/* Every encoding of the thread's name reads to the same text. */
static void test_string_encodings(void **state)
{
    (void)state;
    const int encodings[] = {2, 3, 4, 5};
    for (size_t i = 0; i < 4; i++) {
        recipe r = good;
        r.name_encoding = encodings[i];
        buf b = build(&r);
        pk_profile *p;
        pk_error err;
        assert_int_equal(read_bytes(b.data, b.size, false, &p, &err), PK_OK);
        assert_int_equal(pk_thread_count(p), 1);
        assert_string_equal(pk_str(p, pk_thread_at(p, 0)->name), "worker");
        assert_int_equal(pk_thread_at(p, 0)->tid, 77);
        pk_profile_free(p);
        free(b.data);
    }
}

/* Null, empty, and text cut short, straight from the codec. */
static void test_string_codec(void **state)
{
    (void)state;
    jfr_chunk c = {0};
    c.string_type = UINT32_MAX;
    char *text = NULL;
    size_t cap = 0;
    const uint8_t null_s[] = {0}, empty_s[] = {1}, utf8[] = {3, 2, 'h', 'i'},
                  latin1[] = {5, 1, 0xe9}, utf16[] = {4, 2, 0xbd, 0xb0, 0x03, 0x80, 0xbc, 0x03},
                  cut[] = {3, 5, 'a'}, unknown[] = {6, 0}, key[] = {2, 1};
    struct {
        const uint8_t *bytes;
        size_t n;
        const char *text; /* NULL: not a string */
    } cases[] = {
        {null_s, 1, ""},
        {empty_s, 1, ""},
        {utf8, sizeof utf8, "hi"},
        {latin1, sizeof latin1, "\xc3\xa9"},
        /* the surrogate pair D83D DE00 is U+1F600 */
        {utf16, sizeof utf16, "\xf0\x9f\x98\x80"},
        {cut, sizeof cut, NULL},
        {unknown, sizeof unknown, NULL},
        {key, sizeof key, NULL}, /* a pool key, but no java.lang.String pool */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        c.data = cases[i].bytes;
        c.size = cases[i].n;
        bool ok = jfr_string_at(&c, 0, false, &text, &cap);
        if (cases[i].text) {
            assert_true(ok);
            assert_string_equal(text, cases[i].text);
        } else {
            assert_false(ok);
        }
    }
    free(text);
}

/* ---- recordings ---------------------------------------------------------------------------- */

static void test_good(void **state)
{
    (void)state;
    buf b = build(&good);
    write_seed("small.jfr", &b);
    pk_profile *p;
    pk_error err;
    assert_int_equal(read_bytes(b.data, b.size, false, &p, &err), PK_OK);
    assert_int_equal(pk_sample_count(p), 1);
    uint32_t stack = pk_sample_stack(p, 0);
    assert_int_equal(pk_stack_depth(p, stack), 2);
    assert_string_equal(pk_frame_name(p, pk_stack_leaf(p, stack)), "pkg.Busy.run");
    assert_int_equal(pk_sample_values(p, 0)[0], 2);
    pk_profile_free(p);
    free(b.data);
}

/* A version 1.0 chunk (JDK 9 and 10): the events and types of version 2 under their old names
 * (com.oracle.jdk.ExecutionSample, com.oracle.jfr.types.StackTrace, ...), read alike. */
static void test_version1(void **state)
{
    (void)state;
    recipe r = good;
    r.version1 = true;
    r.tlab = true;
    r.event_type = 21;
    buf b = build(&r);
    write_seed("version1.jfr", &b);
    pk_profile *p;
    pk_error err;
    assert_int_equal(read_bytes(b.data, b.size, false, &p, &err), PK_OK);
    assert_int_equal(pk_value_total(p, 0), 1); /* one CPU sample, one allocation */
    uint32_t stack = pk_sample_stack(p, 0);
    assert_int_equal(pk_stack_depth(p, stack), 2);
    assert_string_equal(pk_frame_name(p, pk_stack_leaf(p, stack)), "pkg.Busy.run");
    assert_int_equal(pk_value_type_count(p), 3);
    pk_profile_free(p);
    free(b.data);
}

/* A chunk whose flag says its integers are fixed-width is read with compressed ones, as the
 * JDK's parser reads every chunk; when that fails, the error says what the flag said. */
static void test_integer_flag(void **state)
{
    (void)state;
    recipe r = good;
    r.fixed_width_flag = true;
    buf b = build(&r);
    pk_profile *p;
    pk_error err;
    assert_int_equal(read_bytes(b.data, b.size, false, &p, &err), PK_OK);
    assert_int_equal(pk_value_total(p, 0), 2);
    pk_profile_free(p);
    free(b.data);
    r.event_type = 99;
    b = build(&r);
    assert_int_not_equal(read_bytes(b.data, b.size, false, &p, &err), PK_OK);
    assert_non_null(strstr(err.message, "the metadata does not describe"));
    assert_non_null(strstr(err.message, "integers are not compressed, bit 0 of header byte 67"));
    free(b.data);
}

/* The frame types async-profiler adds: "C++" and "Kernel" frames, and "Native" ones whose class
 * is a library or nothing, are native code named by the symbol alone (the library the
 * function's resource, the kernel's marked "_[k]"), in the Native and Kernel categories when
 * that is known; a JDK "Native" frame of a Java class is a Java native method, script-relevant;
 * "C1 compiled" is Java code. */
static void test_frame_types(void **state)
{
    (void)state;
    static const struct {
        const char *type, *klass, *leaf, *library;
        uint32_t flags;
        pk_category category;
    } cases[] = {
        {"C++", "libjvm.so", "run", "libjvm.so", 0, PK_CATEGORY_NATIVE},
        {"Kernel", "", "run_[k]", NULL, 0, PK_CATEGORY_KERNEL},
        {"Native", "libc.so.6", "run", "libc.so.6", 0, PK_CATEGORY_NATIVE},
        {"Native", "", "run", NULL, 0, PK_CATEGORY_JAVA},
        {"Native", "pkg/Busy", "pkg.Busy.run", NULL, PK_FUNCTION_SCRIPT_RELEVANT, PK_CATEGORY_JAVA},
        {"C1 compiled", "pkg/Busy", "pkg.Busy.run", NULL, PK_FUNCTION_SCRIPT, PK_CATEGORY_JAVA},
        {"Inlined", "pkg/Busy", "pkg.Busy.run", NULL, PK_FUNCTION_SCRIPT, PK_CATEGORY_JAVA},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        recipe r = good;
        r.frame_type = cases[i].type;
        r.class_name = cases[i].klass;
        buf b = build(&r);
        pk_profile *p;
        pk_error err;
        assert_int_equal(read_bytes(b.data, b.size, false, &p, &err), PK_OK);
        uint32_t leaf = pk_stack_leaf(p, pk_sample_stack(p, 0));
        assert_string_equal(pk_frame_name(p, leaf), cases[i].leaf);
        const pk_function *f = pk_function_at(p, pk_frame_at(p, leaf)->function);
        assert_int_equal(f->flags, cases[i].flags);
        if (cases[i].library)
            assert_string_equal(pk_str(p, pk_resource_at(p, f->resource)->name), cases[i].library);
        else
            assert_int_equal(f->resource, PK_NONE);
        assert_int_equal(pk_frame_at(p, leaf)->flags,
                         strcmp(cases[i].type, "Inlined") == 0 ? PK_FRAME_INLINED : 0);
        assert_int_equal(pk_frame_category(p, leaf, pk_profile_category(p)), cases[i].category);
        pk_profile_free(p);
        free(b.data);
    }
}

/* A TLAB allocation: the memory vocabulary's allocated bytes and objects (memory-values.md),
 * found by their former names too; the allocated class is the leaf. */
static void test_tlab_allocation(void **state)
{
    (void)state;
    recipe r = good;
    r.event_type = 21;
    r.tlab = true;
    buf b = build(&r);
    write_seed("tlab.jfr", &b);
    pk_profile *p;
    pk_error err;
    assert_int_equal(read_bytes(b.data, b.size, false, &p, &err), PK_OK);
    uint32_t space = pk_value_find(p, "alloc_space"), objects = pk_value_find(p, "alloc_objects");
    assert_int_not_equal(space, PK_NONE);
    assert_int_not_equal(objects, PK_NONE);
    assert_string_equal(pk_str(p, pk_value_type_at(p, space)->unit), "bytes");
    assert_string_equal(pk_str(p, pk_value_type_at(p, objects)->unit), "count");
    assert_int_equal(pk_value_total(p, space), 4096);
    assert_int_equal(pk_value_total(p, objects), 1);
    assert_int_equal(pk_value_lookup(p, "alloc-bytes"), space);
    assert_int_equal(pk_value_lookup(p, "alloc-objects"), objects);
    bool class_leaf = false;
    for (size_t row = 0; row < pk_sample_count(p); row++)
        if (pk_sample_values(p, row)[space] == 4096)
            class_leaf = strcmp(pk_frame_name(p, pk_stack_leaf(p, pk_sample_stack(p, row))),
                                "pkg.Busy") == 0;
    assert_true(class_leaf);
    pk_profile_free(p);
    free(b.data);
}

/* Ticks at the int64 limits: times saturate, no overflow (the sanitizer build checks). */
static void test_extreme_times(void **state)
{
    (void)state;
    recipe r = good;
    r.extreme_times = true;
    buf b = build(&r);
    write_seed("extreme_times.jfr", &b);
    pk_profile *p;
    pk_error err;
    assert_int_equal(read_bytes(b.data, b.size, false, &p, &err), PK_OK);
    assert_int_equal(pk_value_total(p, 0), 2);
    pk_profile_free(p);
    free(b.data);
}

static void expect_error(const recipe *r, const char *seed, const char *message)
{
    buf b = build(r);
    write_seed(seed, &b);
    for (int salvage = 0; salvage < 2; salvage++) {
        pk_profile *p;
        pk_error err;
        assert_int_equal(read_bytes(b.data, b.size, salvage, &p, &err), PK_ERR_INPUT);
        assert_null(p);
        assert_true(err.offset > 0 && (size_t)err.offset < b.size);
        if (!strstr(err.message, message))
            fail_msg("\"%s\" does not say \"%s\"", err.message, message);
    }
    free(b.data);
}

/* Events whose stack trace no pool of their chunk holds (the JVM writes some near a chunk's end
 * with the stack trace in another chunk): counted at their thread's root, as the JDK reads
 * them (a null stack trace), with a warning that counts them. */
static void test_stack_trace_elsewhere(void **state)
{
    (void)state;
    recipe r = good;
    r.stack_key = 5;
    buf b = build(&r);
    write_seed("dangling.jfr", &b);
    pk_profile *p;
    pk_error err;
    assert_int_equal(read_bytes(b.data, b.size, false, &p, &err), PK_OK);
    assert_int_equal(pk_sample_count(p), 1);
    assert_int_equal(pk_sample_stack(p, 0), PK_NONE);
    assert_int_equal(pk_sample_values(p, 0)[0], 2);
    assert_int_equal(pk_warning_count(p), 1);
    if (!strstr(pk_warning_at(p, 0), "2 JFR events refer to a stack trace that no constant pool"))
        fail_msg("\"%s\"", pk_warning_at(p, 0));
    pk_profile_free(p);
    free(b.data);
}

static void test_undescribed_types(void **state)
{
    (void)state;
    recipe r = good;
    r.field_class = 99;
    expect_error(&r, "undescribed_field.jfr", "type 99, which it does not describe");
    r = good;
    r.event_type = 98;
    expect_error(&r, "undescribed_event.jfr", "event of type 98, which the metadata does not");
}

/* Values of a type that takes no bytes, nested deep with two fields each: skipped at once, not
 * visited 2^30 times. */
static void test_empty_struct_nest(void **state)
{
    (void)state;
    recipe r = good;
    r.empty_struct_nest = true;
    buf b = build(&r);
    write_seed("empty_nest.jfr", &b);
    pk_profile *p;
    pk_error err;
    if (read_bytes(b.data, b.size, false, &p, &err) != PK_OK)
        fail_msg("%s", err.message);
    assert_int_equal(pk_sample_values(p, 0)[0], 2);
    pk_profile_free(p);
    free(b.data);
}

/* Every cut of the small recording: an error naming an offset within it (salvaging: nothing,
 * with a warning), never a crash. */
static void test_small_cuts(void **state)
{
    (void)state;
    buf b = build(&good);
    for (size_t n = 0; n < b.size; n++) {
        for (int salvage = 0; salvage < 2; salvage++) {
            pk_profile *p;
            pk_error err;
            pk_status s = read_bytes(b.data, n, salvage, &p, &err);
            if (s == PK_OK) {
                /* salvaging, a cut in the first chunk is an empty profile with a warning */
                assert_true(salvage);
                assert_int_equal(pk_sample_count(p), 0);
                assert_true(pk_warning_count(p) >= 1);
                pk_profile_free(p);
                continue;
            }
            assert_null(p);
            assert_true(err.offset >= 0 && (size_t)err.offset <= n);
        }
    }
    free(b.data);
}

static uint8_t *load_fixture(const char *name, size_t *size)
{
    const char *src = getenv("PK_SOURCE_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/data/jfr/%s", src ? src : ".", name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = malloc((size_t)n * 2);
    assert_non_null(data);
    assert_int_equal(fread(data, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    memcpy(data + n, data, (size_t)n); /* two chunks, one after the other */
    *size = (size_t)n;
    return data;
}

/* Each fixture (the JDK's recording, the version 1.0 chunk, async-profiler's layout) cut every
 * 97th byte: in its only chunk an error that names the cut; a second copy cut in its header or
 * body: the first chunk's samples, with a warning naming the cut. */
static void fixture_cuts(const char *name)
{
    size_t size;
    uint8_t *data = load_fixture(name, &size);
    pk_profile *whole;
    pk_error err;
    assert_int_equal(read_bytes(data, size, false, &whole, &err), PK_OK);
    int64_t total = pk_value_total(whole, 0);
    assert_true(total > 0);
    pk_profile_free(whole);
    for (size_t n = 1; n < size; n += 97) {
        pk_profile *p;
        pk_status s = read_bytes(data, n, false, &p, &err);
        assert_int_not_equal(s, PK_OK);
        assert_null(p);
        char offset[64];
        snprintf(offset, sizeof offset, "%zu", n);
        if (n >= JFR_HEADER_SIZE && !strstr(err.message, offset))
            fail_msg("cut at %zu: \"%s\"", n, err.message);
    }
    /* each of these reads the first chunk whole: fewer cuts under the sanitizers */
    size_t step = size < 65536 ? 97 : PK_TEST_SANITIZED ? 97 * 211 : 97 * 23;
    for (size_t n = size + 1; n < 2 * size; n += step) {
        pk_profile *p;
        assert_int_equal(read_bytes(data, n, false, &p, &err), PK_OK);
        assert_true(pk_value_total(p, 0) == total);
        assert_true(pk_warning_count(p) >= 1);
        char offset[64];
        snprintf(offset, sizeof offset, "cut at offset %zu", n);
        if (!strstr(pk_warning_at(p, 0), offset))
            fail_msg("\"%s\" does not say \"%s\"", pk_warning_at(p, 0), offset);
        pk_profile_free(p);
    }
    free(data);
}

static void test_fixture_cuts(void **state)
{
    (void)state;
    fixture_cuts("busy.jfr");
    fixture_cuts("v1.jfr");
    fixture_cuts("asprof.jfr");
}

/* The value of the samples whose leaf is the function called name. */
static int64_t leaf_total(const pk_profile *p, const char *name)
{
    int64_t total = 0;
    for (size_t i = 0; i < pk_sample_count(p); i++) {
        uint32_t stack = pk_sample_stack(p, i);
        if (stack != PK_NONE && strcmp(pk_frame_name(p, pk_stack_leaf(p, stack)), name) == 0)
            total += pk_sample_values(p, i)[0];
    }
    return total;
}

/* Stacks are known across chunks by their frames' bytes: a second chunk whose stack trace has
 * the same bytes, but whose method key names another method, gives that method's samples; one
 * whose pool lacks the method fails naming it, as a single chunk does. */
static void test_stacks_known_across_chunks(void **state)
{
    (void)state;
    recipe renamed = good, dropped = good;
    renamed.run_name = "walk";
    dropped.no_run_method = true;
    buf first = build(&good), second = build(&renamed), third = build(&dropped);
    buf two = {0}, three = {0};
    put(&two, first.data, first.size);
    put(&two, second.data, second.size);
    put(&three, two.data, two.size);
    put(&three, third.data, third.size);
    pk_profile *p;
    pk_error err;
    assert_int_equal(read_bytes(two.data, two.size, false, &p, &err), PK_OK);
    assert_int_equal(leaf_total(p, "pkg.Busy.run"), 2);
    assert_int_equal(leaf_total(p, "pkg.Busy.walk"), 2);
    pk_profile_free(p);
    assert_int_equal(read_bytes(three.data, three.size, false, &p, &err), PK_ERR_INPUT);
    if (!strstr(err.message, "method 1, which no constant pool"))
        fail_msg("\"%s\"", err.message);
    free(first.data);
    free(second.data);
    free(third.data);
    free(two.data);
    free(three.data);
}

/* Reads data as on one processor: the calling thread narrowed to the processor it is on, so
 * that the reader loads every chunk itself instead of on a worker thread. */
static pk_status read_on_one_processor(const void *data, size_t size, pk_profile **p,
                                       pk_error *err)
{
    cpu_set_t saved, one;
    int cpu = sched_getcpu();
    bool narrowed = false;
    if (cpu >= 0 && sched_getaffinity(0, sizeof saved, &saved) == 0) {
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        narrowed = sched_setaffinity(0, sizeof one, &one) == 0;
    }
    pk_status s = read_bytes(data, size, false, p, err);
    if (narrowed)
        sched_setaffinity(0, sizeof saved, &saved);
    return s;
}

/* Four chunks, their stacks decoded ahead and loaded on a worker thread (where there are two
 * processors) and all on the reader's thread: the same profile, four times one chunk's values. */
static void test_chunks_loaded_ahead(void **state)
{
    (void)state;
    size_t size;
    uint8_t *two = load_fixture("busy.jfr", &size);
    uint8_t *four = malloc(size * 4);
    assert_non_null(four);
    for (size_t i = 0; i < 4; i++)
        memcpy(four + i * size, two, size);
    pk_profile *one_chunk, *ahead, *alone;
    pk_error err;
    assert_int_equal(read_bytes(two, size, false, &one_chunk, &err), PK_OK);
    assert_int_equal(read_bytes(four, size * 4, false, &ahead, &err), PK_OK);
    assert_int_equal(read_on_one_processor(four, size * 4, &alone, &err), PK_OK);
    const char *difference = tb_profile_difference(ahead, alone);
    if (difference)
        fail_msg("loaded ahead and alone differ: %s", difference);
    for (uint32_t v = 0; v < pk_value_type_count(one_chunk); v++)
        assert_true(pk_value_total(ahead, v) == 4 * pk_value_total(one_chunk, v));
    assert_int_equal(pk_stack_count(ahead), pk_stack_count(one_chunk));
    pk_profile_free(one_chunk);
    pk_profile_free(ahead);
    pk_profile_free(alone);
    free(four);
    free(two);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_integers),
        cmocka_unit_test(test_integer_struct_array),
        cmocka_unit_test(test_string_codec),
        cmocka_unit_test(test_string_encodings),
        cmocka_unit_test(test_good),
        cmocka_unit_test(test_extreme_times),
        cmocka_unit_test(test_tlab_allocation),
        cmocka_unit_test(test_version1),
        cmocka_unit_test(test_frame_types),
        cmocka_unit_test(test_integer_flag),
        cmocka_unit_test(test_stack_trace_elsewhere),
        cmocka_unit_test(test_undescribed_types),
        cmocka_unit_test(test_empty_struct_nest),
        cmocka_unit_test(test_small_cuts),
        cmocka_unit_test(test_fixture_cuts),
        cmocka_unit_test(test_chunks_loaded_ahead),
        cmocka_unit_test(test_stacks_known_across_chunks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
