/* pprof's profile.proto (package perftools.profiles), gzip-compressed or plain.
 *
 * libprotobuf-c packs and unpacks every message below Profile (sample, location, function,
 * mapping, value type) from descriptors generated out of pprof.proto. The Profile message
 * itself is walked field by field here, because unpacking it whole would hold every sample
 * of the file in memory at once; walking it lets the reader aggregate samples as they stream
 * past, so memory grows with distinct stacks and strings, not with file size.
 *
 * pprof orders fields so that samples come before the locations, functions and strings they
 * refer to. The reader therefore aggregates samples into a prefix tree of location IDs keyed
 * by their label set, keeps locations, functions and mappings in compact tables, and builds
 * the model's frames and stacks once the whole message has been seen.
 *
 * Byte offsets in reader errors are offsets into the protobuf message; for a gzip file that
 * is the inflated data, and the message says so.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <protobuf-c/protobuf-c.h>
#include <zlib.h>

#include "core/arith.h"
#include "core/array.h"
#include "core/hashmap.h"
#include "core/input.h"
#include "core/output.h"
#include "core/symbolize.h"
#include "formats/formats.h"
#include "formats/pprof.pb-c.h"

/* Field numbers of Profile. */
enum {
    PROFILE_SAMPLE_TYPE = 1,
    PROFILE_SAMPLE = 2,
    PROFILE_MAPPING = 3,
    PROFILE_LOCATION = 4,
    PROFILE_FUNCTION = 5,
    PROFILE_STRING_TABLE = 6,
    PROFILE_DROP_FRAMES = 7,
    PROFILE_KEEP_FRAMES = 8,
    PROFILE_TIME_NANOS = 9,
    PROFILE_DURATION_NANOS = 10,
    PROFILE_PERIOD_TYPE = 11,
    PROFILE_PERIOD = 12,
    PROFILE_COMMENT = 13,
    PROFILE_DEFAULT_SAMPLE_TYPE = 14,
    PROFILE_DOC_URL = 15,
    PROFILE_FIELD_MAX = 15
};

enum { WIRE_VARINT = 0, WIRE_FIXED64 = 1, WIRE_BYTES = 2, WIRE_FIXED32 = 5 };

/* Properties that carry Profile fields the model has no place for. */
#define PROPERTY_DROP_FRAMES "pprof.drop_frames"
#define PROPERTY_KEEP_FRAMES "pprof.keep_frames"
#define PROPERTY_DOC_URL "pprof.doc_url"
#define PROPERTY_COMMENT "comment"
#define PROPERTY_DURATION "duration_nanos"
/* The comment that carries the program's name, which pprof has no field for. */
#define COMMENT_PRODUCT "product"

/* Sample label keys that name a thread. */
#define LABEL_THREAD "thread"
#define LABEL_THREAD_NAME "thread_name"
#define LABEL_PID "pid"
#define LABEL_TID "tid"

/* A single sub-message larger than this is treated as damage rather than buffered. */
#define MAX_MESSAGE_BYTES (1u << 30)

static const char *field_name(unsigned field)
{
    static const char *const names[] = {
        "field 0",     "sample_type", "sample",         "mapping",    "location",
        "function",    "string_table", "drop_frames",   "keep_frames", "time_nanos",
        "duration_nanos", "period_type", "period",      "comment",    "default_sample_type",
        "doc_url",
    };
    return field <= PROFILE_FIELD_MAX ? names[field] : "unknown field";
}

/* The wire type a Profile field must have (comment may also be packed). */
static int field_wire_type(unsigned field)
{
    switch (field) {
    case PROFILE_SAMPLE_TYPE:
    case PROFILE_SAMPLE:
    case PROFILE_MAPPING:
    case PROFILE_LOCATION:
    case PROFILE_FUNCTION:
    case PROFILE_STRING_TABLE:
    case PROFILE_PERIOD_TYPE:
        return WIRE_BYTES;
    default:
        return WIRE_VARINT;
    }
}

static bool wire_type_fits(unsigned field, int wire)
{
    if (field == PROFILE_COMMENT)
        return wire == WIRE_VARINT || wire == WIRE_BYTES;
    return wire == field_wire_type(field);
}

static size_t encode_varint(uint8_t *out, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        out[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    out[n++] = (uint8_t)v;
    return n;
}

/* Decodes a varint from [*pos, end). Returns false when it is cut off or longer than 10 bytes. */
static bool decode_varint(const uint8_t **pos, const uint8_t *end, uint64_t *value)
{
    uint64_t v = 0;
    const uint8_t *p = *pos;
    for (unsigned shift = 0; shift < 70 && p < end; shift += 7) {
        uint8_t b = *p++;
        if (shift == 63 && b > 1)
            return false;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *pos = p;
            *value = v;
            return true;
        }
    }
    return false;
}

/* ---- an arena for protobuf-c's unpacking ------------------------------------------------------
 * Each sub-message is unpacked, used and dropped at once, so its allocations come from one block
 * that is reset afterwards instead of being freed piece by piece. */

typedef struct arena_chunk {
    struct arena_chunk *next;
    size_t capacity;
    size_t used;
    max_align_t data[];
} arena_chunk;

typedef struct arena {
    arena_chunk *head;
    size_t high_water; /* bytes the last cycle needed, so the next one fits in one chunk */
    size_t cycle_total;
} arena;

static void *arena_alloc(void *context, size_t size)
{
    arena *a = context;
    size_t aligned = (size + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
    if (aligned < size)
        return NULL;
    a->cycle_total += aligned;
    arena_chunk *c = a->head;
    if (!c || c->capacity - c->used < aligned) {
        size_t capacity = aligned > (64u << 10) ? aligned : (64u << 10);
        if (capacity > SIZE_MAX - sizeof(arena_chunk))
            return NULL;
        c = malloc(sizeof(arena_chunk) + capacity);
        if (!c)
            return NULL;
        c->next = a->head;
        c->capacity = capacity;
        c->used = 0;
        a->head = c;
    }
    void *result = (uint8_t *)c->data + c->used;
    c->used += aligned;
    return result;
}

static void arena_free_nothing(void *context, void *pointer)
{
    (void)context;
    (void)pointer;
}

static void arena_release(arena *a)
{
    while (a->head) {
        arena_chunk *next = a->head->next;
        free(a->head);
        a->head = next;
    }
}

static void arena_reset(arena *a)
{
    if (a->head && a->head->next) {
        /* Several chunks were needed: replace them by one that holds a whole cycle. */
        size_t want = a->cycle_total;
        arena_release(a);
        if (want > a->high_water)
            a->high_water = want;
        arena_chunk *c = malloc(sizeof(arena_chunk) + a->high_water);
        if (c) {
            c->next = NULL;
            c->capacity = a->high_water;
            c->used = 0;
            a->head = c;
        }
    } else if (a->head) {
        a->head->used = 0;
    }
    a->cycle_total = 0;
}

/* ---- the byte source: plain or inflated ---------------------------------------------------- */

#define INFLATE_WINDOW (256u << 10)

typedef struct source {
    pk_input *in;
    bool gzip;
    bool ended;            /* no byte beyond end */
    const uint8_t *pos;    /* next unread byte */
    const uint8_t *end;    /* end of the readable bytes */
    /* gzip: inflated bytes land in window; window_base is the inflated offset of window[0] */
    uint8_t *window;
    uint64_t window_base;
    z_stream z;
    bool z_ready;
    bool z_stream_end;
    bool trailing_garbage;
    /* a failure below the protobuf level (I/O, corrupt deflate data) */
    pk_status failure;
    int64_t failure_offset;
    char failure_message[200];
} source;

static uint64_t source_offset(const source *s)
{
    if (s->gzip)
        return s->window_base + (uint64_t)(s->pos - s->window);
    return s->in->base + (uint64_t)(s->pos - s->in->start);
}

static void source_fail(source *s, pk_status status, int64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void source_fail(source *s, pk_status status, int64_t offset, const char *fmt, ...)
{
    if (s->failure != PK_OK)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->failure_message, sizeof s->failure_message, fmt, ap);
    va_end(ap);
    s->failure = status;
    s->failure_offset = offset;
    s->ended = true;
}

/* Inflates more bytes into the window, keeping nothing of what was consumed. */
static size_t source_inflate(source *s)
{
    pk_input *in = s->in;
    s->window_base += (uint64_t)(s->end - s->window);
    s->pos = s->end = s->window;
    while (s->end == s->window && !s->z_stream_end) {
        if (pk_in_available(in) == 0 && pk_input_fill(in, 1) == 0) {
            if (pk_in_error(in))
                source_fail(s, PK_ERR_IO, PK_NO_OFFSET, "read failed");
            else
                source_fail(s, PK_ERR_INPUT, (int64_t)pk_in_offset(in),
                            "the gzip data ends early");
            return 0;
        }
        s->z.next_in = (Bytef *)in->pos;
        s->z.avail_in = (uInt)(pk_in_available(in) > UINT32_MAX ? UINT32_MAX
                                                                 : pk_in_available(in));
        s->z.next_out = s->window;
        s->z.avail_out = INFLATE_WINDOW;
        int rc = inflate(&s->z, Z_NO_FLUSH);
        in->pos = s->z.next_in;
        s->end = s->window + (INFLATE_WINDOW - s->z.avail_out);
        if (rc == Z_STREAM_END) {
            /* Concatenated gzip members form one stream, as gunzip treats them. */
            const uint8_t *next;
            size_t have = pk_in_peek(in, 2, &next);
            if (have == 2 && next[0] == 0x1f && next[1] == 0x8b) {
                inflateReset(&s->z);
            } else {
                s->z_stream_end = true;
                s->trailing_garbage = have > 0;
            }
        } else if (rc == Z_MEM_ERROR) {
            source_fail(s, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory while inflating");
            return 0;
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            source_fail(s, PK_ERR_INPUT, (int64_t)pk_in_offset(in), "corrupt gzip data: %s",
                        s->z.msg ? s->z.msg : "inflate failed");
            return 0;
        }
    }
    return (size_t)(s->end - s->pos);
}

/* Makes at least one more byte readable; returns how many are readable (0 at the end). */
static size_t source_refill(source *s)
{
    if (s->pos < s->end)
        return (size_t)(s->end - s->pos);
    if (s->ended)
        return 0;
    if (s->gzip) {
        size_t n = source_inflate(s);
        if (n == 0)
            s->ended = true;
        return n;
    }
    pk_input *in = s->in;
    in->pos = s->pos;
    size_t n = pk_input_fill(in, 1);
    s->pos = in->pos;
    s->end = in->end;
    if (n == 0) {
        s->ended = true;
        if (pk_in_error(in))
            source_fail(s, PK_ERR_IO, PK_NO_OFFSET, "read failed");
    }
    return n;
}

static void source_sync(source *s)
{
    if (!s->gzip)
        s->in->pos = s->pos;
}

/* Returns 1 with the varint, 0 at a clean end before its first byte, -1 when cut off or bad. */
static int source_varint(source *s, uint64_t *value)
{
    if (s->end - s->pos >= 10 || (s->ended && s->pos < s->end)) {
        const uint8_t *p = s->pos;
        if (!decode_varint(&p, s->end, value))
            return -1;
        s->pos = p;
        return 1;
    }
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 70; shift += 7) {
        if (s->pos == s->end && source_refill(s) == 0)
            return shift == 0 ? 0 : -1;
        uint8_t b = *s->pos++;
        if (shift == 63 && b > 1)
            return -1;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *value = v;
            return 1;
        }
    }
    return -1;
}

/* Makes n bytes contiguous: a pointer into the source's buffer when they are all buffered,
 * else a copy in *scratch. Returns how many bytes were available (less than n at the end). */
