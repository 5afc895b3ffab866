/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for following a .bsprof stream as it arrives (src/formats/bsprof/scan.c):
 * any bytes, fed in pieces of a size the input chooses, must end where the reader ends: at the
 * offset of the damage it reports, or at the end when it reads them whole. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "formats/bsprof/bsprof.h"
#include "formats/formats.h"
#include "profkit/format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The last byte chooses the piece size and is not part of the stream. */
    if (size == 0)
        return 0;
    size_t piece = 1 + data[size - 1] % 97;
    size--;
    bs_scan s;
    pk_bsprof_scan_init(&s);
    for (size_t at = 0; at < size; at += piece)
        if (pk_bsprof_scan_feed(&s, data + at, size - at < piece ? size - at : piece) != PK_OK)
            abort();
    if (pk_bsprof_scan_finish(&s) != PK_OK)
        abort();
    if (s.received != size || s.complete_through > size)
        abort();

    pk_read_options strict = {0};
    pk_profile *p = NULL;
    pk_error err;
    pk_status st = pk_read_memory(data, size, &pk_format_bsprof, &strict, &p, &err);
    pk_profile_free(p);
    bool scan_failed = s.state == BS_SCAN_DAMAGED || s.state == BS_SCAN_NOT_BSPROF;
    if (st == PK_OK) {
        /* Whole: to the end, or through the end marker. */
        if (scan_failed || (!s.end_marker && s.complete_through != size))
            abort();
    } else if (st == PK_ERR_INPUT && err.salvageable) {
        /* Damage in the body: the same place. */
        if (s.state != BS_SCAN_DAMAGED || s.damage.offset != err.offset ||
            s.complete_through != (uint64_t)err.offset)
            abort();
    } else if (st == PK_ERR_INPUT) {
        /* The header: nothing whole. */
        if (!scan_failed || s.complete_through != 0)
            abort();
    }
    pk_bsprof_scan_free(&s);
    return 0;
}
