/* SPDX-License-Identifier: MIT */
/* The UTF-16 decoding input filter (core/utf16.h), over iconv. */
#include <errno.h>
#include <iconv.h>
#include <stdlib.h>
#include <string.h>

#include "core/utf16.h"

typedef struct utf16_source {
    pk_input *encoded;
    iconv_t cd;
    bool done;
} utf16_source;

/* U+FFFD REPLACEMENT CHARACTER in UTF-8. */
static const char replacement[] = "\xef\xbf\xbd";

pk_utf16_order pk_utf16_detect(const uint8_t *data, size_t size)
{
    if (size >= 2 && data[0] == 0xff && data[1] == 0xfe)
        return PK_UTF16_LE;
    if (size >= 2 && data[0] == 0xfe && data[1] == 0xff)
        return PK_UTF16_BE;
    return PK_UTF16_NONE;
}

static size_t utf16_read(void *context, uint8_t *buf, size_t n, pk_error *failure)
{
    utf16_source *u = context;
    pk_input *in = u->encoded;
    char *out = (char *)buf;
    size_t out_left = n;
    /* With 4 bytes of room every step converts a character: UTF-8 needs at most 4. */
    while (!u->done && out_left >= 4) {
        /* At least a surrogate pair's 4 bytes, so that a cut pair is told from a bad one. */
        if (pk_in_available(in) < 4)
            pk_input_fill(in, 4);
        size_t have = pk_in_available(in);
        if (have == 0) {
            if (pk_in_error(in))
                pk_in_fail(in, failure);
            u->done = true;
            break;
        }
        char *src = (char *)(uintptr_t)in->pos;
        size_t src_left = have;
        size_t rc = iconv(u->cd, &src, &src_left, &out, &out_left);
        in->pos = (const uint8_t *)src;
        if (rc != (size_t)-1)
            continue;
        if (errno == E2BIG)
            break;
        if (errno == EINVAL && !in->at_eof)
            continue; /* a unit or pair cut by the buffer: the fill above brings the rest */
        /* Not UTF-16 (EILSEQ), or cut at the very end (EINVAL): one unit becomes U+FFFD. */
        if (out_left < sizeof replacement - 1)
            break;
        memcpy(out, replacement, sizeof replacement - 1);
        out += sizeof replacement - 1;
        out_left -= sizeof replacement - 1;
        in->pos += src_left >= 2 ? 2 : src_left;
    }
    return n - out_left;
}

static void utf16_close(void *context)
{
    utf16_source *u = context;
    iconv_close(u->cd);
    free(u);
}

pk_status pk_input_init_utf16(pk_input *out, pk_input *encoded, pk_utf16_order order,
                              pk_error *err)
{
    utf16_source *u = calloc(1, sizeof *u);
    if (!u)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    u->encoded = encoded;
    /* The byte order is named, so iconv takes the mark as text: it is skipped here. */
    u->cd = iconv_open("UTF-8", order == PK_UTF16_BE ? "UTF-16BE" : "UTF-16LE");
    if (u->cd == (iconv_t)-1) {
        free(u);
        return pk_error_set(err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                            "this system's iconv cannot decode UTF-16");
    }
    pk_in_skip(encoded, 2);
    pk_input_source source = {.read = utf16_read, .close = utf16_close, .context = u};
    pk_status st = pk_input_init_source(out, source, 0, err);
    if (st == PK_OK)
        out->decompressed = true;
    return st;
}
