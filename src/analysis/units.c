/* Human-readable values, percentages and column cells. */
#include "analysis/units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

typedef enum unit_kind { UNIT_PLAIN, UNIT_TIME, UNIT_BYTES } unit_kind;

/* How a unit string scales: times are converted to nanoseconds first. */
static unit_kind classify_unit(const char *unit, double *to_base)
{
    static const struct {
        const char *name;
        unit_kind kind;
        double factor;
    } units[] = {
        {"nanoseconds", UNIT_TIME, 1.0},     {"nanosecond", UNIT_TIME, 1.0},
        {"ns", UNIT_TIME, 1.0},              {"microseconds", UNIT_TIME, 1e3},
        {"microsecond", UNIT_TIME, 1e3},     {"us", UNIT_TIME, 1e3},
        {"milliseconds", UNIT_TIME, 1e6},    {"millisecond", UNIT_TIME, 1e6},
        {"ms", UNIT_TIME, 1e6},              {"seconds", UNIT_TIME, 1e9},
        {"second", UNIT_TIME, 1e9},          {"s", UNIT_TIME, 1e9},
        {"bytes", UNIT_BYTES, 1.0},          {"byte", UNIT_BYTES, 1.0},
        {"B", UNIT_BYTES, 1.0},              {"kilobytes", UNIT_BYTES, 1024.0},
        {"KiB", UNIT_BYTES, 1024.0},
    };
    *to_base = 1.0;
    if (!unit)
        return UNIT_PLAIN;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcasecmp(unit, units[i].name) == 0) {
            *to_base = units[i].factor;
            return units[i].kind;
        }
    }
    return UNIT_PLAIN;
}

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
    double factor;
    unit_kind kind = classify_unit(unit, &factor);
    const char *sign = v < 0 ? "-" : (signed_plus && v > 0 ? "+" : "");
    double magnitude = fabs(v) * factor;
    if (!isfinite(magnitude)) {
        snprintf(buf, size, "?");
        return;
    }
    if (kind == UNIT_TIME) {
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
    if (kind == UNIT_BYTES) {
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
    return whole != 0 ? 100.0 * part / whole : 0.0;
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
