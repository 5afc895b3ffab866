/* SPDX-License-Identifier: MIT */
/* valgrind's callgrind format: the probe and the registration. Documented in
 * docs/formats/callgrind.md. */
#include <string.h>

#include "core/text_lines.h"
#include "formats/callgrind/callgrind.h"
#include "formats/formats.h"

static const char *const callgrind_extensions[] = {".callgrind", NULL};

static bool line_starts(const char *line, size_t len, const char *prefix)
{
    size_t n = strlen(prefix);
    return len >= n && memcmp(line, prefix, n) == 0;
}

/* Callgrind's header lines: `# callgrind format` first, or a `creator: callgrind` line; files
 * of other producers (Xdebug, cachegrind-like tools) by an `events:` line and an `fn=` line. */
int cg_probe(const uint8_t *data, size_t size)
{
    if (pk_text_has_utf8_bom(data, size)) {
        data += 3;
        size -= 3;
    }
    const char *text = (const char *)data;
    bool events = false, function = false;
    for (size_t pos = 0, number = 0; pos < size; number++) {
        const char *nl = memchr(text + pos, '\n', size - pos);
        size_t len = nl ? (size_t)(nl - (text + pos)) : size - pos;
        const char *line = text + pos;
        if (len > 0 && line[len - 1] == '\r')
            len--;
        if (number == 0 && line_starts(line, len, "# callgrind format"))
            return PK_PROBE_CERTAIN;
        if (line_starts(line, len, "creator: callgrind"))
            return PK_PROBE_CERTAIN;
        events |= line_starts(line, len, "events:");
        function |= line_starts(line, len, "fn=");
        if (events && function)
            return PK_PROBE_LIKELY;
        if (!nl)
            break;
        pos = (size_t)(nl - text) + 1;
    }
    return PK_PROBE_NO;
}

const pk_format pk_format_callgrind = {
    .name = "callgrind",
    .aliases = NULL,
    .extensions = callgrind_extensions,
    .description = "valgrind's callgrind call graph (callgrind.out.PID; KCachegrind, "
                   "callgrind_annotate)",
    .flags = PK_FORMAT_TEXT | PK_FORMAT_POSITIVE_WEIGHTS,
    .probe = cg_probe,
    .read = cg_read,
    .write = cg_write,
    .dump = NULL,
    .read_options = NULL,
    .write_options = NULL,
};
