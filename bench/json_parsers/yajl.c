/* SPDX-License-Identifier: MIT */
/* yajl 2 (libyajl-dev), the parser profkit's JSON layer streams over: SAX callbacks on chunks,
 * numbers as their text (the layer converts them itself), as src/core/json_input.c sets it up. */
#include <string.h>
#include <yajl/yajl_parse.h>

#include "parser.h"

static int on_literal(void *ctx)
{
    jp_count(ctx, JP_LITERAL, 0);
    return 1;
}

static int on_boolean(void *ctx, int value)
{
    (void)value;
    return on_literal(ctx);
}

static int on_number(void *ctx, const char *text, size_t size)
{
    (void)text;
    (void)size;
    jp_count(ctx, JP_NUMBER, 0);
    return 1;
}

static int on_string(void *ctx, const unsigned char *text, size_t size)
{
    (void)text;
    jp_count(ctx, JP_STRING, size);
    return 1;
}

static int on_key(void *ctx, const unsigned char *text, size_t size)
{
    (void)text;
    jp_count(ctx, JP_KEY, size);
    return 1;
}

static int on_start_map(void *ctx)
{
    jp_count(ctx, JP_OBJECT, 0);
    return 1;
}

static int on_start_array(void *ctx)
{
    jp_count(ctx, JP_ARRAY, 0);
    return 1;
}

static int on_end(void *ctx)
{
    (void)ctx;
    return 1;
}

static const yajl_callbacks callbacks = {
    .yajl_null = on_literal,
    .yajl_boolean = on_boolean,
    .yajl_number = on_number,
    .yajl_string = on_string,
    .yajl_start_map = on_start_map,
    .yajl_map_key = on_key,
    .yajl_end_map = on_end,
    .yajl_start_array = on_start_array,
    .yajl_end_array = on_end,
};

static int failed(yajl_handle h, const char *data, size_t size)
{
    unsigned char *message = yajl_get_error(h, 0, (const unsigned char *)data, size);
    size_t length = strlen((const char *)message);
    while (length > 0 && message[length - 1] == '\n') /* yajl ends its message with one */
        length--;
    jp_fail("%.*s", (int)length, (const char *)message);
    yajl_free_error(h, message);
    return 1;
}

static int feed(void *ctx, const char *data, size_t size)
{
    yajl_handle h = ctx;
    if (yajl_parse(h, (const unsigned char *)data, size) != yajl_status_ok)
        return failed(h, data, size);
    return 0;
}

static int parse(const char *path, jp_tally *tally)
{
    yajl_handle h = yajl_alloc(&callbacks, NULL, tally);
    int status = jp_read_chunks(path, feed, h);
    if (status == 0 && yajl_complete_parse(h) != yajl_status_ok)
        status = failed(h, "", 0);
    yajl_free(h);
    return status;
}

const jp_parser jp_module = {
    .name = "yajl", .how = "streaming: SAX callbacks on 1 MiB chunks", .parse = parse};
