/* SPDX-License-Identifier: MIT */
/* The yardstick for the .bsprof reader: a plain decode loop over a file that takes every byte
 * one at a time (refilling a 1 MiB buffer as it goes), decodes every varint of every entry and
 * adds the fields into a checksum, interpreting them no further than needed to find where the
 * next entry starts. It builds nothing: what the reader does beyond this is what costs.
 *
 *   naive_bsprof_decode FILE.bsprof
 *
 * Prints the number of entries of each type and the checksum on standard output.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint8_t buffer[1 << 20];
static size_t buffer_pos, buffer_len;
static int fd;
static uint64_t offset; /* of buffer[0] */

static void fail(const char *what)
{
    fprintf(stderr, "naive_bsprof_decode: %s at byte %" PRIu64 "\n", what, offset + buffer_pos);
    exit(1);
}

/* The next byte of the file, -1 at its end. */
static inline int next_byte(void)
{
    if (buffer_pos == buffer_len) {
        offset += buffer_len;
        ssize_t n;
        do
            n = read(fd, buffer, sizeof buffer);
        while (n < 0 && errno == EINTR);
        if (n < 0)
            fail(strerror(errno));
        buffer_pos = 0;
        buffer_len = (size_t)n;
        if (n == 0)
            return -1;
    }
    return buffer[buffer_pos++];
}

static inline uint64_t varint(void)
{
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        int b = next_byte();
        if (b < 0)
            fail("the file ends inside a varint");
        v |= (uint64_t)(b & 0x7f) << shift;
        if (b < 0x80)
            return v;
    }
    fail("a varint longer than 10 bytes");
    return 0;
}

static void skip_cstring(void)
{
    int b;
    while ((b = next_byte()) > 0)
        ;
    if (b < 0)
        fail("the file ends inside a string");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: naive_bsprof_decode FILE.bsprof\n");
        return 2;
    }
    fd = open(argv[1], O_RDONLY);
    if (fd < 0) {
        fprintf(stderr, "naive_bsprof_decode: %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    /* Header: magic, version (3 varints), header size, two float ratios, line-data flag,
     * memory flag, start time, six strings; the body starts at the header size. */
    for (int i = 0; i < 8; i++)
        if (next_byte() < 0)
            fail("the file ends inside the magic");
    varint();
    varint();
    varint();
    uint64_t header_size = varint();
    for (int i = 0; i < 8; i++)
        if (next_byte() < 0)
            fail("the file ends inside the header");
    bool line_data = varint() != 0;
    varint();
    varint();
    for (int i = 0; i < 6; i++)
        skip_cstring();
    while (offset + buffer_pos < header_size)
        if (next_byte() < 0)
            fail("the file ends inside the header");

    uint64_t counts[8] = {0}, sum = 0;
    for (;;) {
        uint64_t tag = varint();
        if (tag == 0)
            break;
        unsigned type = (unsigned)(tag & 7);
        counts[type]++;
        sum += tag;
        switch (type) {
        case 0: /* string */
            skip_cstring();
            break;
        case 1: /* module: name */
            sum += varint();
            break;
        case 2: { /* path element: caller, module or line offset, file, line, function */
            uint64_t caller = varint();
            if (caller == 0 || line_data)
                sum += varint();
            sum += caller + varint() + varint() + varint();
            break;
        }
        case 3: /* memory: line offset, address, size of an allocation */
            if (line_data)
                sum += varint();
            sum += varint();
            if (((tag >> 3) & 3) == 0)
                sum += varint();
            break;
        case 4: /* cpu: line offset, cpu, wall */
            if (line_data)
                sum += varint();
            sum += varint();
            sum += varint();
            break;
        case 5: /* call count */
            sum += varint();
            break;
        default:
            fail("an unknown entry type");
        }
    }
    close(fd);
    printf("strings %" PRIu64 " modules %" PRIu64 " paths %" PRIu64 " memory %" PRIu64
           " cpu %" PRIu64 " calls %" PRIu64 " checksum %" PRIu64 "\n",
           counts[0], counts[1], counts[2], counts[3], counts[4], counts[5], sum);
    return 0;
}
