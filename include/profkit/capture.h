/* SPDX-License-Identifier: MIT */
/* Capturing BrightScript profiler data (.bsprof) from a Roku device over HTTP.
 *
 * The channel's manifest chooses where the device puts the data (bsprof_data_dest):
 *
 *   network   the device streams it while the channel runs:
 *             GET http://HOST:8090/bsprof/channel.bsprof. The device starts the channel only
 *             once a client is connected, and closes the connection when the channel exits.
 *   local     the device keeps it until it is downloaded from the developer web server (port
 *             80, HTTP digest authentication, user "rokudev"): POST /plugin_inspect with the
 *             form field mysubmit=dloadProf, then GET /pkgs/channel.bsprof.
 *
 * Bytes are written to the output exactly as they arrive and decoded on the way (the .bsprof
 * entries are counted as they complete), so that a capture cut short by a dropped connection
 * or by the caller still holds every byte received, and the caller learns where the last whole
 * entry ends: what a salvaging read (pk_read_options.salvage) keeps.
 *
 * Ownership: options and the strings they point to are only read during the call; the result
 * is filled in the caller's structure and refers to nothing else.
 */
#ifndef PROFKIT_CAPTURE_H
#define PROFKIT_CAPTURE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "profkit/error.h"
#include "profkit/export.h"
#include "profkit/output.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pk_capture_mode {
    PK_CAPTURE_NETWORK = 0, /* the stream of a running channel (bsprof_data_dest=network) */
    PK_CAPTURE_DOWNLOAD     /* the file the device kept (bsprof_data_dest=local) */
} pk_capture_mode;

/* The ports a device listens on when HOST names none. */
#define PK_CAPTURE_NETWORK_PORT 8090
#define PK_CAPTURE_DOWNLOAD_PORT 80
/* The user of the developer web server. */
#define PK_CAPTURE_DEVELOPER_USER "rokudev"

/* Where a capture stands, given to the progress callback. */
typedef struct pk_capture_progress {
    uint64_t bytes;            /* received so far (all of them are in the output) */
    uint64_t entries;          /* whole .bsprof entries among them */
    uint64_t complete_through; /* byte offset just past the last whole item (the header, an
                                  entry, the end marker or the footer); 0 before the header
                                  is whole */
    double elapsed;            /* seconds since the capture started */
    bool receiving;            /* the device has answered: data is arriving */
} pk_capture_progress;

/* Called whenever bytes arrive and about every tenth of a second while none do. */
typedef void (*pk_capture_progress_fn)(void *context, const pk_capture_progress *progress);

typedef struct pk_capture_options {
    pk_capture_mode mode;
    /* "HOST" or "HOST:PORT" (an IPv6 address in brackets: "[fe80::1]:8090"); the port is
     * PK_CAPTURE_NETWORK_PORT or PK_CAPTURE_DOWNLOAD_PORT when not given. */
    const char *host;
    /* PK_CAPTURE_DOWNLOAD: the developer password (user PK_CAPTURE_DEVELOPER_USER). */
    const char *password;
    pk_capture_progress_fn progress; /* may be NULL */
    void *progress_context;
    /* When *cancel becomes non-zero (from a signal handler, say) the capture ends within about
     * a tenth of a second, keeping what arrived. May be NULL. */
    const volatile sig_atomic_t *cancel;
    /* How long to wait for the device to accept the connection, in milliseconds; 0 = 10 s.
     * Once connected, a capture waits for the channel as long as it takes. */
    long connect_timeout_ms;
} pk_capture_options;

typedef enum pk_capture_end {
    PK_CAPTURE_COMPLETE = 0, /* the whole .bsprof came: its end marker was received (the
                                footer after it, when the device sent one) */
    PK_CAPTURE_CUT,          /* the connection ended before the end of the data */
    PK_CAPTURE_CANCELLED     /* *cancel ended it */
} pk_capture_end;

typedef struct pk_capture_result {
    pk_capture_end end;
    uint64_t bytes;            /* received, and written to the output */
    uint64_t entries;          /* whole .bsprof entries among them */
    uint64_t complete_through; /* where the last whole item ends (see pk_capture_progress) */
    bool end_marker;           /* the end of the entries was received */
    bool damaged;              /* bytes that are not .bsprof entries were received: nothing
                                  after damage.offset can be read */
    pk_error damage;           /* when damaged: where and why */
    pk_error cut;              /* PK_CAPTURE_CUT: how the connection ended (the message) */
} pk_capture_result;

/* Captures into out, which the caller then finishes (pk_output_finish) or discards. Returns
 * PK_OK when bytes of .bsprof data were received and written, however the capture ended
 * (result->end says how; a cut or cancelled capture is worth keeping). Fails, with nothing
 * worth keeping, when the device cannot be reached, answers with an HTTP error, refuses the
 * password (PK_ERR_IO, the message says so), has no profiling data ("No profiling data
 * available", or an empty file: PK_ERR_INPUT), sends something else than .bsprof data, or is
 * cancelled before any data; a malformed host or a download without a password is PK_ERR_USAGE. */
PK_API pk_status pk_capture(const pk_capture_options *options, pk_output *out,
                            pk_capture_result *result, pk_error *err);

/* pk_capture into a file at path ("-" = standard output) created with pk_output_create
 * (output_options may be NULL): the file appears when the capture ends, complete, cut or
 * cancelled, and holds every byte received; when pk_capture fails nothing appears. */
PK_API pk_status pk_capture_file(const pk_capture_options *options, const char *path,
                                 const pk_output_options *output_options,
                                 pk_capture_result *result, pk_error *err);

#ifdef __cplusplus
}
#endif

#endif
