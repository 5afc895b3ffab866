/* SPDX-License-Identifier: MIT */
/* The format registry and the read/write entry points.
 *
 * Every file format is one pk_format in one table. A format gives a probe (how likely are these
 * first bytes to be this format), a reader, a writer and a record dumper; any may be absent.
 * Nothing outside src/formats/ names a format: callers find them by name, by extension or by
 * probing the content.
 *
 * Inputs compressed with gzip are decompressed on the way in, whatever the format: readers,
 * probes and dumps see the decompressed bytes.
 *
 * Ownership: formats and their option specs are static and live as long as the program.
 * Profiles read here are new and belong to the caller (pk_profile_free); a reader belongs to
 * the caller until pk_reader_close; buffers from pk_write_memory are the caller's to free().
 * Options and option lists are only read during the call they are given to.
 */
#ifndef PROFKIT_FORMAT_H
#define PROFKIT_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profkit/error.h"
#include "profkit/export.h"
#include "profkit/output.h"
#include "profkit/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The byte stream a reader reads (its layout is internal to the library). */
typedef struct pk_input pk_input;

/* How many leading bytes a probe is shown (fewer when the input is shorter). */
#define PK_PROBE_BYTES 4096
/* Probe scores. */
#define PK_PROBE_NO 0
#define PK_PROBE_EXTENSION 10 /* what a matching file extension alone is worth */
#define PK_PROBE_WEAK 25      /* plausible content, no signature */
#define PK_PROBE_LIKELY 60    /* structure checks out */
#define PK_PROBE_CERTAIN 100  /* magic number matches */

/* Format-specific options, given on the command line as --NAME [VALUE]. A format declares the
 * options its reader and its writer understand; an option applies only to the formats that
 * declare it. */
typedef struct pk_option_spec {
    const char *name;     /* without the leading "--" */
    const char *argument; /* name of its argument in help, NULL for a flag */
    const char *help;
} pk_option_spec;

typedef struct pk_option {
    const char *name;
    const char *value; /* "" for a flag */
} pk_option;

typedef struct pk_option_list {
    const pk_option *items;
    size_t count;
} pk_option_list;

/* Last value given for name, NULL when not given. */
PK_API const char *pk_option_get(const pk_option_list *list, const char *name);
/* The index-th value given for a repeatable option, NULL past the last. */
PK_API const char *pk_option_get_nth(const pk_option_list *list, const char *name, size_t index);

typedef void (*pk_progress_fn)(void *context, uint64_t bytes_done, uint64_t bytes_total);

typedef struct pk_read_options {
    bool salvage;             /* keep what was read before damage, as a warning */
    pk_option_list extra;     /* format-specific options */
    pk_progress_fn progress;  /* called as the input is consumed; may be NULL */
    void *progress_context;
    bool memory_sums_only;    /* keep only the sums of memory events, not the events (what
                               * reports and outputs that do not list events need; see
                               * pk_memory_keep_events) */
    bool no_timeline;         /* keep only what each thread's times were, not its timed
                               * samples (what reports and outputs that show no time need; see
                               * pk_timeline_keep) */
    bool format_given;        /* the format was named (`--from`), not found by probing: a reader
                               * then reads leniently what it would otherwise refuse as not its
                               * format (folded stacks among other lines). pk_reader_read sets it
                               * when the reader was opened with a format. */
} pk_read_options;

typedef struct pk_write_options {
    uint32_t value;       /* value type to write where a format carries one; PK_NONE = default
                           * (writers always see a concrete index, resolved by pk_write_*) */
    bool with_threads;    /* formats without threads: put the thread name as the root frame */
    pk_option_list extra; /* format-specific options */
    const char *title;    /* visual outputs; NULL = derived from the profile */
    pk_compression compression; /* AUTO: gzip for ".gz" paths and formats usually compressed */
    int compression_level;      /* gzip level 1-9; 0 = 1, the fastest; any other is refused
                                 * (PK_ERR_USAGE) */
} pk_write_options;

enum pk_format_flags {
    PK_FORMAT_GZIP_BY_DEFAULT = 1u << 0, /* written gzip-compressed unless asked otherwise */
    PK_FORMAT_TEXT = 1u << 1,            /* text: read as UTF-8, UTF-16 with a byte-order mark
                                          * decoded to UTF-8 first */
    PK_FORMAT_POSITIVE_WEIGHTS = 1u << 2, /* the format has no negative weights: its writer leaves
                                           * out what sums to zero or less */
    PK_FORMAT_LISTS_MEMORY_EVENTS = 1u << 3, /* the writer lists every memory event: read the
                                              * input keeping them (not memory_sums_only) */
    PK_FORMAT_SHOWS_TIME = 1u << 4 /* the writer shows samples where they happened: read the
                                    * input keeping its timelines (not no_timeline) */
};

