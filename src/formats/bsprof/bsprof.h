/* SPDX-License-Identifier: MIT */
/* Roku BrightScript profiler files (.bsprof): what the reader, the dump and the writer share.
 *
 * Layout: a header (magic, version, header size, sample ratios, line-data and memory flags,
 * run start, six NUL-terminated strings, zero padding up to the header size), a stream of
 * entries that each start with a varint tag whose low three bits are the entry type, an end
 * marker (the tag value 0) and a footer holding the run end (varint, ms since 1970).
 *
 * The folder, by role: codec.c decodes the header and the entries (for the reader and the
 * dump alike), read.c builds the model, dump.c prints the records, write.c writes a profile,
 * format.c registers the format.
 */
#ifndef PK_FORMATS_BSPROF_BSPROF_H
#define PK_FORMATS_BSPROF_BSPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buffer.h"
#include "core/input.h"
#include "profkit/format.h"

#define BS_MAGIC_SIZE 8
extern const uint8_t pk_bsprof_magic[BS_MAGIC_SIZE];

/* The major version of the specification this reader and writer follow. The specification
 * names no number; a first published version is 1, and profkit writes 1.0.0. */
#define BS_KNOWN_MAJOR 1
#define BS_WRITE_MAJOR 1
#define BS_WRITE_MINOR 0
#define BS_WRITE_PATCH 0

/* No real name or path comes near this; it bounds what a damaged file can make us buffer. */
#define BS_MAX_STRING (16u << 20)

enum bs_entry_type {
    BS_STRING = 0,
    BS_MODULE = 1,
    BS_PATH = 2,
    BS_MEMORY = 3,
    BS_CPU = 4,
    BS_CALLS = 5
};

enum bs_memory_op { BS_OP_ALLOC = 0, BS_OP_FREE = 1, BS_OP_FREE_REALLOC = 2 };

/* ---- the header ------------------------------------------------------------------------------ */

enum bs_header_text { BS_TARGET, BS_SUPPLEMENTAL, BS_TARGET_VERSION, BS_VENDOR, BS_MODEL,
                      BS_FIRMWARE, BS_HEADER_TEXT_COUNT };
/* The property keys of the header strings ("target", "supplemental-info", ...). */
extern const char *const pk_bsprof_header_text_keys[BS_HEADER_TEXT_COUNT];

typedef struct bs_header {
    uint32_t major, minor, patch;
    uint32_t size;        /* header size: where the body starts */
    uint64_t known_size;  /* bytes of the fields this reader understands */
    float requested_ratio, actual_ratio;
    uint64_t line_data, memory_ops; /* "varint bool": any non-zero value is true */
    uint64_t start_ms;
    pk_buffer text[BS_HEADER_TEXT_COUNT]; /* NUL-terminated */
    bool cut; /* the header could not be read because the input ended inside it: a stream
                 still arriving (scan.c) reads it again once more bytes are there */
} bs_header;

/* Reads the header and skips to the body. A header that cannot be read leaves nothing worth
 * keeping: its errors are plain errors, not damage. *h is to be freed in any case. */
pk_status pk_bsprof_read_header(pk_input *in, bs_header *h, pk_error *err);
void pk_bsprof_header_free(bs_header *h);

/* The shortest decimal form that reads back as the same float32 (the sample ratios). */
void pk_bsprof_format_ratio(float v, char *buf, size_t size);

/* ---- the entries ----------------------------------------------------------------------------- */

typedef struct bs_entry {
    uint64_t offset;      /* of the tag */
    uint64_t tag;
    unsigned type;        /* enum bs_entry_type */
    unsigned op;          /* memory: enum bs_memory_op */
    uint32_t id;          /* string, module or path element defined; the path element of a
                             memory, CPU or call count entry */
    uint32_t caller;      /* path element: caller, 0 for a root */
    uint32_t module;      /* root path element: its module */
    uint32_t line_offset; /* 0 when the file has no line data */
    uint32_t file, line, function; /* path element: string IDs and start line */
    uint32_t name;        /* module: string ID */
    uint32_t address, size;
    uint32_t cpu, wall;
    uint32_t count;
    const uint8_t *text;  /* string entry, NUL-terminated: valid until the next decode */
    size_t text_len;
} bs_entry;

typedef enum bs_next {
    BS_NEXT_ENTRY,
    BS_NEXT_END_MARKER,
    BS_NEXT_EOF,     /* the input ends cleanly before an entry */
    BS_NEXT_DAMAGED, /* an entry that cannot be decoded, reported with pk_damage */
    BS_NEXT_NOMEM
} bs_next;

