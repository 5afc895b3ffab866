/* SPDX-License-Identifier: MIT */
/* Rows selected and moved to threads by their labels (profkit/label_select.h): a copy of the
 * profile whose row hook decides per source row. What a label set comes to (whether it matches,
 * which thread its value names) is worked out once per set of the source, so the copy costs a
 * lookup per row. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/hashmap.h"
#include "profkit/label_select.h"
#include "profkit/merge.h"

/* A selector, split: its key and the text of its value, which for numeric labels is read as a
 * number (is_number false when it is not one). */
typedef struct selector {
    const char *key;
    size_t key_length;
    const char *value;
    bool is_number;
    int64_t number;
} selector;

enum { SET_UNKNOWN = 0, SET_MATCHES, SET_REFUSED };

typedef struct select_state {
    const selector *selectors;
    size_t selector_count;
    const char *threads_by;
    uint8_t *set_matches;   /* src label set -> SET_* */
    uint32_t *set_threads;  /* src label set -> dst thread, PK_NONE: keep the row's thread */
    bool *set_threaded;     /* src label set -> set_threads worked out */
    pk_u64map thread_named; /* dst string (a thread name) -> dst thread made for it */
    size_t kept_rows, moved_rows;
} select_state;

static bool key_is(const pk_profile *p, uint32_t key, const char *text, size_t length)
{
    return pk_str_len(p, key) == length && memcmp(pk_str(p, key), text, length) == 0;
}

static bool label_matches(const pk_profile *p, const pk_label *l, const selector *s)
{
    if (!key_is(p, l->key, s->key, s->key_length))
        return false;
    if (l->str == PK_NONE)
        return s->is_number && l->num == s->number;
    return pk_str_len(p, l->str) == strlen(s->value) && strcmp(pk_str(p, l->str), s->value) == 0;
}

/* Whether the labels match every key of the selectors (one of the selectors of each key). */
static bool set_matches(const select_state *st, const pk_profile *p, uint32_t set)
{
    const pk_label *labels;
    size_t count = pk_label_set_at(p, set, &labels);
    for (size_t i = 0; i < st->selector_count; i++) {
        const selector *s = &st->selectors[i];
        bool key_seen_before = false;
        for (size_t k = 0; k < i && !key_seen_before; k++)
            key_seen_before = st->selectors[k].key_length == s->key_length &&
                              memcmp(st->selectors[k].key, s->key, s->key_length) == 0;
        if (key_seen_before)
            continue; /* the key was decided with its first selector */
        bool any = false;
        for (size_t j = i; j < st->selector_count && !any; j++) {
            const selector *alt = &st->selectors[j];
            if (alt->key_length != s->key_length || memcmp(alt->key, s->key, s->key_length))
                continue;
            for (size_t l = 0; l < count && !any; l++)
                any = label_matches(p, &labels[l], alt);
        }
        if (!any)
            return false;
    }
    return true;
}

/* The dst thread for the value of label threads_by in src set `set`, PK_NONE when the set has
 * no such label; false when memory runs out. */
static bool thread_of_set(select_state *st, const pk_profile *src, uint32_t set, pk_profile *dst,
                          uint32_t *thread)
{
    *thread = PK_NONE;
    const pk_label *labels;
    size_t count = pk_label_set_at(src, set, &labels);
    const pk_label *by = NULL;
    for (size_t i = 0; i < count && !by; i++)
        if (key_is(src, labels[i].key, st->threads_by, strlen(st->threads_by)))
            by = &labels[i];
    if (!by)
        return true;
    uint32_t name;
    if (by->str != PK_NONE)
        name = pk_intern(dst, pk_str(src, by->str), pk_str_len(src, by->str));
    else if (pk_str_len(src, by->unit) > 0)
        name = pk_intern_printf(dst, "%" PRId64 " %s", by->num, pk_str(src, by->unit));
    else
        name = pk_intern_printf(dst, "%" PRId64, by->num);
    if (name == PK_NONE)
        return false;
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&st->thread_named, name, PK_NONE, &slot, &inserted))
        return false;
    if (inserted) {
        uint32_t made = pk_add_thread(dst, name, -1, -1);
        if (made == PK_NONE)
            return false;
        *slot = made; /* pk_add_thread left the table as it was */
        *thread = made;
        return true;
    }
    *thread = *slot;
    return true;
}

