/* SPDX-License-Identifier: MIT */
/* Probing JSON formats by content: which keys the first block of a document holds.
 *
 * A probe sees the first PK_PROBE_BYTES of the input, usually a document cut in the middle.
 * pk_json_probe parses that prefix with the streaming parser (json_input.h) and marks each of
 * the caller's keys it meets, by path, and optionally by its string value:
 *
 *     pk_json_probe_key keys[] = {{"nodes/#/callFrame"}, {"samples"}, {"timeDeltas"}};
 *     if (pk_json_probe(data, size, keys, 3) < 0)  ... not JSON ...
 *     if (keys[0].found) ...
 *
 * A key counts when its value starts within the bytes (a container) or is whole (a scalar).
 */
#ifndef PK_CORE_JSON_PROBE_H
#define PK_CORE_JSON_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pk_json_probe_key {
    const char *path;  /* a pattern from the top (pk_json_parser_match): "traceEvents/#/ph" */
    const char *value; /* NULL: any value; else the string the value must be */
    bool found;        /* set by pk_json_probe */
} pk_json_probe_key;

/* Marks the keys found in data[0..size). Returns how many were found, or -1 when the bytes are
 * not the start of a JSON object or array (another first byte than '{' or '[' after white space
 * and a UTF-8 byte-order mark, or a syntax error before any key was found: keys met before an
 * error count, so that a damaged file is still recognised and its reader reports the damage). */
int pk_json_probe(const uint8_t *data, size_t size, pk_json_probe_key *keys, size_t n);

/* The first byte of the document after white space and a byte-order mark: '{', '[', another
 * byte, or -1 when there is none. */
int pk_json_first_byte(const uint8_t *data, size_t size);

#endif
