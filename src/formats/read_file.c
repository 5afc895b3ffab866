/* SPDX-License-Identifier: MIT */
/* Opening inputs: files, standard input or memory, decompressed on the way in, their format
 * given or probed; then reading them into a profile or dumping their records, with the salvage
 * policy of core/damage.h applied in this one place. */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/damage.h"
#include "core/distinct.h"
#include "core/profile_internal.h"
#include "core/gzip.h"
#include "core/zstd.h"
#include "core/input.h"
#include "core/output.h"
#include "core/path.h"
#include "core/title.h"
#include "core/utf16.h"
#include "profkit/format.h"

struct pk_reader {
    const pk_format *format;
    int fd;               /* owned descriptor, -1 for standard input and memory */
    pk_input raw;         /* the bytes as stored */
    pk_input inflated;    /* raw through gzip or zstd, when compressed */
    pk_input decoded;     /* raw or inflated through the UTF-16 decoder, for UTF-16 text */
    pk_input *in;         /* what the format reads: &raw, &inflated or &decoded */
    const char *compression;
    bool inflating, decoding;
    bool format_given; /* opened with a format rather than probed */
    bool used;
    char *source_name; /* the file's base name, for titles; NULL for standard input, memory */
    int64_t overflow_offset; /* where the values first could no longer sum, PK_NO_OFFSET */
};

static void note_overflow(void *context)
{
    pk_reader *r = context;
    r->overflow_offset = (int64_t)pk_in_offset(r->in);
}

/* A profile whose totals cannot be represented is refused: every total, tree and share of it
 * would be wrong. */
static pk_status check_overflow(const pk_reader *r, const pk_profile *p, pk_error *err)
{
    uint32_t value;
    if (!pk_values_overflow(p, &value))
        return PK_OK;
    return pk_error_set(err, PK_ERR_LIMIT, r->overflow_offset,
                        "the %s values add up beyond the 64-bit range (about 9.2e18), so "
                        "totals and shares cannot be represented",
                        pk_str(p, pk_value_type_at(p, value)->name));
}

