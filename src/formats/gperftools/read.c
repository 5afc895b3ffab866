/* SPDX-License-Identifier: MIT */
/* The gperftools reader. It streams the records into a table of distinct stacks of addresses
 * (callers' return addresses minus one, as pprof looks them up), summing identical stacks. The
 * mappings only come after the records, so the profile's frames are made once the whole file
 * is read: one frame per distinct address, named by the address and in its mapping for the
 * symbolization pass (profkit/symbolize.h), then each distinct stack goes to the model whole.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/distinct.h"
#include "core/hashmap.h"
#include "core/pages.h"
#include "core/path.h"
#include "core/procmaps.h"
#include "core/symbolize.h"
#include "core/text_lines.h"
#include "formats/gperftools/codec.h"
#include "formats/gperftools/gperftools.h"
#include "formats/gperftools/java_symbols.h"

/* ---- distinct records ---------------------------------------------------------------------- */

/* A distinct stack of addresses (callers' return addresses minus one, as pprof looks them up),
 * root first, as indexes into the reader's addresses: identical records are summed here, and a
 * record costs a hash of its addresses; only a new one looks each address up. */
typedef struct gp_stack {
    uint64_t hash;
    uint64_t count; /* samples of the records with this stack */
    uint32_t first; /* address indexes: pool[first, first + depth) */
    uint32_t depth;
} gp_stack;

/* One multiply and a shift per address: for a given hash so far, distinct addresses give
 * distinct hashes (every step is invertible). */
static inline uint64_t gp_hash_step(uint64_t h, uint64_t address)
{
    h = (h ^ address) * 0x9e3779b97f4a7c15ULL;
    return h ^ (h >> 29);
}

typedef struct gp_stack_slot {
    uint32_t stack; /* stack + 1; 0 = empty */
    uint32_t hash;  /* high bits of the stack's hash: most mismatches end here */
} gp_stack_slot;

typedef struct gp_address_slot {
    uint64_t address;
    uint32_t id; /* index + 1; 0 = empty */
} gp_address_slot;

/* ---- the reader ------------------------------------------------------------------------------ */

typedef struct gp_reader {
    pk_profile *p;
    gp_header header;

    gp_address_slot *address_slots; /* address -> index + 1 */
    size_t address_mask;
    uint64_t *addresses;
    size_t address_count, address_cap;
    gp_stack *stacks;           /* distinct stacks, in order of first appearance */
    size_t stack_count, stack_cap;
    gp_stack_slot *stack_slots; /* open addressing by hash */
    size_t stack_mask;
    uint32_t *pool;             /* address indexes of the stacks */
    size_t pool_count, pool_cap;

    uint64_t *record;           /* the record being added: its addresses, root first */
    size_t record_cap;
    uint64_t *record_hashes;    /* and their hashes in the address table */
    size_t record_hashes_cap;

    uint64_t zero_count_records;
    uint64_t total_count; /* of all records read: bounds every stack's count */
    pk_procmaps maps;
    /* A Java profile's symbol text: the frame of each address it names (PK_NONE for none),
     * and functions by name, as pprof makes one function per name. */
    uint32_t *java_frames;
    pk_u64map java_functions;
    uint64_t java_symbols;
} gp_reader;

static void gp_reader_free_scratch(gp_reader *r)
{
    free(r->record);
    r->record = NULL;
    free(r->record_hashes);
    r->record_hashes = NULL;
}

static void gp_reader_free(gp_reader *r)
{
    free(r->address_slots);
    free(r->addresses);
    free(r->stacks);
    free(r->stack_slots);
    free(r->pool);
    gp_reader_free_scratch(r);
    pk_procmaps_free(&r->maps);
    free(r->java_frames);
    pk_u64map_free(&r->java_functions);
}

