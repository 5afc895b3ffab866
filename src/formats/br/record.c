/* Decoding one BR record, for the reader and the dump alike: the fixed sizes, the name lengths
 * and the checks that the input holds the whole record. */
#include "core/damage.h"
#include "formats/br/br.h"

const char *pk_br_record_name(unsigned type)
{
    switch (type) {
    case BR_MODULE: return "module mapping";
    case BR_LINE: return "current line";
    case BR_TIME: return "time in line";
    case BR_BACKTRACE: return "backtrace";
    case BR_END: return "end current line";
    case BR_FUNCTION: return "function name";
    case BR_GOSUB: return "gosub";
    case BR_MAIN: return "main routine";
    default: return NULL;
    }
}

br_next pk_br_next_record(pk_input *in, br_record *rec, pk_error *err)
{
    rec->offset = pk_in_offset(in);
    const uint8_t *d;
    if (pk_in_peek(in, 1, &d) == 0)
        return BR_NEXT_EOF;
    rec->type = d[0];
    size_t size = br_fixed_size(rec->type);
    if (size == 0) {
        pk_damage(err, rec->offset, "unknown record type %u", rec->type);
        return BR_NEXT_DAMAGED;
    }
    /* The name length is in the fixed part: the whole record is known once that is read. */
    if (pk_in_peek(in, size, &d) == size) {
        size += br_name_length(rec->type, d);
        if (pk_in_peek(in, size, &d) < size)
            size = 0;
    } else {
        size = 0;
    }
    if (size == 0) {
        pk_damage(err, rec->offset, "the %s record runs past the end of the input",
                  pk_br_record_name(rec->type));
        return BR_NEXT_DAMAGED;
    }
    rec->name = NULL;
    rec->name_len = 0;
    switch (rec->type) {
    case BR_MODULE:
        rec->module = br_be16(d + 1);
        rec->name = d + 5;
        rec->name_len = size - 5;
        break;
    case BR_LINE:
    case BR_BACKTRACE:
        rec->module = br_be16(d + 1);
        rec->line = br_be32(d + 3);
        rec->clause = d[7];
        break;
    case BR_TIME:
        rec->nanoseconds = (uint64_t)br_be32(d + 1) << 32 | br_be32(d + 5);
        break;
    case BR_FUNCTION:
        rec->name = d + 2;
        rec->name_len = size - 2;
        break;
    default:
        break;
    }
    /* The bytes stay where they are until the next read: name points into them. */
    pk_in_skip_buffered(in, size);
    return BR_NEXT_RECORD;
}
