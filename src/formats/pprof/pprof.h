/* SPDX-License-Identifier: MIT */
/* pprof's profile.proto (package perftools.profiles): what the parts of the format share. The
 * format's entry in the registry is in pprof.c; read.c and build.c read, probe.c probes,
 * write.c writes and dump.c prints the fields of a file. wire.h is the protobuf wire format
 * below them, and libprotobuf-c, with descriptors generated from pprof.proto, packs and
 * unpacks every message below Profile, but for the samples the writer encodes itself (sample.h).
 */
#ifndef PK_FORMATS_PPROF_PPROF_H
#define PK_FORMATS_PPROF_PPROF_H

#include <stdbool.h>
#include <stdint.h>

#include "profkit/format.h"

/* Field numbers of Profile. */
enum {
    PROFILE_SAMPLE_TYPE = 1,
    PROFILE_SAMPLE = 2,
    PROFILE_MAPPING = 3,
    PROFILE_LOCATION = 4,
    PROFILE_FUNCTION = 5,
    PROFILE_STRING_TABLE = 6,
    PROFILE_DROP_FRAMES = 7,
    PROFILE_KEEP_FRAMES = 8,
    PROFILE_TIME_NANOS = 9,
    PROFILE_DURATION_NANOS = 10,
    PROFILE_PERIOD_TYPE = 11,
    PROFILE_PERIOD = 12,
    PROFILE_COMMENT = 13,
    PROFILE_DEFAULT_SAMPLE_TYPE = 14,
    PROFILE_DOC_URL = 15,
    PROFILE_FIELD_MAX = 15
};

/* Properties that carry Profile fields the model has no place for. */
#define PROPERTY_DROP_FRAMES "pprof.drop_frames"
#define PROPERTY_KEEP_FRAMES "pprof.keep_frames"
#define PROPERTY_DOC_URL "pprof.doc_url"
#define PROPERTY_COMMENT "comment"
#define PROPERTY_DURATION "duration_nanos"
/* The comment that carries the program's name, which pprof has no field for. */
#define COMMENT_PRODUCT "product"

/* Sample label keys that name a thread. */
#define LABEL_THREAD "thread"
#define LABEL_THREAD_NAME "thread_name"
#define LABEL_PID "pid"
#define LABEL_TID "tid"

/* A single sub-message larger than this is treated as damage rather than buffered. */
#define PPROF_MAX_MESSAGE_BYTES (1u << 30)

/* The name of a Profile field ("sample_type"), NULL for a number Profile does not define. */
const char *pprof_field_name(uint32_t field);
/* The wire type a Profile field is written with. */
unsigned pprof_field_wire_type(uint32_t field);
/* Whether a Profile field may come with this wire type (comment may also be packed). */
bool pprof_field_wire_fits(uint32_t field, unsigned wire);

int pprof_probe(const uint8_t *data, size_t size);
pk_status pprof_read(pk_input *in, pk_profile *p, const pk_read_options *options,
                     pk_error *err);
pk_status pprof_write(const pk_profile *p, pk_output *out, const pk_write_options *options,
                      pk_error *err);
pk_status pprof_dump(pk_input *in, pk_output *out, bool raw, const pk_read_options *options,
                     pk_error *err);

#endif
