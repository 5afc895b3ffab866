/* SPDX-License-Identifier: MIT */
/* profkit capture: BrightScript profiler data from a Roku device (profkit/capture.h), kept as
 * the device sent it or converted once it is all there. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "profkit/capture.h"

static const char capture_help[] =
    "Usage: profkit capture HOST[:PORT] -o OUTPUT [--download] [OPTIONS]\n"
    "\n"
    "Captures BrightScript profiler data (.bsprof) from a Roku device in developer mode, with\n"
    "a side-loaded channel whose manifest has bsprof_enable=1 (see docs/formats/bsprof.md).\n"
    "\n"
    "Without --download, the stream (manifest bsprof_data_dest=network): profkit connects to\n"
    "http://HOST:8090/bsprof/channel.bsprof, the device starts the channel, and the capture\n"
    "ends when the channel exits (Home on the remote). Ctrl-C ends it too, keeping what\n"
    "arrived.\n"
    "With --download, the data the device kept (bsprof_data_dest=local), from its developer\n"
    "web server (http://HOST:80, user rokudev, after the channel has run and exited).\n"
    "\n"
    "OUTPUT ending in .bsprof receives the bytes as the device sent them; any other format\n"
    "(.json for the Firefox Profiler, .svg, .folded, ... or --to) is converted from them once\n"
    "the capture is complete. The output appears only when the capture ends. A capture cut\n"
    "short (the connection dropped, Ctrl-C) keeps every byte received in the .bsprof file and\n"
    "says where its last complete entry ends: --salvage reads the entries up to there.\n"
    "\n"
    "Options:\n"
    "  -o, --output OUTPUT      where to write (see above)\n"
    "      --download           download the data the device kept instead of the stream\n"
    "      --password PASSWORD  the developer password for --download (default: the\n"
    "                           ROKU_DEV_PASSWORD environment variable)\n"
    "      --keep-raw FILE      when converting: keep the .bsprof capture in FILE as well\n"
    "                           (without it, a temporary file in $TMPDIR holds it)\n"
    "      --source DIR|ZIP     when converting: name anonymous functions ($anon_...) from the\n"
    "                           channel's source tree or package zip\n"
    "      --connect-timeout SECONDS\n"
    "                           how long to wait for the device to accept the connection\n"
    "                           (default 10); the channel itself may run as long as it likes\n"
    "      --to FORMAT          output format (see `profkit formats`)\n"
    "      --value NAME         value to write where the format carries one (default cpu)\n"
    "      --with-threads       folded stacks: put the thread name first\n"
    "      --title TEXT         title of visual outputs\n"
    "      --compress           gzip the output; --compression LEVEL sets the level (1-9)\n"
    "      --quiet              no progress line, no messages but errors\n"
    "\n"
    "Exit status: 0 for a complete capture, 1 when the capture failed or was cut short (what\n"
    "arrived is kept), 2 for usage errors.\n"
    "\n"
    "Examples:\n"
    "  profkit capture 192.168.1.20 -o channel.bsprof\n"
    "  profkit capture 192.168.1.20 -o channel.json --keep-raw channel.bsprof --source src/\n"
    "  ROKU_DEV_PASSWORD=... profkit capture 192.168.1.20 --download -o channel.bsprof\n";

enum {
    KEY_DOWNLOAD = 256,
    KEY_PASSWORD,
    KEY_KEEP_RAW,
    KEY_SOURCE,
    KEY_CONNECT_TIMEOUT,
    KEY_QUIET
};

typedef struct capture_args {
    cli_output_args output;
    bool download;
    const char *password;
    const char *keep_raw;
    const char *source;
    long connect_timeout_ms;
    bool quiet;
} capture_args;

static int capture_option(void *context, int key, const char *value)
{
    capture_args *a = context;
    switch (key) {
    case KEY_DOWNLOAD:
        a->download = true;
        return 0;
    case KEY_PASSWORD:
        a->password = value;
        return 0;
    case KEY_KEEP_RAW:
        a->keep_raw = value;
        return 0;
    case KEY_SOURCE:
        a->source = value;
        return 0;
    case KEY_QUIET:
        a->quiet = true;
        return 0;
    case KEY_CONNECT_TIMEOUT: {
        char *end;
        errno = 0;
        double seconds = strtod(value, &end);
        if (!value[0] || *end || errno || !(seconds > 0) || seconds > 86400) {
            cli_error("capture: --connect-timeout takes a number of seconds above 0; not '%s'",
                      value);
            return PK_EXIT_USAGE;
        }
        a->connect_timeout_ms = (long)(seconds * 1000.0 + 0.5);
        if (a->connect_timeout_ms < 1)
            a->connect_timeout_ms = 1;
        return 0;
    }
    }
    return cli_output_option(&a->output, key, value);
}

/* ---- signals: a capture ends on SIGINT, SIGTERM or SIGHUP, keeping what arrived ------------- */

