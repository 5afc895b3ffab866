/* SPDX-License-Identifier: MIT */
/* The one table of formats. Each format lives in its own file and exports one pk_format;
 * the order here is the order `profkit formats` lists them and the probe's tie order. */
#include "formats/formats.h"

static const pk_format *const pk_format_table[] = {
    /* table:begin */
    &pk_format_bsprof,
    &pk_format_firefox,
    &pk_format_folded,
    &pk_format_pprof,
    &pk_format_speedscope,
    &pk_format_svg,
    &pk_format_br,
    &pk_format_sampler,
    &pk_format_gperftools,
    &pk_format_cpuprofile,
    &pk_format_heapprofile,
    &pk_format_chrome_trace,
    &pk_format_callgrind,
    &pk_format_perf_script,
    &pk_format_perf_data,
    &pk_format_massif,
    &pk_format_dhat,
    &pk_format_heaptrack,
    &pk_format_legacy_text,
    &pk_format_art,
    &pk_format_jfr,
    &pk_format_simpleperf,
    /* table:end */
    NULL, /* keeps the table valid C while it is being filled; not counted */
};

size_t pk_format_count(void)
{
    return sizeof pk_format_table / sizeof pk_format_table[0] - 1;
}

const pk_format *pk_format_at(size_t index)
{
    return index < pk_format_count() ? pk_format_table[index] : NULL;
}
