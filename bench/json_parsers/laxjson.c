/* SPDX-License-Identifier: MIT */
/* liblaxjson: streaming SAX callbacks on chunks; it converts every number to a double itself,
 * and accepts more than JSON (comments, single quotes, bare keys). */
#include <laxjson.h>

#include "parser.h"

static int on_string(struct LaxJsonContext *ctx, enum LaxJsonType type, const char *value,
                     int length)
{
    (void)value;
    jp_count(ctx->userdata, type == LaxJsonTypeProperty ? JP_KEY : JP_STRING, (size_t)length);
    return 0;
}

static int on_number(struct LaxJsonContext *ctx, double x)
{
    (void)x;
    jp_count(ctx->userdata, JP_NUMBER, 0);
    return 0;
}

static int on_primitive(struct LaxJsonContext *ctx, enum LaxJsonType type)
{
    (void)type;
    jp_count(ctx->userdata, JP_LITERAL, 0);
    return 0;
}

static int on_begin(struct LaxJsonContext *ctx, enum LaxJsonType type)
{
    jp_count(ctx->userdata, type == LaxJsonTypeObject ? JP_OBJECT : JP_ARRAY, 0);
    return 0;
}

static int on_end(struct LaxJsonContext *ctx, enum LaxJsonType type)
{
    (void)ctx;
    (void)type;
    return 0;
}

static int failed(struct LaxJsonContext *ctx, enum LaxJsonError error)
{
    return jp_fail("%s at line %d, column %d", lax_json_str_err(error), ctx->line, ctx->column);
}

static int feed(void *ctx, const char *data, size_t size)
{
    /* the chunks are 1 MiB: within the int the API takes */
    enum LaxJsonError error = lax_json_feed(ctx, (int)size, data);
    return error == LaxJsonErrorNone ? 0 : failed(ctx, error);
}

static int parse(const char *path, jp_tally *tally)
{
    struct LaxJsonContext *ctx = lax_json_create();
    if (!ctx)
        return jp_fail("out of memory");
    ctx->userdata = tally;
    ctx->string = on_string;
    ctx->number = on_number;
    ctx->primitive = on_primitive;
    ctx->begin = on_begin;
    ctx->end = on_end;
    int status = jp_read_chunks(path, feed, ctx);
    enum LaxJsonError error;
    if (status == 0 && (error = lax_json_eof(ctx)) != LaxJsonErrorNone)
        status = failed(ctx, error);
    lax_json_destroy(ctx);
    return status;
}

const jp_parser jp_module = {
    .name = "laxjson", .how = "streaming: SAX callbacks on 1 MiB chunks", .parse = parse};