static size_t source_bytes(source *s, size_t n, const uint8_t **data, uint8_t **scratch,
                           size_t *scratch_capacity, bool *nomem)
{
    *nomem = false;
    if ((size_t)(s->end - s->pos) >= n) {
        *data = s->pos;
        s->pos += n;
        return n;
    }
    size_t copied = 0;
    while (copied < n) {
        size_t have = source_refill(s);
        if (have == 0)
            break;
        size_t take = have < n - copied ? have : n - copied;
        /* grow only as far as bytes actually arrive */
        if (!PK_ARRAY_RESERVE(*scratch, *scratch_capacity, copied + take)) {
            *nomem = true;
            return copied;
        }
        memcpy(*scratch + copied, s->pos, take);
        s->pos += take;
        copied += take;
    }
    *data = *scratch;
    return copied;
}

static size_t source_skip(source *s, uint64_t n)
{
    uint64_t skipped = 0;
    while (skipped < n) {
        size_t have = source_refill(s);
        if (have == 0)
            break;
        size_t take = have < n - skipped ? have : (size_t)(n - skipped);
        s->pos += take;
        skipped += take;
    }
    return (size_t)skipped;
}

static pk_status source_open(source *s, pk_input *in, pk_error *err)
{
    memset(s, 0, sizeof *s);
    s->in = in;
    const uint8_t *head;
    size_t have = pk_in_peek(in, 2, &head);
    s->gzip = have == 2 && head[0] == 0x1f && head[1] == 0x8b;
    if (!s->gzip) {
        s->pos = in->pos;
        s->end = in->end;
        return PK_OK;
    }
    s->window = malloc(INFLATE_WINDOW);
    if (!s->window)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    /* 16 + MAX_WBITS: gzip wrapper only */
    if (inflateInit2(&s->z, 16 + MAX_WBITS) != Z_OK) {
        free(s->window);
        s->window = NULL;
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "cannot start inflating");
    }
    s->z_ready = true;
    s->pos = s->end = s->window;
    return PK_OK;
}

static void source_close(source *s)
{
    source_sync(s);
    if (s->z_ready)
        inflateEnd(&s->z);
    free(s->window);
    s->window = NULL;
}

/* ---- reader state ----------------------------------------------------------------------------- */

typedef struct deferred_string {
    int64_t index;
    uint64_t at; /* offset of the field that holds it */
} deferred_string;

typedef struct sample_type_entry {
    int64_t type;
    int64_t unit;
    uint64_t at;
} sample_type_entry;

typedef struct mapping_entry {
    uint64_t id;
    uint64_t start;
    uint64_t limit;
    uint64_t file_offset;
    int64_t filename;
    int64_t build_id;
    uint64_t at;
    uint32_t resource; /* set when finishing */
} mapping_entry;

typedef struct function_entry {
    uint64_t id;
    int64_t name;
    int64_t system_name;
    int64_t filename;
    int64_t start_line;
    uint64_t at;
    uint32_t name_string; /* set when finishing */
    uint32_t file_string;
} function_entry;

typedef struct location_entry {
    uint64_t id;
    uint64_t mapping_id;
    uint64_t address;
    uint32_t first_line;
    uint32_t line_count;
    /* set when finishing: its frames in the model, outermost first */
    uint32_t first_frame;
    uint32_t frame_count;
} location_entry;

typedef struct line_entry {
    uint64_t function_id;
    uint32_t line;
} line_entry;

typedef struct label_set {
    uint32_t first; /* index into label_values, 4 int64 per label */
    uint32_t count;
    uint64_t at;
    uint32_t thread; /* set when finishing */
} label_set;

typedef struct reader {
    pk_profile *p;
    const pk_read_options *options;
    pk_error *err;
    source src;
    arena arena;
    ProtobufCAllocator allocator;
    uint8_t *scratch;
    size_t scratch_capacity;
    bool lenient;           /* salvage: skip what cannot be resolved */
    size_t missing_strings; /* references read as "" when salvaging */

    uint32_t *strings; /* pprof string index -> model string */
    size_t string_count, string_capacity;

    sample_type_entry *sample_types;
    size_t sample_type_count, sample_type_capacity;

    size_t values_per_sample; /* fixed by the first sample */
    bool values_fixed;
    uint64_t values_fixed_at;
    size_t stored_values; /* min(values_per_sample, PK_MAX_VALUES) */

    mapping_entry *mappings;
    size_t mapping_count, mapping_capacity;
    pk_u64map mapping_ids;

    function_entry *functions;
    size_t function_count, function_capacity;
    pk_u64map function_ids;

    location_entry *locations;
    size_t location_count, location_capacity;
    pk_u64map location_ids;
    line_entry *lines;
    size_t line_count, line_capacity;
    uint32_t address_frame; /* the chain address_frames returns */

    int64_t *label_values;
    size_t label_value_count, label_value_capacity;
    label_set *label_sets; /* set 0 = no labels */
    size_t label_set_count, label_set_capacity;
    pk_index label_index;

    /* distinct samples, each kept as the bytes of its key: the label set and the location
     * IDs, leaf first, as varints (far smaller than a tree of nodes) */
    uint8_t *row_keys;
    size_t row_keys_len, row_keys_capacity;
    size_t *row_key_start;
    uint64_t *row_at; /* offset of the row's first sample */
    int64_t *row_values;
    size_t row_count, row_capacity_start, row_capacity_at, row_capacity_values;
    pk_index row_index;

    deferred_string drop_frames, keep_frames, default_sample_type, doc_url;
    deferred_string period_type_name, period_type_unit;
    deferred_string *comments;
    size_t comment_count, comment_capacity;
    int64_t time_nanos;
    bool has_time;
    int64_t duration_nanos;
    int64_t period;
} reader;

