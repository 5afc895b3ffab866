/* SPDX-License-Identifier: MIT */
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

typedef enum { JP_OBJECT, JP_ARRAY, JP_KEY, JP_STRING, JP_NUMBER, JP_LITERAL } jp_kind;

/* Counts one value or key of KIND, BYTES long for a key or string. Inline: the streaming
 * parsers call it once a value, and a call into the program would weigh on their times. */
static inline void jp_count(jp_tally *t, jp_kind kind, size_t bytes)
{
    switch (kind) {
    case JP_OBJECT:
        t->objects++;
        break;
    case JP_ARRAY:
        t->arrays++;
        break;
    case JP_KEY:
        t->keys++;
        t->text_bytes += bytes;
        break;
    case JP_STRING:
        t->strings++;
        t->text_bytes += bytes;
        break;
    case JP_NUMBER:
        t->numbers++;
        break;
    case JP_LITERAL:
        t->literals++;
        break;
    }
}

/* A parser that streams, or counts as it goes: parses the file at PATH, counting into TALLY;
 * 0, or 1 after jp_fail. */
typedef int jp_parse_fn(const char *path, jp_tally *tally);

/* A document as a whole-document parser built it. */
typedef struct {
    const void *root; /* the top value */
    void *tree;       /* what the parser's own free takes: the root, or the parser holding it */
} jp_document;

/* Called for each member (with its KEY, KEY_LENGTH bytes) or element (KEY NULL) of a
 * container. */
typedef void jp_visit(void *ctx, const char *key, size_t key_length, const void *child);

/* What json_parsers needs of a whole-document parser to time and walk its tree: it reads the
 * file whole (unless the parser takes chunks), has it parsed, walks and counts the tree and
 * frees it, each a phase of its own (jp_phase). */
typedef struct {
    /* Parses the file's TEXT, SIZE bytes and a NUL, or when TEXT is NULL the file at PATH
     * itself; 0, or 1 after jp_fail. */
    int (*load)(const char *path, const char *text, size_t size, jp_document *document);
    int takes_chunks; /* TEXT is NULL: the parser reads PATH with jp_read_chunks */
    jp_kind (*kind)(const void *value);                   /* never JP_KEY */
    size_t (*string_length)(const void *string);
    void (*each)(const void *container, jp_visit *visit, void *ctx);
    void (*release)(void *tree);
} jp_tree;

typedef struct {
    const char *name;
    const char *how;     /* streaming or whole document, and through which API */
    jp_parse_fn *parse;  /* or */
    const jp_tree *tree; /* for the parsers that build one */
} jp_parser;

/* Streaming input as profkit's input layer reads it: the file in chunks of 1 MiB, each handed
 * to FEED; returns 0 at the end of the file, FEED's nonzero result, or 1 after jp_fail. */
int jp_read_chunks(const char *path, int (*feed)(void *ctx, const char *data, size_t size),
                   void *ctx);

/* Whole-document input: the file's bytes with a NUL after them (some parsers want a C
 * string), SIZE without the NUL; NULL after jp_fail. */
char *jp_read_whole(const char *path, size_t *size);

/* Ends the current phase of a whole-document parse under NAME (read, parse, walk, free): the
 * process's CPU time since the previous phase ended. json_parsers marks the phases of a
 * jp_tree itself. */
void jp_phase(const char *name);

/* Prints "json_parsers: PARSER: FILE: message" to stderr; returns 1. */
int jp_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* What each module defines: json_parsers finds it by this name. */
extern const jp_parser jp_module;

#endif
