/* SPDX-License-Identifier: MIT */
/* The loopback HTTP server of `profkit view` (profile_server.h), on plain sockets: it serves one
 * document from memory, so a full HTTP library would bring a dependency for little. */
#define _GNU_SOURCE /* ppoll, strcasestr */
#include "profile_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

/* A request's head (request line and headers) may be at most this long. */
#define MAX_REQUEST_HEAD 16384
/* A client has this long for each part of its request to arrive, and for each part of the
 * response to leave, before it is dropped. */
#define CLIENT_TIMEOUT_MS 10000

bool profile_server_listen(profile_server *s, uint16_t port)
{
    s->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s->listen_fd < 0)
        return false;
    int one = 1;
    setsockopt(s->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(port)};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (bind(s->listen_fd, (struct sockaddr *)&address, sizeof address) != 0 ||
        listen(s->listen_fd, 16) != 0 ||
        getsockname(s->listen_fd, (struct sockaddr *)&address, &length) != 0) {
        int e = errno;
        close(s->listen_fd);
        s->listen_fd = -1;
        errno = e;
        return false;
    }
    s->port = ntohs(address.sin_port);
    return true;
}

void profile_server_close(profile_server *s)
{
    if (s->listen_fd >= 0)
        close(s->listen_fd);
    s->listen_fd = -1;
}

/* Sends everything, or gives up on a client that does not take it. */
static bool send_all(int fd, const char *data, size_t size)
{
    while (size > 0) {
        ssize_t n = send(fd, data, size, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        data += n;
        size -= (size_t)n;
    }
    return true;
}

/* Receives into buf up to size bytes of what the client sends next, waiting for them at most
 * CLIENT_TIMEOUT_MS; 0 or less when the client closes or stalls. */
static ssize_t receive(int fd, char *buf, size_t size)
{
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int ready = poll(&p, 1, CLIENT_TIMEOUT_MS);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0)
            return -1;
        ssize_t n = recv(fd, buf, size, 0);
        if (n < 0 && errno == EINTR)
            continue;
        return n;
    }
}

/* Reads the request head into buf (NUL-terminated, without the blank line); what came after
 * the blank line (the start of a body) is left in buf from *body_start to *used. False when
 * the client closes, stalls or sends a head too long. */
static bool read_head(int fd, char *buf, size_t capacity, size_t *body_start, size_t *used_out)
{
    size_t used = 0;
    for (;;) {
        ssize_t n = receive(fd, buf + used, capacity - 1 - used);
        if (n <= 0)
            return false;
        used += (size_t)n;
        buf[used] = '\0';
        char *end = strstr(buf, "\r\n\r\n");
        if (end) {
            *end = '\0';
            *body_start = (size_t)(end - buf) + 4;
            *used_out = used;
            return true;
        }
        if (used == capacity - 1)
            return false;
    }
}

/* The value of header `name` in a request head, copied to value (cut to its size); false when
 * the request has no such header. */
static bool header_value(const char *head, const char *name, char *value, size_t size)
{
    size_t name_length = strlen(name);
    for (const char *line = strstr(head, "\r\n"); line; line = strstr(line, "\r\n")) {
        line += 2;
        if (strncasecmp(line, name, name_length) != 0 || line[name_length] != ':')
            continue;
        const char *v = line + name_length + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        size_t n = strcspn(v, "\r\n");
        while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'))
            n--;
        if (n >= size)
            n = size - 1;
        memcpy(value, v, n);
        value[n] = '\0';
        return true;
    }
    return false;
}

/* Whether an Accept-Encoding value accepts gzip (listed, and not with q=0). */
static bool accepts_gzip(const char *accept_encoding)
{
    for (const char *p = accept_encoding; (p = strcasestr(p, "gzip")) != NULL; p += 4) {
        bool starts = p == accept_encoding || p[-1] == ',' || p[-1] == ' ';
        const char *after = p + 4;
        while (*after == ' ')
            after++;
        if (!starts || (*after && *after != ',' && *after != ';'))
            continue;
        if (*after != ';')
            return true;
        const char *q = strstr(after, "q=");
        const char *next = strchr(after, ',');
        if (!q || (next && q > next))
            return true;
        double weight = 1;
        if (sscanf(q + 2, "%lf", &weight) != 1 || weight > 0)
            return true;
    }
    return false;
}

/* Headers every response carries: the app may read it, and nothing is kept. */
static int common_headers(const profile_server *s, char *buf, size_t size, int status,
                          const char *reason)
{
    return snprintf(buf, size,
                    "HTTP/1.1 %d %s\r\n"
                    "Access-Control-Allow-Origin: %s\r\n"
                    "Vary: Origin, Accept-Encoding\r\n"
                    "Cache-Control: no-store\r\n"
                    "Connection: close\r\n",
                    status, reason, s->origin);
}

