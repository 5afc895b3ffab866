/* SPDX-License-Identifier: MIT */
/* ART method traces (Android's Debug.startMethodTracing, Android Studio's "Java/Kotlin method
 * trace"), the non-streaming form: a text header (*version with its key=value lines, *threads,
 * *methods, *end) and a binary part (the SLOW header, then one fixed-size record per method
 * enter, exit or unwind). Each thread's records become a timed call tree through
 * core/call_spans.h, in file order. Documented in docs/formats/art.md.
 *
 *   header.c   the text header: version, clock, thread names, methods as frames
 *   records.c  the binary header and the records, per thread into call spans
 *   format.c   probe and registration
 */
#ifndef PK_FORMATS_ART_ART_H
#define PK_FORMATS_ART_ART_H

#include <stdbool.h>
#include <stdint.h>

#include "core/hashmap.h"
#include "core/input.h"
#include "profkit/error.h"
#include "profkit/format.h"
#include "profkit/profile.h"

/* The binary part's magic, "SLOW" read as a little-endian u32. */
#define ART_MAGIC 0x574f4c53u

/* The clocks a record carries, from the header's clock= line and the record size. */
enum art_clock { ART_CLOCK_WALL = 1, ART_CLOCK_CPU = 2, ART_CLOCK_DUAL = 3 };

typedef struct art_header {
    pk_profile *p;
    int version;          /* of the text header, 0 until read */
    int clock;            /* enum art_clock; 0 when the header does not say */
    pk_u64map thread_names; /* thread id -> string */
    pk_u64map methods;      /* method id (action bits clear) -> frame */
    uint64_t method_count;
} art_header;

void art_header_init(art_header *h, pk_profile *p);
void art_header_free(art_header *h);
/* Reads the text header up to and including its *end line. */
pk_status art_header_read(art_header *h, pk_input *in, pk_error *err);
/* The frame of a method id, a placeholder named by the id for one *methods does not list;
 * PK_NONE when memory runs out. */
uint32_t art_method_frame(art_header *h, uint32_t id);

/* The binary part: header and records, into the profile. */
pk_status art_records_read(art_header *h, pk_input *in, pk_error *err);

pk_status art_read(pk_input *in, pk_profile *p, const pk_read_options *options, pk_error *err);

#endif