typedef struct bs_decoder {
    pk_input *in;
    bool line_data; /* the header's line-data flag: entries carry line offsets */
    pk_buffer text; /* the text of the last string entry */
    pk_error *err;
    bool cut;       /* the last damage was the input ending inside the entry: more bytes of a
                       stream still arriving may complete it (scan.c) */
} bs_decoder;

/* Decodes the next entry into *e. Every entry is checked the same way for the reader and the
 * dump: damage names the byte offset of the entry, and nothing after it can be decoded (entries
 * carry no length). */
bs_next pk_bsprof_decode(bs_decoder *d, bs_entry *e);
void pk_bsprof_decoder_free(bs_decoder *d);

/* ---- a stream as it arrives ------------------------------------------------------------------ */

/* Follows a .bsprof stream fed in pieces of any size (a capture from a device), decoding the
 * header and the entries as they complete: how many entries are whole and where the last one
 * ends, whether the end marker came, and whether the stream is damaged or not .bsprof at all.
 * Only the bytes of an entry not yet complete are kept (at most one entry: a string of up to
 * BS_MAX_STRING bytes), and header padding is counted, not kept. */
typedef enum bs_scan_state {
    BS_SCAN_HEADER,
    BS_SCAN_PADDING,
    BS_SCAN_BODY,
    BS_SCAN_FOOTER,     /* after the end marker: the run end */
    BS_SCAN_DONE,       /* the footer is read; further bytes are not decoded */
    BS_SCAN_DAMAGED,    /* bytes that cannot be decoded; nothing after them is decoded */
    BS_SCAN_NOT_BSPROF  /* the stream does not start with the .bsprof magic */
} bs_scan_state;

typedef struct bs_scan {
    bs_scan_state state;
    uint64_t received;         /* bytes fed so far */
    uint64_t entries;          /* complete entries of the body (the end marker not counted) */
    uint64_t complete_through; /* offset just past the last whole item: header, entry, end
                                  marker or footer; 0 before the header is whole */
    bool end_marker;
    pk_error damage;           /* BS_SCAN_DAMAGED, BS_SCAN_NOT_BSPROF: why, and where */
    /* internal */
    bs_decoder decoder;
    pk_buffer pending;         /* bytes from pending_offset on, not decoded yet */
    uint64_t pending_offset;
    uint64_t padding_left;     /* BS_SCAN_PADDING: header bytes still to skip */
    size_t retry_at;           /* decode the pending bytes again once they are this many */
} bs_scan;

void pk_bsprof_scan_init(bs_scan *s);
/* Decodes what the n bytes complete. Returns PK_ERR_NOMEM when memory runs out, else PK_OK
 * (damage is a state of the scan, not a failure to feed). */
pk_status pk_bsprof_scan_feed(bs_scan *s, const void *data, size_t n);
/* Called at the end of the stream: decodes what is pending even where feed would wait for more
 * bytes first (feed retries a long cut entry only once its bytes have doubled, so that a long
 * string arriving in small pieces is not decoded again for every piece), and settles the state:
 * an item cut by the end is damage. */
pk_status pk_bsprof_scan_finish(bs_scan *s);
void pk_bsprof_scan_free(bs_scan *s);

/* ---- the format's entry points --------------------------------------------------------------- */

pk_status pk_bsprof_read(pk_input *in, pk_profile *p, const pk_read_options *options,
                         pk_error *err);
/* Makes the reads that this thread starts from now on decode CPU and call-count entries with the
 * byte-wise loop even where the wide decoder would run (x86-64 with a fast pext), or, with
 * false, with the fastest decoder again. For the tests and the fuzz harness, which check that
 * both decoders read every input alike: on such a processor the byte-wise loop, what every
 * other processor runs, is otherwise never used. Not exported. */
void pk_bsprof_force_bytewise(bool on);
/* Makes the reads that this thread starts from now on, where the wide decoder runs, fetch the
 * cells a window of entries ahead whatever their size (it does so only once they outgrow the
 * caches), or, with false, decide by their size again. For the same tests: small inputs never
 * reach that size otherwise. Not exported. */
void pk_bsprof_force_batched(bool on);
pk_status pk_bsprof_dump(pk_input *in, pk_output *out, bool raw, const pk_read_options *options,
                         pk_error *err);
pk_status pk_bsprof_write(const pk_profile *p, pk_output *out, const pk_write_options *options,
                          pk_error *err);

#endif
