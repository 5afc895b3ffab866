/* The leak report: bytes and blocks allocated, freed and still unfreed at the end of the
 * profile, per call path (by function names) and per allocating line, heaviest unfreed first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report.h"
#include "analysis/stack_walk.h"
#include "analysis/units.h"
#include "core/hashmap.h"

typedef struct memory_sums {
    uint64_t allocated, allocated_count;
    uint64_t freed, freed_count;
} memory_sums;

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
    if (t->count == t->capacity) {
        size_t cap = t->capacity ? t->capacity * 2 : 64;
        memory_group *g = realloc(t->groups, cap * sizeof *g);
        if (!g)
            return NULL;
        t->groups = g;
        t->capacity = cap;
    }
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
    if (t->count == t->capacity) {
        size_t cap = t->capacity ? t->capacity * 2 : 256;
        uint32_t *pa = realloc(t->parent, cap * sizeof *pa);
        if (!pa)
            return PK_NONE;
        t->parent = pa;
        uint32_t *na = realloc(t->name, cap * sizeof *na);
        if (!na)
            return PK_NONE;
        t->name = na;
        t->capacity = cap;
    }
    t->parent[t->count] = parent;
    t->name[t->count] = name;
    return (uint32_t)t->count++;
}

static void add_event(memory_sums *s, const pk_memory_event *e)
{
    s->allocated += e->size;
    s->allocated_count++;
    if (e->matched) {
        s->freed += e->size;
        s->freed_count++;
    }
}

static int compare_groups(const void *pa, const void *pb)
{
    const memory_group *a = pa, *b = pb;
    uint64_t ua = a->sums.allocated - a->sums.freed, ub = b->sums.allocated - b->sums.freed;
    if (ua != ub)
        return ua > ub ? -1 : 1;
    if (a->sums.allocated != b->sums.allocated)
        return a->sums.allocated > b->sums.allocated ? -1 : 1;
    return a->key < b->key ? -1 : a->key > b->key;
}

/* Writes a call path root first, "a > b > c", into out (JSON: an array of names). */
static void write_path(pk_output *out, const pk_profile *p, const path_table *paths,
                       uint32_t path, bool json, size_t max_columns, char **scratch,
                       size_t *scratch_size)
{
    size_t depth = 0;
    for (uint32_t q = path; q != PK_NONE; q = paths->parent[q])
        depth++;
    if (json) {
        pk_out_putc(out, '[');
        /* Root first: walk up once per element (paths are short enough for this). */
        for (size_t i = depth; i-- > 0;) {
            uint32_t q = path;
            for (size_t up = 0; up < i; up++)
                q = paths->parent[q];
            if (i != depth - 1)
                pk_out_putc(out, ',');
            pk_out_json_string(out, pk_str(p, paths->name[q]));
        }
        pk_out_putc(out, ']');
        return;
    }
    size_t len = 0;
    for (uint32_t q = path; q != PK_NONE; q = paths->parent[q])
        len += pk_str_len(p, paths->name[q]) + 3;
    if (len + 1 > *scratch_size) {
        char *grown = realloc(*scratch, len + 1);
        if (!grown) {
            pk_out_puts(out, "?");
            return;
        }
        *scratch = grown;
        *scratch_size = len + 1;
    }
    char *text = *scratch;
    size_t end = len > 3 ? len - 3 : 0;
    text[end] = '\0';
    for (uint32_t q = path; q != PK_NONE; q = paths->parent[q]) {
        size_t n = pk_str_len(p, paths->name[q]);
        end -= n;
        memcpy(text + end, pk_str(p, paths->name[q]), n);
        if (paths->parent[q] != PK_NONE) {
            end -= 3;
            memcpy(text + end, " > ", 3);
        }
    }
    pk_out_shortened(out, text, max_columns);
}

static void json_sums(pk_output *out, const memory_sums *s)
{
    pk_out_printf(out,
                  "\"allocated\":%llu,\"allocated_count\":%llu,\"freed\":%llu,"
                  "\"freed_count\":%llu,\"unfreed\":%llu,\"unfreed_count\":%llu",
                  (unsigned long long)s->allocated, (unsigned long long)s->allocated_count,
                  (unsigned long long)s->freed, (unsigned long long)s->freed_count,
                  (unsigned long long)(s->allocated - s->freed),
                  (unsigned long long)(s->allocated_count - s->freed_count));
}

