/* SPDX-License-Identifier: MIT */
/* libfyaml (libfyaml-dev), a YAML 1.2 parser with a JSON mode (FYPCF_JSON_FORCE): streaming
 * events (mapping and sequence starts and ends, scalars), the input read by the library from
 * the open file. Keys are the scalars at even positions in a mapping; strings are the
 * double-quoted scalars, the plain ones numbers or literals. */
#include <libfyaml.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser.h"

enum { MAX_DEPTH = 4096 };

static void count_scalar(struct fy_token *token, int is_key, jp_tally *t)
{
    size_t length;
    const char *text = fy_token_get_text(token, &length);
    if (is_key)
        jp_count(t, JP_KEY, length);
    else if (fy_token_scalar_style(token) != FYSS_PLAIN)
        jp_count(t, JP_STRING, length);
    else if (length && (text[0] == 't' || text[0] == 'f' || text[0] == 'n'))
        jp_count(t, JP_LITERAL, 0);
    else
        jp_count(t, JP_NUMBER, 0);
}

static int parse(const char *path, jp_tally *tally)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return jp_fail("cannot open");
    struct fy_parse_cfg cfg = {.flags = FYPCF_QUIET | FYPCF_JSON_FORCE};
    struct fy_parser *parser = fy_parser_create(&cfg);
    if (!parser || fy_parser_set_input_fp(parser, path, f) != 0) {
        fy_parser_destroy(parser);
        fclose(f);
        return jp_fail("cannot set up the parser");
    }
    /* per open container: 1 for a mapping, 0 for a sequence, and the count of its items, to
     * tell a mapping's keys from its values */
    static unsigned char is_mapping[MAX_DEPTH];
    static uint64_t items[MAX_DEPTH];
    int depth = 0, status = 0;
    struct fy_event *event;
    while (status == 0 && (event = fy_parser_parse(parser)) != NULL) {
        int is_key = depth > 0 && is_mapping[depth - 1] && items[depth - 1] % 2 == 0;
        switch (event->type) {
        case FYET_MAPPING_START:
        case FYET_SEQUENCE_START:
            if (depth > 0)
                items[depth - 1]++;
            if (depth == MAX_DEPTH) {
                status = jp_fail("deeper than %d", MAX_DEPTH);
                break;
            }
            is_mapping[depth] = event->type == FYET_MAPPING_START;
            items[depth++] = 0;
            jp_count(tally, event->type == FYET_MAPPING_START ? JP_OBJECT : JP_ARRAY, 0);
            break;
        case FYET_MAPPING_END:
        case FYET_SEQUENCE_END:
            depth--;
            break;
        case FYET_SCALAR:
            if (depth > 0)
                items[depth - 1]++;
            count_scalar(event->scalar.value, is_key, tally);
            break;
        default:
            break;
        }
        fy_parser_event_free(parser, event);
    }
    if (status == 0 && fy_parser_get_stream_error(parser))
        status = jp_fail("invalid JSON");
    fy_parser_destroy(parser);
    fclose(f);
    return status;
}

const jp_parser jp_module = {
    .name = "libfyaml", .how = "streaming: fy_parser_parse events, JSON mode", .parse = parse};
