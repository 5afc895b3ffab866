/* SPDX-License-Identifier: MIT */
#include "core/procmaps.h"

#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/hex.h"
#include "core/path.h"

/* ---- characters and tokens ------------------------------------------------------------------- */

static bool is_word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static bool is_hex_char(char c)
{
    return pk_hex_digit(c) >= 0;
}

static bool is_decimal_char(char c)
{
    return c >= '0' && c <= '9';
}

/* Parses 1 to 16 hex digits at *s, advancing *s past them. */
static bool parse_hex(const char **s, const char *end, uint64_t *value)
{
    const char *p = *s;
    uint64_t v = 0;
    int digits = 0;
    for (; p < end && is_hex_char(*p); p++, digits++) {
        if (digits == 16)
            return false;
        v = v << 4 | (uint64_t)pk_hex_digit(*p);
    }
    if (digits == 0)
        return false;
    *s = p;
    *value = v;
    return true;
}

static void skip_spaces(const char **s, const char *end)
{
    while (*s < end && is_space(**s))
        (*s)++;
}

/* The length of the token at s: up to the next space or the end. */
static size_t token_length(const char *s, const char *end)
{
    size_t n = 0;
    while (s + n < end && !is_space(s[n]))
        n++;
    return n;
}

/* True when s holds n > 0 characters, all of them accepted by pred. */
static bool all_of(const char *s, size_t n, bool (*pred)(char))
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!pred(s[i]))
            return false;
    return true;
}

static bool is_perms(const char *s, size_t n)
{
    return n == 4 && (s[0] == 'r' || s[0] == '-') && (s[1] == 'w' || s[1] == '-') &&
           (s[2] == 'x' || s[2] == '-') && (s[3] == 'p' || s[3] == 's' || s[3] == '-');
}

/* A device number as Linux prints it: major:minor in hex. */
static bool is_device(const char *s, size_t n)
{
    const char *colon = memchr(s, ':', n);
    return colon && all_of(s, (size_t)(colon - s), is_hex_char) &&
           all_of(colon + 1, n - (size_t)(colon - s) - 1, is_hex_char);
}

/* ---- one line ---------------------------------------------------------------------------------- */

/* The part of a mapping line after "start-end[:] [perms]": Linux's "offset dev inode [path]",
 * else the brief "path [(@offset)] [build-id]". */
static void parse_mapping_rest(const char *p, const char *end, pk_procmaps_line *out)
{
    size_t offset_len = token_length(p, end);
    const char *dev = p + offset_len;
    skip_spaces(&dev, end);
    size_t dev_len = token_length(dev, end);
    const char *inode = dev + dev_len;
    skip_spaces(&inode, end);
    size_t inode_len = token_length(inode, end);
    if (offset_len > 0 && offset_len <= 16 && all_of(p, offset_len, is_hex_char) &&
        is_device(dev, dev_len) && all_of(inode, inode_len, is_decimal_char)) {
        const char *o = p;
        parse_hex(&o, p + offset_len, &out->offset);
        const char *path = inode + inode_len;
        skip_spaces(&path, end);
        const char *path_end = end;
        static const char deleted[] = " (deleted)";
        size_t deleted_len = sizeof deleted - 1;
        if ((size_t)(path_end - path) > deleted_len &&
            memcmp(path_end - deleted_len, deleted, deleted_len) == 0)
            path_end -= deleted_len;
        out->path = path;
        out->path_len = (size_t)(path_end - path);
        return;
    }
    out->path = p;
    out->path_len = token_length(p, end);
    const char *rest = p + out->path_len;
    skip_spaces(&rest, end);
    size_t n = token_length(rest, end);
    if (n > 3 && rest[0] == '(' && rest[1] == '@' && rest[n - 1] == ')') {
        const char *o = rest + 2;
        uint64_t offset;
        if (parse_hex(&o, rest + n - 1, &offset) && o == rest + n - 1)
            out->offset = offset;
        rest += n;
        skip_spaces(&rest, end);
        n = token_length(rest, end);
    }
    if (all_of(rest, n, is_hex_char)) {
        out->build_id = rest;
        out->build_id_len = n;
    }
}

