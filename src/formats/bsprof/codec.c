/* SPDX-License-Identifier: MIT */
/* Decoding .bsprof: the header and the entries, for the reader and the dump alike. The reader
 * decodes most CPU, call-count and memory entries on a fast path of its own (read.c) and leaves
 * the rest here: definitions, entries at the end of a buffer, and anything unusual, which this
 * decoder reports. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/damage.h"
#include "formats/bsprof/bsprof.h"

const uint8_t pk_bsprof_magic[BS_MAGIC_SIZE] = {'b', 's', 'p', 'r', 'o', 'f', 0, 0};

const char *const pk_bsprof_header_text_keys[BS_HEADER_TEXT_COUNT] = {
    "target", "supplemental-info", "target-version",
    "device-vendor", "device-model", "device-firmware"};

static const char *const bs_header_text_names[BS_HEADER_TEXT_COUNT] = {
    "target name", "supplemental information", "target version",
    "device vendor name", "device model number", "device firmware version"};

static const char *const bs_entry_names[8] = {"string", "module", "path element", "memory",
                                              "cpu",    "call count", "type 6", "type 7"};

void pk_bsprof_format_ratio(float v, char *buf, size_t size)
{
    for (int precision = 1; precision <= 9; precision++) {
        snprintf(buf, size, "%.*g", precision, (double)v);
        if (strtof(buf, NULL) == v)
            return;
    }
}

typedef enum bs_text_result {
    BS_TEXT_OK,
    BS_TEXT_CUT,      /* the input ends before the NUL */
    BS_TEXT_TOO_LONG, /* longer than BS_MAX_STRING */
    BS_TEXT_NOMEM
} bs_text_result;

/* Reads a NUL-terminated string into text (NUL-terminated there too, the NUL not counted). */
static bs_text_result bs_read_cstring(pk_input *in, pk_buffer *text)
{
    pk_buffer_clear(text);
    for (;;) {
        if (pk_in_peekc(in) < 0)
            return BS_TEXT_CUT;
        size_t available = pk_in_available(in);
        const uint8_t *nul = memchr(in->pos, 0, available);
        size_t n = nul ? (size_t)(nul - in->pos) : available;
        if (text->len + n > BS_MAX_STRING)
            return BS_TEXT_TOO_LONG;
        pk_buffer_append(text, in->pos, n);
        in->pos += n;
        if (nul) {
            in->pos++;
            return pk_buffer_terminate(text) ? BS_TEXT_OK : BS_TEXT_NOMEM;
        }
        if (text->failed)
            return BS_TEXT_NOMEM;
    }
}

/* ---- the header ------------------------------------------------------------------------------ */

void pk_bsprof_header_free(bs_header *h)
{
    for (int i = 0; i < BS_HEADER_TEXT_COUNT; i++)
        pk_buffer_free(&h->text[i]);
}

static pk_status bs_header_cut(bs_header *h, uint64_t offset, const char *field, pk_error *err)
{
    h->cut = true;
    return pk_error_set(err, PK_ERR_INPUT, (int64_t)offset,
                        "truncated header: the input ends inside the %s", field);
}

static pk_status bs_header_varint(pk_input *in, bs_header *h, uint64_t *value,
                                  const char *field, pk_error *err)
{
    uint64_t offset = pk_in_offset(in);
    pk_varint_result r = pk_in_varint(in, value);
    if (r == PK_VARINT_TRUNCATED)
        return bs_header_cut(h, offset, field, err);
    if (r != PK_VARINT_OK)
        return pk_error_set(err, PK_ERR_INPUT, (int64_t)offset,
                            "header: the %s is not a valid varint", field);
    return PK_OK;
}

static pk_status bs_header_varint32(pk_input *in, bs_header *h, uint32_t *value,
                                    const char *field, pk_error *err)
{
    uint64_t offset = pk_in_offset(in);
    pk_varint_result r = pk_in_varint_u32(in, value);
    if (r == PK_VARINT_TRUNCATED)
        return bs_header_cut(h, offset, field, err);
    if (r == PK_VARINT_OVER_32_BITS)
        return pk_error_set(err, PK_ERR_INPUT, (int64_t)offset,
                            "header: the %s exceeds 32 bits", field);
    if (r != PK_VARINT_OK)
        return pk_error_set(err, PK_ERR_INPUT, (int64_t)offset,
                            "header: the %s is not a valid varint", field);
    return PK_OK;
}

