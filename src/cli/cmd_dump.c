/* SPDX-License-Identifier: MIT */
/* profkit dump: a binary file record by record, for when a file looks wrong. */
#include <string.h>

#include "cli.h"

static const char dump_help[] =
    "Usage: profkit dump INPUT [--raw] [--from FORMAT] [--salvage]\n"
    "\n"
    "Prints the file record by record with the byte offset of each record and its decoded\n"
    "fields. Names are resolved (string IDs, module numbers, symbols) unless --raw is given,\n"
    "which prints every field as stored.\n"
    "\n"
    "Options:\n"
    "      --raw                print every field as stored, unresolved\n"
    "      --from FORMAT        input format, when probing the content is not wanted\n"
    "      --salvage            print the records before damage, then the damage as the\n"
    "                           last line, and succeed\n"
    "      --quiet              no progress bar, no warnings (dump prints neither)\n";

enum { KEY_RAW = 256 };

static int dump_option(void *context, int key, const char *value)
{
    (void)value;
    if (key != KEY_RAW)
        return PK_EXIT_USAGE;
    *(bool *)context = true;
    return 0;
}

int pk_cmd_dump(int argc, char **argv)
{
    static const cli_option options[] = {{"raw", 0, KEY_RAW}, {NULL, 0, 0}};
    bool raw = false;
    cli_input_options input;
    char **rest;
    int rest_count;
    int status = cli_parse(argc, argv, options, dump_option, &raw, &input, 0, dump_help, &rest,
                           &rest_count);
    if (status != 0) {
        cli_free_input_options(&input);
        return status < 0 ? PK_EXIT_OK : status;
    }
    if (rest_count != 1) {
        cli_error("dump: give one INPUT file (see `profkit dump --help`)");
        cli_free_input_options(&input);
        return PK_EXIT_USAGE;
    }
    /* The input opened first, so that a format option of another reader is refused. */
    cli_inputs inputs;
    status = cli_inputs_open(&inputs, rest, 1, &input, NULL);
    if (status == PK_EXIT_OK)
        status = cli_inputs_dump(&inputs, 0, &input, raw);
    cli_inputs_close(&inputs);
    cli_free_input_options(&input);
    return status;
}
