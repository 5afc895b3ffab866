/* SPDX-License-Identifier: MIT */
/* Firefox Profiler "processed profile" JSON, version 55: the layout the front end keeps in
 * memory, with every table stored per thread as a struct of arrays and a string array per
 * thread. Version 55 is the newest one with per-thread tables; every front end since
 * 2025-02-28 upgrades it to its own version. writer.h lists the writer's parts; read.h the
 * reader's, which reads every processed version and the Gecko format too.
 *
 * What the model gives and how it maps (docs/formats/firefox.md in more detail):
 *   - one thread per model thread; each gets its own stack, frame, function, resource and
 *     native-symbol tables holding only what its samples and memory events reach. Model stacks
 *     are numbered parents first, so keeping model order keeps every prefix before its stack.
 *   - sample rows (one per thread and stack) become weighted samples over a span of time in
 *     proportion to their weight (timeline.c); rows whose chosen value is zero are left out.
 *     The weight type follows the value's unit: times become "tracing-ms" in milliseconds,
 *     sizes "bytes" in bytes, anything else counts as "samples".
 *   - memory events become nativeAllocations (+size for an allocation, -size for a free of a
 *     known allocation), with the addresses that the retained-memory view needs. A free goes
 *     to the table of the thread that made the allocation, so that view pairs them. Each process
 *     with such events gets one memory counter, its live bytes over time: the front end labels
 *     every memory track "Memory" and places it by process, so one per thread of a process
 *     could not be told apart.
 *   - the model has no per-sample times: meta.extra says the times are placed.
 *   - categories name the kind of code (analysis/categories.h). Frames with an address inside
 *     a resource that has a path are attributed to that library (libs, resourceTable,
 *     nativeSymbols).
 */
#include "core/json_probe.h"
#include "formats/firefox/read.h"
#include "formats/firefox/writer.h"
#include "formats/formats.h"

static pk_status fx_write(const pk_profile *p, pk_output *out, const pk_write_options *options,
                          pk_error *err)
{
    fx_writer w;
    pk_status status = fx_writer_init(&w, p, out, options, err);
    if (status != PK_OK) {
        fx_writer_free(&w);
        return status;
    }
    pk_json *j = &w.json;
    pk_json_object_begin(j);
    pk_json_key(j, "meta");
    fx_write_meta(&w);
    pk_json_line_break(j);
    pk_json_key(j, "libs");
    fx_write_libs(&w);
    pk_json_line_break(j);
    fx_empty_array(j, "pages");
    fx_empty_array(j, "profilerOverhead");
    status = fx_write_counters(&w);
    if (status != PK_OK) {
        fx_writer_free(&w);
        return pk_error_set(err, status, PK_NO_OFFSET, "cannot read back a counter's samples");
    }
    pk_json_line_break(j);
    pk_json_key(j, "threads");
    pk_json_array_begin(j);
    size_t threads = pk_thread_count(p);
    for (uint32_t t = 0; t < threads && !pk_out_failed(out); t++) {
        pk_status collected = fx_collect_thread(&w, t);
        if (collected != PK_OK) {
            status = pk_error_set(err, collected, PK_NO_OFFSET,
                                  collected == PK_ERR_NOMEM ? "out of memory"
                                                            : "cannot read back thread %u's samples",
                                  (unsigned)t);
            break;
        }
        fx_write_thread(&w, t);
    }
    if (threads == 0)
        fx_write_empty_thread(&w);
    pk_json_array_end(j);
    pk_json_object_end(j);
    pk_out_putc(out, '\n');
    fx_writer_free(&w);
    return status;
}

/* Both formats by content (the extension, .json, says nothing): a processed profile by
 * meta.preprocessedProfileVersion, `shared` tables or a thread's stringArray; a Gecko profile by
 * meta.version with its threads' schema tables and string table; either by the front end's
 * categories in `meta` (a large `meta` may hide the rest past the probe's bytes); the old
 * DevTools export by its systemHost, or by the members it starts with (`label`, `duration`,
 * `markers`: its `profile` may lie beyond the probe's bytes, behind thousands of markers). */
static int fx_probe(const uint8_t *data, size_t size)
{
    pk_json_probe_key keys[] = {
        {"meta/preprocessedProfileVersion", NULL, false},
        {"shared/stringArray", NULL, false},
        {"shared/stackTable", NULL, false},
        {"threads/#/stringArray", NULL, false},
        {"meta/version", NULL, false},
        {"threads/#/samples/schema", NULL, false},
        {"threads/#/stringTable", NULL, false},
        {"meta/categories/#/subcategories", NULL, false},
        {"systemHost/name", "Firefox", false},
        {"profile/meta/version", NULL, false},
        {"label", NULL, false},
        {"duration", NULL, false},
        {"markers", NULL, false},
    };
    if (pk_json_first_byte(data, size) != '{' ||
        pk_json_probe(data, size, keys, sizeof keys / sizeof keys[0]) <= 0)
        return PK_PROBE_NO;
    if (keys[0].found)
        return 95;
    if (keys[4].found && (keys[5].found || keys[6].found))
        return 90;
    if (keys[1].found || keys[2].found || keys[3].found)
        return 80;
    if (keys[8].found && keys[9].found)
        return 80;
    if (keys[10].found && keys[11].found && keys[12].found)
        return 75;
    if (keys[7].found)
        return 70;
    return PK_PROBE_NO;
}

static const pk_option_spec fx_write_options[] = {
    {"max-samples", "N",
     "write threads without times as about N samples (default 100000; at least one per row), "
     "each holding more weight"},
    {NULL, NULL, NULL},
};

static const char *const fx_aliases[] = {"fxprof", "firefox-profiler", NULL};
static const char *const fx_extensions[] = {".json", NULL};

const pk_format pk_format_firefox = {
    .name = "firefox",
    .aliases = fx_aliases,
    .extensions = fx_extensions,
    .description = "Firefox Profiler: processed profiles (every version) and Gecko profiles read; "
                   "written as a processed profile, version 55",
    .probe = fx_probe,
    .read = fx_read,
    .write = fx_write,
    .flags = PK_FORMAT_LISTS_MEMORY_EVENTS | PK_FORMAT_SHOWS_TIME | PK_FORMAT_TEXT,
    .dump = NULL,
    .read_options = NULL,
    .write_options = fx_write_options,
};
