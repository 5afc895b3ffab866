/* One JSON parser of bench/json_parsers, a module of its own: what it reports, and the input
 * and timing helpers every parser shares, which the program exports to its modules
 * (bench/json_parsers.c). */
#ifndef JSON_PARSERS_PARSER_H
#define JSON_PARSERS_PARSER_H

#include <stddef.h>
#include <stdint.h>

/* The least a reader needs of a document: every value seen by kind, every key, and the bytes
 * of the strings and keys as the parser hands them over (unescaped by most, raw by jsmn). The
 * counts of every parser must agree on a file; they also keep the compiler from dropping the
 * work. */
typedef struct {
    uint64_t objects, arrays, keys, strings, numbers, literals, text_bytes;
} jp_tally;

/* Parses the file at PATH, counting into TALLY; 0, or 1 after jp_fail. */
typedef int jp_parse_fn(const char *path, jp_tally *tally);

typedef struct {
    const char *name;
    const char *how; /* streaming or whole document, and through which API */
    jp_parse_fn *parse;
} jp_parser;

/* Streaming input as profkit's input layer reads it: the file in chunks of 1 MiB, each handed
 * to FEED; returns 0 at the end of the file, FEED's nonzero result, or 1 after jp_fail. */
int jp_read_chunks(const char *path, int (*feed)(void *ctx, const char *data, size_t size),
                   void *ctx);

/* Whole-document input: the file's bytes with a NUL after them (some parsers want a C
 * string), SIZE without the NUL; NULL after jp_fail. Ends the phase "read". */
char *jp_read_whole(const char *path, size_t *size);

/* Ends the current phase of a whole-document parse under NAME (read, parse, walk, free): the
 * process's CPU time since the previous phase ended. */
void jp_phase(const char *name);

/* Prints "json_parsers: PARSER: FILE: message" to stderr; returns 1. */
int jp_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* What each module defines: json_parsers finds it by this name. */
extern const jp_parser jp_module;

#endif
