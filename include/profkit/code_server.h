/* SPDX-License-Identifier: MIT */
/* The code behind a profile: the answers of the Firefox Profiler's symbolication API (the API
 * samply answers on its local server), so that the profiler can show a function's source
 * lines and its instructions with their samples, and name addresses itself.
 *
 * Three routes, each a POST of a JSON request answered by a JSON document:
 *
 *   /source/v1       {"debugName", "debugId", "moduleOffset", "file"} -> {"file", "source",
 *                    "symbolsLastModified": null, "sourceLastModified": null}: the text of a
 *                    source file the profile names (a function's file, and nothing else): a
 *                    "pkg:/" path (or any path that is not absolute) from the channel's source
 *                    (a folder or package zip, never following a link or ".." out of it), an
 *                    absolute path (a native source file named by DWARF) from this machine.
 *   /asm/v1          {"debugName", "debugId", "startAddress", "size", ...} -> {"startAddress",
 *                    "size", "arch", "syntax", "instructions": [[offset, text], ...]}: the
 *                    instructions of a range of a library of the profile, disassembled with
 *                    capstone (Intel syntax on x86); startAddress is library-relative (the
 *                    mapping's file offset, as the firefox writer gives frame addresses),
 *                    read from the binary the symbolization pass would read. Decoding starts
 *                    at the start of the ELF symbol holding startAddress (the app asks from
 *                    the lowest address it saw, a caller's being inside a call instruction),
 *                    and with "continueUntilFunctionEnd" goes on to the symbol's end.
 *   /symbolicate/v5  {"jobs": [{"memoryMap": [[debugName, breakpadId], ...], "stacks":
 *                    [[[libIndex, address], ...], ...]}]} -> {"results": [{"stacks": [[{"frame",
 *                    "module_offset", "module", "function", "function_offset",
 *                    "function_size", "file", "line", "inlines": [{"function", "file",
 *                    "line"}, ...innermost first]}, ...]], "found_modules": {"name/id": bool}}]}:
 *                    addresses named by the symbolization pass's symbolizer (ELF symbols and
 *                    DWARF), so that a profile converted with --no-symbols, or whose binaries
 *                    were found later, is named by the app itself. A frame that cannot be named
 *                    has no "function".
 *
 * A library is one of the profile's resources, named as the firefox writer names it (its name,
 * else its path's base name) with its breakpad ID (derived from its build ID). Everything
 * refused (a file the profile does not name, a library it does not have, a request that is not
 * such JSON) is answered {"error": "..."} with a 4xx status, which the profiler shows.
 *
 * Ownership: the profile and the source are the caller's and must outlive the server; answers
 * belong to the caller (free). One server answers one request at a time.
 */
#ifndef PROFKIT_CODE_SERVER_H
#define PROFKIT_CODE_SERVER_H

#include <stddef.h>

#include "profkit/error.h"
#include "profkit/export.h"
#include "profkit/profile.h"
#include "profkit/source_names.h"
#include "profkit/symbolize.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pk_code_server pk_code_server;

typedef struct pk_code_server_options {
    pk_source *source;                     /* the channel's source for script files; may be NULL */
    const pk_symbolize_options *symbolize; /* where binaries are looked for; may be NULL */
} pk_code_server_options;

/* A server for the files, libraries and addresses of p. options may be NULL. */
PK_API pk_status pk_code_server_new(const pk_profile *p, const pk_code_server_options *options,
                                    pk_code_server **out, pk_error *err);
/* NULL is allowed. */
PK_API void pk_code_server_free(pk_code_server *server);

/* Answers request (size bytes, any bytes) to route ("/source/v1", "/asm/v1" or
 * "/symbolicate/v5"): *response (malloc'ed JSON, *response_size bytes) belongs to the caller.
 * Returns the HTTP status: 200, 400 (not a request of that route), 403 (a file the profile
 * does not name), 404 (unknown route, library, or a file that cannot be read), 413 (a range
 * too large); 0 when memory runs out (*response NULL). */
PK_API int pk_code_server_answer(pk_code_server *server, const char *route, const char *request,
                                 size_t size, char **response, size_t *response_size);

#ifdef __cplusplus
}
#endif

#endif
