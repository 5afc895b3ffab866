/* SPDX-License-Identifier: MIT */
#include "core/output.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/array.h"
#include "core/gzip.h"

static void output_reset(pk_output *out)
{
    memset(out, 0, sizeof *out);
    out->fd = -1;
}

pk_status pk_output_open(pk_output *out, const char *path, const char *protect_path,
                         pk_error *err)
{
    output_reset(out);
    out->cap = PK_OUTPUT_BUFFER;
    out->buf = malloc(out->cap);
    if (!out->buf)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    if (!path || strcmp(path, "-") == 0) {
        out->fd = STDOUT_FILENO;
        return PK_OK;
    }
    pk_status st = pk_output_file_open(&out->file, path, protect_path, err);
    if (st != PK_OK) {
        free(out->buf);
        output_reset(out);
        return st;
    }
    out->to_file = true;
    out->fd = out->file.fd;
    return PK_OK;
}

void pk_output_init_memory(pk_output *out)
{
    output_reset(out);
    out->memory = true;
    out->cap = 4096;
    out->buf = malloc(out->cap);
    if (!out->buf) {
        out->cap = 0;
        out->out_of_memory = true;
    }
}

pk_status pk_output_check_level(int level, pk_error *err)
{
    if (level >= 0 && level <= 9)
        return PK_OK;
    return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET,
                        "gzip compression level %d: the levels are 1 (fastest) to 9 (smallest), "
                        "0 meaning 1",
                        level);
}

pk_status pk_output_compress(pk_output *out, int level, pk_error *err)
{
    pk_status status = pk_output_check_level(level, err);
    if (status != PK_OK)
        return status;
    out->gzip = pk_deflate_new(level);
    if (!out->gzip)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory for compression");
    if (out->memory && out->cap < PK_OUTPUT_BUFFER) {
        /* Memory through gzip stages writes like a file does. */
        char *grown = realloc(out->buf, PK_OUTPUT_BUFFER);
        if (!grown)
            return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
        out->buf = grown;
        out->cap = PK_OUTPUT_BUFFER;
    }
    /* A second buffer lets the worker compress one while the writer fills the other; without
     * it (one processor, or no memory for it) compression runs in the writer's flushes. */
    out->spare = malloc(out->cap);
    if (out->spare && !pk_deflate_start_worker(out->gzip)) {
        free(out->spare);
        out->spare = NULL;
    }
    return PK_OK;
}

/* Where finished (and compressed) bytes go: the file descriptor, or memory. Failures are
 * recorded in *write_errno and *out_of_memory. */
static void sink_into(pk_output *out, const void *data, size_t n, int *write_errno,
                      bool *out_of_memory)
{
    if (out->memory) {
        pk_buffer_append(&out->compressed, data, n);
        *out_of_memory |= out->compressed.failed;
        return;
    }
    const char *bytes = data;
    while (n > 0 && *write_errno == 0) {
        ssize_t w = write(out->fd, bytes, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            *write_errno = errno;
            return;
        }
        bytes += w;
        n -= (size_t)w;
    }
}

static void sink(void *context, const void *data, size_t n)
{
    pk_output *out = context;
    sink_into(out, data, n, &out->write_errno, &out->out_of_memory);
}

/* The sink of the compressing worker, which keeps its failures apart from the writer's. */
static void worker_sink(void *context, const void *data, size_t n)
{
    pk_output *out = context;
    sink_into(out, data, n, &out->worker_errno, &out->worker_out_of_memory);
}

/* Waits until the compressing worker, if any, is idle, and takes over its failures: the
 * compressor and the sink are the writer's again. */
static void wait_for_worker(pk_output *out)
{
    if (!out->spare)
        return;
    if (!pk_deflate_wait(out->gzip))
        out->out_of_memory = true;
    if (out->write_errno == 0)
        out->write_errno = out->worker_errno;
    out->out_of_memory |= out->worker_out_of_memory;
}

/* True when writes stage in buf and flush to the sink (everything but plain memory). */
static bool flushes(const pk_output *out)
{
    return !out->memory || out->gzip;
}

static void drain(pk_output *out, const void *data, size_t n, bool finish)
{
    if (!out->gzip) {
        sink(out, data, n);
        return;
    }
    wait_for_worker(out);
    if (!pk_deflate_run(out->gzip, data, n, finish, sink, out))
        out->out_of_memory = true;
}

void pk_out_flush_buffer(pk_output *out)
{
    if (!flushes(out) || out->len == 0)
        return;
    if (!out->spare) {
        drain(out, out->buf, out->len, false);
        out->len = 0;
        return;
    }
    /* The worker compresses this buffer while the writer fills the other. */
    wait_for_worker(out);
    if (!pk_out_failed(out))
        pk_deflate_post(out->gzip, out->buf, out->len, false, worker_sink, out);
    char *filled = out->buf;
    out->buf = out->spare;
    out->spare = filled;
    out->len = 0;
}

