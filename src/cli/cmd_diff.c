/* profkit diff: what changed between two profiles, as a table, folded lines or a differential
 * flame graph. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "analysis/diff.h"
#include "cli/cli.h"
#include "core/output.h"

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
    "  -o, --output FILE        write FILE instead of the table: .svg draws a differential\n"
    "                           flame graph (width by NEW, red grew, blue shrank), .folded\n"
    "                           writes 'stack BASE NEW' lines\n"
    "      --title TEXT         title of the flame graph\n"
    "      --from FORMAT        input format, when probing the content is not wanted\n"
    "      --salvage            keep what can be read before damage in the inputs\n"
    "      --quiet              no progress bar, no warnings\n";

enum { KEY_VALUE = 256, KEY_TREE, KEY_SORT, KEY_NORMALIZE, KEY_TOP, KEY_JSON, KEY_WIDE,
       KEY_TITLE };

typedef struct diff_args {
    pk_diff_report_options report;
    const char *value;
    const char *output;
    const char *title;
    bool normalize;
} diff_args;

static int diff_option(void *context, int key, const char *value)
{
    diff_args *a = context;
    switch (key) {
    case 'o':
        a->output = value;
        return 0;
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
        a->report.json = true;
        return 0;
    case KEY_WIDE:
        a->report.width = 0;
        return 0;
    case KEY_TITLE:
        a->title = value;
        return 0;
    }
    return PK_EXIT_USAGE;
}

static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

static bool has_extension(const char *path, const char *extension)
{
    size_t n = strlen(path), m = strlen(extension);
    return n > m && strcasecmp(path + n - m, extension) == 0;
}

int pk_cmd_diff(int argc, char **argv)
{
    static const cli_option options[] = {
        {"output", 1, 'o'},        {"value", 1, KEY_VALUE}, {"tree", 0, KEY_TREE},
        {"sort", 1, KEY_SORT},     {"normalize", 0, KEY_NORMALIZE},
        {"top", 1, KEY_TOP},       {"json", 0, KEY_JSON},   {"wide", 0, KEY_WIDE},
        {"title", 1, KEY_TITLE},   {NULL, 0, 0},
    };
    diff_args args;
    memset(&args, 0, sizeof args);
    args.report.top = 20;
    args.report.width = 80;
    cli_input_options input;
    char **rest;
    int rest_count;
    int status = cli_parse(argc, argv, options, diff_option, &args, &input, diff_help, &rest,
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
    bool to_svg = args.output && has_extension(args.output, ".svg");
    bool to_folded = args.output && has_extension(args.output, ".folded");
    if (args.output && !to_svg && !to_folded) {
        cli_error("diff: -o takes a file ending in .svg or .folded, not '%s'", args.output);
        cli_free_input_options(&input);
        return PK_EXIT_USAGE;
    }
    if (args.output && same_file(rest[0], args.output)) {
        cli_error("diff: the output '%s' is BASE", args.output);
        cli_free_input_options(&input);
        return PK_EXIT_USAGE;
    }
    pk_profile *base = NULL, *newer = NULL;
    cli_inputs inputs;
    status = cli_inputs_open(&inputs, rest, 2, &input, NULL);
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
        pk_diff d;
        pk_status st = pk_diff_build(&d, base, base_value, newer, new_value, args.normalize, &err);
        pk_profile_free(base);
        pk_profile_free(newer);
        base = newer = NULL;
        if (st == PK_OK) {
            pk_output out;
            const char *path = args.output ? args.output : "-";
            st = pk_output_open(&out, path, args.output ? rest[1] : NULL, &err);
            if (st == PK_OK) {
                if (to_svg)
                    st = pk_diff_write_svg(&d, args.title, &out, &err);
                else if (to_folded)
                    st = pk_diff_write_folded(&d, &out, &err);
                else
                    st = pk_diff_report(&d, &args.report, &out, &err);
                if (st == PK_OK)
                    st = pk_output_commit(&out, &err);
                else
                    pk_output_abort(&out);
            }
            pk_diff_free(&d);
        }
        if (st != PK_OK)
            status = cli_report_error(NULL, &err);
    }
    pk_profile_free(base);
    pk_profile_free(newer);
    cli_free_input_options(&input);
    return status;
}