static pk_status bs_header_float(pk_input *in, bs_header *h, float *value, const char *field,
                                 pk_error *err)
{
    uint64_t offset = pk_in_offset(in);
    uint8_t b[4];
    if (pk_in_read(in, b, 4) != 4)
        return bs_header_cut(h, offset, field, err);
    uint32_t bits = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                    (uint32_t)b[3] << 24;
    memcpy(value, &bits, sizeof *value);
    return PK_OK;
}

pk_status pk_bsprof_read_header(pk_input *in, bs_header *h, pk_error *err)
{
    memset(h, 0, sizeof *h);
    uint8_t magic[BS_MAGIC_SIZE];
    size_t got = pk_in_read(in, magic, sizeof magic);
    if (got == 0) {
        h->cut = true;
        return pk_error_set(err, PK_ERR_INPUT, 0, "empty file: no .bsprof header");
    }
    if (memcmp(magic, pk_bsprof_magic, got) != 0)
        return pk_error_set(err, PK_ERR_INPUT, 0, "not a .bsprof file (no \"bsprof\" magic)");
    if (got < sizeof magic)
        return bs_header_cut(h, 0, "magic", err);

    pk_status st;
    uint64_t size_offset = 0;
    if ((st = bs_header_varint32(in, h, &h->major, "major version", err)) ||
        (st = bs_header_varint32(in, h, &h->minor, "minor version", err)) ||
        (st = bs_header_varint32(in, h, &h->patch, "patch level", err)))
        return st;
    size_offset = pk_in_offset(in);
    if ((st = bs_header_varint32(in, h, &h->size, "header size", err)) ||
        (st = bs_header_float(in, h, &h->requested_ratio, "requested sample ratio", err)) ||
        (st = bs_header_float(in, h, &h->actual_ratio, "actual sample ratio", err)) ||
        (st = bs_header_varint(in, h, &h->line_data, "line data flag", err)) ||
        (st = bs_header_varint(in, h, &h->memory_ops, "memory operations flag", err)) ||
        (st = bs_header_varint(in, h, &h->start_ms, "run start timestamp", err)))
        return st;
    for (int i = 0; i < BS_HEADER_TEXT_COUNT; i++) {
        uint64_t offset = pk_in_offset(in);
        switch (bs_read_cstring(in, &h->text[i])) {
        case BS_TEXT_OK:
            break;
        case BS_TEXT_CUT:
            return bs_header_cut(h, offset, bs_header_text_names[i], err);
        case BS_TEXT_TOO_LONG:
            return pk_error_set(err, PK_ERR_INPUT, (int64_t)offset,
                                "header: the %s is longer than %u bytes", bs_header_text_names[i],
                                BS_MAX_STRING);
        case BS_TEXT_NOMEM:
            return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
        }
    }
    h->known_size = pk_in_offset(in);
    if (h->size < h->known_size)
        return pk_error_set(err, PK_ERR_INPUT, (int64_t)size_offset,
                            "header size %" PRIu32 " is smaller than the %" PRIu64
                            " bytes of its fields",
                            h->size, h->known_size);
    uint64_t padding = h->size - h->known_size;
    if (pk_in_skip(in, padding) != padding) {
        h->cut = true;
        return pk_error_set(err, PK_ERR_INPUT, (int64_t)size_offset,
                            "header size %" PRIu32 " goes beyond the end of the input",
                            h->size);
    }
    return PK_OK;
}

/* ---- the entries ----------------------------------------------------------------------------- */

void pk_bsprof_decoder_free(bs_decoder *d)
{
    pk_buffer_free(&d->text);
}

/* Reports a varint field that could not be read (r as from pk_in_varint_u32). */
static bs_next __attribute__((noinline))
bs_field_damage(bs_decoder *d, const bs_entry *e, pk_varint_result r, const char *field)
{
    const char *type = bs_entry_names[e->type & 7];
    d->cut = r == PK_VARINT_TRUNCATED;
    if (r == PK_VARINT_TRUNCATED)
        pk_damage(d->err, e->offset, "truncated %s entry: the input ends inside its %s", type,
                  field);
    else if (r == PK_VARINT_OVER_32_BITS)
        pk_damage(d->err, e->offset, "%s entry: the %s exceeds 32 bits", type, field);
    else
        pk_damage(d->err, e->offset, "%s entry: the %s is not a valid varint", type, field);
    return BS_NEXT_DAMAGED;
}

static bs_next __attribute__((noinline)) bs_entry_damage(bs_decoder *d, const bs_entry *e,
                                                         const char *message)
{
    d->cut = false;
    pk_damage(d->err, e->offset, "%s entry: %s", bs_entry_names[e->type & 7], message);
    return BS_NEXT_DAMAGED;
}

