/* Buffered output for writers: to a file through a temporary that is renamed into place on
 * commit, to standard output, or into a growing memory buffer.
 *
 * Write calls never fail individually: the first error is remembered and reported by
 * pk_output_commit, so writers can emit freely and check once (or poll pk_out_failed in long
 * loops to stop early).
 */
#ifndef PK_CORE_OUTPUT_H
#define PK_CORE_OUTPUT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "profkit/format.h"

#define PK_OUTPUT_BUFFER (1u << 18)

struct pk_output {
    char *buf;
    size_t len;
    size_t cap;
    int fd;              /* -1 in memory mode */
    bool memory;         /* grow buf instead of flushing */
    int write_errno;     /* first failure, 0 when none */
    bool out_of_memory;
    char *final_path;    /* NULL for standard output and memory */
    char *temp_path;
};

/* Opens path for writing ("-" = standard output). A regular file is written to a temporary in
 * the same directory. protect_path (may be NULL) is the input: the output may not be it. */
pk_status pk_output_open(pk_output *out, const char *path, const char *protect_path,
                         pk_error *err);
void pk_output_init_memory(pk_output *out);
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

void pk_out_write_slow(pk_output *out, const void *data, size_t n);

static inline void pk_out_write(pk_output *out, const void *data, size_t n)
{
    if (out->cap - out->len >= n) {
        memcpy(out->buf + out->len, data, n);
        out->len += n;
        return;
    }
    pk_out_write_slow(out, data, n);
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
/* Text with XML special characters escaped (for SVG). */
void pk_out_xml_text(pk_output *out, const char *s);

#endif
