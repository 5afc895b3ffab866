/* SPDX-License-Identifier: MIT */
/* A spool: records kept out of the way until they are read back, so that what a program
 * holds in memory does not grow with the number of records.
 *
 * Records are appended to numbered lanes (one stream each, read back in the order written) and
 * read back chunk by chunk, as often as wanted. The first few MiB stay in memory; beyond that,
 * chunks go to an unnamed temporary file (O_TMPFILE in $TMPDIR, else /tmp), which no exit or
 * kill leaves behind. A record never straddles two chunks, so a reader can decode each chunk
 * on its own.
 */
#ifndef PK_CORE_SPOOL_H
#define PK_CORE_SPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PK_SPOOL_MAX_RECORD 1024 /* the largest record append accepts: a timed sample with
                                  * every one of 64 values at its longest fits */

typedef struct pk_spool pk_spool;

/* A new, empty spool; NULL when memory runs out. */
pk_spool *pk_spool_new(void);
void pk_spool_free(pk_spool *s);

/* Appends one record of n bytes (1..PK_SPOOL_MAX_RECORD) to lane. Lanes are created on first
 * use; keep their numbers dense (lane numbers index an array). False when memory or the
 * temporary file fails; the spool then refuses everything. */
bool pk_spool_append(pk_spool *s, uint32_t lane, const void *record, size_t n);
/* Bytes appended to lane so far. */
uint64_t pk_spool_lane_bytes(const pk_spool *s, uint32_t lane);
/* What went wrong, after a failed append or read: an errno value, or 0. */
int pk_spool_error(const pk_spool *s);

/* Reading a lane back, chunk by chunk. */
typedef struct pk_spool_reader {
    const pk_spool *spool;
    uint32_t lane;
    size_t next_chunk;     /* index into the lane's list of written chunks */
    bool tail_done;        /* the lane's unwritten tail was returned */
    unsigned char *buffer; /* for chunks read from the temporary file */
    size_t buffer_capacity;
    int error;             /* errno of a failed read, 0 */
} pk_spool_reader;

void pk_spool_reader_init(pk_spool_reader *r, const pk_spool *s, uint32_t lane);
/* The next chunk of whole records: *data and *n, valid until the next call. False at the end
 * of the lane or on a read error (r->error). */
bool pk_spool_reader_next(pk_spool_reader *r, const unsigned char **data, size_t *n);
void pk_spool_reader_free(pk_spool_reader *r);

#endif
