/* SPDX-License-Identifier: MIT */
/* The receiving end of a capture request (sink.h). */
#include "capture/sink.h"

#include <string.h>

static bool successful(long status)
{
    /* 0: a device that streams without an HTTP header (HTTP/0.9). */
    return status == 0 || (status >= 200 && status < 300);
}

static size_t sink_write(char *data, size_t size, size_t count, void *context)
{
    pk_capture_sink *sink = context;
    size_t n = size * count;
    long status = 0;
    curl_easy_getinfo(sink->easy, CURLINFO_RESPONSE_CODE, &status);
    sink->http_status = status;
    if (!sink->data_request || !successful(status)) {
        /* A page, or the body of an answer that is not the data (an HTTP error, a 401 before
         * the password is sent): kept for the message. */
        size_t room = PK_SINK_PAGE_MAX - sink->page.len;
        pk_buffer_append(&sink->page, data, n < room ? n : room);
        return n;
    }
    if (n == 0)
        return 0;
    if (sink->head_len < sizeof sink->head) {
        size_t k = sizeof sink->head - sink->head_len;
        memcpy(sink->head + sink->head_len, data, n < k ? n : k);
        sink->head_len += n < k ? n : k;
    }
    pk_output_write(sink->out, data, n);
    if (pk_output_failed(sink->out)) {
        sink->output_failed = true;
        return 0;
    }
    sink->receiving = true;
    if (pk_bsprof_scan_feed(&sink->scan, data, n) != PK_OK) {
        sink->out_of_memory = true;
        return 0;
    }
    if (sink->scan.state == BS_SCAN_NOT_BSPROF) {
        sink->not_bsprof = true;
        return 0;
    }
    pk_capture_sink_tick(sink);
    return n;
}

void pk_capture_sink_init(pk_capture_sink *sink, CURL *easy, pk_output *out,
                          const pk_capture_options *options)
{
    memset(sink, 0, sizeof *sink);
    sink->easy = easy;
    sink->out = out;
    pk_bsprof_scan_init(&sink->scan);
    sink->progress = options->progress;
    sink->progress_context = options->progress_context;
    clock_gettime(CLOCK_MONOTONIC, &sink->start);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, sink_write);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, sink);
}

void pk_capture_sink_request(pk_capture_sink *sink, bool data)
{
    sink->data_request = data;
    sink->http_status = 0;
    pk_buffer_clear(&sink->page);
}

void pk_capture_sink_tick(void *context)
{
    pk_capture_sink *sink = context;
    if (!sink->progress)
        return;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    pk_capture_progress progress = {
        .bytes = sink->scan.received,
        .entries = sink->scan.entries,
        .complete_through = sink->scan.complete_through,
        .elapsed = (double)(now.tv_sec - sink->start.tv_sec) +
                   (double)(now.tv_nsec - sink->start.tv_nsec) / 1e9,
        .receiving = sink->receiving,
    };
    sink->progress(sink->progress_context, &progress);
}

void pk_capture_sink_free(pk_capture_sink *sink)
{
    pk_bsprof_scan_free(&sink->scan);
    pk_buffer_free(&sink->page);
}
