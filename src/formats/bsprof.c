/* Roku BrightScript profiler files (.bsprof).
 *
 * Layout: a header (magic, version, header size, sample ratios, line-data and memory flags,
 * run start, six NUL-terminated strings, zero padding up to the header size), a stream of
 * entries that each start with a varint tag whose low three bits are the entry type, an end
 * marker (the tag value 0) and a footer holding the run end (varint, ms since 1970).
 *
 * Model mapping:
 *   module            -> a thread (pid 0, tid = module ID), named by its string
 *   path element      -> a function (name, file, start line; no resource, because one script
 *                        file runs in several modules) and a stack: the callers' frames, each
 *                        at its call-site line when line data is on, then its own line-less frame
 *   CPU, memory entry -> with a line offset, the path element's stack with a leaf frame at
 *                        line = path line + offset - 1; without one, the path element's stack
 *   call count        -> the path element's stack
 * Values: cpu (operations), wall (raw units: the file never says which), calls, alloc-bytes and
 * allocs (summed per stack from the memory operations), live-bytes (allocations never freed).
 *
 * IDs are sparse uint32 keys: every table is a hash map. A stack is computed when its path
 * element is defined, so a sample never walks a caller chain and looping chains cannot hang the
 * reader. CPU, wall, call counts and allocation sums are accumulated per (path element, line
 * offset) and reach the model once, at the end; memory stays proportional to distinct paths.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hashmap.h"
#include "core/input.h"
#include "core/output.h"
#include "formats/formats.h"
#include "profkit/format.h"

#define BS_MAGIC_SIZE 8
static const uint8_t bs_magic[BS_MAGIC_SIZE] = {'b', 's', 'p', 'r', 'o', 'f', 0, 0};

/* The major version of the specification this reader and writer follow. The specification
 * names no number; a first published version is 1, and profkit writes 1.0.0. */
#define BS_KNOWN_MAJOR 1
#define BS_WRITE_MAJOR 1
#define BS_WRITE_MINOR 0
#define BS_WRITE_PATCH 0

/* No real name or path comes near this; it bounds what a damaged file can make us buffer. */
#define BS_MAX_STRING (16u << 20)

enum bs_entry_type {
    BS_STRING = 0,
    BS_MODULE = 1,
    BS_PATH = 2,
    BS_MEMORY = 3,
    BS_CPU = 4,
    BS_CALLS = 5
};

enum bs_memory_op { BS_OP_ALLOC = 0, BS_OP_FREE = 1, BS_OP_FREE_REALLOC = 2 };

static const char *const bs_entry_names[8] = {"string", "module", "path element", "memory",
                                              "cpu",    "call count", "type 6", "type 7"};
static const char *const bs_op_names[4] = {"alloc", "free", "free_realloc", "op 3"};

enum bs_value { BS_V_CPU, BS_V_WALL, BS_V_CALLS, BS_V_ALLOC_BYTES, BS_V_ALLOCS, BS_V_LIVE_BYTES,
                BS_VALUE_COUNT };
static const char *const bs_value_names[BS_VALUE_COUNT][2] = {
    {"cpu", "operations"}, {"wall", "wall-units"}, {"calls", "count"},
    {"alloc-bytes", "bytes"}, {"allocs", "count"}, {"live-bytes", "bytes"}};

/* ---- small helpers --------------------------------------------------------------------------- */

/* A growable byte buffer: string scratch for the reader, the header for the writer. */
typedef struct bs_bytes {
    uint8_t *data;
    size_t len;
    size_t cap;
} bs_bytes;

static bool bs_bytes_reserve(bs_bytes *b, size_t extra)
{
    if (b->cap - b->len >= extra)
        return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len < extra) {
        if (cap > SIZE_MAX / 2)
            return false;
        cap *= 2;
    }
    uint8_t *data = realloc(b->data, cap);
    if (!data)
        return false;
    b->data = data;
    b->cap = cap;
    return true;
}

static bool bs_bytes_append(bs_bytes *b, const void *data, size_t n)
{
    if (!bs_bytes_reserve(b, n))
        return false;
    if (n)
        memcpy(b->data + b->len, data, n);
    b->len += n;
    return true;
}

