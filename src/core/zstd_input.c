/* SPDX-License-Identifier: MIT */
/* The zstd input filter (zstd.h): decompresses the compressed input into the filter input's
 * buffer as the reader asks for bytes, one streaming context for all frames. */
#include <stdlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "core/zstd.h"

typedef struct zstd_source {
    pk_input *compressed;
    ZSTD_DStream *z;
    bool in_frame; /* a frame was started and has not ended: the input may not end here */
    bool ended;    /* nothing more will be produced */
} zstd_source;

bool pk_zstd_detect(const uint8_t *data, size_t size)
{
    return size >= 4 && data[0] == 0x28 && data[1] == 0xb5 && data[2] == 0x2f && data[3] == 0xfd;
}

static size_t zstd_read(void *context, uint8_t *buf, size_t n, pk_error *failure)
{
    zstd_source *s = context;
    pk_input *in = s->compressed;
    ZSTD_outBuffer out = {buf, n, 0};
    while (out.pos == 0 && !s->ended) {
        if (pk_in_available(in) == 0 && pk_input_fill(in, 1) == 0) {
            s->ended = true;
            if (pk_in_error(in)) {
                pk_in_fail(in, failure);
                failure->salvageable = failure->status == PK_ERR_INPUT;
            } else if (s->in_frame) {
                pk_error_set(failure, PK_ERR_INPUT, (int64_t)pk_in_offset(in),
                             "the zstd data is cut short");
                failure->salvageable = true;
            }
            break;
        }
        ZSTD_inBuffer zin = {in->pos, pk_in_available(in), 0};
        size_t rc = ZSTD_decompressStream(s->z, &out, &zin);
        uint64_t at = pk_in_offset(in);
        in->pos += zin.pos;
        if (ZSTD_isError(rc)) {
            s->ended = true;
            if (ZSTD_getErrorCode(rc) == ZSTD_error_memory_allocation) {
                pk_error_set(failure, PK_ERR_NOMEM, PK_NO_OFFSET,
                             "out of memory while decompressing");
            } else {
                pk_error_set(failure, PK_ERR_INPUT, (int64_t)at, "damaged zstd data: %s",
                             ZSTD_getErrorName(rc));
                failure->salvageable = true;
            }
            break;
        }
        /* 0: a frame ended and was flushed whole; the next bytes, if any, start another */
        s->in_frame = rc != 0;
    }
    size_t produced = out.pos;
    /* A failure with bytes in hand: hand them over; the failure is recorded, and the next call
     * ends the stream. */
    if (produced && failure->status != PK_OK)
        s->ended = true;
    return produced;
}

static void zstd_close(void *context)
{
    zstd_source *s = context;
    ZSTD_freeDStream(s->z);
    free(s);
}

pk_status pk_input_init_zstd(pk_input *out, pk_input *compressed, pk_error *err)
{
    zstd_source *s = calloc(1, sizeof *s);
    if (!s || !(s->z = ZSTD_createDStream())) {
        free(s);
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    }
    /* A frame's window is what the decompressor must hold; zstd's default limit (128 MiB by
     * ZSTD_WINDOWLOG_LIMIT_DEFAULT) keeps a header from asking for more. */
    ZSTD_initDStream(s->z);
    s->compressed = compressed;
    pk_input_source source = {.read = zstd_read, .close = zstd_close, .context = s};
    pk_status st = pk_input_init_source(out, source, 0, err);
    if (st == PK_OK)
        out->decompressed = true;
    return st;
}
