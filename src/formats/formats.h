/* SPDX-License-Identifier: MIT */
/* Declarations of the formats registered in table.c. */
#ifndef PK_FORMATS_FORMATS_H
#define PK_FORMATS_FORMATS_H

#include "profkit/format.h"

/* formats:begin */
extern const pk_format pk_format_bsprof;
extern const pk_format pk_format_firefox;
extern const pk_format pk_format_folded;
extern const pk_format pk_format_pprof;
extern const pk_format pk_format_speedscope;
extern const pk_format pk_format_svg;
extern const pk_format pk_format_br;
extern const pk_format pk_format_sampler;
extern const pk_format pk_format_gperftools;
extern const pk_format pk_format_cpuprofile;
extern const pk_format pk_format_heapprofile;
extern const pk_format pk_format_chrome_trace;
extern const pk_format pk_format_callgrind;
extern const pk_format pk_format_perf_script;
extern const pk_format pk_format_perf_data;
extern const pk_format pk_format_massif;
extern const pk_format pk_format_dhat;
extern const pk_format pk_format_heaptrack;
extern const pk_format pk_format_legacy_text;
extern const pk_format pk_format_art;
extern const pk_format pk_format_jfr;
extern const pk_format pk_format_simpleperf;
/* formats:end */

#endif