static void bs_bytes_free(bs_bytes *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

/* Grows an array of item_size items so that it holds at least need items. */
static bool bs_grow(void **items, size_t *cap, size_t need, size_t item_size)
{
    if (need <= *cap)
        return true;
    size_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    if (n > SIZE_MAX / item_size)
        return false;
    void *grown = realloc(*items, n * item_size);
    if (!grown)
        return false;
    *items = grown;
    *cap = n;
    return true;
}

static int bs_varint_size(uint64_t v)
{
    int n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static size_t bs_varint_encode(uint8_t *buf, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        buf[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    buf[n++] = (uint8_t)v;
    return n;
}

/* The shortest decimal form that reads back as the same float32. */
static void bs_format_ratio(float v, char *buf, size_t size)
{
    for (int precision = 1; precision <= 9; precision++) {
        snprintf(buf, size, "%.*g", precision, (double)v);
        if (strtof(buf, NULL) == v)
            return;
    }
}

static int64_t bs_ms_to_ns(uint64_t ms)
{
    if (ms == 0 || ms > (uint64_t)(INT64_MAX / 1000000))
        return PK_TIME_UNKNOWN;
    return (int64_t)ms * 1000000;
}

/* Reads a varint into a uint32: 1 ok, 0 the input ends, -1 not a varint, -2 over 32 bits. */
static inline int bs_varint32(pk_input *in, uint32_t *value)
{
    uint64_t v;
    int r = pk_in_varint(in, &v);
    if (r <= 0)
        return r;
    if (v > UINT32_MAX)
        return -2;
    *value = (uint32_t)v;
    return 1;
}

/* Reads a NUL-terminated string into text (without the NUL): 1 ok, 0 the input ends first,
 * -1 too long, -2 out of memory. */
static int bs_read_cstring(pk_input *in, bs_bytes *text)
{
    text->len = 0;
    if (!bs_bytes_reserve(text, 1))
        return -2;
    for (;;) {
        if (pk_in_peekc(in) < 0)
            return 0;
        size_t available = pk_in_available(in);
        const uint8_t *nul = memchr(in->pos, 0, available);
        size_t n = nul ? (size_t)(nul - in->pos) : available;
        if (text->len + n > BS_MAX_STRING)
            return -1;
        if (!bs_bytes_append(text, in->pos, n))
            return -2;
        in->pos += n;
        if (nul) {
            in->pos++;
            return 1;
        }
    }
}

/* ---- the header ------------------------------------------------------------------------------ */

enum bs_header_text { BS_TARGET, BS_SUPPLEMENTAL, BS_TARGET_VERSION, BS_VENDOR, BS_MODEL,
                      BS_FIRMWARE, BS_HEADER_TEXT_COUNT };
static const char *const bs_header_text_names[BS_HEADER_TEXT_COUNT] = {
    "target name", "supplemental information", "target version",
    "device vendor name", "device model number", "device firmware version"};
static const char *const bs_header_text_keys[BS_HEADER_TEXT_COUNT] = {
    "target", "supplemental-info", "target-version",
    "device-vendor", "device-model", "device-firmware"};

typedef struct bs_header {
    uint32_t major, minor, patch;
    uint32_t size;        /* header size: where the body starts */
    uint64_t known_size;  /* bytes of the fields this reader understands */
    float requested_ratio, actual_ratio;
    uint64_t line_data, memory_ops; /* "varint bool": any non-zero value is true */
    uint64_t start_ms;
    bs_bytes text[BS_HEADER_TEXT_COUNT];
} bs_header;

static void bs_header_free(bs_header *h)
{
    for (int i = 0; i < BS_HEADER_TEXT_COUNT; i++)
        bs_bytes_free(&h->text[i]);
}

static pk_status bs_header_cut(pk_input *in, uint64_t offset, const char *field, pk_error *err)
{
    if (pk_in_error(in))
        return pk_error_set(err, PK_ERR_IO, PK_NO_OFFSET, "read failed");
    return pk_error_set(err, PK_ERR_INPUT, (int64_t)offset,
                        "truncated header: the input ends inside the %s", field);
}

static pk_status bs_header_varint(pk_input *in, uint64_t *value, const char *field,
                                  pk_error *err)
{
    uint64_t offset = pk_in_offset(in);
    int r = pk_in_varint(in, value);
    if (r == 0)
        return bs_header_cut(in, offset, field, err);
    if (r < 0)
        return pk_error_set(err, PK_ERR_INPUT, (int64_t)offset, "header: the %s is not a valid varint",
                            field);
    return PK_OK;
}

static pk_status bs_header_varint32(pk_input *in, uint32_t *value, const char *field,
                                    pk_error *err)
{
    uint64_t offset = pk_in_offset(in);
    uint64_t v;
    pk_status st = bs_header_varint(in, &v, field, err);
    if (st != PK_OK)
        return st;
    if (v > UINT32_MAX)
        return pk_error_set(err, PK_ERR_INPUT, (int64_t)offset, "header: the %s exceeds 32 bits",
                            field);
    *value = (uint32_t)v;
    return PK_OK;
}

static pk_status bs_header_float(pk_input *in, float *value, const char *field, pk_error *err)
{
    uint64_t offset = pk_in_offset(in);
    uint8_t b[4];
    if (pk_in_read(in, b, 4) != 4)
        return bs_header_cut(in, offset, field, err);
    uint32_t bits = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                    (uint32_t)b[3] << 24;
    memcpy(value, &bits, sizeof *value);
    return PK_OK;
}

/* Reads the header and skips to the body. */
static pk_status bs_read_header(pk_input *in, bs_header *h, pk_error *err)
{
    memset(h, 0, sizeof *h);
    uint8_t magic[BS_MAGIC_SIZE];
    size_t got = pk_in_read(in, magic, sizeof magic);
    if (pk_in_error(in))
        return pk_error_set(err, PK_ERR_IO, PK_NO_OFFSET, "read failed");
    if (got == 0)
        return pk_error_set(err, PK_ERR_INPUT, 0, "empty file: no .bsprof header");
    if (memcmp(magic, bs_magic, got) != 0)
        return pk_error_set(err, PK_ERR_INPUT, 0, "not a .bsprof file (no \"bsprof\" magic)");
    if (got < sizeof magic)
        return bs_header_cut(in, 0, "magic", err);

    pk_status st;
    uint64_t size_offset = 0;
    if ((st = bs_header_varint32(in, &h->major, "major version", err)) ||
        (st = bs_header_varint32(in, &h->minor, "minor version", err)) ||
        (st = bs_header_varint32(in, &h->patch, "patch level", err)))
        return st;
    size_offset = pk_in_offset(in);
    if ((st = bs_header_varint32(in, &h->size, "header size", err)) ||
        (st = bs_header_float(in, &h->requested_ratio, "requested sample ratio", err)) ||
        (st = bs_header_float(in, &h->actual_ratio, "actual sample ratio", err)) ||
        (st = bs_header_varint(in, &h->line_data, "line data flag", err)) ||
        (st = bs_header_varint(in, &h->memory_ops, "memory operations flag", err)) ||
        (st = bs_header_varint(in, &h->start_ms, "run start timestamp", err)))
        return st;
    for (int i = 0; i < BS_HEADER_TEXT_COUNT; i++) {
        uint64_t offset = pk_in_offset(in);
        int r = bs_read_cstring(in, &h->text[i]);
        if (r == 0)
            return bs_header_cut(in, offset, bs_header_text_names[i], err);
        if (r == -1)
            return pk_error_set(err, PK_ERR_INPUT, (int64_t)offset,
                                "header: the %s is longer than %u bytes", bs_header_text_names[i],
                                BS_MAX_STRING);
        if (r == -2 || !bs_bytes_append(&h->text[i], "", 1))
            return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
        h->text[i].len--; /* keep the NUL but not in the length */
    }
    h->known_size = pk_in_offset(in);
    if (h->size < h->known_size)
        return pk_error_set(err, PK_ERR_INPUT, (int64_t)size_offset,
                            "header size %" PRIu32 " is smaller than the %" PRIu64
                            " bytes of its fields",
                            h->size, h->known_size);
    uint64_t padding = h->size - h->known_size;
    if (pk_in_skip(in, padding) != padding) {
        if (pk_in_error(in))
            return pk_error_set(err, PK_ERR_IO, PK_NO_OFFSET, "read failed");
        return pk_error_set(err, PK_ERR_INPUT, (int64_t)size_offset,
                            "header size %" PRIu32 " goes beyond the end of the input",
                            h->size);
    }
    return PK_OK;
}

/* ---- the entry decoder (shared by the reader and the dump) ------------------------------------ */

typedef struct bs_entry {
    uint64_t offset;      /* of the tag */
    uint64_t tag;
    unsigned type;        /* enum bs_entry_type */
    unsigned op;          /* memory: enum bs_memory_op */
    uint32_t id;          /* string, module or path element defined; the path element of a
                             memory, CPU or call count entry */
    uint32_t caller;      /* path element: caller, 0 for a root */
    uint32_t module;      /* root path element: its module */
    uint32_t line_offset; /* 0 when the file has no line data */
    uint32_t file, line, function; /* path element: string IDs and start line */
    uint32_t name;        /* module: string ID */
    uint32_t address, size;
    uint32_t cpu, wall;
    uint32_t count;
    const uint8_t *text;  /* string entry: valid until the next decode */
    size_t text_len;
} bs_entry;

typedef enum bs_next { BS_NEXT_ENTRY, BS_NEXT_END_MARKER, BS_NEXT_EOF, BS_NEXT_ERROR } bs_next;

typedef struct bs_decoder {
    pk_input *in;
    bool line_data;
    bs_bytes text;
    pk_error *err;
} bs_decoder;

/* Reports a varint field that could not be read (r as from bs_varint32). */
static bs_next __attribute__((noinline))
bs_field_error(bs_decoder *d, const bs_entry *e, int r, const char *field)
{
    const char *type = bs_entry_names[e->type & 7];
    if (r == 0 && pk_in_error(d->in))
        pk_error_set(d->err, PK_ERR_IO, PK_NO_OFFSET, "read failed");
    else if (r == 0)
        pk_error_set(d->err, PK_ERR_INPUT, (int64_t)e->offset,
                     "truncated %s entry: the input ends inside its %s", type, field);
    else if (r == -1)
        pk_error_set(d->err, PK_ERR_INPUT, (int64_t)e->offset,
                     "%s entry: the %s is not a valid varint", type, field);
    else
        pk_error_set(d->err, PK_ERR_INPUT, (int64_t)e->offset, "%s entry: the %s exceeds 32 bits",
                     type, field);
    return BS_NEXT_ERROR;
}

static bs_next __attribute__((noinline)) bs_entry_error(bs_decoder *d, const bs_entry *e,
                                                        const char *message)
{
    pk_error_set(d->err, PK_ERR_INPUT, (int64_t)e->offset, "%s entry: %s",
                 bs_entry_names[e->type & 7], message);
    return BS_NEXT_ERROR;
}

#define BS_FIELD(var, name)                                                                  \
    do {                                                                                     \
        int r_ = bs_varint32(in, &(var));                                                    \
        if (r_ <= 0)                                                                         \
            return bs_field_error(d, e, r_, name);                                           \
    } while (0)

static inline __attribute__((always_inline)) bs_next bs_decode(bs_decoder *d, bs_entry *e)
{
    pk_input *in = d->in;
    e->offset = pk_in_offset(in);
    e->type = 0;
    int r = pk_in_varint(in, &e->tag);
    if (__builtin_expect(r <= 0, 0)) {
        if (r == 0 && pk_in_offset(in) == e->offset && pk_in_available(in) == 0 &&
            !pk_in_error(in))
            return BS_NEXT_EOF;
        return bs_field_error(d, e, r, "tag");
    }
    if (e->tag == 0)
        return BS_NEXT_END_MARKER;
    e->type = (unsigned)(e->tag & 7);
    e->line_offset = 0;
    switch (e->type) {
    case BS_CPU:
        if (e->tag >> 35)
            return bs_entry_error(d, e, "the tag payload exceeds 32 bits");
        e->id = (uint32_t)(e->tag >> 3);
        if (d->line_data)
            BS_FIELD(e->line_offset, "line offset");
        BS_FIELD(e->cpu, "cpu time");
        BS_FIELD(e->wall, "wall time");
        if (e->id == 0)
            return bs_entry_error(d, e, "path element ID 0");
        return BS_NEXT_ENTRY;
    case BS_CALLS:
        if (e->tag >> 35)
            return bs_entry_error(d, e, "the tag payload exceeds 32 bits");
        e->id = (uint32_t)(e->tag >> 3);
        BS_FIELD(e->count, "call count");
        if (e->id == 0)
            return bs_entry_error(d, e, "path element ID 0");
        return BS_NEXT_ENTRY;
    case BS_MEMORY:
        if (e->tag >> 37)
            return bs_entry_error(d, e, "the tag payload exceeds 32 bits");
        e->id = (uint32_t)(e->tag >> 5);
        e->op = (unsigned)(e->tag >> 3) & 3;
        if (e->op == 3)
            return bs_entry_error(d, e, "memory operation 3 is undefined");
        if (d->line_data)
            BS_FIELD(e->line_offset, "line offset");
        BS_FIELD(e->address, "address");
        e->size = 0;
        if (e->op == BS_OP_ALLOC)
            BS_FIELD(e->size, "size");
        if (e->id == 0)
            return bs_entry_error(d, e, "path element ID 0");
        return BS_NEXT_ENTRY;
    case BS_STRING: {
        if (e->tag >> 35)
            return bs_entry_error(d, e, "the tag payload exceeds 32 bits");
        e->id = (uint32_t)(e->tag >> 3);
        int s = bs_read_cstring(in, &d->text);
        if (s == 0)
            return bs_field_error(d, e, 0, "text");
        if (s == -1)
            return bs_entry_error(d, e, "the text is longer than 16 MiB");
        if (s == -2) {
            pk_error_set(d->err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
            return BS_NEXT_ERROR;
        }
        /* ID 0 cannot occur: its tag would be 0, the end marker. */
        e->text = d->text.data;
        e->text_len = d->text.len;
        return BS_NEXT_ENTRY;
    }
    case BS_MODULE:
        if (e->tag >> 35)
            return bs_entry_error(d, e, "the tag payload exceeds 32 bits");
        e->id = (uint32_t)(e->tag >> 3);
        BS_FIELD(e->name, "name string ID");
        if (e->id == 0)
            return bs_entry_error(d, e, "module ID 0");
        return BS_NEXT_ENTRY;
    case BS_PATH:
        if (e->tag >> 35)
            return bs_entry_error(d, e, "the tag payload exceeds 32 bits");
        e->id = (uint32_t)(e->tag >> 3);
        e->module = 0;
        BS_FIELD(e->caller, "caller path element ID");
        if (e->caller == 0)
            BS_FIELD(e->module, "module ID");
        else if (d->line_data)
            BS_FIELD(e->line_offset, "line offset in the caller");
        BS_FIELD(e->file, "file name string ID");
        BS_FIELD(e->line, "line number");
        BS_FIELD(e->function, "function name string ID");
        if (e->id == 0)
            return bs_entry_error(d, e, "path element ID 0");
        if (e->caller == 0 && e->module == 0)
            return bs_entry_error(d, e, "root path element with module ID 0");
        return BS_NEXT_ENTRY;
    default:
        pk_error_set(d->err, PK_ERR_INPUT, (int64_t)e->offset,
                     "unknown entry type %u (tag 0x%" PRIx64 "): nothing after it can be decoded",
                     e->type, e->tag);
        return BS_NEXT_ERROR;
    }
}

/* ---- the reader ------------------------------------------------------------------------------ */

typedef struct bs_path {
    uint32_t thread;
    uint32_t function;
    uint32_t start_line;
    uint32_t callers;   /* stack of the callers, PK_NONE for a root */
    uint32_t stack;     /* callers plus the element's own line-less frame */
    uint32_t first_acc; /* accumulators keyed by this element's ID, UINT32_MAX when none */
    bool placeholder;   /* made up for a reference to an undefined ID */
} bs_path;

/* Sums of one (path element, line offset) until the end of the stream. */
typedef struct bs_acc {
    uint64_t key;
    uint32_t thread;
    uint32_t stack;
    uint32_t next_of_path;
    uint64_t cpu, wall, calls, alloc_bytes, allocs; /* cpu, wall, calls: folded from the slot */
} bs_acc;

/* The accumulator table, keyed by path element ID << 32 | line offset. CPU and call-count
 * entries are most of a file, so their sums live in the slot beside the key and an entry costs
 * one cache line (pk_u64map keeps keys, values and flags in three arrays). Key 0 marks an empty
 * slot and key 1 a retired one (its path element ID was defined again): no real key has path
 * element ID 0. */
#define BS_SLOT_EMPTY 0
#define BS_SLOT_RETIRED 1

typedef struct bs_slot {
    uint64_t key;
    uint32_t acc;
    uint32_t calls; /* spills into the accumulator when it would overflow */
    uint64_t cpu;
    uint64_t wall;
} bs_slot;

typedef struct bs_module {
    uint32_t thread;
    bool placeholder;
} bs_module;

enum bs_kind { BS_KIND_STRING, BS_KIND_MODULE, BS_KIND_PATH, BS_KIND_COUNT };
static const char *const bs_kind_names[BS_KIND_COUNT] = {"string", "module", "path element"};

typedef struct bs_tally {
    uint64_t count;
    uint32_t first;
} bs_tally;

typedef struct bs_reader {
    pk_profile *p;
    bool line_data;
    uint32_t values[BS_VALUE_COUNT];
    pk_u64map strings;             /* string ID -> profile string */
    pk_u64map string_placeholders; /* string IDs that were referenced before any definition */
    pk_u64map modules;             /* module ID -> index into mods */
    bs_module *mods;
    size_t mod_count, mod_cap;
    pk_u64map paths;               /* path element ID -> index into path_recs */
    bs_path *path_recs;
    size_t path_count, path_cap;
    bs_slot *slots;                /* accumulator table, see bs_slot */
    size_t slot_mask;
    unsigned slot_shift;           /* 64 - log2(capacity) */
    size_t slots_used;             /* live and retired */
    bs_acc *acc_recs;
    size_t acc_count, acc_cap;
    uint32_t unknown_thread;       /* thread of placeholder path elements, PK_NONE until needed */
    uint32_t unnamed;              /* "<unnamed>", PK_NONE until needed */
    bs_tally undefined[BS_KIND_COUNT];
    bs_tally redefined[BS_KIND_COUNT];
    bool memory_flag;              /* the header's memory operations flag */
    uint64_t memory_ops;
    uint64_t entries;
} bs_reader;

static void bs_reader_free(bs_reader *r)
{
    pk_u64map_free(&r->strings);
    pk_u64map_free(&r->string_placeholders);
    pk_u64map_free(&r->modules);
    pk_u64map_free(&r->paths);
    free(r->slots);
    free(r->mods);
    free(r->path_recs);
    free(r->acc_recs);
}

static void bs_tally_add(bs_tally *t, uint32_t id)
{
    if (t->count++ == 0)
        t->first = id;
}

/* Profile string for a string ID; 0 (null) gives null_value. PK_NONE when memory runs out. */
static uint32_t bs_string_ref(bs_reader *r, uint32_t id, uint32_t null_value)
{
    if (id == 0)
        return null_value;
    uint32_t *found = pk_u64map_find(&r->strings, id);
    if (found)
        return *found;
    uint32_t s = pk_intern_printf(r->p, "<unknown string %" PRIu32 ">", id);
    uint32_t *slot;
    bool inserted;
    if (s == PK_NONE || !pk_u64map_put(&r->strings, id, s, &slot, &inserted) ||
        !pk_u64map_put(&r->string_placeholders, id, 0, &slot, &inserted))
        return PK_NONE;
    bs_tally_add(&r->undefined[BS_KIND_STRING], id);
    return s;
}

static uint32_t bs_unnamed(bs_reader *r)
{
    if (r->unnamed == PK_NONE)
        r->unnamed = pk_intern_cstr(r->p, "<unnamed>");
    return r->unnamed;
}

/* The thread of a module ID, defining a placeholder module when it is unknown. */
static bool bs_module_ref(bs_reader *r, uint32_t id, uint32_t *thread)
{
    uint32_t *found = pk_u64map_find(&r->modules, id);
    if (found) {
        *thread = r->mods[*found].thread;
        return true;
    }
    uint32_t name = pk_intern_printf(r->p, "<unknown module %" PRIu32 ">", id);
    if (name == PK_NONE)
        return false;
    uint32_t t = pk_add_thread(r->p, name, 0, id);
    if (t == PK_NONE || !bs_grow((void **)&r->mods, &r->mod_cap, r->mod_count + 1, sizeof *r->mods))
        return false;
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&r->modules, id, (uint32_t)r->mod_count, &slot, &inserted))
        return false;
    r->mods[r->mod_count++] = (bs_module){t, true};
    bs_tally_add(&r->undefined[BS_KIND_MODULE], id);
    *thread = t;
    return true;
}

static pk_status bs_nomem(pk_error *err)
{
    return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
}

/* Fibonacci hashing: one multiplication, the key being on the critical path of every entry.
 * The top bits of the product depend on every bit of the key, so sparse IDs spread too. */
static inline size_t bs_slot_hash(uint64_t key, unsigned shift)
{
    return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> shift);
}

static bs_slot *bs_slot_find(const bs_reader *r, uint64_t key)
{
    for (size_t i = bs_slot_hash(key, r->slot_shift);; i = (i + 1) & r->slot_mask) {
        bs_slot *slot = &r->slots[i];
        if (slot->key == key)
            return slot;
        if (slot->key == BS_SLOT_EMPTY)
            return NULL;
    }
}

static void bs_slot_fold(bs_reader *r, bs_slot *slot)
{
    bs_acc *acc = &r->acc_recs[slot->acc];
    acc->cpu += slot->cpu;
    acc->wall += slot->wall;
    acc->calls += slot->calls;
    slot->cpu = slot->wall = 0;
    slot->calls = 0;
}

static void bs_slot_retire(bs_reader *r, uint64_t key)
{
    bs_slot *slot = bs_slot_find(r, key);
    if (slot) {
        bs_slot_fold(r, slot);
        slot->key = BS_SLOT_RETIRED;
    }
}

static bool bs_slots_init(bs_reader *r)
{
    r->slots = calloc(64, sizeof *r->slots);
    r->slot_mask = 63;
    r->slot_shift = 64 - 6;
    return r->slots != NULL;
}

/* Rebuilds the table with room for twice the live slots, dropping retired ones. */
static bool bs_slots_rebuild(bs_reader *r)
{
    size_t live = 0;
    for (size_t i = 0; i <= r->slot_mask; i++)
        live += r->slots[i].key > BS_SLOT_RETIRED;
    size_t capacity = 64;
    unsigned shift = 64 - 6;
    while (capacity < 4 * (live + 1)) {
        capacity *= 2;
        shift--;
    }
    bs_slot *slots = calloc(capacity, sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; i <= r->slot_mask; i++) {
        if (r->slots[i].key <= BS_SLOT_RETIRED)
            continue;
        size_t j = bs_slot_hash(r->slots[i].key, shift);
        while (slots[j].key != BS_SLOT_EMPTY)
            j = (j + 1) & (capacity - 1);
        slots[j] = r->slots[i];
    }
    free(r->slots);
    r->slots = slots;
    r->slot_mask = capacity - 1;
    r->slot_shift = shift;
    r->slots_used = live;
    return true;
}

/* Appends a path element record and points its ID at it, dropping the accumulators of an
 * earlier record with the same ID (their sums stay with their stacks). */
static bool bs_path_store(bs_reader *r, uint32_t id, const bs_path *rec, bool *redefined)
{
    if (!bs_grow((void **)&r->path_recs, &r->path_cap, r->path_count + 1, sizeof *r->path_recs))
        return false;
    uint32_t index = (uint32_t)r->path_count;
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&r->paths, id, index, &slot, &inserted))
        return false;
    *redefined = false;
    if (!inserted) {
        bs_path *old = &r->path_recs[*slot];
        *redefined = !old->placeholder;
        for (uint32_t a = old->first_acc; a != UINT32_MAX; a = r->acc_recs[a].next_of_path)
            bs_slot_retire(r, r->acc_recs[a].key);
        old->first_acc = UINT32_MAX;
        *slot = index;
    }
    r->path_recs[index] = *rec;
    r->path_count++;
    return true;
}

