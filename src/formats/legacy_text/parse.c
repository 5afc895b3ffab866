/* SPDX-License-Identifier: MIT */
/* One line of a legacy text profile at a time (legacy_text.h). The shapes and the arithmetic
 * are those of pprof's legacy profile parser (google/pprof, profile/legacy_profile.go), whose
 * numbers the tests compare with `go tool pprof`; jemalloc's lines are read as jeprof reads
 * them, with the same unsampling. */
#include <math.h>
#include <string.h>

#include "core/hex.h"
#include "formats/legacy_text/legacy_text.h"

static bool lt_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static bool lt_digit(char c)
{
    return c >= '0' && c <= '9';
}

void lt_trim(const char **line, size_t *len)
{
    const char *s = *line, *e = s + *len;
    while (s < e && lt_blank(*s))
        s++;
    while (e > s && lt_blank(e[-1]))
        e--;
    *line = s;
    *len = (size_t)(e - s);
}

static const char *lt_skip_blanks(const char *at, const char *end)
{
    while (at < end && (*at == ' ' || *at == '\t'))
        at++;
    return at;
}

/* A decimal int64 with an optional minus sign (when negative_ok); false on overflow or when
 * no digit is there. */
static bool lt_int(const char **at, const char *end, bool negative_ok, int64_t *out)
{
    const char *s = *at;
    bool negative = false;
    if (negative_ok && s < end && *s == '-') {
        negative = true;
        s++;
    }
    if (s >= end || !lt_digit(*s))
        return false;
    uint64_t v = 0, limit = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; s < end && lt_digit(*s); s++) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (limit - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = negative ? (v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v) : (int64_t)v;
    *at = s;
    return true;
}

static bool lt_starts(const char *s, size_t len, const char *prefix)
{
    size_t n = strlen(prefix);
    return len >= n && memcmp(s, prefix, n) == 0;
}

/* The digits of one number (for pprof's comparison of the header's numbers as text). */
static bool lt_digits(const char **at, const char *end, const char **digits, size_t *n)
{
    const char *s = lt_skip_blanks(*at, end);
    const char *start = s;
    while (s < end && lt_digit(*s))
        s++;
    if (s == start)
        return false;
    *digits = start;
    *n = (size_t)(s - start);
    *at = s;
    return true;
}

static bool lt_expect(const char **at, const char *end, char c)
{
    const char *s = lt_skip_blanks(*at, end);
    if (s >= end || *s != c)
        return false;
    *at = s + 1;
    return true;
}

static bool lt_same_text(const char *a, size_t an, const char *b, size_t bn)
{
    return an == bn && memcmp(a, b, an) == 0;
}

static bool lt_is_zero_text(const char *a, size_t an)
{
    return an == 1 && a[0] == '0';
}

