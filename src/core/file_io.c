/* Whole-file reading and writing: opening, probing, and committing outputs. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/input.h"
#include "core/output.h"
#include "profkit/format.h"

static pk_status read_input(pk_input *in, const char *path, const pk_format *format,
                            const pk_read_options *options, pk_profile **out, pk_error *err)
{
    static const pk_read_options no_options;
    if (!options)
        options = &no_options;
    in->progress = options->progress;
    in->progress_context = options->progress_context;

    const uint8_t *head;
    size_t head_size = pk_in_peek(in, PK_PROBE_BYTES, &head);
    if (pk_in_error(in))
        return pk_error_set(err, PK_ERR_IO, PK_NO_OFFSET, "cannot read: %s",
                            strerror(pk_in_error(in)));
    if (head_size == 0)
        return pk_error_set(err, PK_ERR_INPUT, 0, "the file is empty");
    if (!format) {
        format = pk_format_probe(head, head_size, path, NULL);
        if (!format)
            return pk_error_set(err, PK_ERR_INPUT, 0,
                                "not a profile format profkit reads (see `profkit formats`; "
                                "--from names the format)");
    }
    if (!format->read)
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET, "profkit cannot read %s files",
                            format->name);

    pk_profile *p = pk_profile_new();
    if (!p)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    pk_metadata_of(p)->source_format = pk_intern_cstr(p, format->name);
    pk_error_clear(err);
    pk_status status = format->read(in, p, options, err);
    if (pk_in_error(in))
        status = pk_error_set(err, PK_ERR_IO, PK_NO_OFFSET, "cannot read: %s",
                              strerror(pk_in_error(in)));
    if (status != PK_OK) {
        pk_profile_free(p);
        return status;
    }
    *out = p;
    return PK_OK;
}

/* Opens path ("-" = standard input) as a buffered input. */
static pk_status open_input(const char *path, pk_input *in, int *fd_out, pk_error *err)
{
    bool use_stdin = strcmp(path, "-") == 0;
    int fd = use_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return pk_error_set(err, PK_ERR_IO, PK_NO_OFFSET, "cannot open: %s", strerror(errno));
    struct stat st;
    uint64_t size_hint = 0;
    if (fstat(fd, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            if (!use_stdin)
                close(fd);
            return pk_error_set(err, PK_ERR_IO, PK_NO_OFFSET, "is a directory");
        }
        if (S_ISREG(st.st_mode))
            size_hint = (uint64_t)st.st_size;
    }
    pk_status status = pk_input_init_fd(in, fd, size_hint, err);
    if (status != PK_OK && !use_stdin)
        close(fd);
    *fd_out = use_stdin ? -1 : fd;
    return status;
}

static void close_input(pk_input *in, int fd)
{
    pk_input_release(in);
    if (fd >= 0)
        close(fd);
}

pk_status pk_read_file(const char *path, const pk_format *format, const pk_read_options *options,
                       pk_profile **out, pk_error *err)
{
    pk_input in;
    int fd;
    *out = NULL;
    pk_status status = open_input(path, &in, &fd, err);
    if (status != PK_OK)
        return status;
    status = read_input(&in, strcmp(path, "-") == 0 ? NULL : path, format, options, out, err);
    close_input(&in, fd);
    return status;
}

pk_status pk_dump_file(const char *path, const pk_format *format, bool raw,
                       const pk_read_options *options, const char *output_path, pk_error *err)
{
    static const pk_read_options no_options;
    pk_input in;
    int fd;
    pk_status status = open_input(path, &in, &fd, err);
    if (status != PK_OK)
        return status;
    const uint8_t *head;
    size_t head_size = pk_in_peek(&in, PK_PROBE_BYTES, &head);
    if (!format && head_size > 0)
        format = pk_format_probe(head, head_size, strcmp(path, "-") == 0 ? NULL : path, NULL);
    if (head_size == 0)
        status = pk_error_set(err, PK_ERR_INPUT, 0, "the file is empty");
    else if (!format)
        status = pk_error_set(err, PK_ERR_INPUT, 0, "not a profile format profkit reads");
    else if (!format->dump)
        status = pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET,
                              "profkit has no record dump for %s files", format->name);
    if (status == PK_OK) {
        pk_output out;
        status = pk_output_open(&out, output_path, path, err);
        if (status == PK_OK) {
            status = format->dump(&in, &out, raw, options ? options : &no_options, err);
            if (status == PK_OK) {
                status = pk_output_commit(&out, err);
            } else if (out.final_path == NULL) {
                /* On standard output the records before the damage stay: they are what a
                 * person reading a broken file wants to see. A file is not left half-written. */
                pk_output_commit(&out, NULL);
            } else {
                pk_output_abort(&out);
            }
        }
    }
    close_input(&in, fd);
    return status;
}

pk_status pk_read_memory(const void *data, size_t size, const pk_format *format,
                         const pk_read_options *options, pk_profile **out, pk_error *err)
{
    pk_input in;
    *out = NULL;
    pk_input_init_memory(&in, data, size);
    return read_input(&in, NULL, format, options, out, err);
}

/* Runs the format's writer into an opened output, then commits or discards it. The writer
 * always sees a concrete value index: PK_NONE becomes the profile's default value. */
static pk_status write_through(const pk_profile *p, pk_output *out, const pk_format *format,
                               const pk_write_options *options, pk_error *err)
{
    pk_write_options resolved = {.value = PK_NONE};
    if (options)
        resolved = *options;
    if (resolved.value == PK_NONE || resolved.value >= pk_value_type_count(p))
        resolved.value = pk_value_type_count(p) ? pk_default_value(p) : PK_NONE;
    pk_status status = format->write(p, out, &resolved, err);
    if (status == PK_OK)
        status = pk_output_commit(out, err);
    else
        pk_output_abort(out);
    return status;
}

static pk_status check_writer(const pk_format *format, pk_error *err)
{
    if (!format || !format->write)
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET, "profkit cannot write %s files",
                            format ? format->name : "such");
    return PK_OK;
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
    return write_through(p, &out, format, options, err);
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
    status = write_through(p, &out, format, options, err);
    if (status == PK_OK)
        *data = pk_output_take_memory(&out, size);
    return status;
}
