/* profkit convert: read a profile in one format and write it in another. */
#include <string.h>

#include "cli/cli.h"

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
    "      --salvage            keep what can be read before damage in the input\n"
    "      --quiet              no progress bar, no warnings\n";

enum { KEY_TO = 256, KEY_VALUE, KEY_WITH_THREADS, KEY_TITLE };

typedef struct convert_args {
    const char *output;
    const char *to;
    const char *value;
    const char *title;
    bool with_threads;
} convert_args;

static int convert_option(void *context, int key, const char *value)
{
    convert_args *a = context;
    switch (key) {
    case 'o':
        a->output = value;
        return 0;
    case KEY_TO:
        a->to = value;
        return 0;
    case KEY_VALUE:
        a->value = value;
        return 0;
    case KEY_WITH_THREADS:
        a->with_threads = true;
        return 0;
    case KEY_TITLE:
        a->title = value;
        return 0;
    }
    return PK_EXIT_USAGE;
}

int pk_cmd_convert(int argc, char **argv)
{
    static const cli_option options[] = {
        {"output", 1, 'o'},
        {"to", 1, KEY_TO},
        {"value", 1, KEY_VALUE},
        {"with-threads", 0, KEY_WITH_THREADS},
        {"title", 1, KEY_TITLE},
        {NULL, 0, 0},
    };
    convert_args args = {0};
    cli_input_options input;
    char **rest;
    int rest_count;
    int status = cli_parse(argc, argv, options, convert_option, &args, &input, convert_help, &rest,
                           &rest_count);
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
    const char *input_path = rest[0];
    const char *output_path = args.output ? args.output : "-";

    /* Settle the output format before reading: a usage error should not wait for a big read. */
    const pk_format *to = NULL;
    if (args.to) {
        to = cli_format_named(args.to, false, true);
    } else if (strcmp(output_path, "-") != 0) {
        to = pk_format_by_extension(output_path, true);
        if (!to)
            cli_error("convert: cannot tell the output format from '%s'; give --to FORMAT",
                      output_path);
    } else {
        cli_error("convert: give --to FORMAT when writing to standard output");
    }
    if (!to) {
        cli_free_input_options(&input);
        return PK_EXIT_USAGE;
    }

    pk_profile *p = NULL;
    status = cli_read_profile(input_path, &input, &p);
    if (status == PK_EXIT_OK) {
        uint32_t value = cli_pick_value(p, args.value, input_path);
        if (value == PK_NONE && pk_value_type_count(p) > 0) {
            status = PK_EXIT_USAGE;
        } else {
            pk_write_options write_options = {
                .value = value,
                .with_threads = args.with_threads,
                .extra = {input.extra, input.extra_count},
                .title = args.title,
            };
            pk_error err;
            pk_error_clear(&err);
            pk_status written = pk_write_file(p, output_path, to, &write_options, input_path, &err);
            if (written != PK_OK)
                status = cli_report_error(NULL, &err);
        }
    }
    pk_profile_free(p);
    cli_free_input_options(&input);
    return status;
}