static pk_status bs_frame_stack(bs_reader *r, uint32_t callers, uint32_t function, uint32_t line,
                                uint32_t *stack)
{
    pk_frame frame = {.function = function, .line = line, .resource = PK_NONE};
    uint32_t f = pk_intern_frame(r->p, &frame);
    if (f == PK_NONE)
        return PK_ERR_NOMEM;
    *stack = pk_intern_stack(r->p, callers, f);
    return *stack == PK_NONE ? PK_ERR_NOMEM : PK_OK;
}

/* Source line of a line offset into a path element: 0 when the offset is absent or the line
 * is not representable. */
static uint32_t bs_offset_line(uint32_t start_line, uint32_t offset)
{
    if (offset == 0)
        return 0;
    uint64_t line = (uint64_t)start_line + offset - 1;
    return line > UINT32_MAX ? 0 : (uint32_t)line;
}

/* The record of a path element ID, defining a placeholder when it is unknown. */
static pk_status bs_path_ref(bs_reader *r, uint32_t id, uint32_t *index)
{
    uint32_t *found = pk_u64map_find(&r->paths, id);
    if (found) {
        *index = *found;
        return PK_OK;
    }
    if (r->unknown_thread == PK_NONE) {
        uint32_t name = pk_intern_cstr(r->p, "<unknown module>");
        if (name == PK_NONE || (r->unknown_thread = pk_add_thread(r->p, name, 0, -1)) == PK_NONE)
            return PK_ERR_NOMEM;
    }
    bs_path rec = {.thread = r->unknown_thread, .callers = PK_NONE, .first_acc = UINT32_MAX,
                   .placeholder = true};
    pk_function fn = {.resource = PK_NONE};
    fn.name = pk_intern_printf(r->p, "<unknown path %" PRIu32 ">", id);
    if (fn.name == PK_NONE || (rec.function = pk_intern_function(r->p, &fn)) == PK_NONE)
        return PK_ERR_NOMEM;
    if (bs_frame_stack(r, PK_NONE, rec.function, 0, &rec.stack) != PK_OK)
        return PK_ERR_NOMEM;
    bool redefined;
    if (!bs_path_store(r, id, &rec, &redefined))
        return PK_ERR_NOMEM;
    bs_tally_add(&r->undefined[BS_KIND_PATH], id);
    *index = (uint32_t)r->path_count - 1;
    return PK_OK;
}

