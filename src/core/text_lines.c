/* SPDX-License-Identifier: MIT */
/* Lines of a text input (core/text_lines.h). */
#include "core/text_lines.h"

#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

void pk_text_lines_init(pk_text_lines *t, pk_input *in, size_t max)
{
    memset(t, 0, sizeof *t);
    t->in = in;
    t->max = max;
}

void pk_text_lines_free(pk_text_lines *t)
{
    pk_buffer_free(&t->long_line);
}

/* The next c in the buffered bytes [from, end), or NULL; hint remembers the answer. */
static const uint8_t *find_byte(const pk_input *in, uint8_t c, pk_text_byte_hint *hint,
                                const uint8_t *from, const uint8_t *end)
{
    uint64_t from_at = in->base + (uint64_t)(from - in->start);
    uint64_t end_at = in->base + (uint64_t)(end - in->start);
    if (hint->at >= from_at) {
        if (hint->found)
            return hint->at < end_at ? in->start + (hint->at - in->base) : NULL;
        if (hint->at >= end_at)
            return NULL;
        from = in->start + (hint->at - in->base);
    }
    const uint8_t *hit = memchr(from, c, (size_t)(end - from));
    hint->found = hit != NULL;
    hint->at = hit ? in->base + (uint64_t)(hit - in->start) : end_at;
    return hit;
}

/* The first line end (LF or CR) in the buffered bytes from pos, or NULL. */
static const uint8_t *line_end(pk_text_lines *t)
{
    pk_input *in = t->in;
    const uint8_t *lf = find_byte(in, '\n', &t->lf, in->pos, in->end);
    const uint8_t *cr = find_byte(in, '\r', &t->cr, in->pos, lf ? lf : in->end);
    return cr ? cr : lf;
}

/* Consumes bytes up to the next line end and the end itself, for a line that is too long. */
static void skip_rest_of_line(pk_text_lines *t)
{
    pk_input *in = t->in;
    for (;;) {
        if (pk_in_available(in) == 0 && pk_input_fill(in, 1) == 0)
            return;
        const uint8_t *end = line_end(t);
        if (end) {
            t->after_cr = *end == '\r';
            in->pos = end + 1;
            return;
        }
        in->pos = in->end;
    }
}

pk_text_line_result pk_text_lines_next(pk_text_lines *t, const char **line, size_t *len)
{
    pk_input *in = t->in;
    if (!t->started) {
        t->started = true;
        const uint8_t *head;
        if (pk_in_offset(in) == 0 && pk_in_peek(in, 3, &head) == 3 &&
            pk_text_has_utf8_bom(head, 3)) {
            pk_in_skip_buffered(in, 3);
            t->skipped_bom = true;
        }
    }
    if (t->after_cr) {
        t->after_cr = false;
        if (pk_in_peekc(in) == '\n')
            pk_in_skip_buffered(in, 1);
    }
    t->offset = pk_in_offset(in);
    t->unterminated = false;
    pk_buffer_clear(&t->long_line);
    bool gathering = false;
    for (;;) {
        size_t have = pk_in_available(in);
        if (have == 0 && (have = pk_input_fill(in, 1)) == 0) {
            if (!gathering)
                return PK_TEXT_END;
            t->unterminated = true;
            break; /* the gathered bytes are the last line */
        }
        const uint8_t *end = line_end(t);
        size_t n = end ? (size_t)(end - in->pos) : have;
        if (n > t->max - t->long_line.len) {
            t->number++;
            skip_rest_of_line(t);
            return PK_TEXT_TOO_LONG;
        }
        if (end && !gathering) {
            t->number++;
            *line = (const char *)in->pos;
            *len = n;
            t->after_cr = *end == '\r';
            in->pos = end + 1;
            return PK_TEXT_LINE;
        }
        if (!end && !gathering && !in->at_eof && have < PK_INPUT_CHUNK) {
            pk_input_fill(in, have + 1); /* more of the line into the buffer */
            continue;
        }
        if (!end && !gathering && in->at_eof) {
            t->number++;
            *line = (const char *)in->pos;
            *len = n;
            in->pos = in->end;
            t->unterminated = true;
            return PK_TEXT_LINE;
        }
        /* Longer than the buffer holds at once: gathered in a buffer of its own. */
        gathering = true;
        pk_buffer_append(&t->long_line, in->pos, n);
        if (t->long_line.failed)
            return PK_TEXT_NOMEM;
        in->pos += n;
        if (end) {
            t->after_cr = *end == '\r';
            in->pos++;
            break;
        }
    }
    t->number++;
    *line = (const char *)t->long_line.data;
    *len = t->long_line.len;
    if (!*line)
        *line = "";
    return PK_TEXT_LINE;
}

/* The first LF followed by an LF in [p, end) (the end of a line, then an empty line), or NULL;
 * also NULL when a CR comes first (such lines are read one by one). Samples of perf script are a
 * few hundred bytes: one memchr per line costs more than looking at 16 bytes at a time, and
 * looking for both bytes in one pass costs less than two passes. */
static const uint8_t *find_lf_pair(const uint8_t *p, const uint8_t *end)
{
#ifdef __SSE2__
    const __m128i lf = _mm_set1_epi8('\n');
    const __m128i cr = _mm_set1_epi8('\r');
    bool carry = false; /* the byte before p is an LF */
    while (end - p >= 16) {
        __m128i bytes = _mm_loadu_si128((const __m128i *)(const void *)p);
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(bytes, lf));
        unsigned c = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(bytes, cr));
        if (carry && (m & 1))
            return p - 1;
        unsigned pairs = m & (m >> 1);
        if (pairs) {
            unsigned at = (unsigned)__builtin_ctz(pairs);
            /* A CR up to the pair's first LF. */
            return c & ((2u << at) - 1) ? NULL : p + at;
        }
        if (c)
            return NULL;
        carry = (m >> 15) & 1;
        p += 16;
    }
    if (carry && p < end && *p == '\n')
        return p - 1;
#endif
    for (; p + 1 < end; p++) {
        if (p[0] == '\r')
            return NULL;
        if (p[0] == '\n' && p[1] == '\n')
            return p;
    }
    return NULL;
}

/* Paragraphs are looked for in this much buffered input at least (a refill moves what is left to
 * the start of the buffer, so a run cut by the end of the buffered bytes is rarely missed). */
#define PARAGRAPH_WINDOW ((size_t)64 << 10)

bool pk_text_lines_paragraph(pk_text_lines *t, const char **text, size_t *len)
{
    pk_input *in = t->in;
    if (!t->started || t->after_cr)
        return false;
    size_t have = pk_in_available(in);
    if (have < PARAGRAPH_WINDOW && !in->at_eof)
        have = pk_input_fill(in, PARAGRAPH_WINDOW);
    if (have == 0 || *in->pos == '\n')
        return false;
    const uint8_t *lf = find_lf_pair(in->pos, in->end);
    if (!lf)
        return false;
    *text = (const char *)in->pos;
    *len = (size_t)(lf + 1 - in->pos);
    return true;
}

void pk_text_lines_consume(pk_text_lines *t, size_t len, uint64_t lines)
{
    t->offset = pk_in_offset(t->in);
    t->in->pos += len;
    t->number += lines;
    t->unterminated = false;
}
