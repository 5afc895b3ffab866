/* SPDX-License-Identifier: MIT */
/* Human-readable values, percentages and column cells. */
#include "analysis/units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/units.h"

/* Three significant digits for a magnitude that is at least 1. */
static void three_digits(char *buf, size_t size, const char *sign, double v, const char *suffix)
{
    if (v < 9.995)
        snprintf(buf, size, "%s%.2f %s", sign, v, suffix);
    else if (v < 99.95)
        snprintf(buf, size, "%s%.1f %s", sign, v, suffix);
    else
        snprintf(buf, size, "%s%.0f %s", sign, v, suffix);
}

void pk_value_text(char *buf, size_t size, double v, const char *unit, bool signed_plus)
{
    pk_unit_info info = pk_unit_lookup(unit);
    double factor = (double)info.scale;
    const char *sign = v < 0 ? "-" : (signed_plus && v > 0 ? "+" : "");
    double magnitude = fabs(v) * factor;
    if (!isfinite(magnitude)) {
        snprintf(buf, size, "?");
        return;
    }
    if (info.kind == PK_UNIT_TIME) {
        static const struct {
            double scale;
            const char *name;
        } steps[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "us"}};
        for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
            if (magnitude >= steps[i].scale * 0.9995) {
                three_digits(buf, size, sign, magnitude / steps[i].scale, steps[i].name);
                return;
            }
        }
        if (magnitude == floor(magnitude))
            snprintf(buf, size, "%s%.0f ns", sign, magnitude);
        else
            snprintf(buf, size, "%s%.3g ns", sign, magnitude);
        return;
    }
    if (info.kind == PK_UNIT_BYTES) {
        static const char *const names[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
        if (magnitude < 1023.5) {
            snprintf(buf, size, "%s%.0f B", sign, magnitude);
            return;
        }
        double scaled = magnitude;
        size_t step = 0;
        scaled /= 1024.0;
        while (scaled >= 1023.5 && step + 1 < sizeof names / sizeof names[0]) {
            scaled /= 1024.0;
            step++;
        }
        three_digits(buf, size, sign, scaled, names[step]);
        return;
    }
    if (magnitude == floor(magnitude) && magnitude < 1e18)
        snprintf(buf, size, "%s%.0f", sign, magnitude);
    else
        snprintf(buf, size, "%s%.4g", sign, magnitude);
}

double pk_percent(double part, double whole)
{
    return whole != 0 ? 100.0 * fabs(part) / fabs(whole) : 0.0;
}

void pk_percent_text(char *buf, size_t size, double part, double whole)
{
    if (whole == 0)
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%.2f%%", pk_percent(part, whole));
}

size_t pk_text_columns(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80)
            n++;
    return n;
}

/* Byte offset of the code point number `column` in s (or the end). */
static size_t byte_of_column(const char *s, size_t column)
{
    size_t seen = 0, i = 0;
    for (; s[i]; i++) {
        if (((unsigned char)s[i] & 0xC0) != 0x80) {
            if (seen == column)
                return i;
            seen++;
        }
    }
    return i;
}

static void out_spaces(pk_output *out, size_t n)
{
    while (n--)
        pk_out_putc(out, ' ');
}

void pk_out_shortened(pk_output *out, const char *s, size_t max_columns)
{
    size_t have = pk_text_columns(s);
    if (max_columns == 0 || have <= max_columns) {
        pk_out_puts(out, s);
        return;
    }
    if (max_columns <= 3) {
        pk_out_write(out, s, byte_of_column(s, max_columns));
        return;
    }
    size_t keep = max_columns - 3;
    size_t head = (keep + 1) / 2, tail = keep - head;
    pk_out_write(out, s, byte_of_column(s, head));
    pk_out_puts(out, "...");
    pk_out_puts(out, s + byte_of_column(s, have - tail));
}

void pk_out_cell(pk_output *out, const char *s, size_t columns, bool right)
{
    size_t have = pk_text_columns(s);
    if (have >= columns) {
        pk_out_puts(out, s);
        return;
    }
    if (right)
        out_spaces(out, columns - have);
    pk_out_puts(out, s);
    if (!right)
        out_spaces(out, columns - have);
}
