/* Lines of a text input (core/text_lines.h). */
#include "core/text_lines.h"

#include <string.h>

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
