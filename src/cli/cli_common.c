/* SPDX-License-Identifier: MIT */
/* The pieces every command shares: option parsing with the formats' own options, opening and
 * reading the inputs (with the symbolization pass), writing a profile, messages and exit
 * statuses. */
#include <ctype.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

enum {
    KEY_HELP = 0x1000,
    KEY_FROM,
    KEY_SALVAGE,
    KEY_QUIET,
    KEY_NO_SYMBOLS,
    KEY_SYMBOL_PATH,
    KEY_SOURCE,
    KEY_LABEL,
    KEY_THREADS_BY,
    KEY_FORMAT_OPTION = 0x2000 /* + index into the collected format options */
};

void cli_error(const char *fmt, ...)
{
    va_list ap;
    fputs("profkit: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int cli_exit_status(pk_status status)
{
    switch (status) {
    case PK_OK:
        return PK_EXIT_OK;
    case PK_ERR_USAGE:
        return PK_EXIT_USAGE;
    default:
        return PK_EXIT_FAILURE;
    }
}

int cli_report_error(const char *file, const pk_error *err)
{
    const char *message = err->message[0] ? err->message : pk_status_name(err->status);
    if (file && err->offset >= 0)
        cli_error("%s: byte %lld: %s", file, (long long)err->offset, message);
    else if (file)
        cli_error("%s: %s", file, message);
    else
        cli_error("%s", message);
    return cli_exit_status(err->status);
}

/* Every distinct format-specific option of the registry, in registry order: the readers'
 * options, and the writers' too when with_writers. */
static const pk_option_spec *format_options[256];
static size_t format_option_count;

static void collect_format_options(bool with_writers)
{
    format_option_count = 0;
    for (size_t i = 0; i < pk_format_count(); i++) {
        const pk_format *f = pk_format_at(i);
        const pk_option_spec *lists[2] = {f->read_options, with_writers ? f->write_options : NULL};
        for (size_t l = 0; l < 2; l++) {
            for (const pk_option_spec *o = lists[l]; o && o->name; o++) {
                bool seen = false;
                for (size_t k = 0; k < format_option_count && !seen; k++)
                    seen = strcmp(format_options[k]->name, o->name) == 0;
                if (!seen && format_option_count < sizeof format_options / sizeof *format_options)
                    format_options[format_option_count++] = o;
            }
        }
    }
}

/* The options of the input that only some commands take, with the flag that admits them. */
static const struct {
    struct option option;
    unsigned accepts;
} input_options[] = {
    {{"from", required_argument, NULL, KEY_FROM}, 0},
    {{"salvage", no_argument, NULL, KEY_SALVAGE}, 0},
    {{"quiet", no_argument, NULL, KEY_QUIET}, 0},
    {{"no-symbols", no_argument, NULL, KEY_NO_SYMBOLS}, CLI_ACCEPTS_NAMES},
    {{"symbol-path", required_argument, NULL, KEY_SYMBOL_PATH}, CLI_ACCEPTS_NAMES},
    {{"source", required_argument, NULL, KEY_SOURCE}, CLI_ACCEPTS_NAMES},
    {{"label", required_argument, NULL, KEY_LABEL}, CLI_ACCEPTS_LABELS},
    {{"threads-by", required_argument, NULL, KEY_THREADS_BY}, CLI_ACCEPTS_LABELS},
};

/* An option the command does not take (none of longs), which another command or a writer
 * takes: the usage error says so rather than calling it unknown. Returns whether it was
 * reported. */
static bool report_option_elsewhere(const char *command, const char *arg,
                                    const struct option *longs)
{
    if (strncmp(arg, "--", 2) != 0)
        return false;
    char name[64];
    size_t length = strcspn(arg + 2, "=");
    if (length == 0 || length >= sizeof name)
        return false;
    memcpy(name, arg + 2, length);
    name[length] = '\0';
    for (const struct option *o = longs; o->name; o++)
        if (strcmp(o->name, name) == 0)
            return false; /* taken, with its argument missing */
    for (size_t i = 0; i < sizeof input_options / sizeof *input_options; i++) {
        if (strcmp(input_options[i].option.name, name) == 0) {
            cli_error("%s: --%s does not apply to %s (see `profkit %s --help`)", command, name,
                      command, command);
            return true;
        }
    }
    for (size_t i = 0; i < pk_format_count(); i++) {
        const pk_format *f = pk_format_at(i);
        if (pk_format_option(f, name, true) && !pk_format_option(f, name, false)) {
            cli_error("%s: --%s is an option of %s output; %s writes no %s file (see `profkit "
                      "%s --help`)",
                      command, name, f->name, command, f->name, command);
            return true;
        }
    }
    return false;
}

void cli_print_format_options(FILE *f, bool readers, bool writers)
{
    bool header = false;
    for (size_t i = 0; i < pk_format_count(); i++) {
        const pk_format *fmt = pk_format_at(i);
        const pk_option_spec *lists[2] = {readers ? fmt->read_options : NULL,
                                          writers ? fmt->write_options : NULL};
        for (size_t l = 0; l < 2; l++) {
            for (const pk_option_spec *o = lists[l]; o && o->name; o++) {
                if (!header) {
                    fprintf(f, "\nFormat options:\n");
                    header = true;
                }
                char left[64];
                snprintf(left, sizeof left, "--%s%s%s", o->name, o->argument ? " " : "",
                         o->argument ? o->argument : "");
                fprintf(f, "  %-24s %s (%s %s)\n", left, o->help, fmt->name,
                        l == 0 ? "input" : "output");
            }
        }
    }
}

int cli_parse(int argc, char **argv, const cli_option *own, cli_option_handler handler,
              void *context, cli_input_options *input, unsigned accepts, const char *help_text,
              char ***positional, int *positional_count)
{
    struct option longs[300];
    size_t n = 0;
    /* No leading "+": options may follow the input name, so getopt permutes. */
    char shorts[64] = "h";
    size_t short_len = 1;
    for (const cli_option *o = own; o && o->name; o++) {
        longs[n++] = (struct option){o->name, o->has_arg ? required_argument : no_argument, NULL,
                                     o->key};
        if (o->key < 256 && isalpha(o->key) && short_len + 2 < sizeof shorts) {
            shorts[short_len++] = (char)o->key;
            if (o->has_arg)
                shorts[short_len++] = ':';
            shorts[short_len] = '\0';
        }
    }
    longs[n++] = (struct option){"help", no_argument, NULL, KEY_HELP};
    if (input) {
        memset(input, 0, sizeof *input);
        for (size_t i = 0; i < sizeof input_options / sizeof *input_options; i++)
            if ((input_options[i].accepts & accepts) == input_options[i].accepts)
                longs[n++] = input_options[i].option;
        collect_format_options(accepts & CLI_ACCEPTS_WRITER_OPTIONS);
        for (size_t i = 0; i < format_option_count && n + 1 < sizeof longs / sizeof *longs; i++)
            longs[n++] = (struct option){format_options[i]->name,
                                         format_options[i]->argument ? required_argument
                                                                     : no_argument,
                                         NULL, KEY_FORMAT_OPTION + (int)i};
    }
    longs[n] = (struct option){0, 0, 0, 0};

    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        if (c == 'h' || c == KEY_HELP) {
            fputs(help_text, stdout);
            if (input && (accepts & CLI_ACCEPTS_NAMES))
                fputs("\nNative code addresses (gperftools, pprof) are named from the binaries "
                      "they came from:\n"
                      "      --symbol-path DIR    look for binaries and debug files under DIR "
                      "first\n"
                      "                           (repeatable)\n"
                      "      --no-symbols         keep the addresses: read no binary\n"
                      "\nAnonymous BrightScript functions ($anon_...) are named from the "
                      "channel's source:\n"
                      "      --source DIR|ZIP     the channel's source tree or package zip: a "
                      "function\n"
                      "                           defined as `name = function(` or `name: sub(` "
                      "is\n"
                      "                           called name\n",
                      stdout);
            if (input && (accepts & CLI_ACCEPTS_LABELS))
                fputs("\nSamples selected and grouped by their labels (pprof's sample labels):\n"
                      "      --label KEY=VALUE    only samples with label KEY of VALUE (a number "
                      "for\n"
                      "                           numeric labels); repeatable: values of one KEY "
                      "are\n"
                      "                           alternatives, all KEYs must match\n"
                      "      --threads-by LABEL   one thread per value of LABEL (samples without "
                      "it\n"
                      "                           keep their thread)\n",
                      stdout);
            if (input)
                cli_print_format_options(stdout, true, accepts & CLI_ACCEPTS_WRITER_OPTIONS);
            return -1;
        }
        if (c == '?' || c == ':') {
            const char *arg = argv[optind - 1];
            if (optopt > 0 && optopt < 256 && isalpha(optopt))
                cli_error("%s: option -%c %s", argv[0], optopt,
                          strchr(shorts, optopt) ? "needs an argument" : "is unknown");
            else if (!report_option_elsewhere(argv[0], arg, longs))
                cli_error("%s: option '%s' is unknown or needs an argument (see `profkit %s "
                          "--help`)",
                          argv[0], arg, argv[0]);
            return PK_EXIT_USAGE;
        }
        if (input && c == KEY_FROM) {
            input->from = optarg;
        } else if (input && c == KEY_SALVAGE) {
            input->salvage = true;
        } else if (input && c == KEY_QUIET) {
            input->quiet = true;
        } else if (input && c == KEY_SOURCE) {
            input->source = optarg;
        } else if (input && c == KEY_THREADS_BY) {
            input->threads_by = optarg;
        } else if (input && c == KEY_LABEL) {
            if (optarg[0] == '=' || !strchr(optarg, '=')) {
                cli_error("%s: --label takes KEY=VALUE, not '%s'", argv[0], optarg);
                return PK_EXIT_USAGE;
            }
            const char **grown = realloc(input->labels, (input->label_count + 1) * sizeof *grown);
            if (!grown) {
                cli_error("out of memory");
                return PK_EXIT_FAILURE;
            }
            input->labels = grown;
            input->labels[input->label_count++] = optarg;
        } else if (input && c == KEY_NO_SYMBOLS) {
            input->no_symbols = true;
        } else if (input && c == KEY_SYMBOL_PATH) {
            const char **grown = realloc(input->symbol_paths,
                                         (input->symbol_path_count + 1) * sizeof *grown);
            if (!grown) {
                cli_error("out of memory");
                return PK_EXIT_FAILURE;
            }
            input->symbol_paths = grown;
            input->symbol_paths[input->symbol_path_count++] = optarg;
        } else if (input && c >= KEY_FORMAT_OPTION) {
            pk_option *grown = realloc(input->extra, (input->extra_count + 1) * sizeof *grown);
            if (!grown) {
                cli_error("out of memory");
                return PK_EXIT_FAILURE;
            }
            input->extra = grown;
            input->extra[input->extra_count++] =
                (pk_option){format_options[c - KEY_FORMAT_OPTION]->name, optarg ? optarg : ""};
        } else {
            int status = handler ? handler(context, c, optarg) : PK_EXIT_USAGE;
            if (status != 0)
                return status;
        }
    }
    *positional = argv + optind;
    *positional_count = argc - optind;
    return 0;
}

void cli_free_input_options(cli_input_options *input)
{
    free(input->extra);
    input->extra = NULL;
    input->extra_count = 0;
    free(input->symbol_paths);
    input->symbol_paths = NULL;
    input->symbol_path_count = 0;
    free(input->labels);
    input->labels = NULL;
    input->label_count = 0;
}

const pk_format *cli_format_named(const char *name, bool need_reader, bool need_writer)
{
    const pk_format *f = pk_format_by_name(name);
    if (f && (!need_reader || f->read) && (!need_writer || f->write))
        return f;
    fprintf(stderr, "profkit: %s format '%s'; %s:", f ? "cannot use the" : "unknown", name,
            need_writer ? "formats profkit writes" : "formats profkit reads");
    for (size_t i = 0; i < pk_format_count(); i++) {
        const pk_format *g = pk_format_at(i);
        if ((!need_reader || g->read) && (!need_writer || g->write))
            fprintf(stderr, " %s", g->name);
    }
    fputc('\n', stderr);
    return NULL;
}

const char *cli_shown_name(const char *path)
{
    return strcmp(path, "-") == 0 ? "standard input" : path;
}

/* Prints why a read failed; the salvage hint only where salvage would keep something. */
static int report_read_error(const char *path, const cli_input_options *input,
                             const pk_error *err)
{
    int exit_status = cli_report_error(cli_shown_name(path), err);
    if (err->status == PK_ERR_INPUT && err->salvageable && !input->salvage)
        fprintf(stderr, "profkit: (--salvage keeps what can be read before the damage)\n");
    return exit_status;
}

/* Lists "NAME input" / "NAME output" for every format declaring the option. */
static void print_option_owners(const char *name)
{
    const char *separator = "";
    for (size_t i = 0; i < pk_format_count(); i++) {
        const pk_format *f = pk_format_at(i);
        for (int writer = 0; writer <= 1; writer++) {
            if (pk_format_option(f, name, writer)) {
                fprintf(stderr, "%s%s %s", separator, f->name, writer ? "output" : "input");
                separator = ", ";
            }
        }
    }
}

/* Every format option must belong to the reader of one of the inputs or to the output's
 * writer: an option that would be ignored is a mistake the user should hear about. */
static int check_format_options(const cli_input_options *input, const pk_format *const *formats,
                                size_t count, const pk_format *output)
{
    for (size_t i = 0; i < input->extra_count; i++) {
        const char *name = input->extra[i].name;
        bool applies = output && pk_format_option(output, name, true);
        for (size_t k = 0; k < count && !applies; k++)
            applies = formats[k] && pk_format_option(formats[k], name, false);
        if (applies)
            continue;
        fprintf(stderr, "profkit: --%s is an option of ", name);
        print_option_owners(name);
        fprintf(stderr, "; it does not apply to ");
        for (size_t k = 0; k < count; k++)
            fprintf(stderr, "%s%s", k ? ", " : "", formats[k] ? formats[k]->name : "?");
        fprintf(stderr, " input%s%s%s\n", output ? " or " : "", output ? output->name : "",
                output ? " output" : "");
        return PK_EXIT_USAGE;
    }
    return PK_EXIT_OK;
}

int cli_inputs_open(cli_inputs *inputs, char **paths, size_t count,
                    const cli_input_options *input, const pk_format *output)
{
    memset(inputs, 0, sizeof *inputs);
    inputs->paths = paths;
    inputs->count = count;
    inputs->memory_event_list = output && (output->flags & PK_FORMAT_LISTS_MEMORY_EVENTS);
    inputs->shows_time = output && (output->flags & PK_FORMAT_SHOWS_TIME);
    inputs->formats = calloc(count ? count : 1, sizeof *inputs->formats);
    if (!inputs->formats) {
        cli_error("out of memory");
        return PK_EXIT_FAILURE;
    }
    const pk_format *given = NULL;
    if (input->from && !(given = cli_format_named(input->from, true, false)))
        return PK_EXIT_USAGE;
    size_t stdin_uses = 0;
    for (size_t i = 0; i < count; i++)
        stdin_uses += strcmp(paths[i], "-") == 0;
    if (stdin_uses > 1) {
        cli_error("standard input ('-') can be read only once");
        return PK_EXIT_USAGE;
    }
    for (size_t i = 0; i < count; i++) {
        pk_reader *r;
        pk_error err;
        pk_error_clear(&err);
        if (pk_reader_open_file(paths[i], given, &r, &err) != PK_OK)
            return report_read_error(paths[i], input, &err);
        inputs->formats[i] = pk_reader_format(r);
        if (strcmp(paths[i], "-") == 0)
            inputs->stdin_reader = r;
        else
            pk_reader_close(r);
    }
    int status = check_format_options(input, inputs->formats, count, output);
    if (status == PK_EXIT_OK && input->source) {
        pk_error err;
        pk_error_clear(&err);
        if (pk_source_open(input->source, &inputs->source, &err) != PK_OK)
            return cli_report_error(NULL, &err);
    }
    return status;
}

/* The reader of input index: standard input's, kept open since cli_inputs_open, or the file
 * opened again. */
static pk_status take_reader(cli_inputs *inputs, size_t index, const cli_input_options *input,
                             pk_reader **r, pk_error *err)
{
    const char *path = inputs->paths[index];
    *r = NULL;
    if (strcmp(path, "-") == 0) {
        *r = inputs->stdin_reader;
        inputs->stdin_reader = NULL;
        return PK_OK;
    }
    /* Probed again rather than opened as the format found, so that the reader knows the
     * format was not given (pk_read_options.format_given): the same bytes, the same format. */
    return pk_reader_open_file(path, input->from ? inputs->formats[index] : NULL, r, err);
}

int cli_inputs_read(cli_inputs *inputs, size_t index, const cli_input_options *input,
                    pk_profile **out)
{
    const char *path = inputs->paths[index];
    *out = NULL;
    pk_reader *r = NULL;
    pk_error err;
    pk_error_clear(&err);
    pk_status status = take_reader(inputs, index, input, &r, &err);
    if (status == PK_OK) {
        pk_read_options options = {
            .salvage = input->salvage,
            .extra = {input->extra, input->extra_count},
            .progress = input->quiet ? NULL : cli_progress,
            .progress_context = NULL,
            .memory_sums_only = !inputs->memory_event_list,
            .no_timeline = !inputs->shows_time,
        };
        status = pk_reader_read(r, &options, out, &err);
        cli_progress_done();
    }
    pk_reader_close(r);
    if (status == PK_OK && !input->no_symbols && pk_profile_has_unresolved_frames(*out)) {
        /* Native addresses are named from the binaries they came from. */
        pk_symbolize_options symbols = {input->symbol_paths, input->symbol_path_count, NULL, 0};
        pk_profile *named;
        status = pk_symbolize_consume(*out, &symbols, &named, &err);
        *out = named;
    }
    if (status == PK_OK && inputs->source) {
        pk_profile *named;
        status = pk_name_anonymous_functions(*out, inputs->source, &named, NULL, &err);
        pk_profile_free(*out);
        *out = named;
        const char *counts = named ? pk_property_get(named, "anonymous-functions") : NULL;
        if (counts && !input->quiet && !input->keep_warnings)
            cli_error("%s: anonymous functions: %s", cli_shown_name(path), counts);
    }
    if (status == PK_OK && (input->label_count || input->threads_by)) {
        pk_profile *selected;
        status = pk_select_by_labels(*out, (const char *const *)input->labels,
                                     input->label_count, input->threads_by, &selected, &err);
        pk_profile_free(*out);
        *out = selected;
    }
    if (status != PK_OK)
        return report_read_error(path, input, &err);
    if (!input->quiet && !input->keep_warnings) {
        const char *shown = cli_shown_name(path);
        for (size_t i = 0; i < pk_warning_count(*out); i++)
            cli_error("%s: warning: %s", shown, pk_warning_at(*out, i));
        if (pk_warnings_dropped(*out))
            cli_error("%s: warning: %zu more warnings", shown, pk_warnings_dropped(*out));
    }
    return PK_EXIT_OK;
}

int cli_inputs_dump(cli_inputs *inputs, size_t index, const cli_input_options *input, bool raw)
{
    pk_reader *r = NULL;
    pk_output *out = NULL;
    pk_error err;
    pk_error_clear(&err);
    pk_status status = take_reader(inputs, index, input, &r, &err);
    if (status == PK_OK)
        status = pk_output_create("-", NULL, &out, &err);
    if (status == PK_OK) {
        pk_read_options options = {.salvage = input->salvage,
                                   .extra = {input->extra, input->extra_count}};
        status = pk_reader_dump(r, raw, &options, out, &err);
        /* The records before the damage stay on standard output: they are what a person reading
         * a broken file wants to see. */
        pk_error finish_err;
        pk_error_clear(&finish_err);
        pk_status finished = pk_output_finish(out, &finish_err);
        if (status == PK_OK && finished != PK_OK) {
            status = finished;
            err = finish_err;
        }
    }
    pk_reader_close(r);
    return status == PK_OK ? PK_EXIT_OK
                           : cli_report_error(cli_shown_name(inputs->paths[index]), &err);
}

void cli_inputs_close(cli_inputs *inputs)
{
    pk_reader_close(inputs->stdin_reader);
    pk_source_close(inputs->source);
    free(inputs->formats);
    memset(inputs, 0, sizeof *inputs);
}

int cli_read_profile(const char *path, const cli_input_options *input, const pk_format *output,
                     pk_profile **out)
{
    cli_inputs inputs;
    char *paths[1] = {(char *)path};
    *out = NULL;
    int status = cli_inputs_open(&inputs, paths, 1, input, output);
    if (status == PK_EXIT_OK)
        status = cli_inputs_read(&inputs, 0, input, out);
    cli_inputs_close(&inputs);
    return status;
}

int cli_finish_output(pk_output *out, pk_status status, pk_error *err)
{
    if (status == PK_OK)
        status = pk_output_finish(out, err);
    else
        pk_output_discard(out);
    return status == PK_OK ? PK_EXIT_OK : cli_report_error(NULL, err);
}

uint32_t cli_pick_value(const pk_profile *p, const char *name, const char *path)
{
    if (pk_value_type_count(p) == 0) {
        cli_error("%s: the profile has no values", path);
        return PK_NONE;
    }
    if (!name)
        return pk_default_value(p);
    uint32_t v = pk_value_lookup(p, name);
    if (v != PK_NONE)
        return v;
    fprintf(stderr, "profkit: %s: no value '%s'; this profile has:", path, name);
    for (uint32_t i = 0; i < pk_value_type_count(p); i++)
        fprintf(stderr, " %s", pk_str(p, pk_value_type_at(p, i)->name));
    fputc('\n', stderr);
    return PK_NONE;
}

const cli_option cli_output_options[] = {
    {"output", 1, CLI_KEY_OUTPUT},
    {"to", 1, CLI_KEY_TO},
    {"value", 1, CLI_KEY_VALUE},
    {"with-threads", 0, CLI_KEY_WITH_THREADS},
    {"title", 1, CLI_KEY_TITLE},
    {"compress", 0, CLI_KEY_COMPRESS},
    {"compression", 1, CLI_KEY_COMPRESSION},
    {NULL, 0, 0},
};

int cli_output_option(void *context, int key, const char *value)
{
    cli_output_args *a = context;
    switch (key) {
    case CLI_KEY_OUTPUT:
        a->output = value;
        return 0;
    case CLI_KEY_TO:
        a->to = value;
        return 0;
    case CLI_KEY_VALUE:
        a->value = value;
        return 0;
    case CLI_KEY_WITH_THREADS:
        a->with_threads = true;
        return 0;
    case CLI_KEY_TITLE:
        a->title = value;
        return 0;
    case CLI_KEY_COMPRESS:
        a->compression = PK_COMPRESSION_GZIP;
        return 0;
    case CLI_KEY_COMPRESSION: {
        char *end;
        long level = strtol(value, &end, 10);
        if (!value[0] || *end || level < 0 || level > 9) {
            cli_error("--compression takes a gzip level from 1 to 9, or 0 for none; not '%s'",
                      value);
            return PK_EXIT_USAGE;
        }
        a->compression = level == 0 ? PK_COMPRESSION_NONE : PK_COMPRESSION_GZIP;
        a->compression_level = (int)level;
        return 0;
    }
    }
    return PK_EXIT_USAGE;
}

const pk_format *cli_output_format(const cli_output_args *args, const char *command)
{
    const char *output = args->output ? args->output : "-";
    if (!*output) {
        cli_error("%s: the output name is empty; give a file name, or '-' for standard output",
                  command);
        return NULL;
    }
    if (args->to)
        return cli_format_named(args->to, false, true);
    if (strcmp(output, "-") == 0) {
        cli_error("%s: give --to FORMAT when writing to standard output", command);
        return NULL;
    }
    const pk_format *to = pk_format_by_extension(output, true);
    if (!to)
        cli_error("%s: cannot tell the output format from '%s'; give --to FORMAT", command,
                  output);
    return to;
}

/* Says what an output without negative weights leaves out of a value that has some (a delta
 * heap profile), rather than leaving it out silently. */
static void warn_negative_values(const pk_profile *p, uint32_t value, const pk_format *to,
                                 const char *shown_name)
{
    if (!(to->flags & PK_FORMAT_POSITIVE_WEIGHTS) || value == PK_NONE ||
        pk_metadata_get(p)->differential)
        return;
    size_t negative = 0;
    long double sum = 0;
    for (size_t row = 0; row < pk_sample_count(p); row++) {
        int64_t v = pk_sample_values(p, row)[value];
        if (v < 0) {
            negative++;
            sum += (long double)v;
        }
    }
    if (negative == 0)
        return;
    cli_error("%s: warning: %s output has no negative weights: %zu stack%s with a negative "
              "'%s' (%.0Lf in all) %s left out, as is any stack whose sum is not above zero "
              "(pprof and Firefox Profiler output keep them)",
              shown_name ? shown_name : "-", to->name, negative, negative == 1 ? "" : "s",
              pk_str(p, pk_value_type_at(p, value)->name), sum, negative == 1 ? "is" : "are");
}

/* A profile that weighs nothing writes an output that shows nothing (folded stacks: not one
 * line): say so, rather than leave an empty file unexplained. */
static void warn_empty_profile(const pk_profile *p, uint32_t value, const char *output,
                               const char *shown_name)
{
    size_t rows = pk_sample_count(p);
    bool differential = pk_metadata_get(p)->differential;
    for (size_t row = 0; row < rows; row++)
        if (value == PK_NONE || differential || pk_sample_values(p, row)[value] != 0)
            return;
    const char *where = strcmp(output, "-") == 0 ? "standard output" : output;
    if (rows == 0)
        cli_error("%s: warning: the profile has no samples: %s holds none", shown_name, where);
    else
        cli_error("%s: warning: no sample has a '%s' other than 0: %s holds none", shown_name,
                  pk_str(p, pk_value_type_at(p, value)->name), where);
}

pk_option *cli_writer_extra(const cli_input_options *input, const char *source, size_t *count)
{
    pk_option *extra = malloc((input->extra_count + 1) * sizeof *extra);
    if (!extra) {
        cli_error("out of memory");
        return NULL;
    }
    if (input->extra_count)
        memcpy(extra, input->extra, input->extra_count * sizeof *extra);
    *count = input->extra_count;
    if (source)
        extra[(*count)++] = (pk_option){"source", source};
    return extra;
}

int cli_write_profile(const pk_profile *p, const cli_output_args *args, const pk_format *to,
                      const cli_input_options *input, const char *protect_path,
                      const char *shown_name)
{
    uint32_t value = cli_pick_value(p, args->value, shown_name);
    if (value == PK_NONE && pk_value_type_count(p) > 0)
        return PK_EXIT_USAGE;
    /* --source also goes to the writer: the firefox writer attributes script frames to it, so
     * that `profkit view` of the file later still finds their sources. */
    size_t extra_count;
    pk_option *extra = cli_writer_extra(input, input->source, &extra_count);
    if (!extra)
        return PK_EXIT_FAILURE;
    pk_write_options write_options = {
        .value = value,
        .with_threads = args->with_threads,
        .extra = {extra, extra_count},
        .title = args->title,
        .compression = args->compression,
        .compression_level = args->compression_level,
    };
    warn_negative_values(p, value, to, shown_name);
    pk_error err;
    pk_error_clear(&err);
    const char *output = args->output ? args->output : "-";
    pk_status written = pk_write_file(p, output, to, &write_options, protect_path, &err);
    free(extra);
    if (written == PK_OK) {
        if (!input->quiet)
            warn_empty_profile(p, value, output, shown_name ? shown_name : "-");
        return PK_EXIT_OK;
    }
    /* A profile the format cannot carry: say which output and format refused it (I/O errors
     * name their path already). */
    if (err.status == PK_ERR_UNSUPPORTED || err.status == PK_ERR_LIMIT) {
        const char *why = err.message[0] ? err.message : pk_status_name(err.status);
        if (strcmp(output, "-") == 0)
            cli_error("cannot write %s to standard output: %s", to->name, why);
        else
            cli_error("cannot write %s as %s: %s", output, to->name, why);
        return cli_exit_status(err.status);
    }
    return cli_report_error(NULL, &err);
}
