/* SPDX-License-Identifier: MIT */
/* What the record decoder of br.h reports: the names of the record types and its damage. */
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

void pk_br_unknown_type(const br_record *rec, pk_error *err)
{
    pk_damage(err, rec->offset, "unknown record type %u", rec->type);
}

void pk_br_cut(const br_record *rec, pk_error *err)
{
    pk_damage(err, rec->offset, "the %s record runs past the end of the input",
              pk_br_record_name(rec->type));
}
