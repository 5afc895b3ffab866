/* SPDX-License-Identifier: MIT */
/* Reading .bsprof into the model.
 *
 * Model mapping:
 *   module            -> a thread (pid 0, tid = module ID), named by its string
 *   path element      -> a function (name, file, start line; no resource, because one script
 *                        file runs in several modules) and a stack: the callers' frames, each
 *                        at its call-site line when line data is on, then its own line-less frame
 *   CPU, memory entry -> with a line offset, the path element's stack with a leaf frame at
 *                        line = path line + offset - 1; without one, the path element's stack
 *   call count        -> the path element's stack
 * Values: cpu (operations), wall (raw units: the file never says which), calls, then memory in
 * the vocabulary of core/memory_values.h: alloc_space and alloc_objects (summed per stack from
 * the memory operations), inuse_space and inuse_objects (the allocations never freed).
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

#include "core/array.h"
#include "core/hashmap.h"
#include "core/memory_values.h"
#include "core/process_names.h"
#include "formats/bsprof/bsprof.h"
#include "formats/formats.h"

/* The memory values in the vocabulary of core/memory_values.h, after the three the file has
 * always given (this order keeps their positions since before memory values had one name). */
enum bs_value { BS_V_CPU, BS_V_WALL, BS_V_CALLS, BS_V_ALLOC_SPACE, BS_V_ALLOC_OBJECTS,
                BS_V_INUSE_SPACE, BS_V_INUSE_OBJECTS, BS_VALUE_COUNT };
static const char *const bs_value_names[BS_VALUE_COUNT][2] = {
    {"cpu", "operations"}, {"wall", "wall-units"}, {"calls", "count"},
    {PK_MEMORY_ALLOC_SPACE, PK_MEMORY_SPACE_UNIT}, {PK_MEMORY_ALLOC_OBJECTS, PK_MEMORY_OBJECTS_UNIT},
    {PK_MEMORY_INUSE_SPACE, PK_MEMORY_SPACE_UNIT}, {PK_MEMORY_INUSE_OBJECTS, PK_MEMORY_OBJECTS_UNIT}};

static int64_t bs_ms_to_ns(uint64_t ms)
{
    if (ms == 0 || ms > (uint64_t)(INT64_MAX / 1000000))
        return PK_TIME_UNKNOWN;
    return (int64_t)ms * 1000000;
}

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
    uint64_t cpu, wall, calls, alloc_bytes, allocs; /* cpu, wall, calls: folded from the cell */
} bs_acc;

/* The running CPU, wall and call sums of one (path element, line offset), where CPU and
 * call-count entries, most of a file, add up: three additions to memory, no test. A sum of
 * 32-bit increments cannot leave 64 bits before 2^32 increments; the reader moves the cells'
 * sums into the accumulators' totals (adding with saturation) before it has read that many
 * entries (BS_FOLD_BYTES). acc is the accumulator's index + 1, 0 in a cell not used yet. */
typedef struct bs_cell {
    uint64_t cpu, wall, calls;
    uint32_t acc;
} bs_cell;

/* An entry takes at least two bytes, so no cell takes 2^32 increments in this many bytes. */
#define BS_FOLD_BYTES (UINT64_C(1) << 33)

/* Path element IDs are small integers in real files, and line offsets are lines into one
 * function: the cells of a path element ID are an array indexed by line offset, found without
 * hashing. Both arrays only grow as far as the file's definitions and keys justify (see
 * bs_direct_reach and bs_cells_reach); the keys beyond them live in a hash table. A key is in
 * exactly one place: in the cells when its ID is below direct_len and its offset below the
 * ID's cell count, else in the table. */
typedef struct bs_direct {
    bs_cell *cells;
    uint32_t len;  /* cells: line offsets 0 to len - 1 */
    uint32_t keys; /* accumulators of the ID, wherever they are */
} bs_direct;

/* A path element ID gets direct cells while it is below this many IDs per path element
 * defined, plus BS_DIRECT_MIN_IDS: the array is bounded by the definitions in the file. */
#define BS_DIRECT_IDS_PER_PATH 4
#define BS_DIRECT_MIN_IDS 1024
/* Cell arrays of up to BS_MIN_CELLS cells are made at first use; a larger one only when the ID
 * has a quarter as many keys as cells, so that the cells grow with the keys, not with one large
 * line offset in the file. */
#define BS_MIN_CELLS 16
#define BS_CELLS_PER_KEY 4
#define BS_MAX_CELLS (1u << 16)

/* The hash table for the keys beyond the direct cells, keyed by path element ID << 32 | line
 * offset. Key 0 marks an empty slot and key 1 a retired one (its path element ID was defined
 * again, or its key moved into direct cells): no real key has path element ID 0. */