/* Creates the accumulator of (path element, line offset), its slot and its sample row. */
static bs_slot *__attribute__((noinline))
bs_acc_create(bs_reader *r, uint32_t path_id, uint32_t offset, uint64_t key)
{
    uint32_t index;
    if (bs_path_ref(r, path_id, &index) != PK_OK)
        return NULL;
    bs_path *path = &r->path_recs[index];
    bs_acc acc = {.key = key, .thread = path->thread, .stack = path->stack,
                  .next_of_path = path->first_acc};
    uint32_t line = bs_offset_line(path->start_line, offset);
    if (line != 0 && bs_frame_stack(r, path->callers, path->function, line, &acc.stack) != PK_OK)
        return NULL;
    if (r->acc_count >= UINT32_MAX - 1 ||
        !bs_grow((void **)&r->acc_recs, &r->acc_cap, r->acc_count + 1, sizeof *r->acc_recs))
        return NULL;
    if ((r->slots_used + 1) * 2 > r->slot_mask + 1 && !bs_slots_rebuild(r))
        return NULL;
    /* The row exists from the first contribution, so stream order is kept for the writers. */
    if (pk_add_sample(r->p, acc.thread, acc.stack, NULL) != PK_OK)
        return NULL;
    uint32_t a = (uint32_t)r->acc_count++;
    r->acc_recs[a] = acc;
    r->path_recs[index].first_acc = a;
    size_t i = bs_slot_hash(key, r->slot_shift);
    while (r->slots[i].key != BS_SLOT_EMPTY)
        i = (i + 1) & r->slot_mask;
    r->slots[i] = (bs_slot){.key = key, .acc = a};
    r->slots_used++;
    return &r->slots[i];
}

static inline bs_slot *bs_slot_for(bs_reader *r, uint32_t path_id, uint32_t offset)
{
    uint64_t key = (uint64_t)path_id << 32 | offset;
    for (size_t i = bs_slot_hash(key, r->slot_shift);; i = (i + 1) & r->slot_mask) {
        bs_slot *slot = &r->slots[i];
        if (slot->key == key)
            return slot;
        if (slot->key == BS_SLOT_EMPTY)
            return bs_acc_create(r, path_id, offset, key);
    }
}

static pk_status bs_define_string(bs_reader *r, const bs_entry *e, pk_error *err)
{
    uint32_t s = pk_intern(r->p, (const char *)e->text, e->text_len);
    uint32_t *slot;
    bool inserted;
    if (s == PK_NONE || !pk_u64map_put(&r->strings, e->id, s, &slot, &inserted))
        return bs_nomem(err);
    if (!inserted) {
        if (!pk_u64map_remove(&r->string_placeholders, e->id, NULL) && *slot != s)
            bs_tally_add(&r->redefined[BS_KIND_STRING], e->id);
        *slot = s;
    }
    return PK_OK;
}

static pk_status bs_define_module(bs_reader *r, const bs_entry *e, pk_error *err)
{
    uint32_t name = e->name ? bs_string_ref(r, e->name, 0)
                            : pk_intern_printf(r->p, "module %" PRIu32, e->id);
    if (name == PK_NONE)
        return bs_nomem(err);
    uint32_t *found = pk_u64map_find(&r->modules, e->id);
    if (found) {
        bs_module *m = &r->mods[*found];
        if (!m->placeholder)
            bs_tally_add(&r->redefined[BS_KIND_MODULE], e->id);
        m->placeholder = false;
        pk_thread_rename(r->p, m->thread, name);
        return PK_OK;
    }
    uint32_t t = pk_add_thread(r->p, name, 0, e->id);
    uint32_t *slot;
    bool inserted;
    if (t == PK_NONE ||
        !bs_grow((void **)&r->mods, &r->mod_cap, r->mod_count + 1, sizeof *r->mods) ||
        !pk_u64map_put(&r->modules, e->id, (uint32_t)r->mod_count, &slot, &inserted))
        return bs_nomem(err);
    r->mods[r->mod_count++] = (bs_module){t, false};
    return PK_OK;
}

static pk_status bs_define_path(bs_reader *r, const bs_entry *e, pk_error *err)
{
    pk_function fn = {.start_line = e->line, .resource = PK_NONE};
    fn.name = bs_string_ref(r, e->function, PK_NONE);
    if (e->function == 0)
        fn.name = bs_unnamed(r);
    fn.file = bs_string_ref(r, e->file, 0);
    if (fn.name == PK_NONE || fn.file == PK_NONE)
        return bs_nomem(err);
    bs_path rec = {.function = pk_intern_function(r->p, &fn), .start_line = e->line,
                   .first_acc = UINT32_MAX};
    if (rec.function == PK_NONE)
        return bs_nomem(err);
    if (e->caller == 0) {
        if (!bs_module_ref(r, e->module, &rec.thread))
            return bs_nomem(err);
        rec.callers = PK_NONE;
    } else {
        uint32_t index;
        if (bs_path_ref(r, e->caller, &index) != PK_OK)
            return bs_nomem(err);
        const bs_path caller = r->path_recs[index];
        rec.thread = caller.thread;
        rec.callers = caller.stack;
        uint32_t call_line = bs_offset_line(caller.start_line, e->line_offset);
        if (call_line != 0 &&
            bs_frame_stack(r, caller.callers, caller.function, call_line, &rec.callers) != PK_OK)
            return bs_nomem(err);
    }
    if (bs_frame_stack(r, rec.callers, rec.function, 0, &rec.stack) != PK_OK)
        return bs_nomem(err);
    bool redefined;
    if (!bs_path_store(r, e->id, &rec, &redefined))
        return bs_nomem(err);
    if (redefined)
        bs_tally_add(&r->redefined[BS_KIND_PATH], e->id);
    return PK_OK;
}

static inline pk_status bs_memory_op(bs_reader *r, uint32_t path_id, unsigned op,
                                     uint32_t offset, uint32_t address, uint32_t size)
{
    bs_slot *slot = bs_slot_for(r, path_id, offset);
    if (!slot)
        return PK_ERR_NOMEM;
    bs_acc *acc = &r->acc_recs[slot->acc];
    r->memory_ops++;
    if (op == BS_OP_ALLOC) {
        acc->alloc_bytes += size;
        acc->allocs++;
        return pk_memory_alloc(r->p, acc->thread, acc->stack, address, size);
    }
    pk_memory_kind kind = op == BS_OP_FREE ? PK_MEM_FREE : PK_MEM_REALLOC_FREE;
    return pk_memory_free(r->p, acc->thread, acc->stack, address, kind, NULL);
}

static pk_status bs_memory(bs_reader *r, const bs_entry *e, pk_error *err)
{
    pk_status st = bs_memory_op(r, e->id, e->op, e->line_offset, e->address, e->size);
    if (st != PK_OK)
        return pk_error_set(err, st, PK_NO_OFFSET, "cannot record a memory operation");
    return PK_OK;
}

static inline pk_status bs_apply(bs_reader *r, const bs_entry *e, pk_error *err)
{
    bs_slot *slot;
    switch (e->type) {
    case BS_CPU:
        if (!(slot = bs_slot_for(r, e->id, e->line_offset)))
            return bs_nomem(err);
        slot->cpu += e->cpu;
        slot->wall += e->wall;
        return PK_OK;
    case BS_CALLS:
        if (!(slot = bs_slot_for(r, e->id, 0)))
            return bs_nomem(err);
        if (__builtin_add_overflow(slot->calls, e->count, &slot->calls)) {
            r->acc_recs[slot->acc].calls += (uint64_t)slot->calls + UINT32_MAX + 1;
            slot->calls = 0;
        }
        return PK_OK;
    case BS_MEMORY:
        return bs_memory(r, e, err);
    case BS_STRING:
        return bs_define_string(r, e, err);
    case BS_MODULE:
        return bs_define_module(r, e, err);
    default:
        return bs_define_path(r, e, err);
    }
}

/* The fast path for the bulk of a file, CPU, call-count and memory entries, decoding straight
 * from the buffer when a whole entry surely fits (at most 6 + 3 * 5 bytes). It declines
 * (returns false, consuming nothing) whatever needs care: definitions, ID 0, long or odd
 * varints, undefined memory operations; the general decoder then handles the entry and reports
 * any error. */