/* "heap profile: N: N [N: N] @ NAME[/RATE]" */
static lt_header lt_parse_heap_header(const char *s, const char *end)
{
    lt_header h = {LT_NONE, LT_SAMPLING_NONE, 0, false};
    const char *d[4];
    size_t n[4];
    if (!lt_digits(&s, end, &d[0], &n[0]) || !lt_expect(&s, end, ':') ||
        !lt_digits(&s, end, &d[1], &n[1]) || !lt_expect(&s, end, '[') ||
        !lt_digits(&s, end, &d[2], &n[2]) || !lt_expect(&s, end, ':') ||
        !lt_digits(&s, end, &d[3], &n[3]) || !lt_expect(&s, end, ']') ||
        !lt_expect(&s, end, '@'))
        return h;
    s = lt_skip_blanks(s, end);
    const char *name = s;
    while (s < end && (*s == '_' || (*s >= 'a' && *s <= 'z') || lt_digit(*s)))
        s++;
    size_t name_len = (size_t)(s - name);
    /* Growth stacks: "@ growthz" (pprof's name), "@ growth" (what gperftools writes). */
    if ((name_len == 6 && lt_starts(name, name_len, "growth")) ||
        (name_len == 7 && lt_starts(name, name_len, "growthz")) ||
        (name_len == 13 && lt_starts(name, name_len, "fragmentation")) ||
        (name_len == 14 && lt_starts(name, name_len, "fragmentationz"))) {
        h.kind = LT_GROWTH;
        h.rate = 1;
        return h;
    }
    int64_t rate = 0;
    if (s < end && *s == '/')
        s++;
    if (s < end && lt_digit(*s) && !lt_int(&s, end, false, &rate))
        return h;
    /* pprof compares the numbers as written: allocations differ from what is in use. */
    h.has_alloc = (!lt_same_text(d[2], n[2], d[0], n[0]) && !lt_is_zero_text(d[2], n[2])) ||
                  (!lt_same_text(d[3], n[3], d[1], n[1]) && !lt_is_zero_text(d[3], n[3]));
    if ((name_len == 8 && lt_starts(name, name_len, "heapz_v2")) ||
        (name_len == 7 && lt_starts(name, name_len, "heap_v2"))) {
        h.kind = LT_HEAP;
        h.sampling = LT_SAMPLING_V2;
        h.rate = rate;
    } else if (name_len == 11 && lt_starts(name, name_len, "heapprofile")) {
        h.kind = LT_HEAP;
        h.rate = 1;
    } else if (name_len == 4 && lt_starts(name, name_len, "heap")) {
        h.kind = LT_HEAP;
        h.sampling = LT_SAMPLING_V2;
        h.rate = rate / 2;
    } else {
        h.has_alloc = false;
    }
    return h;
}

lt_header lt_parse_header(const char *line, size_t len)
{
    lt_header h = {LT_NONE, LT_SAMPLING_NONE, 0, false};
    lt_trim(&line, &len);
    const char *end = line + len;
    if (lt_starts(line, len, "heap profile:"))
        return lt_parse_heap_header(line + 13, end);
    if (lt_starts(line, len, "heap_v2/")) {
        const char *s = line + 8;
        int64_t rate;
        if (lt_int(&s, end, false, &rate) && s == end) {
            h.kind = LT_JEMALLOC;
            h.sampling = LT_SAMPLING_V2;
            h.rate = rate;
        }
        return h;
    }
    /* "--- contentionz ..." (C++), "--- contention:" and "--- mutex:" (Go's runtime). */
    if (lt_starts(line, len, "--- contention") || lt_starts(line, len, "--- mutex:")) {
        h.kind = LT_CONTENTION;
        h.rate = 1;
        return h;
    }
    if (lt_starts(line, len, "--- threadz ")) {
        const char *s = line + 12;
        int64_t n;
        if (lt_int(&s, end, false, &n) && lt_starts(s, (size_t)(end - s), " ---"))
            h.kind = LT_THREADZ;
        h.rate = 1;
        return h;
    }
    const char *name;
    size_t name_len;
    int64_t tid;
    if (lt_parse_thread_header(line, len, &name, &name_len, &tid)) {
        h.kind = LT_THREADZ;
        h.rate = 1;
    }
    return h;
}

const char *lt_parse_pairs(const char **at, const char *end, lt_pairs *out)
{
    const char *s = lt_skip_blanks(*at, end);
    if (!lt_int(&s, end, true, &out->inuse_count) || !lt_expect(&s, end, ':'))
        return "expected \"objects: bytes\"";
    s = lt_skip_blanks(s, end);
    if (!lt_int(&s, end, true, &out->inuse_bytes))
        return "expected the bytes after \"objects:\"";
    if (!lt_expect(&s, end, '['))
        return "expected \"[\" before the allocated objects and bytes";
    s = lt_skip_blanks(s, end);
    if (!lt_int(&s, end, false, &out->alloc_count) || !lt_expect(&s, end, ':'))
        return "expected \"objects:\" after \"[\"";
    s = lt_skip_blanks(s, end);
    if (!lt_int(&s, end, false, &out->alloc_bytes) || !lt_expect(&s, end, ']'))
        return "expected \"bytes]\"";
    *at = s;
    return NULL;
}

