/* SPDX-License-Identifier: MIT */
/* The memory view, the leak report: bytes and blocks allocated, freed and still unfreed at the
 * end of the profile, per call path (by function names) and per allocating line, heaviest
 * unfreed first. From the memory events' allocating sites when the profile has them, else from
 * the memory values of its rows (core/memory_values.h: a heap profile's allocated and in-use
 * objects and bytes, where what was allocated and is no longer in use was freed). */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report.h"
#include "analysis/stack_walk.h"
#include "core/arith.h"
#include "core/array.h"
#include "core/hashmap.h"
#include "core/memory_values.h"

typedef pk_memory_totals memory_sums;

typedef struct memory_group {
    uint32_t key;   /* call path id, or index into the line keys */
    memory_sums sums;
} memory_group;

typedef struct group_table {
    pk_u64map index;    /* group key -> position in groups */
    memory_group *groups;
    size_t count;
    size_t capacity;
} group_table;

/* Call paths merged by function name: path = (caller path, name). */
typedef struct path_table {
    pk_u64map index;
    uint32_t *parent;
    uint32_t *name;
    size_t count;
    size_t capacity;
} path_table;

typedef struct line_key {
    uint32_t file;
    uint32_t line;
    uint32_t function_name;
} line_key;

static memory_group *group_for(group_table *t, uint64_t key, uint32_t stored_key)
{
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&t->index, key, (uint32_t)t->count, &slot, &inserted))
        return NULL;
    if (!inserted)
        return &t->groups[*slot];
    if (!PK_ARRAY_RESERVE(t->groups, t->capacity, t->count + 1))
        return NULL;
    memory_group *g = &t->groups[t->count++];
    memset(g, 0, sizeof *g);
    g->key = stored_key;
    return g;
}

static uint32_t path_intern(path_table *t, uint32_t parent, uint32_t name)
{
    uint64_t key = (uint64_t)parent << 32 | name;
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&t->index, key, (uint32_t)t->count, &slot, &inserted))
        return PK_NONE;
    if (!inserted)
        return *slot;
    size_t capacity = t->capacity;
    if (!PK_ARRAY_RESERVE(t->parent, capacity, t->count + 1))
        return PK_NONE;
    capacity = t->capacity;
    if (!PK_ARRAY_RESERVE(t->name, capacity, t->count + 1))
        return PK_NONE;
    t->capacity = capacity;
    t->parent[t->count] = parent;
    t->name[t->count] = name;
    return (uint32_t)t->count++;
}

static int64_t clamp_u64(uint64_t v)
{
    return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
}

/* Sums beyond the int64 range count as the largest; sums saturate there. */
static void add_site(memory_sums *s, const pk_alloc_site *site)
{
    s->allocated = pk_add_saturating(s->allocated, clamp_u64(site->allocated_bytes));
    s->allocated_count = pk_add_saturating(s->allocated_count, clamp_u64(site->allocations));
    s->freed = pk_add_saturating(s->freed, clamp_u64(site->freed_bytes));
    s->freed_count = pk_add_saturating(s->freed_count, clamp_u64(site->frees));
    s->unfreed = s->allocated - s->freed;
    s->unfreed_count = s->allocated_count - s->freed_count;
}

static uint64_t positive(int64_t v)
{
    return v > 0 ? (uint64_t)v : 0;
}

/* A row's memory values as an allocating site: allocated what alloc_* say (what is in use when
 * the profile has no alloc_* values), freed the difference with what is in use. */
static pk_alloc_site site_of_row(const pk_profile *p, size_t row, const pk_memory_values *mv)
{
    const int64_t *v = pk_sample_values(p, row);
    uint64_t live = mv->inuse_space != PK_NONE ? positive(v[mv->inuse_space]) : 0;
    uint64_t live_count = mv->inuse_objects != PK_NONE ? positive(v[mv->inuse_objects]) : 0;
    uint64_t bytes = mv->alloc_space != PK_NONE ? positive(v[mv->alloc_space]) : live;
    uint64_t count = mv->alloc_objects != PK_NONE ? positive(v[mv->alloc_objects]) : live_count;
    if (bytes < live)
        bytes = live;
    if (count < live_count)
        count = live_count;
    return (pk_alloc_site){pk_sample_thread(p, row), pk_sample_stack(p, row), count, bytes,
                           count - live_count, bytes - live};
}

