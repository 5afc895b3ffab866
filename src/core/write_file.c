/* SPDX-License-Identifier: MIT */
/* Writing a profile with a format's writer: to a file (replaced only when complete), to
 * standard output, to an opened output or to memory, compressed where asked or usual. */
#include <string.h>

#include "core/output.h"
#include "profkit/format.h"

static pk_status check_writer(const pk_format *format, pk_error *err)
{
    if (!format || !format->write)
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET, "profkit cannot write %s files",
                            format ? format->name : "such");
    return PK_OK;
}

/* Runs the format's writer. The writer always sees a concrete value index: PK_NONE (or one out
 * of range) becomes the profile's default value. */
static pk_status run_writer(const pk_profile *p, pk_output *out, const pk_format *format,
                            const pk_write_options *options, pk_error *err)
{
    pk_write_options resolved = {.value = PK_NONE};
    if (options)
        resolved = *options;
    if (resolved.value == PK_NONE || resolved.value >= pk_value_type_count(p))
        resolved.value = pk_value_type_count(p) ? pk_default_value(p) : PK_NONE;
    return format->write(p, out, &resolved, err);
}

/* Whether to gzip: as asked, else for ".gz" paths (path may be NULL) and formats that are
 * usually compressed. */
static bool wants_gzip(const pk_format *format, const pk_write_options *options,
                       const char *path)
{
    pk_compression asked = options ? options->compression : PK_COMPRESSION_AUTO;
    if (asked != PK_COMPRESSION_AUTO)
        return asked == PK_COMPRESSION_GZIP;
    size_t n = path ? strlen(path) : 0;
    return (n > 3 && strcmp(path + n - 3, ".gz") == 0) ||
           (format->flags & PK_FORMAT_GZIP_BY_DEFAULT);
}

static pk_status write_through(const pk_profile *p, pk_output *out, const pk_format *format,
                               const pk_write_options *options, const char *path, pk_error *err)
{
    int level = options ? options->compression_level : 0;
    /* A bad level is refused whether or not this output is compressed: it is the caller's
     * mistake either way. */
    pk_status status = pk_output_check_level(level, err);
    if (status == PK_OK && wants_gzip(format, options, path))
        status = pk_output_compress(out, level, err);
    if (status == PK_OK)
        status = run_writer(p, out, format, options, err);
    if (status == PK_OK)
        status = pk_output_commit(out, err);
    else
        pk_output_abort(out);
    return status;
}

pk_status pk_write_file(const pk_profile *p, const char *path, const pk_format *format,
                        const pk_write_options *options, const char *protect_path,
                        pk_error *err)
{
    pk_status status = check_writer(format, err);
    if (status != PK_OK)
        return status;
    pk_output out;
    status = pk_output_open(&out, path, protect_path, err);
    if (status != PK_OK)
        return status;
    return write_through(p, &out, format, options, path, err);
}

pk_status pk_write_output(const pk_profile *p, pk_output *out, const pk_format *format,
                          const pk_write_options *options, pk_error *err)
{
    pk_status status = check_writer(format, err);
    if (status != PK_OK)
        return status;
    return run_writer(p, out, format, options, err);
}

pk_status pk_write_memory(const pk_profile *p, const pk_format *format,
                          const pk_write_options *options, char **data, size_t *size,
                          pk_error *err)
{
    *data = NULL;
    *size = 0;
    pk_status status = check_writer(format, err);
    if (status != PK_OK)
        return status;
    pk_output out;
    pk_output_init_memory(&out);
    status = write_through(p, &out, format, options, NULL, err);
    if (status == PK_OK)
        *data = pk_output_take_memory(&out, size);
    return status;
}
