/* SPDX-License-Identifier: MIT */
/* Capturing .bsprof data from a Roku device (profkit/capture.h): the network stream of a
 * running channel, or the download of the file the device kept, over libcurl. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "capture/host.h"
#include "capture/sink.h"
#include "capture/transfer.h"
#include "profkit/capture.h"

/* What the developer web server's profiling page says when the device holds no data. */
static const char no_data_page_text[] = "No profiling data available";

/* Set-up hints, one per mode, for a device that cannot be reached or sends nothing. */
static const char network_hint[] =
    "is a channel side-loaded whose manifest has bsprof_enable=1 and bsprof_data_dest=network?";
static const char download_hint[] =
    "does the channel's manifest have bsprof_enable=1 and bsprof_data_dest=local, and has the "
    "channel run and exited?";

typedef struct capture_run {
    const pk_capture_options *options;
    CURL *easy;
    char errbuf[CURL_ERROR_SIZE];
    char base[PK_CAPTURE_URL_MAX];
    char url[PK_CAPTURE_URL_MAX + 64];
    pk_capture_sink sink;
    CURLcode result;
    bool cancelled;
} capture_run;

static pk_status perform(capture_run *run, const char *path, bool data, pk_error *err)
{
    snprintf(run->url, sizeof run->url, "%s%s", run->base, path);
    curl_easy_setopt(run->easy, CURLOPT_URL, run->url);
    pk_capture_sink_request(&run->sink, data);
    run->errbuf[0] = '\0';
    pk_transfer_watch watch = {run->options->cancel, pk_capture_sink_tick, &run->sink};
    if (pk_transfer_run(run->easy, &watch, &run->result, &run->cancelled) != PK_OK ||
        run->sink.page.failed || run->sink.out_of_memory)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    /* The last answer's status, also when it had no body for the sink to see it in. */
    long status = 0;
    if (curl_easy_getinfo(run->easy, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK && status)
        run->sink.http_status = status;
    return PK_OK;
}

static pk_status password_refused(const capture_run *run, pk_error *err)
{
    return pk_error_set(err, PK_ERR_IO, PK_NO_OFFSET,
                        "%s: the device refused the password of user %s (HTTP 401): give the "
                        "developer password set on the device",
                        run->url, PK_CAPTURE_DEVELOPER_USER);
}

/* What ended a request before an answer worth reading: nothing came, or an HTTP error. */
static pk_status request_failed(const capture_run *run, const char *hint, pk_error *err)
{
    if (run->cancelled)
        return pk_error_set(err, PK_ERR_IO, PK_NO_OFFSET,
                            "%s: interrupted before the device sent any data", run->url);
    if (run->result != CURLE_OK)
        return pk_error_set(err, PK_ERR_IO, PK_NO_OFFSET, "%s: %s (%s)", run->url,
                            pk_transfer_message(run->result, run->errbuf), hint);
    if (run->sink.http_status == 401)
        return password_refused(run, err);
    return pk_error_set(err, PK_ERR_IO, PK_NO_OFFSET, "%s: the device answered HTTP %ld (%s)",
                        run->url, run->sink.http_status, hint);
}

static bool page_says(const pk_buffer *page, const char *text)
{
    size_t n = strlen(text);
    for (size_t i = 0; page->data && i + n <= page->len; i++)
        if (memcmp(page->data + i, text, n) == 0)
            return true;
    return false;
}

/* Download, first step: the developer web server's Utilities form asks the device to make the
 * profiling data ready; its answer page says whether there is any. */
static pk_status request_download(capture_run *run, pk_error *err)
{
    curl_mime *form = curl_mime_init(run->easy);
    curl_mimepart *field = form ? curl_mime_addpart(form) : NULL;
    if (!field || curl_mime_name(field, "mysubmit") != CURLE_OK ||
        curl_mime_data(field, "dloadProf", CURL_ZERO_TERMINATED) != CURLE_OK) {
        curl_mime_free(form);
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    }
    curl_easy_setopt(run->easy, CURLOPT_MIMEPOST, form);
    pk_status status = perform(run, "/plugin_inspect", false, err);
    curl_easy_setopt(run->easy, CURLOPT_HTTPGET, 1L);
    curl_mime_free(form);
    if (status != PK_OK)
        return status;
    long http = run->sink.http_status;
    if (run->cancelled || run->result != CURLE_OK || http < 200 || http >= 300)
        return request_failed(run, download_hint, err);
    if (page_says(&run->sink.page, no_data_page_text))
        return pk_error_set(err, PK_ERR_INPUT, PK_NO_OFFSET,
                            "%s: the device says \"%s\" (%s)", run->url, no_data_page_text,
                            download_hint);
    return PK_OK;
}

/* The first bytes of data that is not .bsprof, printable, for the message. */
static void quote_start(const pk_capture_sink *sink, char *buf, size_t size)
{
    size_t len = (size_t)snprintf(buf, size, " (it starts with \"");
    for (size_t i = 0; i < sink->head_len && len + 8 < size; i++) {
        uint8_t c = sink->head[i];
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
            buf[len++] = (char)c;
        else
            len += (size_t)snprintf(buf + len, size - len, "\\x%02x", c);
    }
    snprintf(buf + len, size - len, "\")");
}

/* After the data request: a failure when nothing worth keeping came, else the result. */
static pk_status settle(capture_run *run, const char *hint, pk_capture_result *result,
                        pk_error *err)
{
    pk_capture_sink *sink = &run->sink;
    if (sink->output_failed)
        return pk_error_set(err, PK_ERR_IO, PK_NO_OFFSET, "cannot write the capture");
    if (sink->not_bsprof) {
        char start[64];
        quote_start(sink, start, sizeof start);
        return pk_error_set(err, PK_ERR_INPUT, PK_NO_OFFSET,
                            "%s: the device sent something else than .bsprof data%s", run->url,
                            start);
    }
    long http = sink->http_status;
    if (!sink->receiving && (run->cancelled || run->result != CURLE_OK ||
                             !(http == 0 || (http >= 200 && http < 300))))
        return request_failed(run, hint, err);
    if (!sink->receiving)
        return pk_error_set(err, PK_ERR_INPUT, PK_NO_OFFSET,
                            "%s: the device %s (%s)", run->url,
                            run->options->mode == PK_CAPTURE_DOWNLOAD
                                ? "has no profiling data: its file is empty"
                                : "closed the connection without sending data",
                            hint);
    if (pk_bsprof_scan_finish(&sink->scan) != PK_OK)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");

    const bs_scan *scan = &sink->scan;
    result->bytes = scan->received;
    result->entries = scan->entries;
    result->complete_through = scan->complete_through;
    result->end_marker = scan->end_marker;
    result->damaged = scan->state == BS_SCAN_DAMAGED;
    if (result->damaged)
        result->damage = scan->damage;
    if (scan->end_marker) {
        /* The data is whole, whatever happened to the connection after it. */
        result->end = PK_CAPTURE_COMPLETE;
    } else if (run->cancelled) {
        result->end = PK_CAPTURE_CANCELLED;
        pk_error_set(&result->cut, PK_ERR_IO, PK_NO_OFFSET, "the capture was interrupted");
    } else if (run->result != CURLE_OK) {
        result->end = PK_CAPTURE_CUT;
        pk_error_set(&result->cut, PK_ERR_IO, PK_NO_OFFSET, "%s",
                     pk_transfer_message(run->result, run->errbuf));
    } else {
        result->end = PK_CAPTURE_CUT;
        pk_error_set(&result->cut, PK_ERR_IO, PK_NO_OFFSET, "%s",
                     run->options->mode == PK_CAPTURE_DOWNLOAD
                         ? "the device's file ends before the end of the data (was the channel "
                           "still running?)"
                         : "the device closed the connection before the end of the data");
    }
    return PK_OK;
}

pk_status pk_capture(const pk_capture_options *options, pk_output *out,
                     pk_capture_result *result, pk_error *err)
{
    memset(result, 0, sizeof *result);
    pk_error_clear(&result->damage);
    pk_error_clear(&result->cut);
    bool download = options->mode == PK_CAPTURE_DOWNLOAD;
    if (download && (!options->password || !options->password[0]))
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET,
                            "a download from the developer web server needs the developer "
                            "password of user %s",
                            PK_CAPTURE_DEVELOPER_USER);
    capture_run run = {.options = options};
    pk_status status = pk_capture_base_url(options->host,
                                           download ? PK_CAPTURE_DOWNLOAD_PORT
                                                    : PK_CAPTURE_NETWORK_PORT,
                                           run.base, sizeof run.base, err);
    if (status != PK_OK)
        return status;
    run.easy = pk_transfer_easy(options->connect_timeout_ms, run.errbuf);
    if (!run.easy)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "cannot set up libcurl");
    pk_capture_sink_init(&run.sink, run.easy, out, options);
    const char *hint = download ? download_hint : network_hint;
    if (download) {
        curl_easy_setopt(run.easy, CURLOPT_HTTPAUTH, (long)CURLAUTH_DIGEST);
        curl_easy_setopt(run.easy, CURLOPT_USERNAME, PK_CAPTURE_DEVELOPER_USER);
        curl_easy_setopt(run.easy, CURLOPT_PASSWORD, options->password);
        status = request_download(&run, err);
        if (status == PK_OK)
            status = perform(&run, "/pkgs/channel.bsprof", true, err);
    } else {
        /* The device may stream the bytes without an HTTP header. */
        curl_easy_setopt(run.easy, CURLOPT_HTTP09_ALLOWED, 1L);
        status = perform(&run, "/bsprof/channel.bsprof", true, err);
    }
    if (status == PK_OK)
        status = settle(&run, hint, result, err);
    pk_capture_sink_free(&run.sink);
    curl_easy_cleanup(run.easy);
    return status;
}

pk_status pk_capture_file(const pk_capture_options *options, const char *path,
                          const pk_output_options *output_options, pk_capture_result *result,
                          pk_error *err)
{
    pk_output *out;
    memset(result, 0, sizeof *result);
    pk_status status = pk_output_create(path, output_options, &out, err);
    if (status != PK_OK)
        return status;
    status = pk_capture(options, out, result, err);
    if (status == PK_OK)
        return pk_output_finish(out, err);
    if (pk_output_failed(out)) {
        /* The output's own error says what went wrong with the file. */
        pk_error output_err;
        pk_error_clear(&output_err);
        if (pk_output_finish(out, &output_err) != PK_OK && output_err.message[0]) {
            if (err)
                *err = output_err;
            return output_err.status;
        }
        return status;
    }
    pk_output_discard(out);
    return status;
}