typedef struct pk_format {
    const char *name;               /* registry name, as given to --from / --to */
    const char *const *aliases;     /* NULL-terminated, may be NULL */
    const char *const *extensions;  /* NULL-terminated, with the dot: ".bsprof"; may be NULL */
    const char *description;        /* one line */
    unsigned flags;                 /* pk_format_flags */
    /* Scores the first bytes (at most PK_PROBE_BYTES; fewer when the input is shorter) from
     * PK_PROBE_NO to PK_PROBE_CERTAIN. */
    int (*probe)(const uint8_t *data, size_t size);
    pk_status (*read)(pk_input *in, pk_profile *p, const pk_read_options *options,
                      pk_error *err);
    pk_status (*write)(const pk_profile *p, pk_output *out, const pk_write_options *options,
                       pk_error *err);
    /* Prints the file record by record with byte offsets; raw prints every field unresolved. */
    pk_status (*dump)(pk_input *in, pk_output *out, bool raw, const pk_read_options *options,
                      pk_error *err);
    const pk_option_spec *read_options;  /* terminated by an entry with name NULL; may be NULL */
    const pk_option_spec *write_options; /* likewise */
    /* What the format's thread ids are, for telling apart threads of one name ("module": a
     * .bsprof thread is a module); NULL: "tid". */
    const char *thread_id_name;
} pk_format;

/* The registry, in a stable order. */
PK_API size_t pk_format_count(void);
PK_API const pk_format *pk_format_at(size_t index);
/* By registry name or alias, case-insensitively; NULL when unknown. */
PK_API const pk_format *pk_format_by_name(const char *name);
/* By the extension of path (longest matching extension wins; a final ".gz" is looked through:
 * "x.folded.gz" is folded); need_writer restricts the search to formats with a writer. NULL
 * when none matches. */
PK_API const pk_format *pk_format_by_extension(const char *path, bool need_writer);
/* Highest-scoring readable format for these first bytes; path (may be NULL) breaks ties by
 * extension. NULL when nothing scores above PK_PROBE_NO. *score receives the score. */
PK_API const pk_format *pk_format_probe(const uint8_t *data, size_t size, const char *path,
                                        int *score);
/* The spec of option name among the format's read options (writer false) or write options
 * (writer true); NULL when the format does not declare it. */
PK_API const pk_option_spec *pk_format_option(const pk_format *format, const char *name,
                                              bool writer);

/* ---- opened inputs ---------------------------------------------------------------------------- */

/* An input opened for reading: its format is known (given, or found by probing the first
 * bytes) before anything else is read, so a caller can check its options against it. */
typedef struct pk_reader pk_reader;

/* Opens path ("-" = standard input) with format (NULL = probe the content). Fails for a
 * missing, empty or unreadable file, and for content no format recognises. */
PK_API pk_status pk_reader_open_file(const char *path, const pk_format *format, pk_reader **out,
                                     pk_error *err);
/* The same over [data, data + size), which must stay alive until pk_reader_close. */
PK_API pk_status pk_reader_open_memory(const void *data, size_t size, const pk_format *format,
                                       pk_reader **out, pk_error *err);
PK_API const pk_format *pk_reader_format(const pk_reader *r);
/* The compression the input was read through ("gzip"), NULL for none. */
PK_API const char *pk_reader_compression(const pk_reader *r);
/* Reads the whole input into a new profile (*out). May be called once per reader. With
 * options->salvage, a reader keeps what it read before damage, records the damage as a warning
 * and succeeds. */
PK_API pk_status pk_reader_read(pk_reader *r, const pk_read_options *options, pk_profile **out,
                                pk_error *err);
/* Prints the records of the input to out with the format's dumper. May be called once per
 * reader, instead of pk_reader_read. */
PK_API pk_status pk_reader_dump(pk_reader *r, bool raw, const pk_read_options *options,
                                pk_output *out, pk_error *err);
/* NULL is allowed. */
PK_API void pk_reader_close(pk_reader *r);

/* ---- whole-file entry points ----------------------------------------------------------------- */

/* Reads path ("-" = standard input) with format (NULL = probe the content): open, read and
 * close in one call. On success *out receives a new profile. */
PK_API pk_status pk_read_file(const char *path, const pk_format *format,
                              const pk_read_options *options, pk_profile **out, pk_error *err);
PK_API pk_status pk_read_memory(const void *data, size_t size, const pk_format *format,
                                const pk_read_options *options, pk_profile **out,
                                pk_error *err);

/* Writes to path ("-" = standard output) through a temporary file that is renamed into place
 * only on success. Refuses to write over protect_path (the input), which may be NULL. */
PK_API pk_status pk_write_file(const pk_profile *p, const char *path, const pk_format *format,
                               const pk_write_options *options, const char *protect_path,
                               pk_error *err);
/* Writes p to an opened output (which the caller then finishes or discards). */
PK_API pk_status pk_write_output(const pk_profile *p, pk_output *out, const pk_format *format,
                                 const pk_write_options *options, pk_error *err);
/* Writes into a malloc'ed buffer (*data, *size), for tests and embedding. */
PK_API pk_status pk_write_memory(const pk_profile *p, const pk_format *format,
                                 const pk_write_options *options, char **data, size_t *size,
                                 pk_error *err);
/* Prints the records of path ("-" = standard input) to output_path ("-" = standard output)
 * with the format's dumper (format NULL = probe the content). */
PK_API pk_status pk_dump_file(const char *path, const pk_format *format, bool raw,
                              const pk_read_options *options, const char *output_path,
                              pk_error *err);

#ifdef __cplusplus
}
#endif

#endif