bool pk_out_failed(const pk_output *out)
{
    return out->write_errno != 0 || out->out_of_memory;
}

void pk_out_fail(pk_output *out, int error)
{
    if (out->write_errno == 0)
        out->write_errno = error;
}

/* Plain memory mode: grows the buffer to take n more bytes and, after them, the NUL that
 * pk_output_take_memory adds. False (the output failed) when memory runs out. */
static bool grow_memory(pk_output *out, size_t n)
{
    size_t need = out->len + n + 1;
    if (need < n || !PK_ARRAY_RESERVE(out->buf, out->cap, need)) {
        out->out_of_memory = true;
        return false;
    }
    return true;
}

void pk_out_write_slow(pk_output *out, const void *data, size_t n)
{
    if (pk_out_failed(out))
        return;
    if (!flushes(out)) {
        if (!grow_memory(out, n))
            return;
        memcpy(out->buf + out->len, data, n);
        out->len += n;
        return;
    }
    pk_out_flush_buffer(out);
    if (n >= out->cap) {
        drain(out, data, n, false);
        return;
    }
    memcpy(out->buf, data, n);
    out->len = n;
}

char *pk_out_reserve_slow(pk_output *out, size_t n)
{
    if (pk_out_failed(out))
        return NULL;
    if (flushes(out)) {
        if (n > out->cap)
            return NULL;
        pk_out_flush_buffer(out);
        return pk_out_failed(out) ? NULL : out->buf;
    }
    return grow_memory(out, n) ? out->buf + out->len : NULL;
}

/* Ends the compressed stream, if any: flushes what is staged and closes the gzip member. */
static void finish_compression(pk_output *out)
{
    if (!out->gzip)
        return;
    wait_for_worker(out);
    if (!pk_out_failed(out))
        drain(out, out->buf, out->len, true);
    out->len = 0;
    pk_deflate_free(out->gzip);
    out->gzip = NULL;
    free(out->spare);
    out->spare = NULL;
    if (out->memory) {
        /* The compressed bytes become the memory buffer. */
        free(out->buf);
        out->buf = (char *)out->compressed.data;
        out->len = out->compressed.len;
        out->cap = out->compressed.cap;
        out->compressed = (pk_buffer)PK_BUFFER_INIT;
    }
}

static void output_free(pk_output *out)
{
    pk_deflate_free(out->gzip); /* first: its worker may still use the buffers */
    free(out->spare);
    pk_buffer_free(&out->compressed);
    free(out->buf);
    output_reset(out);
}

pk_status pk_output_commit(pk_output *out, pk_error *err)
{
    finish_compression(out);
    if (out->memory) {
        /* Keep room for the terminating NUL that pk_output_take_memory adds. */
        pk_out_putc(out, '\0');
        out->len--;
        if (!out->out_of_memory)
            return PK_OK;
        output_free(out);
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory for the output");
    }
    pk_out_flush_buffer(out);
    int e = out->write_errno;
    if (e == 0 && out->out_of_memory)
        e = ENOMEM;
    pk_status status = PK_OK;
    if (out->to_file) {
        if (e == 0) {
            status = pk_output_file_commit(&out->file, err);
        } else {
            status = pk_error_set(err, e == ENOMEM ? PK_ERR_NOMEM : PK_ERR_IO, PK_NO_OFFSET,
                                  "%s: cannot write: %s", out->file.path, strerror(e));
            pk_output_file_abort(&out->file);
        }
    } else if (e != 0) {
        status = pk_error_set(err, e == ENOMEM ? PK_ERR_NOMEM : PK_ERR_IO, PK_NO_OFFSET,
                              "standard output: cannot write: %s", strerror(e));
    }
    output_free(out);
    return status;
}

void pk_output_abort(pk_output *out)
{
    if (out->to_file)
        pk_output_file_abort(&out->file);
    output_free(out);
}

char *pk_output_take_memory(pk_output *out, size_t *size)
{
    char *data = out->buf;
    if (size)
        *size = out->len;
    if (data)
        data[out->len] = '\0';
    output_reset(out);
    return data;
}

void pk_out_puts(pk_output *out, const char *s)
{
    pk_out_write(out, s, strlen(s));
}

void pk_out_vprintf(pk_output *out, const char *fmt, va_list ap)
{
    char small[512];
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(small, sizeof small, fmt, copy);
    va_end(copy);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        pk_out_write(out, small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        out->out_of_memory = true;
        return;
    }
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    pk_out_write(out, big, (size_t)n);
    free(big);
}

void pk_out_printf(pk_output *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pk_out_vprintf(out, fmt, ap);
    va_end(ap);
}

