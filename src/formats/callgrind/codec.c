/* SPDX-License-Identifier: MIT */
/* The line grammar of callgrind files (codec.h). */
#include "formats/callgrind/codec.h"

#include <string.h>

#include "core/array.h"
#include "core/hex.h"

typedef struct spec_name {
    const char *key; /* with its '=' */
    size_t len;
    cg_spec spec;
} spec_name;

#define SPEC(key, spec) {key, sizeof key - 1, spec}
static const spec_name spec_names[] = {
    SPEC("fn=", CG_SPEC_FN),       SPEC("fl=", CG_SPEC_FL),     SPEC("fi=", CG_SPEC_FI),
    SPEC("fe=", CG_SPEC_FE),       SPEC("ob=", CG_SPEC_OB),     SPEC("cfn=", CG_SPEC_CFN),
    SPEC("cfi=", CG_SPEC_CFI),     SPEC("cfl=", CG_SPEC_CFI),   SPEC("cob=", CG_SPEC_COB),
    SPEC("calls=", CG_SPEC_CALLS), SPEC("jump=", CG_SPEC_JUMP), SPEC("jcnd=", CG_SPEC_JCND),
    SPEC("jfi=", CG_SPEC_JFI),     SPEC("jfn=", CG_SPEC_JFN),
};
#undef SPEC

cg_spec cg_spec_of(const char *line, size_t len, size_t *value)
{
    for (size_t i = 0; i < sizeof spec_names / sizeof spec_names[0]; i++) {
        const spec_name *s = &spec_names[i];
        if (len >= s->len && memcmp(line, s->key, s->len) == 0) {
            *value = s->len;
            return s->spec;
        }
    }
    return CG_SPEC_NONE;
}

cg_namespace cg_spec_namespace(cg_spec spec)
{
    switch (spec) {
    case CG_SPEC_FN:
    case CG_SPEC_CFN:
    case CG_SPEC_JFN:
        return CG_NS_FUNCTION;
    case CG_SPEC_OB:
    case CG_SPEC_COB:
        return CG_NS_OBJECT;
    default:
        return CG_NS_FILE;
    }
}

bool cg_costs_add_entry(int64_t **costs, size_t *cap, size_t index, unsigned values)
{
    if (!pk_array_reserve((void **)costs, cap, sizeof **costs, (index + 1) * values))
        return false;
    memset(*costs + index * values, 0, values * sizeof **costs);
    return true;
}

void cg_skip_blanks(const char *s, size_t len, size_t *pos)
{
    while (*pos < len && (s[*pos] == ' ' || s[*pos] == '\t'))
        (*pos)++;
}

bool cg_parse_number(const char *s, size_t len, size_t *pos, uint64_t *value)
{
    size_t i = *pos;
    uint64_t v = 0;
    if (i + 1 < len && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
        size_t start = i += 2;
        int d;
        while (i < len && (d = pk_hex_digit(s[i])) >= 0) {
            if (v >> 60)
                return false;
            v = v << 4 | (uint64_t)d;
            i++;
        }
        if (i == start)
            return false;
    } else {
        size_t start = i;
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            uint64_t d = (uint64_t)(s[i] - '0');
            if (v > (UINT64_MAX - d) / 10)
                return false;
            v = v * 10 + d;
            i++;
        }
        if (i == start)
            return false;
    }
    *pos = i;
    *value = v;
    return true;
}

bool cg_positions_set(cg_positions *p, const char *value, size_t len)
{
    cg_positions set = {0, -1, {0, 0}};
    size_t pos = 0;
    for (;;) {
        cg_skip_blanks(value, len, &pos);
        if (pos == len)
            break;
        size_t start = pos;
        while (pos < len && value[pos] != ' ' && value[pos] != '\t')
            pos++;
        size_t n = pos - start;
        if (set.count == CG_MAX_POSITIONS)
            return false;
        if (n == 4 && memcmp(value + start, "line", 4) == 0)
            set.line_column = (int)set.count;
        else if (!(n == 5 && memcmp(value + start, "instr", 5) == 0))
            return false;
        set.count++;
    }
    if (set.count == 0)
        return false;
    *p = set;
    return true;
}

