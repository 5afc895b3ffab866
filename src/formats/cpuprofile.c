/* SPDX-License-Identifier: MIT */
/* Chrome's and Node's JavaScript CPU profile (.cpuprofile: `node --cpu-prof`, DevTools'
 * JavaScript profiler, the inspector's Profiler.stop), the current form (`nodes` with
 * `callFrame`s, `samples`, `timeDeltas`) and the legacy one (a `head` tree, `timestamps`).
 * The content is V8's (formats/v8/); this file is the document around it. Documented in
 * docs/formats/cpuprofile.md.
 */
#include <inttypes.h>
#include <string.h>

#include "core/arith.h"
#include "core/damage.h"
#include "core/input.h"
#include "core/json_input.h"
#include "core/json_probe.h"
#include "formats/formats.h"
#include "formats/v8/v8.h"

static const char *const cpuprofile_extensions[] = {".cpuprofile", NULL};
static const char *const cpuprofile_aliases[] = {"chrome-cpuprofile", "v8-cpuprofile", NULL};

/* The keys that make a document a CPU profile, from the top. A `head` whose nodes have a
 * `selfSize` is a heap profile's (formats/heapprofile.c), not the legacy form's. */
static int cpuprofile_probe(const uint8_t *data, size_t size)
{
    pk_json_probe_key keys[] = {
        {"nodes/#/callFrame", NULL, false}, /* the current form's first node */
        {"nodes", NULL, false},
        {"samples", NULL, false},
        {"timeDeltas", NULL, false},
        {"startTime", NULL, false},
        {"head/functionName", NULL, false}, /* the legacy form */
        {"head/callFrame", NULL, false},
        {"head/children", NULL, false},
        {"head/selfSize", NULL, false},
        {"head/children/#/selfSize", NULL, false},
    };
    if (pk_json_first_byte(data, size) != '{' ||
        pk_json_probe(data, size, keys, sizeof keys / sizeof keys[0]) <= 0 || keys[8].found ||
        keys[9].found)
        return PK_PROBE_NO;
    if (keys[0].found)
        return 90;
    if (keys[5].found || keys[6].found || keys[7].found)
        return 80;
    if (keys[1].found && (keys[2].found || keys[3].found || keys[4].found))
        return PK_PROBE_LIKELY;
    return PK_PROBE_NO;
}

typedef struct cpuprofile_reader {
    v8_walk walk;
    v8_builder builder;
} cpuprofile_reader;

static bool on_scalar(void *ctx, pk_json_parser *jp, const pk_json_scalar *v)
{
    cpuprofile_reader *r = ctx;
    return v8_walk_scalar(&r->walk, jp, 0, v);
}

static bool on_begin(void *ctx, pk_json_parser *jp, bool is_array)
{
    cpuprofile_reader *r = ctx;
    return v8_walk_begin(&r->walk, jp, 0, is_array);
}

static bool on_end(void *ctx, pk_json_parser *jp, bool is_array)
{
    cpuprofile_reader *r = ctx;
    return v8_walk_end(&r->walk, jp, 0, is_array);
}

static pk_status cpuprofile_read(pk_input *in, pk_profile *p, const pk_read_options *options,
                                 pk_error *err)
{
    (void)options;
    cpuprofile_reader r;
    v8_builder_init(&r.builder, p);
    v8_walk_init(&r.walk, p, &v8_builder_sink, &r.builder);
    pk_status status = pk_json_read(in, &(pk_json_handler){on_scalar, on_begin, on_end}, &r,
                                    "the CPU profile", "not a CPU profile", NULL, err);
    if (status == PK_OK || status == PK_ERR_INPUT) {
        if (!r.walk.saw_nodes && !r.walk.saw_head) {
            if (status == PK_OK)
                status = pk_error_set(err, PK_ERR_INPUT, 0, "not a CPU profile: no nodes");
        } else {
            /* What was read is kept: with damage, salvage decides whether it stands. */
            uint32_t cpu = pk_add_value_type(p, "cpu", "nanoseconds");
            uint32_t count = pk_add_value_type(p, "samples", "count");
            uint32_t thread = pk_add_thread(p, pk_intern_cstr(p, "main"), -1, -1);
            pk_error finish_err;
            pk_status finished =
                cpu == PK_NONE || count == PK_NONE || thread == PK_NONE
                    ? pk_error_set(&finish_err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory")
                    : v8_builder_finish(&r.builder, thread, cpu, count, pk_in_offset(in),
                                        &finish_err);
            status = pk_json_read_settle(status, err, finished, &finish_err);
            if (r.builder.samples >= 2) {
                pk_metadata *meta = pk_metadata_of(p);
                meta->period = pk_mul_saturating(
                    (r.builder.now - r.builder.first_time) / (int64_t)(r.builder.samples - 1),
                    1000);
                meta->period_type = pk_intern_cstr(p, "cpu");
                meta->period_unit = pk_intern_cstr(p, "nanoseconds");
            }
        }
    }
    v8_walk_free(&r.walk);
    v8_builder_free(&r.builder);
    return status;
}

const pk_format pk_format_cpuprofile = {
    .name = "cpuprofile",
    .aliases = cpuprofile_aliases,
    .extensions = cpuprofile_extensions,
    .description = "Chrome / Node JavaScript CPU profile (Node's CPU profiler, DevTools)",
    .flags = PK_FORMAT_TEXT,
    .probe = cpuprofile_probe,
    .read = cpuprofile_read,
};
