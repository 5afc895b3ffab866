/* SPDX-License-Identifier: MIT */
/* profkit diff: what changed between two profiles. Both become one differential profile
 * (profkit/diff.h), which is printed as a table or written in any output format: folded lines
 * with two counts, a differential flame graph, ... */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "profkit/diff.h"

static const char diff_help[] =
    "Usage: profkit diff BASE NEW [OPTIONS]\n"
    "\n"
    "Compares two profiles by function name: per function (or per call path with --tree) the\n"
    "value in BASE, in NEW, the change and the change in percent, biggest change first.\n"
    "\n"
    "Options:\n"
    "      --value NAME         value to compare (default: each input's default)\n"
    "      --tree               per call path instead of per function\n"
    "      --sort self|total    compare self values (default per function) or totals\n"
    "                           (default per call path)\n"
    "      --normalize          scale BASE to the total of NEW before comparing\n"
    "      --top N              rows to show (default 20, 0 = all)\n"
    "      --json               one JSON object instead of text\n"
    "      --wide               do not shorten long names to fit 80 columns\n"
    "  -o, --output FILE        write the comparison to FILE instead of the table, in the\n"
    "                           format of its extension: .svg draws a differential flame\n"
    "                           graph (width by NEW, red grew, blue shrank), .folded writes\n"
    "                           'stack BASE NEW' lines\n"
    "      --to FORMAT          output format (default: from the extension of FILE)\n"
    "      --title TEXT         title of the flame graph\n"
    "      --with-threads       folded stacks and flame graphs: the thread name first\n"
    "      --compress           gzip the output; --compression LEVEL picks the level (1-9)\n"
    "      --from FORMAT        input format, when probing the content is not wanted\n"
    "      --salvage            keep what can be read before damage in the inputs\n"
    "      --quiet              no progress bar, no warnings\n";

enum { KEY_VALUE = 256, KEY_TREE, KEY_SORT, KEY_NORMALIZE, KEY_TOP, KEY_JSON, KEY_WIDE };

typedef struct diff_args {
    pk_diff_report_options report;
    cli_output_args output; /* value stays NULL: --value is the value compared */
    const char *value;
    bool normalize;
    bool json;
    size_t width; /* 0: no limit */
} diff_args;

static int diff_option(void *context, int key, const char *value)
{
    diff_args *a = context;
    switch (key) {
    case KEY_VALUE:
        a->value = value;
        return 0;
    case KEY_TREE:
        a->report.by_path = true;
        return 0;
    case KEY_SORT:
        if (strcmp(value, "self") == 0)
            a->report.measure = PK_DIFF_SELF;
        else if (strcmp(value, "total") == 0)
            a->report.measure = PK_DIFF_TOTAL;
        else {
            cli_error("diff: --sort takes self or total, not '%s'", value);
            return PK_EXIT_USAGE;
        }
        return 0;
    case KEY_NORMALIZE:
        a->normalize = true;
        return 0;
    case KEY_TOP: {
        char *end;
        unsigned long long n = strtoull(value, &end, 10);
        if (!value[0] || *end || value[0] == '-') {
            cli_error("diff: --top takes a number (0 = all), not '%s'", value);
            return PK_EXIT_USAGE;
        }
        a->report.top = (size_t)n;
        return 0;
    }
    case KEY_JSON:
        a->json = true;
        return 0;
    case KEY_WIDE:
        a->width = 0;
        return 0;
    }
    return cli_output_option(&a->output, key, value);
}

static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* The table of the differential profile on standard output. Returns an exit status. */
static int print_report(const pk_profile *diff, const diff_args *args)
{
    pk_error err;
    pk_error_clear(&err);
    pk_diff_report *report = NULL;
    pk_output *out = NULL;
    pk_status st = pk_diff_report_build(diff, &args->report, &report, &err);
    if (st == PK_OK)
        st = pk_output_create("-", NULL, &out, &err);
    if (st == PK_OK)
        st = args->json ? pk_diff_report_write_json(report, out, &err)
                        : pk_diff_report_write_text(report, args->width, out, &err);
    pk_diff_report_free(report);
    return cli_finish_output(out, st, &err);
}

int pk_cmd_diff(int argc, char **argv)
{
    static const cli_option options[] = {
        {"output", 1, CLI_KEY_OUTPUT},   {"to", 1, CLI_KEY_TO},
        {"title", 1, CLI_KEY_TITLE},     {"with-threads", 0, CLI_KEY_WITH_THREADS},
        {"compress", 0, CLI_KEY_COMPRESS}, {"compression", 1, CLI_KEY_COMPRESSION},
        {"value", 1, KEY_VALUE},         {"tree", 0, KEY_TREE},
        {"sort", 1, KEY_SORT},           {"normalize", 0, KEY_NORMALIZE},
        {"top", 1, KEY_TOP},             {"json", 0, KEY_JSON},
        {"wide", 0, KEY_WIDE},           {NULL, 0, 0},
    };
    diff_args args;
    memset(&args, 0, sizeof args);
    args.report.top = 20;
    args.width = 80;
    cli_input_options input;
    char **rest;
    int rest_count;
    int status = cli_parse(argc, argv, options, diff_option, &args, &input,
                           CLI_ACCEPTS_NAMES | CLI_ACCEPTS_WRITER_OPTIONS, diff_help, &rest,
                           &rest_count);
    if (status != 0) {
        cli_free_input_options(&input);
        return status < 0 ? PK_EXIT_OK : status;
    }
    if (rest_count != 2) {
        cli_error("diff: give two files, BASE and NEW (see `profkit diff --help`)");
        cli_free_input_options(&input);
        return PK_EXIT_USAGE;
    }
    /* With -o or --to the differential profile is written; without, the table is printed. */
    bool write = args.output.output || args.output.to;
    const pk_format *to = write ? cli_output_format(&args.output, "diff") : NULL;
    const char *output = args.output.output ? args.output.output : "-";
    if (write && to && strcmp(output, "-") != 0 && same_file(rest[0], output)) {
        cli_error("diff: the output '%s' is BASE", output);
        to = NULL;
    }
    if (write && !to) {
        cli_free_input_options(&input);
        return PK_EXIT_USAGE;
    }
    pk_profile *base = NULL, *newer = NULL, *diff = NULL;
    cli_inputs inputs;
    status = cli_inputs_open(&inputs, rest, 2, &input, to);
    if (status == PK_EXIT_OK)
        status = cli_inputs_read(&inputs, 0, &input, &base);
    if (status == PK_EXIT_OK)
        status = cli_inputs_read(&inputs, 1, &input, &newer);
    cli_inputs_close(&inputs);
    uint32_t base_value = PK_NONE, new_value = PK_NONE;
    if (status == PK_EXIT_OK) {
        base_value = cli_pick_value(base, args.value, rest[0]);
        new_value = base_value == PK_NONE ? PK_NONE : cli_pick_value(newer, args.value, rest[1]);
        if (new_value == PK_NONE)
            status = PK_EXIT_USAGE;
    }
    if (status == PK_EXIT_OK) {
        pk_error err;
        pk_error_clear(&err);
        if (pk_diff_profiles(base, base_value, newer, new_value, args.normalize, &diff, &err) !=
            PK_OK)
            status = cli_report_error(NULL, &err);
    }
    pk_profile_free(base);
    pk_profile_free(newer);
    if (status == PK_EXIT_OK)
        status = write ? cli_write_profile(diff, &args.output, to, &input, rest[1], "comparison")
                       : print_report(diff, &args);
    pk_profile_free(diff);
    cli_free_input_options(&input);
    return status;
}
