/* SPDX-License-Identifier: MIT */
/* One header line and one frame line of `perf script` output, parsed in place. Words are split
 * on blanks, never on columns: perf's field widths change from version to version. */
#include <string.h>

#include "core/hex.h"
#include "formats/perf_script/perf_script.h"

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static size_t skip_blanks(const char *s, size_t i, size_t n)
{
    while (i < n && is_blank(s[i]))
        i++;
    return i;
}

static size_t word_end(const char *s, size_t i, size_t n)
{
    while (i < n && !is_blank(s[i]))
        i++;
    return i;
}

/* Digits from *i up to end or a byte that is no digit; false when there is none or too many. */
static bool scan_decimal(const char *s, size_t *i, size_t end, uint64_t *out)
{
    size_t k = *i;
    uint64_t v = 0;
    for (; k < end && is_digit(s[k]); k++) {
        if (v > (UINT64_MAX - 9) / 10)
            return false;
        v = v * 10 + (uint64_t)(s[k] - '0');
    }
    if (k == *i)
        return false;
    *i = k;
    *out = v;
    return true;
}

/* Digits [i, end) as a number; false when empty, not all digits or too large. */
static bool parse_decimal(const char *s, size_t i, size_t end, uint64_t *out)
{
    return scan_decimal(s, &i, end, out) && i == end;
}

/* `TID` or `PID/TID` in [i, end). */
static bool parse_ids(const char *s, size_t i, size_t end, int64_t *pid, int64_t *tid)
{
    uint64_t a, b;
    if (!scan_decimal(s, &i, end, &a) || a > INT64_MAX)
        return false;
    if (i == end) {
        *pid = -1;
        *tid = (int64_t)a;
        return true;
    }
    if (s[i] != '/' || (++i, !scan_decimal(s, &i, end, &b)) || i != end || b > INT64_MAX)
        return false;
    *pid = (int64_t)a;
    *tid = (int64_t)b;
    return true;
}

/* `SECS.FRACTION:` in [i, end): nanoseconds, the fraction's digits past nine dropped. */
static bool parse_time(const char *s, size_t i, size_t end, uint64_t *ns)
{
    uint64_t secs;
    if (end - i < 3 || s[end - 1] != ':' || !scan_decimal(s, &i, end, &secs) || s[i] != '.' ||
        i + 2 > end - 1 || secs > UINT64_MAX / 1000000000u)
        return false;
    uint64_t fraction = 0, scale = 100000000;
    for (size_t k = i + 1; k < end - 1; k++) {
        if (!is_digit(s[k]))
            return false;
        fraction += (uint64_t)(s[k] - '0') * scale;
        scale /= 10;
    }
    *ns = secs * 1000000000u + fraction;
    return true;
}

bool perf_parse_header(const char *s, size_t n, perf_header *h)
{
    memset(h, 0, sizeof *h);
    size_t start = skip_blanks(s, 0, n);
    if (start == n)
        return false;
    /* The pid/tid is the first numeric word after the command, which may hold blanks (as
     * stackcollapse-perf.pl finds it); a line that starts with it has no command. */
    size_t ids = n, ids_end = n;
    for (size_t i = word_end(s, start, n); i < n;) {
        size_t w = skip_blanks(s, i, n);
        size_t e = word_end(s, w, n);
        if (w < e && parse_ids(s, w, e, &h->pid, &h->tid)) {
            ids = w;
            ids_end = e;
            break;
        }
        i = e;
    }
    size_t comm_end = ids;
    if (ids == n) {
        size_t e = word_end(s, start, n);
        if (!parse_ids(s, start, e, &h->pid, &h->tid))
            return false;
        comm_end = start;
        ids_end = e;
    }
    while (comm_end > start && is_blank(s[comm_end - 1]))
        comm_end--;
    h->comm = s + start;
    h->comm_len = comm_end - start;
    h->ids_end = ids_end;
    return perf_parse_header_after_ids(s, n, h);
}

