/* gperftools CPU profiles (libprofiler's CPUPROFILE output).
 *
 * Layout: pointer-sized "slots" in the profiled machine's byte order, no magic. A header of
 * slots 0, n (>= 3 header slots follow), version, sampling period in microseconds, padding;
 * records of count, depth and depth PCs (leaf first); the trailer 0, 1, 0; then the text of
 * /proc/self/maps to the end of the file. The word size and byte order are found as pprof
 * finds them: the first of 32-bit LE, 32-bit BE, 64-bit LE, 64-bit BE whose header reads right.
 *
 * The reader streams the records into a prefix tree of addresses (callers' return addresses
 * minus one, as pprof looks them up), summing identical stacks. The mappings only come after
 * the records, so the profile's frames, named from the binaries by the symbolizer, are made
 * once the whole file is read: one chain of frames per distinct address, then one pass over
 * the tree.
 */
#include <endian.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>

#include "core/array.h"
#include "core/hashmap.h"
#include "core/input.h"
#include "core/output.h"
#include "core/symbolize.h"
#include "formats/formats.h"

/* gperftools records at most 254 PCs; perl pprof refuses more than 2^16. A deeper record that
 * runs past the end of the file is damage, not a truncated record. */
#define GP_MAX_PLAUSIBLE_DEPTH 65536u
/* Longest maps line considered (Go pprof's scanner stops at 64 KiB). */
#define GP_MAX_LINE 65536u
/* Non-raw dumps hold the records until the mappings are known, up to this many words. */
#define GP_DUMP_HOLD_WORDS (8u << 20)

typedef struct gp_layout {
    unsigned word; /* 4 or 8 */
    bool big;      /* big-endian */
} gp_layout;

static inline uint64_t gp_word(const uint8_t *b, gp_layout l)
{
    if (l.word == 8) {
        uint64_t v;
        memcpy(&v, b, 8);
        return l.big ? be64toh(v) : le64toh(v);
    }
    uint32_t v;
    memcpy(&v, b, 4);
    return l.big ? be32toh(v) : le32toh(v);
}

/* Header slots 0..2 must read 0, >= 3, and 0 (C++) or 1 (Java). Needs 3 words of data.
 * Slot 1 is bounded so that a byte-swapped 3 (0x03000000...) does not pass for a long header
 * of the other byte order. */
#define GP_MAX_HEADER_SLOTS 0xffffu

static bool gp_detect(const uint8_t *data, size_t size, gp_layout *out)
{
    static const gp_layout layouts[] = {{4, false}, {4, true}, {8, false}, {8, true}};
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
        gp_layout l = layouts[i];
        if (size < 3u * l.word)
            continue;
        uint64_t w0 = gp_word(data, l), w1 = gp_word(data + l.word, l);
        uint64_t w2 = gp_word(data + 2 * l.word, l);
        if (w0 == 0 && w1 >= 3 && w1 <= GP_MAX_HEADER_SLOTS && w2 <= 1) {
            *out = l;
            return true;
        }
    }
    return false;
}

static int gp_probe(const uint8_t *data, size_t size)
{
    gp_layout l;
    if (!gp_detect(data, size, &l))
        return PK_PROBE_NO;
    if (size < 5u * l.word)
        return PK_PROBE_WEAK; /* a cut header: let the reader say so */
    uint64_t words = gp_word(data + l.word, l), period = gp_word(data + 3 * l.word, l);
    uint64_t pad = gp_word(data + 4 * l.word, l);
    if (words > 1024)
        return PK_PROBE_NO;
    if (words != 3 || pad != 0 || period == 0)
        return PK_PROBE_WEAK;
    /* A first record (or the trailer) that reads right makes it near certain. */
    size_t first = 5u * l.word;
    if (size >= first + 3u * l.word) {
        uint64_t depth = gp_word(data + first + l.word, l);
        if (depth >= 1 && depth <= GP_MAX_PLAUSIBLE_DEPTH)
            return PK_PROBE_LIKELY + 20;
    }
    return PK_PROBE_LIKELY;
}

/* ---- mappings ---------------------------------------------------------------------------------- */

typedef struct gp_mapping {
    uint64_t start, limit, offset;
    char *path;     /* "" when anonymous */
    char *build_id; /* NULL when not given */
    size_t line;    /* 0-based position in the maps text, for file order */
} gp_mapping;

typedef struct gp_attr {
    char *name;
    char *value;
} gp_attr;

typedef struct gp_maps {
    gp_mapping *items;
    size_t count, cap;
    gp_attr *attrs;
    size_t attr_count, attr_cap;
    char *line; /* substitution buffer */
    size_t line_cap;
    size_t lines;
} gp_maps;

static void gp_maps_free(gp_maps *m)
{
    for (size_t i = 0; i < m->count; i++) {
        free(m->items[i].path);
        free(m->items[i].build_id);
    }
    free(m->items);
    for (size_t i = 0; i < m->attr_count; i++) {
        free(m->attrs[i].name);
        free(m->attrs[i].value);
    }
    free(m->attrs);
    free(m->line);
    memset(m, 0, sizeof *m);
}

static bool gp_is_word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static bool gp_is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static int gp_hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Parses 1..16 hex digits at *s; advances *s. */
static bool gp_parse_hex(const char **s, const char *end, uint64_t *value)
{
    const char *p = *s;
    uint64_t v = 0;
    int digits = 0;
    for (; p < end && gp_hex_digit(*p) >= 0; p++, digits++) {
        if (digits == 16)
            return false;
        v = v << 4 | (uint64_t)gp_hex_digit(*p);
    }
    if (digits == 0)
        return false;
    *s = p;
    *value = v;
    return true;
}

static void gp_skip_spaces(const char **s, const char *end)
{
    while (*s < end && gp_is_space(**s))
        (*s)++;
}

/* The token at *s (up to a space) without consuming it. */
static size_t gp_token_len(const char *s, const char *end)
{
    size_t n = 0;
    while (s + n < end && !gp_is_space(s[n]))
        n++;
    return n;
}

static bool gp_is_perms(const char *s, size_t n)
{
    return n == 4 && (s[0] == 'r' || s[0] == '-') && (s[1] == 'w' || s[1] == '-') &&
           (s[2] == 'x' || s[2] == '-') && (s[3] == 'p' || s[3] == 's' || s[3] == '-');
}

static bool gp_all(const char *s, size_t n, bool (*pred)(char))
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!pred(s[i]))
            return false;
    return true;
}

static bool gp_is_hex_char(char c)
{
    return gp_hex_digit(c) >= 0;
}

static bool gp_is_dec_char(char c)
{
    return c >= '0' && c <= '9';
}

static bool gp_is_device(const char *s, size_t n)
{
    const char *colon = memchr(s, ':', n);
    return colon && gp_all(s, (size_t)(colon - s), gp_is_hex_char) &&
           gp_all(colon + 1, n - (size_t)(colon - s) - 1, gp_is_hex_char);
}

static char *gp_strndup(const char *s, size_t n)
{
    char *copy = malloc(n + 1);
    if (copy) {
        memcpy(copy, s, n);
        copy[n] = '\0';
    }
    return copy;
}

