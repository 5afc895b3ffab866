/* SPDX-License-Identifier: MIT */
/* A small HTTP/1.1 server on the loopback interface that serves one document from memory to a
 * web app in the browser: `profkit view` serves a profile to the Firefox Profiler this way.
 *
 * Only the document's path is served (GET and HEAD), gzip-compressed to clients that accept
 * it, with Access-Control-Allow-Origin set to the app's origin so the app's page may read it;
 * OPTIONS answers CORS preflight requests. POST requests to the routes under api_path go to
 * answer_api (the profiler's symbolication API), refused to a page of any other origin. One connection at a time, one response each, the
 * connection closed by the client (Connection: close); a client that stalls or keeps it open is
 * dropped after a few seconds, so it cannot hold the server.
 */
#ifndef PK_CLI_PROFILE_SERVER_H
#define PK_CLI_PROFILE_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The server points to its path, origin, document and content type without copying them: they
 * belong to the caller and must stay valid until profile_server_close. */
typedef struct profile_server {
    int listen_fd;
    uint16_t port;          /* the port bound (the one picked, when 0 was asked) */
    const char *path;       /* the document's path, "/..." */
    const char *origin;     /* the app's origin, "https://profiler.firefox.com" */
    const char *body;       /* the document */
    size_t body_size;
    const char *gzip_body;  /* the same, gzip-compressed; NULL to always send it plain */
    size_t gzip_body_size;
    const char *content_type;
    bool log;               /* one line per request on standard error */
    /* The symbolication API (POST API_PATH/source/v1 and the like): api_path is the part of
     * the address the profiler is given as its symbol server ("/" and the random part), and
     * answer_api answers a route of it (the path after api_path) with a malloc'ed JSON body,
     * returning the HTTP status (0: out of memory). NULL: no API. */
    const char *api_path;
    int (*answer_api)(void *context, const char *route, const char *body, size_t size,
                      char **response, size_t *response_size);
    void *api_context;
} profile_server;

/* Binds 127.0.0.1:port (0: a free port) and listens; fills s->listen_fd and s->port. Returns
 * false with errno set when the port cannot be had. */
bool profile_server_listen(profile_server *s, uint16_t port);

/* Answers requests until *stop becomes true (set by a signal handler: the wait for a
 * connection is interrupted by the signal). Returns false with errno set when accepting
 * connections fails for good. */
bool profile_server_run(profile_server *s, volatile const int *stop);

void profile_server_close(profile_server *s);

#endif
