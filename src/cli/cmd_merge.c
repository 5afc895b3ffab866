/* SPDX-License-Identifier: MIT */
/* profkit merge: many runs or devices summed into one profile, in any output format. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "profkit/merge.h"

static const char merge_help[] =
    "Usage: profkit merge INPUT... -o OUTPUT [--to FORMAT] [OPTIONS]\n"
    "\n"
    "Sums profiles into one: samples of the same call stack in threads of the same name add\n"
    "up; memory events are kept. The value types of every input are kept, matched by name;\n"
    "inputs with nothing in common, or one value in two units, are refused. Metadata comes\n"
    "from the first input, with the earliest start and the latest end.\n"
    "\n"
    "Options:\n"
    "  -o, --output OUTPUT      where to write ('-' = standard output, with --to)\n"
    "      --to FORMAT          output format (default: from the extension of OUTPUT)\n"
    "      --value NAME         value to write where the output format carries one\n"
    "      --with-threads       folded stacks: put the thread name first\n"
    "      --title TEXT         title of visual outputs\n"
    "      --compress           gzip the output (as an OUTPUT name ending in .gz does)\n"
    "      --compression LEVEL  gzip level from 1 (the default, fastest) to 9; 0 writes the\n"
    "                           output uncompressed, also for formats usually gzipped (pprof)\n"
    "      --from FORMAT        input format, when probing the content is not wanted\n"
    "      --salvage            keep what can be read before damage in the inputs\n"
    "      --quiet              no progress bar, no warnings\n";

static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

int pk_cmd_merge(int argc, char **argv)
{
    cli_output_args args = {0};
    cli_input_options input;
    char **rest;
    int rest_count;
    int status = cli_parse(argc, argv, cli_output_options, cli_output_option, &args, &input,
                           CLI_ACCEPTS_NAMES | CLI_ACCEPTS_WRITER_OPTIONS, merge_help, &rest,
                           &rest_count);
    if (status != 0) {
        cli_free_input_options(&input);
        return status < 0 ? PK_EXIT_OK : status;
    }
    if (rest_count < 1 || !args.output) {
        cli_error("merge: give INPUT files and -o OUTPUT (see `profkit merge --help`)");
        cli_free_input_options(&input);
        return PK_EXIT_USAGE;
    }
    const pk_format *to = cli_output_format(&args, "merge");
    for (int i = 0; to && i < rest_count; i++) {
        if (strcmp(args.output, "-") != 0 && same_file(rest[i], args.output)) {
            cli_error("merge: the output '%s' is one of the inputs", args.output);
            to = NULL;
        }
    }
    if (!to) {
        cli_free_input_options(&input);
        return PK_EXIT_USAGE;
    }
    pk_profile **inputs = calloc((size_t)rest_count, sizeof *inputs);
    if (!inputs) {
        cli_error("out of memory");
        cli_free_input_options(&input);
        return PK_EXIT_FAILURE;
    }
    cli_inputs opened;
    status = cli_inputs_open(&opened, rest, (size_t)rest_count, &input, to);
    for (int i = 0; i < rest_count && status == PK_EXIT_OK; i++)
        status = cli_inputs_read(&opened, (size_t)i, &input, &inputs[i]);
    cli_inputs_close(&opened);
    pk_profile *merged = NULL;
    pk_error err;
    pk_error_clear(&err);
    if (status == PK_EXIT_OK &&
        pk_profile_merge((const pk_profile *const *)inputs, (size_t)rest_count, &merged, &err) !=
            PK_OK)
        status = cli_report_error(NULL, &err);
    for (int i = 0; i < rest_count; i++)
        pk_profile_free(inputs[i]);
    free(inputs);
    if (status == PK_EXIT_OK)
        status = cli_write_profile(merged, &args, to, &input, rest[0], "merged profile");
    pk_profile_free(merged);
    cli_free_input_options(&input);
    return status;
}