/* Makes room in the address table for `more` new addresses without growing in between. */
static bool gp_address_reserve(gp_reader *r, size_t more)
{
    size_t size = r->address_slots ? r->address_mask + 1 : 0;
    if (size && (r->address_count + more) * 10 <= size * 6)
        return true;
    if (!size)
        size = 1u << 12;
    while ((r->address_count + more) * 10 > size * 6) {
        if (size > SIZE_MAX / 2 / sizeof(gp_address_slot))
            return false;
        size *= 2;
    }
    gp_address_slot *slots = calloc(size, sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; r->address_slots && i <= r->address_mask; i++) {
        if (!r->address_slots[i].id)
            continue;
        size_t h = (size_t)pk_hash_u64(r->address_slots[i].address) & (size - 1);
        while (slots[h].id)
            h = (h + 1) & (size - 1);
        slots[h] = r->address_slots[i];
    }
    free(r->address_slots);
    r->address_slots = slots;
    r->address_mask = size - 1;
    return true;
}

/* The index of an address (whose pk_hash_u64 is hash) in r->addresses, added when new; PK_NONE
 * when memory runs out. The table has room for it (gp_address_reserve) and keeps address and
 * index side by side: one cache line per probe. */
static uint32_t gp_address_id(gp_reader *r, uint64_t address, uint64_t hash)
{
    size_t h = (size_t)hash & r->address_mask;
    for (; r->address_slots[h].id; h = (h + 1) & r->address_mask)
        if (r->address_slots[h].address == address)
            return r->address_slots[h].id - 1;
    if (r->address_count >= UINT32_MAX - 1 ||
        !PK_ARRAY_RESERVE(r->addresses, r->address_cap, r->address_count + 1))
        return PK_NONE;
    uint32_t id = (uint32_t)r->address_count++;
    r->addresses[id] = address;
    r->address_slots[h] = (gp_address_slot){address, id + 1};
    return id;
}

/* The index of a known address, PK_NONE when no record has it. */
static uint32_t gp_address_find(const gp_reader *r, uint64_t address)
{
    if (!r->address_slots)
        return PK_NONE;
    size_t h = (size_t)pk_hash_u64(address) & r->address_mask;
    for (; r->address_slots[h].id; h = (h + 1) & r->address_mask)
        if (r->address_slots[h].address == address)
            return r->address_slots[h].id - 1;
    return PK_NONE;
}

static bool gp_grow_stack_slots(gp_reader *r)
{
    size_t size = r->stack_slots ? (r->stack_mask + 1) * 2 : 1u << 12;
    gp_stack_slot *slots = calloc(size, sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; i < r->stack_count; i++) {
        uint64_t hash = r->stacks[i].hash;
        size_t h = (size_t)hash & (size - 1);
        while (slots[h].stack)
            h = (h + 1) & (size - 1);
        slots[h] = (gp_stack_slot){(uint32_t)i + 1, (uint32_t)(hash >> 32)};
    }
    free(r->stack_slots);
    r->stack_slots = slots;
    r->stack_mask = size - 1;
    return true;
}

static bool gp_same_stack(const gp_reader *r, const gp_stack *s, const uint64_t *record,
                          size_t depth)
{
    if (s->depth != depth)
        return false;
    const uint32_t *ids = r->pool + s->first;
    for (size_t k = 0; k < depth; k++)
        if (r->addresses[ids[k]] != record[k])
            return false;
    return true;
}

static uint64_t gp_saturating_mul(uint64_t a, uint64_t b)
{
    uint64_t v;
    return __builtin_mul_overflow(a, b, &v) ? UINT64_MAX : v;
}

/* Adds count to the total of all records; false when the total, or its cpu time (count x
 * period in ns), no longer fits an int64: every sum of the profile's values would be wrong. */
static bool gp_count_fits(gp_reader *r, uint64_t count)
{
    uint64_t period_ns = gp_saturating_mul(gp_header_period_us(&r->header), 1000), cpu;
    if (__builtin_add_overflow(r->total_count, count, &r->total_count) ||
        r->total_count > (uint64_t)INT64_MAX ||
        __builtin_mul_overflow(r->total_count, period_ns, &cpu) || cpu > (uint64_t)INT64_MAX)
        return false;
    return true;
}