pk_procmaps_line_kind pk_procmaps_parse_line(const char *line, size_t len, pk_procmaps_line *out)
{
    memset(out, 0, sizeof *out);
    out->path = out->build_id = out->name = out->value = line;
    const char *s = line, *end = line + len;
    skip_spaces(&s, end);
    while (end > s && is_space(end[-1]))
        end--;

    const char *p = s;
    uint64_t start, limit;
    if (parse_hex(&p, end, &start) && p < end && *p == '-' && (p++, parse_hex(&p, end, &limit)) &&
        (p == end || is_space(*p) || *p == ':')) {
        if (p < end && *p == ':')
            p++;
        skip_spaces(&p, end);
        out->kind = PK_PROCMAPS_MAPPING;
        out->start = start;
        out->limit = limit;
        out->executable = true;
        size_t n = token_length(p, end);
        if (is_perms(p, n)) {
            memcpy(out->perms, p, 4);
            out->executable = p[2] == 'x';
            p += n;
            skip_spaces(&p, end);
        }
        parse_mapping_rest(p, end, out);
        return out->kind;
    }

    const char *eq = memchr(s, '=', (size_t)(end - s));
    if (!eq)
        return PK_PROCMAPS_OTHER;
    const char *name_end = eq;
    while (name_end > s && is_space(name_end[-1]))
        name_end--;
    for (const char *k = s; k < name_end; k++)
        if (!is_word_char(*k))
            return PK_PROCMAPS_OTHER;
    if (name_end == s)
        return PK_PROCMAPS_OTHER;
    const char *value = eq + 1;
    skip_spaces(&value, end);
    out->kind = PK_PROCMAPS_VARIABLE;
    out->name = s;
    out->name_len = (size_t)(name_end - s);
    out->value = value;
    out->value_len = (size_t)(end - value);
    return out->kind;
}

/* ---- variables ----------------------------------------------------------------------------------- */

typedef struct name_key {
    const char *text;
    size_t len;
} name_key;

static bool variable_named(const void *context, uint32_t entry, const void *key)
{
    const pk_procmaps *m = context;
    const name_key *k = key;
    const char *name = m->variables[entry].name;
    return strlen(name) == k->len && memcmp(name, k->text, k->len) == 0;
}

static pk_procmaps_variable *find_variable(const pk_procmaps *m, const char *name, size_t len)
{
    if (m->variable_count == 0)
        return NULL;
    name_key key = {name, len};
    uint32_t found =
        pk_index_find(&m->variable_index, pk_hash_bytes(name, len), variable_named, m, &key);
    return found == UINT32_MAX ? NULL : &m->variables[found];
}

/* Defines (or redefines) a variable; false when memory runs out. */
static bool define_variable(pk_procmaps *m, const pk_procmaps_line *line)
{
    char *value = strndup(line->value, line->value_len);
    if (!value)
        return false;
    pk_procmaps_variable *known = find_variable(m, line->name, line->name_len);
    if (known) {
        free(known->value);
        known->value = value;
        return true;
    }
    char *name = strndup(line->name, line->name_len);
    if (!name || m->variable_count >= UINT32_MAX - 1 ||
        !PK_ARRAY_RESERVE(m->variables, m->variable_capacity, m->variable_count + 1) ||
        !pk_index_insert(&m->variable_index, pk_hash_bytes(line->name, line->name_len),
                         (uint32_t)m->variable_count)) {
        free(name);
        free(value);
        return false;
    }
    m->variables[m->variable_count++] = (pk_procmaps_variable){name, value};
    return true;
}

typedef enum expansion { EXPANDED, TOO_LONG, OUT_OF_MEMORY } expansion;

/* Replaces each $NAME of a defined variable in one pass (a value put in is not searched
 * again), into m->expanded. */
static expansion expand_variables(pk_procmaps *m, const char **line, size_t *len)
{
    const char *text = *line;
    size_t text_len = *len;
    if (m->variable_count == 0 || !memchr(text, '$', text_len))
        return EXPANDED;
    size_t n = 0;
    for (size_t i = 0; i < text_len;) {
        const char *piece = text + i;
        size_t piece_len = 1, consumed = 1;
        if (text[i] == '$') {
            size_t name_end = i + 1;
            while (name_end < text_len && is_word_char(text[name_end]))
                name_end++;
            const pk_procmaps_variable *v =
                name_end > i + 1 ? find_variable(m, text + i + 1, name_end - i - 1) : NULL;
            if (v) {
                piece = v->value;
                piece_len = strlen(v->value);
                consumed = name_end - i;
            }
        }
        if (n + piece_len > PK_PROCMAPS_MAX_LINE)
            return TOO_LONG;
        if (!PK_ARRAY_RESERVE(m->expanded, m->expanded_capacity, n + piece_len))
            return OUT_OF_MEMORY;
        memcpy(m->expanded + n, piece, piece_len);
        n += piece_len;
        i += consumed;
    }
    *line = m->expanded;
    *len = n;
    return EXPANDED;
}

/* ---- the mappings ----------------------------------------------------------------------------- */

void pk_procmaps_init(pk_procmaps *m)
{
    memset(m, 0, sizeof *m);
    pk_index_init(&m->variable_index);
}

