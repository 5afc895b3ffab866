/* SPDX-License-Identifier: MIT */
/* The public face of outputs (include/profkit/output.h): heap-allocated pk_output objects over
 * the buffered output of core/output.h. */
#include <stdlib.h>
#include <string.h>

#include "core/output.h"

/* True when path names a gzip file by its extension. */
static bool gz_path(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    return n > 3 && strcmp(path + n - 3, ".gz") == 0;
}

pk_status pk_output_create(const char *path, const pk_output_options *options, pk_output **out,
                           pk_error *err)
{
    static const pk_output_options defaults;
    if (!options)
        options = &defaults;
    *out = NULL;
    /* Checked first, whether or not the output is compressed: no file is created for a call
     * that is refused. */
    pk_status st = pk_output_check_level(options->compression_level, err);
    if (st != PK_OK)
        return st;
    pk_output *o = malloc(sizeof *o);
    if (!o)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    st = pk_output_open(o, path, options->protect_path, err);
    if (st != PK_OK) {
        free(o);
        return st;
    }
    bool gzip = options->compression == PK_COMPRESSION_GZIP ||
                (options->compression == PK_COMPRESSION_AUTO && gz_path(path));
    if (gzip && (st = pk_output_compress(o, options->compression_level, err)) != PK_OK) {
        pk_output_abort(o);
        free(o);
        return st;
    }
    *out = o;
    return PK_OK;
}

pk_output *pk_output_create_memory(void)
{
    pk_output *o = malloc(sizeof *o);
    if (o)
        pk_output_init_memory(o);
    return o;
}

void pk_output_write(pk_output *out, const void *data, size_t size)
{
    pk_out_write(out, data, size);
}

void pk_output_printf(pk_output *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pk_out_vprintf(out, fmt, ap);
    va_end(ap);
}

bool pk_output_failed(const pk_output *out)
{
    return pk_out_failed(out);
}

pk_status pk_output_finish(pk_output *out, pk_error *err)
{
    pk_status st = pk_output_commit(out, err);
    if (st == PK_OK && out->memory)
        free(pk_output_take_memory(out, NULL));
    free(out);
    return st;
}

pk_status pk_output_finish_memory(pk_output *out, char **data, size_t *size, pk_error *err)
{
    *data = NULL;
    *size = 0;
    pk_status st = pk_output_commit(out, err);
    if (st == PK_OK)
        *data = pk_output_take_memory(out, size);
    free(out);
    return st;
}

void pk_output_discard(pk_output *out)
{
    if (!out)
        return;
    pk_output_abort(out);
    free(out);
}
