/* SPDX-License-Identifier: MIT */
/* Shared pieces of the profkit command: option parsing with the formats' own options, reading
 * a profile with messages, and exit statuses. Each command lives in its own cmd_*.c file. */
#ifndef PK_CLI_H
#define PK_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "profkit/format.h"
#include "profkit/label_select.h"
#include "profkit/output.h"
#include "profkit/profile.h"
#include "profkit/source_names.h"
#include "profkit/symbolize.h"

enum {
    PK_EXIT_OK = 0,
    PK_EXIT_FAILURE = 1, /* bad input or I/O failure */
    PK_EXIT_USAGE = 2
};

typedef struct pk_command {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv);
} pk_command;

/* Options every command that reads a profile accepts. */
typedef struct cli_input_options {
    const char *from;   /* --from FORMAT */
    bool salvage;       /* --salvage */
    bool quiet;         /* --quiet */
    bool keep_warnings; /* the command shows the warnings itself: do not print them */
    pk_option *extra;   /* format-specific options, in command-line order */
    size_t extra_count;
    bool no_symbols;    /* --no-symbols: leave native addresses unnamed */
    const char **symbol_paths; /* --symbol-path DIR, repeatable */
    size_t symbol_path_count;
    const char *source; /* --source DIR|ZIP: the channel source that names anonymous functions */
    const char **labels; /* --label KEY=VALUE, repeatable: the rows kept */
    size_t label_count;
    const char *threads_by; /* --threads-by LABEL: a thread per value of the label */
} cli_input_options;

/* A command's own long option, for cli_parse. */
typedef struct cli_option {
    const char *name;
    int has_arg; /* 0 flag, 1 required argument */
    int key;     /* returned to the command's handler: a short option letter, or 256..0xfff */
} cli_option;

/* The keys of cli_output_options, for commands that take some of those options in a table of
 * their own and pass them on to cli_output_option. */
enum {
    CLI_KEY_OUTPUT = 'o',
    CLI_KEY_TO = 0x800,
    CLI_KEY_VALUE,
    CLI_KEY_WITH_THREADS,
    CLI_KEY_TITLE,
    CLI_KEY_COMPRESS,
    CLI_KEY_COMPRESSION
};

/* The options of commands that write a profile (convert, merge, diff). */
typedef struct cli_output_args {
    const char *output; /* -o, --output; NULL = standard output */
    const char *to;     /* --to FORMAT */
    const char *value;  /* --value NAME */
    const char *title;  /* --title TEXT */
    bool with_threads;  /* --with-threads */
    pk_compression compression; /* --compress, --compression LEVEL */
    int compression_level;
} cli_output_args;

/* What a command that reads profiles accepts besides --from, --salvage, --quiet and the
 * formats' reader options: cli_parse knows, and --help lists, these only where given. */
enum {
    CLI_ACCEPTS_NAMES = 1,         /* --symbol-path, --no-symbols, --source: the profile read
                                      is named */
    CLI_ACCEPTS_WRITER_OPTIONS = 2, /* the formats' writer options: any format may be written */
    CLI_ACCEPTS_LABELS = 4          /* --label, --threads-by: rows selected and moved to threads
                                       by their labels after reading */
};

/* Called for each of the command's own options; returns 0, or an exit status to stop with. */
typedef int (*cli_option_handler)(void *context, int key, const char *value);

/* Parses argv: the command's own options and, when input is not NULL, the common input
 * options and the formats' reader options, with what accepts (CLI_ACCEPTS_*) adds (format
 * options are collected into input->extra). Positional
 * arguments are left in *positional / *positional_count (they point into argv). Prints usage
 * errors itself and returns PK_EXIT_USAGE for them; help_text is printed for --help (returns
 * -1 then, meaning "exit 0"). */
int cli_parse(int argc, char **argv, const cli_option *own, cli_option_handler handler,
              void *context, cli_input_options *input, unsigned accepts, const char *help_text,
              char ***positional, int *positional_count);

/* The option table of cli_output_args (terminated by a NULL name) and its handler, whose
 * context is a cli_output_args. */
