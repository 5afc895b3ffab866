/* SPDX-License-Identifier: MIT */
/* Display names of threads (profkit/thread_names.h): distinct for every thread, decided over
 * all of a profile's threads at once. Names are sorted to find the ones shared, so deciding
 * takes O(n log n) for n threads. */
#define _GNU_SOURCE /* qsort_r */
#include "profkit/thread_names.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buffer.h"

/* A generated name that collides with another thread's name is made distinct again by adding
 * the thread's position; this bounds how often that is tried before the position alone is
 * trusted (collisions after that need names built on purpose to collide). */
#define MAX_RENAMING_ROUNDS 8

struct pk_thread_names {
    size_t count;
    const char **names; /* into text */
    char *text;
};

typedef struct name_ref {
    uint32_t thread;
    size_t offset; /* into the builder's text */
} name_ref;

typedef struct builder {
    pk_buffer text;
    size_t *offsets; /* thread -> its current name in text */
    name_ref *sorted;
    bool *generated; /* thread -> its name is not the one the profile holds */
} builder;

/* Appends a formatted, NUL-terminated name to the text and makes it thread's name. */
static void set_name(builder *b, uint32_t thread, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_name(builder *b, uint32_t thread, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !pk_buffer_reserve(&b->text, (size_t)n + 1)) {
        b->text.failed = true;
        return;
    }
    va_start(ap, fmt);
    vsnprintf((char *)b->text.data + b->text.len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->offsets[thread] = b->text.len;
    b->text.len += (size_t)n + 1;
    b->generated[thread] = true;
}

static const char *name_of(const builder *b, uint32_t thread)
{
    return (const char *)b->text.data + b->offsets[thread];
}

static int compare_refs(const void *pa, const void *pb, void *context)
{
    const char *text = context;
    const name_ref *a = pa, *b = pb;
    int c = strcmp(text + a->offset, text + b->offset);
    if (c)
        return c;
    return a->thread < b->thread ? -1 : a->thread > b->thread;
}

/* Sorts the threads by current name (then by index), so that equal names are neighbours. */
static void sort_by_name(builder *b, size_t count)
{
    for (size_t i = 0; i < count; i++)
        b->sorted[i] = (name_ref){(uint32_t)i, b->offsets[i]};
    if (count > 1)
        qsort_r(b->sorted, count, sizeof *b->sorted, compare_refs, b->text.data);
}

static int compare_u64(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return (a > b) - (a < b);
}

/* Whether every thread of the group has a known id (the tid, or with_pid the pid and tid
 * together) and no two share it. */
static bool ids_tell_apart(const pk_profile *p, const name_ref *group, size_t n, bool with_pid,
                           uint64_t *scratch)
{
    for (size_t i = 0; i < n; i++) {
        const pk_thread *t = pk_thread_at(p, group[i].thread);
        if (t->tid < 0 || (with_pid && (t->pid < 0 || t->pid > UINT32_MAX || t->tid > UINT32_MAX)))
            return false;
        /* A pid and tid pair as one number; ids beyond 32 bits are not told apart this way. */
        scratch[i] = (with_pid ? (uint64_t)t->pid << 32 : 0) | (uint64_t)t->tid;
    }
    if (n > 1)
        qsort(scratch, n, sizeof *scratch, compare_u64);
    for (size_t i = 1; i < n; i++)
        if (scratch[i] == scratch[i - 1])
            return false;
    return true;
}

/* What the format the profile was read from calls a thread's id ("module"), else "tid": its
 * reader records it as the property "thread id name" (the core knows no format). */
static const char *thread_id_name(const pk_profile *p)
{
    const char *name = pk_property_get(p, "thread id name");
    return name && *name ? name : "tid";
}

/* Gives each thread of a group sharing one name a name that tells it apart. The group's
 * entries point at text that may move: the shared name is copied first. */
static void tell_group_apart(builder *b, const pk_profile *p, const name_ref *group, size_t n,
                             uint64_t *scratch)
{
    char *shared = strdup((const char *)b->text.data + group[0].offset);
    if (!shared) {
        b->text.failed = true;
        return;
    }
    if (ids_tell_apart(p, group, n, false, scratch)) {
        const char *id_name = thread_id_name(p);
        for (size_t i = 0; i < n; i++)
            set_name(b, group[i].thread, "%s (%s %" PRId64 ")", shared, id_name,
                     pk_thread_at(p, group[i].thread)->tid);
    } else if (ids_tell_apart(p, group, n, true, scratch)) {
        for (size_t i = 0; i < n; i++) {
            const pk_thread *t = pk_thread_at(p, group[i].thread);
            set_name(b, group[i].thread, "%s (pid %" PRId64 ", tid %" PRId64 ")", shared,
                     t->pid, t->tid);
        }
    } else {
        for (size_t i = 0; i < n; i++)
            set_name(b, group[i].thread, "%s #%zu", shared, i + 1);
    }
    free(shared);
}

/* One round over the sorted names: every run of equal names is handed to rename (the group's
 * threads in index order). Returns whether any run was found. */
static bool rename_shared(builder *b, const pk_profile *p, size_t count, bool by_ids,
                          uint64_t *scratch)
{
    sort_by_name(b, count);
    bool found = false;
    for (size_t start = 0; start < count && !b->text.failed;) {
        size_t end = start + 1;
        while (end < count && strcmp((const char *)b->text.data + b->sorted[start].offset,
                                     (const char *)b->text.data + b->sorted[end].offset) == 0)
            end++;
        if (end - start > 1) {
            found = true;
            if (by_ids) {
                tell_group_apart(b, p, b->sorted + start, end - start, scratch);
            } else {
                /* A generated name met another thread's name: a thread called so in the
                 * profile (else the first) keeps it, the others add their position among all
                 * threads, which no two threads share. */
                size_t keep = start;
                for (size_t i = start; i < end; i++)
                    if (!b->generated[b->sorted[i].thread]) {
                        keep = i;
                        break;
                    }
                for (size_t i = start; i < end; i++) {
                    uint32_t t = b->sorted[i].thread;
                    if (i == keep)
                        continue;
                    char *old = strdup(name_of(b, t));
                    if (!old) {
                        b->text.failed = true;
                        break;
                    }
                    set_name(b, t, "%s #%" PRIu32, old, t + 1);
                    free(old);
                }
            }
        }
        start = end;
    }
    return found;
}

pk_thread_names *pk_thread_names_new(const pk_profile *p)
{
    size_t count = pk_thread_count(p);
    pk_thread_names *names = calloc(1, sizeof *names);
    builder b = {.text = PK_BUFFER_INIT};
    uint64_t *scratch = NULL;
    if (!names)
        return NULL;
    names->count = count;
    if (count) {
        b.offsets = malloc(count * sizeof *b.offsets);
        b.sorted = malloc(count * sizeof *b.sorted);
        b.generated = calloc(count, sizeof *b.generated);
        scratch = malloc(count * sizeof *scratch);
        names->names = malloc(count * sizeof *names->names);
        if (!b.offsets || !b.sorted || !b.generated || !scratch || !names->names)
            goto nomem;
    }
    for (uint32_t t = 0; t < count; t++) {
        const pk_thread *th = pk_thread_at(p, t);
        if (pk_str_len(p, th->name)) {
            set_name(&b, t, "%s", pk_str(p, th->name));
            b.generated[t] = false;
        } else
            set_name(&b, t, "Thread %" PRId64, th->tid >= 0 ? th->tid : (int64_t)t + 1);
    }
    if (!b.text.failed)
        rename_shared(&b, p, count, true, scratch);
    for (int round = 0; round < MAX_RENAMING_ROUNDS && !b.text.failed; round++)
        if (!rename_shared(&b, p, count, false, scratch))
            break;
    if (b.text.failed)
        goto nomem;
    names->text = (char *)b.text.data;
    for (size_t t = 0; t < count; t++)
        names->names[t] = names->text + b.offsets[t];
    free(b.offsets);
    free(b.sorted);
    free(b.generated);
    free(scratch);
    return names;
nomem:
    pk_buffer_free(&b.text);
    free(b.offsets);
    free(b.sorted);
    free(b.generated);
    free(scratch);
    free(names->names);
    free(names);
    return NULL;
}

void pk_thread_names_free(pk_thread_names *names)
{
    if (!names)
        return;
    free(names->text);
    free(names->names);
    free(names);
}

const char *pk_thread_display_name(const pk_thread_names *names, uint32_t thread)
{
    return names && thread < names->count ? names->names[thread] : "";
}
