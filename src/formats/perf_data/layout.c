/* SPDX-License-Identifier: MIT */
/* The start of a perf.data input, shared by the reader and the dump: the header, the attributes
 * and their ids (a file's, before its data section, or a pipe's, as records), which attribute a
 * record is of, and the feature sections after a file's data. */
#include <stdlib.h>
#include <string.h>

#include "core/damage.h"
#include "formats/perf_data/perf_data.h"

/* The bytes before a file's data section (header, ids, attributes) are read whole: perf puts a
 * few KiB there. More is refused rather than allocated from an unchecked offset. */
#define PD_MAX_PREFIX ((uint64_t)64 << 20)
/* Attributes: perf records one per event (and per group member). */
#define PD_MAX_ATTRS 4096
/* Feature sections after the data are read whole up to this size. */
#define PD_MAX_FEATURES ((uint64_t)64 << 20)

void pd_file_free(pd_file *f)
{
    for (size_t i = 0; i < f->attr_count; i++)
        pd_attr_free(&f->attrs[i]);
    free(f->attrs);
    f->attrs = NULL;
    f->attr_count = 0;
}

static bool section_inside(pd_section s, uint64_t limit)
{
    return s.offset <= limit && s.size <= limit - s.offset;
}

/* The attributes of a file from the bytes before its data section. */
static pk_status read_file_attrs(pd_file *f, const uint8_t *prefix, uint64_t prefix_size,
                                 pk_error *err)
{
    const pd_header *h = &f->header;
    if (!section_inside(h->attrs, prefix_size))
        return pk_error_set(err, PK_ERR_INPUT, 24,
                            "the attribute section (%llu bytes at byte %llu) is not between the "
                            "header and the data section (byte %llu): a layout this reader does "
                            "not know", (unsigned long long)h->attrs.size,
                            (unsigned long long)h->attrs.offset, (unsigned long long)prefix_size);
    if (h->attrs.size % h->attr_size != 0 || h->attrs.size == 0)
        return pk_error_set(err, PK_ERR_INPUT, 32,
                            "the attribute section's %llu bytes are not whole entries of %llu",
                            (unsigned long long)h->attrs.size,
                            (unsigned long long)h->attr_size);
    uint64_t count = h->attrs.size / h->attr_size;
    if (count > PD_MAX_ATTRS)
        return pk_error_set(err, PK_ERR_INPUT, 32, "%llu attributes: more than %d events",
                            (unsigned long long)count, PD_MAX_ATTRS);
    f->attrs = calloc((size_t)count, sizeof *f->attrs);
    if (!f->attrs)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    size_t attr_bytes = (size_t)h->attr_size - 16;
    for (size_t i = 0; i < count; i++) {
        uint64_t at = h->attrs.offset + i * h->attr_size;
        const uint8_t *entry = prefix + at;
        pd_attr *a = &f->attrs[f->attr_count++];
        pd_decode_attr(entry, attr_bytes, h->big, a);
        const char *why = pd_attr_unsupported(a);
        if (why)
            return pk_error_set(err, PK_ERR_INPUT, (int64_t)at, "event %zu: %s", i + 1, why);
        pd_section ids = {pd_u64(entry + attr_bytes, h->big),
                          pd_u64(entry + attr_bytes + 8, h->big)};
        if (!section_inside(ids, prefix_size) || ids.size % 8 != 0)
            return pk_error_set(err, PK_ERR_INPUT, (int64_t)(at + attr_bytes),
                                "event %zu: its ids (%llu bytes at byte %llu) are not whole ids "
                                "before the data section", i + 1,
                                (unsigned long long)ids.size, (unsigned long long)ids.offset);
        a->id_count = (size_t)(ids.size / 8);
        a->ids = malloc((a->id_count ? a->id_count : 1) * sizeof *a->ids);
        if (!a->ids)
            return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
        for (size_t k = 0; k < a->id_count; k++)
            a->ids[k] = pd_u64(prefix + ids.offset + 8 * k, h->big);
    }
    return PK_OK;
}

pk_status pd_open(pk_input *in, pd_file *f, pk_error *err)
{
    memset(f, 0, sizeof *f);
    const uint8_t *head;
    size_t got = pk_in_peek(in, PD_FILE_HEADER_SIZE, &head);
    pk_status status = pd_decode_header(head, got, &f->header, err);
    if (status != PK_OK)
        return status;
    if (f->header.pipe) {
        pk_in_skip_buffered(in, PD_PIPE_HEADER_SIZE);
        f->data_start = PD_PIPE_HEADER_SIZE;
        f->data_end = UINT64_MAX;
        return PK_OK;
    }
    const pd_header *h = &f->header;
    uint64_t start = h->data.offset;
    if (start < PD_FILE_HEADER_SIZE || start > PD_MAX_PREFIX ||
        (in->size_hint && start > in->size_hint))
        return pk_error_set(err, PK_ERR_INPUT, 40,
                            "the data section starts at byte %llu: not after the header, or "
                            "past the %s", (unsigned long long)start,
                            start > PD_MAX_PREFIX ? "64 MiB this reader reads before it"
                                                  : "end of the file");
    uint8_t *prefix = malloc((size_t)start);
    if (!prefix)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    size_t read = pk_in_read(in, prefix, (size_t)start);
    if (read < start) {
        free(prefix);
        pk_status failed = pk_in_fail(in, err);
        if (failed != PK_OK)
            return failed;
        return pk_error_set(err, PK_ERR_INPUT, (int64_t)read,
                            "the file ends at byte %zu, before its data section (byte %llu)",
                            read, (unsigned long long)start);
    }
    status = read_file_attrs(f, prefix, start, err);
    free(prefix);
    if (status != PK_OK)
        return status;
    f->data_start = start;
    if (h->data.size == 0) {
        /* perf writes the sizes when it finishes: a recording killed before has none. */
        f->data_end = UINT64_MAX;
        f->data_size_missing = true;
    } else if (h->data.size > UINT64_MAX - start) {
        return pk_error_set(err, PK_ERR_INPUT, 48, "the data section's size %llu overflows",
                            (unsigned long long)h->data.size);
    } else {
        f->data_end = start + h->data.size;
    }
    return PK_OK;
}

