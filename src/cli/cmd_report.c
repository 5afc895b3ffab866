/* SPDX-License-Identifier: MIT */
/* profkit report: the answer on the terminal - top functions, call tree, callers and callees,
 * source lines, the memory (leak) report and thread totals, as text or JSON. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "profkit/report.h"

static const char report_help[] =
    "Usage: profkit report INPUT [VIEW] [OPTIONS]\n"
    "\n"
    "Prints one view of a profile. Values are shown in the unit of the value type (times\n"
    "scaled to ns/us/ms/s, bytes to KiB/MiB/GiB) with their share of the total.\n"
    "\n"
    "Views (one at a time):\n"
    "      --top N              the default: the N functions (default 20, 0 = all) with the\n"
    "                           most self value, with total and the running sum of self;\n"
    "                           N also limits the rows of the other flat views\n"
    "      --tree               the call tree from the bottom of the stack, children\n"
    "                           heaviest first, one branch per thread when several have data\n"
    "      --callers FUNC       who calls FUNC, with each caller's share of FUNC's total\n"
    "      --callees FUNC       what FUNC calls, with shares (FUNC's own value as (self))\n"
    "      --lines              the hottest source lines (file:line), where frames carry lines\n"
    "      --memory             bytes and blocks allocated, freed and unfreed per call path\n"
    "                           and per allocating line, heaviest unfreed first\n"
    "      --threads            each thread's total\n"
    "\n"
    "Options:\n"
    "      --value NAME         value to report (default: the input's default, e.g. cpu)\n"
    "      --sort self|total    order of --top and --lines (default self)\n"
    "      --min-percent P      --tree: fold branches under P% of the total (default 1)\n"
    "      --thread NAME        only threads whose name contains NAME (or matches it as a\n"
    "                           shell pattern with * ? [...])\n"
    "      --json               one JSON object instead of text\n"
    "      --wide               do not shorten long names to fit 80 columns\n"
    "      --from FORMAT        input format, when probing the content is not wanted\n"
    "      --salvage            keep what can be read before damage in the input\n"
    "      --quiet              no progress bar, no warnings\n";

enum {
    KEY_VALUE = 256,
    KEY_TOP,
    KEY_SORT,
    KEY_TREE,
    KEY_MIN_PERCENT,
    KEY_CALLERS,
    KEY_CALLEES,
    KEY_LINES,
    KEY_MEMORY,
    KEY_THREADS,
    KEY_THREAD,
    KEY_JSON,
    KEY_WIDE
};

typedef struct report_args {
    pk_report_options options;
    const char *value;
    int views_given;
    bool json;
    size_t width; /* 0: no limit */
} report_args;

static int choose_view(report_args *a, pk_report_view view)
{
    if (a->views_given && a->options.view != view) {
        cli_error("report: choose one view of --tree, --callers, --callees, --lines, "
                  "--memory, --threads");
        return PK_EXIT_USAGE;
    }
    a->options.view = view;
    a->views_given++;
    return 0;
}

static int parse_count(const char *text, size_t *out)
{
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (!text[0] || *end || text[0] == '-') {
        cli_error("report: --top takes a number (0 = all), not '%s'", text);
        return PK_EXIT_USAGE;
    }
    *out = (size_t)v;
    return 0;
}

static int report_option(void *context, int key, const char *value)
{
    report_args *a = context;
    switch (key) {
    case KEY_VALUE:
        a->value = value;
        return 0;
    case KEY_TOP:
        return parse_count(value, &a->options.top);
    case KEY_SORT:
        if (strcmp(value, "self") != 0 && strcmp(value, "total") != 0) {
            cli_error("report: --sort takes self or total, not '%s'", value);
            return PK_EXIT_USAGE;
        }
        a->options.sort_total = strcmp(value, "total") == 0;
        return 0;
    case KEY_TREE:
        return choose_view(a, PK_REPORT_TREE);
    case KEY_MIN_PERCENT: {
        char *end;
        double p = strtod(value, &end);
        if (!value[0] || *end || !(p >= 0 && p <= 100)) {
            cli_error("report: --min-percent takes a percentage from 0 to 100, not '%s'", value);
            return PK_EXIT_USAGE;
        }
        a->options.min_percent = p;
        return 0;
    }
    case KEY_CALLERS:
        a->options.function = value;
        return choose_view(a, PK_REPORT_CALLERS);
    case KEY_CALLEES:
        a->options.function = value;
        return choose_view(a, PK_REPORT_CALLEES);
    case KEY_LINES:
        return choose_view(a, PK_REPORT_LINES);
    case KEY_MEMORY:
        return choose_view(a, PK_REPORT_MEMORY);
    case KEY_THREADS:
        return choose_view(a, PK_REPORT_THREADS);
    case KEY_THREAD:
        a->options.thread_pattern = value;
        return 0;
    case KEY_JSON:
        a->json = true;
        return 0;
    case KEY_WIDE:
        a->width = 0;
        return 0;
    }
    return PK_EXIT_USAGE;
}

int pk_cmd_report(int argc, char **argv)
{
    static const cli_option options[] = {
        {"value", 1, KEY_VALUE},     {"top", 1, KEY_TOP},
        {"sort", 1, KEY_SORT},       {"tree", 0, KEY_TREE},
        {"min-percent", 1, KEY_MIN_PERCENT},
        {"callers", 1, KEY_CALLERS}, {"callees", 1, KEY_CALLEES},
        {"lines", 0, KEY_LINES},     {"memory", 0, KEY_MEMORY},
        {"threads", 0, KEY_THREADS}, {"thread", 1, KEY_THREAD},
        {"json", 0, KEY_JSON},       {"wide", 0, KEY_WIDE},
        {NULL, 0, 0},
    };
    report_args args;
    memset(&args, 0, sizeof args);
    pk_report_options_init(&args.options);
    args.width = 80;
    cli_input_options input;
    char **rest;
    int rest_count;
    int status = cli_parse(argc, argv, options, report_option, &args, &input,
                           CLI_ACCEPTS_NAMES | CLI_ACCEPTS_LABELS, report_help, &rest,
                           &rest_count);
    if (status != 0) {
        cli_free_input_options(&input);
        return status < 0 ? PK_EXIT_OK : status;
    }
    if (rest_count != 1) {
        cli_error("report: %s (see `profkit report --help`)",
                  rest_count == 0 ? "give one INPUT file" : "give only one INPUT file");
        cli_free_input_options(&input);
        return PK_EXIT_USAGE;
    }
    const char *input_path = rest[0];
    pk_profile *p = NULL;
    status = cli_read_profile(input_path, &input, NULL, &p);
    if (status == PK_EXIT_OK && args.options.view != PK_REPORT_MEMORY) {
        args.options.value = cli_pick_value(p, args.value, input_path);
        if (args.options.value == PK_NONE)
            status = PK_EXIT_USAGE;
    }
    if (status == PK_EXIT_OK) {
        pk_error err;
        pk_error_clear(&err);
        pk_report *report = NULL;
        pk_output *out = NULL;
        pk_status st = pk_report_build(p, &args.options, &report, &err);
        if (st == PK_OK)
            st = pk_output_create("-", NULL, &out, &err);
        if (st == PK_OK)
            st = args.json ? pk_report_write_json(report, out, &err)
                           : pk_report_write_text(report, args.width, out, &err);
        pk_report_free(report);
        status = cli_finish_output(out, st, &err);
    }
    pk_profile_free(p);
    cli_free_input_options(&input);
    return status;
}
