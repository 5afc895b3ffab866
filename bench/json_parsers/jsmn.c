/* SPDX-License-Identifier: MIT */
/* jsmn (libjsmn-dev, header only): a tokenizer over the whole document in memory into an array
 * of tokens (type, start and end offsets, number of children), which is then walked. Built
 * strict (JSMN_STRICT: keys must be strings, primitives end where JSON says) and with parent
 * links (JSMN_PARENT_LINKS: closing a container finds it without scanning back over the
 * tokens). Offsets are ints: documents stop at 2 GiB. */
#define JSMN_STRICT
#define JSMN_PARENT_LINKS
#include <jsmn.h>
#include <stdlib.h>

#include "parser.h"

static int parse(const char *path, jp_tally *tally)
{
    size_t size;
    char *text = jp_read_whole(path, &size);
    if (!text)
        return 1;
    jp_phase("read");
    jsmn_parser parser;
    jsmn_init(&parser);
    /* jsmn says when the tokens run out and resumes where it stopped with a larger array */
    unsigned capacity = 1u << 16;
    jsmntok_t *tokens = NULL;
    int count;
    do {
        jsmntok_t *larger = capacity ? realloc(tokens, capacity * sizeof *tokens) : NULL;
        if (!larger) {
            free(tokens);
            free(text);
            return jp_fail("out of memory for tokens");
        }
        tokens = larger;
        count = jsmn_parse(&parser, text, size, tokens, capacity);
        capacity *= 2;
    } while (count == JSMN_ERROR_NOMEM);
    jp_phase("parse");
    int status = 0;
    if (count < 0)
        status = jp_fail("%s at byte %u",
                         count == JSMN_ERROR_PART ? "the document ends early" : "invalid JSON",
                         parser.pos);
    for (int i = 0; i < count; i++) {
        const jsmntok_t *token = &tokens[i];
        switch (token->type) {
        case JSMN_OBJECT:
            jp_count(tally, JP_OBJECT, 0);
            break;
        case JSMN_ARRAY:
            jp_count(tally, JP_ARRAY, 0);
            break;
        case JSMN_STRING:
            /* a key is a string with its value as its one child */
            jp_count(tally, token->size ? JP_KEY : JP_STRING, (size_t)(token->end - token->start));
            break;
        default: {
            char first = text[token->start];
            jp_count(tally, first == 't' || first == 'f' || first == 'n' ? JP_LITERAL : JP_NUMBER,
                     0);
            break;
        }
        }
    }
    jp_phase("walk");
    free(tokens);
    free(text);
    jp_phase("free");
    return status;
}

const jp_parser jp_module = {.name = "jsmn",
                             .how = "whole document: jsmn_parse over the text into tokens",
                             .parse = parse};