#define BS_FAST_ENTRY_BYTES 32

static inline __attribute__((always_inline)) bool bs_fast_u32(const uint8_t **pos, uint32_t *out)
{
    const uint8_t *p = *pos;
    uint32_t v = 0;
    for (unsigned shift = 0; shift < 28; shift += 7) {
        uint32_t b = *p++;
        v |= (b & 0x7f) << shift;
        if (b < 0x80) {
            *out = v;
            *pos = p;
            return true;
        }
    }
    uint32_t b = *p++;
    if (b > 0x0f)
        return false;
    *out = v | b << 28;
    *pos = p;
    return true;
}

/* Applies consecutive fast-path entries while a whole entry surely fits in the buffer. Stops
 * before the first entry it declines. Returns false when memory runs out. */
static bool __attribute__((noinline)) bs_fast_run(bs_reader *r, pk_input *in)
{
    const uint8_t *p = in->pos;
    const bool line_data = r->line_data;
    uint64_t applied = 0;
    bool ok = true;
    while (in->end - p >= BS_FAST_ENTRY_BYTES) {
        const uint8_t *q = p;
        uint64_t tag = 0;
        for (unsigned shift = 0;; shift += 7) {
            uint64_t b = *q++;
            tag |= (b & 0x7f) << shift;
            if (b < 0x80)
                break;
            if (shift == 35) /* more than 6 bytes: a payload past 32 bits, or odd */
                goto stop;
        }
        uint32_t id = (uint32_t)(tag >> 3), offset = 0, a, b;
        bs_slot *slot;
        switch (tag & 7) {
        case BS_CPU:
            if (id == 0 || (tag >> 35) != 0 || (line_data && !bs_fast_u32(&q, &offset)) ||
                !bs_fast_u32(&q, &a) || !bs_fast_u32(&q, &b))
                goto stop;
            if (!(slot = bs_slot_for(r, id, offset))) {
                ok = false;
                goto stop;
            }
            slot->cpu += a;
            slot->wall += b;
            break;
        case BS_CALLS:
            if (id == 0 || (tag >> 35) != 0 || !bs_fast_u32(&q, &a))
                goto stop;
            if (!(slot = bs_slot_for(r, id, 0))) {
                ok = false;
                goto stop;
            }
            if (__builtin_add_overflow(slot->calls, a, &slot->calls)) {
                r->acc_recs[slot->acc].calls += (uint64_t)slot->calls + UINT32_MAX + 1;
                slot->calls = 0;
            }
            break;
        case BS_MEMORY: {
            unsigned op = (unsigned)(tag >> 3) & 3;
            id = (uint32_t)(tag >> 5);
            b = 0;
            if (id == 0 || (tag >> 37) != 0 || op == 3 ||
                (line_data && !bs_fast_u32(&q, &offset)) || !bs_fast_u32(&q, &a) ||
                (op == BS_OP_ALLOC && !bs_fast_u32(&q, &b)))
                goto stop;
            if (bs_memory_op(r, id, op, offset, a, b) != PK_OK) {
                ok = false;
                goto stop;
            }
            break;
        }
        default:
            goto stop;
        }
        p = q;
        applied++;
    }
stop:
    in->pos = p;
    r->entries += applied;
    return ok;
}

static int64_t bs_saturate(uint64_t v)
{
    return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

/* Hands the accumulated sums to the model. */
static pk_status bs_flush(bs_reader *r, pk_error *err)
{
    size_t nvalues = pk_value_type_count(r->p);
    int64_t values[PK_MAX_VALUES] = {0};
    for (size_t i = 0; i <= r->slot_mask; i++)
        if (r->slots[i].key > BS_SLOT_RETIRED)
            bs_slot_fold(r, &r->slots[i]);
    for (size_t a = 0; a < r->acc_count; a++) {
        const bs_acc *acc = &r->acc_recs[a];
        if (!(acc->cpu | acc->wall | acc->calls | acc->alloc_bytes | acc->allocs))
            continue;
        for (size_t v = 0; v < nvalues; v++)
            values[v] = 0;
        values[r->values[BS_V_CPU]] = bs_saturate(acc->cpu);
        values[r->values[BS_V_WALL]] = bs_saturate(acc->wall);
        values[r->values[BS_V_CALLS]] = bs_saturate(acc->calls);
        values[r->values[BS_V_ALLOC_BYTES]] = bs_saturate(acc->alloc_bytes);
        values[r->values[BS_V_ALLOCS]] = bs_saturate(acc->allocs);
        pk_status st = pk_add_sample(r->p, acc->thread, acc->stack, values);
        if (st != PK_OK)
            return pk_error_set(err, st, PK_NO_OFFSET, "cannot record samples");
    }
    pk_status st = pk_memory_add_live_values(r->p, r->values[BS_V_LIVE_BYTES], PK_NONE);
    if (st != PK_OK)
        return pk_error_set(err, st, PK_NO_OFFSET, "cannot compute live memory");
    return PK_OK;
}

static void bs_report(bs_reader *r)
{
    for (int k = 0; k < BS_KIND_COUNT; k++) {
        const bs_tally *t = &r->undefined[k];
        if (t->count)
            pk_warn(r->p,
                    "%" PRIu64 " undefined %s ID%s referenced (first: %" PRIu32
                    "); shown as <unknown %s N>",
                    t->count, bs_kind_names[k], t->count == 1 ? "" : "s", t->first,
                    k == BS_KIND_PATH ? "path" : bs_kind_names[k]);
    }
    for (int k = 0; k < BS_KIND_COUNT; k++) {
        const bs_tally *t = &r->redefined[k];
        if (t->count)
            pk_warn(r->p,
                    "%" PRIu64 " %s definition%s reuse an earlier ID (first: %" PRIu32
                    "); later entries use the latest",
                    t->count, bs_kind_names[k], t->count == 1 ? "" : "s", t->first);
    }
    if (r->memory_ops && !r->memory_flag)
        pk_warn(r->p,
                "%" PRIu64 " memory operations although the header says memory operations are off",
                r->memory_ops);
}

static pk_status bs_header_to_model(pk_profile *p, const bs_header *h)
{
    pk_metadata *meta = pk_metadata_of(p);
    meta->source_format = pk_intern_cstr(p, "bsprof");
    meta->product = pk_intern(p, (const char *)h->text[BS_TARGET].data, h->text[BS_TARGET].len);
    meta->start_time = bs_ms_to_ns(h->start_ms);
    meta->times_approximate = true;
    if (meta->source_format == PK_NONE || meta->product == PK_NONE)
        return PK_ERR_NOMEM;

    char buf[64];
    snprintf(buf, sizeof buf, "%" PRIu32 ".%" PRIu32 ".%" PRIu32, h->major, h->minor, h->patch);
    pk_status st = pk_property_set(p, "format-version", buf);
    for (int i = 0; i < BS_HEADER_TEXT_COUNT && st == PK_OK; i++)
        st = pk_property_set(p, bs_header_text_keys[i], (const char *)h->text[i].data);
    if (st != PK_OK)
        return st;
    bs_format_ratio(h->requested_ratio, buf, sizeof buf);
    if ((st = pk_property_set(p, "requested-sample-ratio", buf)) != PK_OK)
        return st;
    bs_format_ratio(h->actual_ratio, buf, sizeof buf);
    if ((st = pk_property_set(p, "actual-sample-ratio", buf)) != PK_OK ||
        (st = pk_property_set(p, "line-data", h->line_data ? "yes" : "no")) != PK_OK ||
        (st = pk_property_set(p, "memory-operations", h->memory_ops ? "yes" : "no")) != PK_OK)
        return st;
    if (h->major != BS_KNOWN_MAJOR)
        pk_warn(p,
                "format version %s has an unknown major version (profkit knows %d); read as "
                "version %d",
                pk_property_get(p, "format-version"), BS_KNOWN_MAJOR, BS_KNOWN_MAJOR);
    return PK_OK;
}

/* After the end marker: the run end (one varint), then nothing that profkit knows. */
static void bs_read_footer(pk_input *in, pk_profile *p)
{
    if (pk_in_peekc(in) < 0)
        return;
    uint64_t offset = pk_in_offset(in);
    uint64_t end_ms;
    int r = pk_in_varint(in, &end_ms);
    if (r == 1) {
        pk_metadata *meta = pk_metadata_of(p);
        int64_t end = bs_ms_to_ns(end_ms);
        if (end != PK_TIME_UNKNOWN && meta->start_time != PK_TIME_UNKNOWN &&
            end < meta->start_time)
            pk_warn(p, "footer: the run end (%" PRIu64 " ms) is before the run start; ignored",
                    end_ms);
        else
            meta->end_time = end;
    } else {
        pk_warn(p, "footer at byte %" PRIu64 ": the run end timestamp is damaged; ignored",
                offset);
        return;
    }
    uint64_t rest_offset = pk_in_offset(in);
    uint64_t rest = pk_in_skip(in, UINT64_MAX);
    if (rest)
        pk_warn(p, "%" PRIu64 " unknown footer bytes after byte %" PRIu64 " ignored", rest,
                rest_offset);
}

static pk_status bs_read(pk_input *in, pk_profile *p, const pk_read_options *options,
                         pk_error *err)
{
    bs_header h;
    pk_status st = bs_read_header(in, &h, err);
    if (st == PK_OK && bs_header_to_model(p, &h) != PK_OK)
        st = bs_nomem(err);
    bool line_data = h.line_data != 0, memory_flag = h.memory_ops != 0;
    bs_header_free(&h);
    if (st != PK_OK)
        return st;

    bs_reader r = {.p = p, .line_data = line_data, .memory_flag = memory_flag,
                   .unknown_thread = PK_NONE, .unnamed = PK_NONE};
    bs_decoder d = {.in = in, .line_data = line_data, .err = err};
    pk_u64map_init(&r.strings);
    pk_u64map_init(&r.string_placeholders);
    pk_u64map_init(&r.modules);
    pk_u64map_init(&r.paths);
    if (!bs_slots_init(&r)) {
        st = bs_nomem(err);
        goto done;
    }
    for (int v = 0; v < BS_VALUE_COUNT; v++) {
        r.values[v] = pk_add_value_type(p, bs_value_names[v][0], bs_value_names[v][1]);
        if (r.values[v] == PK_NONE) {
            st = bs_nomem(err);
            goto done;
        }
    }
    pk_set_default_value(p, r.values[BS_V_CPU]);

    bs_entry e;
    for (;;) {
        if (pk_in_available(in) >= BS_FAST_ENTRY_BYTES && !bs_fast_run(&r, in)) {
            st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory at byte %" PRIu64,
                              pk_in_offset(in));
            goto done;
        }
        bs_next next = bs_decode(&d, &e);
        if (__builtin_expect(next == BS_NEXT_ENTRY, 1)) {
            if ((st = bs_apply(&r, &e, err)) != PK_OK)
                goto done;
            r.entries++;
            continue;
        }
        if (next == BS_NEXT_END_MARKER) {
            bs_read_footer(in, p);
            break;
        }
        if (next == BS_NEXT_EOF) {
            pk_warn(p, "truncated stream: no end marker");
            break;
        }
        if (err->status == PK_ERR_INPUT && options && options->salvage) {
            pk_warn(p, "damaged input at byte %" PRId64 ": %s; kept the %" PRIu64
                       " complete entries before it",
                    err->offset, err->message, r.entries);
            pk_error_clear(err);
            break;
        }
        st = err->status;
        goto done;
    }
    st = bs_flush(&r, err);
    if (st == PK_OK)
        bs_report(&r);
done:
    bs_bytes_free(&d.text);
    bs_reader_free(&r);
    return st;
}