#define BS_SLOT_EMPTY 0
#define BS_SLOT_RETIRED 1

typedef struct bs_slot {
    uint64_t key;
    bs_cell cell;
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
    bs_direct *direct;             /* by path element ID, see bs_direct */
    uint32_t direct_len;
    size_t cell_bytes;             /* of every ID's cells */
    bs_slot *slots;                /* keys beyond the direct cells, see bs_slot */
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
    bool wide;                     /* the wide decoder runs: it works on this processor and
                                      the byte-wise loop is not forced */
    bool batched;                  /* pk_bsprof_force_batched was on when the read began */
    uint64_t folded_at;            /* input offset of the last bs_cells_fold */
    uint64_t memory_ops;
} bs_reader;

static void bs_reader_free(bs_reader *r)
{
    pk_u64map_free(&r->strings);
    pk_u64map_free(&r->string_placeholders);
    pk_u64map_free(&r->modules);
    pk_u64map_free(&r->paths);
    for (uint32_t id = 0; id < r->direct_len; id++)
        free(r->direct[id].cells);
    free(r->direct);
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
    if (t == PK_NONE || !PK_ARRAY_RESERVE(r->mods, r->mod_cap, r->mod_count + 1))
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

static uint64_t bs_add_saturating(uint64_t a, uint64_t b)
{
    return a + b < a ? UINT64_MAX : a + b;
}

/* Moves a cell's sums into its accumulator's totals. */
static void bs_cell_fold(bs_reader *r, bs_cell *cell)
{
    bs_acc *acc = &r->acc_recs[cell->acc - 1];
    acc->cpu = bs_add_saturating(acc->cpu, cell->cpu);
    acc->wall = bs_add_saturating(acc->wall, cell->wall);
    acc->calls = bs_add_saturating(acc->calls, cell->calls);
    cell->cpu = cell->wall = cell->calls = 0;
}

/* The direct cell of a key, NULL when the key lives in the hash table. */
static bs_cell *bs_direct_cell(const bs_reader *r, uint32_t id, uint32_t offset)
{
    if (id < r->direct_len && offset < r->direct[id].len)
        return &r->direct[id].cells[offset];
    return NULL;
}

/* Retires the key of an accumulator whose path element ID was defined again: its sums stay with
 * its stack, and the next entry of the ID starts a new accumulator. */
static void bs_key_retire(bs_reader *r, uint64_t key)
{
    bs_cell *cell = bs_direct_cell(r, (uint32_t)(key >> 32), (uint32_t)key);
    if (cell) {
        if (cell->acc) {
            bs_cell_fold(r, cell);
            cell->acc = 0;
        }
        return;
    }
    bs_slot *slot = bs_slot_find(r, key);
    if (slot) {
        bs_cell_fold(r, &slot->cell);
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

/* Extends the direct array over a path element ID being defined, when the definitions so far
 * justify it. Returns false when memory runs out. */
static bool bs_direct_reach(bs_reader *r, uint32_t id)
{
    if (id < r->direct_len)
        return true;
    uint64_t limit = (uint64_t)BS_DIRECT_IDS_PER_PATH * r->path_count + BS_DIRECT_MIN_IDS;
    uint64_t len = r->direct_len ? r->direct_len : 64;
    while (len <= id)
        len *= 2;
    if (len > limit)
        return true;
    bs_direct *direct = realloc(r->direct, (size_t)len * sizeof *direct);
    if (!direct)
        return false;
    memset(direct + r->direct_len, 0, (size_t)(len - r->direct_len) * sizeof *direct);
    r->direct = direct;
    r->direct_len = (uint32_t)len;
    return true;
}

/* Extends the cells of a path element ID (below direct_len) over a line offset when the ID's
 * keys justify it, moving the ID's keys that the new cells cover out of the hash table. Returns
 * false when memory runs out. */
static bool bs_cells_reach(bs_reader *r, uint32_t id, uint32_t offset)
{
    bs_direct *d = &r->direct[id];
    if (offset < d->len || offset >= BS_MAX_CELLS)
        return true;
    size_t len = BS_MIN_CELLS;
    while (len <= offset)
        len *= 2;
    if (len > BS_MIN_CELLS && len > (size_t)BS_CELLS_PER_KEY * d->keys)
        return true;
    bs_cell *cells = calloc(len, sizeof *cells);
    if (!cells)
        return false;
    if (d->len)
        memcpy(cells, d->cells, d->len * sizeof *cells);
    uint32_t *index = pk_u64map_find(&r->paths, id);
    for (uint32_t a = index ? r->path_recs[*index].first_acc : UINT32_MAX; a != UINT32_MAX;
         a = r->acc_recs[a].next_of_path) {
        uint32_t o = (uint32_t)r->acc_recs[a].key;
        bs_slot *slot;
        if (o >= d->len && o < len && (slot = bs_slot_find(r, r->acc_recs[a].key))) {
            cells[o] = slot->cell;
            slot->key = BS_SLOT_RETIRED;
        }
    }
    r->cell_bytes += (len - d->len) * sizeof *cells;
    free(d->cells);
    d->cells = cells;
    d->len = (uint32_t)len;
    return true;
}

/* Appends a path element record and points its ID at it, dropping the accumulators of an
 * earlier record with the same ID (their sums stay with their stacks). */
static bool bs_path_store(bs_reader *r, uint32_t id, const bs_path *rec, bool *redefined)
{
    if (!PK_ARRAY_RESERVE(r->path_recs, r->path_cap, r->path_count + 1))
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
            bs_key_retire(r, r->acc_recs[a].key);
        old->first_acc = UINT32_MAX;
        if (id < r->direct_len)
            r->direct[id].keys = 0;
        *slot = index;
    }
    r->path_recs[index] = *rec;
    r->path_count++;
    return bs_direct_reach(r, id);
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

/* Creates the accumulator of (path element, line offset) and its sample row. Returns its
 * index + 1 (what a cell holds), 0 when memory runs out. */
static uint32_t bs_acc_create(bs_reader *r, uint32_t path_id, uint32_t offset)
{
    uint32_t index;
    if (bs_path_ref(r, path_id, &index) != PK_OK)
        return 0;
    bs_path *path = &r->path_recs[index];
    bs_acc acc = {.key = (uint64_t)path_id << 32 | offset, .thread = path->thread,
                  .stack = path->stack, .next_of_path = path->first_acc};
    uint32_t line = bs_offset_line(path->start_line, offset);
    if (line != 0 && bs_frame_stack(r, path->callers, path->function, line, &acc.stack) != PK_OK)
        return 0;
    if (r->acc_count >= UINT32_MAX - 1 ||
        !PK_ARRAY_RESERVE(r->acc_recs, r->acc_cap, r->acc_count + 1))
        return 0;
    /* The row exists from the first contribution, so stream order is kept for the writers. */
    if (pk_add_sample(r->p, acc.thread, acc.stack, NULL) != PK_OK)
        return 0;
    uint32_t a = (uint32_t)r->acc_count++;
    r->acc_recs[a] = acc;
    r->path_recs[index].first_acc = a;
    if (path_id < r->direct_len)
        r->direct[path_id].keys++;
    return a + 1;
}

/* The cell of a key that has no direct cell in use: a direct cell made or put to use, or the
 * key's slot in the hash table. NULL when memory runs out. */
static bs_cell *__attribute__((noinline))
bs_cell_slow(bs_reader *r, uint32_t path_id, uint32_t offset)
{
    if (path_id < r->direct_len && !bs_cells_reach(r, path_id, offset))
        return NULL;
    bs_cell *cell = bs_direct_cell(r, path_id, offset);
    if (cell) {
        if (!cell->acc) {
            /* Creating the accumulator may define a placeholder path element, which neither
             * moves nor empties this ID's cells. */
            uint32_t acc = bs_acc_create(r, path_id, offset);
            if (!acc)
                return NULL;
            cell = bs_direct_cell(r, path_id, offset);
            cell->acc = acc;
        }
        return cell;
    }
    uint64_t key = (uint64_t)path_id << 32 | offset;
    bs_slot *slot = bs_slot_find(r, key);
    if (slot)
        return &slot->cell;
    uint32_t acc = bs_acc_create(r, path_id, offset);
    if (!acc)
        return NULL;
    /* A placeholder path element defined on the way may have brought the key into the direct
     * cells' reach, with no cell yet: the key stays in the table all the same. */
    if ((r->slots_used + 1) * 2 > r->slot_mask + 1 && !bs_slots_rebuild(r))
        return NULL;
    size_t i = bs_slot_hash(key, r->slot_shift);
    while (r->slots[i].key != BS_SLOT_EMPTY)
        i = (i + 1) & r->slot_mask;
    r->slots[i] = (bs_slot){.key = key, .cell = {.acc = acc}};
    r->slots_used++;
    return &r->slots[i].cell;
}

static inline bs_cell *bs_cell_for(bs_reader *r, uint32_t path_id, uint32_t offset)
{
    if (__builtin_expect(path_id < r->direct_len, 1)) {
        const bs_direct *d = &r->direct[path_id];
        if (__builtin_expect(offset < d->len, 1) && __builtin_expect(d->cells[offset].acc != 0, 1))
            return &d->cells[offset];
    }
    return bs_cell_slow(r, path_id, offset);
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
        !PK_ARRAY_RESERVE(r->mods, r->mod_cap, r->mod_count + 1) ||
        !pk_u64map_put(&r->modules, e->id, (uint32_t)r->mod_count, &slot, &inserted))
        return bs_nomem(err);
    r->mods[r->mod_count++] = (bs_module){t, false};
    return PK_OK;
}

static pk_status bs_define_path(bs_reader *r, const bs_entry *e, pk_error *err)
{
    /* Every function a .bsprof names is BrightScript: the device's profiler records the
     * script's calls only (time in the firmware's native components is the calling function's
     * own), so all of it is script code (docs/formats/bsprof.md says why it is marked). */
    pk_function fn = {.start_line = e->line, .resource = PK_NONE, .flags = PK_FUNCTION_SCRIPT};
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
    bs_cell *cell = bs_cell_for(r, path_id, offset);
    if (!cell)
        return PK_ERR_NOMEM;
    bs_acc *acc = &r->acc_recs[cell->acc - 1];
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

static inline bool bs_cpu(bs_reader *r, uint32_t path_id, uint32_t offset, uint32_t cpu,
                          uint32_t wall)
{
    bs_cell *cell = bs_cell_for(r, path_id, offset);
    if (!cell)
        return false;
    cell->cpu += cpu;
    cell->wall += wall;
    return true;
}

static inline bool bs_calls(bs_reader *r, uint32_t path_id, uint32_t count)
{
    bs_cell *cell = bs_cell_for(r, path_id, 0);
    if (!cell)
        return false;
    cell->calls += count;
    return true;
}

static inline pk_status bs_apply(bs_reader *r, const bs_entry *e, pk_error *err)
{
    switch (e->type) {
    case BS_CPU:
        return bs_cpu(r, e->id, e->line_offset, e->cpu, e->wall) ? PK_OK : bs_nomem(err);
    case BS_CALLS:
        return bs_calls(r, e->id, e->count) ? PK_OK : bs_nomem(err);
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
 * varints, undefined memory operations; the codec's decoder then handles the entry and reports
 * any error. */
#define BS_FAST_ENTRY_BYTES 32

/* A tag of at most 6 bytes (a payload of up to 35 bits, 37 for memory operations); false for a
 * longer one, which the codec's decoder reports or reads. */
static inline bool bs_fast_tag(const uint8_t **pos, uint64_t *tag)
{
    const uint8_t *q = *pos;
    uint64_t v = q[0];
    if (__builtin_expect(v < 0x80, 0)) {
        *pos = q + 1;
        *tag = v;
        return true;
    }
    v &= 0x7f;
    for (unsigned i = 1; i < 6; i++) {
        uint64_t b = q[i];
        v |= (b & 0x7f) << (7 * i);
        if (b < 0x80) {
            *pos = q + i + 1;
            *tag = v;
            return true;
        }
    }
    return false;
}

/* Applies consecutive fast-path entries while a whole entry surely fits in the buffer. Stops
 * before the first entry it declines. Returns false when memory runs out. The line-data flag is
 * a constant in each of the two copies of this loop. */
static inline __attribute__((always_inline)) bool bs_fast_entries(bs_reader *r, pk_input *in,
                                                                  const bool line_data,
                                                                  size_t limit)
{
    const uint8_t *p = in->pos;
    const uint8_t *const last = in->end - BS_FAST_ENTRY_BYTES;
    bool ok = true;
    for (; p <= last && limit; limit--) {
        const uint8_t *q = p;
        uint64_t tag;
        if (!bs_fast_tag(&q, &tag))
            break;
        uint32_t id = (uint32_t)(tag >> 3), offset = 0, a, b;
        unsigned type = (unsigned)tag & 7;
        if (type == BS_CPU) {
            if (id == 0 || (tag >> 35) != 0 ||
                (line_data && !pk_varint_decode_u32_fast(&q, &offset)) ||
                !pk_varint_decode_u32_fast(&q, &a) || !pk_varint_decode_u32_fast(&q, &b))
                break;
            if (!(ok = bs_cpu(r, id, offset, a, b)))
                break;
        } else if (type == BS_CALLS) {
            if (id == 0 || (tag >> 35) != 0 || !pk_varint_decode_u32_fast(&q, &a))
                break;
            if (!(ok = bs_calls(r, id, a)))
                break;
        } else if (type == BS_MEMORY) {
            unsigned op = (unsigned)(tag >> 3) & 3;
            id = (uint32_t)(tag >> 5);
            b = 0;
            if (id == 0 || (tag >> 37) != 0 || op == 3 ||
                (line_data && !pk_varint_decode_u32_fast(&q, &offset)) ||
                !pk_varint_decode_u32_fast(&q, &a) ||
                (op == BS_OP_ALLOC && !pk_varint_decode_u32_fast(&q, &b)))
                break;
            if (!(ok = bs_memory_op(r, id, op, offset, a, b) == PK_OK))
                break;
        } else {
            break;
        }
        p = q;
    }
    in->pos = p;
    return ok;
}

static bool __attribute__((noinline)) bs_fast_run_lines(bs_reader *r, pk_input *in, size_t limit)
{
    return bs_fast_entries(r, in, true, limit);
}

static bool __attribute__((noinline)) bs_fast_run_no_lines(bs_reader *r, pk_input *in,
                                                           size_t limit)
{
    return bs_fast_entries(r, in, false, limit);
}

static bool bs_fast_run(bs_reader *r, pk_input *in, size_t limit)
{
    return r->line_data ? bs_fast_run_lines(r, in, limit) : bs_fast_run_no_lines(r, in, limit);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define BS_HAVE_WIDE 1
#include <immintrin.h>

/* The wide decoder for CPU and call-count entries, on x86-64 processors with a fast pext (BMI2).
 *
 * A byte-at-a-time decoder branches on every byte's continuation bit, and with field lengths
 * that vary at random (CPU and wall increments of one or two bytes) the processor mispredicts
 * about one branch per entry. Taking each varint's length from a load of the entry instead puts
 * a load on the chain from one entry to the next. This decoder takes the continuation bits of 64
 * bytes at once (SSE2 movemask): the set bits of `starts` mark where varints begin, so the chain
 * from an entry to the next is a few bit operations on a register (clear the lowest set bit two
 * or four times, chosen by bit 0 of the entry's first byte: call count 5, CPU 4). The fields'
 * values then come from independent loads (pext drops the continuation bits), and the entry's
 * kind selects the values without a branch: a call-count entry adds zero CPU and wall time to
 * line offset 0, a CPU entry zero calls. Whatever else comes (definitions, memory operations,
 * ID 0, varints of six bytes or more, values past 32 bits) stops it before that entry. */
#define BS_WIDE_WINDOW 64
/* A field's 8-byte load may start at the window's last byte, or just past it for the fields
 * that a call-count entry does not have. */
#define BS_WIDE_BYTES (BS_WIDE_WINDOW + 8 + 8)

static inline __attribute__((target("bmi,bmi2"))) uint64_t bs_wide_field(const uint8_t *base,
                                                                         unsigned from,
                                                                         unsigned to)
{
    uint64_t x;
    memcpy(&x, base + from, 8);
    return _pext_u64(x, _bzhi_u64(0x7f7f7f7f7f7f7f7fULL, (to - from) * 8));
}

/* Bit i of the result: the top bit of byte i of the 64 bytes at p, or its bit 0 with low_bit. */
static inline __attribute__((target("bmi,bmi2"))) uint64_t bs_wide_bits(const uint8_t *p,
                                                                        bool low_bit)
{
    uint64_t bits = 0;
    for (int i = 0; i < 4; i++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i));
        if (low_bit)
            v = _mm_slli_epi16(v, 7);
        bits |= (uint64_t)(uint32_t)_mm_movemask_epi8(v) << (16 * i);
    }
    return bits;
}

/* An entry of a window, decoded: where it starts, its cell (NULL when it has no direct cell)
 * and its values. */
typedef struct bs_wide_item {
    const uint8_t *at;
    bs_cell *cell;
    uint32_t id, offset, cpu, wall, count;
} bs_wide_item;

/* Entries take at least two bytes: at most this many start in a window. */
#define BS_WIDE_ITEMS (BS_WIDE_WINDOW / 2)
/* Windows decoded ahead of the entries being added (more made no difference). */
#define BS_WIDE_AHEAD 1

/* Adds decoded entries in order. Their cells were found before any of the entries added last
 * time were: when a cell had to be made then (which may move the cells of its ID, or the
 * direct array), *moved is set and every cell is looked up again; it is left set when a cell is
 * made here, for the entries decoded meanwhile. Returns NULL, or the start of the entry whose
 * cell could not be made (out of memory). */
static inline __attribute__((always_inline)) const uint8_t *
bs_wide_apply(bs_reader *r, const bs_wide_item *items, unsigned n, bool *moved)
{
    bool made = false, again = *moved;
    for (unsigned i = 0; i < n; i++) {
        const bs_wide_item *item = &items[i];
        bs_cell *cell = item->cell;
        if (__builtin_expect(again || !cell || !cell->acc, 0)) {
            cell = bs_cell_for(r, item->id, item->offset);
            if (!cell)
                return item->at;
            again = made = true;
        }
        cell->cpu += item->cpu;
        cell->wall += item->wall;
        cell->calls += item->count;
    }
    *moved = made;
    return NULL;
}

/* Cells (direct ones and the hash table's) beyond this many bytes miss the caches often enough
 * for the wide decoder to fetch them a window ahead (below it, keeping the entries of a window
 * to add them after costs more than it saves: 15% on gen_bsprof's files, whose cells fit in the
 * first-level cache). */
#define BS_WIDE_BATCH_CELL_BYTES ((size_t)1 << 20)

static inline __attribute__((always_inline, target("bmi,bmi2"))) bool
bs_wide_entries(bs_reader *r, pk_input *in, const bool line_data, const bool batched)
{
    const uint8_t *base = in->pos;
    /* batched: the entries of a window are decoded and their cells fetched, then the entries
     * of the window before are added: with many path elements and line offsets the cells
     * outgrow the caches, and so a cell's miss overlaps the decoding of a window. Otherwise
     * each entry is added as it is decoded. */
    bs_wide_item batches[BS_WIDE_AHEAD + 1][BS_WIDE_ITEMS];
    unsigned counts[BS_WIDE_AHEAD + 1] = {0};
    unsigned next_batch = 0;
    bool moved = false;
    const uint8_t *failed;
    while (in->end - base >= BS_WIDE_BYTES) {
        uint64_t more = bs_wide_bits(base, false); /* continuation bits */
        uint64_t kind = bs_wide_bits(base, true);  /* bit 0 of each byte */
        /* A varint of six bytes or more ends the window at its first byte: five continuation
         * bits in a row. */
        uint64_t run = more & more >> 1 & more >> 2 & more >> 3 & more >> 4;
        uint64_t starts = (~more << 1 | 1) & _blsmsk_u64(run);
        unsigned s0 = 0, n = 0;
        bs_wide_item *decoded = batches[next_batch];
        const bs_direct *direct = r->direct;
        const uint32_t direct_len = r->direct_len;
        for (;;) {
            s0 = (unsigned)_tzcnt_u64(starts);
            uint64_t s1m = _blsr_u64(starts), s2m = _blsr_u64(s1m), s3m = _blsr_u64(s2m),
                     s4m = _blsr_u64(s3m);
            uint64_t calls_entry = kind >> s0 & 1;
            uint64_t next = calls_entry ? s2m : line_data ? s4m : s3m;
            if (__builtin_expect(next == 0, 0))
                break;
            unsigned s1 = (unsigned)_tzcnt_u64(s1m), s2 = (unsigned)_tzcnt_u64(s2m),
                     s3 = (unsigned)_tzcnt_u64(s3m), s4 = (unsigned)_tzcnt_u64(s4m);
            uint64_t tag = bs_wide_field(base, s0, s1);
            uint64_t f1 = bs_wide_field(base, s1, s2);
            uint64_t f2 = bs_wide_field(base, s2, s3);
            uint64_t f3 = line_data ? bs_wide_field(base, s3, s4) : 0;
            /* All ones for a call-count entry, zero for a CPU entry: a mask, not a branch. */
            uint64_t calls_mask = 0 - calls_entry;
            uint64_t count = f1 & calls_mask, offset = line_data ? f1 & ~calls_mask : 0,
                     cpu = (line_data ? f2 : f1) & ~calls_mask,
                     wall = (line_data ? f3 : f2) & ~calls_mask;
            uint32_t id = (uint32_t)(tag >> 3);
            /* One test for what this decoder leaves to the others: another entry type (the
             * type is 4 or 5 exactly when bits 1 and 2 are 10), ID 0, a tag past 35 bits or a
             * field past 32. */
            uint64_t odd = ((tag & 6) ^ 4) | (tag < 8) | tag >> 35 |
                           (offset | cpu | wall | count) >> 32;
            if (__builtin_expect(odd != 0, 0))
                break;
            if (!batched) {
                bs_cell *cell = bs_cell_for(r, id, (uint32_t)offset);
                if (!cell) {
                    failed = base + s0;
                    goto out_of_memory;
                }
                cell->cpu += cpu;
                cell->wall += wall;
                cell->calls += count;
                starts = next;
                continue;
            }
            bs_cell *cell = NULL;
            if (__builtin_expect(id < direct_len, 1) && offset < direct[id].len) {
                cell = &direct[id].cells[offset];
                __builtin_prefetch(cell, 1);
            }
            decoded[n++] = (bs_wide_item){base + s0, cell, id, (uint32_t)offset, (uint32_t)cpu,
                                          (uint32_t)wall, (uint32_t)count};
            starts = next;
        }
        if (batched) {
            counts[next_batch] = n;
            next_batch = next_batch == BS_WIDE_AHEAD ? 0 : next_batch + 1;
            failed = bs_wide_apply(r, batches[next_batch], counts[next_batch], &moved);
            if (failed)
                goto out_of_memory;
            counts[next_batch] = 0;
        }
        base += s0;
        if (s0 == 0) {
            /* An entry this decoder leaves to the others, or one not whole in a fresh window
             * (a long varint): the byte-wise loop takes one entry, after the entries before
             * it. */
            for (unsigned k = 1; batched && k <= BS_WIDE_AHEAD; k++) {
                unsigned b = (next_batch + k) % (BS_WIDE_AHEAD + 1);
                if ((failed = bs_wide_apply(r, batches[b], counts[b], &moved)) != NULL)
                    goto out_of_memory;
                counts[b] = 0;
            }
            moved = false;
            in->pos = base;
            if (!bs_fast_run(r, in, 1))
                return false;
            if (in->pos == base)
                return true;
            base = in->pos;
        }
    }
    for (unsigned k = 1; batched && k <= BS_WIDE_AHEAD; k++) {
        unsigned b = (next_batch + k) % (BS_WIDE_AHEAD + 1);
        if ((failed = bs_wide_apply(r, batches[b], counts[b], &moved)) != NULL)
            goto out_of_memory;
    }
    in->pos = base;
    return true;
out_of_memory:
    in->pos = failed;
    return false;
}

static bool __attribute__((noinline, target("bmi,bmi2"))) bs_wide_run_lines(bs_reader *r,
                                                                             pk_input *in)
{
    return bs_wide_entries(r, in, true, false);
}

static bool __attribute__((noinline, target("bmi,bmi2"))) bs_wide_run_no_lines(bs_reader *r,
                                                                                pk_input *in)
{
    return bs_wide_entries(r, in, false, false);
}

static bool __attribute__((noinline, target("bmi,bmi2")))
bs_wide_run_lines_batched(bs_reader *r, pk_input *in)
{
    return bs_wide_entries(r, in, true, true);
}

static bool __attribute__((noinline, target("bmi,bmi2")))
bs_wide_run_no_lines_batched(bs_reader *r, pk_input *in)
{
    return bs_wide_entries(r, in, false, true);
}

/* pext is slow (microcoded) on AMD processors before Zen 3. */
static bool bs_wide_usable(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("bmi2") && !__builtin_cpu_is("amdfam17h") &&
           !__builtin_cpu_is("amdfam15h");
}
#endif

/* Set by pk_bsprof_force_bytewise: per thread, so that a test forcing the byte-wise loop does
 * not change what reads in other threads run. */
static _Thread_local bool bs_bytewise_forced;

void pk_bsprof_force_bytewise(bool on)
{
    bs_bytewise_forced = on;
}

/* Set by pk_bsprof_force_batched, per thread as well. */
static _Thread_local bool bs_batched_forced;

void pk_bsprof_force_batched(bool on)
{
    bs_batched_forced = on;
}

/* Decodes entries with the fastest decoder for this processor while they last. */
static bool bs_fast(bs_reader *r, pk_input *in)
{
#ifdef BS_HAVE_WIDE
    size_t cell_bytes = r->cell_bytes + (r->slot_mask + 1) * sizeof *r->slots;
    if (r->wide && (cell_bytes > BS_WIDE_BATCH_CELL_BYTES || r->batched))
        return r->line_data ? bs_wide_run_lines_batched(r, in)
                            : bs_wide_run_no_lines_batched(r, in);
    if (r->wide)
        return r->line_data ? bs_wide_run_lines(r, in) : bs_wide_run_no_lines(r, in);
#endif
    return bs_fast_run(r, in, SIZE_MAX);
}

/* Moves the sums of every cell into the accumulators' totals. */
static void bs_cells_fold(bs_reader *r)
{
    for (uint32_t id = 0; id < r->direct_len; id++)
        for (uint32_t o = 0; o < r->direct[id].len; o++)
            if (r->direct[id].cells[o].acc)
                bs_cell_fold(r, &r->direct[id].cells[o]);
    for (size_t i = 0; i <= r->slot_mask; i++)
        if (r->slots[i].key > BS_SLOT_RETIRED)
            bs_cell_fold(r, &r->slots[i].cell);
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
    bs_cells_fold(r);
    for (size_t a = 0; a < r->acc_count; a++) {
        const bs_acc *acc = &r->acc_recs[a];
        if (!(acc->cpu | acc->wall | acc->calls | acc->alloc_bytes | acc->allocs))
            continue;
        for (size_t v = 0; v < nvalues; v++)
            values[v] = 0;
        values[r->values[BS_V_CPU]] = bs_saturate(acc->cpu);
        values[r->values[BS_V_WALL]] = bs_saturate(acc->wall);
        values[r->values[BS_V_CALLS]] = bs_saturate(acc->calls);
        values[r->values[BS_V_ALLOC_SPACE]] = bs_saturate(acc->alloc_bytes);
        values[r->values[BS_V_ALLOC_OBJECTS]] = bs_saturate(acc->allocs);
        pk_status st = pk_add_sample(r->p, acc->thread, acc->stack, values);
        if (st != PK_OK)
            return pk_error_set(err, st, PK_NO_OFFSET, "cannot record samples");
    }
    pk_status st = pk_memory_add_live_values(r->p, r->values[BS_V_INUSE_SPACE],
                                             r->values[BS_V_INUSE_OBJECTS]);
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
    /* Threads are modules (also when read without the registry, which records it too). */
    if (st == PK_OK)
        st = pk_property_set(p, "thread id name", pk_format_bsprof.thread_id_name);
    for (int i = 0; i < BS_HEADER_TEXT_COUNT && st == PK_OK; i++)
        st = pk_property_set(p, pk_bsprof_header_text_keys[i], (const char *)h->text[i].data);
    if (st != PK_OK)
        return st;
    pk_bsprof_format_ratio(h->requested_ratio, buf, sizeof buf);
    if ((st = pk_property_set(p, "requested-sample-ratio", buf)) != PK_OK)
        return st;
    pk_bsprof_format_ratio(h->actual_ratio, buf, sizeof buf);
    /* The channel is the one process, pid 0, of every module's thread: named by its title. */
    if (h->text[BS_TARGET].len && (st = pk_process_name_set(p, 0, pk_str(p, meta->product))) != PK_OK)
        return st;
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
    if (pk_in_varint(in, &end_ms) == PK_VARINT_OK) {
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

pk_status pk_bsprof_read(pk_input *in, pk_profile *p, const pk_read_options *options,
                         pk_error *err)
{
    (void)options;
    bs_header h;
    pk_status st = pk_bsprof_read_header(in, &h, err);
    if (st == PK_OK && bs_header_to_model(p, &h) != PK_OK)
        st = bs_nomem(err);
    bool line_data = h.line_data != 0, memory_flag = h.memory_ops != 0;
    pk_bsprof_header_free(&h);
    if (st != PK_OK)
        return st;

    bs_reader r = {.p = p, .line_data = line_data, .memory_flag = memory_flag,
                   .unknown_thread = PK_NONE, .unnamed = PK_NONE};
    bs_decoder d = {.in = in, .line_data = line_data, .err = err};
#ifdef BS_HAVE_WIDE
    r.wide = !bs_bytewise_forced && bs_wide_usable();
    r.batched = bs_batched_forced;
#endif
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
    bool damaged = false;
    for (;;) {
        if (pk_in_available(in) >= BS_FAST_ENTRY_BYTES &&
            !bs_fast(&r, in)) {
            st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory at byte %" PRIu64,
                              pk_in_offset(in));
            goto done;
        }
        if (__builtin_expect(pk_in_offset(in) - r.folded_at >= BS_FOLD_BYTES, 0)) {
            bs_cells_fold(&r);
            r.folded_at = pk_in_offset(in);
        }
        bs_next next = pk_bsprof_decode(&d, &e);
        if (__builtin_expect(next == BS_NEXT_ENTRY, 1)) {
            if ((st = bs_apply(&r, &e, err)) != PK_OK)
                goto done;
            continue;
        }
        if (next == BS_NEXT_END_MARKER) {
            bs_read_footer(in, p);
        } else if (next == BS_NEXT_EOF) {
            pk_warn(p, "truncated stream: no end marker");
        } else if (next == BS_NEXT_DAMAGED) {
            /* Every entry before it was applied whole: the profile is completed from them. */
            damaged = true;
        } else {
            st = PK_ERR_NOMEM;
            goto done;
        }
        break;
    }
    st = bs_flush(&r, err);
    if (st == PK_OK) {
        bs_report(&r);
        if (damaged)
            st = PK_ERR_INPUT;
    }
done:
    pk_bsprof_decoder_free(&d);
    bs_reader_free(&r);
    return st;
}