/* Replaces each $NAME (followed by a non-word character or the end) defined by an earlier
 * NAME=value line. Returns the line to parse (the input or m->line); NULL when it grows past
 * GP_MAX_LINE or memory runs out. */
static const char *gp_substitute(gp_maps *m, const char *line, size_t *len)
{
    if (m->attr_count == 0 || !memchr(line, '$', *len))
        return line;
    const char *text = line;
    size_t text_len = *len;
    char *scratch = NULL;
    for (size_t a = 0; a < m->attr_count; a++) {
        const gp_attr *attr = &m->attrs[a];
        size_t name_len = strlen(attr->name), value_len = strlen(attr->value);
        size_t cap = 0, n = 0;
        char *out = NULL;
        bool changed = false;
        for (size_t i = 0; i < text_len;) {
            bool match = text[i] == '$' && i + 1 + name_len <= text_len &&
                         memcmp(text + i + 1, attr->name, name_len) == 0 &&
                         (i + 1 + name_len == text_len || !gp_is_word_char(text[i + 1 + name_len]));
            const char *piece = match ? attr->value : text + i;
            size_t piece_len = match ? value_len : 1;
            if (n + piece_len > GP_MAX_LINE || !PK_ARRAY_RESERVE(out, cap, n + piece_len + 1)) {
                free(out);
                free(scratch);
                return NULL;
            }
            memcpy(out + n, piece, piece_len);
            n += piece_len;
            i += match ? 1 + name_len : 1;
            changed |= match;
        }
        if (!changed) {
            free(out);
            continue;
        }
        free(scratch);
        scratch = out;
        text = out;
        text_len = n;
    }
    if (!scratch)
        return line;
    free(m->line);
    m->line = scratch;
    m->line_cap = text_len + 1;
    *len = text_len;
    return m->line;
}

typedef enum gp_line_kind {
    GP_LINE_OTHER,
    GP_LINE_MAPPING,      /* an executable (or unknown-permission) mapping */
    GP_LINE_DATA_MAPPING, /* a mapping without x permission */
    GP_LINE_ATTRIBUTE
} gp_line_kind;

/* Recognises one line: "start-end perms offset dev inode path" (/proc/maps), the brief
 * "start-end[:] [perms] path [(@offset)] [build-id]", or NAME=value. */
static gp_line_kind gp_parse_line(const char *line, size_t len, gp_mapping *m, char **name,
                                  char **value)
{
    const char *s = line, *end = line + len;
    gp_skip_spaces(&s, end);
    while (end > s && gp_is_space(end[-1]))
        end--;
    const char *p = s;
    uint64_t start, limit;
    if (gp_parse_hex(&p, end, &start) && p < end && *p == '-' && (p++, gp_parse_hex(&p, end, &limit)) &&
        (p == end || gp_is_space(*p) || *p == ':')) {
        if (p < end && *p == ':')
            p++;
        gp_skip_spaces(&p, end);
        memset(m, 0, sizeof *m);
        m->start = start;
        m->limit = limit;
        bool exec = true;
        size_t n = gp_token_len(p, end);
        if (gp_is_perms(p, n)) {
            exec = p[2] == 'x';
            p += n;
            gp_skip_spaces(&p, end);
        }
        /* /proc/maps: offset, device, inode, then the path to the end of the line. */
        const char *q = p;
        size_t offset_len = gp_token_len(q, end);
        const char *dev = q + offset_len;
        gp_skip_spaces(&dev, end);
        size_t dev_len = gp_token_len(dev, end);
        const char *inode = dev + dev_len;
        gp_skip_spaces(&inode, end);
        size_t inode_len = gp_token_len(inode, end);
        const char *path, *path_end = end;
        if (offset_len > 0 && offset_len <= 16 && gp_all(q, offset_len, gp_is_hex_char) &&
            gp_is_device(dev, dev_len) && gp_all(inode, inode_len, gp_is_dec_char)) {
            const char *o = q;
            gp_parse_hex(&o, q + offset_len, &m->offset);
            path = inode + inode_len;
            gp_skip_spaces(&path, end);
            static const char deleted[] = " (deleted)";
            size_t dl = sizeof deleted - 1;
            if ((size_t)(path_end - path) > dl && memcmp(path_end - dl, deleted, dl) == 0)
                path_end -= dl;
        } else {
            path = p;
            path_end = p + gp_token_len(p, end);
            const char *rest = path_end;
            gp_skip_spaces(&rest, end);
            size_t rn = gp_token_len(rest, end);
            if (rn > 3 && rest[0] == '(' && rest[1] == '@' && rest[rn - 1] == ')') {
                const char *o = rest + 2;
                uint64_t off;
                if (gp_parse_hex(&o, rest + rn - 1, &off) && o == rest + rn - 1)
                    m->offset = off;
                rest += rn;
                gp_skip_spaces(&rest, end);
                rn = gp_token_len(rest, end);
            }
            if (rn > 0 && gp_all(rest, rn, gp_is_hex_char)) {
                m->build_id = gp_strndup(rest, rn);
                if (!m->build_id)
                    return GP_LINE_OTHER;
            }
        }
        m->path = gp_strndup(path, (size_t)(path_end - path));
        if (!m->path) {
            free(m->build_id);
            m->build_id = NULL;
            return GP_LINE_OTHER;
        }
        return exec ? GP_LINE_MAPPING : GP_LINE_DATA_MAPPING;
    }
    const char *eq = memchr(s, '=', (size_t)(end - s));
    if (eq) {
        const char *key_end = eq;
        while (key_end > s && gp_is_space(key_end[-1]))
            key_end--;
        bool word = key_end > s;
        for (const char *k = s; k < key_end; k++)
            word &= gp_is_word_char(*k);
        if (word) {
            const char *v = eq + 1;
            gp_skip_spaces(&v, end);
            *name = gp_strndup(s, (size_t)(key_end - s));
            *value = gp_strndup(v, (size_t)(end - v));
            if (*name && *value)
                return GP_LINE_ATTRIBUTE;
            free(*name);
            free(*value);
        }
    }
    return GP_LINE_OTHER;
}

/* Handles one line of maps text; false when memory runs out. */
static bool gp_maps_line(gp_maps *m, const char *line, size_t len)
{
    size_t index = m->lines++;
    line = gp_substitute(m, line, &len);
    if (!line)
        return true; /* grew too long: ignored like any unrecognised line */
    gp_mapping mapping;
    char *name = NULL, *value = NULL;
    switch (gp_parse_line(line, len, &mapping, &name, &value)) {
    case GP_LINE_MAPPING:
        if (mapping.limit <= mapping.start || !PK_ARRAY_RESERVE(m->items, m->cap, m->count + 1)) {
            free(mapping.path);
            free(mapping.build_id);
            return mapping.limit <= mapping.start;
        }
        mapping.line = index;
        m->items[m->count++] = mapping;
        return true;
    case GP_LINE_DATA_MAPPING:
        free(mapping.path);
        free(mapping.build_id);
        return true;
    case GP_LINE_ATTRIBUTE:
        for (size_t i = 0; i < m->attr_count; i++) {
            if (strcmp(m->attrs[i].name, name) == 0) {
                free(m->attrs[i].value);
                m->attrs[i].value = value;
                free(name);
                return true;
            }
        }
        if (!PK_ARRAY_RESERVE(m->attrs, m->attr_cap, m->attr_count + 1)) {
            free(name);
            free(value);
            return false;
        }
        m->attrs[m->attr_count++] = (gp_attr){name, value};
        return true;
    default:
        return true;
    }
}