static void send_status(const profile_server *s, int fd, int status, const char *reason,
                        const char *extra_headers)
{
    char head[1024];
    int n = common_headers(s, head, sizeof head, status, reason);
    if (n > 0 && (size_t)n < sizeof head)
        n += snprintf(head + n, sizeof head - (size_t)n,
                      "%sContent-Type: text/plain\r\nContent-Length: %zu\r\n\r\n%s\n",
                      extra_headers, strlen(reason) + 1, reason);
    if (n > 0 && (size_t)n < sizeof head)
        send_all(fd, head, (size_t)n);
}

/* A request body may be at most this long: the API's requests are a few hundred bytes. */
#define MAX_REQUEST_BODY (1u << 20)

static const char *reason_phrase(int status)
{
    switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 413: return "Content Too Large";
    default: return "Internal Server Error";
    }
}

/* Reads the rest of a body of size bytes, of which the first `have` are in body already.
 * False when the client closes or stalls. */
static bool read_body(int fd, char *body, size_t have, size_t size)
{
    while (have < size) {
        ssize_t n = receive(fd, body + have, size - have);
        if (n <= 0)
            return false;
        have += (size_t)n;
    }
    return true;
}

/* A POST to the symbolication API: only from the app's page (a browser names the page's
 * origin; a request without one comes from a program, not a page), with a body of a stated
 * length. Returns the status sent. */
static int answer_api(const profile_server *s, int fd, const char *head, const char *target,
                      const char *leftover, size_t leftover_size, size_t *sent_bytes)
{
    size_t prefix = strlen(s->api_path);
    if (strncmp(target, s->api_path, prefix) != 0 || target[prefix] != '/') {
        send_status(s, fd, 404, "Not Found", "");
        return 404;
    }
    char origin[1024];
    if (header_value(head, "Origin", origin, sizeof origin) && strcmp(origin, s->origin) != 0) {
        send_status(s, fd, 403, "Forbidden", "");
        return 403;
    }
    char length_text[32];
    char *end = NULL;
    unsigned long long length = 0;
    if (header_value(head, "Content-Length", length_text, sizeof length_text) &&
        length_text[0] >= '0' && length_text[0] <= '9')
        length = strtoull(length_text, &end, 10);
    if (!end || *end) {
        send_status(s, fd, 411, "Length Required", "");
        return 411;
    }
    if (length > MAX_REQUEST_BODY || leftover_size > length) {
        send_status(s, fd, 413, "Content Too Large", "");
        return 413;
    }
    char *body = malloc((size_t)length + 1);
    if (!body) {
        send_status(s, fd, 500, "Internal Server Error", "");
        return 500;
    }
    memcpy(body, leftover, leftover_size);
    if (!read_body(fd, body, leftover_size, (size_t)length)) {
        free(body);
        return 0;
    }
    char *response = NULL;
    size_t response_size = 0;
    int status = s->answer_api(s->api_context, target + prefix, body, (size_t)length, &response,
                               &response_size);
    free(body);
    if (status == 0) {
        send_status(s, fd, 500, "Internal Server Error", "");
        return 500;
    }
    char head_out[1024];
    int n = common_headers(s, head_out, sizeof head_out, status, reason_phrase(status));
    n += snprintf(head_out + n, sizeof head_out - (size_t)n,
                  "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n",
                  response_size);
    if (send_all(fd, head_out, (size_t)n) && send_all(fd, response, response_size))
        *sent_bytes = response_size;
    free(response);
    return status;
}

