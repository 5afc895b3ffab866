/* SPDX-License-Identifier: MIT */
#include "core/input.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void pk_input_init_memory(pk_input *in, const void *data, size_t size)
{
    static const uint8_t no_bytes[1];
    memset(in, 0, sizeof *in);
    /* An empty block may come as NULL, and NULL + 0 is undefined behaviour. */
    in->start = in->pos = size ? data : no_bytes;
    in->end = in->start + size;
    in->at_eof = true;
    in->size_hint = size;
}

pk_status pk_input_init_source(pk_input *in, pk_input_source source, uint64_t size_hint,
                               pk_error *err)
{
    memset(in, 0, sizeof *in);
    /* Twice the chunk: one chunk of lookahead can always be kept while a new one is read. */
    in->capacity = 2 * (size_t)PK_INPUT_CHUNK;
    in->owned = malloc(in->capacity);
    if (!in->owned) {
        if (source.close)
            source.close(source.context);
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory for the input buffer");
    }
    in->start = in->pos = in->end = in->owned;
    in->source = source;
    in->size_hint = size_hint;
    return PK_OK;
}

static size_t fd_read(void *context, uint8_t *buf, size_t n, pk_error *failure)
{
    int fd = (int)(intptr_t)context;
    for (;;) {
        ssize_t got = read(fd, buf, n);
        if (got >= 0)
            return (size_t)got;
        if (errno != EINTR) {
            pk_error_set(failure, PK_ERR_IO, PK_NO_OFFSET, "cannot read: %s", strerror(errno));
            return 0;
        }
    }
}

static size_t fd_read_at(void *context, uint64_t offset, uint8_t *buf, size_t n)
{
    int fd = (int)(intptr_t)context;
    size_t done = 0;
    while (done < n && offset + done <= (uint64_t)INT64_MAX) {
        ssize_t got = pread(fd, buf + done, n - done, (off_t)(offset + done));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        done += (size_t)got;
    }
    return done;
}

pk_status pk_input_init_fd(pk_input *in, int fd, uint64_t size_hint, pk_error *err)
{
    /* A size is known for a regular file only: then its bytes can be read at any offset. */
    pk_input_source source = {.read = fd_read, .context = (void *)(intptr_t)fd,
                              .read_at = size_hint ? fd_read_at : NULL};
    return pk_input_init_source(in, source, size_hint, err);
}

void pk_input_release(pk_input *in)
{
    if (in->source.close)
        in->source.close(in->source.context);
    in->source.close = NULL;
    free(in->owned);
    in->owned = NULL;
    in->start = in->pos = in->end = NULL;
}

size_t pk_input_fill(pk_input *in, size_t want)
{
    if (want > PK_INPUT_CHUNK)
        want = PK_INPUT_CHUNK;
    size_t have = pk_in_available(in);
    if (have >= want || in->at_eof || !in->owned)
        return have;
    /* Move the unread bytes to the front, then read until want bytes are there. */
    if (in->pos != in->owned) {
        in->base += (uint64_t)(in->pos - in->start);
        memmove(in->owned, in->pos, have);
        in->start = in->pos = in->owned;
        in->end = in->owned + have;
    }
    while (have < want && !in->at_eof) {
        size_t n = in->source.read(in->source.context, in->owned + have, in->capacity - have,
                                   &in->failure);
        if (n == 0) {
            in->at_eof = true;
            break;
        }
        have += n;
        in->end = in->owned + have;
    }
    if (in->progress)
        in->progress(in->progress_context, in->base + have, in->size_hint);
    return have;
}

size_t pk_in_read(pk_input *in, void *dst, size_t n)
{
    size_t done = 0;
    while (done < n) {
        size_t have = pk_in_available(in);
        if (have == 0 && (have = pk_input_fill(in, 1)) == 0)
            break;
        size_t take = n - done < have ? n - done : have;
        memcpy((uint8_t *)dst + done, in->pos, take);
        in->pos += take;
        done += take;
    }
    return done;
}

uint64_t pk_in_skip(pk_input *in, uint64_t n)
{
    uint64_t done = 0;
    while (done < n) {
        size_t have = pk_in_available(in);
        if (have == 0 && (have = pk_input_fill(in, 1)) == 0)
            break;
        uint64_t take = n - done < have ? n - done : have;
        in->pos += take;
        done += take;
    }
    return done;
}

bool pk_in_at_end(pk_input *in)
{
    return pk_in_available(in) == 0 && pk_input_fill(in, 1) == 0;
}

int pk_in_error(const pk_input *in)
{
    return in->failure.status != PK_OK;
}

pk_status pk_in_fail(const pk_input *in, pk_error *err)
{
    if (in->failure.status != PK_OK && err)
        *err = in->failure;
    return in->failure.status;
}

const pk_error *pk_input_failure(const pk_input *in)
{
    return in->failure.status != PK_OK ? &in->failure : NULL;
}

int64_t pk_in_line(pk_input *in, const char **line, size_t max)
{
    if (max > PK_INPUT_CHUNK - 1)
        max = PK_INPUT_CHUNK - 1;
    size_t scanned = 0;
    for (;;) {
        size_t have = pk_in_available(in);
        const uint8_t *lf = scanned < have ? memchr(in->pos + scanned, '\n', have - scanned) : NULL;
        if (lf) {
            size_t len = (size_t)(lf - in->pos);
            if (len > max) {
                in->pos = lf + 1;
                return -2;
            }
            *line = (const char *)in->pos;
            in->pos = lf + 1;
            return (int64_t)len;
        }
        scanned = have;
        if (have > max) {
            /* Over-long: consume through the next LF or the end. */
            for (;;) {
                in->pos = in->end;
                if (pk_input_fill(in, 1) == 0)
                    return -2;
                const uint8_t *nl = memchr(in->pos, '\n', pk_in_available(in));
                if (nl) {
                    in->pos = nl + 1;
                    return -2;
                }
            }
        }
        size_t now = pk_input_fill(in, have + 1);
        if (now == have) {
            if (have == 0)
                return -1;
            *line = (const char *)in->pos;
            in->pos = in->end;
            return (int64_t)have;
        }
    }
}

pk_varint_result pk_in_varint_slow(pk_input *in, uint64_t *value)
{
    /* The buffer ended inside the varint: make the longest varint contiguous, then decode. */
    const uint8_t *data;
    size_t have = pk_in_peek(in, PK_VARINT_MAX_BYTES, &data);
    pk_varint_result r = pk_varint_decode(&data, data + have, value);
    if (r == PK_VARINT_OK)
        in->pos = data;
    return r;
}

bool pk_in_seekable(const pk_input *in)
{
    return !in->owned || in->source.read_at != NULL;
}

size_t pk_in_read_at(pk_input *in, uint64_t offset, void *dst, size_t n)
{
    if (!in->owned) {
        /* Memory mode: the whole input is buffered, from offset 0. */
        uint64_t size = in->base + (uint64_t)(in->end - in->start);
        if (offset >= size || in->base != 0)
            return 0;
        size_t have = size - offset < n ? (size_t)(size - offset) : n;
        memcpy(dst, in->start + offset, have);
        return have;
    }
    if (!in->source.read_at)
        return 0;
    return in->source.read_at(in->source.context, offset, dst, n);
}
