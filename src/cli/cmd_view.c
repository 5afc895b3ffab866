/* SPDX-License-Identifier: MIT */
/* profkit view: open a profile in the Firefox Profiler. The profile is converted in memory and
 * served on the loopback interface; the Firefox Profiler's page fetches it from there through
 * its from-url route, as it does for samply. */
#define _GNU_SOURCE /* getrandom */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "cli.h"
#include "profile_server.h"
#include "profkit/code_server.h"

extern char **environ;

#define DEFAULT_APP_URL "https://profiler.firefox.com"
/* The writer whose output the Firefox Profiler reads: the one format this command is about. */
#define VIEWER_FORMAT "firefox"

static const char view_help[] =
    "Usage: profkit view INPUT [--port N] [--no-open] [--app-url URL] [OPTIONS]\n"
    "\n"
    "Opens a profile in the Firefox Profiler. The profile is converted in memory and served\n"
    "on 127.0.0.1 only, at an address with a random part that other pages cannot guess; the\n"
    "command prints the address and the Firefox Profiler link that loads it\n"
    "(APP-URL/from-url/ADDRESS), opens the link in the default browser, and serves until it\n"
    "is interrupted (Ctrl+C). Nothing is uploaded: the page reads the profile from this\n"
    "machine (use the profiler's Upload button to share it).\n"
    "\n"
    "The same address answers the profiler's symbol server API (the link's symbolServer), so\n"
    "that a double-click on a function shows its source lines with their samples: the files\n"
    "the profile names, and only those: BrightScript files from the channel's source\n"
    "(--source DIR|ZIP, never following a link or '..' out of it), native source files named\n"
    "by DWARF from this machine; and the assembly view the instructions of native libraries\n"
    "whose binaries are on this machine (disassembled with capstone).\n"
    "\n"
    "Options:\n"
    "      --port N             port to serve on (default 0: any free port, printed)\n"
    "      --no-open            print the link only, do not start a browser\n"
    "      --app-url URL        a self-hosted Firefox Profiler (default " DEFAULT_APP_URL ");\n"
    "                           only pages of its origin may read the profile\n"
    "      --value NAME         value to show as sample weights (default: the input's default)\n"
    "      --source DIR|ZIP     the channel's source: its files for the source view (and\n"
    "                           names for anonymous functions, as `report --source`)\n"
    "      --from FORMAT        input format, when probing the content is not wanted\n"
    "      --salvage            keep what can be read before damage in the input\n"
    "      --quiet              no progress bar, no warnings, no line per request\n"
    "\n"
    "Example:\n"
    "  profkit view channel.bsprof\n"
    "  profkit view --no-open --port 8000 cpu.pb.gz      # then open the printed link\n";

enum { KEY_PORT = 256, KEY_NO_OPEN, KEY_APP_URL, KEY_VALUE };

typedef struct view_args {
    long port;
    bool no_open;
    const char *app_url;
    const char *value;
} view_args;

static int view_option(void *context, int key, const char *value)
{
    view_args *a = context;
    switch (key) {
    case KEY_PORT: {
        char *end;
        errno = 0;
        long port = strtol(value, &end, 10);
        if (!value[0] || *end || errno || port < 0 || port > 65535) {
            cli_error("--port takes a port number from 0 to 65535 (0: any free port), not '%s'",
                      value);
            return PK_EXIT_USAGE;
        }
        a->port = port;
        return 0;
    }
    case KEY_NO_OPEN:
        a->no_open = true;
        return 0;
    case KEY_APP_URL:
        a->app_url = value;
        return 0;
    case KEY_VALUE:
        a->value = value;
        return 0;
    }
    return PK_EXIT_USAGE;
}

/* The app's URL without a trailing slash into app, and its origin (scheme://host[:port]) into
 * origin. False for anything but an http or https URL of printable ASCII. */
static bool split_app_url(const char *url, char *app, size_t app_size, char *origin,
                          size_t origin_size)
{
    const char *rest;
    if (strncmp(url, "https://", 8) == 0)
        rest = url + 8;
    else if (strncmp(url, "http://", 7) == 0)
        rest = url + 7;
    else
        return false;
    for (const char *c = url; *c; c++)
        if (*c <= ' ' || *c > '~')
            return false; /* also keeps the origin header free of line breaks */
    size_t host = strcspn(rest, "/?#");
    size_t length = strlen(url);
    if (host == 0 || length >= app_size || (size_t)(rest - url) + host >= origin_size ||
        strpbrk(rest + host, "?#"))
        return false;
    memcpy(origin, url, (size_t)(rest - url) + host);
    origin[(size_t)(rest - url) + host] = '\0';
    while (length > 0 && url[length - 1] == '/')
        length--;
    memcpy(app, url, length);
    app[length] = '\0';
    return true;
}

