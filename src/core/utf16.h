/* SPDX-License-Identifier: MIT */
/* UTF-16 text as an input filter: an input that starts with a UTF-16 byte-order mark (FF FE
 * little-endian, FE FF big-endian; what Windows tools such as PowerShell's redirection write)
 * is read through a decoder that turns it into UTF-8, so that text readers see UTF-8 only.
 * The decoding is iconv's; a unit that is not UTF-16 (an unpaired surrogate, an odd last byte)
 * becomes U+FFFD, as a browser's TextDecoder reads it. */
#ifndef PK_CORE_UTF16_H
#define PK_CORE_UTF16_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/input.h"
#include "profkit/error.h"

typedef enum pk_utf16_order {
    PK_UTF16_NONE = 0, /* no UTF-16 byte-order mark */
    PK_UTF16_LE,
    PK_UTF16_BE
} pk_utf16_order;

/* The byte order data announces with a byte-order mark, PK_UTF16_NONE without one. */
pk_utf16_order pk_utf16_detect(const uint8_t *data, size_t size);

/* Makes *out an input of the UTF-8 text that encoded (positioned at its byte-order mark) holds
 * in UTF-16 of the given order. encoded must stay alive (and is not released) while out is
 * used. The byte-order mark itself is not passed on. */
pk_status pk_input_init_utf16(pk_input *out, pk_input *encoded, pk_utf16_order order,
                              pk_error *err);

#endif
