/* SPDX-License-Identifier: MIT */
#include "strfmt.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

char *tb_strfmt(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    int length = vsnprintf(NULL, 0, format, args);
    va_end(args);
    char *text = length >= 0 ? malloc((size_t)length + 1) : NULL;
    if (!text) {
        fprintf(stderr, "tb_strfmt: cannot format \"%s\"\n", format);
        abort();
    }
    va_start(args, format);
    vsnprintf(text, (size_t)length + 1, format, args);
    va_end(args);
    return text;
}
