/* SPDX-License-Identifier: MIT */
/* Running one libcurl transfer to its end while watching a cancel flag and keeping a caller's
 * clock ticking: what a capture needs that a plain curl_easy_perform does not give (it blocks
 * until the device closes the connection, which may be hours away). */
#ifndef PK_CAPTURE_TRANSFER_H
#define PK_CAPTURE_TRANSFER_H

#include <signal.h>
#include <stdbool.h>

#include <curl/curl.h>

#include "profkit/error.h"

/* A new easy handle with what every capture request sets: no signals (the program's own
 * handlers stay in charge), the connect timeout, TCP keepalive (a device that vanishes is
 * noticed), the user agent and errbuf (CURL_ERROR_SIZE bytes) for messages. NULL when libcurl
 * cannot be set up. */
CURL *pk_transfer_easy(long connect_timeout_ms, char *errbuf);

typedef struct pk_transfer_watch {
    const volatile sig_atomic_t *cancel; /* may be NULL */
    void (*tick)(void *context);         /* about every tenth of a second; may be NULL */
    void *context;
} pk_transfer_watch;

/* Performs easy's transfer. *result receives how it ended (CURLE_OK for a transfer that ran
 * to its end) unless the cancel flag stopped it first, which *cancelled says. Returns
 * PK_ERR_NOMEM when libcurl cannot run it at all, else PK_OK. */
pk_status pk_transfer_run(CURL *easy, const pk_transfer_watch *watch, CURLcode *result,
                          bool *cancelled);

/* A message for a transfer that failed: libcurl's detail from errbuf when it has one, else
 * the text of the code. */
const char *pk_transfer_message(CURLcode code, const char *errbuf);

#endif
