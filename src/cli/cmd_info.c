/* SPDX-License-Identifier: MIT */
/* profkit info: what a profile holds (profkit/summary.h), as text or as one JSON object. */
#include "cli.h"
#include "profkit/summary.h"

static const char info_help[] =
    "Usage: profkit info INPUT [--json] [--from FORMAT] [--salvage]\n"
    "\n"
    "Prints the format and its version, the metadata (target, versions, device, start and\n"
    "end time, duration, ratios, flags), the threads with their totals, how many strings,\n"
    "functions, frames, stacks, sample rows and memory events were read, the total of every\n"
    "value, and the warnings.\n"
    "\n"
    "Options:\n"
    "      --json               one JSON object with the keys format, metadata, threads,\n"
    "                           counts, values and warnings\n"
    "      --from FORMAT        input format, when probing the content is not wanted\n"
    "      --salvage            keep what can be read before damage in the input\n"
    "      --quiet              no progress bar, no warnings on standard error\n";

enum { KEY_JSON = 256 };

static int info_option(void *context, int key, const char *value)
{
    (void)value;
    if (key != KEY_JSON)
        return PK_EXIT_USAGE;
    *(bool *)context = true;
    return 0;
}

/* Prints the summary of p to standard output. Returns an exit status. */
static int print_summary(const pk_profile *p, const char *shown, bool json)
{
    pk_error err;
    pk_error_clear(&err);
    pk_summary *summary = NULL;
    pk_output *out = NULL;
    pk_status st = pk_summary_build(p, &summary, &err);
    if (st == PK_OK)
        st = pk_output_create("-", NULL, &out, &err);
    if (st == PK_OK)
        st = json ? pk_summary_write_json(summary, p, shown, out, &err)
                  : pk_summary_write_text(summary, p, shown, out, &err);
    pk_summary_free(summary);
    return cli_finish_output(out, st, &err);
}

int pk_cmd_info(int argc, char **argv)
{
    static const cli_option options[] = {{"json", 0, KEY_JSON}, {NULL, 0, 0}};
    bool json = false;
    cli_input_options input;
    char **rest;
    int rest_count;
    int status =
        cli_parse(argc, argv, options, info_option, &json, &input, CLI_ACCEPTS_NAMES, info_help,
                  &rest, &rest_count);
    if (status != 0) {
        cli_free_input_options(&input);
        return status < 0 ? PK_EXIT_OK : status;
    }
    if (rest_count != 1) {
        cli_error("info: give one INPUT file (see `profkit info --help`)");
        cli_free_input_options(&input);
        return PK_EXIT_USAGE;
    }
    pk_profile *p = NULL;
    input.keep_warnings = true; /* info lists them in its output */
    status = cli_read_profile(rest[0], &input, NULL, &p);
    if (status == PK_EXIT_OK)
        status = print_summary(p, cli_shown_name(rest[0]), json);
    pk_profile_free(p);
    cli_free_input_options(&input);
    return status;
}
