/* The compressing output filter: a gzip member written in pieces as the output flushes. */
#include <stdlib.h>
#include <zlib.h>

#include "core/gzip.h"

#define DEFLATE_CHUNK (256u << 10)

struct pk_deflate {
    z_stream z;
    uint8_t out[DEFLATE_CHUNK];
};

pk_deflate *pk_deflate_new(int level)
{
    pk_deflate *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    if (level < 1 || level > 9)
        level = 1;
    /* 16 + MAX_WBITS: a gzip wrapper. */
    if (deflateInit2(&d->z, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(d);
        return NULL;
    }
    return d;
}

bool pk_deflate_run(pk_deflate *d, const void *data, size_t size, bool finish,
                    pk_deflate_emit_fn emit, void *context)
{
    const uint8_t *in = data;
    do {
        /* zlib counts in 32 bits: feed huge blocks in slices. */
        size_t slice = size > UINT32_MAX ? UINT32_MAX : size;
        bool last = slice == size;
        d->z.next_in = (Bytef *)in;
        d->z.avail_in = (uInt)slice;
        int flush = finish && last ? Z_FINISH : Z_NO_FLUSH;
        int rc;
        do {
            d->z.next_out = d->out;
            d->z.avail_out = DEFLATE_CHUNK;
            rc = deflate(&d->z, flush);
            if (rc == Z_STREAM_ERROR)
                return false;
            if (d->z.avail_out < DEFLATE_CHUNK)
                emit(context, d->out, DEFLATE_CHUNK - d->z.avail_out);
        } while (d->z.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
        in += slice;
        size -= slice;
    } while (size > 0);
    return true;
}

void pk_deflate_free(pk_deflate *d)
{
    if (!d)
        return;
    deflateEnd(&d->z);
    free(d);
}
