/* SPDX-License-Identifier: MIT */
/* The device address of a capture: "HOST" or "HOST:PORT" as a user types it, checked and made
 * into the start of an http:// URL. */
#ifndef PK_CAPTURE_HOST_H
#define PK_CAPTURE_HOST_H

#include <stddef.h>

#include "profkit/error.h"

/* Longest URL start made ("http://" + host + ":" + port). */
#define PK_CAPTURE_URL_MAX 320

/* Writes "http://HOST:PORT" (no trailing slash) to url. HOST is a name or IPv4 address
 * (letters, digits, '.', '-', '_') or an IPv6 address in brackets; PORT, when given, is 1 to
 * 65535, else default_port. Anything else (a scheme, a path, user information, spaces) is
 * PK_ERR_USAGE with a message that says what is wrong. */
pk_status pk_capture_base_url(const char *host, unsigned default_port, char *url, size_t size,
                              pk_error *err);

#endif
