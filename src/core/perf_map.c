/* SPDX-License-Identifier: MIT */
/* JIT symbol maps (perf-PID.map): see perf_map.h. The names are kept in one buffer and the
 * symbols sorted by start, so a lookup is a binary search. */
#include "core/perf_map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/array.h"

typedef struct perf_map_symbol {
    uint64_t start, size;
    size_t name, len; /* in names */
    size_t line;      /* later lines win ties */
} perf_map_symbol;

struct pk_perf_map {
    perf_map_symbol *symbols;
    size_t count, cap;
    char *names;
    size_t names_len, names_cap;
};

bool pk_perf_map_is_name(const char *base_name)
{
    if (strncmp(base_name, "perf-", 5) != 0)
        return false;
    const char *p = base_name + 5;
    const char *digits = p;
    while (*p >= '0' && *p <= '9')
        p++;
    return p > digits && strcmp(p, ".map") == 0;
}

static bool parse_hex(const char **cursor, const char *end, uint64_t *value)
{
    const char *p = *cursor;
    if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        p += 2;
    const char *digits = p;
    uint64_t v = 0;
    for (; p < end; p++) {
        unsigned d;
        if (*p >= '0' && *p <= '9')
            d = (unsigned)(*p - '0');
        else if (*p >= 'a' && *p <= 'f')
            d = (unsigned)(*p - 'a' + 10);
        else if (*p >= 'A' && *p <= 'F')
            d = (unsigned)(*p - 'A' + 10);
        else
            break;
        if (p - digits >= 16)
            return false; /* more than 64 bits */
        v = v << 4 | d;
    }
    if (p == digits)
        return false;
    *value = v;
    *cursor = p;
    return true;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* One line (without its end); false only when memory runs out. */
static bool take_line(pk_perf_map *m, const char *p, const char *end, size_t line)
{
    while (p < end && is_blank(*p))
        p++;
    uint64_t start, size;
    if (!parse_hex(&p, end, &start) || p == end || !is_blank(*p))
        return true;
    while (p < end && is_blank(*p))
        p++;
    if (!parse_hex(&p, end, &size) || p == end || !is_blank(*p))
        return true;
    while (p < end && is_blank(*p))
        p++;
    while (end > p && (end[-1] == '\r' || is_blank(end[-1])))
        end--;
    size_t len = (size_t)(end - p);
    if (len == 0)
        return true;
    if (!PK_ARRAY_RESERVE(m->names, m->names_cap, m->names_len + len) ||
        !PK_ARRAY_RESERVE(m->symbols, m->cap, m->count + 1))
        return false;
    memcpy(m->names + m->names_len, p, len);
    m->symbols[m->count++] = (perf_map_symbol){start, size, m->names_len, len, line};
    m->names_len += len;
    return true;
}

static int symbol_order(const void *a, const void *b)
{
    const perf_map_symbol *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

/* Sorts by start, keeping of the symbols at one start the last line's. */
static void finish(pk_perf_map *m)
{
    if (m->count < 2)
        return;
    qsort(m->symbols, m->count, sizeof *m->symbols, symbol_order);
    size_t kept = 0;
    for (size_t i = 0; i < m->count; i++) {
        if (kept > 0 && m->symbols[kept - 1].start == m->symbols[i].start)
            kept--;
        m->symbols[kept++] = m->symbols[i];
    }
    m->count = kept;
}

static pk_perf_map *map_new(void)
{
    return calloc(1, sizeof(pk_perf_map));
}

pk_perf_map *pk_perf_map_parse(const char *text, size_t len)
{
    pk_perf_map *m = map_new();
    if (!m)
        return NULL;
    const char *end = text + len;
    size_t line = 0;
    for (const char *p = text; p < end; line++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *line_end = nl ? nl : end;
        if (!take_line(m, p, line_end, line)) {
            pk_perf_map_free(m);
            return NULL;
        }
        p = nl ? nl + 1 : end;
    }
    finish(m);
    return m;
}

pk_perf_map *pk_perf_map_read(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    struct stat st;
    pk_perf_map *m = NULL;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode))
        m = map_new();
    char *buf = NULL;
    size_t cap = 0;
    size_t line = 0;
    ssize_t n;
    while (m && (n = getline(&buf, &cap, f)) >= 0) {
        size_t used = (size_t)n;
        if (used > 0 && buf[used - 1] == '\n')
            used--;
        if (!take_line(m, buf, buf + used, line++)) {
            pk_perf_map_free(m);
            m = NULL;
        }
    }
    free(buf);
    fclose(f);
    if (m)
        finish(m);
    return m;
}

void pk_perf_map_free(pk_perf_map *m)
{
    if (!m)
        return;
    free(m->symbols);
    free(m->names);
    free(m);
}

size_t pk_perf_map_count(const pk_perf_map *m)
{
    return m->count;
}

const char *pk_perf_map_find(const pk_perf_map *m, uint64_t address, size_t *len)
{
    /* The last symbol starting at or before address. */
    size_t lo = 0, hi = m->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->symbols[mid].start <= address)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    const perf_map_symbol *s = &m->symbols[lo - 1];
    bool covers = s->size ? address - s->start < s->size : address == s->start;
    if (!covers)
        return NULL;
    *len = s->len;
    return m->names + s->name;
}