/* The compressed formats profkit recognises but does not decompress, by magic number. */
static const char *unsupported_compression(const uint8_t *head, size_t n)
{
    static const struct {
        const char *name;
        uint8_t magic[6];
        size_t len;
    } kinds[] = {
        {"xz", {0xfd, '7', 'z', 'X', 'Z', 0}, 6},
        {"bzip2", {'B', 'Z', 'h'}, 3},
        {"lz4", {0x04, 0x22, 0x4d, 0x18}, 4},
        {"lzip", {'L', 'Z', 'I', 'P'}, 4},
        {"7z", {'7', 'z', 0xbc, 0xaf, 0x27, 0x1c}, 6},
        {"zip", {'P', 'K', 3, 4}, 4},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (n >= kinds[i].len && memcmp(head, kinds[i].magic, kinds[i].len) == 0)
            return kinds[i].name;
    return NULL;
}

/* The name used to break probe ties by extension and, its base name, to title the profile: path
 * without a ".gz" or ".zst" the input was read through; NULL for standard input and memory. */
static char *probe_name(const char *path, bool compressed)
{
    if (!path || strcmp(path, "-") == 0)
        return NULL;
    size_t n = strlen(path);
    if (compressed && n > 3 && strcmp(path + n - 3, ".gz") == 0)
        n -= 3;
    else if (compressed && n > 4 && strcmp(path + n - 4, ".zst") == 0)
        n -= 4;
    char *name = malloc(n + 1);
    if (name) {
        memcpy(name, path, n);
        name[n] = '\0';
    }
    return name;
}

static void reader_free(pk_reader *r)
{
    if (r->decoding)
        pk_input_release(&r->decoded);
    if (r->inflating)
        pk_input_release(&r->inflated);
    pk_input_release(&r->raw);
    if (r->fd >= 0)
        close(r->fd);
    free(r->source_name);
    free(r);
}

/* Decompresses when compressed (gzip, zstd), then finds the format (unless given). */
static pk_status reader_start(pk_reader *r, const char *path, const pk_format *format,
                              pk_error *err)
{
    const uint8_t *head;
    size_t head_size = pk_in_peek(&r->raw, PK_PROBE_BYTES, &head);
    if (pk_in_error(&r->raw))
        return pk_in_fail(&r->raw, err);
    if (head_size == 0)
        return pk_error_set(err, PK_ERR_INPUT, 0, "the file is empty");
    bool gzip = pk_gzip_detect(head, head_size);
    if (gzip || pk_zstd_detect(head, head_size)) {
        pk_status st = gzip ? pk_input_init_gzip(&r->inflated, &r->raw, err)
                            : pk_input_init_zstd(&r->inflated, &r->raw, err);
        if (st != PK_OK)
            return st;
        r->in = &r->inflated;
        r->inflating = true;
        r->compression = gzip ? "gzip" : "zstd";
        head_size = pk_in_peek(r->in, PK_PROBE_BYTES, &head);
        /* Damage before the first byte leaves nothing to probe; with the format given, reading
         * goes on and reports it (salvage then keeps an empty profile). */
        if (head_size == 0 && !(format && pk_input_failure(r->in) &&
                                pk_input_failure(r->in)->salvageable)) {
            if (pk_in_error(r->in)) {
                pk_status failed = pk_in_fail(r->in, err);
                err->salvageable = false;
                return failed;
            }
            return pk_error_set(err, PK_ERR_INPUT, 0, "the %s data holds no bytes",
                                r->compression);
        }
    }
    r->format_given = format != NULL;
    char *name = format ? NULL : probe_name(path, r->compression != NULL);
    r->format = format ? format : pk_format_probe(head, head_size, name, NULL);
    /* UTF-16 text (it starts with a byte-order mark) is decoded for a text format: the one
     * given, or the one that claims the decoded bytes when no format claims the stored ones. */
    pk_utf16_order order = pk_utf16_detect(head, head_size);
    if (order != PK_UTF16_NONE && (format ? (format->flags & PK_FORMAT_TEXT) != 0 : !r->format)) {
        pk_status st = pk_input_init_utf16(&r->decoded, r->in, order, err);
        if (st != PK_OK) {
            free(name);
            return st;
        }
        r->in = &r->decoded;
        r->decoding = true;
        if (!format) {
            head_size = pk_in_peek(r->in, PK_PROBE_BYTES, &head);
            r->format = pk_format_probe(head, head_size, name, NULL);
            if (r->format && !(r->format->flags & PK_FORMAT_TEXT))
                r->format = NULL;
        }
    }
    free(name);
    if (!r->format) {
        const char *kind = unsupported_compression(head, head_size);
        if (kind)
            return pk_error_set(err, PK_ERR_INPUT, 0,
                                "the file is compressed with %s, which profkit does not read: "
                                "decompress it first",
                                kind);
        return pk_error_set(err, PK_ERR_INPUT, 0,
                            "not a profile format profkit reads (see `profkit formats`; "
                            "--from names the format)");
    }
    return PK_OK;
}

static pk_reader *reader_new(void)
{
    pk_reader *r = calloc(1, sizeof *r);
    if (r) {
        r->fd = -1;
        r->in = &r->raw;
    }
    return r;
}

pk_status pk_reader_open_file(const char *path, const pk_format *format, pk_reader **out,
                              pk_error *err)
{
    *out = NULL;
    pk_reader *r = reader_new();
    if (!r)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    bool use_stdin = strcmp(path, "-") == 0;
    int fd = use_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        free(r);
        return pk_error_set(err, PK_ERR_IO, PK_NO_OFFSET, "cannot open: %s", strerror(errno));
    }
    if (!use_stdin)
        r->fd = fd;
    struct stat st;
    uint64_t size_hint = 0;
    if (fstat(fd, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            reader_free(r);
            return pk_error_set(err, PK_ERR_IO, PK_NO_OFFSET, "is a directory");
        }
        if (S_ISREG(st.st_mode))
            size_hint = (uint64_t)st.st_size;
    }
    pk_status status = pk_input_init_fd(&r->raw, fd, size_hint, err);
    if (status == PK_OK)
        status = reader_start(r, path, format, err);
    if (status == PK_OK && !use_stdin &&
        !(r->source_name = probe_name(pk_path_basename(path), r->compression != NULL)))
        status = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    if (status != PK_OK) {
        reader_free(r);
        return status;
    }
    *out = r;
    return PK_OK;
}