static int compare_groups(const void *pa, const void *pb)
{
    const memory_group *a = pa, *b = pb;
    if (a->sums.unfreed != b->sums.unfreed)
        return a->sums.unfreed > b->sums.unfreed ? -1 : 1;
    if (a->sums.allocated != b->sums.allocated)
        return a->sums.allocated > b->sums.allocated ? -1 : 1;
    return a->key < b->key ? -1 : a->key > b->key;
}

/* The call path of each shown site, root first, into the report's pool of names. */
static pk_status fill_path_sites(pk_report_storage *s, const pk_profile *p,
                                 const path_table *paths, const group_table *by_path,
                                 size_t shown, pk_error *err)
{
    pk_report *r = &s->report;
    r->paths = calloc(shown ? shown : 1, sizeof *r->paths);
    size_t names = 0;
    for (size_t i = 0; i < shown; i++)
        for (uint32_t q = by_path->groups[i].key; q != PK_NONE; q = paths->parent[q])
            names++;
    s->path_names = malloc((names ? names : 1) * sizeof *s->path_names);
    if (!r->paths || !s->path_names)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    size_t used = 0;
    for (size_t i = 0; i < shown; i++) {
        const memory_group *g = &by_path->groups[i];
        size_t depth = 0;
        for (uint32_t q = g->key; q != PK_NONE; q = paths->parent[q])
            depth++;
        const char **path = s->path_names + used;
        size_t at = depth;
        for (uint32_t q = g->key; q != PK_NONE; q = paths->parent[q])
            path[--at] = pk_str(p, paths->name[q]);
        used += depth;
        r->paths[i] = (pk_memory_site){.path = path, .path_length = depth, .file = "",
                                       .function = "", .memory = g->sums};
    }
    r->path_count = shown;
    r->paths_available = by_path->count;
    return PK_OK;
}

static pk_status fill_line_sites(pk_report *r, const pk_profile *p, const line_key *keys,
                                 const group_table *by_line, size_t shown, pk_error *err)
{
    assert(shown == 0 || keys); /* every group of by_line has its key in keys */
    r->lines = calloc(shown ? shown : 1, sizeof *r->lines);
    if (!r->lines)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    for (size_t i = 0; i < shown; i++) {
        const line_key *k = &keys[by_line->groups[i].key];
        r->lines[i] = (pk_memory_site){.file = pk_str(p, k->file),
                                       .line = k->line,
                                       .function = pk_str(p, k->function_name),
                                       .memory = by_line->groups[i].sums};
    }
    r->line_count = shown;
    r->lines_available = by_line->count;
    return PK_OK;
}

