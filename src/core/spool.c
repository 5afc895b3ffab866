/* SPDX-License-Identifier: MIT */
/* Spooled records: lanes of whole-record chunks, in memory up to a limit, then in an unnamed
 * temporary file. */
#define _GNU_SOURCE /* O_TMPFILE */
#include "core/spool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/array.h"

/* A lane's unwritten records grow to this before they become a chunk. */
#define TAIL_MIN 256
#define TAIL_MAX (64 * 1024)
/* Chunks stay in memory until they add up to this much. */
#define MEMORY_LIMIT (4u * 1024 * 1024)

typedef struct spool_chunk {
    uint64_t offset; /* in the spool's memory or, once there is one, its file */
    uint32_t length;
} spool_chunk;

typedef struct spool_lane {
    unsigned char *tail;
    size_t tail_len, tail_cap;
    spool_chunk *chunks;
    size_t chunk_count, chunk_cap;
    uint64_t bytes;
} spool_lane;

struct pk_spool {
    spool_lane **lanes;
    size_t lane_count;
    unsigned char *memory; /* the chunks while they fit in MEMORY_LIMIT */
    size_t memory_len, memory_cap;
    int fd;                /* -1 until the chunks outgrow memory */
    uint64_t file_len;
    int error;
};

pk_spool *pk_spool_new(void)
{
    pk_spool *s = calloc(1, sizeof *s);
    if (s)
        s->fd = -1;
    return s;
}

void pk_spool_free(pk_spool *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->lane_count; i++) {
        if (s->lanes[i]) {
            free(s->lanes[i]->tail);
            free(s->lanes[i]->chunks);
            free(s->lanes[i]);
        }
    }
    free(s->lanes);
    free(s->memory);
    if (s->fd >= 0)
        close(s->fd);
    free(s);
}

int pk_spool_error(const pk_spool *s)
{
    return s->error;
}

/* A file that has no name: nothing to remove however the program ends. */
static int open_unnamed_file(void)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
#ifdef O_TMPFILE
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0)
        return fd;
#endif
    /* Filesystems without O_TMPFILE: a named file, unlinked at once. */
    size_t len = strlen(dir) + sizeof "/profkit-spool-XXXXXX";
    char *path = malloc(len);
    if (!path)
        return -1;
    snprintf(path, len, "%s/profkit-spool-XXXXXX", dir);
    int fd2 = mkstemp(path);
    if (fd2 >= 0)
        unlink(path);
    free(path);
    return fd2;
}

static bool write_at(pk_spool *s, const unsigned char *data, size_t n, uint64_t offset)
{
    while (n > 0) {
        ssize_t w = pwrite(s->fd, data, n, (off_t)offset);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            s->error = errno;
            return false;
        }
        data += w;
        n -= (size_t)w;
        offset += (uint64_t)w;
    }
    return true;
}

/* Moves the chunks from memory into a new temporary file, at the same offsets. */
static bool move_to_file(pk_spool *s)
{
    s->fd = open_unnamed_file();
    if (s->fd < 0) {
        s->error = errno ? errno : EIO;
        return false;
    }
    if (!write_at(s, s->memory, s->memory_len, 0))
        return false;
    s->file_len = s->memory_len;
    free(s->memory);
    s->memory = NULL;
    s->memory_len = s->memory_cap = 0;
    return true;
}

static bool flush_tail(pk_spool *s, spool_lane *lane)
{
    size_t n = lane->tail_len;
    if (n == 0)
        return true;
    if (!PK_ARRAY_RESERVE(lane->chunks, lane->chunk_cap, lane->chunk_count + 1)) {
        s->error = ENOMEM;
        return false;
    }
    uint64_t offset;
    if (s->fd < 0 && s->memory_len + n <= MEMORY_LIMIT) {
        if (!PK_ARRAY_RESERVE(s->memory, s->memory_cap, s->memory_len + n)) {
            s->error = ENOMEM;
            return false;
        }
        memcpy(s->memory + s->memory_len, lane->tail, n);
        offset = s->memory_len;
        s->memory_len += n;
    } else {
        if (s->fd < 0 && !move_to_file(s))
            return false;
        if (!write_at(s, lane->tail, n, s->file_len))
            return false;
        offset = s->file_len;
        s->file_len += n;
    }
    lane->chunks[lane->chunk_count++] = (spool_chunk){offset, (uint32_t)n};
    lane->tail_len = 0;
    return true;
}

