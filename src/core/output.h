/* SPDX-License-Identifier: MIT */
/* Buffered output for writers: to a file through a temporary that is renamed into place on
 * commit, to standard output, or into a growing memory buffer; optionally through a gzip
 * compressor (core/gzip.h). The public face is include/profkit/output.h; formats and reports
 * use the inline fast paths here.
 *
 * Write calls never fail individually: the first error is remembered and reported by
 * pk_output_commit, so writers can emit freely and check once (or poll pk_out_failed in long
 * loops to stop early).
 */
#ifndef PK_CORE_OUTPUT_H
#define PK_CORE_OUTPUT_H

#include <assert.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/buffer.h"
#include "core/output_file.h"
#include "profkit/format.h"
#include "profkit/output.h"

#define PK_OUTPUT_BUFFER (1u << 18)

struct pk_deflate;

struct pk_output {
    char *buf;           /* what writers fill; the whole output in plain memory mode */
    size_t len;
    size_t cap;
    int fd;              /* -1 in memory mode */
    bool memory;         /* plain memory mode grows buf instead of flushing */
    pk_buffer compressed; /* memory mode through gzip: the compressed bytes */
    struct pk_deflate *gzip; /* compressing filter, NULL when none */
    char *spare;         /* with a compressing worker: the buffer it compresses, of size cap */
    int worker_errno;    /* the worker's failures, taken over when the writer waits for it */
    bool worker_out_of_memory;
    int write_errno;     /* first failure, 0 when none */
    bool out_of_memory;
    bool to_file;        /* a named output (not standard output, not memory) */
    pk_output_file file; /* its file, when to_file */
};

/* Opens path for writing ("-" = standard output); a file appears only when committed (see
 * core/output_file.h). protect_path (may be NULL) is the input: the output may not be it. */
pk_status pk_output_open(pk_output *out, const char *path, const char *protect_path,
                         pk_error *err);
void pk_output_init_memory(pk_output *out);
/* PK_OK for a gzip level the outputs take (1-9, 0 meaning 1); else a usage error that says
 * which levels there are. */
pk_status pk_output_check_level(int level, pk_error *err);
/* From now on everything written is compressed with gzip at level (checked as above). Call
 * before the first write. */
pk_status pk_output_compress(pk_output *out, int level, pk_error *err);
/* Flushes and, for a file, fsyncs and renames the temporary into place. On any error the
 * temporary is removed and the final path is untouched. Always releases the output, except
 * the memory buffer of a successful memory output, which the caller takes with
 * pk_output_take_memory. */
pk_status pk_output_commit(pk_output *out, pk_error *err);
/* Discards everything: removes the temporary, frees buffers. */
void pk_output_abort(pk_output *out);
/* Memory mode: hands over the buffer (NUL-terminated, size excludes the NUL). */
char *pk_output_take_memory(pk_output *out, size_t *size);

void pk_out_flush_buffer(pk_output *out);
bool pk_out_failed(const pk_output *out);
/* Marks the output failed with errno value error, for a writer whose own source failed: the
 * output is then not committed. */
void pk_out_fail(pk_output *out, int error);

void pk_out_write_slow(pk_output *out, const void *data, size_t n);

static inline void pk_out_write(pk_output *out, const void *data, size_t n)
{
    if (n == 0)
        return; /* data may be NULL then (an empty buffer), which memcpy must not be given */
    if (out->cap - out->len >= n) {
        memcpy(out->buf + out->len, data, n);
        out->len += n;
        return;
    }
    pk_out_write_slow(out, data, n);
}

/* Room for n bytes after what is written, for a writer that fills it itself and then says how
 * much it wrote with pk_out_advance (at most n): NULL when the output has failed or n is more
 * than a staged buffer holds, and the writer then goes through pk_out_write. */
char *pk_out_reserve_slow(pk_output *out, size_t n);

static inline char *pk_out_reserve(pk_output *out, size_t n)
{
    if (out->cap - out->len >= n) {
        assert(out->buf || n == 0); /* room in the staged buffer means there is one */
        return out->buf + out->len;
    }
    return pk_out_reserve_slow(out, n);
}

static inline void pk_out_advance(pk_output *out, size_t n)
{
    out->len += n;
}

static inline void pk_out_putc(pk_output *out, char c)
{
    if (out->len < out->cap)
        out->buf[out->len++] = c;
    else
        pk_out_write(out, &c, 1);
}

void pk_out_puts(pk_output *out, const char *s);
void pk_out_printf(pk_output *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pk_out_vprintf(pk_output *out, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
void pk_out_u64(pk_output *out, uint64_t v);
void pk_out_i64(pk_output *out, int64_t v);
/* A double as JSON accepts it (no NaN/Inf: those print as 0), shortest round-trip form. */
void pk_out_double(pk_output *out, double v);
/* A JSON string literal, with quotes; invalid UTF-8 bytes become U+FFFD. */
void pk_out_json_string(pk_output *out, const char *s);
/* The same for len bytes, which may include NUL bytes (written as \u0000). */
void pk_out_json_string_len(pk_output *out, const char *s, size_t len);
/* Bytes from a file, quoted for a record dump: '"' and '\\' escaped, control bytes and DEL as
 * \xHH, everything else as it is, so that odd names stay visible. */
void pk_out_quoted(pk_output *out, const void *data, size_t n);
/* Text with XML special characters escaped (for SVG). */
void pk_out_xml_text(pk_output *out, const char *s);
/* The same for len bytes, which may include NUL bytes (written as U+2400 SYMBOL FOR NULL: XML
 * has no way to write NUL). */
void pk_out_xml_text_len(pk_output *out, const char *s, size_t len);

#endif
