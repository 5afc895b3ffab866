/* SPDX-License-Identifier: MIT */
/* Capturing from a Roku device (profkit/capture.h) against the simulated device of
 * tests/tools/roku_device.py: a stream that arrives slowly and ends at channel exit, one cut
 * inside an entry, one ended by the caller, one ending between entries without its end marker,
 * the developer web server's download with the right password, a wrong one and no data, a
 * device that sends something else and one that cannot be reached; and the device addresses
 * accepted. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture/host.h"
#include "profkit/capture.h"
#include "profkit/format.h"
#include "profkit/output.h"

/* ---- the simulated device ------------------------------------------------------------------- */

typedef struct device {
    pid_t pid;
    char address[64]; /* 127.0.0.1:PORT */
} device;

static const char *scratch(const char *name)
{
    static char path[1024];
    const char *dir = getenv("PK_TEST_TMPDIR");
    snprintf(path, sizeof path, "%s/capture_%s", dir ? dir : ".", name);
    return path;
}

static const char *example_path(void)
{
    static char path[1024];
    const char *src = getenv("PK_SOURCE_DIR");
    snprintf(path, sizeof path, "%s/examples/roku-channel.bsprof", src ? src : ".");
    return path;
}

static char *read_whole(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *data = malloc((size_t)n + 1);
    assert_non_null(data);
    assert_int_equal(fread(data, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return data;
}

static void write_whole(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    fclose(f);
}

/* Starts the device (mode "network" or "local") handing out data_path, with more arguments
 * (NULL-terminated), and waits until it listens. */
static device start_device(const char *mode, const char *data_path, ...)
{
    const char *argv[32];
    size_t n = 0;
    char script[1024], port_file[1024], data[1024];
    snprintf(data, sizeof data, "%s", data_path); /* scratch() reuses its buffer */
    const char *src = getenv("PK_SOURCE_DIR");
    snprintf(script, sizeof script, "%s/tests/tools/roku_device.py", src ? src : ".");
    snprintf(port_file, sizeof port_file, "%s", scratch("port"));
    remove(port_file);
    argv[n++] = "python3";
    argv[n++] = script;
    argv[n++] = mode;
    argv[n++] = data;
    argv[n++] = "--port-file";
    argv[n++] = port_file;
    va_list ap;
    va_start(ap, data_path);
    const char *arg;
    while ((arg = va_arg(ap, const char *)) != NULL && n + 1 < sizeof argv / sizeof argv[0])
        argv[n++] = arg;
    va_end(ap);
    argv[n] = NULL;
    device d = {0};
    d.pid = fork();
    assert_true(d.pid >= 0);
    if (d.pid == 0) {
        execvp("python3", (char *const *)argv);
        _exit(127);
    }
    /* Waits for the port as long as a loaded machine needs; the device exiting ends it. */
    for (;;) {
        size_t size;
        char *port = read_whole(port_file, &size);
        if (port) {
            snprintf(d.address, sizeof d.address, "127.0.0.1:%.*s", (int)size, port);
            free(port);
            return d;
        }
        int status;
        if (waitpid(d.pid, &status, WNOHANG) == d.pid)
            fail_msg("the simulated device exited (status %d)", status);
        struct timespec pause = {0, 20 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
}

static void stop_device(device *d)
{
    kill(d->pid, SIGTERM);
    int status;
    waitpid(d->pid, &status, 0);
}

/* ---- capturing into memory ------------------------------------------------------------------ */

typedef struct watched {
    size_t calls;
    uint64_t last_bytes, last_entries;
    bool saw_receiving;
    uint64_t cancel_at; /* set the cancel flag once this many bytes are in; 0 = never */
    volatile sig_atomic_t cancel;
} watched;

static void watch_progress(void *context, const pk_capture_progress *p)
{
    watched *w = context;
    /* Never backwards. */
    assert_true(p->bytes >= w->last_bytes);
    assert_true(p->entries >= w->last_entries);
    assert_true(p->complete_through <= p->bytes);
    assert_true(p->elapsed >= 0);
    w->calls++;
    w->last_bytes = p->bytes;
    w->last_entries = p->entries;
    w->saw_receiving |= p->receiving;
    if (w->cancel_at && p->bytes >= w->cancel_at)
        w->cancel = 1;
}

typedef struct captured {
    pk_status status;
    pk_capture_result result;
    pk_error err;
    char *data;
    size_t size;
} captured;

static captured capture_memory(pk_capture_mode mode, const char *host, const char *password,
                               watched *w)
{
    captured c;
    memset(&c, 0, sizeof c);
    pk_output *out = pk_output_create_memory();
    assert_non_null(out);
    pk_capture_options options = {
        .mode = mode,
        .host = host,
        .password = password,
        .progress = watch_progress,
        .progress_context = w,
        .cancel = &w->cancel,
    };
    pk_error_clear(&c.err);
    c.status = pk_capture(&options, out, &c.result, &c.err);
    if (c.status == PK_OK) {
        pk_error finish;
        assert_int_equal(pk_output_finish_memory(out, &c.data, &c.size, &finish), PK_OK);
    } else {
        pk_output_discard(out);
    }
    return c;
}

/* Where reading bytes stops: their size when they read whole (with or without end marker), or
 * the offset of the damage the reader reports. */
static uint64_t readable_through(const char *data, size_t size)
{
    pk_read_options none = {0};
    pk_profile *p = NULL;
    pk_error err;
    pk_status st = pk_read_memory(data, size, pk_format_by_name("bsprof"), &none, &p, &err);
    pk_profile_free(p);
    if (st == PK_OK)
        return size;
    assert_int_equal(st, PK_ERR_INPUT);
    assert_true(err.salvageable);
    return (uint64_t)err.offset;
}

static void complete_stream(void **state)
{
    (void)state;
    size_t size;
    char *example = read_whole(example_path(), &size);
    assert_non_null(example);
    device d = start_device("network", example_path(), "--chunk", "8192", "--delay", "0.005",
                            (const char *)NULL);
    watched w = {0};
    captured c = capture_memory(PK_CAPTURE_NETWORK, d.address, NULL, &w);
    stop_device(&d);
    assert_int_equal(c.status, PK_OK);
    assert_int_equal(c.result.end, PK_CAPTURE_COMPLETE);
    assert_true(c.result.end_marker);
    assert_false(c.result.damaged);
    assert_int_equal(c.result.bytes, size);
    assert_int_equal(c.result.complete_through, size);
    assert_int_equal(c.size, size);
    assert_memory_equal(c.data, example, size);
    /* Every entry: as many as the dump prints records between the header and the end marker. */
    char *dump = NULL;
    size_t dump_size = 0;
    pk_output *out = pk_output_create_memory();
    pk_reader *r;
    pk_error err;
    assert_int_equal(pk_reader_open_memory(example, size, NULL, &r, &err), PK_OK);
    assert_int_equal(pk_reader_dump(r, true, NULL, out, &err), PK_OK);
    pk_reader_close(r);
    assert_int_equal(pk_output_finish_memory(out, &dump, &dump_size, &err), PK_OK);
    uint64_t records = 0;
    for (const char *line = dump; line && *line;) {
        records += line[0] >= '0' && line[0] <= '9';
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
    assert_true(records > 1000);
    /* The dump's records: the header, the entries, the end marker and the footer. */
    assert_int_equal(c.result.entries + 3, records);
    assert_true(w.calls >= 1);
    assert_true(w.saw_receiving);
    assert_int_equal(w.last_bytes, size);
    free(dump);
    free(c.data);
    free(example);
}

static void stream_cut_inside_an_entry(void **state)
{
    (void)state;
    size_t size;
    char *example = read_whole(example_path(), &size);
    device d = start_device("network", example_path(), "--chunk", "4096", "--drop-at", "50003",
                            (const char *)NULL);
    watched w = {0};
    captured c = capture_memory(PK_CAPTURE_NETWORK, d.address, NULL, &w);
    stop_device(&d);
    assert_int_equal(c.status, PK_OK);
    assert_int_equal(c.result.end, PK_CAPTURE_CUT);
    assert_false(c.result.end_marker);
    assert_int_equal(c.result.bytes, 50003);
    assert_int_equal(c.size, 50003);
    assert_memory_equal(c.data, example, 50003);
    assert_true(c.result.cut.message[0] != '\0');
    /* Where the reader stops, and says why. */
    uint64_t through = readable_through(c.data, c.size);
    assert_true(through < 50003);
    assert_int_equal(c.result.complete_through, through);
    assert_true(c.result.damaged);
    assert_int_equal(c.result.damage.offset, (int64_t)through);
    assert_non_null(strstr(c.result.damage.message, "truncated"));
    free(c.data);
    free(example);
}

static void stream_ended_by_the_caller(void **state)
{
    (void)state;
    size_t size;
    char *example = read_whole(example_path(), &size);
    /* The device sends 30001 bytes and then nothing: the caller ends the capture once they are
     * in. */
    device d = start_device("network", example_path(), "--chunk", "1000", "--stall-at", "30001",
                            (const char *)NULL);
    watched w = {.cancel_at = 30001};
    captured c = capture_memory(PK_CAPTURE_NETWORK, d.address, NULL, &w);
    stop_device(&d);
    assert_int_equal(c.status, PK_OK);
    assert_int_equal(c.result.end, PK_CAPTURE_CANCELLED);
    assert_int_equal(c.result.bytes, 30001);
    assert_int_equal(c.size, 30001);
    assert_memory_equal(c.data, example, 30001);
    assert_int_equal(c.result.complete_through, readable_through(c.data, c.size));
    free(c.data);
    free(example);
}

static void stream_ending_between_entries(void **state)
{
    (void)state;
    size_t size;
    char *example = read_whole(example_path(), &size);
    /* The bytes up to a whole entry, found as the reader finds them. */
    uint64_t through = readable_through(example, 40000);
    assert_true(through > 1000 && through < 40000);
    const char *cut_path = scratch("between.bsprof");
    write_whole(cut_path, example, (size_t)through);
    device d = start_device("network", cut_path, (const char *)NULL);
    watched w = {0};
    captured c = capture_memory(PK_CAPTURE_NETWORK, d.address, NULL, &w);
    stop_device(&d);
    assert_int_equal(c.status, PK_OK);
    assert_int_equal(c.result.end, PK_CAPTURE_CUT);
    assert_false(c.result.damaged);
    assert_false(c.result.end_marker);
    assert_int_equal(c.result.complete_through, through);
    assert_non_null(strstr(c.result.cut.message, "before the end"));
    free(c.data);
    free(example);
}

static void download_with_the_password(void **state)
{
    (void)state;
    size_t size;
    char *example = read_whole(example_path(), &size);
    const char *log = scratch("download.log");
    remove(log);
    device d = start_device("local", example_path(), "--password", "s3cret", "--log", log,
                            (const char *)NULL);
    watched w = {0};
    captured c = capture_memory(PK_CAPTURE_DOWNLOAD, d.address, "s3cret", &w);
    assert_int_equal(c.status, PK_OK);
    assert_int_equal(c.result.end, PK_CAPTURE_COMPLETE);
    assert_int_equal(c.size, size);
    assert_memory_equal(c.data, example, size);
    free(c.data);
    /* The form was sent with the field and the password, then the file fetched. */
    size_t log_size;
    char *requests = read_whole(log, &log_size);
    assert_non_null(requests);
    assert_non_null(strstr(requests, "POST /plugin_inspect auth=yes field=dloadProf"));
    assert_non_null(strstr(requests, "GET /pkgs/channel.bsprof auth=yes"));
    free(requests);

    /* A wrong password: refused, nothing kept. */
    watched w2 = {0};
    c = capture_memory(PK_CAPTURE_DOWNLOAD, d.address, "wrong", &w2);
    assert_int_equal(c.status, PK_ERR_IO);
    assert_non_null(strstr(c.err.message, "refused the password"));
    assert_false(w2.saw_receiving);
    /* No password at all: the caller's mistake. */
    c = capture_memory(PK_CAPTURE_DOWNLOAD, d.address, NULL, &w2);
    assert_int_equal(c.status, PK_ERR_USAGE);
    stop_device(&d);
    free(example);
}

static void download_without_data(void **state)
{
    (void)state;
    device d = start_device("local", example_path(), "--password", "pw", "--no-data",
                            (const char *)NULL);
    watched w = {0};
    captured c = capture_memory(PK_CAPTURE_DOWNLOAD, d.address, "pw", &w);
    stop_device(&d);
    assert_int_equal(c.status, PK_ERR_INPUT);
    assert_non_null(strstr(c.err.message, "No profiling data available"));

    /* An empty file is no data either. */
    const char *empty = scratch("empty.bsprof");
    write_whole(empty, "", 0);
    d = start_device("local", empty, "--password", "pw", (const char *)NULL);
    c = capture_memory(PK_CAPTURE_DOWNLOAD, d.address, "pw", &w);
    stop_device(&d);
    assert_int_equal(c.status, PK_ERR_INPUT);
    assert_non_null(strstr(c.err.message, "empty"));
}

static void devices_that_send_nothing_usable(void **state)
{
    (void)state;
    /* Something else than .bsprof. */
    const char *html = scratch("page.html");
    write_whole(html, "<html>busy</html>", 17);
    device d = start_device("network", html, (const char *)NULL);
    watched w = {0};
    captured c = capture_memory(PK_CAPTURE_NETWORK, d.address, NULL, &w);
    stop_device(&d);
    assert_int_equal(c.status, PK_ERR_INPUT);
    assert_non_null(strstr(c.err.message, "<html>"));

    /* Nobody listening: a port taken and let go. */
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof a), 0);
    socklen_t len = sizeof a;
    assert_int_equal(getsockname(s, (struct sockaddr *)&a, &len), 0);
    close(s);
    char host[64];
    snprintf(host, sizeof host, "127.0.0.1:%u", (unsigned)ntohs(a.sin_port));
    const char *path = scratch("unreachable.bsprof");
    remove(path);
    pk_capture_options options = {.mode = PK_CAPTURE_NETWORK, .host = host};
    pk_capture_result result;
    pk_error err;
    assert_int_equal(pk_capture_file(&options, path, NULL, &result, &err), PK_ERR_IO);
    assert_non_null(strstr(err.message, host));
    struct stat st;
    assert_int_equal(stat(path, &st), -1);
}

static void files_appear_with_what_arrived(void **state)
{
    (void)state;
    size_t size;
    char *example = read_whole(example_path(), &size);
    device d = start_device("network", example_path(), "--drop-at", "20000", (const char *)NULL);
    const char *path = scratch("dropped.bsprof");
    remove(path);
    pk_capture_options options = {.mode = PK_CAPTURE_NETWORK, .host = d.address};
    pk_capture_result result;
    pk_error err;
    assert_int_equal(pk_capture_file(&options, path, NULL, &result, &err), PK_OK);
    stop_device(&d);
    assert_int_equal(result.end, PK_CAPTURE_CUT);
    size_t got;
    char *kept = read_whole(path, &got);
    assert_non_null(kept);
    assert_int_equal(got, 20000);
    assert_memory_equal(kept, example, 20000);
    free(kept);
    free(example);
}

static void device_addresses(void **state)
{
    (void)state;
    static const struct {
        const char *host, *url; /* url NULL: refused */
    } cases[] = {
        {"192.168.1.20", "http://192.168.1.20:8090"},
        {"roku-living.local:8091", "http://roku-living.local:8091"},
        {"[fe80::1]:80", "http://[fe80::1]:80"},
        {"[fe80::1%eth0]", "http://[fe80::1%25eth0]:8090"},
        {"[::ffff:10.0.0.1]", "http://[::ffff:10.0.0.1]:8090"},
        {"", NULL},
        {"http://192.168.1.20", NULL},
        {"host:0", NULL},
        {"host:65536", NULL},
        {"host:", NULL},
        {"host:80a", NULL},
        {"host/path", NULL},
        {"user@host", NULL},
        {"[::1", NULL},
        {"[::1]x", NULL},
        {"[host]", NULL},
        {"two words", NULL},
        {":8090", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char url[PK_CAPTURE_URL_MAX];
        pk_error err;
        pk_status st = pk_capture_base_url(cases[i].host, 8090, url, sizeof url, &err);
        if (!cases[i].url) {
            if (st != PK_ERR_USAGE)
                fail_msg("'%s' accepted as %s", cases[i].host, url);
            assert_true(err.message[0] != '\0');
            continue;
        }
        if (st != PK_OK)
            fail_msg("'%s' refused: %s", cases[i].host, err.message);
        assert_string_equal(url, cases[i].url);
    }
}

int main(void)
{
    /* A device that goes away mid-write must not end the test. */
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(device_addresses),
        cmocka_unit_test(complete_stream),
        cmocka_unit_test(stream_cut_inside_an_entry),
        cmocka_unit_test(stream_ended_by_the_caller),
        cmocka_unit_test(stream_ending_between_entries),
        cmocka_unit_test(download_with_the_password),
        cmocka_unit_test(download_without_data),
        cmocka_unit_test(devices_that_send_nothing_usable),
        cmocka_unit_test(files_appear_with_what_arrived),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