static spool_lane *lane_of(pk_spool *s, uint32_t lane)
{
    if (lane >= s->lane_count) {
        size_t count = s->lane_count ? s->lane_count : 1;
        while (count <= lane)
            count *= 2;
        spool_lane **lanes = realloc(s->lanes, count * sizeof *lanes);
        if (!lanes)
            return NULL;
        memset(lanes + s->lane_count, 0, (count - s->lane_count) * sizeof *lanes);
        s->lanes = lanes;
        s->lane_count = count;
    }
    if (!s->lanes[lane])
        s->lanes[lane] = calloc(1, sizeof **s->lanes);
    return s->lanes[lane];
}

bool pk_spool_append(pk_spool *s, uint32_t lane_number, const void *record, size_t n)
{
    if (s->error)
        return false;
    if (n == 0 || n > PK_SPOOL_MAX_RECORD) {
        s->error = EINVAL;
        return false;
    }
    spool_lane *lane = lane_of(s, lane_number);
    if (!lane) {
        s->error = ENOMEM;
        return false;
    }
    if (lane->tail_len + n > lane->tail_cap) {
        if (lane->tail_cap >= TAIL_MAX) {
            if (!flush_tail(s, lane))
                return false;
        } else {
            /* Small lanes stay small: many lanes each with a few records are common. */
            size_t cap = lane->tail_cap ? lane->tail_cap * 2 : TAIL_MIN;
            while (cap < lane->tail_len + n) /* a record longer than the tail so far */
                cap *= 2;
            unsigned char *tail = realloc(lane->tail, cap);
            if (!tail) {
                s->error = ENOMEM;
                return false;
            }
            lane->tail = tail;
            lane->tail_cap = cap;
        }
    }
    memcpy(lane->tail + lane->tail_len, record, n);
    lane->tail_len += n;
    lane->bytes += n;
    return true;
}

uint64_t pk_spool_lane_bytes(const pk_spool *s, uint32_t lane)
{
    return lane < s->lane_count && s->lanes[lane] ? s->lanes[lane]->bytes : 0;
}

void pk_spool_reader_init(pk_spool_reader *r, const pk_spool *s, uint32_t lane)
{
    memset(r, 0, sizeof *r);
    r->spool = s;
    r->lane = lane;
}

bool pk_spool_reader_next(pk_spool_reader *r, const unsigned char **data, size_t *n)
{
    const pk_spool *s = r->spool;
    const spool_lane *lane = r->lane < s->lane_count ? s->lanes[r->lane] : NULL;
    if (!lane || r->error)
        return false;
    if (r->next_chunk < lane->chunk_count) {
        spool_chunk c = lane->chunks[r->next_chunk++];
        if (s->fd < 0) {
            *data = s->memory + c.offset;
            *n = c.length;
            return true;
        }
        if (!PK_ARRAY_RESERVE(r->buffer, r->buffer_capacity, c.length)) {
            r->error = ENOMEM;
            return false;
        }
        size_t got = 0;
        while (got < c.length) {
            ssize_t k = pread(s->fd, r->buffer + got, c.length - got, (off_t)(c.offset + got));
            if (k < 0 && errno == EINTR)
                continue;
            if (k <= 0) {
                r->error = k < 0 ? errno : EIO;
                return false;
            }
            got += (size_t)k;
        }
        *data = r->buffer;
        *n = c.length;
        return true;
    }
    if (r->tail_done || lane->tail_len == 0)
        return false;
    r->tail_done = true;
    *data = lane->tail;
    *n = lane->tail_len;
    return true;
}

void pk_spool_reader_free(pk_spool_reader *r)
{
    free(r->buffer);
    r->buffer = NULL;
    r->buffer_capacity = 0;
}
