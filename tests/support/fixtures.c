/* SPDX-License-Identifier: MIT */
#include "fixtures.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/input.h"
#include "core/output.h"

static void die(const char *what, const char *path)
{
    fprintf(stderr, "test data: %s %s\n", what, path);
    abort();
}

const char *tb_data_path(const char *relative)
{
    static char path[4096];
    const char *source = getenv("PK_SOURCE_DIR");
    snprintf(path, sizeof path, "%s/tests/data/%s", source ? source : ".", relative);
    return path;
}

char *tb_read_data_file(const char *relative, size_t *size)
{
    return tb_read_whole_file(tb_data_path(relative), size);
}

char *tb_read_whole_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die("cannot open", path);
    size_t capacity = 1 << 16, used = 0;
    char *data = malloc(capacity + 1);
    for (size_t n; data && (n = fread(data + used, 1, capacity - used, f)) > 0;) {
        used += n;
        if (used == capacity) {
            capacity *= 2;
            char *grown = realloc(data, capacity + 1);
            if (!grown)
                free(data);
            data = grown;
        }
    }
    if (!data || ferror(f))
        die("cannot read", path);
    fclose(f);
    data[used] = '\0';
    *size = used;
    return data;
}

char *tb_dump_text(const pk_format *format, const void *data, size_t size, bool raw,
                   pk_status *status, pk_error *err)
{
    pk_input in;
    pk_output out;
    pk_input_init_memory(&in, data, size);
    pk_output_init_memory(&out);
    pk_error_clear(err);
    *status = format->dump(&in, &out, raw, NULL, err);
    pk_error commit_err;
    if (pk_output_commit(&out, &commit_err) != PK_OK)
        die("out of memory for the dump of", format->name);
    size_t n;
    return pk_output_take_memory(&out, &n);
}
