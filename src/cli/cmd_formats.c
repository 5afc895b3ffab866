/* SPDX-License-Identifier: MIT */
/* profkit formats: the registry as a table, or as tab-separated lines for programs (the man
 * pages and shell completions are made from these). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

#define PK_FORMATS_MAX 64

static const char formats_help[] =
    "Usage: profkit formats [--tab | --options]\n\n"
    "Lists every format with what profkit does with it (read,\n"
    "write, dump), its aliases and file extensions.\n\n"
    "Options:\n"
    "      --tab                one line per format, fields separated by tabs: name,\n"
    "                           what profkit does (read,write,dump), extensions,\n"
    "                           aliases (both space-separated) and the description\n"
    "      --options            one line per format option, fields separated by tabs:\n"
    "                           option (without --), its argument (empty for a flag),\n"
    "                           format, input or output, and the help text\n";

enum { KEY_TAB = 0x900, KEY_OPTIONS };

typedef struct formats_args {
    bool tab;
    bool options;
} formats_args;

static int formats_option(void *context, int key, const char *value)
{
    (void)value;
    formats_args *args = context;
    if (key == KEY_TAB)
        args->tab = true;
    else if (key == KEY_OPTIONS)
        args->options = true;
    else
        return PK_EXIT_USAGE;
    return 0;
}

/* Writes the entries of a NULL-terminated list separated by spaces. */
static void print_list(pk_output *out, const char *const *list)
{
    for (const char *const *e = list; e && *e; e++)
        pk_output_printf(out, "%s%s", e == list ? "" : " ", *e);
}

static void print_tab(pk_output *out)
{
    for (size_t i = 0; i < pk_format_count(); i++) {
        const pk_format *f = pk_format_at(i);
        pk_output_printf(out, "%s\t%s%s%s%s%s\t", f->name, f->read ? "read" : "",
                         f->read && (f->write || f->dump) ? "," : "", f->write ? "write" : "",
                         f->write && f->dump ? "," : "", f->dump ? "dump" : "");
        print_list(out, f->extensions);
        pk_output_printf(out, "\t");
        print_list(out, f->aliases);
        pk_output_printf(out, "\t%s\n", f->description);
    }
}

static void print_options(pk_output *out)
{
    for (size_t i = 0; i < pk_format_count(); i++) {
        const pk_format *f = pk_format_at(i);
        const pk_option_spec *lists[2] = {f->read_options, f->write_options};
        for (size_t l = 0; l < 2; l++)
            for (const pk_option_spec *o = lists[l]; o && o->name; o++)
                pk_output_printf(out, "%s\t%s\t%s\t%s\t%s\n", o->name,
                                 o->argument ? o->argument : "", f->name,
                                 l == 0 ? "input" : "output", o->help);
    }
}

static void print_table(pk_output *out)
{
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
            pk_output_printf(out, " (also: ");
            print_list(out, f->aliases);
            pk_output_printf(out, ")");
        }
        pk_output_printf(out, "\n");
    }
}

int pk_cmd_formats(int argc, char **argv)
{
    static const cli_option own[] = {
        {"tab", 0, KEY_TAB},
        {"options", 0, KEY_OPTIONS},
        {NULL, 0, 0},
    };
    formats_args args = {false, false};
    char **rest;
    int rest_count;
    int status = cli_parse(argc, argv, own, formats_option, &args, NULL, 0, formats_help, &rest,
                           &rest_count);
    if (status != 0)
        return status < 0 ? PK_EXIT_OK : status;
    if (rest_count != 0) {
        cli_error("formats: takes no arguments");
        return PK_EXIT_USAGE;
    }
    if (args.tab && args.options) {
        cli_error("formats: --tab and --options are two different listings: give one");
        return PK_EXIT_USAGE;
    }
    pk_output *out;
    pk_error err;
    pk_error_clear(&err);
    pk_status st = pk_output_create("-", NULL, &out, &err);
    if (st != PK_OK)
        return cli_report_error(NULL, &err);
    if (args.tab)
        print_tab(out);
    else if (args.options)
        print_options(out);
    else
        print_table(out);
    return cli_finish_output(out, PK_OK, &err);
}