bool cg_positions_parse(cg_positions *p, const char *s, size_t len, size_t *pos, bool update,
                        uint64_t out[CG_MAX_POSITIONS])
{
    size_t i = *pos;
    for (unsigned c = 0; c < p->count; c++) {
        if (c > 0) {
            size_t before = i;
            cg_skip_blanks(s, len, &i);
            if (i == before)
                return false;
        }
        if (i >= len)
            return false;
        uint64_t v, last = p->last[c];
        if (s[i] == '*') {
            v = last;
            i++;
        } else if (s[i] == '+' || s[i] == '-') {
            bool minus = s[i] == '-';
            i++;
            uint64_t d;
            if (!cg_parse_number(s, len, &i, &d))
                return false;
            /* Positions are unsigned: a step outside them wraps, as callgrind's own unsigned
             * arithmetic would; such a position names no line anyone has. */
            v = minus ? last - d : last + d;
        } else if (!cg_parse_number(s, len, &i, &v)) {
            return false;
        }
        out[c] = v;
    }
    /* A position ends at a blank or the end of the line. */
    if (i < len && s[i] != ' ' && s[i] != '\t')
        return false;
    if (update)
        memcpy(p->last, out, p->count * sizeof *out);
    *pos = i;
    return true;
}

void cg_names_init(cg_names *n)
{
    for (int i = 0; i < CG_NS_COUNT; i++)
        pk_u64map_init(&n->ids[i]);
}

void cg_names_free(cg_names *n)
{
    for (int i = 0; i < CG_NS_COUNT; i++)
        pk_u64map_free(&n->ids[i]);
}

/* A name as it stands, without the blanks around it. */
static cg_name_result plain_name(pk_profile *p, const char *value, size_t pos, size_t len,
                                 uint32_t *string)
{
    while (len > pos && (value[len - 1] == ' ' || value[len - 1] == '\t'))
        len--;
    *string = pk_intern(p, value + pos, len - pos);
    return *string == PK_NONE ? CG_NAME_NOMEM : CG_NAME_OK;
}

cg_name_result cg_names_decode(cg_names *n, pk_profile *p, cg_namespace ns, const char *value,
                               size_t len, uint32_t *string)
{
    size_t pos = 0;
    cg_skip_blanks(value, len, &pos);
    size_t start = pos;
    uint64_t id;
    pos++;
    /* Not `(N)`: a name of its own, such as cachegrind's uncompressed `(below main)`. */
    if (start == len || value[start] != '(' || !cg_parse_number(value, len, &pos, &id) ||
        pos >= len || value[pos] != ')')
        return plain_name(p, value, start, len, string);
    pos++;
    size_t reference_end = pos;
    cg_skip_blanks(value, len, &pos);
    size_t end = len;
    while (end > pos && (value[end - 1] == ' ' || value[end - 1] == '\t'))
        end--;
    if (pos == end) {
        uint32_t *known = pk_u64map_find(&n->ids[ns], id);
        if (known) {
            *string = *known;
            return CG_NAME_OK;
        }
        /* Never defined (some writers leave a definition out): the reference stands for the
         * name, so that each undefined N stays a name of its own. */
        if (plain_name(p, value, start, reference_end, string) != CG_NAME_OK)
            return CG_NAME_NOMEM;
        return CG_NAME_UNDEFINED;
    }
    /* A definition; a later one of the same id replaces it (combined dumps define again). */
    uint32_t s;
    if (plain_name(p, value, pos, end, &s) != CG_NAME_OK)
        return CG_NAME_NOMEM;
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&n->ids[ns], id, s, &slot, &inserted))
        return CG_NAME_NOMEM;
    *slot = s;
    *string = s;
    return CG_NAME_OK;
}