pk_status pk_reader_open_memory(const void *data, size_t size, const pk_format *format,
                                pk_reader **out, pk_error *err)
{
    *out = NULL;
    pk_reader *r = reader_new();
    if (!r)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    pk_input_init_memory(&r->raw, data, size);
    pk_status status = reader_start(r, NULL, format, err);
    if (status != PK_OK) {
        reader_free(r);
        return status;
    }
    *out = r;
    return PK_OK;
}

const pk_format *pk_reader_format(const pk_reader *r)
{
    return r->format;
}

const char *pk_reader_compression(const pk_reader *r)
{
    return r->compression;
}

void pk_reader_close(pk_reader *r)
{
    if (r)
        reader_free(r);
}

/* Before a reader or dumper runs: it may run once, and it must exist. */
static pk_status reader_claim(pk_reader *r, bool dump, const pk_read_options *options,
                              pk_error *err)
{
    if (r->used)
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET, "the input was already read");
    r->used = true;
    if (dump ? !r->format->dump : !r->format->read)
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET,
                            dump ? "profkit has no record dump for %s files"
                                 : "profkit cannot read %s files",
                            r->format->name);
    r->raw.progress = options ? options->progress : NULL;
    r->raw.progress_context = options ? options->progress_context : NULL;
    pk_error_clear(err);
    return PK_OK;
}

/* What the bytes a reader sees are, when they are not the stored ones: offsets count them. */
static const char *offsets_of(const pk_reader *r)
{
    if (r->decoding)
        return r->compression ? "UTF-8 bytes decoded from decompressed UTF-16"
                              : "UTF-8 bytes decoded from UTF-16";
    return r->compression ? "decompressed bytes" : NULL;
}

/* What the format returned, corrected by the input: a source that failed (an I/O error,
 * damaged compressed data) explains the end of the stream better than the format can. Returns
 * what offsets in err count when they are not the stored bytes, else NULL. */
static const char *reader_outcome(const pk_reader *r, pk_status *status, pk_error *err)
{
    const pk_error *failure = pk_input_failure(r->in);
    if (failure && *status != PK_ERR_NOMEM && *status != PK_ERR_USAGE) {
        *err = *failure;
        *status = failure->status;
        return NULL; /* the failure's offset is in the stored bytes */
    }
    return *status != PK_OK && err->offset >= 0 ? offsets_of(r) : NULL;
}

/* Says in the message what the offset counts. */
static void note_offsets(pk_error *err, const char *bytes)
{
    char note[128];
    snprintf(note, sizeof note, " (the offset counts %s)", bytes);
    size_t n = strlen(err->message), m = strlen(note);
    if (n + m < sizeof err->message)
        memcpy(err->message + n, note, m + 1);
}

