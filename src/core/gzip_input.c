/* SPDX-License-Identifier: MIT */
/* The decompressing input filter: inflates the compressed input into the filter input's
 * buffer as the reader asks for bytes. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/gzip.h"

typedef struct gzip_source {
    pk_input *compressed;
    z_stream z;
    bool stream_end;     /* the last member ended */
    bool trailing_bytes; /* non-gzip bytes followed it */
} gzip_source;

bool pk_gzip_detect(const uint8_t *data, size_t size)
{
    return size >= 3 && data[0] == 0x1f && data[1] == 0x8b && data[2] == 8;
}

static size_t gzip_read(void *context, uint8_t *buf, size_t n, pk_error *failure)
{
    gzip_source *g = context;
    pk_input *in = g->compressed;
    if (n > UINT32_MAX)
        n = UINT32_MAX;
    g->z.next_out = buf;
    g->z.avail_out = (uInt)n;
    while (g->z.avail_out == n && !g->stream_end) {
        if (pk_in_available(in) == 0 && pk_input_fill(in, 1) == 0) {
            if (pk_in_error(in))
                pk_in_fail(in, failure);
            else
                pk_error_set(failure, PK_ERR_INPUT, (int64_t)pk_in_offset(in),
                             "the gzip data is cut short");
            failure->salvageable = failure->status == PK_ERR_INPUT;
            break;
        }
        size_t available = pk_in_available(in);
        g->z.next_in = (Bytef *)in->pos;
        g->z.avail_in = (uInt)(available > UINT32_MAX ? UINT32_MAX : available);
        int rc = inflate(&g->z, Z_NO_FLUSH);
        in->pos = g->z.next_in;
        if (rc == Z_STREAM_END) {
            /* Another member may follow; anything else ends the data. */
            const uint8_t *next;
            size_t have = pk_in_peek(in, 3, &next);
            if (pk_gzip_detect(next, have)) {
                inflateReset(&g->z);
            } else {
                g->stream_end = true;
                g->trailing_bytes = have > 0;
            }
        } else if (rc == Z_MEM_ERROR) {
            pk_error_set(failure, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory while decompressing");
            break;
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            pk_error_set(failure, PK_ERR_INPUT, (int64_t)pk_in_offset(in),
                         "damaged gzip data: %s", g->z.msg ? g->z.msg : "inflate failed");
            failure->salvageable = true;
            break;
        }
    }
    size_t produced = n - g->z.avail_out;
    /* A failure with bytes in hand: hand them over; the failure is recorded, and the next call
     * ends the stream. */
    if (produced && failure->status != PK_OK)
        g->stream_end = true;
    return produced;
}

static void gzip_close(void *context)
{
    gzip_source *g = context;
    inflateEnd(&g->z);
    free(g);
}

pk_status pk_input_init_gzip(pk_input *out, pk_input *compressed, pk_error *err)
{
    gzip_source *g = calloc(1, sizeof *g);
    if (!g)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    g->compressed = compressed;
    /* 16 + MAX_WBITS: the gzip wrapper only. */
    if (inflateInit2(&g->z, 16 + MAX_WBITS) != Z_OK) {
        free(g);
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "cannot start decompressing");
    }
    pk_input_source source = {.read = gzip_read, .close = gzip_close, .context = g};
    pk_status st = pk_input_init_source(out, source, 0, err);
    if (st == PK_OK)
        out->decompressed = true;
    return st;
}

bool pk_gzip_trailing_bytes(const pk_input *gzip_input)
{
    const gzip_source *g = gzip_input->source.context;
    return gzip_input->source.read == gzip_read && g->trailing_bytes;
}