static int gp_mapping_cmp(const void *a, const void *b)
{
    const gp_mapping *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

/* Sorts by address and joins adjacent pieces of one file with contiguous offsets. */
static void gp_maps_finish(gp_maps *m)
{
    if (m->count > 1)
        qsort(m->items, m->count, sizeof *m->items, gp_mapping_cmp);
    size_t out = 0;
    for (size_t i = 0; i < m->count; i++) {
        gp_mapping *cur = &m->items[i];
        if (out > 0) {
            gp_mapping *prev = &m->items[out - 1];
            if (prev->limit == cur->start && strcmp(prev->path, cur->path) == 0 && *cur->path &&
                prev->offset + (prev->limit - prev->start) == cur->offset &&
                (!prev->build_id) == (!cur->build_id) &&
                (!prev->build_id || strcmp(prev->build_id, cur->build_id) == 0)) {
                prev->limit = cur->limit;
                free(cur->path);
                free(cur->build_id);
                continue;
            }
        }
        m->items[out++] = *cur;
    }
    m->count = out;
}

/* The mapping containing address, or -1. */
static ptrdiff_t gp_maps_find(const gp_maps *m, uint64_t address)
{
    size_t lo = 0, hi = m->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->items[mid].start <= address)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo, steps = 0; i-- > 0 && steps < 8; steps++)
        if (address < m->items[i].limit)
            return (ptrdiff_t)i;
    return -1;
}

static bool gp_is_library(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *so = strstr(base, ".so");
    return so && (so[3] == '\0' || so[3] == '.');
}

/* The program: the first mapping, in file order, of a file that is not a library. */
static const gp_mapping *gp_maps_program(const gp_maps *m)
{
    const gp_mapping *best = NULL;
    for (size_t i = 0; i < m->count; i++) {
        const gp_mapping *x = &m->items[i];
        if (!*x->path || x->path[0] == '[' || gp_is_library(x->path))
            continue;
        if (!best || x->line < best->line)
            best = x;
    }
    return best;
}

