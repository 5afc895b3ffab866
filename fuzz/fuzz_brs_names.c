/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for reading a channel's source (src/analysis/brs_names.c): any bytes as a
 * BrightScript line and as a component .xml file. A name is a NUL-terminated string of the
 * line; the .xml text keeps its length and its line ends. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/brs_names.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool contains(const uint8_t *data, size_t size, const char *s, size_t n)
{
    for (size_t i = 0; i + n <= size; i++)
        if (memcmp(data + i, s, n) == 0)
            return true;
    return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char name[PK_BRS_NAME_MAX];
    if (pk_brs_anonymous_name((const char *)data, size, name)) {
        size_t n = strnlen(name, sizeof name);
        if (n == 0 || n == sizeof name || !contains(data, size, name, n))
            abort();
    }
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    pk_brs_keep_xml_scripts(text, size);
    for (size_t i = 0; i < size; i++) {
        bool line_end = data[i] == '\n' || data[i] == '\r';
        if (line_end != (text[i] == '\n' || text[i] == '\r'))
            abort();
        if (text[i] != (char)data[i] && text[i] != ' ')
            abort();
    }
    free(text);
    return 0;
}
