/* Naming native code addresses from the binaries they came from: ELF symbol tables and DWARF
 * debug information, read with elfutils (libdwfl / libdw).
 *
 * A reader of native profiles (gperftools, pprof, ...) has addresses and the mappings they
 * fall into (resources with a path, a build ID, start, limit and file offset). It gives each
 * unresolved address a frame whose function is named by the address ("0x4011d6", see
 * pk_symbolize_address_name) and HAS_ADDRESS, then either:
 *
 *   - builds its own profile through a pk_symbolizer: for each distinct (resource, address)
 *     it asks for the chain of frames (the function containing the address, then every
 *     function inlined into it there, innermost last) and links them into its stacks; or
 *   - fills a profile with address frames and hands it to pk_symbolize_profile, which copies it
 *     into a new profile with every unresolved frame replaced by its chain.
 *
 * Binaries are looked for under each --symbol-path directory first (by base name, by full path
 * and by build ID), then at the resource's path, then by build ID in the debug directories
 * (/usr/lib/debug/.build-id/xx/rest.debug); a candidate with another build ID, or without a
 * loadable segment where the mapping's file offset says, is passed over. Separate debug files
 * are found the way elfutils finds them. Each binary is opened once and each distinct address looked up once. A binary
 * that is missing or does not match its mapping leaves its addresses named by address, with
 * the library as their resource, and yields one warning in the profile.
 */
#ifndef PK_CORE_SYMBOLIZE_H
#define PK_CORE_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profkit/format.h"
#include "profkit/profile.h"

/* The read options every format with native addresses declares; put this macro in its
 * pk_option_spec table (before the terminating entry). */
#define PK_SYMBOLIZE_READ_OPTION_SPECS                                                          \
    {"symbol-path", "DIR", "look for binaries and debug files under DIR too (repeatable)"},   \
    {"no-symbols", NULL, "keep addresses: do not read binaries for symbols"}

/* False when --no-symbols was given. */
bool pk_symbolize_requested(const pk_option_list *extra);

/* The placeholder name of an unresolved address ("0x" and lower-case hex) as a string of p. */
uint32_t pk_symbolize_address_name(pk_profile *p, uint64_t address);
/* True for a frame pk_symbolize_profile would resolve: it has an address, is not inlined, and
 * its function is named "" or by an address ("0x" followed by hex digits only). */
bool pk_symbolize_is_unresolved(const pk_profile *p, uint32_t frame);

typedef struct pk_symbolizer pk_symbolizer;

/* A symbolizer that interns the functions and frames it finds into dst. extra (may be NULL)
 * supplies the --symbol-path directories. Returns NULL when memory runs out. */
pk_symbolizer *pk_symbolizer_new(pk_profile *dst, const pk_option_list *extra);
/* Adds a directory searched before the resource's own path (as --symbol-path does). */
bool pk_symbolizer_add_search_dir(pk_symbolizer *s, const char *dir);
/* Debug directories searched by build ID; replaces the default ("/usr/lib/debug"). For tests. */
bool pk_symbolizer_set_debug_dirs(pk_symbolizer *s, const char *const *dirs, size_t count);
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

/* Number of distinct (resource, address) pairs looked up so far, and how many of them got a
 * function name from a binary. */
size_t pk_symbolizer_lookups(const pk_symbolizer *s);
size_t pk_symbolizer_resolved(const pk_symbolizer *s);

/* Copies src into dst, a new empty profile: metadata, properties, warnings, value types,
 * threads, resources, samples (in their order) and memory events, with every frame for which
 * pk_symbolize_is_unresolved holds replaced by its chain of frames. Other frames are copied as
 * they are. extra (may be NULL) supplies --symbol-path. */
pk_status pk_symbolize_profile(const pk_profile *src, pk_profile *dst,
                               const pk_option_list *extra, pk_error *err);

#endif