/* ---- the dump -------------------------------------------------------------------------------- */

typedef struct bs_dumper {
    pk_output *out;
    bool raw;
    pk_profile *names; /* interned string texts, for resolving IDs */
    pk_u64map strings; /* string ID -> names string */
} bs_dumper;

static void bs_dump_string_ref(bs_dumper *dd, const char *key, uint32_t id)
{
    pk_out_printf(dd->out, " %s=", key);
    if (dd->raw || id == 0) {
        pk_out_u64(dd->out, id);
        return;
    }
    uint32_t *found = pk_u64map_find(&dd->strings, id);
    if (found)
        pk_out_json_string(dd->out, pk_str(dd->names, *found));
    else
        pk_out_printf(dd->out, "<unknown string %" PRIu32 ">", id);
}

static void bs_dump_header(bs_dumper *dd, const bs_header *h)
{
    pk_output *out = dd->out;
    char requested[32], actual[32];
    bs_format_ratio(h->requested_ratio, requested, sizeof requested);
    bs_format_ratio(h->actual_ratio, actual, sizeof actual);
    pk_out_printf(out,
                  "0: header version=%" PRIu32 ".%" PRIu32 ".%" PRIu32 " header_size=%" PRIu32
                  " padding=%" PRIu64 " requested_sample_ratio=%s actual_sample_ratio=%s",
                  h->major, h->minor, h->patch, h->size, h->size - h->known_size, requested,
                  actual);
    if (dd->raw)
        pk_out_printf(out, " line_data=%" PRIu64 " memory_operations=%" PRIu64, h->line_data,
                      h->memory_ops);
    else
        pk_out_printf(out, " line_data=%s memory_operations=%s", h->line_data ? "yes" : "no",
                      h->memory_ops ? "yes" : "no");
    pk_out_printf(out, " start_ms=%" PRIu64, h->start_ms);
    for (int i = 0; i < BS_HEADER_TEXT_COUNT; i++) {
        pk_out_putc(out, ' ');
        for (const char *k = bs_header_text_keys[i]; *k; k++)
            pk_out_putc(out, *k == '-' ? '_' : *k);
        pk_out_putc(out, '=');
        pk_out_json_string(out, (const char *)h->text[i].data);
    }
    pk_out_putc(out, '\n');
}

static pk_status bs_dump_entry(bs_dumper *dd, const bs_entry *e, pk_error *err)
{
    pk_output *out = dd->out;
    pk_out_u64(out, e->offset);
    pk_out_puts(out, ": ");
    if (dd->raw)
        pk_out_printf(out, "tag=%" PRIu64 " type=%u ", e->tag, e->type);
    switch (e->type) {
    case BS_STRING: {
        pk_out_printf(out, "string id=%" PRIu32 " text=", e->id);
        /* A copy with its NUL: the decoder's text is not terminated. */
        uint32_t s = pk_intern(dd->names, (const char *)e->text, e->text_len);
        uint32_t *slot;
        bool inserted;
        if (s == PK_NONE || !pk_u64map_put(&dd->strings, e->id, s, &slot, &inserted))
            return bs_nomem(err);
        *slot = s;
        pk_out_json_string(out, pk_str(dd->names, s));
        break;
    }
    case BS_MODULE:
        pk_out_printf(out, "module id=%" PRIu32, e->id);
        bs_dump_string_ref(dd, "name", e->name);
        break;
    case BS_PATH:
        pk_out_printf(out, "path id=%" PRIu32 " caller=%" PRIu32, e->id, e->caller);
        if (e->caller == 0)
            pk_out_printf(out, " module=%" PRIu32, e->module);
        else if (e->line_offset || dd->raw)
            pk_out_printf(out, " line_offset=%" PRIu32, e->line_offset);
        bs_dump_string_ref(dd, "file", e->file);
        pk_out_printf(out, " line=%" PRIu32, e->line);
        bs_dump_string_ref(dd, "function", e->function);
        break;
    case BS_MEMORY:
        if (dd->raw)
            pk_out_printf(out, "memory path=%" PRIu32 " op=%u", e->id, e->op);
        else
            pk_out_printf(out, "memory path=%" PRIu32 " op=%s", e->id, bs_op_names[e->op]);
        if (e->line_offset || dd->raw)
            pk_out_printf(out, " line_offset=%" PRIu32, e->line_offset);
        if (dd->raw)
            pk_out_printf(out, " address=%" PRIu32, e->address);
        else
            pk_out_printf(out, " address=0x%" PRIx32, e->address);
        if (e->op == BS_OP_ALLOC)
            pk_out_printf(out, " size=%" PRIu32, e->size);
        break;
    case BS_CPU:
        pk_out_printf(out, "cpu path=%" PRIu32, e->id);
        if (e->line_offset || dd->raw)
            pk_out_printf(out, " line_offset=%" PRIu32, e->line_offset);
        pk_out_printf(out, " cpu=%" PRIu32 " wall=%" PRIu32, e->cpu, e->wall);
        break;
    default:
        pk_out_printf(out, "calls path=%" PRIu32 " count=%" PRIu32, e->id, e->count);
        break;
    }
    pk_out_putc(out, '\n');
    return PK_OK;
}

static pk_status bs_dump(pk_input *in, pk_output *out, bool raw, const pk_read_options *options,
                         pk_error *err)
{
    bs_header h;
    pk_status st = bs_read_header(in, &h, err);
    if (st != PK_OK) {
        bs_header_free(&h);
        return st;
    }
    bs_dumper dd = {.out = out, .raw = raw, .names = pk_profile_new()};
    pk_u64map_init(&dd.strings);
    bs_decoder d = {.in = in, .line_data = h.line_data != 0, .err = err};
    if (!dd.names) {
        st = bs_nomem(err);
        goto done;
    }
    bs_dump_header(&dd, &h);
    bs_entry e;
    for (;;) {
        bs_next next = bs_decode(&d, &e);
        if (next == BS_NEXT_ENTRY) {
            if ((st = bs_dump_entry(&dd, &e, err)) != PK_OK)
                goto done;
            if (pk_out_failed(out))
                break;
            continue;
        }
        if (next == BS_NEXT_END_MARKER) {
            pk_out_printf(out, "%" PRIu64 ": end\n", e.offset);
            uint64_t offset = pk_in_offset(in);
            if (pk_in_peekc(in) >= 0) {
                uint64_t end_ms;
                if (pk_in_varint(in, &end_ms) == 1)
                    pk_out_printf(out, "%" PRIu64 ": footer end_ms=%" PRIu64 "\n", offset,
                                  end_ms);
                else
                    pk_out_printf(out, "%" PRIu64 ": footer damaged\n", offset);
                offset = pk_in_offset(in);
                uint64_t rest = pk_in_skip(in, UINT64_MAX);
                if (rest)
                    pk_out_printf(out, "%" PRIu64 ": unknown footer bytes=%" PRIu64 "\n", offset,
                                  rest);
            }
            break;
        }
        if (next == BS_NEXT_EOF) {
            pk_out_printf(out, "%" PRIu64 ": end of input (no end marker)\n", e.offset);
            break;
        }
        if (err->status == PK_ERR_INPUT && options && options->salvage) {
            pk_out_printf(out, "%" PRId64 ": damaged: %s\n", err->offset, err->message);
            pk_error_clear(err);
            break;
        }
        st = err->status;
        goto done;
    }
done:
    bs_header_free(&h);
    bs_bytes_free(&d.text);
    pk_u64map_free(&dd.strings);
    pk_profile_free(dd.names);
    return st;
}

/* ---- the writer ------------------------------------------------------------------------------ */

/* A path element being written: a function called from a stack of callers in a thread. */
typedef struct bs_wpath {
    uint32_t thread;
    uint32_t callers;  /* model stack of the callers, PK_NONE for a root */
    uint32_t function; /* PK_NONE for the placeholder of an empty stack */
} bs_wpath;