const char *lt_parse_stack(const char *at, const char *end, uint64_t *addresses, size_t capacity,
                           size_t *count)
{
    const char *s = lt_skip_blanks(at, end);
    *count = 0;
    if (s >= end || *s != '@')
        return "expected \"@\" and the stack";
    s++;
    for (;;) {
        s = lt_skip_blanks(s, end);
        if (s >= end)
            return NULL;
        if (end - s < 3 || s[0] != '0' || s[1] != 'x' || pk_hex_digit(s[2]) < 0)
            return "expected a hexadecimal address (0x...)";
        s += 2;
        uint64_t v = 0;
        int digits = 0;
        for (int d; s < end && (d = pk_hex_digit(*s)) >= 0; s++) {
            if (++digits > 16)
                return "an address longer than 64 bits";
            v = v << 4 | (uint64_t)d;
        }
        if (s < end && !lt_blank(*s))
            return "expected a hexadecimal address (0x...)";
        if (*count >= capacity)
            return "more addresses than a stack holds";
        addresses[(*count)++] = v;
    }
}

void lt_unsample(int64_t *count, int64_t *bytes, int64_t rate)
{
    if (*count == 0 || *bytes == 0) {
        *count = 0;
        *bytes = 0;
        return;
    }
    if (rate <= 1)
        return;
    double average = (double)*bytes / (double)*count;
    double scale = 1 / (1 - exp(-average / (double)rate));
    double c = (double)*count * scale, b = (double)*bytes * scale;
    /* Go's conversion of a float beyond the int64 range is undefined; keep within it. */
    *count = c >= 9.2e18 ? INT64_MAX : c <= -9.2e18 ? INT64_MIN : (int64_t)c;
    *bytes = b >= 9.2e18 ? INT64_MAX : b <= -9.2e18 ? INT64_MIN : (int64_t)b;
}

const char *lt_parse_contention(const char **at, const char *end, int64_t *delay,
                                int64_t *count)
{
    const char *s = lt_skip_blanks(*at, end);
    if (!lt_int(&s, end, false, delay))
        return "expected \"delay count @ stack\"";
    s = lt_skip_blanks(s, end);
    if (!lt_int(&s, end, false, count))
        return "expected the count after the delay";
    *at = s;
    return NULL;
}

bool lt_parse_thread_header(const char *line, size_t len, const char **name, size_t *name_len,
                            int64_t *tid)
{
    static const char head[] = "--- Thread ", tail[] = ") stack: ---";
    lt_trim(&line, &len);
    size_t hn = sizeof head - 1, tn = sizeof tail - 1;
    if (len < hn + tn || memcmp(line, head, hn) != 0 || memcmp(line + len - tn, tail, tn) != 0)
        return false;
    const char *s = line + hn, *end = line + len - tn;
    const char *hex = s;
    while (s < end && pk_hex_digit(*s) >= 0)
        s++;
    if (s == hex || !lt_starts(s, (size_t)(end - s), " (name: "))
        return false;
    s += 8;
    /* NAME/TID: the name may hold slashes, the tid is after the last one. */
    const char *slash = NULL;
    for (const char *q = s; q < end; q++)
        if (*q == '/')
            slash = q;
    if (!slash)
        return false;
    const char *digits = slash + 1;
    int64_t value;
    if (!lt_int(&digits, end, false, &value) || digits != end)
        return false;
    *name = s;
    *name_len = (size_t)(slash - s);
    *tid = value;
    return true;
}

bool lt_is_maps_trigger(const char *line, size_t len)
{
    static const char *const triggers[] = {"MAPPED_LIBRARIES:", "--- Memory map: ---"};
    for (size_t t = 0; t < 2; t++) {
        size_t n = strlen(triggers[t]);
        for (size_t i = 0; i + n <= len; i++)
            if (line[i] == triggers[t][0] && memcmp(line + i, triggers[t], n) == 0)
                return true;
    }
    return false;
}