static const char *gp_basename(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* ---- the address tree ------------------------------------------------------------------------- */

/* A node is a prefix of stacks, root first: (parent, address). Nodes are found by a hash of the
 * whole prefix, h(k) = mix(h(k - 1), address k), so a record's longest known prefix is a binary
 * search over its prefix hashes (every prefix of a known prefix is known): about log2(depth)
 * probes of the table instead of one per frame. Two prefixes are taken for the same only when
 * both their 64-bit hashes and their depths are equal. */
typedef struct gp_node {
    uint32_t parent;  /* PK_NONE for a root */
    uint32_t address; /* index into addresses */
    uint32_t row;     /* sample row of records ending here, PK_NONE when none */
} gp_node;

typedef struct gp_slot {
    uint64_t hash;
    uint32_t node; /* node + 1; 0 = empty */
    uint32_t depth;
} gp_slot;

typedef struct gp_tree {
    gp_node *nodes;
    size_t count, cap;
    gp_slot *slots;
    size_t mask;
} gp_tree;

static void gp_tree_free(gp_tree *t)
{
    free(t->nodes);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

/* One multiply and a shift per frame: for a given parent hash, distinct addresses give
 * distinct hashes (every step is invertible), and the shift brings the product's high bits
 * down to the low bits that choose a slot. */
static inline uint64_t gp_prefix_hash(uint64_t parent_hash, uint64_t address)
{
    uint64_t h = (parent_hash ^ address) * 0x9e3779b97f4a7c15ULL;
    return h ^ (h >> 29);
}

/* Zeroed memory for a large hash table. Probes land anywhere in it, so it is backed by huge
 * pages where the system allows: far fewer page faults and TLB misses. */
static void *gp_table_alloc(size_t bytes)
{
    const size_t huge = 2u << 20;
    if (bytes < 4 * huge)
        return calloc(1, bytes);
    void *p = NULL;
    if (posix_memalign(&p, huge, bytes) != 0)
        return NULL;
    madvise(p, bytes, MADV_HUGEPAGE);
    memset(p, 0, bytes);
    return p;
}

static bool gp_tree_grow(gp_tree *t)
{
    size_t size = t->slots ? (t->mask + 1) * 2 : 1u << 14;
    gp_slot *slots = gp_table_alloc(size * sizeof *slots);
    if (!slots)
        return false;
    size_t mask = size - 1;
    for (size_t i = 0; t->slots && i <= t->mask; i++) {
        if (!t->slots[i].node)
            continue;
        size_t h = (size_t)t->slots[i].hash & mask;
        while (slots[h].node)
            h = (h + 1) & mask;
        slots[h] = t->slots[i];
    }
    free(t->slots);
    t->slots = slots;
    t->mask = mask;
    return true;
}

/* The node of the prefix with this hash and depth, or PK_NONE. */
static inline uint32_t gp_tree_find(const gp_tree *t, uint64_t hash, uint32_t depth)
{
    for (size_t h = (size_t)hash & t->mask;; h = (h + 1) & t->mask) {
        const gp_slot *slot = &t->slots[h];
        if (!slot->node)
            return PK_NONE;
        if (slot->hash == hash && slot->depth == depth)
            return slot->node - 1;
    }
}

/* Appends a node known to be absent; PK_NONE when memory runs out. */
static uint32_t gp_tree_add(gp_tree *t, uint32_t parent, uint32_t address, uint64_t hash,
                            uint32_t depth)
{
    if (t->count >= UINT32_MAX - 1 || !PK_ARRAY_RESERVE(t->nodes, t->cap, t->count + 1))
        return PK_NONE;
    if ((t->count + 1) * 10 > (t->mask + 1) * 6 && !gp_tree_grow(t))
        return PK_NONE;
    uint32_t node = (uint32_t)t->count++;
    t->nodes[node] = (gp_node){parent, address, PK_NONE};
    size_t h = (size_t)hash & t->mask;
    while (t->slots[h].node)
        h = (h + 1) & t->mask;
    t->slots[h] = (gp_slot){hash, node + 1, depth};
    return node;
}

typedef struct gp_address_slot {
    uint64_t address;
    uint32_t id; /* index + 1; 0 = empty */
} gp_address_slot;

/* ---- the reader ------------------------------------------------------------------------------ */

typedef struct gp_reader {
    pk_input *in;
    pk_profile *p;
    const pk_read_options *options;
    gp_layout layout;
    uint64_t header_words; /* slot 1 */
    uint64_t version;
    uint64_t period_us;

    gp_address_slot *address_slots; /* address -> index + 1 */
    size_t address_mask;
    uint64_t *addresses;
    size_t address_count, address_cap;
    gp_tree tree;
    uint32_t *row_nodes;
    uint64_t *row_counts;
    size_t row_count, row_cap, row_counts_cap;

    uint64_t *pcs; /* the record being read, leaf first */
    size_t pcs_cap;
    uint64_t *prefix_addresses; /* the record being added, root first, and its prefix hashes */
    uint64_t *prefix_hashes;
    size_t prefix_addresses_cap, prefix_hashes_cap;

    uint64_t records, zero_count_records, samples;
    bool saturated;
    gp_maps maps;
} gp_reader;

static void gp_reader_free(gp_reader *r)
{
    free(r->address_slots);
    free(r->addresses);
    gp_tree_free(&r->tree);
    free(r->row_nodes);
    free(r->row_counts);
    free(r->pcs);
    free(r->prefix_addresses);
    free(r->prefix_hashes);
    gp_maps_free(&r->maps);
}

/* The index of an address in r->addresses, added when new; PK_NONE when memory runs out. The
 * table keeps address and index side by side: one cache line per probe. */
static uint32_t gp_address_id(gp_reader *r, uint64_t address)
{
    if (!r->address_slots || (r->address_count + 1) * 10 > (r->address_mask + 1) * 6) {
        size_t size = r->address_slots ? (r->address_mask + 1) * 2 : 1u << 12;
        gp_address_slot *slots = calloc(size, sizeof *slots);
        if (!slots)
            return PK_NONE;
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
    }
    size_t h = (size_t)pk_hash_u64(address) & r->address_mask;
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

/* Adds one record (r->pcs[0..depth), leaf first) with its count. */
static bool gp_add_record(gp_reader *r, uint64_t count, size_t depth)
{
    if (!r->tree.slots && !gp_tree_grow(&r->tree))
        return false;
    if (!PK_ARRAY_RESERVE(r->prefix_addresses, r->prefix_addresses_cap, depth + 1) ||
        !PK_ARRAY_RESERVE(r->prefix_hashes, r->prefix_hashes_cap, depth + 1))
        return false;
    /* Root first: position k (1-based) holds PC depth - k; callers are looked up one byte
     * into their call. */
    uint64_t *addresses = r->prefix_addresses, *hashes = r->prefix_hashes;
    bool adjust = r->version == 0;
    hashes[0] = 0;
    for (size_t k = 1; k <= depth; k++) {
        uint64_t pc = r->pcs[depth - k];
        addresses[k] = adjust && k < depth ? pc - 1 : pc;
        hashes[k] = gp_prefix_hash(hashes[k - 1], addresses[k]);
    }
    /* New stacks mostly branch off a known one a few frames above the leaf: probe the full
     * record, then 1, 2, 4, ... frames up, then bisect between the last unknown and the first
     * known prefix. */
    size_t known = 0;
    uint32_t node = gp_tree_find(&r->tree, hashes[depth], (uint32_t)depth);
    if (node != PK_NONE) {
        known = depth;
    } else {
        size_t lo = 0, hi = depth - 1;
        for (size_t step = 1; step < depth; step *= 2) {
            uint32_t found = gp_tree_find(&r->tree, hashes[depth - step], (uint32_t)(depth - step));
            if (found != PK_NONE) {
                lo = depth - step;
                node = found;
                break;
            }
            hi = depth - step - 1;
        }
        while (lo < hi) {
            size_t mid = lo + (hi - lo + 1) / 2;
            uint32_t found = gp_tree_find(&r->tree, hashes[mid], (uint32_t)mid);
            if (found != PK_NONE) {
                lo = mid;
                node = found;
            } else {
                hi = mid - 1;
            }
        }
        known = lo;
    }
    for (size_t k = known + 1; k <= depth; k++) {
        uint32_t id = gp_address_id(r, addresses[k]);
        if (id == PK_NONE)
            return false;
        node = gp_tree_add(&r->tree, node, id, hashes[k], (uint32_t)k);
        if (node == PK_NONE)
            return false;
    }

    uint32_t row = r->tree.nodes[node].row;
    if (row == PK_NONE) {
        if (!PK_ARRAY_RESERVE(r->row_nodes, r->row_cap, r->row_count + 1) ||
            !PK_ARRAY_RESERVE(r->row_counts, r->row_counts_cap, r->row_count + 1))
            return false;
        row = (uint32_t)r->row_count++;
        r->row_nodes[row] = node;
        r->row_counts[row] = 0;
        r->tree.nodes[node].row = row;
    }
    uint64_t *total = &r->row_counts[row];
    if (__builtin_add_overflow(*total, count, total)) {
        *total = UINT64_MAX;
        r->saturated = true;
    }
    r->records++;
    if (__builtin_add_overflow(r->samples, count, &r->samples))
        r->samples = UINT64_MAX;
    return true;
}

/* Records an error, or with salvage a warning that ends the reading. */
static pk_status gp_damage(gp_reader *r, pk_error *err, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static pk_status gp_damage(gp_reader *r, pk_error *err, uint64_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pk_error_vset(err, PK_ERR_INPUT, (int64_t)offset, fmt, ap);
    va_end(ap);
    if (!r->options || !r->options->salvage)
        return PK_ERR_INPUT;
    pk_warn(r->p, "byte %" PRIu64 ": %s; the records before it were kept", offset, err->message);
    pk_error_clear(err);
    return PK_OK;
}

static uint64_t gp_remaining(const pk_input *in)
{
    uint64_t at = pk_in_offset(in);
    return in->size_hint > at ? in->size_hint - at : in->size_hint ? 0 : UINT64_MAX;
}

static bool gp_looks_like_text(const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((b[i] >= '0' && b[i] <= '9') || (b[i] >= 'a' && b[i] <= 'f') || b[i] == '-' ||
              b[i] == ' ' || b[i] == ':' || b[i] == '/' || b[i] == '\n'))
            return false;
    return true;
}

typedef enum gp_end { GP_END_TRAILER, GP_END_EOF, GP_END_DAMAGE } gp_end;

/* Reads records up to the trailer. *end tells how the binary part ended. */
static pk_status gp_read_records(gp_reader *r, gp_end *end, pk_error *err)
{
    pk_input *in = r->in;
    const gp_layout l = r->layout;
    const unsigned ws = l.word;
    for (;;) {
        uint64_t at = pk_in_offset(in);
        const uint8_t *d;
        size_t got = pk_in_peek(in, 2u * ws, &d);
        if (got < 2u * ws) {
            if (pk_in_error(in))
                return pk_error_set(err, PK_ERR_IO, (int64_t)at, "read error");
            if (got == 0)
                pk_warn(r->p, "no trailer: the records end at byte %" PRIu64
                              " without the 0, 1, 0 trailer (no mappings follow)", at);
            else
                pk_warn(r->p, "last record truncated at byte %" PRIu64 " (%zu bytes of its "
                              "count and depth present); the complete records were kept", at, got);
            pk_in_skip_buffered(in, got);
            *end = GP_END_EOF;
            return PK_OK;
        }
        bool textual = gp_looks_like_text(d, 2u * ws);
        uint64_t count = gp_word(d, l), depth = gp_word(d + ws, l);
        pk_in_skip_buffered(in, 2u * ws);
        if (depth == 0) {
            *end = GP_END_DAMAGE;
            return gp_damage(r, err, at + ws, "record with depth 0 (a record has at least one PC)");
        }
        uint64_t remaining = gp_remaining(in);
        if (depth > GP_MAX_PLAUSIBLE_DEPTH && depth > remaining / ws) {
            *end = GP_END_DAMAGE;
            if (textual)
                return gp_damage(r, err, at, "text where a record should be: the 0, 1, 0 trailer "
                                             "before the mappings is missing");
            return gp_damage(r, err, at + ws,
                             "record depth %" PRIu64 " does not fit the %" PRIu64
                             " bytes that remain",
                             depth, remaining);
        }
        size_t have = 0;
        while (have < depth) {
            uint64_t left = depth - have;
            size_t want = left < PK_INPUT_CHUNK / ws ? (size_t)left : PK_INPUT_CHUNK / ws;
            got = pk_in_peek(in, want * ws, &d);
            size_t n = got / ws;
            if (!PK_ARRAY_RESERVE(r->pcs, r->pcs_cap, have + n + 1))
                return pk_error_set(err, PK_ERR_NOMEM, (int64_t)at, "out of memory");
            for (size_t i = 0; i < n; i++)
                r->pcs[have + i] = gp_word(d + i * ws, l);
            pk_in_skip_buffered(in, n * ws);
            have += n;
            if (n < want) {
                if (pk_in_error(in))
                    return pk_error_set(err, PK_ERR_IO, (int64_t)pk_in_offset(in), "read error");
                if (depth > GP_MAX_PLAUSIBLE_DEPTH) {
                    *end = GP_END_DAMAGE;
                    return gp_damage(r, err, at + ws,
                                     "record depth %" PRIu64 " runs past the end of the input",
                                     depth);
                }
                pk_warn(r->p, "last record truncated at byte %" PRIu64 " (%zu of %" PRIu64
                              " PCs present); the complete records were kept",
                        at, have, depth);
                pk_in_skip(in, got - n * ws);
                *end = GP_END_EOF;
                return PK_OK;
            }
        }
        if (count == 0) {
            if (depth == 1 && r->pcs[0] == 0) {
                *end = GP_END_TRAILER;
                return PK_OK;
            }
            r->zero_count_records++;
            continue;
        }
        if (!gp_add_record(r, count, (size_t)depth))
            return pk_error_set(err, PK_ERR_NOMEM, (int64_t)at, "out of memory");
    }
}

static pk_status gp_read_maps(gp_reader *r, pk_error *err)
{
    const char *line;
    int64_t len;
    while ((len = pk_in_line(r->in, &line, GP_MAX_LINE)) != -1) {
        if (len < 0)
            continue; /* over-long: not a line anything could use */
        if (!gp_maps_line(&r->maps, line, (size_t)len))
            return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    }
    if (pk_in_error(r->in))
        return pk_error_set(err, PK_ERR_IO, (int64_t)pk_in_offset(r->in), "read error");
    gp_maps_finish(&r->maps);
    return PK_OK;
}

static pk_status gp_read_header(gp_reader *r, pk_error *err)
{
    pk_input *in = r->in;
    const uint8_t *d;
    size_t got = pk_in_peek(in, 5 * 8, &d);
    if (!gp_detect(d, got, &r->layout)) {
        if (got < 3 * 4)
            return pk_error_set(err, PK_ERR_INPUT, 0, "file too short for a gperftools header "
                                                      "(%zu bytes)", got);
        return pk_error_set(err, PK_ERR_INPUT, 0,
                            "not a gperftools CPU profile: the header does not start with slots "
                            "0, 3 (or more), 0 in any word size or byte order");
    }
    const unsigned ws = r->layout.word;
    if (got < 5u * ws)
        return pk_error_set(err, PK_ERR_INPUT, (int64_t)got,
                            "header truncated: %zu of %u bytes present", got, 5 * ws);
    r->header_words = gp_word(d + ws, r->layout);
    r->version = gp_word(d + 2 * ws, r->layout);
    r->period_us = gp_word(d + 3 * ws, r->layout);
    pk_in_skip_buffered(in, 5u * ws);
    uint64_t extra = r->header_words - 3;
    if (extra > 0) {
        uint64_t remaining = gp_remaining(in);
        if (extra > remaining / ws)
            return pk_error_set(err, PK_ERR_INPUT, ws,
                                "header declares %" PRIu64 " slots after slot 1 but only %" PRIu64
                                " bytes remain",
                                r->header_words, remaining);
        if (pk_in_skip(in, extra * ws) != extra * ws)
            return pk_error_set(err, PK_ERR_INPUT, ws,
                                "header declares %" PRIu64 " slots after slot 1; the file ends "
                                "inside the header",
                                r->header_words);
    }
    return PK_OK;
}

static uint64_t gp_saturating_mul(uint64_t a, uint64_t b)
{
    uint64_t v;
    return __builtin_mul_overflow(a, b, &v) ? UINT64_MAX : v;
}

static int64_t gp_clamp(uint64_t v)
{
    return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

/* Turns the tree into the profile: resources, thread, frames (named by the symbolizer unless
 * --no-symbols), stacks and samples. */
static pk_status gp_build(gp_reader *r, pk_error *err)
{
    pk_profile *p = r->p;
    if (pk_add_value_type(p, "samples", "count") == PK_NONE ||
        pk_add_value_type(p, "cpu", "nanoseconds") == PK_NONE)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    pk_set_default_value(p, 0);
    uint64_t period_ns = gp_saturating_mul(r->period_us, 1000);
    pk_metadata *meta = pk_metadata_of(p);
    meta->period = gp_clamp(period_ns);
    meta->period_type = pk_intern_cstr(p, "cpu");
    meta->period_unit = pk_intern_cstr(p, "nanoseconds");

    const gp_mapping *program = gp_maps_program(&r->maps);
    const char *program_name = program ? gp_basename(program->path) : "";
    if (*program_name)
        meta->product = pk_intern_cstr(p, program_name);
    char text[32];
    snprintf(text, sizeof text, "%u", r->layout.word * 8);
    pk_status status = pk_property_set(p, "gperftools.word_bits", text);
    if (status == PK_OK)
        status = pk_property_set(p, "gperftools.byte_order", r->layout.big ? "big" : "little");
    snprintf(text, sizeof text, "%" PRIu64, r->version);
    if (status == PK_OK)
        status = pk_property_set(p, "gperftools.version", text);
    if (status != PK_OK)
        return pk_error_set(err, status, PK_NO_OFFSET, "out of memory");
    if (r->period_us == 0)
        pk_warn(p, "the sampling period is 0: cpu times are 0");
    if (r->version == 1)
        pk_warn(p, "header version 1 (a Java profile): PCs are taken as they are");
    if (r->zero_count_records)
        pk_warn(p, "%" PRIu64 " record%s with a sample count of 0 ignored", r->zero_count_records,
                r->zero_count_records == 1 ? "" : "s");
    if (r->saturated)
        pk_warn(p, "sample counts too large for 64 bits were capped");

    uint32_t *resources = malloc((r->maps.count + 1) * sizeof *resources);
    if (!resources)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    for (size_t i = 0; i < r->maps.count; i++) {
        const gp_mapping *m = &r->maps.items[i];
        const char *base = gp_basename(m->path);
        pk_resource res = {pk_intern_cstr(p, *base ? base : m->path), pk_intern_cstr(p, m->path),
                           m->build_id ? pk_intern_cstr(p, m->build_id) : 0,
                           m->start, m->limit, m->offset};
        resources[i] = pk_intern_resource(p, &res);
        if (res.name == PK_NONE || resources[i] == PK_NONE) {
            free(resources);
            return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
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
        ptrdiff_t m = gp_maps_find(&r->maps, address);
        uint32_t resource = m < 0 ? PK_NONE : resources[m];
        pk_function fn = {pk_address_name(p, address), 0, 0, resource};
        uint32_t function = fn.name == PK_NONE ? PK_NONE : pk_intern_function(p, &fn);
        pk_frame frame = {function, 0, address, resource, PK_FRAME_HAS_ADDRESS};
        frames[i] = function == PK_NONE ? PK_NONE : pk_intern_frame(p, &frame);
        failed = frames[i] == PK_NONE;
    }
    free(resources);
    /* The hash index of the tree is not needed any more; free it before the model grows. */
    free(r->tree.slots);
    r->tree.slots = NULL;
    free(r->address_slots);
    r->address_slots = NULL;

    uint32_t *stacks = failed ? NULL : malloc((r->tree.count + 1) * sizeof *stacks);
    failed |= !stacks;
    for (size_t i = 0; i < r->tree.count && !failed; i++) {
        const gp_node *n = &r->tree.nodes[i];
        uint32_t stack = n->parent == PK_NONE ? PK_NONE : stacks[n->parent];
        /* Nodes are distinct (parent, address) pairs and frames carry their address, so every
         * stack made here is new: no lookup needed. */
        stack = pk_append_stack(p, stack, frames[n->address]);
        failed = stack == PK_NONE;
        stacks[i] = stack;
    }
    for (size_t i = 0; i < r->row_count && !failed; i++) {
        uint64_t count = r->row_counts[i];
        int64_t values[2] = {gp_clamp(count), gp_clamp(gp_saturating_mul(count, period_ns))};
        failed = pk_add_sample(p, thread, stacks[r->row_nodes[i]], values) != PK_OK;
    }
    free(stacks);
    free(frames);
    if (failed)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    return PK_OK;
}

static pk_status gp_read(pk_input *in, pk_profile *p, const pk_read_options *options,
                         pk_error *err)
{
    gp_reader r = {.in = in, .p = p, .options = options};
    pk_status status = gp_read_header(&r, err);
    gp_end end = GP_END_EOF;
    if (status == PK_OK)
        status = gp_read_records(&r, &end, err);
    free(r.pcs);
    r.pcs = NULL;
    free(r.prefix_addresses);
    r.prefix_addresses = NULL;
    free(r.prefix_hashes);
    r.prefix_hashes = NULL;
    if (status == PK_OK && end == GP_END_TRAILER)
        status = gp_read_maps(&r, err);
    if (status == PK_OK)
        status = gp_build(&r, err);
    gp_reader_free(&r);
    return status;
}

/* ---- the writer ------------------------------------------------------------------------------ */

static int64_t gp_unit_ns(const char *unit)
{
    static const struct {
        const char *name;
        int64_t ns;
    } units[] = {{"nanoseconds", 1},       {"ns", 1},        {"microseconds", 1000},
                 {"us", 1000},             {"milliseconds", 1000000}, {"ms", 1000000},
                 {"seconds", 1000000000}, {"s", 1000000000}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(unit, units[i].name) == 0)
            return units[i].ns;
    return 0;
}

typedef struct gp_writer {
    pk_output *out;
    gp_layout layout;
    uint8_t buf[4096];
    size_t len;
} gp_writer;

static void gp_put(gp_writer *w, uint64_t v)
{
    if (w->len + 8 > sizeof w->buf) {
        pk_out_write(w->out, w->buf, w->len);
        w->len = 0;
    }
    uint8_t *b = w->buf + w->len;
    if (w->layout.word == 8) {
        uint64_t x = w->layout.big ? htobe64(v) : htole64(v);
        memcpy(b, &x, 8);
    } else {
        uint32_t x = w->layout.big ? htobe32((uint32_t)v) : htole32((uint32_t)v);
        memcpy(b, &x, 4);
    }
    w->len += w->layout.word;
}

static void gp_flush(gp_writer *w)
{
    pk_out_write(w->out, w->buf, w->len);
    w->len = 0;
}

static pk_status gp_write(const pk_profile *p, pk_output *out, const pk_write_options *options,
                          pk_error *err)
{
    gp_writer w = {.out = out, .layout = {8, false}};
    const pk_option_list *extra = options ? &options->extra : NULL;
    const char *bits = extra ? pk_option_get(extra, "word-size") : NULL;
    if (bits) {
        if (strcmp(bits, "32") == 0 || strcmp(bits, "4") == 0)
            w.layout.word = 4;
        else if (strcmp(bits, "64") != 0 && strcmp(bits, "8") != 0)
            return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET,
                                "--word-size must be 32 or 64, not '%s'", bits);
    }
    w.layout.big = extra && pk_option_get(extra, "big-endian") != NULL;

    bool any_address = false;
    for (size_t i = 0; i < pk_frame_count(p) && !any_address; i++)
        any_address = (pk_frame_at(p, (uint32_t)i)->flags & PK_FRAME_HAS_ADDRESS) != 0;
    if (!any_address)
        return pk_error_set(err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                            "a gperftools profile holds native code addresses, and this profile "
                            "has none (its frames carry names only)");
    if (pk_value_type_count(p) == 0)
        return pk_error_set(err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET, "the profile has no values");

    uint32_t value = options && options->value != PK_NONE ? options->value : PK_NONE;
    if (value == PK_NONE)
        value = pk_value_find(p, "samples");
    if (value == PK_NONE)
        value = pk_default_value(p);
    if (value >= pk_value_type_count(p))
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET, "no value %u in the profile", value);
    const pk_metadata *meta = pk_metadata_get(p);
    int64_t period_ns = 0;
    int64_t period_unit = gp_unit_ns(pk_str(p, meta->period_unit));
    if (meta->period > 0 && period_unit > 0 && meta->period <= INT64_MAX / period_unit)
        period_ns = meta->period * period_unit;
    if (period_ns < 1000)
        period_ns = period_ns > 0 ? 1000 : 10000000; /* gperftools' default: 100 Hz */
    /* Time values become sample counts at the period; anything else is written as counts. */
    int64_t value_ns = gp_unit_ns(pk_str(p, pk_value_type_at(p, value)->unit));
    uint64_t max_count = w.layout.word == 8 ? UINT64_MAX : UINT32_MAX;

    gp_put(&w, 0);
    gp_put(&w, 3);
    gp_put(&w, 0);
    gp_put(&w, (uint64_t)(period_ns / 1000));
    gp_put(&w, 0);

    uint64_t *pcs = NULL;
    size_t pcs_cap = 0;
    pk_status status = PK_OK;
    for (size_t row = 0; row < pk_sample_count(p) && status == PK_OK; row++) {
        int64_t v = pk_sample_values(p, row)[value];
        if (v <= 0)
            continue;
        uint64_t count = (uint64_t)v;
        if (value_ns > 0) {
            long double samples = (long double)v * value_ns / period_ns + 0.5L;
            count = samples < 1 ? 1 : samples >= 1.8e19L ? UINT64_MAX : (uint64_t)samples;
        }
        size_t depth = 0;
        for (uint32_t s = pk_sample_stack(p, row); s != PK_NONE; s = pk_stack_at(p, s)->parent) {
            const pk_frame *f = pk_frame_at(p, pk_stack_at(p, s)->frame);
            if (!(f->flags & PK_FRAME_HAS_ADDRESS) || (f->flags & PK_FRAME_INLINED))
                continue;
            if (!PK_ARRAY_RESERVE(pcs, pcs_cap, depth + 1)) {
                status = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
                break;
            }
            /* Callers were stored one byte into their call; the file holds return addresses. */
            uint64_t pc = depth == 0 ? f->address : f->address + 1;
            if (pc > max_count) {
                status = pk_error_set(err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                                      "address 0x%" PRIx64 " does not fit 32-bit slots", pc);
                break;
            }
            pcs[depth++] = pc;
        }
        if (status != PK_OK || depth == 0)
            continue;
        if (count > max_count) {
            status = pk_error_set(err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                                  "a sample count of %" PRIu64 " does not fit 32-bit slots", count);
            break;
        }
        gp_put(&w, count);
        gp_put(&w, depth);
        for (size_t i = 0; i < depth; i++)
            gp_put(&w, pcs[i]);
        if (pk_out_failed(out))
            break;
    }
    free(pcs);
    if (status != PK_OK)
        return status;
    gp_put(&w, 0);
    gp_put(&w, 1);
    gp_put(&w, 0);
    gp_flush(&w);

    for (size_t i = 0; i < pk_resource_count(p); i++) {
        const pk_resource *r = pk_resource_at(p, (uint32_t)i);
        if (r->limit <= r->start || r->limit - 1 > max_count)
            continue;
        const char *path = pk_str(p, r->path);
        if (!*path)
            path = pk_str(p, r->name);
        /* The mappings are one line each; a line break in a name would forge another. */
        if (strpbrk(path, "\n\r"))
            continue;
        pk_out_printf(out, "%08" PRIx64 "-%08" PRIx64 " r-xp %08" PRIx64 " 00:00 0 %s\n",
                      r->start, r->limit, r->offset, path);
    }
    return PK_OK;
}

/* ---- the dump ------------------------------------------------------------------------------- */

typedef struct gp_dumper {
    pk_output *out;
    gp_layout layout;
    bool raw;
    uint64_t records;
    /* Held records (non-raw): offset, count, depth, then depth PCs, repeated. */
    uint64_t *held;
    size_t held_count, held_cap;
    bool holding;
} gp_dumper;

static void gp_dump_pc(gp_dumper *d, const gp_maps *maps, uint64_t pc)
{
    pk_out_printf(d->out, " 0x%" PRIx64, pc);
    if (!maps)
        return;
    ptrdiff_t m = gp_maps_find(maps, pc);
    if (m >= 0) {
        const gp_mapping *x = &maps->items[m];
        pk_out_printf(d->out, "(%s+0x%" PRIx64 ")", *x->path ? gp_basename(x->path) : "anon",
                      pc - x->start + x->offset);
    }
}

static void gp_dump_record(gp_dumper *d, const gp_maps *maps, uint64_t offset, uint64_t count,
                           uint64_t depth, const uint64_t *pcs, size_t present)
{
    pk_out_printf(d->out, "%" PRIu64 "\trecord %" PRIu64 ": count %" PRIu64 ", depth %" PRIu64
                          ":", offset, ++d->records, count, depth);
    for (size_t i = 0; i < present; i++)
        gp_dump_pc(d, maps, pcs[i]);
    if (present < depth)
        pk_out_printf(d->out, " ... (truncated: %zu of %" PRIu64 " PCs)", present, depth);
    pk_out_putc(d->out, '\n');
}

static void gp_dump_release(gp_dumper *d, const gp_maps *maps)
{
    for (size_t i = 0; i < d->held_count;) {
        uint64_t offset = d->held[i], count = d->held[i + 1], depth = d->held[i + 2];
        uint64_t present = d->held[i + 3];
        gp_dump_record(d, maps, offset, count, depth, d->held + i + 4, (size_t)present);
        i += 4 + (size_t)present;
    }
    d->held_count = 0;
    d->holding = false;
}

static void gp_dump_add(gp_dumper *d, uint64_t offset, uint64_t count, uint64_t depth,
                        const uint64_t *pcs, size_t present)
{
    if (d->holding && (d->held_count + 4 + present > GP_DUMP_HOLD_WORDS ||
                       !PK_ARRAY_RESERVE(d->held, d->held_cap, d->held_count + 4 + present))) {
        pk_out_puts(d->out, "# too many records to hold until the mappings: PCs left unresolved\n");
        gp_dump_release(d, NULL);
    }
    if (!d->holding) {
        gp_dump_record(d, NULL, offset, count, depth, pcs, present);
        return;
    }
    uint64_t *h = d->held + d->held_count;
    h[0] = offset;
    h[1] = count;
    h[2] = depth;
    h[3] = present;
    memcpy(h + 4, pcs, present * sizeof *pcs);
    d->held_count += 4 + present;
}

static pk_status gp_dump(pk_input *in, pk_output *out, bool raw, const pk_read_options *options,
                         pk_error *err)
{
    (void)options;
    gp_dumper d = {.out = out, .raw = raw, .holding = !raw};
    const uint8_t *b;
    size_t got = pk_in_peek(in, 5 * 8, &b);
    if (!gp_detect(b, got, &d.layout))
        return pk_error_set(err, PK_ERR_INPUT, 0,
                            "not a gperftools CPU profile: the header does not start with slots "
                            "0, 3 (or more), 0");
    const gp_layout l = d.layout;
    const unsigned ws = l.word;
    pk_out_printf(out, "# gperftools CPU profile: %u-bit slots, %s-endian\n", ws * 8,
                  l.big ? "big" : "little");
    static const char *const names[] = {"header count", "header slots after this one",
                                        "format version", "sampling period (microseconds)",
                                        "padding"};
    uint64_t header_words = 3;
    for (unsigned i = 0; i < 5; i++) {
        if (got < (i + 1) * ws) {
            pk_out_printf(out, "%u\t(end of input inside the header)\n", i * ws);
            pk_in_skip_buffered(in, got);
            return pk_error_set(err, PK_ERR_INPUT, (int64_t)got, "header truncated");
        }
        uint64_t v = gp_word(b + i * ws, l);
        if (i == 1)
            header_words = v;
        pk_out_printf(out, "%u\theader slot %u: %" PRIu64 " (%s)\n", i * ws, i, v, names[i]);
    }
    pk_in_skip_buffered(in, 5u * ws);
    for (uint64_t i = 5; i < header_words + 2; i++) {
        uint64_t at = pk_in_offset(in);
        got = pk_in_peek(in, ws, &b);
        if (got < ws)
            return pk_error_set(err, PK_ERR_INPUT, (int64_t)at, "header truncated");
        pk_out_printf(out, "%" PRIu64 "\theader slot %" PRIu64 ": %" PRIu64 " (extra)\n", at, i,
                      gp_word(b, l));
        pk_in_skip_buffered(in, ws);
        if (pk_out_failed(out))
            break;
    }

    uint64_t *pcs = NULL;
    size_t pcs_cap = 0;
    pk_status status = PK_OK;
    bool trailer = false;
    for (;;) {
        uint64_t at = pk_in_offset(in);
        got = pk_in_peek(in, 2u * ws, &b);
        if (got < 2u * ws) {
            pk_in_skip_buffered(in, got);
            gp_dump_release(&d, NULL);
            if (got == 0)
                pk_out_printf(out, "%" PRIu64 "\tend of input (no trailer)\n", at);
            else
                pk_out_printf(out, "%" PRIu64 "\tend of input inside a record (%zu bytes)\n", at,
                              got);
            break;
        }
        uint64_t count = gp_word(b, l), depth = gp_word(b + ws, l);
        pk_in_skip_buffered(in, 2u * ws);
        if (depth > GP_MAX_PLAUSIBLE_DEPTH && depth > gp_remaining(in) / ws) {
            gp_dump_release(&d, NULL);
            pk_out_printf(out, "%" PRIu64 "\trecord: count %" PRIu64 ", depth %" PRIu64
                               " (does not fit the input)\n", at, count, depth);
            status = pk_error_set(err, PK_ERR_INPUT, (int64_t)(at + ws),
                                  "record depth %" PRIu64 " does not fit the bytes that remain",
                                  depth);
            break;
        }
        size_t have = 0;
        bool cut = false;
        while (have < depth) {
            uint64_t left = depth - have;
            size_t want = left < PK_INPUT_CHUNK / ws ? (size_t)left : PK_INPUT_CHUNK / ws;
            got = pk_in_peek(in, want * ws, &b);
            size_t n = got / ws;
            if (!PK_ARRAY_RESERVE(pcs, pcs_cap, have + n + 1)) {
                status = pk_error_set(err, PK_ERR_NOMEM, (int64_t)at, "out of memory");
                break;
            }
            for (size_t i = 0; i < n; i++)
                pcs[have + i] = gp_word(b + i * ws, l);
            pk_in_skip_buffered(in, n * ws);
            have += n;
            if (n < want) {
                pk_in_skip(in, got - n * ws);
                cut = true;
                break;
            }
        }
        if (status != PK_OK)
            break;
        if (!cut && count == 0 && depth == 1 && pcs[0] == 0) {
            trailer = true;
            if (d.holding) {
                /* The mappings come next; print the records once they are known. */
                break;
            }
            pk_out_printf(out, "%" PRIu64 "\ttrailer: 0, 1, 0\n", at);
            break;
        }
        gp_dump_add(&d, at, count, depth, pcs, have);
        if (cut || pk_out_failed(out)) {
            gp_dump_release(&d, NULL);
            break;
        }
    }
    free(pcs);

    if (status == PK_OK && trailer) {
        uint64_t maps_at = pk_in_offset(in);
        gp_maps maps = {0};
        const char *line;
        int64_t len;
        /* Non-raw: read the mappings first, then print everything in file order. */
        if (d.holding) {
            uint64_t trailer_at = maps_at - 3u * ws;
            char **texts = NULL;
            uint64_t *offsets = NULL;
            size_t count = 0, cap = 0, ocap = 0;
            bool ok = true;
            uint64_t line_at = maps_at;
            while (ok && (len = pk_in_line(in, &line, GP_MAX_LINE)) != -1) {
                uint64_t next_at = pk_in_offset(in);
                if (len >= 0) {
                    ok = gp_maps_line(&maps, line, (size_t)len) &&
                         PK_ARRAY_RESERVE(texts, cap, count + 1) &&
                         PK_ARRAY_RESERVE(offsets, ocap, count + 1) &&
                         (texts[count] = gp_strndup(line, (size_t)len)) != NULL;
                    if (ok)
                        offsets[count++] = line_at;
                }
                line_at = next_at;
            }
            gp_maps_finish(&maps);
            gp_dump_release(&d, ok ? &maps : NULL);
            pk_out_printf(out, "%" PRIu64 "\ttrailer: 0, 1, 0\n", trailer_at);
            for (size_t i = 0; i < count; i++) {
                pk_out_printf(out, "%" PRIu64 "\tmaps: %s\n", offsets[i], texts[i]);
                free(texts[i]);
            }
            free(texts);
            free(offsets);
            if (!ok)
                status = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
        } else {
            uint64_t line_at = maps_at;
            while ((len = pk_in_line(in, &line, GP_MAX_LINE)) != -1) {
                if (len >= 0) {
                    pk_out_printf(out, "%" PRIu64 "\tmaps: ", line_at);
                    pk_out_write(out, line, (size_t)len);
                    pk_out_putc(out, '\n');
                } else {
                    pk_out_printf(out, "%" PRIu64 "\tmaps: (line longer than %u bytes)\n",
                                  line_at, GP_MAX_LINE);
                }
                line_at = pk_in_offset(in);
                if (pk_out_failed(out))
                    break;
            }
        }
        gp_maps_free(&maps);
    }
    free(d.held);
    if (status == PK_OK && pk_in_error(in))
        status = pk_error_set(err, PK_ERR_IO, (int64_t)pk_in_offset(in), "read error");
    return status;
}

static const char *const gp_extensions[] = {".prof", ".cpuprofile", NULL};
static const char *const gp_aliases[] = {"gperf", NULL};

static const pk_option_spec gp_write_options[] = {
    {"word-size", "BITS", "slot size: 64 (default) or 32"},
    {"big-endian", NULL, "write big-endian slots (default little-endian)"},
    {NULL, NULL, NULL},
};

const pk_format pk_format_gperftools = {
    .name = "gperftools",
    .aliases = gp_aliases,
    .extensions = gp_extensions,
    .description = "gperftools (libprofiler, CPUPROFILE) CPU profile, symbolized with libdw",
    .probe = gp_probe,
    .read = gp_read,
    .write = gp_write,
    .dump = gp_dump,
    .read_options = NULL,
    .write_options = gp_write_options,
};