/* Adds one record (pcs[0..depth), leaf first) with its count. */
static bool gp_add_record(gp_reader *r, uint64_t count, const uint64_t *pcs, size_t depth)
{
    if (!PK_ARRAY_RESERVE(r->record, r->record_cap, depth + 1) ||
        !PK_ARRAY_RESERVE(r->record_hashes, r->record_hashes_cap, depth + 1))
        return false;
    /* Root first; callers are looked up one byte into their call. */
    bool adjust = gp_header_version(&r->header) == 0;
    uint64_t hash = depth;
    for (size_t k = 0; k < depth; k++) {
        uint64_t pc = pcs[depth - 1 - k];
        r->record[k] = adjust && k + 1 < depth ? pc - 1 : pc;
        hash = gp_hash_step(hash, r->record[k]);
    }
    if ((!r->stack_slots || (r->stack_count + 1) * 2 > r->stack_mask + 1) &&
        !gp_grow_stack_slots(r))
        return false;
    size_t h = (size_t)hash & r->stack_mask;
    /* The stack's slot and the slots of its addresses (needed when the stack is new) are
     * scattered over tables larger than the caches: ask for them all before reading any, so
     * that the misses overlap instead of coming one after another. */
    __builtin_prefetch(&r->stack_slots[h]);
    if (!gp_address_reserve(r, depth))
        return false;
    for (size_t k = 0; k < depth; k++) {
        r->record_hashes[k] = pk_hash_u64(r->record[k]);
        __builtin_prefetch(&r->address_slots[(size_t)r->record_hashes[k] & r->address_mask]);
    }
    for (; r->stack_slots[h].stack; h = (h + 1) & r->stack_mask) {
        if (r->stack_slots[h].hash != (uint32_t)(hash >> 32))
            continue;
        gp_stack *s = &r->stacks[r->stack_slots[h].stack - 1];
        if (s->hash == hash && gp_same_stack(r, s, r->record, depth)) {
            s->count += count; /* bounded by the total (gp_count_fits) */
            return true;
        }
    }
    if (r->stack_count >= UINT32_MAX - 1 || depth > UINT32_MAX - r->pool_count ||
        !PK_ARRAY_RESERVE(r->stacks, r->stack_cap, r->stack_count + 1) ||
        !PK_ARRAY_RESERVE(r->pool, r->pool_cap, r->pool_count + depth))
        return false;
    for (size_t k = 0; k < depth; k++) {
        uint32_t id = gp_address_id(r, r->record[k], r->record_hashes[k]);
        if (id == PK_NONE)
            return false;
        r->pool[r->pool_count + k] = id;
    }
    r->stacks[r->stack_count] = (gp_stack){hash, count, (uint32_t)r->pool_count, (uint32_t)depth};
    r->pool_count += depth;
    r->stack_slots[h] = (gp_stack_slot){(uint32_t)++r->stack_count, (uint32_t)(hash >> 32)};
    return true;
}

static pk_status gp_nomem(pk_error *err)
{
    return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
}

/* Longest line of a Java profile's symbol text read; longer ones are skipped. */
#define GP_JAVA_MAX_LINE ((size_t)1 << 20)

/* The frame a Java symbol line gives its address: function by name (the first file named
 * wins, as in pprof), line, and no address (pprof drops them so that frames merge). */
static uint32_t gp_java_frame(gp_reader *r, const gp_java_symbol *sym)
{
    pk_profile *p = r->p;
    uint32_t name = pk_intern(p, sym->function, sym->function_len);
    if (name == PK_NONE)
        return PK_NONE;
    uint32_t function;
    uint32_t *known = pk_u64map_find(&r->java_functions, name);
    if (known) {
        function = *known;
    } else {
        uint32_t file = pk_intern(p, sym->file, sym->file_len);
        pk_function fn = {.name = name, .file = file, .resource = PK_NONE};
        function = file == PK_NONE ? PK_NONE : pk_intern_function(p, &fn);
        uint32_t *slot;
        bool inserted;
        if (function == PK_NONE ||
            !pk_u64map_put(&r->java_functions, name, function, &slot, &inserted))
            return PK_NONE;
    }
    pk_frame frame = {function, sym->line, 0, PK_NONE, 0};
    return pk_intern_frame(p, &frame);
}