void pk_procmaps_free(pk_procmaps *m)
{
    for (size_t i = 0; i < m->count; i++) {
        free(m->items[i].path);
        free(m->items[i].build_id);
    }
    free(m->items);
    for (size_t i = 0; i < m->variable_count; i++) {
        free(m->variables[i].name);
        free(m->variables[i].value);
    }
    free(m->variables);
    pk_index_free(&m->variable_index);
    free(m->expanded);
    pk_procmaps_init(m);
}

static bool add_mapping(pk_procmaps *m, const pk_procmaps_line *line, size_t index)
{
    if (!line->executable || line->limit <= line->start)
        return true;
    pk_procmap mapping = {line->start, line->limit, line->offset, NULL, NULL, index};
    mapping.path = strndup(line->path, line->path_len);
    if (line->build_id_len)
        mapping.build_id = strndup(line->build_id, line->build_id_len);
    if (!mapping.path || (line->build_id_len && !mapping.build_id) ||
        !PK_ARRAY_RESERVE(m->items, m->capacity, m->count + 1)) {
        free(mapping.path);
        free(mapping.build_id);
        return false;
    }
    m->items[m->count++] = mapping;
    return true;
}

bool pk_procmaps_add_line(pk_procmaps *m, const char *line, size_t len)
{
    size_t index = m->lines++;
    if (len > PK_PROCMAPS_MAX_LINE)
        return true;
    switch (expand_variables(m, &line, &len)) {
    case TOO_LONG: return true;
    case OUT_OF_MEMORY: return false;
    case EXPANDED: break;
    }
    pk_procmaps_line parsed;
    switch (pk_procmaps_parse_line(line, len, &parsed)) {
    case PK_PROCMAPS_MAPPING: return add_mapping(m, &parsed, index);
    case PK_PROCMAPS_VARIABLE: return define_variable(m, &parsed);
    case PK_PROCMAPS_OTHER: break;
    }
    return true;
}

static int compare_mappings(const void *a, const void *b)
{
    const pk_procmap *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

static bool same_text(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

void pk_procmaps_finish(pk_procmaps *m)
{
    if (m->count > 1)
        qsort(m->items, m->count, sizeof *m->items, compare_mappings);
    size_t kept = 0;
    for (size_t i = 0; i < m->count; i++) {
        pk_procmap *cur = &m->items[i];
        if (kept > 0) {
            pk_procmap *prev = &m->items[kept - 1];
            if (prev->limit == cur->start && *cur->path && strcmp(prev->path, cur->path) == 0 &&
                prev->offset + (prev->limit - prev->start) == cur->offset &&
                same_text(prev->build_id, cur->build_id)) {
                prev->limit = cur->limit;
                free(cur->path);
                free(cur->build_id);
                continue;
            }
        }
        m->items[kept++] = *cur;
    }
    m->count = kept;
}

pk_status pk_procmaps_read(pk_procmaps *m, pk_input *in, pk_error *err)
{
    const char *line;
    int64_t len;
    while ((len = pk_in_line(in, &line, PK_PROCMAPS_MAX_LINE)) != -1) {
        if (len < 0) {
            m->lines++; /* over-long: no line of maps text, but a line of the text */
            continue;
        }
        if (!pk_procmaps_add_line(m, line, (size_t)len))
            return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    }
    if (pk_in_error(in))
        return pk_error_set(err, PK_ERR_IO, (int64_t)pk_in_offset(in), "read error");
    pk_procmaps_finish(m);
    return PK_OK;
}

size_t pk_procmaps_find(const pk_procmaps *m, uint64_t address)
{
    size_t lo = 0, hi = m->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->items[mid].start <= address)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* Mappings may overlap: a few below the last one that starts at or before address. */
    for (size_t i = lo, steps = 0; i-- > 0 && steps < 8; steps++)
        if (address < m->items[i].limit)
            return i;
    return PK_PROCMAPS_NONE;
}

/* "libc.so.6", "libm.so": ".so" at the end of the base name or before a version. */
static bool is_shared_library(const char *path)
{
    const char *base = pk_path_basename(path);
    for (const char *so = strstr(base, ".so"); so; so = strstr(so + 1, ".so"))
        if (so[3] == '\0' || so[3] == '.')
            return true;
    return false;
}

const pk_procmap *pk_procmaps_program(const pk_procmaps *m)
{
    const pk_procmap *best = NULL;
    for (size_t i = 0; i < m->count; i++) {
        const pk_procmap *x = &m->items[i];
        if (!*x->path || x->path[0] == '[' || is_shared_library(x->path))
            continue;
        if (!best || x->line < best->line)
            best = x;
    }
    return best;
}
