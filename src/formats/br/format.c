/* SPDX-License-Identifier: MIT */
/* The BR profiler format in the registry: recognised by its records (the files have no fixed
 * name), read, written and dumped. */
#include <stdbool.h>
#include <stddef.h>

#include "formats/br/br.h"
#include "formats/formats.h"

static bool br_printable(const uint8_t *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < 0x20 || s[i] == 0x7f)
            return false;
    return true;
}

/* The records must parse one after the other from the first byte, which must map a module.
 * Damage after a whole group still looks like a (damaged) BR file. */
static int br_probe(const uint8_t *data, size_t size)
{
    if (size < 6 || data[0] != BR_MODULE)
        return PK_PROBE_NO;
    size_t pos = 0;
    bool in_group = false, whole_group = false;
    while (pos < size) {
        int damaged = whole_group ? PK_PROBE_WEAK : PK_PROBE_NO;
        unsigned type = data[pos];
        size_t fixed = br_fixed_size(type);
        if (fixed == 0)
            return damaged;
        if (size - pos < fixed)
            break;
        size_t len = br_name_length(type, data + pos);
        if ((type == BR_MODULE || type == BR_FUNCTION) && len == 0)
            return damaged;
        size_t visible = size - pos - fixed < len ? size - pos - fixed : len;
        if (!br_printable(data + pos + fixed, visible))
            return damaged;
        if (type == BR_LINE) {
            if (in_group)
                return damaged;
            in_group = true;
        } else if (type == BR_END) {
            if (!in_group)
                return damaged;
            in_group = false;
            whole_group = true;
        } else if (type != BR_MODULE && !in_group) {
            return damaged;
        }
        if (visible < len)
            break;
        pos += fixed + len;
    }
    return whole_group ? PK_PROBE_LIKELY : PK_PROBE_WEAK;
}

/* ---- options ------------------------------------------------------------------------------- */

static const pk_option_spec br_read_option_specs[] = {
    {"br-backtrace-order", "innermost-first|outermost-first",
     "order of the backtrace records (default: nearest caller first)"},
    {"br-names", "function|line",
     "frame names: FNCALC, MENU.BR main (default) or MENU.BR:120.2 main"},
    {NULL, NULL, NULL},
};

const pk_format pk_format_br = {
    .name = "br",
    .aliases = NULL,
    .extensions = NULL,
    .description = "Business Rules! profiler file (DEBUG PROFILE SAMPLED/TIMED)",
    .probe = br_probe,
    .read = pk_br_read,
    .write = pk_br_write,
    .dump = pk_br_dump,
    .read_options = br_read_option_specs,
    .write_options = NULL,
};