pk_status pk_report_build_memory(pk_report_storage *s, const pk_profile *p,
                                 const pk_report_options *o, uint32_t value, pk_error *err)
{
    (void)value;
    pk_report *r = &s->report;
    pk_status st = PK_OK;
    size_t stacks = pk_stack_count(p);
    size_t threads = pk_thread_count(p);
    size_t events = pk_memory_event_count(p);
    path_table paths;
    group_table by_path, by_line;
    memset(&paths, 0, sizeof paths);
    memset(&by_path, 0, sizeof by_path);
    memset(&by_line, 0, sizeof by_line);
    pk_u64map_init(&paths.index);
    pk_u64map_init(&by_path.index);
    pk_u64map_init(&by_line.index);
    uint32_t *path_of_stack = malloc((stacks ? stacks : 1) * sizeof *path_of_stack);
    unsigned char *selected = calloc(threads ? threads : 1, 1);
    line_key *line_keys = NULL;
    size_t line_count = 0, line_capacity = 0;
    if (!path_of_stack || !selected)
        goto nomem;
    for (size_t t = 0; t < threads; t++)
        selected[t] = pk_thread_name_matches(pk_str(p, pk_thread_at(p, (uint32_t)t)->name),
                                             o->thread_pattern);
    /* A stack's path of names is its prefix's extended by the names of its run. */
    for (size_t i = 0; i < stacks; i++) {
        uint32_t prefix;
        const uint32_t *frames;
        size_t length = pk_stack_run(p, (uint32_t)i, &prefix, &frames);
        uint32_t path = prefix == PK_NONE ? PK_NONE : path_of_stack[prefix];
        for (size_t k = 0; k < length; k++) {
            const pk_frame *f = pk_frame_at(p, frames[k]);
            path = path_intern(&paths, path, pk_function_at(p, f->function)->name);
            if (path == PK_NONE)
                goto nomem;
        }
        path_of_stack[i] = path;
    }
    memory_sums overall;
    memset(&overall, 0, sizeof overall);
    uint64_t unknown_frees = 0;
    for (size_t t = 0; t < threads; t++)
        if (selected[t])
            unknown_frees += pk_memory_unmatched_frees(p, (uint32_t)t);
    size_t sites = pk_alloc_site_count(p);
    pk_memory_values mv;
    bool from_values = sites == 0 && events == 0 && pk_memory_values_find(p, &mv);
    if (from_values)
        sites = pk_sample_count(p);
    for (size_t i = 0; i < sites; i++) {
        pk_alloc_site site;
        if (from_values)
            site = site_of_row(p, i, &mv);
        else
            pk_alloc_site_at(p, i, &site);
        if (site.thread < threads && !selected[site.thread])
            continue;
        add_site(&overall, &site);
        uint32_t path = site.stack < stacks ? path_of_stack[site.stack] : PK_NONE;
        memory_group *g = group_for(&by_path, path, path);
        if (!g)
            goto nomem;
        add_site(&g->sums, &site);
        uint64_t line_id = (uint64_t)1 << 63;
        line_key key = {0, 0, 0};
        if (site.stack < stacks) {
            const pk_frame *f = pk_frame_at(p, pk_stack_leaf(p, site.stack));
            const pk_function *fn = pk_function_at(p, f->function);
            key = (line_key){fn->file, f->line, fn->name};
            line_id = f->line ? (uint64_t)fn->file << 32 | f->line
                              : ((uint64_t)1 << 62) | fn->name;
        }
        g = group_for(&by_line, line_id, (uint32_t)line_count);
        if (!g)
            goto nomem;
        if (g->key == line_count) {
            if (!PK_ARRAY_RESERVE(line_keys, line_capacity, line_count + 1))
                goto nomem;
            line_keys[line_count++] = key;
        }
        add_site(&g->sums, &site);
    }
    if (by_path.count > 1)
        qsort(by_path.groups, by_path.count, sizeof *by_path.groups, compare_groups);
    if (by_line.count > 1)
        qsort(by_line.groups, by_line.count, sizeof *by_line.groups, compare_groups);
    r->has_memory_events = events > 0 || from_values;
    r->memory = overall;
    r->unmatched_frees = unknown_frees;
    st = fill_path_sites(s, p, &paths, &by_path, pk_report_shown(o->top, by_path.count), err);
    if (st == PK_OK)
        st = fill_line_sites(r, p, line_keys, &by_line, pk_report_shown(o->top, by_line.count),
                             err);
    goto done;
nomem:
    st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
done:
    free(path_of_stack);
    free(selected);
    free(line_keys);
    free(paths.parent);
    free(paths.name);
    free(by_path.groups);
    free(by_line.groups);
    pk_u64map_free(&paths.index);
    pk_u64map_free(&by_path.index);
    pk_u64map_free(&by_line.index);
    return st;
}
