/* profkit formats: the registry as a table. */
#include <stdio.h>

#include "cli/cli.h"

static const char formats_help[] = "Usage: profkit formats\n\n"
                                   "Lists every format with what profkit does with it (read,\n"
                                   "write, dump), its aliases and file extensions.\n";

int pk_cmd_formats(int argc, char **argv)
{
    char **rest;
    int rest_count;
    int status = cli_parse(argc, argv, NULL, NULL, NULL, NULL, formats_help, &rest, &rest_count);
    if (status != 0)
        return status < 0 ? PK_EXIT_OK : status;
    if (rest_count != 0) {
        cli_error("formats: takes no arguments");
        return PK_EXIT_USAGE;
    }
    printf("%-12s %-16s %-28s %s\n", "FORMAT", "CAN", "EXTENSIONS", "DESCRIPTION");
    for (size_t i = 0; i < pk_format_count(); i++) {
        const pk_format *f = pk_format_at(i);
        char can[32], extensions[128] = "";
        snprintf(can, sizeof can, "%s%s%s", f->read ? "read " : "", f->write ? "write " : "",
                 f->dump ? "dump" : "");
        size_t used = 0;
        for (const char *const *e = f->extensions; e && *e && used < sizeof extensions; e++)
            used += (size_t)snprintf(extensions + used, sizeof extensions - used, "%s%s",
                                     used ? " " : "", *e);
        printf("%-12s %-16s %-28s %s", f->name, can, extensions, f->description);
        if (f->aliases && f->aliases[0]) {
            printf(" (also:");
            for (const char *const *a = f->aliases; *a; a++)
                printf(" %s", *a);
            printf(")");
        }
        putchar('\n');
    }
    return PK_EXIT_OK;
}