/* Reads the symbol text after a Java profile's trailer (java_symbols.h): lines naming an
 * address that no record has are skipped, as pprof skips them. */
static pk_status gp_read_java_symbols(gp_reader *r, pk_input *in, pk_error *err)
{
    pk_text_lines lines;
    pk_text_lines_init(&lines, in, GP_JAVA_MAX_LINE);
    pk_status status = PK_OK;
    for (;;) {
        const char *text;
        size_t len;
        pk_text_line_result got = pk_text_lines_next(&lines, &text, &len);
        if (got == PK_TEXT_END)
            break;
        if (got == PK_TEXT_NOMEM) {
            status = gp_nomem(err);
            break;
        }
        gp_java_symbol sym;
        if (got == PK_TEXT_TOO_LONG || !gp_java_symbol_parse(text, len, &sym))
            continue;
        uint32_t id = gp_address_find(r, sym.address);
        if (id == PK_NONE)
            continue;
        if (!r->java_frames) {
            r->java_frames = malloc((r->address_count ? r->address_count : 1) *
                                    sizeof *r->java_frames);
            if (!r->java_frames) {
                status = gp_nomem(err);
                break;
            }
            for (size_t i = 0; i < r->address_count; i++)
                r->java_frames[i] = PK_NONE;
        }
        uint32_t frame = gp_java_frame(r, &sym);
        if (frame == PK_NONE) {
            status = gp_nomem(err);
            break;
        }
        r->java_frames[id] = frame;
        r->java_symbols++;
    }
    pk_text_lines_free(&lines);
    return status;
}

/* Reads the records and, after the trailer, the maps text. A file that ends without the
 * trailer or inside the last record is read up to its last whole record with a warning, as
 * both pprofs read it; damage stops the reading (err says where). */
static pk_status gp_read_body(gp_reader *r, pk_input *in, pk_error *err)
{
    gp_records records;
    gp_records_init(&records, in, r->header.layout);
    pk_status status = PK_OK;
    for (;;) {
        gp_record rec;
        gp_step step = gp_next_record(&records, &rec, err);
        if (step == GP_STEP_RECORD) {
            if (rec.count == 0) {
                r->zero_count_records++;
            } else if (!gp_count_fits(r, rec.count)) {
                status = pk_error_set(err, PK_ERR_LIMIT, (int64_t)rec.offset,
                                      "the sample counts add up to more than a 64-bit total "
                                      "holds (as samples, or as cpu time: count x period)");
                break;
            } else if (!gp_add_record(r, rec.count, rec.pcs, rec.present)) {
                status = pk_error_set(err, PK_ERR_NOMEM, (int64_t)rec.offset, "out of memory");
                break;
            }
            continue;
        }
        if (step == GP_STEP_TRAILER) {
            gp_records_free(&records);
            gp_reader_free_scratch(r);
            /* A Java profile has symbol text where a native one has its mappings. */
            if (gp_header_version(&r->header) == 1)
                return gp_read_java_symbols(r, in, err);
            return pk_procmaps_read(&r->maps, in, err);
        }
        if (step == GP_STEP_END)
            pk_warn(r->p, "no trailer: the records end at byte %" PRIu64
                          " without the 0, 1, 0 trailer (no mappings follow)", rec.offset);
        else if (step == GP_STEP_CUT && rec.head_bytes)
            pk_warn(r->p, "last record truncated at byte %" PRIu64 " (%zu bytes of its count and "
                          "depth present); the complete records were kept", rec.offset,
                    rec.head_bytes);
        else if (step == GP_STEP_CUT)
            pk_warn(r->p, "last record truncated at byte %" PRIu64 " (%zu of %" PRIu64
                          " PCs present); the complete records were kept",
                    rec.offset, rec.present, rec.depth);
        else
            status = err->status;
        break;
    }
    gp_records_free(&records);
    gp_reader_free_scratch(r);
    return status;
}