static int select_row(void *context, const pk_profile *src, size_t row, pk_profile *dst,
                      uint32_t *thread)
{
    select_state *st = context;
    uint32_t set = pk_sample_label_set(src, row);
    if (st->selector_count) {
        if (set == PK_NONE)
            return 0;
        if (st->set_matches[set] == SET_UNKNOWN)
            st->set_matches[set] = set_matches(st, src, set) ? SET_MATCHES : SET_REFUSED;
        if (st->set_matches[set] == SET_REFUSED)
            return 0;
    }
    st->kept_rows++;
    if (st->threads_by && set != PK_NONE) {
        if (!st->set_threaded[set]) {
            if (!thread_of_set(st, src, set, dst, &st->set_threads[set]))
                return -1;
            st->set_threaded[set] = true;
        }
        if (st->set_threads[set] != PK_NONE) {
            *thread = st->set_threads[set];
            st->moved_rows++;
        }
    }
    return 1;
}

/* Splits the selectors; PK_ERR_USAGE for one that is not KEY=VALUE. */
static pk_status parse_selectors(const char *const *texts, size_t count, selector *out,
                                 pk_error *err)
{
    for (size_t i = 0; i < count; i++) {
        const char *equals = strchr(texts[i], '=');
        if (!equals || equals == texts[i])
            return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET,
                                "label selector '%s' is not KEY=VALUE", texts[i]);
        selector *s = &out[i];
        s->key = texts[i];
        s->key_length = (size_t)(equals - texts[i]);
        s->value = equals + 1;
        char *end;
        errno = 0;
        long long number = strtoll(s->value, &end, 10);
        s->is_number = *s->value && !*end && errno == 0;
        s->number = number;
    }
    return PK_OK;
}

pk_status pk_select_by_labels(const pk_profile *src, const char *const *selectors,
                              size_t selector_count, const char *threads_by, pk_profile **out,
                              pk_error *err)
{
    *out = NULL;
    if (threads_by && !*threads_by)
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET, "the label to split threads by "
                                                             "is empty");
    size_t sets = pk_label_set_count(src);
    select_state st = {.selector_count = selector_count, .threads_by = threads_by};
    selector *parsed = calloc(selector_count ? selector_count : 1, sizeof *parsed);
    st.set_matches = calloc(sets ? sets : 1, sizeof *st.set_matches);
    st.set_threads = calloc(sets ? sets : 1, sizeof *st.set_threads);
    st.set_threaded = calloc(sets ? sets : 1, sizeof *st.set_threaded);
    pk_u64map_init(&st.thread_named);
    pk_profile *dst = pk_profile_new();
    pk_status status;
    if (!parsed || !st.set_matches || !st.set_threads || !st.set_threaded || !dst) {
        status = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
        goto done;
    }
    status = parse_selectors(selectors, selector_count, parsed, err);
    if (status != PK_OK)
        goto done;
    st.selectors = parsed;
    pk_copy_options options = {.map_row = select_row, .map_context = &st};
    status = pk_profile_copy(dst, src, &options, err);
    if (status != PK_OK)
        goto done;
    if (selector_count && st.kept_rows == 0 && pk_sample_count(src) > 0)
        pk_warn(dst, "no sample has labels that match the selection");
    if (threads_by && st.moved_rows == 0 && st.kept_rows > 0)
        pk_warn(dst, "no sample has the label '%s': threads are as they were", threads_by);
done:
    free(parsed);
    free(st.set_matches);
    free(st.set_threads);
    free(st.set_threaded);
    pk_u64map_free(&st.thread_named);
    if (status != PK_OK) {
        pk_profile_free(dst);
        return status;
    }
    *out = dst;
    return PK_OK;
}