extern const struct cli_option cli_output_options[];
int cli_output_option(void *context, int key, const char *value);
/* The output format from --to, else from the output name; prints why not and returns NULL. */
const pk_format *cli_output_format(const cli_output_args *args, const char *command);
/* The writer's options: input's format options and, when source is not NULL, "source" as
 * source; *count of them. Owned (free); NULL, said, when memory runs out. */
pk_option *cli_writer_extra(const cli_input_options *input, const char *source, size_t *count);
/* Writes p as args ask, with the format options of input; protect_path is never written over.
 * Returns an exit status. */
int cli_write_profile(const pk_profile *p, const cli_output_args *args, const pk_format *to,
                      const cli_input_options *input, const char *protect_path,
                      const char *shown_name);

/* The inputs of a command, opened to learn their formats before any is read, so that options
 * are checked first: a format option must belong to the reader of an input or to the writer
 * of the output. */
typedef struct cli_inputs {
    char **paths;
    size_t count;
    const pk_format **formats;
    pk_reader *stdin_reader; /* standard input cannot be opened twice: kept open */
    bool memory_event_list;  /* the output lists memory events: keep them, not only their sums */
    bool shows_time;         /* the output shows time: keep each thread's timed samples */
    pk_source *source;       /* --source, opened once for every input */
} cli_inputs;

/* Opens each input (its format from --from or its content) and checks the format options
 * against the input formats and output (the format the command writes, NULL for none); opens
 * the --source. Prints errors; returns an exit status. */
int cli_inputs_open(cli_inputs *inputs, char **paths, size_t count,
                    const cli_input_options *input, const pk_format *output);
/* Reads input index with the common input options, printing errors as
 * "profkit: FILE: byte OFFSET: message" and warnings unless quiet; names native addresses from
 * the binaries and anonymous BrightScript functions from the --source. Returns an exit
 * status. With --label or --threads-by, the rows are selected and moved to threads by their
 * labels (pk_select_by_labels). */
int cli_inputs_read(cli_inputs *inputs, size_t index, const cli_input_options *input,
                    pk_profile **out);
/* Prints the records of input index with its format's dumper (--raw: every field as stored)
 * to standard output, with the common input options. Returns an exit status. */
int cli_inputs_dump(cli_inputs *inputs, size_t index, const cli_input_options *input, bool raw);
void cli_inputs_close(cli_inputs *inputs);
/* The three in one, for a single input. */
int cli_read_profile(const char *path, const cli_input_options *input, const pk_format *output,
                     pk_profile **out);
/* How a path is shown in messages: "standard input" for "-". */
const char *cli_shown_name(const char *path);

/* Completes an output to standard output (out may be NULL when status is an error): finishes
 * it when status is PK_OK, else discards it; prints err about what failed. Returns an exit
 * status. */
int cli_finish_output(pk_output *out, pk_status status, pk_error *err);

/* Resolves --value NAME (NULL = default) to an index, or prints the values this profile has
 * and returns PK_NONE. */
uint32_t cli_pick_value(const pk_profile *p, const char *name, const char *path);

/* Looks a format up by name for --from/--to, printing the known names when unknown. */
const pk_format *cli_format_named(const char *name, bool need_reader, bool need_writer);

void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints err about file (which may be NULL) and returns the exit status for its status. */
int cli_report_error(const char *file, const pk_error *err);
int cli_exit_status(pk_status status);

void cli_free_input_options(cli_input_options *input);

/* Progress bar on standard error while reading (only when it is a terminal). */
void cli_progress(void *context, uint64_t done, uint64_t total);
void cli_progress_done(void);

/* The help text of the format-specific options, for --help. */
void cli_print_format_options(FILE *f, bool readers, bool writers);

/* The commands, one per cmd_*.c file. */
int pk_cmd_convert(int argc, char **argv);
int pk_cmd_info(int argc, char **argv);
int pk_cmd_formats(int argc, char **argv);
int pk_cmd_dump(int argc, char **argv);
int pk_cmd_report(int argc, char **argv);
int pk_cmd_diff(int argc, char **argv);
int pk_cmd_merge(int argc, char **argv);
int pk_cmd_view(int argc, char **argv);
int pk_cmd_capture(int argc, char **argv);
/* commands:declarations */

extern const pk_command pk_commands[];
extern const size_t pk_command_count;

#endif
