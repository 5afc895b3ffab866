/* SPDX-License-Identifier: MIT */
#include "formats/firefox/writer.h"

void fx_out_ms(pk_output *out, int64_t ns)
{
    uint64_t magnitude = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    if (ns < 0)
        pk_out_putc(out, '-');
    pk_out_u64(out, magnitude / 1000000);
    uint32_t fraction = (uint32_t)(magnitude % 1000000);
    if (fraction == 0)
        return;
    char digits[8];
    int n = 6;
    while (fraction % 10 == 0) {
        fraction /= 10;
        n--;
    }
    digits[0] = '.';
    for (int i = n; i > 0; i--) {
        digits[i] = (char)('0' + fraction % 10);
        fraction /= 10;
    }
    pk_out_write(out, digits, (size_t)n + 1);
}

void fx_weight(fx_writer *w, int64_t v)
{
    pk_output *out = pk_json_value(&w->json);
    int64_t scaled;
    if (__builtin_mul_overflow(v, w->weight_scale, &scaled)) {
        /* Beyond 64 bits: a double, as the front end reads every number anyway. */
        double big = (double)v * (double)w->weight_scale;
        pk_out_double(out, w->weight_kind == FX_WEIGHT_MS ? big / 1e6 : big);
    } else if (w->weight_kind == FX_WEIGHT_MS) {
        fx_out_ms(out, scaled);
    } else {
        pk_out_i64(out, scaled);
    }
}