bool perf_parse_header_after_ids(const char *s, size_t n, perf_header *h)
{
    h->has_time = h->has_period = false;
    h->time_ns = h->period = 0;
    h->event = NULL;
    h->event_len = 0;
    size_t i = skip_blanks(s, h->ids_end, n);
    size_t e = word_end(s, i, n);
    /* [CPU] */
    if (e - i >= 3 && s[i] == '[' && s[e - 1] == ']') {
        uint64_t cpu;
        if (!parse_decimal(s, i + 1, e - 1, &cpu))
            return false;
        i = skip_blanks(s, e, n);
        e = word_end(s, i, n);
    }
    if (parse_time(s, i, e, &h->time_ns)) {
        h->has_time = true;
        i = skip_blanks(s, e, n);
        e = word_end(s, i, n);
    }
    if (parse_decimal(s, i, e, &h->period)) {
        h->has_period = true;
        i = skip_blanks(s, e, n);
        e = word_end(s, i, n);
    }
    if (e - i >= 2 && s[e - 1] == ':') {
        h->event = s + i;
        h->event_len = e - 1 - i;
        i = skip_blanks(s, e, n);
    }
    if (!h->has_time && !h->event)
        return false;
    size_t rest_end = n;
    while (rest_end > i && is_blank(s[rest_end - 1]))
        rest_end--;
    h->rest = s + i;
    h->rest_len = rest_end - i;
    return true;
}

bool perf_parse_frame(const char *s, size_t n, perf_frame *f)
{
    memset(f, 0, sizeof *f);
    size_t i = skip_blanks(s, 0, n);
    size_t e = word_end(s, i, n);
    if (e == i || e - i > 16)
        return false;
    uint64_t address = 0;
    for (size_t k = i; k < e; k++) {
        int d = pk_hex_digit(s[k]);
        if (d < 0)
            return false;
        address = address << 4 | (uint64_t)d;
    }
    f->address = address;
    i = skip_blanks(s, e, n);
    size_t end = n;
    while (end > i && is_blank(s[end - 1]))
        end--;
    /* The DSO is inside the last " (" that a ')' closes at the end; a line of a DSO alone
     * (`-F ip,dso`) is all parentheses. */
    size_t sym_end = end;
    if (end > i && s[end - 1] == ')') {
        size_t open = end - 1;
        while (open > i && !(s[open] == '(' && is_blank(s[open - 1])))
            open--;
        if (s[open] == '(' && (open == i || is_blank(s[open - 1]))) {
            f->dso = s + open + 1;
            f->dso_len = end - 1 - (open + 1);
            sym_end = open;
            while (sym_end > i && is_blank(s[sym_end - 1]))
                sym_end--;
        }
    }
    /* `+0x` and lower-case hex at the end is the offset into the symbol (as
     * stackcollapse-perf.pl strips it). */
    size_t k = sym_end;
    while (k > i && ((s[k - 1] >= '0' && s[k - 1] <= '9') || (s[k - 1] >= 'a' && s[k - 1] <= 'f')))
        k--;
    if (k < sym_end && k - i >= 3 && memcmp(s + k - 3, "+0x", 3) == 0)
        sym_end = k - 3;
    f->symbol = s + i;
    f->symbol_len = sym_end - i;
    f->inlined = f->dso && f->dso_len == 7 && memcmp(f->dso, "inlined", 7) == 0;
    return true;
}

bool perf_parse_srcline(const char *s, size_t n, const char **file, size_t *file_len,
                        uint32_t *number)
{
    size_t i = skip_blanks(s, 0, n);
    size_t end = n;
    while (end > i && is_blank(s[end - 1]))
        end--;
    size_t colon = end;
    while (colon > i && s[colon - 1] != ':')
        colon--;
    if (i == 0 || colon <= i + 1)
        return false;
    uint64_t line;
    if (!parse_decimal(s, colon, end, &line) || line > UINT32_MAX)
        return false;
    *file = s + i;
    *file_len = colon - 1 - i;
    *number = (uint32_t)line;
    return true;
}

bool perf_event_line_frame(const perf_header *h, perf_frame *f)
{
    return h->rest_len > 0 && perf_parse_frame(h->rest, h->rest_len, f) &&
           (f->dso || f->symbol_len > 0);
}
