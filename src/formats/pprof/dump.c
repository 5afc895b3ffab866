/* SPDX-License-Identifier: MIT */
/* The pprof dump: one line per Profile field, with its byte offset, name and content;
 * sub-messages unpacked by libprotobuf-c and printed in protobuf's text style. String indexes
 * are shown as numbers; the string table lists the strings with their indexes. */
#include <inttypes.h>
#include <string.h>

#include <protobuf-c/protobuf-c.h>

#include "core/damage.h"
#include "core/output.h"
#include "formats/pprof/arena.h"
#include "formats/pprof/pprof.h"
#include "formats/pprof/pprof.pb-c.h"
#include "formats/pprof/wire.h"

static void dump_message(pk_output *out, const ProtobufCMessage *m);

static void dump_value(pk_output *out, const ProtobufCFieldDescriptor *fd, const void *value)
{
    switch (fd->type) {
    case PROTOBUF_C_TYPE_INT64:
        pk_out_i64(out, *(const int64_t *)value);
        break;
    case PROTOBUF_C_TYPE_UINT64:
        if (strcmp(fd->name, "address") == 0 || strncmp(fd->name, "memory_", 7) == 0 ||
            strcmp(fd->name, "file_offset") == 0)
            pk_out_printf(out, "0x%" PRIx64, *(const uint64_t *)value);
        else
            pk_out_u64(out, *(const uint64_t *)value);
        break;
    case PROTOBUF_C_TYPE_BOOL:
        pk_out_puts(out, *(const protobuf_c_boolean *)value ? "true" : "false");
        break;
    case PROTOBUF_C_TYPE_MESSAGE:
        dump_message(out, *(const ProtobufCMessage *const *)value);
        break;
    default:
        pk_out_puts(out, "?");
        break;
    }
}

static size_t field_size(const ProtobufCFieldDescriptor *fd)
{
    switch (fd->type) {
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_UINT64: return sizeof(uint64_t);
    case PROTOBUF_C_TYPE_BOOL: return sizeof(protobuf_c_boolean);
    case PROTOBUF_C_TYPE_MESSAGE: return sizeof(void *);
    default: return 0;
    }
}

/* Every field that is set, as name: value. */
static void dump_message(pk_output *out, const ProtobufCMessage *m)
{
    const ProtobufCMessageDescriptor *d = m->descriptor;
    pk_out_putc(out, '{');
    bool first = true;
    for (unsigned i = 0; i < d->n_fields; i++) {
        const ProtobufCFieldDescriptor *fd = &d->fields[i];
        const uint8_t *base = (const uint8_t *)m;
        size_t size = field_size(fd);
        if (fd->label == PROTOBUF_C_LABEL_REPEATED) {
            size_t n = *(const size_t *)(base + fd->quantifier_offset);
            if (n == 0 || size == 0)
                continue;
            const uint8_t *items = *(const uint8_t *const *)(base + fd->offset);
            pk_out_printf(out, "%s%s: [", first ? "" : " ", fd->name);
            for (size_t k = 0; k < n; k++) {
                if (k)
                    pk_out_puts(out, ", ");
                dump_value(out, fd, items + k * size);
            }
            pk_out_putc(out, ']');
        } else {
            const void *value = base + fd->offset;
            bool zero = true;
            for (size_t k = 0; k < size; k++)
                zero = zero && ((const uint8_t *)value)[k] == 0;
            if (zero || size == 0)
                continue;
            pk_out_printf(out, "%s%s: ", first ? "" : " ", fd->name);
            dump_value(out, fd, value);
        }
        first = false;
    }
    pk_out_putc(out, '}');
}

static const ProtobufCMessageDescriptor *field_descriptor(uint32_t field)
{
    switch (field) {
    case PROFILE_SAMPLE_TYPE:
    case PROFILE_PERIOD_TYPE: return &perftools__profiles__value_type__descriptor;
    case PROFILE_SAMPLE: return &perftools__profiles__sample__descriptor;
    case PROFILE_MAPPING: return &perftools__profiles__mapping__descriptor;
    case PROFILE_LOCATION: return &perftools__profiles__location__descriptor;
    case PROFILE_FUNCTION: return &perftools__profiles__function__descriptor;
    default: return NULL;
    }
}

pk_status pprof_dump(pk_input *in, pk_output *out, bool raw, const pk_read_options *options,
                     pk_error *err)
{
    /* raw changes nothing: the file has no other encoding to undo */
    (void)raw;
    (void)options;
    pb_stream s;
    pb_stream_init(&s, in, pprof_field_name);
    pprof_arena arena;
    pprof_arena_init(&arena);
    uint64_t string_index = 0;
    if (pk_in_decompressed(in))
        pk_out_puts(out, "# offsets count decompressed bytes\n");
    pk_status st = PK_OK;
    for (;;) {
        pb_field f;
        st = pb_stream_next(&s, &f, err);
        if (st != PK_OK || f.number == 0)
            break;
        const char *name = pb_stream_field_name(&s, f.number);
        if (f.wire == PB_WIRE_VARINT) {
            pk_out_printf(out, "%" PRIu64 ": %s %" PRId64 "\n", f.offset, name, (int64_t)f.value);
            continue;
        }
        if (f.wire != PB_WIRE_BYTES) {
            pk_out_printf(out, "%" PRIu64 ": %s (%u fixed bytes: 0x%" PRIx64 ")\n", f.offset, name,
                          f.wire == PB_WIRE_FIXED64 ? 8u : 4u, f.value);
            continue;
        }
        const uint8_t *data;
        st = pb_stream_bytes(&s, &f, PPROF_MAX_MESSAGE_BYTES, &data, err);
        if (st != PK_OK)
            break;
        size_t len = (size_t)f.value;
        if (f.number == PROFILE_STRING_TABLE) {
            pk_out_printf(out, "%" PRIu64 ": %s [%" PRIu64 "] ", f.offset, name, string_index++);
            pk_out_json_string_len(out, (const char *)data, len);
            pk_out_putc(out, '\n');
            continue;
        }
        const ProtobufCMessageDescriptor *d = field_descriptor(f.number);
        if (!d) {
            pk_out_printf(out, "%" PRIu64 ": %s (%zu bytes)\n", f.offset, name, len);
            continue;
        }
        ProtobufCMessage *m = protobuf_c_message_unpack(d, &arena.allocator, len, data);
        if (!m) {
            /* damage as the reader reports it */
            st = pk_damage(err, f.offset, "malformed %s", name);
            break;
        }
        pk_out_printf(out, "%" PRIu64 ": %s ", f.offset, name);
        dump_message(out, m);
        pk_out_putc(out, '\n');
        pprof_arena_reset(&arena);
        if (pk_out_failed(out))
            break;
    }
    pb_stream_release(&s);
    pprof_arena_release(&arena);
    return st;
}