/* Percent-encodes s as a URL component (what encodeURIComponent leaves alone stays). */
static void percent_encode(const char *s, char *out, size_t size)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n = 0;
    for (; *s && n + 4 < size; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
            strchr("-_.!~*'()", c)) {
            out[n++] = (char)c;
        } else {
            out[n++] = '%';
            out[n++] = hex[c >> 4];
            out[n++] = hex[c & 15];
        }
    }
    out[n] = '\0';
}

/* The document's path: a random part, so that only who was given the address can fetch it,
 * and a file name after the input's, which the profiler may show. */
static void document_path(const char *input, char *path, size_t size)
{
    uint8_t random[16];
    if (getrandom(random, sizeof random, 0) != (ssize_t)sizeof random) {
        /* No entropy source: still unlikely to be guessed by a page that cannot list it. */
        uint64_t mix = (uint64_t)getpid() * 0x9E3779B97F4A7C15u ^ (uint64_t)(uintptr_t)path;
        for (size_t i = 0; i < sizeof random; i++, mix = mix * 6364136223846793005u + 1)
            random[i] = (uint8_t)(mix >> 56);
    }
    char token[2 * sizeof random + 1];
    for (size_t i = 0; i < sizeof random; i++)
        snprintf(token + 2 * i, 3, "%02x", random[i]);
    const char *base = strcmp(input, "-") == 0 ? "profile" : input;
    const char *slash = strrchr(base, '/');
    if (slash)
        base = slash + 1;
    char name[96];
    size_t n = 0;
    for (; base[n] && base[n] != '.' && n < sizeof name - 1; n++) {
        char c = base[n];
        bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                     c == '-' || c == '_';
        name[n] = plain ? c : '_';
    }
    name[n] = '\0';
    snprintf(path, size, "/%s/%s.json", token, n ? name : "profile");
}

