/* SPDX-License-Identifier: MIT */
/* The line grammar of callgrind files (valgrind's "Callgrind Format Specification"), shared by
 * the reader and the writer: numbers, subpositions with their compression, and names with
 * theirs; and the cost columns both keep per entry. Documented in docs/formats/callgrind.md. */
#ifndef PK_FORMATS_CALLGRIND_CODEC_H
#define PK_FORMATS_CALLGRIND_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/hashmap.h"
#include "profkit/profile.h"

/* Subposition columns: `positions: line` (the default), `instr`, or `instr line`. */
#define CG_MAX_POSITIONS 2

/* Compressed names live in one namespace per kind of name, as callgrind writes them: files
 * (fl, fi, fe, cfi, cfl, jfi), functions (fn, cfn, jfn) and objects (ob, cob). */
typedef enum cg_namespace { CG_NS_FILE, CG_NS_FUNCTION, CG_NS_OBJECT, CG_NS_COUNT } cg_namespace;

/* The specification lines of the body: `key=value`. */
typedef enum cg_spec {
    CG_SPEC_NONE,
    CG_SPEC_OB, CG_SPEC_FL, CG_SPEC_FI, CG_SPEC_FE, CG_SPEC_FN,
    CG_SPEC_COB, CG_SPEC_CFI, CG_SPEC_CFN,
    CG_SPEC_CALLS, CG_SPEC_JUMP, CG_SPEC_JCND, CG_SPEC_JFI, CG_SPEC_JFN
} cg_spec;

/* The spec a body line starts with; *value receives what follows the '='. CG_SPEC_NONE for a
 * line that is not a known spec. */
cg_spec cg_spec_of(const char *line, size_t len, size_t *value);
/* The namespace of a spec that names something. */
cg_namespace cg_spec_namespace(cg_spec spec);

/* Parses an unsigned number, decimal or 0x-hexadecimal, at s[*pos..len). False when there is
 * none or it exceeds 2^64 - 1. */
bool cg_parse_number(const char *s, size_t len, size_t *pos, uint64_t *value);
/* Skips blanks (space, tab) at s[*pos..len). */
void cg_skip_blanks(const char *s, size_t len, size_t *pos);

/* Subposition decoding: `+N`, `-N` relative to the same column of the previous position line,
 * `*` the same, otherwise absolute. */
typedef struct cg_positions {
    unsigned count;                 /* columns: 1 or 2 */
    int line_column;                /* the column holding the line, -1 without one */
    uint64_t last[CG_MAX_POSITIONS];
} cg_positions;

/* Sets the columns from a `positions:` value; false for an unknown column or none. */
bool cg_positions_set(cg_positions *p, const char *value, size_t len);
/* Reads the subpositions at s[*pos..len) into out; with update, they become the previous
 * positions. False when a column is missing or malformed. */
bool cg_positions_parse(cg_positions *p, const char *s, size_t len, size_t *pos, bool update,
                        uint64_t out[CG_MAX_POSITIONS]);

/* Costs of entries kept apart from the entries, `values` per entry (a profile of one event
 * pays for one): makes room for entry index in *costs and zeroes its costs. False when memory
 * runs out. */
bool cg_costs_add_entry(int64_t **costs, size_t *cap, size_t index, unsigned values);

/* Decoding compressed names: `(N) name` defines N, `(N)` refers to it, anything else is a name
 * as it stands (cachegrind writes `(below main)` uncompressed). Names are interned in the
 * profile. */
typedef struct cg_names {
    pk_u64map ids[CG_NS_COUNT]; /* N -> string */
} cg_names;

typedef enum cg_name_result {
    CG_NAME_OK,
    CG_NAME_UNDEFINED, /* `(N)` before any `(N) name`: the string is `(N)` itself */
    CG_NAME_NOMEM
} cg_name_result;

void cg_names_init(cg_names *n);
void cg_names_free(cg_names *n);
/* The string of the name value[0..len) in namespace ns, into *string. */
cg_name_result cg_names_decode(cg_names *n, pk_profile *p, cg_namespace ns, const char *value,
                               size_t len, uint32_t *string);

#endif
