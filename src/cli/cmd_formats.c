/* profkit formats: the registry as a table. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

#define PK_FORMATS_MAX 64

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
    /* The extensions column is as wide as its widest entry. */
    char extensions[PK_FORMATS_MAX][128];
    int width = (int)strlen("EXTENSIONS");
    size_t count = pk_format_count() < PK_FORMATS_MAX ? pk_format_count() : PK_FORMATS_MAX;
    for (size_t i = 0; i < count; i++) {
        const pk_format *f = pk_format_at(i);
        size_t used = 0;
        extensions[i][0] = '\0';
        for (const char *const *e = f->extensions; e && *e && used < sizeof extensions[i]; e++)
            used += (size_t)snprintf(extensions[i] + used, sizeof extensions[i] - used, "%s%s",
                                     used ? " " : "", *e);
        if ((int)strlen(extensions[i]) > width)
            width = (int)strlen(extensions[i]);
    }
    pk_output *out;
    pk_error err;
    pk_error_clear(&err);
    pk_status st = pk_output_create("-", NULL, &out, &err);
    if (st != PK_OK)
        return cli_report_error(NULL, &err);
    pk_output_printf(out, "%-12s %-16s %-*s %s\n", "FORMAT", "CAN", width, "EXTENSIONS",
                     "DESCRIPTION");
    for (size_t i = 0; i < count; i++) {
        const pk_format *f = pk_format_at(i);
        char can[32];
        snprintf(can, sizeof can, "%s%s%s", f->read ? "read " : "", f->write ? "write " : "",
                 f->dump ? "dump" : "");
        pk_output_printf(out, "%-12s %-16s %-*s %s", f->name, can, width, extensions[i],
                         f->description);
        if (f->aliases && f->aliases[0]) {
            pk_output_printf(out, " (also:");
            for (const char *const *a = f->aliases; *a; a++)
                pk_output_printf(out, " %s", *a);
            pk_output_printf(out, ")");
        }
        pk_output_printf(out, "\n");
    }
    return cli_finish_output(out, PK_OK, &err);
}