typedef struct bs_writer {
    const pk_profile *p;
    pk_output *out;
    pk_error *err;
    bool line_data;
    uint32_t *string_ids;    /* per profile string: its string ID, 0 until written */
    uint32_t next_string_id; /* IDs are handed out in order of writing, so that the output
                                does not depend on the order of the profile's tables */
    uint32_t unknown_name;   /* string ID of "<unknown>", 0 until written */
    uint32_t *module_ids;    /* per thread */
    pk_u64map path_of_stack; /* thread << 32 | stack -> path element index */
    pk_index path_index;     /* (thread, callers, function) -> path element index */
    bs_wpath *paths;
    size_t path_count, path_cap;
    uint32_t *chain;
    size_t chain_cap;
    pk_u64map addresses;     /* 64-bit address -> 32-bit handle, when addresses do not fit */
    bool remap_addresses;
} bs_writer;

static inline void bs_put_varint(pk_output *out, uint64_t v)
{
    uint8_t buf[10];
    pk_out_write(out, buf, bs_varint_encode(buf, v));
}

/* The string ID of profile string s, writing its entry the first time. */
static uint32_t bs_write_string(bs_writer *w, uint32_t s)
{
    if (w->string_ids[s])
        return w->string_ids[s];
    uint32_t id = w->string_ids[s] = ++w->next_string_id;
    bs_put_varint(w->out, (uint64_t)id << 3 | BS_STRING);
    pk_out_write(w->out, pk_str(w->p, s), pk_str_len(w->p, s) + 1);
    return id;
}

/* Line offset that makes the reader give back the frame's line: 0 (no line) when it has none
 * or when it lies before the function's start line. */
static uint32_t bs_frame_offset(const pk_profile *p, uint32_t frame_index)
{
    const pk_frame *frame = pk_frame_at(p, frame_index);
    if (frame->line == 0)
        return 0;
    uint32_t start = pk_function_at(p, frame->function)->start_line;
    if (frame->line < start)
        return 0;
    uint64_t offset = (uint64_t)frame->line - start + 1;
    return offset > UINT32_MAX ? 0 : (uint32_t)offset;
}

static uint32_t bs_stack_offset(const pk_profile *p, uint32_t stack)
{
    return stack == PK_NONE ? 0 : bs_frame_offset(p, pk_stack_at(p, stack)->frame);
}

static bool bs_wpath_equal(const void *context, uint32_t entry, const void *key)
{
    const bs_writer *w = context;
    const bs_wpath *a = &w->paths[entry], *b = key;
    return a->thread == b->thread && a->callers == b->callers && a->function == b->function;
}

static uint64_t bs_wpath_hash(const bs_wpath *key)
{
    uint32_t words[3] = {key->thread, key->callers, key->function};
    return pk_hash_bytes(words, sizeof words);
}

/* The path element ID of (thread, callers, function), writing its entry (and the strings it
 * names) the first time. caller_id is the path element of the callers, 0 for a root. */
static uint32_t bs_write_path(bs_writer *w, const bs_wpath *key, uint32_t caller_id)
{
    uint64_t hash = bs_wpath_hash(key);
    uint32_t found = pk_index_find(&w->path_index, hash, bs_wpath_equal, w, key);
    if (found != UINT32_MAX)
        return found + 1;
    if (w->path_count >= UINT32_MAX - 1) {
        pk_error_set(w->err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                     "too many call paths for 32-bit path element IDs");
        return 0;
    }
    if (!bs_grow((void **)&w->paths, &w->path_cap, w->path_count + 1, sizeof *w->paths) ||
        !pk_index_insert(&w->path_index, hash, (uint32_t)w->path_count)) {
        bs_nomem(w->err);
        return 0;
    }
    w->paths[w->path_count++] = *key;
    uint32_t id = (uint32_t)w->path_count;

    uint32_t name, file = 0, line = 0;
    if (key->function == PK_NONE) {
        if (w->unknown_name == 0) {
            w->unknown_name = ++w->next_string_id;
            bs_put_varint(w->out, (uint64_t)w->unknown_name << 3 | BS_STRING);
            pk_out_write(w->out, "<unknown>", sizeof "<unknown>");
        }
        name = w->unknown_name;
    } else {
        const pk_function *fn = pk_function_at(w->p, key->function);
        name = bs_write_string(w, fn->name);
        if (fn->file)
            file = bs_write_string(w, fn->file);
        line = fn->start_line;
    }
    bs_put_varint(w->out, (uint64_t)id << 3 | BS_PATH);
    bs_put_varint(w->out, caller_id);
    if (caller_id == 0)
        bs_put_varint(w->out, w->module_ids[key->thread]);
    else if (w->line_data)
        bs_put_varint(w->out, bs_stack_offset(w->p, key->callers));
    bs_put_varint(w->out, file);
    bs_put_varint(w->out, line);
    bs_put_varint(w->out, name);
    return id;
}

/* The path element ID for the leaf of (thread, stack), writing the entries of the callers that
 * are not written yet, root first. 0 on failure. */
static uint32_t bs_path_of(bs_writer *w, uint32_t thread, uint32_t stack)
{
    if (stack == PK_NONE) {
        bs_wpath key = {thread, PK_NONE, PK_NONE};
        return bs_write_path(w, &key, 0);
    }
    uint64_t key = (uint64_t)thread << 32 | stack;
    uint32_t *found = pk_u64map_find(&w->path_of_stack, key);
    if (found)
        return *found;
    size_t n = 0;
    uint32_t s = stack;
    uint32_t caller_id = 0;
    while (s != PK_NONE) {
        found = pk_u64map_find(&w->path_of_stack, (uint64_t)thread << 32 | s);
        if (found) {
            caller_id = *found;
            break;
        }
        if (!bs_grow((void **)&w->chain, &w->chain_cap, n + 1, sizeof *w->chain)) {
            bs_nomem(w->err);
            return 0;
        }
        w->chain[n++] = s;
        s = pk_stack_at(w->p, s)->parent;
    }
    while (n > 0) {
        s = w->chain[--n];
        const pk_stack *st = pk_stack_at(w->p, s);
        bs_wpath path = {thread, st->parent, pk_frame_at(w->p, st->frame)->function};
        caller_id = bs_write_path(w, &path, caller_id);
        uint32_t *slot;
        bool inserted;
        if (caller_id == 0)
            return 0;
        if (!pk_u64map_put(&w->path_of_stack, (uint64_t)thread << 32 | s, caller_id, &slot,
                           &inserted)) {
            bs_nomem(w->err);
            return 0;
        }
    }
    return caller_id;
}

/* Incremental entries carry 32-bit amounts: a larger total becomes several entries. This
 * bounds how many a single value may take. */
#define BS_MAX_SPLIT ((uint64_t)1 << 20)

static pk_status bs_check_amount(bs_writer *w, int64_t v, const char *what)
{
    if (v < 0)
        return pk_error_set(w->err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                            ".bsprof cannot carry the negative %s value %" PRId64, what, v);
    if ((uint64_t)v / UINT32_MAX > BS_MAX_SPLIT)
        return pk_error_set(w->err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                            "the %s value %" PRId64 " is too large for .bsprof", what, v);
    return PK_OK;
}

typedef struct bs_value_choice {
    uint32_t cpu, wall, calls;
} bs_value_choice;

static pk_status bs_write_row(bs_writer *w, const bs_value_choice *vc, size_t row)
{
    const int64_t *values = pk_sample_values(w->p, row);
    int64_t cpu = vc->cpu != PK_NONE ? values[vc->cpu] : 0;
    int64_t wall = vc->wall != PK_NONE ? values[vc->wall] : 0;
    int64_t calls = vc->calls != PK_NONE ? values[vc->calls] : 0;
    if (cpu == 0 && wall == 0 && calls == 0)
        return PK_OK;
    pk_status st;
    if ((st = bs_check_amount(w, cpu, "cpu")) || (st = bs_check_amount(w, wall, "wall")) ||
        (st = bs_check_amount(w, calls, "calls")))
        return st;
    uint32_t stack = pk_sample_stack(w->p, row);
    uint32_t id = bs_path_of(w, pk_sample_thread(w->p, row), stack);
    if (id == 0)
        return w->err->status;
    uint32_t offset = bs_stack_offset(w->p, stack);
    uint64_t cpu_left = (uint64_t)cpu, wall_left = (uint64_t)wall;
    while (cpu_left || wall_left) {
        uint32_t c = cpu_left > UINT32_MAX ? UINT32_MAX : (uint32_t)cpu_left;
        uint32_t t = wall_left > UINT32_MAX ? UINT32_MAX : (uint32_t)wall_left;
        bs_put_varint(w->out, (uint64_t)id << 3 | BS_CPU);
        if (w->line_data)
            bs_put_varint(w->out, offset);
        bs_put_varint(w->out, c);
        bs_put_varint(w->out, t);
        cpu_left -= c;
        wall_left -= t;
    }
    for (uint64_t left = (uint64_t)calls; left;) {
        uint32_t c = left > UINT32_MAX ? UINT32_MAX : (uint32_t)left;
        bs_put_varint(w->out, (uint64_t)id << 3 | BS_CALLS);
        bs_put_varint(w->out, c);
        left -= c;
    }
    return PK_OK;
}

