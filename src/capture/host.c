/* SPDX-License-Identifier: MIT */
/* The device address of a capture (host.h). Checked strictly: the text becomes part of a URL,
 * so nothing that would change its meaning (a scheme, a path, "user@", a query) gets through. */
#include "capture/host.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool name_char(char c)
{
    return isalnum((unsigned char)c) || c == '.' || c == '-' || c == '_';
}

/* An IPv6 address between brackets: hex digits, ':' and '.' (an embedded IPv4 address), and an
 * optional zone after '%' (letters, digits, '.', '-', '_'), which a URL spells "%25". */
static bool ipv6_literal(const char *s, size_t n, size_t *zone)
{
    *zone = n;
    size_t colons = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '%' && i > 0 && i + 1 < n && *zone == n) {
            *zone = i;
            continue;
        }
        if (*zone < i) {
            if (!name_char(c))
                return false;
        } else if (c == ':') {
            colons++;
        } else if (!isxdigit((unsigned char)c) && c != '.') {
            return false;
        }
    }
    return colons >= 2;
}

pk_status pk_capture_base_url(const char *host, unsigned default_port, char *url, size_t size,
                              pk_error *err)
{
    if (!host || !host[0])
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET, "no device address given");
    if (strstr(host, "://"))
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET,
                            "'%s': give the device as HOST or HOST:PORT, without a scheme",
                            host);
    const char *name = host, *port_text = NULL;
    size_t name_len;
    bool ipv6 = host[0] == '[';
    size_t zone = 0;
    if (ipv6) {
        const char *close = strchr(host, ']');
        if (!close)
            return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET,
                                "'%s': an IPv6 address needs its closing ']'", host);
        name = host + 1;
        name_len = (size_t)(close - name);
        if (close[1] == ':')
            port_text = close + 2;
        else if (close[1] != '\0')
            return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET,
                                "'%s': only ':PORT' may follow the address", host);
        if (!ipv6_literal(name, name_len, &zone))
            return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET,
                                "'%s' is not an IPv6 address in brackets", host);
    } else {
        const char *colon = strchr(host, ':');
        name_len = colon ? (size_t)(colon - host) : strlen(host);
        port_text = colon ? colon + 1 : NULL;
        for (size_t i = 0; i < name_len; i++) {
            if (!name_char(host[i]))
                return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET,
                                    "'%s': a device is a host name or an IP address, optionally "
                                    "with :PORT (an IPv6 address goes in brackets)",
                                    host);
        }
        if (name_len == 0)
            return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET, "'%s': no host before ':'",
                                host);
    }
    unsigned long port = default_port;
    if (port_text) {
        char *end;
        bool digits = port_text[0] != '\0';
        for (const char *c = port_text; *c && digits; c++)
            digits = isdigit((unsigned char)*c) != 0;
        port = digits ? strtoul(port_text, &end, 10) : 0;
        if (!digits || port == 0 || port > 65535)
            return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET,
                                "'%s': the port must be a number from 1 to 65535", host);
    }
    int n;
    if (ipv6 && zone < name_len)
        n = snprintf(url, size, "http://[%.*s%%25%.*s]:%lu", (int)zone, name,
                     (int)(name_len - zone - 1), name + zone + 1, port);
    else if (ipv6)
        n = snprintf(url, size, "http://[%.*s]:%lu", (int)name_len, name, port);
    else
        n = snprintf(url, size, "http://%.*s:%lu", (int)name_len, name, port);
    if (n < 0 || (size_t)n >= size)
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET, "'%.64s...': the address is too long",
                            host);
    return PK_OK;
}