static void text_sums(pk_output *out, const memory_sums *s)
{
    char text[PK_VALUE_TEXT];
    uint64_t values[3][2] = {{s->allocated - s->freed, s->allocated_count - s->freed_count},
                             {s->allocated, s->allocated_count},
                             {s->freed, s->freed_count}};
    for (int i = 0; i < 3; i++) {
        if (i)
            pk_out_putc(out, ' ');
        pk_value_text(text, sizeof text, (double)values[i][0], "bytes", false);
        pk_out_cell(out, text, 10, true);
        pk_out_printf(out, " %7llu", (unsigned long long)values[i][1]);
    }
}

pk_status pk_report_memory(const pk_profile *p, const pk_report_options *o, pk_output *out,
                           pk_error *err)
{
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
    char *scratch = NULL;
    size_t scratch_size = 0;
    if (!path_of_stack || !selected)
        goto nomem;
    for (size_t t = 0; t < threads; t++)
        selected[t] = pk_thread_name_matches(pk_str(p, pk_thread_at(p, (uint32_t)t)->name),
                                             o->thread_pattern);
    for (size_t s = 0; s < stacks; s++) {
        const pk_stack *st_ = pk_stack_at(p, (uint32_t)s);
        uint32_t parent = st_->parent == PK_NONE ? PK_NONE : path_of_stack[st_->parent];
        const pk_frame *f = pk_frame_at(p, st_->frame);
        path_of_stack[s] = path_intern(&paths, parent, pk_function_at(p, f->function)->name);
        if (path_of_stack[s] == PK_NONE)
            goto nomem;
    }
    memory_sums overall;
    memset(&overall, 0, sizeof overall);
    uint64_t unknown_frees = 0;
    for (size_t i = 0; i < events; i++) {
        pk_memory_event e;
        pk_memory_event_at(p, i, &e);
        if (e.thread < threads && !selected[e.thread])
            continue;
        if (e.kind != PK_MEM_ALLOC) {
            unknown_frees += !e.matched;
            continue;
        }
        add_event(&overall, &e);
        uint32_t path = e.stack < stacks ? path_of_stack[e.stack] : PK_NONE;
        memory_group *g = group_for(&by_path, path, path);
        if (!g)
            goto nomem;
        add_event(&g->sums, &e);
        uint64_t line_id = (uint64_t)1 << 63;
        line_key key = {0, 0, 0};
        if (e.stack < stacks) {
            const pk_frame *f = pk_frame_at(p, pk_stack_at(p, e.stack)->frame);
            const pk_function *fn = pk_function_at(p, f->function);
            key = (line_key){fn->file, f->line, fn->name};
            line_id = f->line ? (uint64_t)fn->file << 32 | f->line
                              : ((uint64_t)1 << 62) | fn->name;
        }
        g = group_for(&by_line, line_id, (uint32_t)line_count);
        if (!g)
            goto nomem;
        if (g->key == line_count) {
            if (line_count == line_capacity) {
                size_t cap = line_capacity ? line_capacity * 2 : 64;
                line_key *grown = realloc(line_keys, cap * sizeof *grown);
                if (!grown)
                    goto nomem;
                line_keys = grown;
                line_capacity = cap;
            }
            line_keys[line_count++] = key;
        }
        add_event(&g->sums, &e);
    }
    if (by_path.count > 1)
        qsort(by_path.groups, by_path.count, sizeof *by_path.groups, compare_groups);
    if (by_line.count > 1)
        qsort(by_line.groups, by_line.count, sizeof *by_line.groups, compare_groups);
    size_t paths_shown = o->top && o->top < by_path.count ? o->top : by_path.count;
    size_t lines_shown = o->top && o->top < by_line.count ? o->top : by_line.count;

    if (o->json) {
        pk_out_puts(out, "{\"view\":\"memory\",");
        json_sums(out, &overall);
        pk_out_printf(out, ",\"unmatched_frees\":%llu,\"call_paths\":[",
                      (unsigned long long)unknown_frees);
        for (size_t i = 0; i < paths_shown; i++) {
            pk_out_puts(out, i ? ",{\"path\":" : "{\"path\":");
            if (by_path.groups[i].key == PK_NONE)
                pk_out_puts(out, "[]");
            else
                write_path(out, p, &paths, by_path.groups[i].key, true, 0, &scratch,
                           &scratch_size);
            pk_out_putc(out, ',');
            json_sums(out, &by_path.groups[i].sums);
            pk_out_putc(out, '}');
        }
        pk_out_puts(out, "],\"lines\":[");
        for (size_t i = 0; i < lines_shown; i++) {
            const line_key *k = &line_keys[by_line.groups[i].key];
            pk_out_puts(out, i ? ",{\"file\":" : "{\"file\":");
            pk_out_json_string(out, pk_str(p, k->file));
            pk_out_printf(out, ",\"line\":%u,\"function\":", (unsigned)k->line);
            pk_out_json_string(out, pk_str(p, k->function_name));
            pk_out_putc(out, ',');
            json_sums(out, &by_line.groups[i].sums);
            pk_out_putc(out, '}');
        }
        pk_out_puts(out, "]}\n");
        goto done;
    }
    if (events == 0) {
        pk_out_puts(out, "memory: the profile has no memory events\n");
        goto done;
    }
    char a[PK_VALUE_TEXT], f[PK_VALUE_TEXT], u[PK_VALUE_TEXT];
    pk_value_text(a, sizeof a, (double)overall.allocated, "bytes", false);
    pk_value_text(f, sizeof f, (double)overall.freed, "bytes", false);
    pk_value_text(u, sizeof u, (double)(overall.allocated - overall.freed), "bytes", false);
    pk_out_printf(out, "memory: %s unfreed in %llu blocks\nallocated %s in %llu blocks, "
                       "freed %s in %llu blocks\n",
                  u, (unsigned long long)(overall.allocated_count - overall.freed_count), a,
                  (unsigned long long)overall.allocated_count, f,
                  (unsigned long long)overall.freed_count);
    if (unknown_frees)
        pk_out_printf(out, "%llu frees of blocks not allocated in the profile\n",
                      (unsigned long long)unknown_frees);
    pk_out_putc(out, '\n');
    const char *header = "   unfreed  blocks  allocated  blocks      freed  blocks\n    ";
    size_t name_columns = pk_report_name_columns(o, 4);
    pk_out_printf(out, "by call path, heaviest unfreed first (%zu of %zu):\n%scall path\n",
                  paths_shown, by_path.count, header);
    for (size_t i = 0; i < paths_shown; i++) {
        text_sums(out, &by_path.groups[i].sums);
        pk_out_puts(out, "\n    ");
        if (by_path.groups[i].key == PK_NONE)
            pk_out_puts(out, "(no stack)");
        else
            write_path(out, p, &paths, by_path.groups[i].key, false, name_columns, &scratch,
                       &scratch_size);
        pk_out_putc(out, '\n');
    }
    pk_out_printf(out, "\nby allocating line (%zu of %zu):\n%sline\n", lines_shown,
                  by_line.count, header);
    for (size_t i = 0; i < lines_shown; i++) {
        text_sums(out, &by_line.groups[i].sums);
        const line_key *k = &line_keys[by_line.groups[i].key];
        if (!k->function_name && !k->line) {
            pk_out_puts(out, "\n    (no stack)\n");
            continue;
        }
        pk_out_puts(out, "\n    ");
        pk_report_location(out, pk_str(p, k->file), k->line, pk_str(p, k->function_name),
                           name_columns);
        pk_out_putc(out, '\n');
    }
    goto done;
nomem:
    st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
done:
    free(path_of_stack);
    free(selected);
    free(line_keys);
    free(scratch);
    free(paths.parent);
    free(paths.name);
    free(by_path.groups);
    free(by_line.groups);
    pk_u64map_free(&paths.index);
    pk_u64map_free(&by_path.index);
    pk_u64map_free(&by_line.index);
    return st;
}
