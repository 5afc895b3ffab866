/* SPDX-License-Identifier: MIT */
/* Lines of a text input, as text formats read them: a line ends at LF, at CR LF, or at a lone
 * CR (the line ends of classic Mac OS files, which would otherwise run every line into one);
 * a UTF-8 byte-order mark at the very start of the input is skipped (UTF-16 input was already
 * decoded to UTF-8 by the input layer, see core/utf16.h). Lines may be longer than the input's
 * buffer: a long line is gathered in a buffer of its own, up to a limit the reader chooses, so
 * that memory stays bounded whatever the input holds.
 *
 *     pk_text_lines lines;
 *     pk_text_lines_init(&lines, in, 64u << 20);
 *     const char *text; size_t len;
 *     while ((r = pk_text_lines_next(&lines, &text, &len)) != PK_TEXT_END) ...
 *     pk_text_lines_free(&lines);
 */
#ifndef PK_CORE_TEXT_LINES_H
#define PK_CORE_TEXT_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buffer.h"
#include "core/input.h"

typedef enum pk_text_line_result {
    PK_TEXT_LINE,     /* a line, without its line end */
    PK_TEXT_END,      /* no byte is left */
    PK_TEXT_TOO_LONG, /* a line longer than the limit: consumed whole, not returned */
    PK_TEXT_NOMEM     /* memory ran out gathering a long line */
} pk_text_line_result;

/* Where the next occurrence of a byte is known to be, as an absolute offset: found at `at`, or
 * absent from every buffered byte before `at`. Keeps the search for a line end linear when the
 * other end byte is rare (a lone CR in an LF file, an LF in a CR-only file). */
typedef struct pk_text_byte_hint {
    uint64_t at;
    bool found;
} pk_text_byte_hint;

typedef struct pk_text_lines {
    pk_input *in;
    size_t max;          /* longest line returned */
    pk_buffer long_line; /* a line that did not fit the input's buffer */
    uint64_t offset;     /* where the last line returned (or refused) starts */
    uint64_t number;     /* 1-based number of that line */
    bool started;        /* the byte-order mark was looked for */
    bool skipped_bom;    /* the input started with a UTF-8 byte-order mark */
    bool after_cr;       /* the last line ended in CR: an LF right after it ends nothing */
    bool unterminated;   /* the last line returned ended with the input, not with a line end:
                          * the last line of a file without a final newline, or one cut short */
    pk_text_byte_hint lf, cr;
} pk_text_lines;

/* Starts reading lines of in at its current position; a UTF-8 byte-order mark there is skipped
 * when in is at its start. */
void pk_text_lines_init(pk_text_lines *t, pk_input *in, size_t max);
void pk_text_lines_free(pk_text_lines *t);
/* The next line, in *line (not NUL-terminated; valid until the next call) and *len. */
pk_text_line_result pk_text_lines_next(pk_text_lines *t, const char **line, size_t *len);

/* Paragraphs: formats whose records are runs of lines ended by an empty line (perf script's
 * samples) can take a run whole, to recognise one seen before by its bytes.
 *
 * The lines from the current position up to the next empty line (not included), with their LF
 * ends, when they are buffered whole, end in LF, and hold no CR (a file with CR line ends is
 * read line by line). Nothing is consumed; false when there is no such run, and the caller reads
 * lines one by one. *text stays valid until the next call on t. */
bool pk_text_lines_paragraph(pk_text_lines *t, const char **text, size_t *len);
/* Consumes len bytes of the paragraph just returned, which hold `lines` whole lines. */
void pk_text_lines_consume(pk_text_lines *t, size_t len, uint64_t lines);

/* True when data starts with the UTF-8 byte-order mark EF BB BF. */
static inline bool pk_text_has_utf8_bom(const uint8_t *data, size_t size)
{
    return size >= 3 && data[0] == 0xef && data[1] == 0xbb && data[2] == 0xbf;
}

#endif
