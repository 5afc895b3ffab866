/* SPDX-License-Identifier: MIT */
/* The parts of the perf.data format (pk_format_perf_data, registered in perf_data.c): the
 * reader (read.c), the dump (dump.c) and the start both share (layout.c); the decoding of the
 * bytes is in codec.h. */
#ifndef PK_FORMATS_PERF_DATA_PERF_DATA_H
#define PK_FORMATS_PERF_DATA_PERF_DATA_H

#include <stdbool.h>

#include "formats/perf_data/codec.h"
#include "profkit/format.h"

/* What comes before the records: the header, and in a file the attributes with their ids
 * (which perf writes between the header and the data section). */
typedef struct pd_file {
    pd_header header;
    pd_attr *attrs;
    size_t attr_count;
    uint64_t data_start; /* offset of the first record */
    uint64_t data_end;   /* offset where the records end; UINT64_MAX: at the input's end */
    bool data_size_missing; /* a file whose header says 0 bytes of data: perf did not finish */
} pd_file;

/* Reads the header and, for a file, everything up to its data section; leaves the input at the
 * first record. Errors are not salvageable (nothing was read yet). */
pk_status pd_open(pk_input *in, pd_file *f, pk_error *err);
void pd_file_free(pd_file *f);
/* Adds the attribute (and its ids) of a pipe's PERF_RECORD_HEADER_ATTR; damage when its layout
 * is not one this reader knows. */
pk_status pd_add_pipe_attr(pd_file *f, const pd_record *rec, pk_error *err);
/* The attribute of a record (sample or not), by its id when the file has several; NULL when the
 * id is unknown. */
const pd_attr *pd_attr_of(const pd_file *f, const pd_record *rec);
/* Reads the feature sections of a file into a new buffer: out of turn when the input is
 * seekable (pk_in_seekable, the stream not moved), else by skipping from the end of the records
 * to them. Into a new buffer (*data, *size, their first byte at offset *base); false when there are none or
 * they cannot be read (why, in *why). */
bool pd_read_features(pk_input *in, const pd_file *f, uint8_t **data, size_t *size,
                      uint64_t *base, const char **why);

pk_status pd_read(pk_input *in, pk_profile *p, const pk_read_options *options, pk_error *err);
pk_status pd_dump(pk_input *in, pk_output *out, bool raw, const pk_read_options *options,
                  pk_error *err);

#endif
