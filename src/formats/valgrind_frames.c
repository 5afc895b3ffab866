/* SPDX-License-Identifier: MIT */
/* Frames as valgrind's tools name them (valgrind_frames.h). */
#include <stdbool.h>
#include <string.h>

#include "formats/valgrind_frames.h"

static bool starts(const char *s, size_t n, const char *prefix)
{
    size_t k = strlen(prefix);
    return n >= k && memcmp(s, prefix, k) == 0;
}

static bool parse_line_number(const char *s, size_t n, uint32_t *out)
{
    uint64_t v = 0;
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || v > UINT32_MAX / 10)
            return false;
        v = v * 10 + (unsigned)(s[i] - '0');
    }
    if (v > UINT32_MAX)
        return false;
    *out = (uint32_t)v;
    return true;
}

/* The frame of a name as valgrind writes it: `0xADDR: FUNCTION (FILE:LINE)`, `0xADDR: FUNCTION (in OBJECT)`,
 * `0xADDR: ???`, or anything else (the `in N places, all below massif's threshold (1.00%)`
 * entries) as a function of that name. */
uint32_t pk_valgrind_frame(pk_profile *p, const char *s, size_t n)
{
    pk_frame frame = {.resource = PK_NONE};
    pk_function fn = {.resource = PK_NONE};
    const char *name = s;
    size_t name_len = n;
    if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        size_t i = 2;
        uint64_t address = 0;
        bool fits = true;
        while (i < n && ((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') ||
                         (s[i] >= 'A' && s[i] <= 'F'))) {
            unsigned d = s[i] <= '9' ? (unsigned)(s[i] - '0') : (unsigned)((s[i] | 0x20) - 'a' + 10);
            fits &= address >> 60 == 0;
            address = address << 4 | d;
            i++;
        }
        if (i > 2 && i + 1 < n && s[i] == ':' && s[i + 1] == ' ') {
            if (fits) {
                frame.address = address;
                frame.flags = PK_FRAME_HAS_ADDRESS;
            }
            name = s + i + 2;
            name_len = n - i - 2;
            /* the location in parentheses at the end; the name may hold parentheses itself */
            if (name_len > 0 && name[name_len - 1] == ')') {
                size_t open = name_len - 1;
                while (open > 0 && !(name[open] == '(' && name[open - 1] == ' '))
                    open--;
                if (open > 0) {
                    const char *loc = name + open + 1;
                    size_t loc_len = name_len - open - 2;
                    if (starts(loc, loc_len, "in ")) {
                        pk_resource res = {0};
                        res.path = pk_intern(p, loc + 3, loc_len - 3);
                        const char *base = loc + 3;
                        size_t base_len = loc_len - 3;
                        for (size_t k = 0; k < loc_len - 3; k++)
                            if (loc[3 + k] == '/') {
                                base = loc + 4 + k;
                                base_len = loc_len - 4 - k;
                            }
                        res.name = pk_intern(p, base, base_len);
                        if (res.path == PK_NONE || res.name == PK_NONE)
                            return PK_NONE;
                        fn.resource = frame.resource = pk_intern_resource(p, &res);
                        if (fn.resource == PK_NONE)
                            return PK_NONE;
                        name_len = open - 1;
                    } else {
                        size_t colon = loc_len;
                        while (colon > 0 && loc[colon - 1] != ':')
                            colon--;
                        uint32_t line = 0, column = 0;
                        size_t file_end = colon > 0 ? colon - 1 : 0;
                        bool found = colon > 1 && parse_line_number(loc + colon, loc_len - colon,
                                                                    &line);
                        /* `FILE:LINE:COLUMN` (the Rust crate dhat): the column is not kept */
                        size_t before = file_end;
                        while (before > 0 && loc[before - 1] != ':')
                            before--;
                        if (found && before > 1 &&
                            parse_line_number(loc + before, file_end - before, &column)) {
                            line = column;
                            file_end = before - 1;
                        }
                        if (found) {
                            fn.file = pk_intern(p, loc, file_end);
                            if (fn.file == PK_NONE)
                                return PK_NONE;
                            frame.line = line;
                            name_len = open - 1;
                        }
                    }
                }
            }
        }
    }
    fn.name = name_len ? pk_intern(p, name, name_len) : pk_intern_cstr(p, "???");
    if (fn.name == PK_NONE)
        return PK_NONE;
    frame.function = pk_intern_function(p, &fn);
    return frame.function == PK_NONE ? PK_NONE : pk_intern_frame(p, &frame);
}