static int64_t gp_clamp(uint64_t v)
{
    return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

/* Value types, metadata, properties and warnings. */
static pk_status gp_build_metadata(gp_reader *r, const char *program_name, pk_error *err)
{
    pk_profile *p = r->p;
    if (pk_add_value_type(p, "samples", "count") == PK_NONE ||
        pk_add_value_type(p, "cpu", "nanoseconds") == PK_NONE)
        return gp_nomem(err);
    pk_set_default_value(p, 0);
    uint64_t period_us = gp_header_period_us(&r->header), version = gp_header_version(&r->header);
    pk_metadata *meta = pk_metadata_of(p);
    meta->period = gp_clamp(gp_saturating_mul(period_us, 1000));
    meta->period_type = pk_intern_cstr(p, "cpu");
    meta->period_unit = pk_intern_cstr(p, "nanoseconds");
    if (*program_name)
        meta->product = pk_intern_cstr(p, program_name);
    char text[32];
    snprintf(text, sizeof text, "%u", r->header.layout.word * 8);
    pk_status status = pk_property_set(p, "gperftools.word_bits", text);
    if (status == PK_OK)
        status = pk_property_set(p, "gperftools.byte_order",
                                 r->header.layout.big ? "big" : "little");
    snprintf(text, sizeof text, "%" PRIu64, version);
    if (status == PK_OK)
        status = pk_property_set(p, "gperftools.version", text);
    if (status != PK_OK)
        return gp_nomem(err);
    if (period_us == 0)
        pk_warn(p, "the sampling period is 0: cpu times are 0");
    if (version == 1)
        pk_warn(p, "header version 1 (a Java profile): PCs are taken as they are, %" PRIu64
                   " of %zu named by the symbol text after the records",
                r->java_symbols, r->address_count);
    if (r->zero_count_records)
        pk_warn(p, "%" PRIu64 " record%s with a sample count of 0 ignored", r->zero_count_records,
                r->zero_count_records == 1 ? "" : "s");
    return PK_OK;
}

/* Turns the tree into the profile: resources, thread, frames (left for the symbolization
 * pass), stacks and samples. */
static pk_status gp_build(gp_reader *r, pk_error *err)
{
    pk_profile *p = r->p;
    const pk_procmap *program = pk_procmaps_program(&r->maps);
    const char *program_name = program ? pk_path_basename(program->path) : "";
    pk_status status = gp_build_metadata(r, program_name, err);
    if (status != PK_OK)
        return status;

    uint32_t *resources = malloc((r->maps.count + 1) * sizeof *resources);
    if (!resources)
        return gp_nomem(err);
    for (size_t i = 0; i < r->maps.count; i++) {
        const pk_procmap *m = &r->maps.items[i];
        pk_resource res = {pk_intern_cstr(p, pk_path_basename(m->path)),
                           pk_intern_cstr(p, m->path),
                           m->build_id ? pk_intern_cstr(p, m->build_id) : 0,
                           m->start, m->limit, m->offset};
        resources[i] = pk_intern_resource(p, &res);
        if (res.name == PK_NONE || resources[i] == PK_NONE) {
            free(resources);
            return gp_nomem(err);
        }
    }
    uint32_t thread = pk_add_thread(p, pk_intern_cstr(p, *program_name ? program_name : "process"),
                                    -1, -1);

    /* A frame for each distinct address, named by the address and in its mapping: the
     * symbolization pass (profkit/symbolize.h) names it from the binary. */
    uint32_t *frames = malloc((r->address_count + 1) * sizeof *frames);
    bool failed = !frames || thread == PK_NONE;
    for (size_t i = 0; i < r->address_count && !failed; i++) {
        uint64_t address = r->addresses[i];
        if (r->java_frames && r->java_frames[i] != PK_NONE) {
            frames[i] = r->java_frames[i];
            continue;
        }
        size_t m = pk_procmaps_find(&r->maps, address);
        uint32_t resource = m == PK_PROCMAPS_NONE ? PK_NONE : resources[m];
        pk_function fn = {.name = pk_address_name(p, address), .resource = resource};
        uint32_t function = fn.name == PK_NONE ? PK_NONE : pk_intern_function(p, &fn);
        pk_frame frame = {function, 0, address, resource, PK_FRAME_HAS_ADDRESS};
        frames[i] = function == PK_NONE ? PK_NONE : pk_intern_frame(p, &frame);
        failed = frames[i] == PK_NONE;
    }
    free(resources);
    /* The lookup tables are not needed any more; free them before the model grows. */
    free(r->stack_slots);
    r->stack_slots = NULL;
    free(r->address_slots);
    r->address_slots = NULL;

    /* Each distinct stack, its addresses turned into their frames in place. The model copies
     * them: the part of the reader's tables passed is given back, so that the two are not both
     * whole at the end. */
    uint64_t period_ns = gp_saturating_mul(gp_header_period_us(&r->header), 1000);
    /* Distinct stacks of addresses are distinct stacks of frames when each address has a frame
     * of its own (a Java profile's symbols may give addresses one frame) and the profile had no
     * stacks: the model then takes them, and their rows of the new thread, without looking
     * them up. */
    bool distinct = !r->java_frames && pk_stack_count(p) == 0;
    /* Then the pool of addresses, turned into frames in place, becomes the model's pool of
     * frames: no copy of the frames, and no pages of a second pool to fault in. */
    uint32_t *pool = r->pool;
    bool taken = distinct && !failed && pk_take_stack_pool(p, pool, r->pool_count, r->pool_cap);
    if (taken) {
        r->pool = NULL;
        r->pool_count = r->pool_cap = 0;
    }
    char *released_stacks = (char *)r->stacks, *released_pool = (char *)pool;
    for (size_t i = 0; i < r->stack_count && !failed; i++) {
        const gp_stack *s = &r->stacks[i];
        uint32_t *ids = pool + s->first;
        pk_release_passed(&released_stacks, s);
        if (!taken)
            pk_release_passed(&released_pool, ids);
        for (size_t k = 0; k < s->depth; k++)
            ids[k] = frames[ids[k]];
        uint32_t stack = taken      ? pk_add_distinct_run(p, s->first, s->depth)
                         : distinct ? pk_add_distinct_stack(p, ids, s->depth)
                                    : pk_intern_stack_frames(p, PK_NONE, ids, s->depth);
        int64_t values[2] = {gp_clamp(s->count), gp_clamp(gp_saturating_mul(s->count, period_ns))};
        failed = (stack == PK_NONE && s->depth > 0) ||
                 (distinct ? pk_add_distinct_sample(p, thread, stack, values)
                           : pk_add_sample(p, thread, stack, values)) != PK_OK;
    }
    free(frames);
    if (failed)
        return gp_nomem(err);
    return PK_OK;
}

pk_status gp_read(pk_input *in, pk_profile *p, const pk_read_options *options, pk_error *err)
{
    (void)options;
    gp_reader r;
    memset(&r, 0, sizeof r);
    r.p = p;
    pk_procmaps_init(&r.maps);
    pk_u64map_init(&r.java_functions);
    pk_status status = gp_decode_header(in, &r.header, err);
    if (status == PK_OK)
        status = gp_skip_header_extra(in, &r.header, err);
    if (status == PK_OK)
        status = gp_read_body(&r, in, err);
    /* Damage leaves the records before it, which make a profile of their own. */
    bool damaged = status == PK_ERR_INPUT && err->salvageable;
    if (status == PK_OK || damaged) {
        pk_error build_err;
        pk_status built = gp_build(&r, &build_err);
        if (built != PK_OK) {
            *err = build_err;
            status = built;
        }
    }
    gp_reader_free(&r);
    return status;
}