pk_status pk_reader_read(pk_reader *r, const pk_read_options *options, pk_profile **out,
                         pk_error *err)
{
    static const pk_read_options no_options;
    *out = NULL;
    assert(r && r->format); /* an open reader has found its format: opening fails otherwise */
    pk_status status = reader_claim(r, false, options, err);
    if (status != PK_OK)
        return status;
    pk_read_options given = options ? *options : no_options;
    given.format_given = given.format_given || r->format_given;
    options = &given;
    pk_profile *p = pk_profile_new();
    if (!p)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    pk_metadata_of(p)->source_format = pk_intern_cstr(p, r->format->name);
    /* What the format calls its thread ids, for names that tell threads apart (the core's
     * thread_names.c reads it). */
    /* The file's name titles the profile where the input names no product (core/title.h). */
    if ((r->format->thread_id_name &&
         pk_property_set(p, "thread id name", r->format->thread_id_name) != PK_OK) ||
        (r->source_name && r->source_name[0] &&
         pk_property_set(p, PK_SOURCE_FILE_PROPERTY, r->source_name) != PK_OK)) {
        pk_profile_free(p);
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    }
    pk_memory_keep_events(p, !options->memory_sums_only);
    pk_timeline_keep(p, !options->no_timeline);
    r->overflow_offset = PK_NO_OFFSET;
    pk_profile_set_overflow_hook(p, note_overflow, r);
    status = r->format->read(r->in, p, options, err);
    const char *offsets = reader_outcome(r, &status, err);
    status = pk_salvage(p, options, status, err, offsets);
    pk_profile_set_overflow_hook(p, NULL, NULL);
    if (status == PK_OK && (status = check_overflow(r, p, err)) != PK_OK)
        offsets = err->offset >= 0 ? offsets_of(r) : NULL;
    if (status == PK_OK && !pk_profile_complete(p)) {
        status = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
        offsets = NULL;
    }
    if (status != PK_OK) {
        if (offsets)
            note_offsets(err, offsets);
        pk_profile_free(p);
        return status;
    }
    /* Times are measured where the reader gave every thread with samples a timeline; wherever
     * a profile read from a file shows other times, they are placed (see the Firefox writer). */
    pk_metadata_of(p)->times_approximate = !pk_profile_times_measured(p);
    if (r->compression && pk_gzip_trailing_bytes(r->in))
        pk_warn(p, "bytes after the end of the gzip data were ignored");
    *out = p;
    return PK_OK;
}

pk_status pk_reader_dump(pk_reader *r, bool raw, const pk_read_options *options, pk_output *out,
                         pk_error *err)
{
    static const pk_read_options no_options;
    assert(r && r->format); /* an open reader has found its format: opening fails otherwise */
    pk_status status = reader_claim(r, true, options, err);
    if (status != PK_OK)
        return status;
    if (!options)
        options = &no_options;
    status = r->format->dump(r->in, out, raw, options, err);
    const char *offsets = reader_outcome(r, &status, err);
    if (pk_salvage_applies(options, status, err)) {
        /* The records before the damage were printed; the damage is the last line. */
        pk_out_printf(out, "%lld: damaged%s%s%s: %s\n", (long long)err->offset,
                      offsets ? " (the offset counts " : "", offsets ? offsets : "",
                      offsets ? ")" : "", err->message);
        pk_error_clear(err);
        return PK_OK;
    }
    if (status != PK_OK && offsets)
        note_offsets(err, offsets);
    return status;
}

pk_status pk_read_file(const char *path, const pk_format *format, const pk_read_options *options,
                       pk_profile **out, pk_error *err)
{
    pk_reader *r;
    *out = NULL;
    pk_status status = pk_reader_open_file(path, format, &r, err);
    if (status != PK_OK)
        return status;
    status = pk_reader_read(r, options, out, err);
    pk_reader_close(r);
    return status;
}

pk_status pk_read_memory(const void *data, size_t size, const pk_format *format,
                         const pk_read_options *options, pk_profile **out, pk_error *err)
{
    pk_reader *r;
    *out = NULL;
    pk_status status = pk_reader_open_memory(data, size, format, &r, err);
    if (status != PK_OK)
        return status;
    status = pk_reader_read(r, options, out, err);
    pk_reader_close(r);
    return status;
}

pk_status pk_dump_file(const char *path, const pk_format *format, bool raw,
                       const pk_read_options *options, const char *output_path, pk_error *err)
{
    pk_reader *r;
    pk_status status = pk_reader_open_file(path, format, &r, err);
    if (status != PK_OK)
        return status;
    pk_output out;
    status = pk_output_open(&out, output_path, path, err);
    if (status == PK_OK) {
        status = pk_reader_dump(r, raw, options, &out, err);
        if (status == PK_OK) {
            status = pk_output_commit(&out, err);
        } else if (!out.to_file) {
            /* On standard output the records before the damage stay: they are what a person
             * reading a broken file wants to see. A file is not left half-written. */
            pk_output_commit(&out, NULL);
        } else {
            pk_output_abort(&out);
        }
    }
    pk_reader_close(r);
    return status;
}
