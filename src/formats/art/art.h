/* SPDX-License-Identifier: MIT */
/* ART method traces (Android's Debug.startMethodTracing, Android Studio's "Java/Kotlin method
 * trace"), in both forms: a text header (*version with its key=value lines, *threads,
 * *methods, *end) and a binary part (the SLOW header, then one fixed-size record per method
 * enter, exit or unwind); or the streaming form, binary throughout, with methods and threads
 * announced between the records and the text header as a summary at the end. Each thread's
 * records become a timed call tree through core/call_spans.h, in file order. Documented in
 * docs/formats/art.md.
 *
 *   header.c     the text header: version, clock, thread names, methods as frames
 *   records.c    the binary header and the records, per thread into call spans
 *   streaming.c  the streaming form's header and entries, through the two above
 *   format.c     probe and registration
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

/* Records one at a time, for both forms: start declares the values of the clock (enum
 * art_clock; NULL when memory runs out), add takes one record (tid_size + 4 + 4 or 8 bytes),
 * finish closes every thread's calls into the profile (and names threads from h's names, which
 * the streaming form may give after a thread's first records). */
typedef struct art_records art_records;
art_records *art_records_start(art_header *h, int clock, size_t tid_size, int64_t start_ns);
pk_status art_records_add(art_records *r, const uint8_t *record, pk_error *err);
pk_status art_records_finish(art_records *r, pk_error *err);
void art_records_free(art_records *r);

/* One *methods line (method_line) or *threads line, for the streaming form's in-band entries;
 * offset and line_no name it in errors. */
pk_status art_header_method_line(art_header *h, const char *line, size_t len, int64_t line_no,
                                 uint64_t offset, pk_error *err);

/* The streaming form: the SLOW header with the version's 0xF0 bits set, then records, method
 * and thread entries, and the summary (the text header) at the end (streaming.c). */
pk_status art_streaming_read(art_header *h, pk_input *in, pk_error *err);

pk_status art_read(pk_input *in, pk_profile *p, const pk_read_options *options, pk_error *err);

#endif
