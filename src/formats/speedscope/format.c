/* SPDX-License-Identifier: MIT */
/* speedscope's JSON file format, read and written (speedscope.h). */
#include "core/json_probe.h"
#include "formats/formats.h"
#include "formats/speedscope/speedscope.h"

static const char *const speedscope_extensions[] = {".speedscope.json", NULL};

/* speedscope recognises its files by the exact `$schema` (speedscope's own exporter writes
 * `exporter`, `name` and `activeProfileIndex` before it); files of the first versions have no
 * `$schema`, but `version` with `shared.frames` or `profiles` of speedscope's shape. */
static int speedscope_probe(const uint8_t *data, size_t size)
{
    pk_json_probe_key keys[] = {
        {"$schema", SPEEDSCOPE_SCHEMA, false},
        {"shared/frames", NULL, false},
        {"profiles/#/type", "evented", false},
        {"profiles/#/type", "sampled", false},
        {"version", NULL, false},
        {"profiles/#/unit", NULL, false},
    };
    if (pk_json_first_byte(data, size) != '{' ||
        pk_json_probe(data, size, keys, sizeof keys / sizeof keys[0]) <= 0)
        return PK_PROBE_NO;
    if (keys[0].found)
        return PK_PROBE_CERTAIN;
    bool typed = keys[2].found || keys[3].found;
    if (keys[1].found && (typed || keys[4].found || keys[5].found))
        return 80;
    if (typed && keys[5].found)
        return PK_PROBE_LIKELY;
    return PK_PROBE_NO;
}

const pk_format pk_format_speedscope = {
    .name = "speedscope",
    .aliases = NULL,
    .extensions = speedscope_extensions,
    .description = "speedscope JSON (sampled and evented profiles); written one sampled profile "
                   "per thread",
    .flags = PK_FORMAT_POSITIVE_WEIGHTS | PK_FORMAT_SHOWS_TIME | PK_FORMAT_TEXT,
    .probe = speedscope_probe,
    .read = speedscope_read,
    .write = speedscope_write,
    .dump = NULL,
    .read_options = NULL,
    .write_options = NULL,
};