static pk_status bs_write_memory_event(bs_writer *w, const pk_memory_event *ev)
{
    if (ev->thread >= pk_thread_count(w->p))
        return pk_error_set(w->err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                            "a memory event has no thread");
    if (ev->kind == PK_MEM_ALLOC && ev->size > UINT32_MAX)
        return pk_error_set(w->err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                            "an allocation of %" PRIu64
                            " bytes exceeds the 32-bit size field of .bsprof",
                            ev->size);
    uint64_t address = ev->address;
    if (w->remap_addresses) {
        uint32_t *slot;
        bool inserted;
        uint32_t next = (uint32_t)w->addresses.count + 1;
        if (w->addresses.count >= UINT32_MAX - 1)
            return pk_error_set(w->err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                                "too many distinct addresses for .bsprof");
        if (!pk_u64map_put(&w->addresses, address, next, &slot, &inserted))
            return bs_nomem(w->err);
        address = *slot;
    }
    uint32_t id = bs_path_of(w, ev->thread, ev->stack);
    if (id == 0)
        return w->err->status;
    unsigned op = ev->kind == PK_MEM_ALLOC ? BS_OP_ALLOC
                  : ev->kind == PK_MEM_FREE ? BS_OP_FREE
                                            : BS_OP_FREE_REALLOC;
    bs_put_varint(w->out, (uint64_t)id << 5 | (uint64_t)op << 3 | BS_MEMORY);
    if (w->line_data)
        bs_put_varint(w->out, bs_stack_offset(w->p, ev->stack));
    bs_put_varint(w->out, address);
    if (op == BS_OP_ALLOC)
        bs_put_varint(w->out, ev->size);
    return PK_OK;
}

static bool bs_header_varint_append(bs_bytes *b, uint64_t v)
{
    uint8_t buf[10];
    return bs_bytes_append(b, buf, bs_varint_encode(buf, v));
}

static bool bs_header_float_append(bs_bytes *b, float v)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    uint8_t le[4] = {(uint8_t)bits, (uint8_t)(bits >> 8), (uint8_t)(bits >> 16),
                     (uint8_t)(bits >> 24)};
    return bs_bytes_append(b, le, 4);
}

static float bs_property_ratio(const pk_profile *p, const char *key)
{
    const char *text = pk_property_get(p, key);
    if (!text || !*text)
        return 1.0f;
    char *end;
    float v = strtof(text, &end);
    return *end == '\0' ? v : 1.0f;
}

static pk_status bs_write_header(bs_writer *w, bool memory_ops)
{
    const pk_profile *p = w->p;
    const pk_metadata *meta = pk_metadata_get(p);
    bs_bytes fields = {0};
    bool ok = bs_header_float_append(&fields, bs_property_ratio(p, "requested-sample-ratio")) &&
              bs_header_float_append(&fields, bs_property_ratio(p, "actual-sample-ratio")) &&
              bs_header_varint_append(&fields, w->line_data) &&
              bs_header_varint_append(&fields, memory_ops) &&
              bs_header_varint_append(&fields, meta->start_time > 0
                                                   ? (uint64_t)meta->start_time / 1000000
                                                   : 0);
    char converted[128];
    for (int i = 0; i < BS_HEADER_TEXT_COUNT && ok; i++) {
        const char *text = pk_property_get(p, bs_header_text_keys[i]);
        if (i == BS_TARGET && meta->product)
            text = pk_str(p, meta->product);
        if (!text && i == BS_SUPPLEMENTAL && meta->source_format) {
            snprintf(converted, sizeof converted, "converted by profkit from %s",
                     pk_str(p, meta->source_format));
            text = converted;
        }
        if (!text)
            text = "";
        ok = bs_bytes_append(&fields, text, strlen(text) + 1);
    }
    if (!ok) {
        bs_bytes_free(&fields);
        return bs_nomem(w->err);
    }
    uint8_t versions[30];
    size_t nversions = bs_varint_encode(versions, BS_WRITE_MAJOR);
    nversions += bs_varint_encode(versions + nversions, BS_WRITE_MINOR);
    nversions += bs_varint_encode(versions + nversions, BS_WRITE_PATCH);
    /* The header size counts itself: find the size whose varint makes the total. */
    uint64_t without_size = BS_MAGIC_SIZE + nversions + fields.len;
    uint64_t size = without_size + 1;
    while (without_size + (uint64_t)bs_varint_size(size) != size)
        size = without_size + (uint64_t)bs_varint_size(size);
    if (size > UINT32_MAX) {
        bs_bytes_free(&fields);
        return pk_error_set(w->err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                            "the header strings are too long for .bsprof");
    }
    pk_out_write(w->out, bs_magic, BS_MAGIC_SIZE);
    pk_out_write(w->out, versions, nversions);
    bs_put_varint(w->out, size);
    pk_out_write(w->out, fields.data, fields.len);
    bs_bytes_free(&fields);
    return PK_OK;
}

/* Module IDs: the thread ID when it fits and is unique (so .bsprof round trips keep them),
 * otherwise the smallest unused number. */
static pk_status bs_assign_modules(bs_writer *w)
{
    size_t nthreads = pk_thread_count(w->p);
    pk_u64map used;
    pk_u64map_init(&used);
    w->module_ids = calloc(nthreads ? nthreads : 1, sizeof *w->module_ids);
    if (!w->module_ids)
        return bs_nomem(w->err);
    for (size_t t = 0; t < nthreads; t++) {
        int64_t tid = pk_thread_at(w->p, (uint32_t)t)->tid;
        uint32_t *slot;
        bool inserted;
        if (tid < 1 || tid > UINT32_MAX)
            continue;
        if (!pk_u64map_put(&used, (uint64_t)tid, (uint32_t)t, &slot, &inserted)) {
            pk_u64map_free(&used);
            return bs_nomem(w->err);
        }
        if (inserted)
            w->module_ids[t] = (uint32_t)tid;
    }
    uint64_t next = 1;
    for (size_t t = 0; t < nthreads; t++) {
        if (w->module_ids[t])
            continue;
        while (pk_u64map_find(&used, next))
            next++;
        w->module_ids[t] = (uint32_t)next++;
    }
    pk_u64map_free(&used);
    return PK_OK;
}

static void bs_choose_values(const pk_profile *p, const pk_write_options *options,
                             bs_value_choice *vc)
{
    vc->cpu = pk_value_find(p, "cpu");
    vc->wall = pk_value_find(p, "wall");
    vc->calls = pk_value_find(p, "calls");
    if (options && options->value != PK_NONE && options->value < pk_value_type_count(p))
        vc->cpu = options->value;
    else if (vc->cpu == PK_NONE && pk_value_type_count(p) > 0)
        vc->cpu = pk_default_value(p);
    if (vc->wall == vc->cpu)
        vc->wall = PK_NONE;
    if (vc->calls == vc->cpu)
        vc->calls = PK_NONE;
}

static pk_status bs_write(const pk_profile *p, pk_output *out, const pk_write_options *options,
                          pk_error *err)
{
    bs_writer w = {.p = p, .out = out, .err = err};
    pk_u64map_init(&w.path_of_stack);
    pk_index_init(&w.path_index);
    pk_u64map_init(&w.addresses);
    pk_status st = PK_OK;
    size_t nevents = pk_memory_event_count(p);
    size_t nrows = pk_sample_count(p);
    bs_value_choice vc;
    bs_choose_values(p, options, &vc);

    const char *line_property = pk_property_get(p, "line-data");
    w.line_data = line_property && strcmp(line_property, "yes") == 0;
    for (size_t f = 0; f < pk_frame_count(p) && !w.line_data; f++)
        w.line_data = pk_frame_at(p, (uint32_t)f)->line != 0;
    const char *memory_property = pk_property_get(p, "memory-operations");
    bool memory_ops = nevents > 0 || (memory_property && strcmp(memory_property, "yes") == 0);
    pk_memory_event ev;
    for (size_t i = 0; i < nevents && !w.remap_addresses; i++) {
        pk_memory_event_at(p, i, &ev);
        w.remap_addresses = ev.address > UINT32_MAX;
    }

    w.string_ids = calloc(pk_string_count(p) + 1, sizeof *w.string_ids);
    if (!w.string_ids) {
        st = bs_nomem(err);
        goto done;
    }
    if ((st = bs_write_header(&w, memory_ops)) != PK_OK || (st = bs_assign_modules(&w)) != PK_OK)
        goto done;
    for (size_t t = 0; t < pk_thread_count(p); t++) {
        uint32_t name = bs_write_string(&w, pk_thread_at(p, (uint32_t)t)->name);
        bs_put_varint(out, (uint64_t)w.module_ids[t] << 3 | BS_MODULE);
        bs_put_varint(out, name);
    }

    /* Rows and memory events in the order they were first recorded. */
    size_t row = 0, event = 0;
    if (nevents)
        pk_memory_event_at(p, 0, &ev);
    while (row < nrows || event < nevents) {
        if (event >= nevents || (row < nrows && pk_sample_order(p, row) <= ev.order)) {
            st = bs_write_row(&w, &vc, row++);
        } else {
            st = bs_write_memory_event(&w, &ev);
            if (++event < nevents)
                pk_memory_event_at(p, event, &ev);
        }
        if (st != PK_OK)
            goto done;
        if (pk_out_failed(out))
            break;
    }
    bs_put_varint(out, 0);
    const pk_metadata *meta = pk_metadata_get(p);
    if (meta->end_time != PK_TIME_UNKNOWN && meta->end_time > 0)
        bs_put_varint(out, (uint64_t)meta->end_time / 1000000);
done:
    free(w.string_ids);
    free(w.module_ids);
    free(w.paths);
    free(w.chain);
    pk_u64map_free(&w.path_of_stack);
    pk_index_free(&w.path_index);
    pk_u64map_free(&w.addresses);
    return st;
}

/* ---- registration ---------------------------------------------------------------------------- */

static int bs_probe(const uint8_t *data, size_t size)
{
    return size >= BS_MAGIC_SIZE && memcmp(data, bs_magic, BS_MAGIC_SIZE) == 0 ? PK_PROBE_CERTAIN
                                                                              : PK_PROBE_NO;
}

static const char *const bs_extensions[] = {".bsprof", NULL};

const pk_format pk_format_bsprof = {
    .name = "bsprof",
    .aliases = NULL,
    .extensions = bs_extensions,
    .description = "Roku BrightScript profiler data: CPU, wall time, calls, memory, source lines",
    .probe = bs_probe,
    .read = bs_read,
    .write = bs_write,
    .dump = bs_dump,
};
