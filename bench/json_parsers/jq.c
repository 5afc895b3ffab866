/* SPDX-License-Identifier: MIT */
/* jq's parser (libjq-dev) in its streaming form (JV_PARSE_STREAMING): for every scalar and
 * empty container an event [path, value], and [path] where an array or object ends, the path
 * an array of keys and indexes built for each event. Keys are not events of their own: a key
 * is counted with the value or the end of the container that it names. */
#include <jv.h>

#include "parser.h"

static void count_key(jv path, int at, jp_tally *t)
{
    if (at < 0)
        return;
    jv step = jv_array_get(jv_copy(path), at);
    if (jv_get_kind(step) == JV_KIND_STRING)
        jp_count(t, JP_KEY, (size_t)jv_string_length_bytes(jv_copy(step)));
    jv_free(step);
}

static void count_event(jv event, jp_tally *t)
{
    int size = jv_array_length(jv_copy(event));
    jv path = jv_array_get(jv_copy(event), 0);
    int depth = jv_array_length(jv_copy(path));
    if (size == 2) {
        count_key(path, depth - 1, t);
        jv value = jv_array_get(jv_copy(event), 1);
        switch (jv_get_kind(value)) {
        case JV_KIND_STRING:
            jp_count(t, JP_STRING, (size_t)jv_string_length_bytes(jv_copy(value)));
            break;
        case JV_KIND_NUMBER:
            jp_count(t, JP_NUMBER, 0);
            break;
        case JV_KIND_OBJECT: /* empty */
            jp_count(t, JP_OBJECT, 0);
            break;
        case JV_KIND_ARRAY: /* empty */
            jp_count(t, JP_ARRAY, 0);
            break;
        default:
            jp_count(t, JP_LITERAL, 0);
            break;
        }
        jv_free(value);
    } else if (depth > 0) {
        /* [path]: the container holding the path's last step has ended */
        jv last = jv_array_get(jv_copy(path), depth - 1);
        jp_count(t, jv_get_kind(last) == JV_KIND_NUMBER ? JP_ARRAY : JP_OBJECT, 0);
        jv_free(last);
        count_key(path, depth - 2, t);
    }
    jv_free(path);
    jv_free(event);
}

typedef struct {
    jv_parser *parser;
    jp_tally *tally;
} jq_input;

/* Takes every event the bytes handed over so far complete. */
static int drain(jq_input *in)
{
    for (;;) {
        jv event = jv_parser_next(in->parser);
        if (jv_get_kind(event) != JV_KIND_INVALID) {
            count_event(event, in->tally);
            continue;
        }
        if (!jv_invalid_has_msg(jv_copy(event))) {
            jv_free(event);
            return 0;
        }
        jv message = jv_invalid_get_msg(event);
        int status = jp_fail("%s", jv_string_value(message));
        jv_free(message);
        return status;
    }
}

static int feed(void *ctx, const char *data, size_t size)
{
    jq_input *in = ctx;
    /* the chunks are 1 MiB: within the int the API takes */
    jv_parser_set_buf(in->parser, data, (int)size, 1);
    return drain(in);
}

static int parse(const char *path, jp_tally *tally)
{
    jq_input in = {jv_parser_new(JV_PARSE_STREAMING), tally};
    int status = jp_read_chunks(path, feed, &in);
    if (status == 0) {
        jv_parser_set_buf(in.parser, "", 0, 0);
        status = drain(&in);
    }
    jv_parser_free(in.parser);
    return status;
}

const jp_parser jp_module = {
    .name = "jq",
    .how = "streaming: jv_parser with JV_PARSE_STREAMING on 1 MiB chunks",
    .parse = parse};
