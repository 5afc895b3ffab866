/* Stack values and once-per-stack key totals over the profile's prefix tree. */
#include "analysis/stack_walk.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "core/arith.h"

bool pk_thread_name_matches(const char *name, const char *pattern)
{
    if (!pattern)
        return true;
    if (strpbrk(pattern, "*?["))
        return fnmatch(pattern, name, 0) == 0;
    return strstr(name, pattern) != NULL;
}

int pk_thread_selection_filter(void *context, uint32_t thread)
{
    const pk_thread_selection *sel = context;
    if (!sel->pattern)
        return 1;
    const pk_thread *t = pk_thread_at(sel->profile, thread);
    return t && pk_thread_name_matches(pk_str(sel->profile, t->name), sel->pattern);
}

pk_status pk_report_value(const pk_profile *p, uint32_t requested, uint32_t *value,
                          pk_error *err)
{
    size_t count = pk_value_type_count(p);
    if (count == 0)
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET, "the profile has no values");
    uint32_t v = requested == PK_NONE ? pk_default_value(p) : requested;
    if (v >= count)
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET, "no value type number %u",
                            (unsigned)v);
    *value = v;
    return PK_OK;
}

pk_status pk_stack_values_compute(pk_stack_values *sv, const pk_profile *p, uint32_t value,
                                  const char *thread_pattern, pk_error *err)
{
    memset(sv, 0, sizeof *sv);
    size_t stacks = pk_stack_count(p);
    size_t threads = pk_thread_count(p);
    sv->stack_count = stacks;
    sv->self = calloc(stacks ? stacks : 1, sizeof *sv->self);
    sv->total = calloc(stacks ? stacks : 1, sizeof *sv->total);
    unsigned char *selected = calloc(threads ? threads : 1, 1);
    if (!sv->self || !sv->total || !selected) {
        free(selected);
        pk_stack_values_free(sv);
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    }
    for (size_t t = 0; t < threads; t++) {
        selected[t] = pk_thread_name_matches(pk_str(p, pk_thread_at(p, (uint32_t)t)->name),
                                             thread_pattern);
        sv->threads_matched += selected[t];
    }
    size_t rows = pk_sample_count(p);
    for (size_t r = 0; r < rows; r++) {
        uint32_t thread = pk_sample_thread(p, r);
        if (thread < threads && !selected[thread])
            continue;
        int64_t v = pk_sample_values(p, r)[value];
        sv->grand_total = pk_add_saturating(sv->grand_total, v);
        uint32_t stack = pk_sample_stack(p, r);
        if (stack < stacks)
            sv->self[stack] = pk_add_saturating(sv->self[stack], v);
    }
    free(selected);
    memcpy(sv->total, sv->self, stacks * sizeof *sv->total);
    /* Parents have smaller indexes, so a backward pass finishes each stack before its parent. */
    for (size_t s = stacks; s-- > 0;) {
        uint32_t parent = pk_stack_at(p, (uint32_t)s)->parent;
        if (parent != PK_NONE && parent < s)
            sv->total[parent] = pk_add_saturating(sv->total[parent], sv->total[s]);
    }
    return PK_OK;
}

void pk_stack_values_free(pk_stack_values *sv)
{
    free(sv->self);
    free(sv->total);
    sv->self = sv->total = NULL;
}

pk_status pk_key_totals(const pk_profile *p, const pk_stack_values *sv,
                        const uint32_t *key_of_stack, size_t key_count, int64_t *key_self,
                        int64_t *key_total, pk_error *err)
{
    size_t stacks = sv->stack_count;
    if (stacks == 0)
        return PK_OK;
    uint32_t *first_child = malloc(stacks * sizeof *first_child);
    uint32_t *next_sibling = malloc(stacks * sizeof *next_sibling);
    uint32_t *active = calloc(key_count ? key_count : 1, sizeof *active);
    if (!first_child || !next_sibling || !active) {
        free(first_child);
        free(next_sibling);
        free(active);
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    }
    uint32_t first_root = PK_NONE;
    for (size_t s = 0; s < stacks; s++)
        first_child[s] = PK_NONE;
    for (size_t s = stacks; s-- > 0;) {
        uint32_t parent = pk_stack_at(p, (uint32_t)s)->parent;
        uint32_t *head = parent == PK_NONE ? &first_root : &first_child[parent];
        next_sibling[s] = *head;
        *head = (uint32_t)s;
    }
    for (size_t s = 0; s < stacks; s++) {
        uint32_t key = key_of_stack[s];
        if (key < key_count)
            key_self[key] = pk_add_saturating(key_self[key], sv->self[s]);
    }
    /* Depth-first without a stack of our own: parent links lead back up. Branches with a zero
     * total are skipped whole. */
    uint32_t node = first_root;
    while (node != PK_NONE && sv->total[node] == 0)
        node = next_sibling[node];
    while (node != PK_NONE) {
        uint32_t key = key_of_stack[node];
        if (key < key_count) {
            if (active[key] == 0)
                key_total[key] = pk_add_saturating(key_total[key], sv->total[node]);
            active[key]++;
        }
        uint32_t child = first_child[node];
        while (child != PK_NONE && sv->total[child] == 0)
            child = next_sibling[child];
        if (child != PK_NONE) {
            node = child;
            continue;
        }
        /* Leave node and every finished caller until a sibling remains. */
        for (;;) {
            key = key_of_stack[node];
            if (key < key_count)
                active[key]--;
            uint32_t sibling = next_sibling[node];
            while (sibling != PK_NONE && sv->total[sibling] == 0)
                sibling = next_sibling[sibling];
            if (sibling != PK_NONE) {
                node = sibling;
                break;
            }
            node = pk_stack_at(p, node)->parent;
            if (node == PK_NONE)
                break;
        }
    }
    free(first_child);
    free(next_sibling);
    free(active);
    return PK_OK;
}