/* Answers one request; returns the status sent (0 when the request could not be read). */
static int answer(const profile_server *s, int fd, char *method, size_t method_size,
                  size_t *sent_bytes, bool *gzipped)
{
    static char head[MAX_REQUEST_HEAD];
    *sent_bytes = 0;
    *gzipped = false;
    method[0] = '\0';
    size_t body_start = 0, used = 0;
    if (!read_head(fd, head, sizeof head, &body_start, &used))
        return 0;
    char target[1024];
    char version[16];
    if (sscanf(head, "%15s %1023s %15s", method, target, version) != 3 ||
        strncmp(version, "HTTP/1.", 7) != 0) {
        snprintf(method, method_size, "?");
        send_status(s, fd, 400, "Bad Request", "");
        return 400;
    }
    /* The query string does not change the document. */
    target[strcspn(target, "?#")] = '\0';
    if (strcmp(method, "POST") == 0 && s->answer_api)
        return answer_api(s, fd, head, target, head + body_start, used - body_start, sent_bytes);
    bool is_get = strcmp(method, "GET") == 0, is_head = strcmp(method, "HEAD") == 0;
    if (strcmp(method, "OPTIONS") == 0) {
        /* CORS preflight: the app may GET the document with any headers it asks for. */
        char requested[512] = "", allow_headers[600] = "";
        if (header_value(head, "Access-Control-Request-Headers", requested, sizeof requested) &&
            strcspn(requested, "\r\n") == strlen(requested))
            snprintf(allow_headers, sizeof allow_headers,
                     "Access-Control-Allow-Headers: %s\r\n", requested);
        char response[2048];
        int n = common_headers(s, response, sizeof response, 204, "No Content");
        n += snprintf(response + n, sizeof response - (size_t)n,
                      "Access-Control-Allow-Methods: GET, HEAD, OPTIONS%s\r\n%s"
                      "Access-Control-Max-Age: 600\r\nContent-Length: 0\r\n\r\n",
                      s->answer_api ? ", POST" : "", allow_headers);
        send_all(fd, response, (size_t)n);
        return 204;
    }
    if (!is_get && !is_head) {
        send_status(s, fd, 405, "Method Not Allowed", "Allow: GET, HEAD, OPTIONS\r\n");
        return 405;
    }
    if (strcmp(target, s->path) != 0) {
        send_status(s, fd, 404, "Not Found", "");
        return 404;
    }
    char encodings[256] = "";
    header_value(head, "Accept-Encoding", encodings, sizeof encodings);
    *gzipped = s->gzip_body && accepts_gzip(encodings);
    const char *body = *gzipped ? s->gzip_body : s->body;
    size_t size = *gzipped ? s->gzip_body_size : s->body_size;
    char response[1024];
    int n = common_headers(s, response, sizeof response, 200, "OK");
    n += snprintf(response + n, sizeof response - (size_t)n,
                  "Content-Type: %s\r\n%sContent-Length: %zu\r\n\r\n", s->content_type,
                  *gzipped ? "Content-Encoding: gzip\r\n" : "", size);
    if (send_all(fd, response, (size_t)n) && is_get && send_all(fd, body, size))
        *sent_bytes = size;
    return 200;
}

/* After the response, waits for the client to close the connection (as Connection: close asks)
 * rather than closing it first: a client still reading the body when the server's end of the
 * stream arrives can stumble (Node's fetch asserts). Anything more it sends is discarded; a
 * client that keeps the connection open is dropped after the time limit. */
static void wait_for_close(int fd)
{
    char discard[4096];
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int ready = poll(&p, 1, CLIENT_TIMEOUT_MS);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0)
            return;
        ssize_t n = recv(fd, discard, sizeof discard, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
    }
}

static void serve_connection(const profile_server *s, int fd)
{
    struct timeval timeout = {CLIENT_TIMEOUT_MS / 1000, 0};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    char method[16];
    size_t sent;
    bool gzipped;
    int status = answer(s, fd, method, sizeof method, &sent, &gzipped);
    if (status)
        wait_for_close(fd);
    close(fd);
    if (s->log && status)
        fprintf(stderr, "profkit: %s %d%s%s\n", method, status,
                status == 200 && sent ? (gzipped ? " (gzip)" : "") : "",
                status == 200 && !sent && strcmp(method, "HEAD") != 0 ? " (not completed)" : "");
}

bool profile_server_run(profile_server *s, volatile const int *stop)
{
    /* The stop signals are taken only while waiting for a connection, so that none is missed
     * between looking at *stop and waiting, and a request being answered is completed. */
    sigset_t blocked, waiting;
    sigemptyset(&blocked);
    sigaddset(&blocked, SIGINT);
    sigaddset(&blocked, SIGTERM);
    sigprocmask(SIG_BLOCK, &blocked, &waiting);
    sigdelset(&waiting, SIGINT);
    sigdelset(&waiting, SIGTERM);
    bool ok = true;
    while (!*stop) {
        struct pollfd p = {.fd = s->listen_fd, .events = POLLIN};
        int ready = ppoll(&p, 1, NULL, &waiting);
        if (ready < 0) {
            if (errno == EINTR)
                continue;
            ok = false;
            break;
        }
        int fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) {
            /* A connection that went before it was accepted, or a passing shortage. */
            if (errno == EINTR || errno == ECONNABORTED || errno == EAGAIN || errno == EMFILE ||
                errno == ENFILE || errno == ENOBUFS || errno == ENOMEM || errno == EPROTO)
                continue;
            ok = false;
            break;
        }
        serve_connection(s, fd);
    }
    int e = errno;
    sigprocmask(SIG_UNBLOCK, &blocked, NULL);
    errno = e;
    return ok;
}
