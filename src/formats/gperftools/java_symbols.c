/* SPDX-License-Identifier: MIT */
/* The symbol text of a Java CPU profile (java_symbols.h). */
#include "formats/gperftools/java_symbols.h"

#include <string.h>

#include "core/hex.h"

/* The blanks of Go's regexp \s (and of strings.TrimSpace, for ASCII). */
static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* The last position k such that s[k] is a blank, s[k + 1] is '(' and the rest [k + 2, n)
 * satisfies tail: pprof's patterns begin with a greedy (.*)\s+\(, so the function is the
 * longest prefix that leaves a blank and a '(' before a matching tail. SIZE_MAX when none. */
static size_t last_split(const char *s, size_t n, bool (*tail)(const char *, size_t, size_t *,
                                                                size_t *, uint32_t *),
                         size_t *file_len, size_t *file_at, uint32_t *line)
{
    for (size_t k = n >= 2 ? n - 2 : 0; k-- > 0;) {
        if (is_space(s[k]) && s[k + 1] == '(' &&
            tail(s + k + 2, n - k - 2, file_len, file_at, line)) {
            *file_at += k + 2;
            return k;
        }
    }
    return SIZE_MAX;
}

/* "(.+):(-?[[:digit:]]+)\)$" after the '(': the file is the longest that leaves ':' and
 * digits. */
static bool file_line_tail(const char *s, size_t n, size_t *file_len, size_t *file_at,
                           uint32_t *line)
{
    if (n < 4 || s[n - 1] != ')')
        return false;
    size_t end = n - 1, digits = end;
    while (digits > 0 && s[digits - 1] >= '0' && s[digits - 1] <= '9')
        digits--;
    if (digits == end)
        return false;
    size_t colon = digits;
    bool negative = colon > 0 && s[colon - 1] == '-';
    if (negative)
        colon--;
    if (colon < 2 || s[colon - 1] != ':')
        return false;
    *file_at = 0;
    *file_len = colon - 1;
    /* Lines above 0 are kept, as pprof keeps strconv.ParseInt's n > 0; the model's lines are
     * 32-bit. */
    uint64_t v = 0;
    for (size_t i = digits; i < end && v <= UINT32_MAX; i++)
        v = v * 10 + (uint64_t)(s[i] - '0');
    *line = !negative && v > 0 && v <= UINT32_MAX ? (uint32_t)v : 0;
    return true;
}

/* "(.*)\)$" after the '(': a path. */
static bool path_tail(const char *s, size_t n, size_t *file_len, size_t *file_at,
                      uint32_t *line)
{
    if (n < 1 || s[n - 1] != ')')
        return false;
    /* filepath.Base: the last element, trailing slashes removed; "." for an empty path. */
    size_t end = n - 1;
    while (end > 1 && s[end - 1] == '/')
        end--;
    size_t start = end;
    while (start > 0 && s[start - 1] != '/')
        start--;
    if (end == 0) {
        *file_at = 0;
        *file_len = 0; /* made "." by the caller */
    } else if (start == end) {
        *file_at = start - 1; /* "/" */
        *file_len = 1;
    } else {
        *file_at = start;
        *file_len = end - start;
    }
    *line = 0;
    return true;
}

bool gp_java_symbol_parse(const char *line, size_t len, gp_java_symbol *out)
{
    while (len > 0 && is_space(line[0])) {
        line++;
        len--;
    }
    while (len > 0 && is_space(line[len - 1]))
        len--;
    if (len < 3 || line[0] != '0' || line[1] != 'x')
        return false;
    size_t i = 2;
    uint64_t address = 0;
    while (i < len && pk_hex_digit(line[i]) >= 0) {
        if (address >> 60)
            return false; /* more than 64 bits: pprof fails to parse it */
        address = address << 4 | (uint64_t)pk_hex_digit(line[i]);
        i++;
    }
    if (i == 2 || i == len || !is_space(line[i]))
        return false;
    while (i < len && is_space(line[i]))
        i++;
    const char *d = line + i;
    size_t n = len - i;
    *out = (gp_java_symbol){address, d, n, "", 0, 0};
    size_t file_len = 0, file_at = 0;
    uint32_t line_no = 0;
    size_t k = last_split(d, n, file_line_tail, &file_len, &file_at, &line_no);
    if (k == SIZE_MAX)
        k = last_split(d, n, path_tail, &file_len, &file_at, &line_no);
    if (k != SIZE_MAX) {
        out->function_len = k;
        out->file = file_len || d[file_at] == '/' ? d + file_at : ".";
        out->file_len = file_len ? file_len : 1;
        out->line = line_no;
    } else {
        static const char stub[] = "generated stub/JIT";
        for (size_t j = 0; j + sizeof stub - 1 <= n; j++)
            if (memcmp(d + j, stub, sizeof stub - 1) == 0) {
                out->function = "STUB";
                out->function_len = 4;
                break;
            }
    }
    return true;
}
