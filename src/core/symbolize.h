/* SPDX-License-Identifier: MIT */
/* The symbolizer behind the symbolization pass (profkit/symbolize.h): names native code
 * addresses from ELF symbol tables and DWARF debug information, read with elfutils (libdwfl /
 * libdw), interning what it finds into a destination profile.
 *
 * For each distinct (resource, address) it gives the chain of frames: the function containing
 * the address, then every function inlined into it there, innermost last. The search order for
 * binaries is described in profkit/symbolize.h.
 */
#ifndef PK_CORE_SYMBOLIZE_H
#define PK_CORE_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profkit/profile.h"
#include "profkit/symbolize.h"

/* The placeholder name of an unnamed address ("0x" and lower-case hex) as a string of p: how
 * readers name the frames that pk_frame_is_unresolved recognises. */
uint32_t pk_address_name(pk_profile *p, uint64_t address);

typedef struct pk_symbolizer pk_symbolizer;

/* A symbolizer that interns the functions and frames it finds into dst, searching the
 * directories of options (may be NULL). Returns NULL when memory runs out. */
pk_symbolizer *pk_symbolizer_new(pk_profile *dst, const pk_symbolize_options *options);
/* Adds the warnings (one per binary that could not be used, with the number of addresses left
 * unnamed) to dst and frees everything. NULL is allowed. */
void pk_symbolizer_free(pk_symbolizer *s);

/* The frames of dst for the code at address in resource, a resource of dst (PK_NONE when the
 * address falls in no mapping). address is what the frame holds: for callers, already the
 * return address - 1.
 *
 * *frames receives count frame indexes, outermost first: the function containing the address
 * (flags HAS_ADDRESS), then each function inlined there (HAS_ADDRESS | INLINED, same address);
 * the last one is the code being executed. When nothing is known, a single frame named by the
 * address. The array stays valid until pk_symbolizer_free. Returns count (>= 1), or 0 when
 * memory runs out. */
size_t pk_symbolizer_frames(pk_symbolizer *s, uint32_t resource, uint64_t address,
                            const uint32_t **frames);

/* The build ID (lower-case hex) of the binary that the symbolizer reads for resource r, a
 * resource whose strings are dst's (interned or not yet), found as for pk_symbolizer_frames;
 * NULL when no usable binary is found or it has no build ID. The binary is kept open for the
 * lookups to come; the string lives until pk_symbolizer_free. */
const char *pk_symbolizer_build_id(pk_symbolizer *s, const pk_resource *r);

/* What the binary of a resource says about the code at an address (found as for
 * pk_symbolizer_frames): for the symbol server, which disassembles a function and names
 * addresses with their function's start. */
typedef struct pk_symbolizer_code {
    const char *binary;    /* path of the binary read (lives until pk_symbolizer_free) */
    const char *symbol;    /* the ELF symbol containing the address, NULL when none */
    uint64_t symbol_start; /* its start and size, in the profile's addresses */
    uint64_t symbol_size;  /* (0 when the symbol table does not say) */
    bool has_file_offset;  /* the address lies in a loadable segment's file bytes: */
    uint64_t file_offset;  /* its offset in the binary, by the program headers */
} pk_symbolizer_code;

/* Fills *code for address in resource (a resource of dst); false when no usable binary is
 * found for it. */
bool pk_symbolizer_code_at(pk_symbolizer *s, uint32_t resource, uint64_t address,
                           pk_symbolizer_code *code);

/* Number of distinct (resource, address) pairs looked up so far, and how many of them got a
 * function name from a binary. */
size_t pk_symbolizer_lookups(const pk_symbolizer *s);
size_t pk_symbolizer_resolved(const pk_symbolizer *s);

#endif
