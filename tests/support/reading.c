/* SPDX-License-Identifier: MIT */
#include "reading.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"

#include "profkit/symbolize.h"

/* Reads with the format options of options, then runs the symbolization pass unless
 * "no-symbols" is among them. path NULL reads [data, data + size). */
static pk_profile *read_as_command(const char *path, const void *data, size_t size,
                                   const pk_format *format, const pk_option *options,
                                   size_t count, bool salvage, pk_status *status, pk_error *err)
{
    pk_option *format_options = calloc(count + 1, sizeof *format_options);
    const char **dirs = calloc(count + 1, sizeof *dirs);
    size_t format_count = 0, dir_count = 0;
    bool symbols = true;
    for (size_t i = 0; i < count; i++) {
        if (strcmp(options[i].name, "no-symbols") == 0)
            symbols = false;
        else if (strcmp(options[i].name, "symbol-path") == 0)
            dirs[dir_count++] = options[i].value;
        else
            format_options[format_count++] = options[i];
    }
    pk_read_options o = {0};
    o.salvage = salvage;
    o.extra.items = format_options;
    o.extra.count = format_count;
    pk_profile *p = NULL;
    *status = path ? pk_read_file(path, format, &o, &p, err)
                   : pk_read_memory(data, size, format, &o, &p, err);
    if (*status == PK_OK && symbols && pk_profile_has_unresolved_frames(p)) {
        pk_symbolize_options so = {dirs, dir_count, NULL, 0};
        pk_profile *named = NULL;
        *status = pk_symbolize(p, &so, &named, err);
        pk_profile_free(p);
        p = named;
    }
    free(format_options);
    free(dirs);
    if (*status != PK_OK) {
        pk_profile_free(p);
        return NULL;
    }
    return p;
}

pk_profile *tb_read_file_with(const char *path, const pk_format *format, const pk_option *options,
                              size_t count, pk_status *status, pk_error *err)
{
    return read_as_command(path, NULL, 0, format, options, count, false, status, err);
}

pk_profile *tb_read_memory_with(const void *data, size_t size, const pk_format *format,
                                const pk_option *options, size_t count, bool salvage,
                                pk_status *status, pk_error *err)
{
    return read_as_command(NULL, data, size, format, options, count, salvage, status, err);
}

static const pk_option no_symbols = {"no-symbols", ""};

pk_profile *tb_read_text_ok(const pk_format *format, const char *text)
{
    pk_status status;
    pk_error err;
    pk_profile *p =
        tb_read_memory_with(text, strlen(text), format, &no_symbols, 1, false, &status, &err);
    if (!p) {
        fprintf(stderr, "reading failed: byte %lld: %s\n", (long long)err.offset, err.message);
        abort();
    }
    return p;
}

pk_profile *tb_read_data_ok(const pk_format *format, const char *relative)
{
    size_t size;
    char *data = tb_read_data_file(relative, &size);
    pk_status status;
    pk_error err;
    pk_profile *p = tb_read_memory_with(data, size, format, &no_symbols, 1, false, &status, &err);
    if (!p) {
        fprintf(stderr, "%s: byte %lld: %s\n", relative, (long long)err.offset, err.message);
        abort();
    }
    free(data);
    return p;
}

bool tb_has_warning(const pk_profile *p, const char *needle)
{
    for (size_t i = 0; i < pk_warning_count(p); i++)
        if (strstr(pk_warning_at(p, i), needle))
            return true;
    return false;
}