#define BS_FIELD(var, name)                                                                  \
    do {                                                                                     \
        pk_varint_result r_ = pk_in_varint_u32(in, &(var));                                  \
        if (r_ != PK_VARINT_OK)                                                              \
            return bs_field_damage(d, e, r_, name);                                          \
    } while (0)

/* The ID in a tag's payload (above the type bits), which must fit 32 bits. */
#define BS_TAG_ID(shift)                                                                     \
    do {                                                                                     \
        if (e->tag >> (32 + (shift)))                                                        \
            return bs_entry_damage(d, e, "the tag payload exceeds 32 bits");                 \
        e->id = (uint32_t)(e->tag >> (shift));                                               \
    } while (0)

bs_next pk_bsprof_decode(bs_decoder *d, bs_entry *e)
{
    pk_input *in = d->in;
    e->offset = pk_in_offset(in);
    e->type = 0;
    pk_varint_result r = pk_in_varint(in, &e->tag);
    if (r != PK_VARINT_OK) {
        if (r == PK_VARINT_TRUNCATED && pk_in_available(in) == 0)
            return BS_NEXT_EOF;
        return bs_field_damage(d, e, r, "tag");
    }
    if (e->tag == 0)
        return BS_NEXT_END_MARKER;
    e->type = (unsigned)(e->tag & 7);
    e->line_offset = 0;
    switch (e->type) {
    case BS_CPU:
        BS_TAG_ID(3);
        if (d->line_data)
            BS_FIELD(e->line_offset, "line offset");
        BS_FIELD(e->cpu, "cpu time");
        BS_FIELD(e->wall, "wall time");
        if (e->id == 0)
            return bs_entry_damage(d, e, "path element ID 0");
        return BS_NEXT_ENTRY;
    case BS_CALLS:
        BS_TAG_ID(3);
        BS_FIELD(e->count, "call count");
        if (e->id == 0)
            return bs_entry_damage(d, e, "path element ID 0");
        return BS_NEXT_ENTRY;
    case BS_MEMORY:
        BS_TAG_ID(5);
        e->op = (unsigned)(e->tag >> 3) & 3;
        if (e->op == 3)
            return bs_entry_damage(d, e, "memory operation 3 is undefined");
        if (d->line_data)
            BS_FIELD(e->line_offset, "line offset");
        BS_FIELD(e->address, "address");
        e->size = 0;
        if (e->op == BS_OP_ALLOC)
            BS_FIELD(e->size, "size");
        if (e->id == 0)
            return bs_entry_damage(d, e, "path element ID 0");
        return BS_NEXT_ENTRY;
    case BS_STRING:
        BS_TAG_ID(3);
        switch (bs_read_cstring(in, &d->text)) {
        case BS_TEXT_OK:
            break;
        case BS_TEXT_CUT:
            return bs_field_damage(d, e, PK_VARINT_TRUNCATED, "text");
        case BS_TEXT_TOO_LONG:
            return bs_entry_damage(d, e, "the text is longer than 16 MiB");
        case BS_TEXT_NOMEM:
            pk_error_set(d->err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
            return BS_NEXT_NOMEM;
        }
        /* ID 0 cannot occur: its tag would be 0, the end marker. */
        e->text = d->text.data;
        e->text_len = d->text.len;
        return BS_NEXT_ENTRY;
    case BS_MODULE:
        BS_TAG_ID(3);
        BS_FIELD(e->name, "name string ID");
        if (e->id == 0)
            return bs_entry_damage(d, e, "module ID 0");
        return BS_NEXT_ENTRY;
    case BS_PATH:
        BS_TAG_ID(3);
        e->module = 0;
        BS_FIELD(e->caller, "caller path element ID");
        if (e->caller == 0)
            BS_FIELD(e->module, "module ID");
        else if (d->line_data)
            BS_FIELD(e->line_offset, "line offset in the caller");
        BS_FIELD(e->file, "file name string ID");
        BS_FIELD(e->line, "line number");
        BS_FIELD(e->function, "function name string ID");
        if (e->id == 0)
            return bs_entry_damage(d, e, "path element ID 0");
        if (e->caller == 0 && e->module == 0)
            return bs_entry_damage(d, e, "root path element with module ID 0");
        return BS_NEXT_ENTRY;
    default:
        d->cut = false;
        pk_damage(d->err, e->offset,
                  "unknown entry type %u (tag 0x%" PRIx64 "): nothing after it can be decoded",
                  e->type, e->tag);
        return BS_NEXT_DAMAGED;
    }
}
