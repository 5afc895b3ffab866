/* SPDX-License-Identifier: MIT */
/* profkit: read, write, convert and analyse profiler data files. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "profkit/version.h"

const pk_command pk_commands[] = {
    /* commands:begin */
    {"convert", "convert a profile to another format", pk_cmd_convert},
    {"info", "show what a profile holds: metadata, threads, values, warnings", pk_cmd_info},
    {"dump", "print a binary profile record by record with byte offsets", pk_cmd_dump},
    {"formats", "list the formats profkit reads and writes", pk_cmd_formats},
    {"report", "top functions, call tree, callers, lines, memory leaks, threads", pk_cmd_report},
    {"diff", "compare two profiles: table, folded lines or differential flame graph", pk_cmd_diff},
    {"merge", "sum several profiles into one", pk_cmd_merge},
    {"view", "open a profile in the Firefox Profiler, served from this machine", pk_cmd_view},
    {"capture", "capture BrightScript profiler data from a Roku device", pk_cmd_capture},
    /* commands:end */
};
const size_t pk_command_count = sizeof pk_commands / sizeof pk_commands[0];

static void print_usage(FILE *f)
{
    fprintf(f, "Usage: profkit COMMAND [OPTIONS] ...\n\n"
               "Reads, writes, converts and analyses profiler data files.\n\nCommands:\n");
    for (size_t i = 0; i < pk_command_count; i++)
        fprintf(f, "  %-10s %s\n", pk_commands[i].name, pk_commands[i].summary);
    fprintf(f, "\nRun `profkit COMMAND --help` for the options of a command,\n"
               "`profkit formats` for the formats.\n"
               "\nExamples:\n"
               "  profkit convert channel.bsprof -o channel.json     # open in profiler.firefox.com\n"
               "  profkit convert channel.bsprof --to folded > out.folded\n"
               "  profkit info channel.bsprof\n"
               "  profkit report channel.bsprof --tree               # call tree on the terminal\n"
               "  profkit convert channel.bsprof -o flame.svg        # interactive flame graph\n"
               "  profkit capture 192.168.1.20 -o channel.bsprof     # from a Roku device\n"
               "  profkit view channel.bsprof                        # in the Firefox Profiler\n");
}

/* The command's version, the library's (a newer shared library may be the one loaded) and the
 * libraries that one was built with. */
static void print_version(void)
{
    printf("profkit %s\n", PROFKIT_VERSION);
    printf("libprofkit %s\n", pk_version_string());
    printf("libraries:\n");
    for (size_t i = 0; i < pk_dependency_count(); i++) {
        const pk_dependency *d = pk_dependency_at(i);
        if (!d->version) {
            printf("  %s (no version known)\n", d->name);
            continue;
        }
        printf("  %s %s", d->name, d->version);
        if (!d->runtime)
            printf(" (at build time)");
        else if (d->built_with && strcmp(d->built_with, d->version) != 0)
            printf(" (built with %s)", d->built_with);
        printf("\n");
    }
}

static int run_command(int argc, char **argv)
{
    if (argc < 2) {
        print_usage(stderr);
        return PK_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        print_usage(stdout);
        return PK_EXIT_OK;
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) {
        print_version();
        return PK_EXIT_OK;
    }
    for (size_t i = 0; i < pk_command_count; i++) {
        if (strcmp(name, pk_commands[i].name) == 0)
            return pk_commands[i].run(argc - 1, argv + 1);
    }
    cli_error("unknown command '%s' (see `profkit --help`)", name);
    return PK_EXIT_USAGE;
}

/* Standard output written through stdio is flushed here: a failed write (a full disk, a closed
 * pipe) is an error of the whole run, not a silent loss. */
static bool close_standard_output(void)
{
    bool ok = fflush(stdout) == 0 && !ferror(stdout);
    int e = errno;
    if (fclose(stdout) != 0 && ok) {
        ok = false;
        e = errno;
    }
    if (!ok)
        cli_error("standard output: cannot write: %s", strerror(e));
    return ok;
}

int main(int argc, char **argv)
{
    /* An output being written when the run is interrupted leaves nothing behind. */
    pk_output_remove_on_signals();
    int status = run_command(argc, argv);
    if (!close_standard_output() && status == PK_EXIT_OK)
        status = PK_EXIT_FAILURE;
    return status;
}