static const int capture_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define CAPTURE_SIGNAL_COUNT (sizeof capture_signals / sizeof capture_signals[0])

static volatile sig_atomic_t capture_cancel;    /* the capture is to end */
static volatile sig_atomic_t capture_converting; /* the capture is over: a signal ends the run */
static char capture_temporary[PATH_MAX];         /* the raw capture to remove then, or "" */
static struct sigaction capture_previous[CAPTURE_SIGNAL_COUNT];
static bool capture_installed[CAPTURE_SIGNAL_COUNT];

static void on_capture_signal(int sig)
{
    if (!capture_converting) {
        capture_cancel = 1;
        return;
    }
    /* Converting: the temporary raw capture goes, then the signal takes the course it had
     * (which removes an output being written). */
    if (capture_temporary[0])
        unlink(capture_temporary);
    for (size_t i = 0; i < CAPTURE_SIGNAL_COUNT; i++)
        if (capture_signals[i] == sig && capture_installed[i])
            sigaction(sig, &capture_previous[i], NULL);
    raise(sig);
}

static void install_signals(void)
{
    for (size_t i = 0; i < CAPTURE_SIGNAL_COUNT; i++) {
        struct sigaction old;
        /* A signal ignored by the caller (nohup) stays ignored. */
        if (sigaction(capture_signals[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_capture_signal;
        sigemptyset(&sa.sa_mask);
        for (size_t k = 0; k < CAPTURE_SIGNAL_COUNT; k++)
            sigaddset(&sa.sa_mask, capture_signals[k]);
        if (sigaction(capture_signals[i], &sa, &capture_previous[i]) == 0)
            capture_installed[i] = true;
    }
}

static void restore_signals(void)
{
    for (size_t i = 0; i < CAPTURE_SIGNAL_COUNT; i++) {
        if (capture_installed[i])
            sigaction(capture_signals[i], &capture_previous[i], NULL);
        capture_installed[i] = false;
    }
}

/* ---- progress --------------------------------------------------------------------------------- */

typedef struct capture_view {
    bool tty;        /* standard error is a terminal: a progress line */
    bool quiet;
    bool line_shown; /* the progress line is on the screen */
    bool announced;  /* not a terminal: "receiving" was said */
    double last;     /* elapsed time of the last line */
} capture_view;

static void human_bytes(uint64_t bytes, char *buf, size_t size)
{
    if (bytes < 1024)
        snprintf(buf, size, "%" PRIu64 " B", bytes);
    else if (bytes < (1u << 20))
        snprintf(buf, size, "%.1f KiB", (double)bytes / 1024.0);
    else if (bytes < (1u << 30))
        snprintf(buf, size, "%.1f MiB", (double)bytes / (1024.0 * 1024.0));
    else
        snprintf(buf, size, "%.2f GiB", (double)bytes / (1024.0 * 1024.0 * 1024.0));
}

static void show_progress(void *context, const pk_capture_progress *p)
{
    capture_view *v = context;
    if (v->quiet)
        return;
    if (!v->tty) {
        /* A log gets one line when the data starts, and the summary at the end. */
        if (p->receiving && !v->announced) {
            fprintf(stderr, "profkit: receiving data\n");
            v->announced = true;
        }
        return;
    }
    if (v->line_shown && p->elapsed - v->last < 0.1)
        return;
    v->last = p->elapsed;
    v->line_shown = true;
    unsigned seconds = (unsigned)p->elapsed;
    if (!p->receiving) {
        fprintf(stderr, "\r\033[Kwaiting for the device ... %u:%02u", seconds / 60, seconds % 60);
    } else {
        char size[32];
        human_bytes(p->bytes, size, sizeof size);
        fprintf(stderr, "\r\033[Kreceived %s (%" PRIu64 " bytes), %" PRIu64 " entries, %u:%02u",
                size, p->bytes, p->entries, seconds / 60, seconds % 60);
    }
    fflush(stderr);
}

static void progress_done(capture_view *v)
{
    if (v->line_shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        v->line_shown = false;
    }
}

/* ---- the capture ------------------------------------------------------------------------------ */

/* How the raw capture is named in messages. */
static const char *shown_output(const char *path)
{
    return strcmp(path, "-") == 0 ? "standard output" : path;
}

/* Says what a capture that did not complete kept, and how to read it. */
static void report_incomplete(const pk_capture_result *r, const char *raw)
{
    if (r->end == PK_CAPTURE_CANCELLED)
        cli_error("capture interrupted");
    else
        cli_error("capture cut short: %s", r->cut.message);
    cli_error("%s holds all %" PRIu64 " bytes received", raw, r->bytes);
    if (r->complete_through == 0) {
        cli_error("%s: the header is not complete: nothing can be read from it", raw);
        return;
    }
    cli_error("the last complete entry ends at byte %" PRIu64 " (%" PRIu64 " entries)",
              r->complete_through, r->entries);
    if (r->damaged) {
        cli_error("%s: byte %" PRId64 ": %s", raw, r->damage.offset, r->damage.message);
        cli_error("--salvage reads the entries before it: profkit convert %s --salvage -o "
                  "OUTPUT",
                  raw);
    } else {
        cli_error("its entries are whole: profkit reads it (--salvage is not needed), with a "
                  "warning that the end marker is missing");
    }
}

/* A new empty file in $TMPDIR for the raw capture of a conversion; its name to path. */
static bool make_temporary(char *path, size_t size)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !dir[0])
        dir = "/tmp";
    int n = snprintf(path, size, "%s/profkit-capture-XXXXXX.bsprof", dir);
    if (n < 0 || (size_t)n >= size) {
        cli_error("capture: TMPDIR is too long a path");
        return false;
    }
    int fd = mkstemps(path, (int)strlen(".bsprof"));
    if (fd < 0) {
        cli_error("capture: cannot create a temporary file in %s: %s", dir, strerror(errno));
        return false;
    }
    close(fd);
    return true;
}

/* Converts the complete raw capture to the output. Returns an exit status. */
static int convert_capture(const capture_args *args, const pk_format *to, const char *raw)
{
    cli_input_options input;
    memset(&input, 0, sizeof input);
    input.quiet = args->quiet;
    input.no_symbols = true; /* BrightScript: no native addresses */
    input.source = args->source;
    pk_profile *p = NULL;
    int status = cli_read_profile(raw, &input, to, &p);
    if (status == PK_EXIT_OK)
        status = cli_write_profile(p, &args->output, to, &input, raw, raw);
    pk_profile_free(p);
    return status;
}

/* Checks the arguments; fills *to and *password. Returns 0 or an exit status. */
static int check_args(capture_args *args, int rest_count, const pk_format **to,
                      const char **password)
{
    if (rest_count != 1) {
        cli_error("capture: %s (see `profkit capture --help`)",
                  rest_count == 0 ? "give the device: HOST or HOST:PORT"
                                  : "give one device only");
        return PK_EXIT_USAGE;
    }
    if (!args->output.output) {
        cli_error("capture: give -o OUTPUT (for example -o channel.bsprof)");
        return PK_EXIT_USAGE;
    }
    if (!(*to = cli_output_format(&args->output, "capture")))
        return PK_EXIT_USAGE;
    bool raw = strcmp((*to)->name, "bsprof") == 0;
    if (raw && args->keep_raw) {
        cli_error("capture: --keep-raw is for converted outputs; %s is the raw capture",
                  args->output.output);
        return PK_EXIT_USAGE;
    }
    if (raw && args->source) {
        cli_error("capture: --source names functions of a converted output; %s keeps the "
                  "names as the device sent them (give --source when reading it)",
                  args->output.output);
        return PK_EXIT_USAGE;
    }
    *password = args->password;
    if (!args->download && args->password) {
        cli_error("capture: --password is for --download (the stream needs none)");
        return PK_EXIT_USAGE;
    }
    if (args->download && !*password) {
        *password = getenv("ROKU_DEV_PASSWORD");
        if (!*password || !**password) {
            cli_error("capture: --download needs the developer password: give --password or "
                      "set ROKU_DEV_PASSWORD");
            return PK_EXIT_USAGE;
        }
    }
    if (args->source) {
        /* A wrong --source is found now, not after the capture. */
        pk_source *source;
        pk_error err;
        pk_error_clear(&err);
        if (pk_source_open(args->source, &source, &err) != PK_OK)
            return cli_report_error(NULL, &err);
        pk_source_close(source);
    }
    return 0;
}

int pk_cmd_capture(int argc, char **argv)
{
    static const cli_option options[] = {
        {"output", 1, CLI_KEY_OUTPUT},
        {"to", 1, CLI_KEY_TO},
        {"value", 1, CLI_KEY_VALUE},
        {"with-threads", 0, CLI_KEY_WITH_THREADS},
        {"title", 1, CLI_KEY_TITLE},
        {"compress", 0, CLI_KEY_COMPRESS},
        {"compression", 1, CLI_KEY_COMPRESSION},
        {"download", 0, KEY_DOWNLOAD},
        {"password", 1, KEY_PASSWORD},
        {"keep-raw", 1, KEY_KEEP_RAW},
        {"source", 1, KEY_SOURCE},
        {"connect-timeout", 1, KEY_CONNECT_TIMEOUT},
        {"quiet", 0, KEY_QUIET},
        {NULL, 0, 0},
    };
    capture_args args;
    memset(&args, 0, sizeof args);
    char **rest;
    int rest_count;
    int status = cli_parse(argc, argv, options, capture_option, &args, NULL, 0, capture_help,
                           &rest, &rest_count);
    if (status != 0)
        return status < 0 ? PK_EXIT_OK : status;
    const pk_format *to;
    const char *password;
    if ((status = check_args(&args, rest_count, &to, &password)) != 0)
        return status;
    bool convert = strcmp(to->name, "bsprof") != 0;

    /* Where the bytes go: the output itself, or the raw file a conversion reads. */
    char temporary[PATH_MAX] = "";
    const char *raw = args.output.output;
    if (convert && args.keep_raw) {
        raw = args.keep_raw;
    } else if (convert) {
        if (!make_temporary(temporary, sizeof temporary))
            return PK_EXIT_FAILURE;
        raw = temporary;
    }

    capture_view view = {.tty = isatty(STDERR_FILENO) != 0, .quiet = args.quiet};
    capture_cancel = 0;
    capture_converting = 0;
    capture_temporary[0] = '\0';
    pk_capture_options capture = {
        .mode = args.download ? PK_CAPTURE_DOWNLOAD : PK_CAPTURE_NETWORK,
        .host = rest[0],
        .password = password,
        .progress = show_progress,
        .progress_context = &view,
        .cancel = &capture_cancel,
        .connect_timeout_ms = args.connect_timeout_ms,
    };
    pk_output_options output = {
        .protect_path = NULL,
        .compression = convert ? PK_COMPRESSION_NONE : args.output.compression,
        .compression_level = args.output.compression_level,
    };
    if (!args.quiet && !args.download)
        cli_error("connecting to %s: the channel starts once connected; exit it to end the "
                  "capture (Ctrl-C ends it too, keeping what arrived)",
                  rest[0]);
    install_signals();
    pk_capture_result result;
    pk_error err;
    pk_error_clear(&err);
    pk_status captured = pk_capture_file(&capture, raw, &output, &result, &err);
    progress_done(&view);
    if (captured != PK_OK) {
        restore_signals();
        if (temporary[0])
            unlink(temporary);
        return cli_report_error(NULL, &err);
    }
    if (result.end != PK_CAPTURE_COMPLETE) {
        restore_signals();
        report_incomplete(&result, shown_output(raw));
        return PK_EXIT_FAILURE;
    }
    if (!args.quiet)
        cli_error("%s: complete capture: %" PRIu64 " bytes, %" PRIu64 " entries",
                  shown_output(raw), result.bytes, result.entries);
    if (convert) {
        /* From here a signal ends the run, taking the temporary with it. */
        if (temporary[0])
            snprintf(capture_temporary, sizeof capture_temporary, "%s", temporary);
        capture_converting = 1;
        status = convert_capture(&args, to, raw);
    }
    restore_signals();
    if (temporary[0])
        unlink(temporary);
    return status;
}
