/* SPDX-License-Identifier: MIT */
/* simpleperf's `report-sample --protobuf` output (what Android Studio and the Firefox
 * Profiler read of simpleperf): "SIMPLEPERF", a 16-bit version, then Record messages each
 * after its 32-bit little-endian size, a size of 0 ending them. libprotobuf-c unpacks each
 * record with descriptors generated from simpleperf_report.proto. Documented in
 * docs/formats/simpleperf.md.
 *
 *   read.c    the records into the model
 *   format.c  probe and registration
 */
#ifndef PK_FORMATS_SIMPLEPERF_SIMPLEPERF_H
#define PK_FORMATS_SIMPLEPERF_SIMPLEPERF_H

#include "core/input.h"
#include "profkit/error.h"
#include "profkit/format.h"
#include "profkit/profile.h"

#define SIMPLEPERF_MAGIC "SIMPLEPERF"
#define SIMPLEPERF_MAGIC_LEN 10
/* The one version simpleperf writes. */
#define SIMPLEPERF_VERSION 1
/* A record larger than this is damage rather than something to buffer (simpleperf's own dump
 * raises its 64 MiB limit for a file's symbol table, so the limit is well above that). */
#define SIMPLEPERF_MAX_RECORD_BYTES (1u << 30)

pk_status simpleperf_read(pk_input *in, pk_profile *p, const pk_read_options *options,
                          pk_error *err);

#endif
