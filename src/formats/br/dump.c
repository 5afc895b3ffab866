/* SPDX-License-Identifier: MIT */
/* The BR record dump: one line per record with its byte offset, decoded by the reader's record
 * decoder; module numbers are resolved to the files mapped to them, --raw prints every field as
 * stored. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/hashmap.h"
#include "core/output.h"
#include "formats/br/br.h"

typedef struct br_dump_state {
    pk_u64map by_number; /* module number -> index into names */
    char **names;        /* files as mapped, NUL-terminated copies */
    size_t count, capacity;
    uint64_t groups;
} br_dump_state;

/* Remembers the file a module number is mapped to, for the records that name it. */
static bool br_dump_map(br_dump_state *d, unsigned module, const uint8_t *name, size_t len)
{
    char *copy = malloc(len + 1);
    if (!copy)
        return false;
    memcpy(copy, name, len);
    copy[len] = '\0';
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&d->by_number, module, (uint32_t)d->count, &slot, &inserted)) {
        free(copy);
        return false;
    }
    if (!inserted) {
        free(d->names[*slot]);
        d->names[*slot] = copy;
        return true;
    }
    if (!PK_ARRAY_RESERVE(d->names, d->capacity, d->count + 1)) {
        pk_u64map_remove(&d->by_number, module, NULL);
        free(copy);
        return false;
    }
    d->names[d->count++] = copy;
    return true;
}

static void br_dump_location(pk_output *out, br_dump_state *d, const br_record *rec)
{
    uint32_t *slot = pk_u64map_find(&d->by_number, rec->module);
    if (slot)
        pk_out_quoted(out, d->names[*slot], strlen(d->names[*slot]));
    else
        pk_out_printf(out, "module %u (unmapped)", rec->module);
    pk_out_printf(out, " line %" PRIu32 " clause %u", rec->line, rec->clause);
}


static void br_dump_raw(pk_output *out, const br_record *rec)
{
    pk_out_printf(out, "%u", rec->type);
    switch (rec->type) {
    case BR_MODULE:
        pk_out_printf(out, " module=%u name_length=%zu name=", rec->module, rec->name_len);
        pk_out_quoted(out, rec->name, rec->name_len);
        break;
    case BR_LINE:
    case BR_BACKTRACE:
        pk_out_printf(out, " module=%u line=%" PRIu32 " clause=%u", rec->module, rec->line,
                      rec->clause);
        break;
    case BR_TIME:
        pk_out_printf(out, " nanoseconds=%" PRIu64, rec->nanoseconds);
        break;
    case BR_FUNCTION:
        pk_out_printf(out, " name_length=%zu name=", rec->name_len);
        pk_out_quoted(out, rec->name, rec->name_len);
        break;
    default:
        break;
    }
}

static pk_status br_dump_resolved(pk_output *out, br_dump_state *d, const br_record *rec,
                                  pk_error *err)
{
    pk_out_puts(out, pk_br_record_name(rec->type));
    switch (rec->type) {
    case BR_MODULE:
        pk_out_printf(out, " %u = ", rec->module);
        pk_out_quoted(out, rec->name, rec->name_len);
        if (!br_dump_map(d, rec->module, rec->name, rec->name_len))
            return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
        break;
    case BR_LINE:
    case BR_BACKTRACE:
        pk_out_putc(out, ' ');
        br_dump_location(out, d, rec);
        break;
    case BR_TIME:
        pk_out_printf(out, " %" PRIu64 " ns", rec->nanoseconds);
        break;
    case BR_FUNCTION:
        pk_out_putc(out, ' ');
        pk_out_quoted(out, rec->name, rec->name_len);
        break;
    case BR_END:
        pk_out_printf(out, " (sample %" PRIu64 ")", ++d->groups);
        break;
    default:
        break;
    }
    return PK_OK;
}

pk_status pk_br_dump(pk_input *in, pk_output *out, bool raw, const pk_read_options *options,
                     pk_error *err)
{
    (void)options;
    br_dump_state state = {0}, *d = &state;
    pk_u64map_init(&d->by_number);
    pk_status st = PK_OK;
    pk_out_puts(out, raw ? "offset  type fields\n" : "offset  record\n");
    br_record rec;
    for (;;) {
        br_next next = pk_br_next_record(in, &rec, err);
        if (next == BR_NEXT_EOF)
            break;
        if (next == BR_NEXT_DAMAGED) {
            /* The records before it are printed; the damage is the caller's to show. */
            st = PK_ERR_INPUT;
            break;
        }
        pk_out_printf(out, "%6" PRIu64 "  ", rec.offset);
        if (raw)
            br_dump_raw(out, &rec);
        else
            st = br_dump_resolved(out, d, &rec, err);
        pk_out_putc(out, '\n');
        if (st != PK_OK || pk_out_failed(out))
            break;
    }
    for (size_t i = 0; i < d->count; i++)
        free(d->names[i]);
    free(d->names);
    pk_u64map_free(&d->by_number);
    return st;
}
