/* SPDX-License-Identifier: MIT */
/* One hexadecimal digit, either case: what text formats with addresses (perf script,
 * /proc/PID/maps, Java symbol maps) parse. */
#ifndef PK_CORE_HEX_H
#define PK_CORE_HEX_H

/* The digit's value, or -1 when c is no hexadecimal digit. */
static inline int pk_hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

#endif
