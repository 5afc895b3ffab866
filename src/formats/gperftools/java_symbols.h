/* SPDX-License-Identifier: MIT */
/* The symbol text of a Java CPU profile (header version 1): after the trailer, lines such as
 *
 *     0x0000006 com.example.function06 (source.java:06)
 *     0x0000003 GC
 *
 * name the profile's addresses. This reads them as pprof's legacy parser (Go pprof,
 * profile/legacy_java_profile.go) does: a line, trimmed, is "0x" hex digits, blanks and a
 * description; "FUNCTION (FILE:LINE)" gives a function, its file and a line (kept when above 0),
 * "FUNCTION (PATH)" a function in the base name of PATH, a description that mentions
 * "generated stub/JIT" is the function "STUB", and anything else is the function's name whole
 * ("GC", "VM"). Every other line ("--- symbol", "binary=...") is skipped. */
#ifndef PK_FORMATS_GPERFTOOLS_JAVA_SYMBOLS_H
#define PK_FORMATS_GPERFTOOLS_JAVA_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct gp_java_symbol {
    uint64_t address;
    const char *function; /* points into the line */
    size_t function_len;
    const char *file; /* points into the line, or to "" */
    size_t file_len;
    uint32_t line; /* 0 when unknown */
} gp_java_symbol;

/* Parses one line (without its line end). False when it names no address. */
bool gp_java_symbol_parse(const char *line, size_t len, gp_java_symbol *out);

#endif