/* Starts the default browser on url through xdg-open; nothing happens when there is none. */
static bool open_browser(const char *url)
{
    posix_spawn_file_actions_t actions;
    if (posix_spawn_file_actions_init(&actions) != 0)
        return false;
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    char *argv[] = {"xdg-open", (char *)url, NULL};
    pid_t pid;
    int failed = posix_spawnp(&pid, "xdg-open", &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    return failed == 0;
}

static volatile sig_atomic_t stop_requested;

static void request_stop(int signal_number)
{
    (void)signal_number;
    stop_requested = 1;
}

/* The profile as the viewer's JSON, plain and gzip-compressed; owned (free both). */
typedef struct document {
    char *plain, *compressed;
    size_t plain_size, compressed_size;
} document;

/* Converts p into doc, its script frames attributed to the channel's source (the writer's
 * option "source") so that the profiler asks for their files. Returns an exit status. */
static int convert(const pk_profile *p, const pk_format *viewer, uint32_t value,
                   const cli_input_options *input, document *doc)
{
    size_t extra_count;
    pk_option *extra = cli_writer_extra(input, input->source ? input->source : "", &extra_count);
    if (!extra)
        return PK_EXIT_FAILURE;
    int status = PK_EXIT_OK;
    pk_write_options options = {
        .value = value,
        .extra = {extra, extra_count},
        .compression = PK_COMPRESSION_NONE,
    };
    pk_error err;
    pk_error_clear(&err);
    if (pk_write_memory(p, viewer, &options, &doc->plain, &doc->plain_size, &err) != PK_OK) {
        status = cli_report_error(NULL, &err);
    } else {
        options.compression = PK_COMPRESSION_GZIP;
        options.compression_level = 6;
        if (pk_write_memory(p, viewer, &options, &doc->compressed, &doc->compressed_size,
                            &err) != PK_OK)
            status = cli_report_error(NULL, &err);
    }
    free(extra);
    return status;
}

static int answer_code_request(void *context, const char *route, const char *body, size_t size,
                               char **response, size_t *response_size)
{
    return pk_code_server_answer(context, route, body, size, response, response_size);
}

/* Serves doc until interrupted. The server and the strings it points to (its path here, the
 * origin and the document in the caller) live until it is closed, before this returns. */
static int serve(const char *input_path, const view_args *args, const char *app,
                 const char *origin, const document *doc, pk_code_server *code, bool log)
{
    char path[160], profile_url[256], encoded[768], api_path[64], api_url[128], api_encoded[384];
    document_path(input_path, path, sizeof path);
    /* The symbol server's address: the document's random part, which only the app is given. */
    snprintf(api_path, sizeof api_path, "%.*s", (int)strcspn(path + 1, "/") + 1, path);
    profile_server server = {
        .listen_fd = -1,
        .path = path,
        .origin = origin,
        .body = doc->plain,
        .body_size = doc->plain_size,
        .gzip_body = doc->compressed,
        .gzip_body_size = doc->compressed_size,
        .content_type = "application/json",
        .log = log,
        .api_path = api_path,
        .answer_api = answer_code_request,
        .api_context = code,
    };
    if (!profile_server_listen(&server, (uint16_t)args->port)) {
        cli_error("view: cannot serve on 127.0.0.1 port %ld: %s", args->port, strerror(errno));
        return PK_EXIT_FAILURE;
    }
    snprintf(profile_url, sizeof profile_url, "http://127.0.0.1:%u%s", (unsigned)server.port,
             path);
    percent_encode(profile_url, encoded, sizeof encoded);
    snprintf(api_url, sizeof api_url, "http://127.0.0.1:%u%s", (unsigned)server.port, api_path);
    percent_encode(api_url, api_encoded, sizeof api_encoded);
    printf("Serving %s on 127.0.0.1 port %u until interrupted (Ctrl+C).\n",
           cli_shown_name(input_path), (unsigned)server.port);
    printf("Profile: %s\n", profile_url);
    printf("Open:    %s/from-url/%s/?symbolServer=%s\n", app, encoded, api_encoded);
    fflush(stdout);
    if (!args->no_open) {
        char link[4096];
        snprintf(link, sizeof link, "%s/from-url/%s/?symbolServer=%s", app, encoded,
                 api_encoded);
        if (!open_browser(link))
            fprintf(stderr, "profkit: no browser could be started (xdg-open); open the link "
                            "above in one\n");
    }
    bool ok = profile_server_run(&server, &stop_requested);
    int e = errno;
    profile_server_close(&server);
    if (!ok) {
        cli_error("view: serving stopped: %s", strerror(e));
        return PK_EXIT_FAILURE;
    }
    if (server.log)
        fprintf(stderr, "profkit: stopped serving %s\n", cli_shown_name(input_path));
    return PK_EXIT_OK;
}

int pk_cmd_view(int argc, char **argv)
{
    static const cli_option options[] = {
        {"port", 1, KEY_PORT},       {"no-open", 0, KEY_NO_OPEN},
        {"app-url", 1, KEY_APP_URL}, {"value", 1, KEY_VALUE},
        {NULL, 0, 0},
    };
    view_args args = {.port = 0, .app_url = DEFAULT_APP_URL};
    cli_input_options input;
    char **rest;
    int rest_count;
    int status = cli_parse(argc, argv, options, view_option, &args, &input, CLI_ACCEPTS_NAMES,
                           view_help, &rest, &rest_count);
    if (status != 0) {
        cli_free_input_options(&input);
        return status < 0 ? PK_EXIT_OK : status;
    }
    char app[1024], origin[1024];
    if (rest_count != 1) {
        cli_error("view: %s (see `profkit view --help`)",
                  rest_count == 0 ? "give one INPUT file" : "give only one INPUT file");
        status = PK_EXIT_USAGE;
    } else if (!split_app_url(args.app_url, app, sizeof app, origin, sizeof origin)) {
        cli_error("view: --app-url takes an http:// or https:// URL of the profiler's page, "
                  "not '%s'", args.app_url);
        status = PK_EXIT_USAGE;
    }
    const pk_format *viewer = pk_format_by_name(VIEWER_FORMAT);
    if (status == PK_EXIT_OK && (!viewer || !viewer->write)) {
        cli_error("view: this build of profkit cannot write Firefox Profiler files");
        status = PK_EXIT_FAILURE;
    }
    pk_profile *p = NULL;
    if (status == PK_EXIT_OK)
        status = cli_read_profile(rest[0], &input, viewer, &p);
    uint32_t value = PK_NONE;
    if (status == PK_EXIT_OK) {
        value = cli_pick_value(p, args.value, rest[0]);
        if (value == PK_NONE && pk_value_type_count(p) > 0)
            status = PK_EXIT_USAGE;
    }
    document doc = {0};
    if (status == PK_EXIT_OK)
        status = convert(p, viewer, value, &input, &doc);
    /* The profile stays: the code server answers from its files and libraries. */
    pk_source *source = NULL;
    pk_code_server *code = NULL;
    if (status == PK_EXIT_OK) {
        pk_error err;
        pk_error_clear(&err);
        /* The binaries are searched for as the symbolization pass searches them. */
        pk_symbolize_options symbols = {(const char *const *)input.symbol_paths,
                                        input.symbol_path_count, NULL, 0};
        if ((input.source && pk_source_open(input.source, &source, &err) != PK_OK) ||
            pk_code_server_new(p, &(pk_code_server_options){source, &symbols}, &code, &err) !=
                PK_OK)
            status = cli_report_error(input.source, &err);
    }
    if (status == PK_EXIT_OK) {
        /* Stop on SIGINT and SIGTERM by leaving the loop; a browser started here is not
         * waited for. */
        struct sigaction stop = {.sa_handler = request_stop};
        sigemptyset(&stop.sa_mask);
        sigaction(SIGINT, &stop, NULL);
        sigaction(SIGTERM, &stop, NULL);
        signal(SIGCHLD, SIG_IGN);
        status = serve(rest[0], &args, app, origin, &doc, code, !input.quiet);
    }
    pk_code_server_free(code);
    pk_source_close(source);
    pk_profile_free(p);
    free(doc.plain);
    free(doc.compressed);
    cli_free_input_options(&input);
    return status;
}