pk_status pd_add_pipe_attr(pd_file *f, const pd_record *rec, pk_error *err)
{
    bool big = f->header.big;
    if (rec->body_size < PD_ATTR_SIZE_VER0)
        return pk_damage(err, rec->offset, "an attribute record of %u bytes: shorter than the "
                         "64 bytes of an attribute", rec->size);
    uint32_t size = pd_u32(rec->body + 4, big);
    if (size < PD_ATTR_SIZE_VER0 || size > rec->body_size || (rec->body_size - size) % 8 != 0)
        return pk_damage(err, rec->offset, "an attribute record whose attribute size %u does "
                         "not fit its %zu bytes with whole ids after it", size, rec->body_size);
    if (f->attr_count >= PD_MAX_ATTRS)
        return pk_damage(err, rec->offset, "more than %d attributes", PD_MAX_ATTRS);
    pd_attr a;
    pd_decode_attr(rec->body, size, big, &a);
    const char *why = pd_attr_unsupported(&a);
    if (why)
        return pk_damage(err, rec->offset, "event %zu: %s", f->attr_count + 1, why);
    a.id_count = (rec->body_size - size) / 8;
    a.ids = malloc((a.id_count ? a.id_count : 1) * sizeof *a.ids);
    pd_attr *grown = realloc(f->attrs, (f->attr_count + 1) * sizeof *f->attrs);
    if (!a.ids || !grown) {
        free(a.ids);
        if (grown)
            f->attrs = grown;
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    }
    f->attrs = grown;
    for (size_t k = 0; k < a.id_count; k++)
        a.ids[k] = pd_u64(rec->body + size + 8 * k, big);
    f->attrs[f->attr_count++] = a;
    return PK_OK;
}

const pd_attr *pd_attr_of(const pd_file *f, const pd_record *rec)
{
    if (f->attr_count == 0)
        return NULL;
    const pd_attr *first = &f->attrs[0];
    if (f->attr_count == 1)
        return first;
    size_t pos;
    if (rec->type == PD_RECORD_SAMPLE) {
        pos = pd_sample_id_position(first);
        if (pos == SIZE_MAX || pos > rec->body_size || rec->body_size - pos < 8)
            return pos == SIZE_MAX ? first : NULL;
    } else {
        size_t back = pd_other_id_position_from_end(first);
        if (back == SIZE_MAX || back > rec->body_size)
            return back == SIZE_MAX ? first : NULL;
        pos = rec->body_size - back;
    }
    uint64_t id = pd_u64(rec->body + pos, f->header.big);
    for (size_t i = 0; i < f->attr_count; i++)
        for (size_t k = 0; k < f->attrs[i].id_count; k++)
            if (f->attrs[i].ids[k] == id)
                return &f->attrs[i];
    return NULL;
}

bool pd_read_features(pk_input *in, const pd_file *f, uint8_t **data, size_t *size,
                      uint64_t *base, const char **why)
{
    *data = NULL;
    *size = 0;
    *why = NULL;
    if (f->header.pipe || f->data_size_missing)
        return false;
    if (pk_in_seekable(in) && in->size_hint) {
        /* Read out of turn: the stream stays at the records. */
        if (in->size_hint < f->data_end) {
            *why = "the file ends before its feature sections";
            return false;
        }
        uint64_t want = in->size_hint - f->data_end;
        if (want > PD_MAX_FEATURES) {
            *why = "the feature sections are larger than 64 MiB";
            return false;
        }
        uint8_t *buf = malloc(want ? (size_t)want : 1);
        if (!buf) {
            *why = "out of memory";
            return false;
        }
        *data = buf;
        *size = pk_in_read_at(in, f->data_end, buf, (size_t)want);
        *base = f->data_end;
        return true;
    }
    uint64_t at = pk_in_offset(in);
    if (at > f->data_end)
        return false;
    if (pk_in_skip(in, f->data_end - at) < f->data_end - at) {
        *why = "the file ends before its feature sections";
        return false;
    }
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    if (!buf) {
        *why = "out of memory";
        return false;
    }
    for (;;) {
        if (len == cap) {
            if (cap >= PD_MAX_FEATURES) {
                *why = "the feature sections are larger than 64 MiB";
                free(buf);
                return false;
            }
            uint8_t *grown = realloc(buf, cap * 2);
            if (!grown) {
                /* Not the sections cut short: they would be read as damaged. */
                *why = "out of memory";
                free(buf);
                return false;
            }
            buf = grown;
            cap *= 2;
        }
        size_t n = pk_in_read(in, buf + len, cap - len);
        len += n;
        if (n == 0)
            break;
    }
    *data = buf;
    *size = len;
    *base = f->data_end;
    return true;
}
