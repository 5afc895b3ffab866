/* SPDX-License-Identifier: MIT */
/* Values shown to people: scaled to a readable unit (times to ns/us/ms/s, bytes to KiB/MiB/...),
 * percentages, and names shortened in the middle to fit a column. */
#ifndef PK_ANALYSIS_UNITS_H
#define PK_ANALYSIS_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/output.h"

/* Room for any formatted value, sign included. */
#define PK_VALUE_TEXT 32

/* Writes v, a quantity of `unit` (a value type's unit string), scaled to a readable unit with
 * three significant digits: "1.23 s", "456 ms", "12.5 MiB", "1234" (counts stay exact).
 * With signed_plus, positive values get a leading '+'. */
void pk_value_text(char *buf, size_t size, double v, const char *unit, bool signed_plus);

/* The share of part in whole, unsigned as go tool pprof shows it (a negative flat value of a
 * delta profile is a share of the sum of absolute values too): with two decimals ("12.34%"),
 * "-" when whole is 0. */
void pk_percent_text(char *buf, size_t size, double part, double whole);
double pk_percent(double part, double whole);

/* Number of characters (UTF-8 code points) in s. */
size_t pk_text_columns(const char *s);

/* Writes s padded with spaces to `columns` characters (right or left aligned); longer text is
 * written whole. */
void pk_out_cell(pk_output *out, const char *s, size_t columns, bool right);
/* Writes s, keeping its start and end around "..." when it is longer than max_columns
 * characters; max_columns 0 writes it whole. */
void pk_out_shortened(pk_output *out, const char *s, size_t max_columns);

#endif