static pk_status reader_fail(reader *r, pk_status status, uint64_t at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static pk_status reader_fail(reader *r, pk_status status, uint64_t at, const char *fmt, ...)
{
    char message[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    if (r->src.gzip && at != UINT64_MAX)
        return pk_error_set(r->err, status, (int64_t)at, "%s (offset in the inflated data)",
                            message);
    return pk_error_set(r->err, status, at == UINT64_MAX ? PK_NO_OFFSET : (int64_t)at, "%s",
                        message);
}

static pk_status reader_nomem(reader *r)
{
    return pk_error_set(r->err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
}

static void reader_init(reader *r, pk_profile *p, const pk_read_options *options, pk_error *err)
{
    memset(r, 0, sizeof *r);
    r->p = p;
    r->options = options;
    r->err = err;
    r->allocator.alloc = arena_alloc;
    r->allocator.free = arena_free_nothing;
    r->allocator.allocator_data = &r->arena;
    pk_u64map_init(&r->mapping_ids);
    pk_u64map_init(&r->function_ids);
    pk_u64map_init(&r->location_ids);
    pk_index_init(&r->row_index);
    pk_index_init(&r->label_index);
}

static void reader_release(reader *r)
{
    arena_release(&r->arena);
    free(r->scratch);
    free(r->strings);
    free(r->sample_types);
    free(r->mappings);
    pk_u64map_free(&r->mapping_ids);
    free(r->functions);
    pk_u64map_free(&r->function_ids);
    free(r->locations);
    pk_u64map_free(&r->location_ids);
    free(r->lines);
    free(r->label_values);
    free(r->label_sets);
    pk_index_free(&r->label_index);
    free(r->row_keys);
    free(r->row_key_start);
    free(r->row_at);
    free(r->row_values);
    pk_index_free(&r->row_index);
    free(r->comments);
}

/* ---- handling of each Profile field ----------------------------------------------------------- */

static pk_status read_sample_type(reader *r, const uint8_t *data, size_t len, uint64_t at)
{
    Perftools__Profiles__ValueType *vt =
        perftools__profiles__value_type__unpack(&r->allocator, len, data);
    if (!vt)
        return reader_fail(r, PK_ERR_INPUT, at, "malformed sample_type");
    if (!PK_ARRAY_RESERVE(r->sample_types, r->sample_type_capacity, r->sample_type_count + 1))
        return reader_nomem(r);
    r->sample_types[r->sample_type_count++] = (sample_type_entry){vt->type, vt->unit, at};
    return PK_OK;
}

static pk_status read_period_type(reader *r, const uint8_t *data, size_t len, uint64_t at)
{
    Perftools__Profiles__ValueType *vt =
        perftools__profiles__value_type__unpack(&r->allocator, len, data);
    if (!vt)
        return reader_fail(r, PK_ERR_INPUT, at, "malformed period_type");
    r->period_type_name = (deferred_string){vt->type, at};
    r->period_type_unit = (deferred_string){vt->unit, at};
    return PK_OK;
}

static bool label_set_equal(const void *context, uint32_t entry, const void *key)
{
    const reader *r = context;
    const int64_t *const *k = key;
    const label_set *set = &r->label_sets[entry];
    size_t count = (size_t)(k[1] - k[0]) / 4;
    return set->count == count &&
           memcmp(r->label_values + (size_t)set->first * 4, k[0], count * 4 * sizeof(int64_t)) == 0;
}

/* The label set of a sample: its labels as appended at the end of label_values. Returns the
 * set's index (0 when there are no labels) and drops the appended copy when it is known. */
static pk_status intern_label_set(reader *r, size_t first_value, uint64_t at, uint32_t *out)
{
    size_t count = (r->label_value_count - first_value) / 4;
    if (count == 0) {
        *out = 0;
        return PK_OK;
    }
    if (r->label_set_count == 0) {
        if (!PK_ARRAY_RESERVE(r->label_sets, r->label_set_capacity, 1))
            return reader_nomem(r);
        r->label_sets[0] = (label_set){0, 0, 0, PK_NONE};
        r->label_set_count = 1;
    }
    const int64_t *key[2] = {r->label_values + first_value, r->label_values + r->label_value_count};
    uint64_t hash = pk_hash_bytes(key[0], count * 4 * sizeof(int64_t));
    uint32_t found = pk_index_find(&r->label_index, hash, label_set_equal, r, key);
    if (found != UINT32_MAX) {
        r->label_value_count = first_value;
        *out = found;
        return PK_OK;
    }
    if (r->label_set_count >= UINT32_MAX - 1 || first_value / 4 > UINT32_MAX)
        return reader_fail(r, PK_ERR_LIMIT, at, "too many distinct label sets");
    if (!PK_ARRAY_RESERVE(r->label_sets, r->label_set_capacity, r->label_set_count + 1))
        return reader_nomem(r);
    uint32_t index = (uint32_t)r->label_set_count;
    if (!pk_index_insert(&r->label_index, hash, index))
        return reader_nomem(r);
    r->label_sets[r->label_set_count++] =
        (label_set){(uint32_t)(first_value / 4), (uint32_t)count, at, PK_NONE};
    *out = index;
    return PK_OK;
}

/* Compares row entry with the candidate key at the end of row_keys (key = its start). */
static bool row_key_equal(const void *context, uint32_t entry, const void *key)
{
    const reader *r = context;
    size_t start = *(const size_t *)key;
    size_t len = r->row_keys_len - start;
    size_t entry_start = r->row_key_start[entry];
    return r->row_key_start[entry + 1] - entry_start == len &&
           memcmp(r->row_keys + entry_start, r->row_keys + start, len) == 0;
}

static pk_status read_sample(reader *r, const uint8_t *data, size_t len, uint64_t at)
{
    Perftools__Profiles__Sample *s = perftools__profiles__sample__unpack(&r->allocator, len, data);
    if (!s)
        return reader_fail(r, PK_ERR_INPUT, at, "malformed sample");
    if (!r->values_fixed) {
        r->values_fixed = true;
        r->values_fixed_at = at;
        r->values_per_sample = s->n_value;
        r->stored_values = s->n_value < PK_MAX_VALUES ? s->n_value : PK_MAX_VALUES;
        if (r->sample_type_count && s->n_value != r->sample_type_count)
            return reader_fail(r, PK_ERR_INPUT, at,
                               "sample has %zu values but the profile has %zu sample types",
                               s->n_value, r->sample_type_count);
    } else if (s->n_value != r->values_per_sample) {
        return reader_fail(r, PK_ERR_INPUT, at, "sample has %zu values, earlier samples have %zu",
                           s->n_value, r->values_per_sample);
    }

    size_t first_value = r->label_value_count;
    for (size_t i = 0; i < s->n_label; i++) {
        const Perftools__Profiles__Label *label = s->label[i];
        if (label->key == 0)
            continue;
        if (!PK_ARRAY_RESERVE(r->label_values, r->label_value_capacity, r->label_value_count + 4))
            return reader_nomem(r);
        int64_t *v = r->label_values + r->label_value_count;
        v[0] = label->key;
        v[1] = label->str;
        v[2] = label->num;
        v[3] = label->num_unit;
        r->label_value_count += 4;
    }
    uint32_t labels = 0;
    pk_status st = intern_label_set(r, first_value, at, &labels);
    if (st != PK_OK)
        return st;

    /* the key goes at the end of row_keys; it stays there only if it is new */
    size_t start = r->row_keys_len;
    if (s->n_location_id > (SIZE_MAX - start) / 10 - 1 ||
        !PK_ARRAY_RESERVE(r->row_keys, r->row_keys_capacity, start + 10 * (s->n_location_id + 1)))
        return reader_nomem(r);
    size_t key_len = encode_varint(r->row_keys + start, labels);
    for (size_t i = 0; i < s->n_location_id; i++)
        key_len += encode_varint(r->row_keys + start + key_len, s->location_id[i]);
    r->row_keys_len = start + key_len;
    uint64_t hash = pk_hash_bytes(r->row_keys + start, key_len);
    uint32_t row = pk_index_find(&r->row_index, hash, row_key_equal, r, &start);
    size_t nv = r->stored_values;
    if (row != UINT32_MAX) {
        r->row_keys_len = start;
    } else {
        if (r->row_count >= UINT32_MAX - 1)
            return reader_fail(r, PK_ERR_LIMIT, at, "too many distinct samples");
        if (!PK_ARRAY_RESERVE(r->row_key_start, r->row_capacity_start, r->row_count + 2) ||
            !PK_ARRAY_RESERVE(r->row_at, r->row_capacity_at, r->row_count + 1) ||
            !PK_ARRAY_RESERVE(r->row_values, r->row_capacity_values,
                              (r->row_count + 1) * (nv ? nv : 1)))
            return reader_nomem(r);
        row = (uint32_t)r->row_count;
        if (!pk_index_insert(&r->row_index, hash, row))
            return reader_nomem(r);
        r->row_key_start[row] = start;
        r->row_key_start[row + 1] = r->row_keys_len;
        r->row_at[row] = at;
        memset(r->row_values + (size_t)row * nv, 0, nv * sizeof(int64_t));
        r->row_count++;
    }
    int64_t *values = r->row_values + (size_t)row * nv;
    for (size_t k = 0; k < nv; k++)
        values[k] = pk_add_saturating(values[k], s->value[k]);
    return PK_OK;
}

static pk_status read_mapping(reader *r, const uint8_t *data, size_t len, uint64_t at)
{
    Perftools__Profiles__Mapping *m = perftools__profiles__mapping__unpack(&r->allocator, len, data);
    if (!m)
        return reader_fail(r, PK_ERR_INPUT, at, "malformed mapping");
    if (m->id == 0)
        return reader_fail(r, PK_ERR_INPUT, at, "mapping with the reserved id 0");
    uint32_t *slot;
    bool inserted;
    if (r->mapping_count >= UINT32_MAX)
        return reader_fail(r, PK_ERR_LIMIT, at, "too many mappings");
    if (!pk_u64map_put(&r->mapping_ids, m->id, (uint32_t)r->mapping_count, &slot, &inserted))
        return reader_nomem(r);
    if (!inserted)
        return reader_fail(r, PK_ERR_INPUT, at, "duplicate mapping id %" PRIu64, m->id);
    if (!PK_ARRAY_RESERVE(r->mappings, r->mapping_capacity, r->mapping_count + 1))
        return reader_nomem(r);
    r->mappings[r->mapping_count++] = (mapping_entry){
        m->id, m->memory_start, m->memory_limit, m->file_offset, m->filename, m->build_id, at,
        PK_NONE};
    return PK_OK;
}

static pk_status read_function(reader *r, const uint8_t *data, size_t len, uint64_t at)
{
    Perftools__Profiles__Function *f =
        perftools__profiles__function__unpack(&r->allocator, len, data);
    if (!f)
        return reader_fail(r, PK_ERR_INPUT, at, "malformed function");
    if (f->id == 0)
        return reader_fail(r, PK_ERR_INPUT, at, "function with the reserved id 0");
    uint32_t *slot;
    bool inserted;
    if (r->function_count >= UINT32_MAX)
        return reader_fail(r, PK_ERR_LIMIT, at, "too many functions");
    if (!pk_u64map_put(&r->function_ids, f->id, (uint32_t)r->function_count, &slot, &inserted))
        return reader_nomem(r);
    if (!inserted)
        return reader_fail(r, PK_ERR_INPUT, at, "duplicate function id %" PRIu64, f->id);
    if (!PK_ARRAY_RESERVE(r->functions, r->function_capacity, r->function_count + 1))
        return reader_nomem(r);
    r->functions[r->function_count++] = (function_entry){
        f->id, f->name, f->system_name, f->filename, f->start_line, at, 0, 0};
    return PK_OK;
}

static pk_status read_location(reader *r, const uint8_t *data, size_t len, uint64_t at)
{
    Perftools__Profiles__Location *l =
        perftools__profiles__location__unpack(&r->allocator, len, data);
    if (!l)
        return reader_fail(r, PK_ERR_INPUT, at, "malformed location");
    if (l->id == 0)
        return reader_fail(r, PK_ERR_INPUT, at, "location with the reserved id 0");
    uint32_t *slot;
    bool inserted;
    if (r->location_count >= UINT32_MAX - 1)
        return reader_fail(r, PK_ERR_LIMIT, at, "too many locations");
    if (!pk_u64map_put(&r->location_ids, l->id, (uint32_t)r->location_count, &slot, &inserted))
        return reader_nomem(r);
    if (!inserted)
        return reader_fail(r, PK_ERR_INPUT, at, "duplicate location id %" PRIu64, l->id);
    if (!PK_ARRAY_RESERVE(r->locations, r->location_capacity, r->location_count + 1))
        return reader_nomem(r);
    location_entry *loc = &r->locations[r->location_count++];
    memset(loc, 0, sizeof *loc);
    loc->id = l->id;
    if (r->line_count + l->n_line >= UINT32_MAX)
        return reader_fail(r, PK_ERR_LIMIT, at, "too many lines");
    if (!PK_ARRAY_RESERVE(r->lines, r->line_capacity, r->line_count + l->n_line))
        return reader_nomem(r);
    loc->mapping_id = l->mapping_id;
    loc->address = l->address;
    loc->first_line = (uint32_t)r->line_count;
    loc->line_count = (uint32_t)l->n_line;
    for (size_t i = 0; i < l->n_line; i++) {
        int64_t line = l->line[i]->line;
        r->lines[r->line_count++] = (line_entry){
            l->line[i]->function_id, line > 0 && line <= UINT32_MAX ? (uint32_t)line : 0};
    }
    return PK_OK;
}

static pk_status read_string(reader *r, const uint8_t *data, size_t len, uint64_t at)
{
    if (r->string_count == 0 && len != 0)
        return reader_fail(r, PK_ERR_INPUT, at, "string_table[0] must be empty");
    if (r->string_count >= UINT32_MAX)
        return reader_fail(r, PK_ERR_LIMIT, at, "too many strings");
    if (!PK_ARRAY_RESERVE(r->strings, r->string_capacity, r->string_count + 1))
        return reader_nomem(r);
    uint32_t id = pk_intern(r->p, (const char *)data, len);
    if (id == PK_NONE)
        return reader_nomem(r);
    r->strings[r->string_count++] = id;
    return PK_OK;
}

static pk_status read_comments(reader *r, const uint8_t *data, size_t len, uint64_t at)
{
    const uint8_t *p = data, *end = data + len;
    while (p < end) {
        uint64_t v;
        if (!decode_varint(&p, end, &v))
            return reader_fail(r, PK_ERR_INPUT, at, "malformed packed comment");
        if (!PK_ARRAY_RESERVE(r->comments, r->comment_capacity, r->comment_count + 1))
            return reader_nomem(r);
        r->comments[r->comment_count++] = (deferred_string){(int64_t)v, at};
    }
    return PK_OK;
}

static pk_status read_scalar(reader *r, unsigned field, uint64_t v, uint64_t at)
{
    deferred_string ref = {(int64_t)v, at};
    switch (field) {
    case PROFILE_DROP_FRAMES: r->drop_frames = ref; break;
    case PROFILE_KEEP_FRAMES: r->keep_frames = ref; break;
    case PROFILE_DEFAULT_SAMPLE_TYPE: r->default_sample_type = ref; break;
    case PROFILE_DOC_URL: r->doc_url = ref; break;
    case PROFILE_TIME_NANOS:
        if (r->has_time)
            return reader_fail(r, PK_ERR_INPUT, at,
                               "a second time_nanos: concatenated profiles are not supported");
        r->has_time = true;
        r->time_nanos = (int64_t)v;
        break;
    case PROFILE_DURATION_NANOS: r->duration_nanos = (int64_t)v; break;
    case PROFILE_PERIOD: r->period = (int64_t)v; break;
    case PROFILE_COMMENT:
        if (!PK_ARRAY_RESERVE(r->comments, r->comment_capacity, r->comment_count + 1))
            return reader_nomem(r);
        r->comments[r->comment_count++] = ref;
        break;
    default: break;
    }
    return PK_OK;
}

static pk_status read_message_field(reader *r, unsigned field, const uint8_t *data, size_t len,
                                    uint64_t at)
{
    pk_status st;
    switch (field) {
    case PROFILE_SAMPLE_TYPE: st = read_sample_type(r, data, len, at); break;
    case PROFILE_SAMPLE: st = read_sample(r, data, len, at); break;
    case PROFILE_MAPPING: st = read_mapping(r, data, len, at); break;
    case PROFILE_LOCATION: st = read_location(r, data, len, at); break;
    case PROFILE_FUNCTION: st = read_function(r, data, len, at); break;
    case PROFILE_STRING_TABLE: st = read_string(r, data, len, at); break;
    case PROFILE_PERIOD_TYPE: st = read_period_type(r, data, len, at); break;
    case PROFILE_COMMENT: st = read_comments(r, data, len, at); break;
    default: st = PK_OK; break;
    }
    arena_reset(&r->arena);
    return st;
}

/* Walks the Profile message to its end. */
static pk_status read_fields(reader *r)
{
    source *s = &r->src;
    for (;;) {
        uint64_t at = source_offset(s);
        uint64_t tag;
        int got = source_varint(s, &tag);
        if (got == 0)
            break;
        if (got < 0)
            return reader_fail(r, PK_ERR_INPUT, at, "truncated or malformed field tag");
        if (tag >> 3 > UINT32_MAX || (tag >> 3) == 0)
            return reader_fail(r, PK_ERR_INPUT, at, "invalid field number %" PRIu64, tag >> 3);
        unsigned field = (unsigned)(tag >> 3);
        int wire = (int)(tag & 7);
        bool known = field <= PROFILE_FIELD_MAX;
        if (known && !wire_type_fits(field, wire))
            return reader_fail(r, PK_ERR_INPUT, at, "%s has wire type %d, expected %d",
                               field_name(field), wire, field_wire_type(field));
        pk_status st = PK_OK;
        switch (wire) {
        case WIRE_VARINT: {
            uint64_t v;
            if (source_varint(s, &v) <= 0)
                return reader_fail(r, PK_ERR_INPUT, at, "%s: truncated or malformed varint",
                                   field_name(field));
            if (known)
                st = read_scalar(r, field, v, at);
            break;
        }
        case WIRE_BYTES: {
            uint64_t len;
            if (source_varint(s, &len) <= 0)
                return reader_fail(r, PK_ERR_INPUT, at, "%s: truncated or malformed length",
                                   field_name(field));
            if (!known) {
                if (source_skip(s, len) < len)
                    return reader_fail(r, PK_ERR_INPUT, at,
                                       "field %u claims %" PRIu64 " bytes; the data ends first",
                                       field, len);
                break;
            }
            if (len > MAX_MESSAGE_BYTES)
                return reader_fail(r, PK_ERR_INPUT, at, "%s claims %" PRIu64 " bytes",
                                   field_name(field), len);
            const uint8_t *data;
            bool nomem;
            size_t have = source_bytes(s, (size_t)len, &data, &r->scratch, &r->scratch_capacity,
                                       &nomem);
            if (nomem)
                return reader_nomem(r);
            if (have < len)
                return reader_fail(r, PK_ERR_INPUT, at,
                                   "%s claims %" PRIu64 " bytes but only %zu remain",
                                   field_name(field), len, have);
            st = read_message_field(r, field, data, have, at);
            break;
        }
        case WIRE_FIXED64:
        case WIRE_FIXED32: {
            size_t n = wire == WIRE_FIXED64 ? 8 : 4;
            if (source_skip(s, n) < n)
                return reader_fail(r, PK_ERR_INPUT, at, "field %u: truncated fixed-size value",
                                   field);
            break;
        }
        default:
            return reader_fail(r, PK_ERR_INPUT, at, "unknown wire type %d in field %u", wire,
                               field);
        }
        if (st != PK_OK)
            return st;
    }
    if (s->failure != PK_OK)
        return PK_ERR_INPUT;
    return PK_OK;
}

/* ---- building the model ----------------------------------------------------------------------- */

/* The model string of a pprof string index; out of range is an error (or "" when salvaging).
 * *out is always written: "" unless the index resolves. */
static pk_status resolve_string(reader *r, int64_t index, uint64_t at, const char *what,
                                uint32_t *out)
{
    *out = 0;
    if (index >= 0 && (uint64_t)index < r->string_count) {
        *out = r->strings[index];
        return PK_OK;
    }
    if (index == 0 && r->string_count == 0)
        return PK_OK;
    if (r->lenient) {
        r->missing_strings++;
        return PK_OK;
    }
    return reader_fail(r, PK_ERR_INPUT, at,
                       "%s refers to string %" PRId64 " but the string table has %zu entries",
                       what, index, r->string_count);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}

static pk_status build_resources(reader *r)
{
    for (size_t i = 0; i < r->mapping_count; i++) {
        mapping_entry *m = &r->mappings[i];
        uint32_t filename, build_id;
        pk_status st = resolve_string(r, m->filename, m->at, "mapping filename", &filename);
        if (st == PK_OK)
            st = resolve_string(r, m->build_id, m->at, "mapping build_id", &build_id);
        if (st != PK_OK)
            return st;
        pk_resource res = {0, filename, build_id, m->start, m->limit, m->file_offset};
        const char *path = pk_str(r->p, filename);
        /* pprof itself calls a mapping without a file <unknown>: its name stays empty */
        if (*path)
            res.name = pk_intern_cstr(r->p, base_name(path));
        else
            res.name = build_id;
        if (res.name == PK_NONE)
            return reader_nomem(r);
        m->resource = pk_intern_resource(r->p, &res);
        if (m->resource == PK_NONE)
            return reader_nomem(r);
    }
    /* pprof puts the main binary first; it names the program when nothing else does. */
    pk_metadata *meta = pk_metadata_of(r->p);
    if (r->mapping_count && meta->product == 0) {
        const pk_resource *main_binary = pk_resource_at(r->p, r->mappings[0].resource);
        const char *name = base_name(pk_str(r->p, main_binary->path));
        if (main_binary->limit > main_binary->start && *name && *name != '[' &&
            !strstr(name, ".so"))
            meta->product = pk_intern_cstr(r->p, name);
    }
    return PK_OK;
}

static pk_status build_functions(reader *r)
{
    for (size_t i = 0; i < r->function_count; i++) {
        function_entry *f = &r->functions[i];
        uint32_t name, system_name, file;
        pk_status st = resolve_string(r, f->name, f->at, "function name", &name);
        if (st == PK_OK)
            st = resolve_string(r, f->system_name, f->at, "function system_name", &system_name);
        if (st == PK_OK)
            st = resolve_string(r, f->filename, f->at, "function filename", &file);
        if (st != PK_OK)
            return st;
        f->name_string = name ? name : system_name;
        f->file_string = file;
    }
    return PK_OK;
}

static uint32_t resource_of_mapping(reader *r, uint64_t mapping_id)
{
    if (mapping_id == 0)
        return PK_NONE;
    uint32_t *index = pk_u64map_find(&r->mapping_ids, mapping_id);
    return index ? r->mappings[*index].resource : PK_NONE;
}

/* The frame of an address that the file gives no lines for: named by the address, in its
 * mapping's resource, for the symbolization pass (profkit/symbolize.h) to name. */
static size_t address_frames(reader *r, uint32_t resource, uint64_t address,
                             const uint32_t **chain)
{
    pk_function fn = {pk_address_name(r->p, address), 0, 0, resource};
    if (fn.name == PK_NONE)
        return 0;
    uint32_t function = pk_intern_function(r->p, &fn);
    if (function == PK_NONE)
        return 0;
    pk_frame frame = {function, 0, address, resource, address ? PK_FRAME_HAS_ADDRESS : 0};
    r->address_frame = pk_intern_frame(r->p, &frame);
    *chain = &r->address_frame;
    return r->address_frame == PK_NONE ? 0 : 1;
}

/* Frames of every location, outermost (the caller line) first; pprof lists the inlined
 * callees first and the caller last. */
static pk_status build_frames(reader *r, uint32_t **frames_out, size_t *frame_total)
{
    uint32_t *frames = NULL;
    size_t count = 0, capacity = 0;
    size_t missing_functions = 0;
    for (size_t i = 0; i < r->location_count; i++) {
        location_entry *loc = &r->locations[i];
        uint32_t resource = resource_of_mapping(r, loc->mapping_id);
        uint32_t flags = loc->address ? PK_FRAME_HAS_ADDRESS : 0;
        if (loc->line_count == 0) {
            const uint32_t *chain;
            size_t n = address_frames(r, resource, loc->address, &chain);
            if (n == 0 || !PK_ARRAY_RESERVE(frames, capacity, count + n)) {
                free(frames);
                return reader_nomem(r);
            }
            loc->first_frame = (uint32_t)count;
            loc->frame_count = (uint32_t)n;
            memcpy(frames + count, chain, n * sizeof *chain);
            count += n;
            continue;
        }
        if (!PK_ARRAY_RESERVE(frames, capacity, count + loc->line_count)) {
            free(frames);
            return reader_nomem(r);
        }
        loc->first_frame = (uint32_t)count;
        loc->frame_count = loc->line_count;
        for (uint32_t k = loc->line_count; k-- > 0;) {
            const line_entry *line = &r->lines[loc->first_line + k];
            pk_function fn = {0, 0, 0, resource};
            uint32_t *fi = line->function_id ? pk_u64map_find(&r->function_ids, line->function_id)
                                             : NULL;
            if (fi) {
                const function_entry *f = &r->functions[*fi];
                fn.name = f->name_string;
                fn.file = f->file_string;
                fn.start_line = f->start_line > 0 && f->start_line <= UINT32_MAX
                                    ? (uint32_t)f->start_line
                                    : 0;
            } else if (line->function_id) {
                missing_functions++;
            }
            if (fn.name == 0)
                fn.name = pk_intern_printf(r->p, "0x%" PRIx64, loc->address);
            uint32_t function = fn.name == PK_NONE ? PK_NONE : pk_intern_function(r->p, &fn);
            uint32_t frame_flags = flags | (k + 1 < loc->line_count ? PK_FRAME_INLINED : 0);
            pk_frame frame = {function, line->line, loc->address, resource, frame_flags};
            uint32_t id = function == PK_NONE ? PK_NONE : pk_intern_frame(r->p, &frame);
            if (id == PK_NONE) {
                free(frames);
                return reader_nomem(r);
            }
            frames[count++] = id;
        }
    }
    if (missing_functions)
        pk_warn(r->p, "%zu location lines refer to functions that are not defined", missing_functions);
    *frames_out = frames;
    *frame_total = count;
    return PK_OK;
}

static uint32_t find_thread(pk_profile *p, pk_u64map *threads, uint32_t name, int64_t pid,
                            int64_t tid)
{
    int64_t key[3] = {name, pid, tid};
    uint64_t hash = pk_hash_bytes(key, sizeof key);
    uint32_t *found = pk_u64map_find(threads, hash);
    if (found) {
        const pk_thread *t = pk_thread_at(p, *found);
        if (t && t->name == name && t->pid == pid && t->tid == tid)
            return *found;
    }
    uint32_t index = pk_add_thread(p, name, pid, tid);
    if (index != PK_NONE && !found) {
        uint32_t *slot;
        bool inserted;
        if (!pk_u64map_put(threads, hash, index, &slot, &inserted))
            return PK_NONE;
    }
    return index;
}

static pk_status build_threads(reader *r)
{
    if (r->row_count == 0)
        return PK_OK;
    if (r->label_set_count == 0) {
        if (!PK_ARRAY_RESERVE(r->label_sets, r->label_set_capacity, 1))
            return reader_nomem(r);
        r->label_sets[0] = (label_set){0, 0, 0, PK_NONE};
        r->label_set_count = 1;
    }
    pk_u64map threads;
    pk_u64map_init(&threads);
    size_t dropped_labels = 0; /* in distinct label sets */
    uint32_t dropped_key = 0;
    pk_status st = PK_OK;
    for (size_t i = 0; i < r->label_set_count && st == PK_OK; i++) {
        label_set *set = &r->label_sets[i];
        uint32_t name = 0;
        bool named_by_thread = false;
        int64_t pid = -1, tid = -1;
        for (uint32_t k = 0; k < set->count && st == PK_OK; k++) {
            const int64_t *v = r->label_values + ((size_t)set->first + k) * 4;
            uint32_t key, value, unit;
            st = resolve_string(r, v[0], set->at, "label key", &key);
            if (st == PK_OK)
                st = resolve_string(r, v[1], set->at, "label value", &value);
            if (st == PK_OK)
                st = resolve_string(r, v[3], set->at, "label unit", &unit);
            (void)unit;
            if (st != PK_OK)
                break;
            /* by content: a table may hold the same string at several indexes */
            const char *k_text = pk_str(r->p, key);
            if (value && strcmp(k_text, LABEL_THREAD) == 0) {
                name = value;
                named_by_thread = true;
            } else if (value && !named_by_thread && strcmp(k_text, LABEL_THREAD_NAME) == 0) {
                name = value;
            } else if (!value && strcmp(k_text, LABEL_PID) == 0) {
                pid = v[2];
            } else if (!value && strcmp(k_text, LABEL_TID) == 0) {
                tid = v[2];
            } else {
                if (dropped_labels++ == 0)
                    dropped_key = key;
            }
        }
        if (st != PK_OK)
            break;
        /* sets without thread labels get the default thread when a row uses them */
        set->thread = PK_NONE;
        if (name != 0 || pid >= 0 || tid >= 0) {
            set->thread = find_thread(r->p, &threads, name, pid, tid);
            if (set->thread == PK_NONE)
                st = reader_nomem(r);
        }
    }
    pk_u64map_free(&threads);
    if (st == PK_OK && dropped_labels)
        pk_warn(r->p, "sample labels other than thread names are not kept (%zu, e.g. \"%s\")",
                dropped_labels, pk_str(r->p, dropped_key));
    return st;
}

static pk_status build_value_types(reader *r)
{
    size_t n = r->sample_type_count;
    if (r->values_fixed && r->values_per_sample != n && !r->lenient)
        return reader_fail(r, PK_ERR_INPUT, r->values_fixed_at,
                           "sample has %zu values but the profile has %zu sample types",
                           r->values_per_sample, n);
    if (n > PK_MAX_VALUES) {
        pk_warn(r->p, "%zu sample types; only the first %d are kept", n, PK_MAX_VALUES);
        n = PK_MAX_VALUES;
    }
    uint32_t default_name = 0;
    pk_status st = resolve_string(r, r->default_sample_type.index, r->default_sample_type.at,
                                  "default_sample_type", &default_name);
    if (st != PK_OK)
        return st;
    uint32_t chosen = PK_NONE;
    for (size_t i = 0; i < n; i++) {
        uint32_t type, unit;
        st = resolve_string(r, r->sample_types[i].type, r->sample_types[i].at, "sample type",
                            &type);
        if (st == PK_OK)
            st = resolve_string(r, r->sample_types[i].unit, r->sample_types[i].at, "sample unit",
                                &unit);
        if (st != PK_OK)
            return st;
        uint32_t index = pk_add_value_type(r->p, pk_str(r->p, type), pk_str(r->p, unit));
        if (index == PK_NONE)
            return reader_nomem(r);
        if (default_name && type == default_name && chosen == PK_NONE)
            chosen = index;
    }
    /* without a default, pprof shows the last sample type */
    if (n > 0)
        pk_set_default_value(r->p, chosen != PK_NONE ? chosen : (uint32_t)(n - 1));
    return PK_OK;
}

static pk_status set_property_from(reader *r, const char *key, deferred_string ref)
{
    if (ref.index == 0)
        return PK_OK;
    uint32_t s = 0;
    pk_status st = resolve_string(r, ref.index, ref.at, key, &s);
    if (st != PK_OK)
        return st;
    if (s && pk_property_set(r->p, key, pk_str(r->p, s)) != PK_OK)
        return reader_nomem(r);
    return PK_OK;
}

static pk_status build_metadata(reader *r)
{
    pk_metadata *meta = pk_metadata_of(r->p);
    pk_status st = resolve_string(r, r->period_type_name.index, r->period_type_name.at,
                                  "period_type", &meta->period_type);
    if (st == PK_OK)
        st = resolve_string(r, r->period_type_unit.index, r->period_type_unit.at,
                            "period_type unit", &meta->period_unit);
    if (st != PK_OK)
        return st;
    meta->period = r->period;
    if (r->has_time && r->time_nanos != 0) {
        meta->start_time = r->time_nanos;
        if (r->duration_nanos > 0)
            meta->end_time = pk_add_saturating(r->time_nanos, r->duration_nanos);
    } else if (r->duration_nanos > 0) {
        char text[32];
        snprintf(text, sizeof text, "%" PRId64, r->duration_nanos);
        if (pk_property_set(r->p, PROPERTY_DURATION, text) != PK_OK)
            return reader_nomem(r);
    }
    st = set_property_from(r, PROPERTY_DROP_FRAMES, r->drop_frames);
    if (st == PK_OK)
        st = set_property_from(r, PROPERTY_KEEP_FRAMES, r->keep_frames);
    if (st == PK_OK)
        st = set_property_from(r, PROPERTY_DOC_URL, r->doc_url);
    if (st != PK_OK)
        return st;
    /* comments "key=value" become properties; the others are kept together, one per line */
    char *plain = NULL;
    size_t plain_len = 0, plain_cap = 0;
    for (size_t i = 0; i < r->comment_count && st == PK_OK; i++) {
        uint32_t s;
        st = resolve_string(r, r->comments[i].index, r->comments[i].at, "comment", &s);
        if (st != PK_OK)
            break;
        const char *text = pk_str(r->p, s);
        const char *eq = strchr(text, '=');
        size_t key_len = eq ? (size_t)(eq - text) : 0;
        if (eq && key_len > 0 && key_len < 128 && !memchr(text, ' ', key_len) &&
            !memchr(text, '\n', key_len)) {
            char key[128];
            memcpy(key, text, key_len);
            key[key_len] = '\0';
            if (strcmp(key, COMMENT_PRODUCT) == 0 && !pk_metadata_get(r->p)->product) {
                pk_metadata_of(r->p)->product = pk_intern_cstr(r->p, eq + 1);
                if (pk_metadata_get(r->p)->product == PK_NONE)
                    st = reader_nomem(r);
            } else if (pk_property_set(r->p, key, eq + 1) != PK_OK) {
                st = reader_nomem(r);
            }
            continue;
        }
        size_t len = strlen(text);
        if (!PK_ARRAY_RESERVE(plain, plain_cap, plain_len + len + 2)) {
            st = reader_nomem(r);
            break;
        }
        if (plain_len)
            plain[plain_len++] = '\n';
        memcpy(plain + plain_len, text, len);
        plain_len += len;
        plain[plain_len] = '\0';
    }
    if (st == PK_OK && plain_len && pk_property_set(r->p, PROPERTY_COMMENT, plain) != PK_OK)
        st = reader_nomem(r);
    free(plain);
    return st;
}

/* Dense index of a defined location ID, or UINT32_MAX. IDs written densely 1..N, as pprof
 * does, are found without hashing. */
static uint32_t find_location(const reader *r, uint64_t id)
{
    if (id >= 1 && id <= r->location_count && r->locations[id - 1].id == id)
        return (uint32_t)(id - 1);
    uint32_t *index = pk_u64map_find(&r->location_ids, id);
    return index ? *index : UINT32_MAX;
}

/* The model stack of a row's location IDs (leaf first in the key). Sets *missing, with the
 * ID, when one is not defined. */
static pk_status row_stack(reader *r, const uint8_t *key, const uint8_t *end,
                           const uint32_t *frames, uint64_t **ids, size_t *ids_capacity,
                           uint32_t *stack_out, bool *missing, uint64_t *missing_id)
{
    size_t depth = 0;
    uint64_t id;
    while (key < end && decode_varint(&key, end, &id)) {
        if (!PK_ARRAY_RESERVE(*ids, *ids_capacity, depth + 1))
            return reader_nomem(r);
        (*ids)[depth++] = id;
    }
    uint32_t stack = PK_NONE;
    for (size_t i = depth; i-- > 0;) {
        uint32_t index = find_location(r, (*ids)[i]);
        if (index == UINT32_MAX) {
            *missing = true;
            *missing_id = (*ids)[i];
            return PK_OK;
        }
        const location_entry *loc = &r->locations[index];
        for (uint32_t k = 0; k < loc->frame_count; k++) {
            stack = pk_intern_stack(r->p, stack, frames[loc->first_frame + k]);
            if (stack == PK_NONE)
                return reader_nomem(r);
        }
    }
    *stack_out = stack;
    return PK_OK;
}

static pk_status build_model(reader *r)
{
    pk_status st = build_value_types(r);
    if (st == PK_OK)
        st = build_resources(r);
    if (st == PK_OK)
        st = build_functions(r);
    if (st != PK_OK)
        return st;
    uint32_t *frames = NULL;
    size_t frame_total = 0;
    st = build_frames(r, &frames, &frame_total);
    if (st != PK_OK)
        return st;
    uint64_t *ids = NULL;
    size_t ids_capacity = 0;
    st = build_threads(r);
    if (st != PK_OK)
        goto done;

    size_t lost_rows = 0;
    uint32_t default_thread = PK_NONE;
    for (size_t row = 0; row < r->row_count; row++) {
        const uint8_t *key = r->row_keys + r->row_key_start[row];
        const uint8_t *end = r->row_keys + r->row_key_start[row + 1];
        uint64_t labels = 0;
        decode_varint(&key, end, &labels);
        uint32_t stack = PK_NONE;
        bool missing = false;
        uint64_t missing_id = 0;
        st = row_stack(r, key, end, frames, &ids, &ids_capacity, &stack, &missing, &missing_id);
        if (st != PK_OK)
            goto done;
        if (missing) {
            if (!r->lenient) {
                st = reader_fail(r, PK_ERR_INPUT, r->row_at[row],
                                 "sample refers to location id %" PRIu64 ", which is not defined",
                                 missing_id);
                goto done;
            }
            lost_rows++;
            continue;
        }
        int64_t values[PK_MAX_VALUES] = {0};
        size_t nv = r->stored_values;
        size_t types = pk_value_type_count(r->p);
        for (size_t k = 0; k < nv && k < types; k++)
            values[k] = r->row_values[row * nv + k];
        uint32_t thread = r->label_sets[labels].thread;
        if (thread == PK_NONE) {
            if (default_thread == PK_NONE) {
                /* samples without thread labels: one thread, named after the program */
                uint32_t product = pk_metadata_get(r->p)->product;
                uint32_t name = product ? product : pk_intern_cstr(r->p, "main");
                default_thread = name == PK_NONE ? PK_NONE : pk_add_thread(r->p, name, -1, -1);
                if (default_thread == PK_NONE) {
                    st = reader_nomem(r);
                    goto done;
                }
            }
            thread = default_thread;
        }
        st = pk_add_sample(r->p, thread, stack, values);
        if (st != PK_OK) {
            st = pk_error_set(r->err, st, PK_NO_OFFSET, "cannot add a sample");
            goto done;
        }
    }
    if (lost_rows)
        pk_warn(r->p, "%zu samples dropped: they refer to locations that were not read",
                lost_rows);
    st = build_metadata(r);
done:
    free(ids);
    free(frames);
    return st;
}

static pk_status pprof_read(pk_input *in, pk_profile *p, const pk_read_options *options,
                            pk_error *err)
{
    reader r;
    reader_init(&r, p, options, err);
    pk_status st = source_open(&r.src, in, err);
    if (st != PK_OK) {
        reader_release(&r);
        return st;
    }
    if (source_refill(&r.src) == 0 && r.src.failure == PK_OK) {
        source_close(&r.src);
        reader_release(&r);
        return pk_error_set(err, PK_ERR_INPUT, 0, "empty input");
    }
    /* with salvage, references to what the damage cut off are dropped, not errors */
    r.lenient = options && options->salvage;
    st = read_fields(&r);
    if (st != PK_OK && r.src.failure != PK_OK)
        st = pk_error_set(err, r.src.failure, r.src.failure_offset, "%s",
                          r.src.failure_message);
    bool trailing = r.src.trailing_garbage;
    source_close(&r.src);
    pk_error damage = {0};
    if (st != PK_OK && r.lenient && (st == PK_ERR_INPUT || st == PK_ERR_LIMIT)) {
        damage = *err;
        pk_error_clear(err);
        st = PK_OK;
    }
    if (st == PK_OK)
        st = build_model(&r);
    if (st == PK_OK) {
        if (damage.status != PK_OK)
            pk_warn(p, "damaged data at byte %" PRId64 ": %s; kept what was read before it",
                    damage.offset, damage.message);
        if (r.missing_strings)
            pk_warn(p, "%zu references to strings beyond the string table were read as empty",
                    r.missing_strings);
        if (trailing)
            pk_warn(p, "bytes after the end of the gzip data were ignored");
    } else if (damage.status != PK_OK) {
        *err = damage;
    }
    reader_release(&r);
    return st;
}

/* ---- probe ------------------------------------------------------------------------------------ */

/* A shallow check that [data, end) is a sequence of well-formed protobuf fields. */
static bool fields_well_formed(const uint8_t *data, const uint8_t *end)
{
    const uint8_t *p = data;
    while (p < end) {
        uint64_t tag, v;
        if (!decode_varint(&p, end, &tag) || (tag >> 3) == 0)
            return false;
        switch (tag & 7) {
        case WIRE_VARINT:
            if (!decode_varint(&p, end, &v))
                return false;
            break;
        case WIRE_BYTES:
            if (!decode_varint(&p, end, &v) || v > (uint64_t)(end - p))
                return false;
            p += v;
            break;
        case WIRE_FIXED64:
            if (end - p < 8)
                return false;
            p += 8;
            break;
        case WIRE_FIXED32:
            if (end - p < 4)
                return false;
            p += 4;
            break;
        default:
            return false;
        }
    }
    return true;
}

/* Counts the Profile fields that check out in [data, data + size) up to the first one cut
 * off by the end of the window; -1 when one does not check out. *whole says whether the
 * window ended exactly at a field boundary. */
static int count_profile_fields(const uint8_t *data, size_t size, bool *whole)
{
    const uint8_t *p = data, *end = data + size;
    int fields = 0;
    *whole = false;
    while (p < end) {
        uint64_t tag, v;
        if (!decode_varint(&p, end, &tag))
            return end - p < 10 ? fields : -1; /* cut off by the window, or malformed */
        unsigned field = (unsigned)(tag >> 3);
        int wire = (int)(tag & 7);
        if (tag >> 3 == 0 || tag >> 3 > PROFILE_FIELD_MAX || !wire_type_fits(field, wire))
            return -1;
        /* a field cut off by the window counts: its tag checked out */
        if (!decode_varint(&p, end, &v))
            return fields + 1;
        if (wire == WIRE_BYTES) {
            if (v > (uint64_t)(end - p))
                return v > MAX_MESSAGE_BYTES ? -1 : fields + 1;
            if (field != PROFILE_STRING_TABLE && field != PROFILE_COMMENT &&
                !fields_well_formed(p, p + v))
                return -1;
            p += v;
        }
        fields++;
    }
    *whole = true;
    return fields;
}

static int pprof_probe(const uint8_t *data, size_t size)
{
    if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
        uint8_t inflated[PK_PROBE_BYTES];
        z_stream z;
        memset(&z, 0, sizeof z);
        if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
            return PK_PROBE_NO;
        z.next_in = (Bytef *)data;
        z.avail_in = (uInt)size;
        z.next_out = inflated;
        z.avail_out = sizeof inflated;
        int rc = inflate(&z, Z_SYNC_FLUSH);
        size_t n = sizeof inflated - z.avail_out;
        inflateEnd(&z);
        if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
            return PK_PROBE_NO;
        if (n == 0 && rc != Z_STREAM_END)
            return PK_PROBE_WEAK; /* valid gzip so far, too short a window to judge */
        bool whole;
        int fields = count_profile_fields(inflated, n, &whole);
        if (fields <= 0)
            return PK_PROBE_NO;
        return fields >= 2 ? PK_PROBE_CERTAIN : PK_PROBE_LIKELY;
    }
    bool whole;
    int fields = count_profile_fields(data, size, &whole);
    if (fields <= 0)
        return PK_PROBE_NO;
    /* plain protobuf has no signature: only a run of sensible Profile fields counts */
    if (data[0] == ((PROFILE_SAMPLE_TYPE << 3) | WIRE_BYTES) && (fields >= 4 || (whole && fields >= 2)))
        return PK_PROBE_LIKELY;
    return fields >= 3 ? PK_PROBE_WEAK : PK_PROBE_NO;
}

/* ---- writer ------------------------------------------------------------------------------------ */

typedef struct writer {
    const pk_profile *p;
    pk_output *out;
    pk_error *err;
    uint8_t *staging; /* protobuf bytes waiting to be written */
    size_t staged;
    bool failed;
    /* strings beyond the model's, numbered after them */
    char **extra_strings;
    size_t extra_count, extra_capacity;
    /* inlined frames fold into their caller's location: a location is a chain of frames */
    uint32_t *stack_location;    /* per model stack */
    uint32_t *location_outer;    /* per location: the location it extends, PK_NONE for a base */
    uint32_t *location_frame;    /* per location: its innermost frame */
    size_t location_count, location_capacity_outer, location_capacity_frame;
    uint32_t *location_id;    /* per location: its ID in the file, 0 when no sample uses it */
    uint32_t *used_locations; /* locations in ID order */
    size_t used_count;
    bool *resource_unsymbolized; /* per resource */
    bool *resource_has_files;
    bool *resource_has_lines;
    bool *resource_has_inlines;
    uint64_t *ids; /* scratch for one sample's location IDs */
    size_t ids_capacity;
    Perftools__Profiles__Line *lines;
    Perftools__Profiles__Line **line_pointers;
    size_t lines_capacity, line_pointers_capacity;
} writer;

#define STAGING_BYTES (256u << 10)

static void writer_flush(writer *w)
{
    pk_out_write(w->out, w->staging, w->staged);
    w->staged = 0;
}

static void emit(writer *w, const void *data, size_t n)
{
    const uint8_t *bytes = data;
    while (n > 0) {
        if (w->staged == STAGING_BYTES)
            writer_flush(w);
        size_t take = STAGING_BYTES - w->staged < n ? STAGING_BYTES - w->staged : n;
        memcpy(w->staging + w->staged, bytes, take);
        w->staged += take;
        bytes += take;
        n -= take;
    }
}

static void emit_varint(writer *w, uint64_t v)
{
    uint8_t buf[10];
    emit(w, buf, encode_varint(buf, v));
}

static void emit_scalar(writer *w, unsigned field, uint64_t v)
{
    if (v == 0)
        return;
    emit_varint(w, (uint64_t)field << 3 | WIRE_VARINT);
    emit_varint(w, v);
}

typedef struct sink {
    ProtobufCBuffer base;
    writer *w;
} sink;

static void sink_append(ProtobufCBuffer *buffer, size_t len, const uint8_t *data)
{
    emit(((sink *)buffer)->w, data, len);
}

static void emit_message(writer *w, unsigned field, const ProtobufCMessage *message)
{
    emit_varint(w, (uint64_t)field << 3 | WIRE_BYTES);
    emit_varint(w, protobuf_c_message_get_packed_size(message));
    sink s = {{sink_append}, w};
    protobuf_c_message_pack_to_buffer(message, &s.base);
}

static void emit_bytes_field(writer *w, unsigned field, const char *data, size_t len)
{
    emit_varint(w, (uint64_t)field << 3 | WIRE_BYTES);
    emit_varint(w, len);
    emit(w, data, len);
}

/* String index of s in the written table: the model's own strings keep their indexes. */
static int64_t extra_string(writer *w, const char *s)
{
    size_t base = pk_string_count(w->p);
    for (size_t i = 0; i < w->extra_count; i++)
        if (strcmp(w->extra_strings[i], s) == 0)
            return (int64_t)(base + i);
    char *copy = strdup(s);
    if (!copy || !PK_ARRAY_RESERVE(w->extra_strings, w->extra_capacity, w->extra_count + 1)) {
        free(copy);
        w->failed = true;
        return 0;
    }
    w->extra_strings[w->extra_count++] = copy;
    return (int64_t)(base + w->extra_count - 1);
}

/* A frame named by its address (unsymbolized): written as a location without lines, so that
 * pprof symbolizes it itself. */
static bool frame_is_bare_address(const pk_profile *p, uint32_t frame)
{
    return pk_frame_is_unresolved(p, frame);
}

static uint32_t frame_resource(const pk_profile *p, const pk_frame *f)
{
    if (f->resource != PK_NONE)
        return f->resource;
    const pk_function *fn = pk_function_at(p, f->function);
    return fn ? fn->resource : PK_NONE;
}

/* Groups each stack's frame with the inlined frames above it into locations. */
static bool build_locations(writer *w)
{
    const pk_profile *p = w->p;
    size_t stacks = pk_stack_count(p);
    w->stack_location = malloc((stacks ? stacks : 1) * sizeof *w->stack_location);
    if (!w->stack_location)
        return false;
    /* a frame that is not inlined starts a location of its own: found by frame, no hashing */
    size_t frame_count = pk_frame_count(p);
    uint32_t *by_frame = malloc((frame_count ? frame_count : 1) * sizeof *by_frame);
    if (!by_frame)
        return false;
    for (size_t f = 0; f < frame_count; f++)
        by_frame[f] = PK_NONE;
    pk_u64map ids; /* (outer location, inlined frame) -> location */
    pk_u64map_init(&ids);
    bool ok = true;
    for (size_t s = 0; s < stacks && ok; s++) {
        const pk_stack *stack = pk_stack_at(p, (uint32_t)s);
        const pk_frame *frame = pk_frame_at(p, stack->frame);
        bool inlined = (frame->flags & PK_FRAME_INLINED) && stack->parent != PK_NONE;
        uint32_t outer = inlined ? w->stack_location[stack->parent] : PK_NONE;
        uint32_t *slot = &by_frame[stack->frame];
        if (inlined) {
            bool inserted;
            if (!pk_u64map_put(&ids, ((uint64_t)outer << 32) | stack->frame, PK_NONE, &slot,
                               &inserted)) {
                ok = false;
                break;
            }
        }
        if (*slot == PK_NONE) {
            if (!PK_ARRAY_RESERVE(w->location_outer, w->location_capacity_outer,
                                  w->location_count + 1) ||
                !PK_ARRAY_RESERVE(w->location_frame, w->location_capacity_frame,
                                  w->location_count + 1)) {
                ok = false;
                break;
            }
            w->location_outer[w->location_count] = outer;
            w->location_frame[w->location_count] = stack->frame;
            *slot = (uint32_t)w->location_count++;
        }
        w->stack_location[s] = *slot;
    }
    free(by_frame);
    pk_u64map_free(&ids);
    return ok;
}

static bool location_is_bare(const writer *w, uint32_t location)
{
    return w->location_outer[location] == PK_NONE &&
           frame_is_bare_address(w->p, w->location_frame[location]);
}

/* The frame whose address and resource the location carries: the outermost of its chain. */
static const pk_frame *location_base_frame(const writer *w, uint32_t location)
{
    while (w->location_outer[location] != PK_NONE)
        location = w->location_outer[location];
    return pk_frame_at(w->p, w->location_frame[location]);
}

static bool note_resources(writer *w)
{
    const pk_profile *p = w->p;
    size_t n = pk_resource_count(p);
    size_t alloc = n ? n : 1;
    w->resource_unsymbolized = calloc(alloc, sizeof(bool));
    w->resource_has_files = calloc(alloc, sizeof(bool));
    w->resource_has_lines = calloc(alloc, sizeof(bool));
    w->resource_has_inlines = calloc(alloc, sizeof(bool));
    if (!w->resource_unsymbolized || !w->resource_has_files || !w->resource_has_lines ||
        !w->resource_has_inlines)
        return false;
    for (size_t u = 0; u < w->used_count; u++) {
        uint32_t l = w->used_locations[u];
        const pk_frame *base = location_base_frame(w, l);
        uint32_t r = frame_resource(p, base);
        if (r == PK_NONE || r >= n)
            continue;
        if (location_is_bare(w, l)) {
            w->resource_unsymbolized[r] = true;
            continue;
        }
        const pk_frame *f = pk_frame_at(p, w->location_frame[l]);
        const pk_function *fn = pk_function_at(p, f->function);
        if (fn && fn->file)
            w->resource_has_files[r] = true;
        if (f->line)
            w->resource_has_lines[r] = true;
        if (w->location_outer[l] != PK_NONE)
            w->resource_has_inlines[r] = true;
    }
    return true;
}

/* The locations of a stack, leaf first, into w->ids (as location indexes). */
static bool sample_locations(writer *w, uint32_t stack, size_t *depth_out)
{
    const pk_profile *p = w->p;
    size_t depth = 0;
    for (uint32_t s = stack; s != PK_NONE;) {
        if (!PK_ARRAY_RESERVE(w->ids, w->ids_capacity, depth + 1)) {
            w->failed = true;
            return false;
        }
        w->ids[depth++] = w->stack_location[s];
        /* the inlined frames of this location continue down to its base frame */
        const pk_stack *node = pk_stack_at(p, s);
        while ((pk_frame_at(p, node->frame)->flags & PK_FRAME_INLINED) &&
               node->parent != PK_NONE) {
            s = node->parent;
            node = pk_stack_at(p, s);
        }
        s = node->parent;
    }
    *depth_out = depth;
    return true;
}

/* Numbers the locations that samples use 1..N in order of first use; the chains that only
 * lead up to a longer inline chain are not written. */
static bool number_locations(writer *w)
{
    const pk_profile *p = w->p;
    w->location_id = calloc(w->location_count ? w->location_count : 1, sizeof *w->location_id);
    w->used_locations = malloc((w->location_count ? w->location_count : 1) *
                               sizeof *w->used_locations);
    if (!w->location_id || !w->used_locations)
        return false;
    for (size_t row = 0; row < pk_sample_count(p); row++) {
        size_t depth;
        if (!sample_locations(w, pk_sample_stack(p, row), &depth))
            return false;
        for (size_t k = 0; k < depth; k++) {
            uint32_t location = (uint32_t)w->ids[k];
            if (w->location_id[location] == 0) {
                w->used_locations[w->used_count++] = location;
                w->location_id[location] = (uint32_t)w->used_count;
            }
        }
    }
    return true;
}


/* Appends one sample label: a string (str) or a number (num); the key string is added to the
 * table on first use. */
static void add_label(writer *w, Perftools__Profiles__Label *labels,
                      Perftools__Profiles__Label **pointers, size_t *count, int64_t *key,
                      const char *key_text, int64_t str, int64_t num)
{
    if (!*key)
        *key = extra_string(w, key_text);
    Perftools__Profiles__Label *label = &labels[*count];
    perftools__profiles__label__init(label);
    label->key = *key;
    label->str = str;
    label->num = num;
    pointers[*count] = label;
    (*count)++;
}

static void write_samples(writer *w)
{
    const pk_profile *p = w->p;
    size_t nv = pk_value_type_count(p);
    int64_t thread_key = 0, pid_key = 0, tid_key = 0;
    Perftools__Profiles__Label labels[3];
    Perftools__Profiles__Label *label_pointers[3];
    for (size_t row = 0; row < pk_sample_count(p) && !w->failed; row++) {
        uint32_t stack = pk_sample_stack(p, row);
        size_t depth;
        if (!sample_locations(w, stack, &depth))
            return;
        for (size_t k = 0; k < depth; k++)
            w->ids[k] = w->location_id[w->ids[k]];
        Perftools__Profiles__Sample sample = PERFTOOLS__PROFILES__SAMPLE__INIT;
        sample.n_location_id = depth;
        sample.location_id = w->ids;
        sample.n_value = nv;
        sample.value = (int64_t *)pk_sample_values(p, row);
        const pk_thread *t = pk_thread_at(p, pk_sample_thread(p, row));
        size_t nl = 0;
        if (t && t->name)
            add_label(w, labels, label_pointers, &nl, &thread_key, LABEL_THREAD, t->name, 0);
        if (t && t->pid >= 0)
            add_label(w, labels, label_pointers, &nl, &pid_key, LABEL_PID, 0, t->pid);
        if (t && t->tid >= 0)
            add_label(w, labels, label_pointers, &nl, &tid_key, LABEL_TID, 0, t->tid);
        sample.n_label = nl;
        sample.label = label_pointers;
        emit_message(w, PROFILE_SAMPLE, &sample.base);
    }
}

static void write_mappings(writer *w)
{
    const pk_profile *p = w->p;
    for (uint32_t i = 0; i < pk_resource_count(p) && !w->failed; i++) {
        const pk_resource *r = pk_resource_at(p, i);
        Perftools__Profiles__Mapping m = PERFTOOLS__PROFILES__MAPPING__INIT;
        m.id = (uint64_t)i + 1;
        m.memory_start = r->start;
        m.memory_limit = r->limit;
        m.file_offset = r->offset;
        m.filename = r->path ? r->path : r->name;
        m.build_id = r->build_id;
        m.has_functions = !w->resource_unsymbolized[i];
        m.has_filenames = m.has_functions && w->resource_has_files[i];
        m.has_line_numbers = m.has_functions && w->resource_has_lines[i];
        m.has_inline_frames = m.has_functions && w->resource_has_inlines[i];
        emit_message(w, PROFILE_MAPPING, &m.base);
    }
}

static void write_locations(writer *w)
{
    const pk_profile *p = w->p;
    for (size_t u = 0; u < w->used_count && !w->failed; u++) {
        uint32_t l = w->used_locations[u];
        const pk_frame *base = location_base_frame(w, l);
        Perftools__Profiles__Location loc = PERFTOOLS__PROFILES__LOCATION__INIT;
        loc.id = w->location_id[l];
        uint32_t resource = frame_resource(p, base);
        loc.mapping_id = resource == PK_NONE ? 0 : (uint64_t)resource + 1;
        loc.address = (base->flags & PK_FRAME_HAS_ADDRESS) ? base->address : 0;
        size_t n = 0;
        if (!location_is_bare(w, l)) {
            for (uint32_t c = l; c != PK_NONE; c = w->location_outer[c]) {
                if (!PK_ARRAY_RESERVE(w->lines, w->lines_capacity, n + 1) ||
                    !PK_ARRAY_RESERVE(w->line_pointers, w->line_pointers_capacity, n + 1)) {
                    w->failed = true;
                    return;
                }
                const pk_frame *f = pk_frame_at(p, w->location_frame[c]);
                perftools__profiles__line__init(&w->lines[n]);
                w->lines[n].function_id = (uint64_t)f->function + 1;
                w->lines[n].line = f->line;
                n++;
            }
            for (size_t k = 0; k < n; k++)
                w->line_pointers[k] = &w->lines[k];
        }
        loc.n_line = n;
        loc.line = w->line_pointers;
        emit_message(w, PROFILE_LOCATION, &loc.base);
    }
}

static void write_functions(writer *w)
{
    const pk_profile *p = w->p;
    for (uint32_t i = 0; i < pk_function_count(p) && !w->failed; i++) {
        const pk_function *fn = pk_function_at(p, i);
        Perftools__Profiles__Function f = PERFTOOLS__PROFILES__FUNCTION__INIT;
        f.id = (uint64_t)i + 1;
        f.name = fn->name;
        f.system_name = fn->name;
        f.filename = fn->file;
        f.start_line = fn->start_line;
        emit_message(w, PROFILE_FUNCTION, &f.base);
    }
}

static bool property_is_field(const char *key)
{
    return strcmp(key, PROPERTY_DROP_FRAMES) == 0 || strcmp(key, PROPERTY_KEEP_FRAMES) == 0 ||
           strcmp(key, PROPERTY_DOC_URL) == 0 || strcmp(key, PROPERTY_DURATION) == 0;
}

/* Comments: the product and every property as "key=value", the comment property line by
 * line. */
static void collect_comments(writer *w, int64_t **out, size_t *count)
{
    const pk_profile *p = w->p;
    int64_t *list = NULL;
    size_t n = 0, cap = 0;
    /* pprof names the program after the first mapping; the comment only when that does not */
    uint32_t product = pk_metadata_get(p)->product;
    if (product && pk_resource_count(p) > 0 && pk_resource_at(p, 0)->name == product)
        product = 0;
    if (product) {
        const char *name = pk_str(p, product);
        size_t len = strlen(COMMENT_PRODUCT) + strlen(name) + 2;
        char *text = malloc(len);
        if (!text || !PK_ARRAY_RESERVE(list, cap, n + 1)) {
            free(text);
            w->failed = true;
        } else {
            snprintf(text, len, "%s=%s", COMMENT_PRODUCT, name);
            list[n++] = extra_string(w, text);
            free(text);
        }
    }
    for (size_t i = 0; i < pk_property_count(p) && !w->failed; i++) {
        const char *key = pk_property_key(p, i);
        const char *value = pk_property_value(p, i);
        if (property_is_field(key) || (product && strcmp(key, COMMENT_PRODUCT) == 0))
            continue;
        if (strcmp(key, PROPERTY_COMMENT) == 0) {
            const char *line = value;
            while (*line) {
                const char *nl = strchr(line, '\n');
                size_t len = nl ? (size_t)(nl - line) : strlen(line);
                char *copy = strndup(line, len);
                if (!copy || !PK_ARRAY_RESERVE(list, cap, n + 1)) {
                    free(copy);
                    w->failed = true;
                    break;
                }
                list[n++] = extra_string(w, copy);
                free(copy);
                line += len + (nl ? 1 : 0);
            }
            continue;
        }
        size_t len = strlen(key) + strlen(value) + 2;
        char *text = malloc(len);
        if (!text || !PK_ARRAY_RESERVE(list, cap, n + 1)) {
            free(text);
            w->failed = true;
            break;
        }
        snprintf(text, len, "%s=%s", key, value);
        list[n++] = extra_string(w, text);
        free(text);
    }
    *out = list;
    *count = n;
}

static int64_t property_string(writer *w, const char *key)
{
    const char *value = pk_property_get(w->p, key);
    return value && *value ? extra_string(w, value) : 0;
}

static void writer_release(writer *w)
{
    free(w->staging);
    for (size_t i = 0; i < w->extra_count; i++)
        free(w->extra_strings[i]);
    free(w->extra_strings);
    free(w->stack_location);
    free(w->location_outer);
    free(w->location_frame);
    free(w->location_id);
    free(w->used_locations);
    free(w->resource_unsymbolized);
    free(w->resource_has_files);
    free(w->resource_has_lines);
    free(w->resource_has_inlines);
    free(w->ids);
    free(w->lines);
    free(w->line_pointers);
}

static pk_status pprof_write(const pk_profile *p, pk_output *out, const pk_write_options *options,
                             pk_error *err)
{
    size_t nv = pk_value_type_count(p);
    uint32_t chosen = options ? options->value : PK_NONE;
    if (chosen != PK_NONE && chosen >= nv)
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET, "no value %" PRIu32 " to write",
                            chosen);
    if (chosen == PK_NONE && nv)
        chosen = pk_default_value(p);

    writer w;
    memset(&w, 0, sizeof w);
    w.p = p;
    w.out = out;
    w.err = err;
    w.staging = malloc(STAGING_BYTES);
    if (!w.staging)
        goto nomem;
    if (!build_locations(&w) || !number_locations(&w) || !note_resources(&w))
        goto nomem;

    for (uint32_t i = 0; i < nv; i++) {
        const pk_value_type *vt = pk_value_type_at(p, i);
        Perftools__Profiles__ValueType t = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
        t.type = vt->name;
        t.unit = vt->unit;
        emit_message(&w, PROFILE_SAMPLE_TYPE, &t.base);
    }
    write_samples(&w);
    write_mappings(&w);
    write_locations(&w);
    write_functions(&w);

    int64_t *comments = NULL;
    size_t comment_count = 0;
    collect_comments(&w, &comments, &comment_count);
    int64_t drop = property_string(&w, PROPERTY_DROP_FRAMES);
    int64_t keep = property_string(&w, PROPERTY_KEEP_FRAMES);
    int64_t doc = property_string(&w, PROPERTY_DOC_URL);

    size_t model_strings = pk_string_count(p);
    for (uint32_t i = 0; i < model_strings && !w.failed; i++)
        emit_bytes_field(&w, PROFILE_STRING_TABLE, pk_str(p, i), pk_str_len(p, i));
    for (size_t i = 0; i < w.extra_count; i++)
        emit_bytes_field(&w, PROFILE_STRING_TABLE, w.extra_strings[i],
                         strlen(w.extra_strings[i]));

    const pk_metadata *meta = pk_metadata_get(p);
    emit_scalar(&w, PROFILE_DROP_FRAMES, (uint64_t)drop);
    emit_scalar(&w, PROFILE_KEEP_FRAMES, (uint64_t)keep);
    if (meta->start_time != PK_TIME_UNKNOWN) {
        emit_scalar(&w, PROFILE_TIME_NANOS, (uint64_t)meta->start_time);
        if (meta->end_time != PK_TIME_UNKNOWN && meta->end_time > meta->start_time)
            emit_scalar(&w, PROFILE_DURATION_NANOS, (uint64_t)(meta->end_time - meta->start_time));
    } else {
        const char *duration = pk_property_get(p, PROPERTY_DURATION);
        if (duration)
            emit_scalar(&w, PROFILE_DURATION_NANOS, (uint64_t)strtoll(duration, NULL, 10));
    }
    if (meta->period_type || meta->period_unit) {
        Perftools__Profiles__ValueType t = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
        t.type = meta->period_type;
        t.unit = meta->period_unit;
        emit_message(&w, PROFILE_PERIOD_TYPE, &t.base);
    }
    emit_scalar(&w, PROFILE_PERIOD, (uint64_t)meta->period);
    for (size_t i = 0; i < comment_count; i++)
        emit_scalar(&w, PROFILE_COMMENT, (uint64_t)comments[i]);
    free(comments);
    if (chosen != PK_NONE)
        emit_scalar(&w, PROFILE_DEFAULT_SAMPLE_TYPE, pk_value_type_at(p, chosen)->name);
    emit_scalar(&w, PROFILE_DOC_URL, (uint64_t)doc);

    writer_flush(&w);
    if (w.failed)
        goto nomem;
    writer_release(&w);
    return PK_OK;
nomem:
    writer_release(&w);
    return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory writing pprof");
}

/* ---- dump ------------------------------------------------------------------------------------- */

static void dump_message(pk_output *out, const ProtobufCMessage *m);

static void dump_value(pk_output *out, const ProtobufCFieldDescriptor *fd, const void *value)
{
    switch (fd->type) {
    case PROTOBUF_C_TYPE_INT64:
        pk_out_i64(out, *(const int64_t *)value);
        break;
    case PROTOBUF_C_TYPE_UINT64:
        if (strcmp(fd->name, "address") == 0 || strncmp(fd->name, "memory_", 7) == 0 ||
            strcmp(fd->name, "file_offset") == 0)
            pk_out_printf(out, "0x%" PRIx64, *(const uint64_t *)value);
        else
            pk_out_u64(out, *(const uint64_t *)value);
        break;
    case PROTOBUF_C_TYPE_BOOL:
        pk_out_puts(out, *(const protobuf_c_boolean *)value ? "true" : "false");
        break;
    case PROTOBUF_C_TYPE_MESSAGE:
        dump_message(out, *(const ProtobufCMessage *const *)value);
        break;
    default:
        pk_out_puts(out, "?");
        break;
    }
}

static size_t field_size(const ProtobufCFieldDescriptor *fd)
{
    switch (fd->type) {
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_UINT64: return sizeof(uint64_t);
    case PROTOBUF_C_TYPE_BOOL: return sizeof(protobuf_c_boolean);
    case PROTOBUF_C_TYPE_MESSAGE: return sizeof(void *);
    default: return 0;
    }
}

/* Every field that is set, as name: value, in protobuf's text style. */
static void dump_message(pk_output *out, const ProtobufCMessage *m)
{
    const ProtobufCMessageDescriptor *d = m->descriptor;
    pk_out_putc(out, '{');
    bool first = true;
    for (unsigned i = 0; i < d->n_fields; i++) {
        const ProtobufCFieldDescriptor *fd = &d->fields[i];
        const uint8_t *base = (const uint8_t *)m;
        size_t size = field_size(fd);
        if (fd->label == PROTOBUF_C_LABEL_REPEATED) {
            size_t n = *(const size_t *)(base + fd->quantifier_offset);
            if (n == 0 || size == 0)
                continue;
            const uint8_t *items = *(const uint8_t *const *)(base + fd->offset);
            pk_out_printf(out, "%s%s: [", first ? "" : " ", fd->name);
            for (size_t k = 0; k < n; k++) {
                if (k)
                    pk_out_puts(out, ", ");
                dump_value(out, fd, items + k * size);
            }
            pk_out_putc(out, ']');
        } else {
            const void *value = base + fd->offset;
            bool zero = true;
            for (size_t k = 0; k < size; k++)
                zero = zero && ((const uint8_t *)value)[k] == 0;
            if (zero || size == 0)
                continue;
            pk_out_printf(out, "%s%s: ", first ? "" : " ", fd->name);
            dump_value(out, fd, value);
        }
        first = false;
    }
    pk_out_putc(out, '}');
}

static const ProtobufCMessageDescriptor *field_descriptor(unsigned field)
{
    switch (field) {
    case PROFILE_SAMPLE_TYPE:
    case PROFILE_PERIOD_TYPE: return &perftools__profiles__value_type__descriptor;
    case PROFILE_SAMPLE: return &perftools__profiles__sample__descriptor;
    case PROFILE_MAPPING: return &perftools__profiles__mapping__descriptor;
    case PROFILE_LOCATION: return &perftools__profiles__location__descriptor;
    case PROFILE_FUNCTION: return &perftools__profiles__function__descriptor;
    default: return NULL;
    }
}

/* One line per Profile field: its offset (in the inflated data for gzip), name and content.
 * String indexes are shown as numbers; the string table lists the strings with their
 * indexes. raw changes nothing: the file has no other encoding to undo. */
static pk_status pprof_dump(pk_input *in, pk_output *out, bool raw, const pk_read_options *options,
                            pk_error *err)
{
    (void)raw;
    (void)options;
    source s;
    pk_status st = source_open(&s, in, err);
    if (st != PK_OK)
        return st;
    arena a = {0};
    ProtobufCAllocator allocator = {arena_alloc, arena_free_nothing, &a};
    uint8_t *scratch = NULL;
    size_t scratch_capacity = 0;
    uint64_t string_index = 0;
    if (s.gzip)
        pk_out_puts(out, "# gzip-compressed; offsets count inflated bytes\n");
    for (;;) {
        uint64_t at = source_offset(&s);
        uint64_t tag;
        int got = source_varint(&s, &tag);
        if (got == 0)
            break;
        if (got < 0 || (tag >> 3) == 0) {
            st = pk_error_set(err, PK_ERR_INPUT, (int64_t)at, "malformed field tag");
            break;
        }
        unsigned field = tag >> 3 > UINT32_MAX ? 0 : (unsigned)(tag >> 3);
        int wire = (int)(tag & 7);
        const char *name = field_name(field);
        pk_out_printf(out, "%" PRIu64 ": ", at);
        if (field > PROFILE_FIELD_MAX)
            pk_out_printf(out, "field %u ", field);
        else
            pk_out_printf(out, "%s ", name);
        if (wire == WIRE_VARINT) {
            uint64_t v;
            if (source_varint(&s, &v) <= 0) {
                st = pk_error_set(err, PK_ERR_INPUT, (int64_t)at, "truncated varint");
                break;
            }
            pk_out_printf(out, "%" PRId64 "\n", (int64_t)v);
            continue;
        }
        if (wire == WIRE_FIXED64 || wire == WIRE_FIXED32) {
            size_t n = wire == WIRE_FIXED64 ? 8 : 4;
            if (source_skip(&s, n) < n) {
                st = pk_error_set(err, PK_ERR_INPUT, (int64_t)at, "truncated fixed-size value");
                break;
            }
            pk_out_printf(out, "(%zu fixed bytes)\n", n);
            continue;
        }
        if (wire != WIRE_BYTES) {
            st = pk_error_set(err, PK_ERR_INPUT, (int64_t)at, "unknown wire type %d", wire);
            break;
        }
        uint64_t len;
        if (source_varint(&s, &len) <= 0 || len > MAX_MESSAGE_BYTES) {
            st = pk_error_set(err, PK_ERR_INPUT, (int64_t)at, "malformed length");
            break;
        }
        const uint8_t *data;
        bool nomem;
        size_t have = source_bytes(&s, (size_t)len, &data, &scratch, &scratch_capacity, &nomem);
        if (nomem) {
            st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
            break;
        }
        if (have < len) {
            st = pk_error_set(err, PK_ERR_INPUT, (int64_t)at,
                              "%s claims %" PRIu64 " bytes but only %zu remain", name, len, have);
            break;
        }
        if (field == PROFILE_STRING_TABLE) {
            char *text = strndup((const char *)data, have);
            if (!text) {
                st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
                break;
            }
            pk_out_printf(out, "[%" PRIu64 "] ", string_index++);
            pk_out_json_string(out, text);
            pk_out_putc(out, '\n');
            free(text);
            continue;
        }
        const ProtobufCMessageDescriptor *d = field <= PROFILE_FIELD_MAX
                                                  ? field_descriptor(field)
                                                  : NULL;
        if (!d) {
            pk_out_printf(out, "(%zu bytes)\n", have);
            continue;
        }
        ProtobufCMessage *m = protobuf_c_message_unpack(d, &allocator, have, data);
        if (!m) {
            st = pk_error_set(err, PK_ERR_INPUT, (int64_t)at, "malformed %s", name);
            break;
        }
        dump_message(out, m);
        pk_out_putc(out, '\n');
        arena_reset(&a);
    }
    if (s.failure != PK_OK)
        st = pk_error_set(err, s.failure, s.failure_offset, "%s", s.failure_message);
    source_close(&s);
    arena_release(&a);
    free(scratch);
    return st;
}

/* ---- registration ----------------------------------------------------------------------------- */

static const char *const pprof_extensions[] = {".pb.gz", ".pprof", ".pb", NULL};



const pk_format pk_format_pprof = {
    .name = "pprof",
    .aliases = NULL,
    .extensions = pprof_extensions,
    .description = "pprof profile.proto (gzip-compressed or plain), as go tool pprof reads",
    .flags = PK_FORMAT_GZIP_BY_DEFAULT,
    .probe = pprof_probe,
    .read = pprof_read,
    .write = pprof_write,
    .dump = pprof_dump,
    .read_options = NULL,
    .write_options = NULL,
};
