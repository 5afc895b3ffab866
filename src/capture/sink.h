/* SPDX-License-Identifier: MIT */
/* The receiving end of a capture request: libcurl's write callback. The body of a successful
 * answer is the data: every byte goes to the output as it arrives and through the .bsprof
 * stream decoder, which counts whole entries; any other body (an HTTP error, a form's answer
 * page) is kept, up to a limit, for the message. */
#ifndef PK_CAPTURE_SINK_H
#define PK_CAPTURE_SINK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <curl/curl.h>

#include "core/buffer.h"
#include "formats/bsprof/bsprof.h"
#include "profkit/capture.h"

/* How much of a page is kept: Roku's pages are a few KiB. */
#define PK_SINK_PAGE_MAX (1u << 20)

typedef struct pk_capture_sink {
    CURL *easy;
    pk_output *out;
    bool data_request;  /* the current request's successful body is the data */
    bs_scan scan;       /* the data so far */
    pk_buffer page;     /* the current request's body when it is not data */
    uint8_t head[16];   /* the first bytes of the data, for a message about them */
    size_t head_len;
    long http_status;   /* of the current answer; 0 for a device answering without headers */
    bool receiving;     /* data has arrived */
    bool not_bsprof;    /* the data does not start like .bsprof: the transfer was stopped */
    bool out_of_memory; /* the decoder ran out: the transfer was stopped */
    bool output_failed; /* writing the output failed: the transfer was stopped */
    struct timespec start;
    pk_capture_progress_fn progress;
    void *progress_context;
} pk_capture_sink;

/* Sets the sink up as easy's write callback, writing data to out. */
void pk_capture_sink_init(pk_capture_sink *sink, CURL *easy, pk_output *out,
                          const pk_capture_options *options);
/* Starts a request: its successful body is data (true) or a page (false). */
void pk_capture_sink_request(pk_capture_sink *sink, bool data);
/* Calls the progress callback with where the capture stands. */
void pk_capture_sink_tick(void *sink);
void pk_capture_sink_free(pk_capture_sink *sink);

#endif
