/* SPDX-License-Identifier: MIT */
/* Native frames and the libraries they are in: a frame with an address inside a resource that
 * has a path is attributed to that library (libs, resourceTable, nativeSymbols). */
#include <string.h>

#include "core/hex.h"
#include "core/path.h"
#include "formats/firefox/writer.h"

bool fx_is_native(const pk_profile *p, const pk_frame *f, uint32_t *resource_out)
{
    if (!(f->flags & PK_FRAME_HAS_ADDRESS))
        return false;
    uint32_t r = f->resource;
    if (r == PK_NONE)
        r = pk_function_at(p, f->function)->resource;
    if (r == PK_NONE || pk_resource_at(p, r)->path == 0)
        return false;
    if (resource_out)
        *resource_out = r;
    return true;
}

int64_t fx_relative_address(const pk_profile *p, const pk_frame *f, uint32_t resource)
{
    const pk_resource *r = pk_resource_at(p, resource);
    if (f->address < r->start || f->address >= r->limit)
        return -1;
    uint64_t rel = f->address - r->start + r->offset;
    return rel > (uint64_t)INT64_MAX ? -1 : (int64_t)rel;
}

/* Breakpad debug ID of an ELF build ID: its first 16 bytes as a GUID (first three fields
 * byte-swapped), followed by age 0. Without a build ID (or with one that is not hex), 33
 * zeros: the app refuses to ask for the symbols of a library with an empty ID, and profkit
 * view's symbol server finds such a library by its name. */
void fx_breakpad_id(const char *build_id, char out[34])
{
    uint8_t bytes[16] = {0};
    size_t len = strlen(build_id);
    strcpy(out, FX_NO_BUILD_ID);
    if (len == 0 || len % 2)
        return;
    for (size_t i = 0; i < len; i++)
        if (pk_hex_digit(build_id[i]) < 0)
            return;
    for (size_t i = 0; i < 16 && 2 * i < len; i++)
        bytes[i] = (uint8_t)((unsigned)pk_hex_digit(build_id[2 * i]) << 4 |
                             (unsigned)pk_hex_digit(build_id[2 * i + 1]));
    static const uint8_t order[16] = {3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15};
    static const char digits[] = "0123456789ABCDEF";
    for (size_t i = 0; i < 16; i++) {
        out[2 * i] = digits[bytes[order[i]] >> 4];
        out[2 * i + 1] = digits[bytes[order[i]] & 15];
    }
    out[32] = '0';
    out[33] = '\0';
}

const char *fx_library_name(const pk_profile *p, const pk_resource *r)
{
    if (r->name && pk_str_len(p, r->name))
        return pk_str(p, r->name);
    return pk_path_basename(pk_str(p, r->path));
}

const char *fx_script_library_name(const char *source)
{
    const char *base = source[0] ? pk_path_basename(source) : "";
    return base[0] ? base : "script sources";
}

bool fx_is_script_source(const fx_writer *w, const pk_frame *f)
{
    if (w->script_resource == PK_NONE || fx_is_native(w->p, f, NULL))
        return false;
    const pk_function *fn = pk_function_at(w->p, f->function);
    return fn->resource == PK_NONE && f->resource == PK_NONE && fn->file &&
           pk_str_len(w->p, fn->file) > 0;
}

/* The libraries that native frames are in, in resource order (fx_writer.resource_lib), then
 * the script sources' library. */
void fx_write_libs(fx_writer *w)
{
    const pk_profile *p = w->p;
    pk_json *j = &w->json;
    pk_json_array_begin(j);
    for (size_t i = 0; i < pk_resource_count(p); i++) {
        if (w->resource_lib[i] == PK_NONE)
            continue;
        const pk_resource *r = pk_resource_at(p, (uint32_t)i);
        const char *name = fx_library_name(p, r);
        const char *path = pk_str(p, r->path);
        char breakpad[34];
        fx_breakpad_id(pk_str(p, r->build_id), breakpad);
        pk_json_line_break(j);
        pk_json_object_begin(j);
        pk_json_member_string(j, "name", name);
        pk_json_member_string(j, "path", path);
        pk_json_member_string(j, "debugName", name);
        pk_json_member_string(j, "debugPath", path);
        pk_json_member_string(j, "breakpadId", breakpad);
        pk_json_key(j, "codeId");
        if (r->build_id && pk_str_len(p, r->build_id))
            pk_json_string(j, pk_str(p, r->build_id));
        else
            pk_json_null(j);
        pk_json_key(j, "arch");
        pk_json_null(j);
        pk_json_object_end(j);
    }
    if (w->script_resource != PK_NONE && w->resource_lib[w->script_resource] != PK_NONE) {
        pk_json_line_break(j);
        pk_json_object_begin(j);
        pk_json_member_string(j, "name", w->script_name);
        pk_json_member_string(j, "path", "");
        pk_json_member_string(j, "debugName", w->script_name);
        pk_json_member_string(j, "debugPath", "");
        pk_json_member_string(j, "breakpadId", FX_NO_BUILD_ID);
        pk_json_key(j, "codeId");
        pk_json_null(j);
        pk_json_key(j, "arch");
        pk_json_null(j);
        pk_json_object_end(j);
    }
    pk_json_array_end(j);
}
