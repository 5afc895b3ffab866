/* SPDX-License-Identifier: MIT */
/* profkit convert: read a profile in one format and write it in another. */
#include <string.h>

#include "cli.h"

static const char convert_help[] =
    "Usage: profkit convert INPUT [-o OUTPUT] [--to FORMAT] [OPTIONS]\n"
    "\n"
    "Converts a profile. INPUT '-' reads standard input. OUTPUT '-' or none writes standard\n"
    "output. The output format comes from --to, else from the extension of OUTPUT.\n"
    "The input format is found from the content (--from overrides).\n"
    "\n"
    "Options:\n"
    "  -o, --output OUTPUT      where to write (written to a temporary, renamed on success)\n"
    "      --to FORMAT          output format (see `profkit formats`)\n"
    "      --from FORMAT        input format, when probing the content is not wanted\n"
    "      --value NAME         value to write where the format carries one (default: the\n"
    "                           input's default, e.g. cpu for .bsprof); an unknown name lists\n"
    "                           the values of the input\n"
    "      --with-threads       folded stacks: put the thread name first\n"
    "      --title TEXT         title of visual outputs\n"
    "      --compress           gzip the output (as an OUTPUT name ending in .gz does)\n"
    "      --compression LEVEL  gzip level from 1 (the default, fastest) to 9; 0 writes the\n"
    "                           output uncompressed, also for formats usually gzipped (pprof)\n"
    "      --salvage            keep what can be read before damage in the input\n"
    "      --quiet              no progress bar, no warnings\n";

int pk_cmd_convert(int argc, char **argv)
{
    cli_output_args args = {0};
    cli_input_options input;
    char **rest;
    int rest_count;
    int status = cli_parse(argc, argv, cli_output_options, cli_output_option, &args, &input,
                           CLI_ACCEPTS_NAMES | CLI_ACCEPTS_WRITER_OPTIONS | CLI_ACCEPTS_LABELS,
                           convert_help, &rest, &rest_count);
    if (status != 0) {
        cli_free_input_options(&input);
        return status < 0 ? PK_EXIT_OK : status;
    }
    if (rest_count != 1) {
        cli_error("convert: %s (see `profkit convert --help`)",
                  rest_count == 0 ? "give one INPUT file" : "give only one INPUT file");
        cli_free_input_options(&input);
        return PK_EXIT_USAGE;
    }
    /* Settle the output format before reading: a usage error should not wait for a big read. */
    const pk_format *to = cli_output_format(&args, "convert");
    if (!to) {
        cli_free_input_options(&input);
        return PK_EXIT_USAGE;
    }
    pk_profile *p = NULL;
    status = cli_read_profile(rest[0], &input, to, &p);
    if (status == PK_EXIT_OK)
        status = cli_write_profile(p, &args, to, &input, rest[0], rest[0]);
    pk_profile_free(p);
    cli_free_input_options(&input);
    return status;
}
