/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for the ART method trace reader (text header, SLOW binary part, records
 * into core/call_spans; the streaming form's entries and summary): any bytes, with and without
 * salvage, written back (read_write_back.h). */
#include <stddef.h>
#include <stdint.h>

#include "read_write_back.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    read_write_back(&pk_format_art, data, size);
    return 0;
}
