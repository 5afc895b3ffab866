/* SPDX-License-Identifier: MIT */
/* The meta object: versions, times, product, categories, and the profile information that the
 * front end shows under "Profile Information" (meta.extra). */
#include <stdio.h>

#include "core/units.h"
#include "formats/firefox/writer.h"
#include "profkit/symbolize.h"

/* One written sample's span: a placed sample's, else the timed samples' period. */
static double interval_ms(const fx_writer *w)
{
    if (w->ordered_row_count == 0 && w->timed_thread_count > 0)
        return (w->timed_interval_ns > 0 ? w->timed_interval_ns : 1e6) / 1e6;
    return (double)w->quantum * w->unit_ns / 1e6;
}

static double duration_ms(const fx_writer *w)
{
    return w->timeline_ns / 1e6;
}

/* Fixed members: no stack walking, no markers or extensions. Native frames left unnamed
 * (--no-symbols, a binary not found) make the profile one to symbolicate: the app then asks
 * its symbol server (profkit view's) for their names. */
static void write_fixed_members(const pk_profile *p, pk_json *j)
{
    pk_json_member_i64(j, "stackwalk", 0);
    pk_json_member_bool(j, "debug", false);
    pk_json_member_bool(j, "symbolicated", !pk_profile_has_unresolved_frames(p));
    pk_json_member_bool(j, "usesOnlyOneStackType", true);
    pk_json_member_bool(j, "sourceCodeIsNotOnSearchfox", true);
    fx_empty_array(j, "pausedRanges");
    pk_json_key(j, "extensions");
    pk_json_object_begin(j);
    pk_json_member_i64(j, "length", 0);
    fx_empty_array(j, "baseURL");
    fx_empty_array(j, "id");
    fx_empty_array(j, "name");
    pk_json_object_end(j);
    pk_json_key(j, "sampleUnits");
    pk_json_object_begin(j);
    pk_json_member_string(j, "time", "ms");
    pk_json_member_string(j, "eventDelay", "ms");
    /* The front end knows only MICRO SIGN, not "us" or GREEK SMALL LETTER MU; escaped, the
     * file stays ASCII. */
    pk_json_key(j, "threadCPUDelta");
    pk_out_puts(pk_json_value(j), "\"\\u00b5s\"");
    pk_json_object_end(j);
    fx_empty_array(j, "markerSchema");
}

/* The categories in use, "Other" (grey, the front end's default) first. */
static void write_categories(fx_writer *w)
{
    pk_json *j = &w->json;
    pk_json_key(j, "categories");
    pk_json_array_begin(j);
    for (unsigned c = 0; c < PK_CATEGORY_COUNT; c++) {
        if (!w->category_used[c])
            continue;
        pk_json_object_begin(j);
        pk_json_member_string(j, "name", pk_category_name((pk_category)c));
        pk_json_member_string(j, "color", pk_category_colour((pk_category)c));
        pk_json_key(j, "subcategories");
        pk_json_array_begin(j);
        pk_json_string(j, "Other");
        pk_json_array_end(j);
        pk_json_object_end(j);
    }
    pk_json_array_end(j);
}

static void extra_entry(pk_json *j, const char *label, const char *value)
{
    pk_json_object_begin(j);
    pk_json_member_string(j, "label", label);
    pk_json_member_string(j, "format", "string");
    pk_json_member_string(j, "value", value);
    pk_json_object_end(j);
}

/* Shown by the front end under "Profile Information". */
static void write_extra(fx_writer *w)
{
    const pk_profile *p = w->p;
    const pk_metadata *md = pk_metadata_get(p);
    pk_json *j = &w->json;
    pk_json_key(j, "extra");
    pk_json_array_begin(j);
    pk_json_object_begin(j);
    pk_json_member_string(j, "label", "Profile Information");
    pk_json_key(j, "entries");
    pk_json_array_begin(j);
    if (w->timed_thread_count > 0 && w->ordered_row_count == 0)
        extra_entry(j, "Sample times",
                    "measured: every sample at the time the input gives it, from the earliest "
                    "one on");
    else if (w->timed_thread_count > 0)
        extra_entry(j, "Sample times",
                    "measured for the threads whose input gives times; placed for the others: "
                    "each of their stacks occupies time in proportion to its weight, in "
                    "recording order, from the earliest measured sample on");
    else if (md->times_approximate)
        extra_entry(j, "Sample times",
                    "placed: profiles sum samples per stack without times, so each stack "
                    "occupies time in proportion to its weight, in recording order, and memory "
                    "events sit between them in recording order");
    if (w->value != PK_NONE) {
        const pk_value_type *vt = pk_value_type_at(p, w->value);
        char text[256];
        snprintf(text, sizeof text, "%s (%s)", pk_str(p, vt->name), pk_str(p, vt->unit));
        extra_entry(j, "Sample weight", text);
    }
    if (md->source_format && pk_str_len(p, md->source_format))
        extra_entry(j, "Source format", pk_str(p, md->source_format));
    for (size_t i = 0; i < pk_property_count(p); i++)
        extra_entry(j, pk_property_key(p, i), pk_property_value(p, i));
    pk_json_array_end(j);
    pk_json_object_end(j);
    pk_json_array_end(j);
}

void fx_write_meta(fx_writer *w)
{
    const pk_profile *p = w->p;
    const pk_metadata *md = pk_metadata_get(p);
    pk_json *j = &w->json;

    pk_json_object_begin(j);
    pk_json_member_i64(j, "version", FX_GECKO_VERSION);
    pk_json_member_i64(j, "preprocessedProfileVersion", FX_PROCESSED_VERSION);
    pk_json_member_double(j, "interval", interval_ms(w));
    pk_json_member_double(j, "startTime",
                          md->start_time == PK_TIME_UNKNOWN ? 0.0 : (double)md->start_time / 1e6);
    double duration = duration_ms(w);
    if (duration > 0) {
        pk_json_member_i64(j, "profilingStartTime", 0);
        pk_json_member_double(j, "profilingEndTime", duration);
    }
    pk_json_member_i64(j, "processType", 0);
    pk_json_member_string(j, "product", fx_product(p));
    if (md->source_format && pk_str_len(p, md->source_format))
        pk_json_member_string(j, "importedFrom", pk_str(p, md->source_format));
    write_fixed_members(p, j);
    write_categories(w);
    write_extra(w);
    pk_json_object_end(j);
}
