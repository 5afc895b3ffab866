/* SPDX-License-Identifier: MIT */
/* The Chrome JSON trace format's probe and registration (trace.h). */
#include "core/json_probe.h"
#include "formats/formats.h"
#include "formats/trace/trace.h"

static const char *const trace_aliases[] = {"trace-event", "chrome-tracing", "devtools-trace",
                                            NULL};
static const char *const trace_extensions[] = {".trace.json", NULL};

/* An array of events or an object with traceEvents, by the members of the first events. */
static int trace_probe(const uint8_t *data, size_t size)
{
    int first = pk_json_first_byte(data, size);
    if (first == '{') {
        /* DevTools (Chrome 114 on) writes its metadata first, which may fill the first block. */
        pk_json_probe_key keys[] = {{"traceEvents", NULL, false},
                                    {"traceEvents/#/ph", NULL, false},
                                    {"metadata/source", "DevTools", false}};
        if (pk_json_probe(data, size, keys, 3) <= 0)
            return PK_PROBE_NO;
        return keys[1].found ? 95 : keys[0].found ? 85 : PK_PROBE_LIKELY;
    }
    if (first != '[')
        return PK_PROBE_NO;
    pk_json_probe_key keys[] = {
        {"#/ph", NULL, false},  {"#/ts", NULL, false},   {"#/pid", NULL, false},
        {"#/name", NULL, false}, {"#/args", NULL, false}, {"#/cat", NULL, false},
    };
    if (pk_json_probe(data, size, keys, sizeof keys / sizeof keys[0]) <= 0)
        return PK_PROBE_NO;
    if (keys[0].found && (keys[1].found || keys[2].found || keys[3].found))
        return 80;
    /* Chrome writes args first: a large first event may hide the rest. */
    if (keys[4].found || keys[5].found)
        return PK_PROBE_WEAK;
    return PK_PROBE_NO;
}

const pk_format pk_format_chrome_trace = {
    .name = "chrome-trace",
    .aliases = trace_aliases,
    .extensions = trace_extensions,
    .description = "Chrome JSON trace: Trace Event Format, DevTools performance traces, Node "
                   "trace events",
    .flags = PK_FORMAT_TEXT,
    .probe = trace_probe,
    .read = trace_read,
};