void pk_out_u64(pk_output *out, uint64_t v)
{
    char digits[20];
    size_t n = 0;
    do {
        digits[sizeof digits - ++n] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    pk_out_write(out, digits + sizeof digits - n, n);
}

void pk_out_i64(pk_output *out, int64_t v)
{
    if (v < 0) {
        pk_out_putc(out, '-');
        pk_out_u64(out, (uint64_t)0 - (uint64_t)v);
    } else {
        pk_out_u64(out, (uint64_t)v);
    }
}

void pk_out_double(pk_output *out, double v)
{
    if (!isfinite(v))
        v = 0;
    /* The range first: converting a double beyond int64 is undefined. */
    if (fabs(v) < 9007199254740992.0 && v == (double)(int64_t)v) {
        pk_out_i64(out, (int64_t)v);
        return;
    }
    /* The shortest of %.15g..%.17g that reads back as the same double. */
    char buf[32];
    for (int precision = 15; precision <= 17; precision++) {
        snprintf(buf, sizeof buf, "%.*g", precision, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    pk_out_puts(out, buf);
}

/* Length of the valid UTF-8 sequence at s, which has `available` bytes (1-4), or 0 when it is
 * not valid. */
static size_t utf8_sequence(const unsigned char *s, size_t available)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    size_t n;
    uint32_t cp;
    if ((c & 0xe0) == 0xc0) {
        n = 2;
        cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
        n = 3;
        cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (n > available)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    static const uint32_t min_for_length[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min_for_length[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

void pk_out_json_string_len(pk_output *out, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s, *end = p + len;
    pk_out_putc(out, '"');
    while (p < end) {
        const unsigned char *run = p;
        while (p < end && *p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\')
            p++;
        if (p > run)
            pk_out_write(out, run, (size_t)(p - run));
        if (p == end)
            break;
        unsigned char c = *p;
        if (c == '"' || c == '\\') {
            char esc[2] = {'\\', (char)c};
            pk_out_write(out, esc, 2);
            p++;
        } else if (c < 0x20) {
            char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            if (c == '\n')
                pk_out_write(out, "\\n", 2);
            else if (c == '\t')
                pk_out_write(out, "\\t", 2);
            else if (c == '\r')
                pk_out_write(out, "\\r", 2);
            else
                pk_out_write(out, esc, 6);
            p++;
        } else {
            size_t n = utf8_sequence(p, (size_t)(end - p));
            if (n == 0) {
                pk_out_write(out, "\\ufffd", 6);
                p++;
            } else {
                pk_out_write(out, p, n);
                p += n;
            }
        }
    }
    pk_out_putc(out, '"');
}

void pk_out_json_string(pk_output *out, const char *s)
{
    pk_out_json_string_len(out, s, strlen(s));
}

void pk_out_quoted(pk_output *out, const void *data, size_t n)
{
    const uint8_t *s = data;
    pk_out_putc(out, '"');
    for (size_t i = 0; i < n; i++) {
        uint8_t c = s[i];
        if (c == '"' || c == '\\')
            pk_out_printf(out, "\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            pk_out_printf(out, "\\x%02x", c);
        else
            pk_out_putc(out, (char)c);
    }
    pk_out_putc(out, '"');
}

void pk_out_xml_text(pk_output *out, const char *s)
{
    pk_out_xml_text_len(out, s, strlen(s));
}

void pk_out_xml_text_len(pk_output *out, const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + len;
    while (p < end) {
        const unsigned char *run = p;
        while (p < end && *p != '<' && *p != '>' && *p != '&' && *p != '"' && *p != '\'' &&
               (*p >= 0x20 || *p == '\t' || *p == '\n') && *p < 0x80)
            p++;
        if (p > run)
            pk_out_write(out, run, (size_t)(p - run));
        if (p == end)
            break;
        switch (*p) {
        case '<':
            pk_out_puts(out, "&lt;");
            p++;
            break;
        case '>':
            pk_out_puts(out, "&gt;");
            p++;
            break;
        case '&':
            pk_out_puts(out, "&amp;");
            p++;
            break;
        case '"':
            pk_out_puts(out, "&quot;");
            p++;
            break;
        case '\'':
            pk_out_puts(out, "&apos;");
            p++;
            break;
        default:
            if (*p == 0) {
                /* XML 1.0 has no NUL, not even as a reference: U+2400 SYMBOL FOR NULL shows it. */
                pk_out_puts(out, "\xe2\x90\x80");
                p++;
            } else if (*p < 0x20) {
                /* Control characters are not allowed in XML 1.0. */
                pk_out_putc(out, '?');
                p++;
            } else {
                size_t left = (size_t)(end - p);
                size_t n = utf8_sequence(p, left < 4 ? left : 4);
                if (n == 0) {
                    pk_out_puts(out, "\xef\xbf\xbd");
                    p++;
                } else {
                    pk_out_write(out, p, n);
                    p += n;
                }
            }
        }
    }
}
