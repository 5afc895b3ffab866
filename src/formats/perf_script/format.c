/* SPDX-License-Identifier: MIT */
/* `perf script` text in the registry: recognised by its `--header` block or by its first
 * sample (a header line, then frame lines or, without call graphs, more header lines). */
#include <string.h>

#include "core/text_lines.h"
#include "formats/formats.h"
#include "formats/perf_script/perf_script.h"

/* The next line of [data, data + size) from *pos; false when no complete line is left (the
 * last one counts when the whole input is shown). */
static bool next_line(const char *data, size_t size, bool whole, size_t *pos, const char **line,
                      size_t *len)
{
    if (*pos >= size)
        return false;
    size_t n = 0;
    while (*pos + n < size && data[*pos + n] != '\n' && data[*pos + n] != '\r')
        n++;
    if (*pos + n == size && !whole)
        return false;
    *line = data + *pos;
    *len = n;
    *pos += n + 1;
    if (*pos < size && data[*pos - 1] == '\r' && data[*pos] == '\n')
        (*pos)++;
    return true;
}

static bool blank(const char *line, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (line[i] != ' ' && line[i] != '\t')
            return false;
    return true;
}

int pk_perf_script_probe(const uint8_t *bytes, size_t size)
{
    bool whole = size < PK_PROBE_BYTES;
    if (pk_text_has_utf8_bom(bytes, size)) {
        bytes += 3;
        size -= 3;
    }
    const char *data = (const char *)bytes;
    static const char banner[] = "# ========";
    if (size > sizeof banner && memcmp(data, banner, sizeof banner - 1) == 0) {
        size_t pos = 0;
        const char *line;
        size_t len;
        if (next_line(data, size, whole, &pos, &line, &len) &&
            next_line(data, size, whole, &pos, &line, &len) && len >= 13 &&
            memcmp(line, "# captured on", 13) == 0)
            return PK_PROBE_CERTAIN;
    }
    if (memchr(data, '\0', size))
        return PK_PROBE_NO;
    size_t pos = 0;
    const char *line;
    size_t len;
    /* The first sample header, after comments and empty lines. */
    perf_header h;
    for (;;) {
        if (!next_line(data, size, whole, &pos, &line, &len))
            return PK_PROBE_NO;
        if (len > 0 && line[0] == '#')
            continue;
        if (blank(line, len))
            continue;
        if (!perf_parse_header(line, len, &h) || !h.event)
            return PK_PROBE_NO;
        break;
    }
    perf_frame f;
    bool callchain_less = perf_event_line_frame(&h, &f);
    if (!next_line(data, size, whole, &pos, &line, &len))
        return h.has_time ? PK_PROBE_WEAK + 20 : PK_PROBE_WEAK;
    if (callchain_less) {
        perf_header next;
        return perf_parse_header(line, len, &next) && next.event ? PK_PROBE_LIKELY + 20
                                                                 : PK_PROBE_NO;
    }
    if (blank(line, len)) /* a sample without frames */
        return h.has_time ? PK_PROBE_LIKELY : PK_PROBE_WEAK + 20;
    if ((line[0] == ' ' || line[0] == '\t') && perf_parse_frame(line, len, &f) && f.dso)
        return PK_PROBE_LIKELY + 20;
    /* A frame line flush left (some perf versions, Java agents): with a DSO, and no header. */
    perf_header next;
    if (perf_parse_frame(line, len, &f) && f.dso && !perf_parse_header(line, len, &next))
        return PK_PROBE_LIKELY + 10;
    return PK_PROBE_NO;
}

static const char *const perf_script_aliases[] = {"perf", "perf-script-text", NULL};
static const char *const perf_script_extensions[] = {".perf", ".perf-script", NULL};

/* stackcollapse-perf.pl's options, as the model takes them (docs/formats/perf-script.md). */
static const pk_option_spec perf_script_read_options[] = {
    {"perf-pid", NULL, "root frame COMM-PID instead of COMM (stackcollapse-perf.pl --pid)"},
    {"perf-tid", NULL,
     "root frame COMM-PID/TID instead of COMM (stackcollapse-perf.pl --tid)"},
    {"perf-no-root", NULL, "no root frame for the command name"},
    {"perf-kernel", NULL,
     "'_[k]' after kernel frames' names (stackcollapse-perf.pl --kernel)"},
    {"perf-jit", NULL,
     "'_[j]' after names of JIT frames from /tmp/perf-PID.map (stackcollapse-perf.pl --jit)"},
    {"perf-all", NULL, "--perf-kernel and --perf-jit (stackcollapse-perf.pl --all)"},
    {NULL, NULL, NULL},
};

const pk_format pk_format_perf_script = {
    .name = "perf-script",
    .aliases = perf_script_aliases,
    .extensions = perf_script_extensions,
    .description = "Linux perf script text output ('perf record -g' then 'perf script')",
    .flags = PK_FORMAT_TEXT,
    .probe = pk_perf_script_probe,
    .read = pk_perf_script_read,
    .write = NULL,
    .dump = NULL,
    .read_options = perf_script_read_options,
    .write_options = NULL,
};
