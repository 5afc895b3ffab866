/* SPDX-License-Identifier: MIT */
/* The Sample message, encoded by hand: the writer writes one per row of the profile, which makes
 * it the message whose encoding costs most, and libprotobuf-c's generic packing walks its
 * descriptor twice per message (size, then bytes). The bytes are those libprotobuf-c packs:
 * location IDs and values as packed varints (left out when there are none), then each label,
 * its zero fields left out as proto3 does.
 */
#ifndef PK_FORMATS_PPROF_SAMPLE_H
#define PK_FORMATS_PPROF_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

/* A label of a sample: string indexes (key, str) or a number (num) with the string index of
 * its unit (num_unit); 0 is left out. */
typedef struct pprof_label {
    int64_t key, str, num, num_unit;
} pprof_label;

typedef struct pprof_sample {
    const uint64_t *location_ids;
    size_t location_count;
    const int64_t *values;
    size_t value_count;
    const pprof_label *labels;
    size_t label_count;
} pprof_sample;

/* The most bytes pprof_encode_sample writes for s. */
size_t pprof_sample_max_size(const pprof_sample *s);
/* Writes the Sample message's bytes (without its tag and length in Profile) to out, which has
 * room for pprof_sample_max_size(s) bytes; returns how many. */
size_t pprof_encode_sample(uint8_t *out, const pprof_sample *s);

#endif
