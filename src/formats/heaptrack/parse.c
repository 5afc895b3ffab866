/* SPDX-License-Identifier: MIT */
/* The fields of one heaptrack line (heaptrack.h). */
#include <string.h>

#include "core/hex.h"
#include "formats/heaptrack/heaptrack.h"

const char *ht_parse_hex(const char *at, const char *end, uint64_t *out, size_t capacity,
                         size_t *count)
{
    size_t n = 0;
    while (n < capacity) {
        if (at == end || *at != ' ')
            break;
        while (at < end && *at == ' ')
            at++;
        if (at == end)
            break;
        uint64_t v = 0;
        const char *start = at;
        int d;
        while (at < end && (d = pk_hex_digit(*at)) >= 0) {
            if (v >> 60)
                return "has a number beyond 64 bits";
            v = v << 4 | (uint64_t)d;
            at++;
        }
        if (at == start || (at < end && *at != ' '))
            return "has a field that is not a hexadecimal number";
        out[n++] = v;
    }
    *count = n;
    return NULL;
}

const char *ht_parse_string(const char *line, size_t len, bool sized, const char **text,
                            size_t *text_len)
{
    if (len < 2 || line[1] != ' ') {
        *text = line + len;
        *text_len = 0;
        return len < 2 ? NULL : "is not `s TEXT`";
    }
    if (!sized) {
        *text = line + 2;
        *text_len = len - 2;
        return NULL;
    }
    const char *at = line + 1, *end = line + len;
    uint64_t size = 0;
    size_t count = 0;
    /* the length ends at the first space after it: parse it alone */
    const char *space = memchr(at + 1, ' ', (size_t)(end - at - 1));
    const char *why = ht_parse_hex(at, space ? space : end, &size, 1, &count);
    if (why || count != 1)
        return why ? why : "has no string length";
    if (!space)
        space = end;
    size_t rest = space < end ? (size_t)(end - space - 1) : 0;
    if (size > rest)
        return "is shorter than the length it gives";
    *text = space < end ? space + 1 : end;
    *text_len = (size_t)size;
    return NULL;
}

/* "v HEX HEX" or "v HEX", then a line break. */
static bool version_line(const uint8_t *data, size_t size, size_t *next)
{
    if (size < 4 || data[0] != 'v' || data[1] != ' ')
        return false;
    size_t i = 2, numbers = 0, digits = 0;
    for (; i < size && data[i] != '\n'; i++) {
        if (data[i] == ' ') {
            if (digits == 0)
                return false;
            numbers++;
            digits = 0;
        } else if (pk_hex_digit((char)data[i]) >= 0 && digits < 16) {
            digits++;
        } else {
            return false;
        }
    }
    if (i == size || digits == 0 || numbers > 1)
        return false;
    *next = i + 1;
    return true;
}

int ht_probe(const uint8_t *data, size_t size)
{
    size_t next = 0;
    if (!version_line(data, size, &next))
        return PK_PROBE_NO;
    /* what heaptrack writes after the version: the debuggee, system info, attached, strings */
    if (next + 2 <= size && data[next + 1] == ' ' && strchr("XIAs", data[next]))
        return PK_PROBE_CERTAIN;
    return next == size ? PK_PROBE_LIKELY : PK_PROBE_WEAK;
}
