/* SPDX-License-Identifier: MIT */
/* One thread's tables, each a struct of arrays with a length: stackTable, frameTable,
 * funcTable, resourceTable, nativeSymbols, and the stringArray they index. They hold what
 * fx_collect_thread numbered for the thread. */
#include "formats/firefox/writer.h"

/* Local string index of model string s in the current thread. */
static uint32_t local_string(fx_writer *w, uint32_t s)
{
    return fx_remap_add(&w->strings, s, w->gen, NULL);
}

static void table_begin(pk_json *j, const char *name, size_t length)
{
    pk_json_key(j, name);
    pk_json_object_begin(j);
    pk_json_member_u64(j, "length", length);
}

/* A column with the same JSON text for each of its n entries. */
static void repeat_column(pk_json *j, const char *key, const char *text, size_t n)
{
    fx_column_begin(j, key);
    for (size_t i = 0; i < n; i++)
        pk_out_puts(pk_json_value(j), text);
    pk_json_array_end(j);
}

/* 0 for none, as line numbers have it, as PK_NONE. */
static uint32_t zero_as_none(uint32_t v)
{
    return v ? v : PK_NONE;
}

static void write_stack_table(fx_writer *w)
{
    const pk_profile *p = w->p;
    pk_json *j = &w->json;
    size_t n = w->stacks.count;
    const uint32_t *items = w->stacks.items;
    table_begin(j, "stackTable", w->stack_rows);
    /* A model stack's run is consecutive rows: its first frame extends the prefix's row, each
     * next frame the row before. */
    fx_column_begin(j, "prefix");
    size_t row = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t prefix;
        const uint32_t *frames;
        size_t length = pk_stack_run(p, items[i], &prefix, &frames);
        fx_index_or_null(j, fx_local_stack(w, prefix));
        for (size_t k = 1; k < length; k++)
            pk_json_u64(j, row + k - 1);
        row += length;
    }
    pk_json_array_end(j);
    fx_column_begin(j, "frame");
    for (size_t i = 0; i < n; i++) {
        uint32_t prefix;
        const uint32_t *frames;
        size_t length = pk_stack_run(p, items[i], &prefix, &frames);
        for (size_t k = 0; k < length; k++)
            pk_json_u64(j, fx_remap_get(&w->frames, frames[k], w->gen));
    }
    pk_json_array_end(j);
    pk_json_object_end(j);
}

static int64_t frame_address(const fx_writer *w, uint32_t frame)
{
    const pk_frame *f = pk_frame_at(w->p, frame);
    uint32_t lib_resource;
    if (fx_is_script_source(w, f))
        return f->line ? f->line : pk_function_at(w->p, f->function)->start_line;
    return fx_is_native(w->p, f, &lib_resource) ? fx_relative_address(w->p, f, lib_resource) : -1;
}

static uint32_t frame_symbol(const fx_writer *w, uint32_t frame)
{
    const pk_frame *f = pk_frame_at(w->p, frame);
    return fx_is_native(w->p, f, NULL) ? fx_remap_get(&w->symbols, f->function, w->gen) : PK_NONE;
}

static void write_frame_table(fx_writer *w)
{
    const pk_profile *p = w->p;
    pk_json *j = &w->json;
    size_t n = w->frames.count;
    const uint32_t *items = w->frames.items;
    table_begin(j, "frameTable", n);
    fx_column_begin(j, "address");
    for (size_t i = 0; i < n; i++)
        pk_json_i64(j, frame_address(w, items[i]));
    pk_json_array_end(j);
    fx_column_begin(j, "inlineDepth");
    for (size_t i = 0; i < n; i++)
        pk_json_u64(j, w->frame_inline_depth[i]);
    pk_json_array_end(j);
    fx_column_begin(j, "category");
    for (size_t i = 0; i < n; i++)
        pk_json_u64(j, w->category_out[w->frame_category[items[i]]]);
    pk_json_array_end(j);
    repeat_column(j, "subcategory", "0", n);
    fx_column_begin(j, "func");
    for (size_t i = 0; i < n; i++)
        pk_json_u64(j, fx_remap_get(&w->funcs, pk_frame_at(p, items[i])->function, w->gen));
    pk_json_array_end(j);
    fx_column_begin(j, "nativeSymbol");
    for (size_t i = 0; i < n; i++)
        fx_index_or_null(j, frame_symbol(w, items[i]));
    pk_json_array_end(j);
    repeat_column(j, "innerWindowID", "0", n);
    fx_column_begin(j, "line");
    for (size_t i = 0; i < n; i++)
        fx_index_or_null(j, zero_as_none(pk_frame_at(p, items[i])->line));
    pk_json_array_end(j);
    repeat_column(j, "column", "null", n);
    pk_json_object_end(j);
}

static void write_func_table(fx_writer *w)
{
    const pk_profile *p = w->p;
    pk_json *j = &w->json;
    size_t n = w->funcs.count;
    const uint32_t *items = w->funcs.items;
    table_begin(j, "funcTable", n);
    fx_column_begin(j, "name");
    for (size_t i = 0; i < n; i++)
        pk_json_u64(j, local_string(w, pk_function_at(p, items[i])->name));
    pk_json_array_end(j);
    /* What the profiler's "JavaScript" call tree keeps: script functions, and the functions
     * that belong with them. */
    fx_column_begin(j, "isJS");
    for (size_t i = 0; i < n; i++)
        pk_json_bool(j, (pk_function_at(p, items[i])->flags & PK_FUNCTION_SCRIPT) != 0);
    pk_json_array_end(j);
    fx_column_begin(j, "relevantForJS");
    for (size_t i = 0; i < n; i++)
        pk_json_bool(j, (pk_function_at(p, items[i])->flags & PK_FUNCTION_SCRIPT_RELEVANT) != 0);
    pk_json_array_end(j);
    fx_column_begin(j, "resource");
    for (size_t i = 0; i < n; i++) {
        uint32_t r = w->func_resource[i];
        pk_json_i64(j, r == PK_NONE ? -1 : (int64_t)fx_remap_get(&w->resources, r, w->gen));
    }
    pk_json_array_end(j);
    fx_column_begin(j, "fileName");
    for (size_t i = 0; i < n; i++) {
        uint32_t file = pk_function_at(p, items[i])->file;
        fx_index_or_null(j, file && pk_str_len(p, file) ? local_string(w, file) : PK_NONE);
    }
    pk_json_array_end(j);
    fx_column_begin(j, "lineNumber");
    for (size_t i = 0; i < n; i++)
        fx_index_or_null(j, zero_as_none(pk_function_at(p, items[i])->start_line));
    pk_json_array_end(j);
    fx_column_begin(j, "columnNumber");
    for (size_t i = 0; i < n; i++)
        fx_index_or_null(j, zero_as_none(pk_function_at(p, items[i])->start_column));
    pk_json_array_end(j);
    pk_json_object_end(j);
}

static void write_resource_table(fx_writer *w)
{
    const pk_profile *p = w->p;
    pk_json *j = &w->json;
    size_t n = w->resources.count;
    const uint32_t *items = w->resources.items;
    table_begin(j, "resourceTable", n);
    fx_column_begin(j, "lib");
    for (size_t i = 0; i < n; i++)
        fx_index_or_null(j, w->resource_lib[items[i]]);
    pk_json_array_end(j);
    fx_column_begin(j, "name");
    for (size_t i = 0; i < n; i++) {
        if (items[i] == w->script_resource) {
            pk_json_u64(j, local_string(w, w->script_string));
            continue;
        }
        const pk_resource *r = pk_resource_at(p, items[i]);
        pk_json_u64(j, local_string(w, r->name && pk_str_len(p, r->name) ? r->name : r->path));
    }
    pk_json_array_end(j);
    repeat_column(j, "host", "null", n);
    /* 1 = library; 0 = unknown (script modules and the like). */
    fx_column_begin(j, "type");
    for (size_t i = 0; i < n; i++)
        pk_json_i64(j, w->resource_lib[items[i]] != PK_NONE ? 1 : 0);
    pk_json_array_end(j);
    pk_json_object_end(j);
}

static void write_native_symbols(fx_writer *w)
{
    const pk_profile *p = w->p;
    pk_json *j = &w->json;
    size_t n = w->symbols.count;
    const uint32_t *items = w->symbols.items;
    table_begin(j, "nativeSymbols", n);
    fx_column_begin(j, "address");
    for (size_t i = 0; i < n; i++)
        pk_json_u64(j, w->symbol_address[i]);
    pk_json_array_end(j);
    repeat_column(j, "functionSize", "null", n);
    fx_column_begin(j, "libIndex");
    for (size_t i = 0; i < n; i++)
        pk_json_u64(j, w->symbol_lib[i]);
    pk_json_array_end(j);
    fx_column_begin(j, "name");
    for (size_t i = 0; i < n; i++)
        pk_json_u64(j, local_string(w, pk_function_at(p, items[i])->name));
    pk_json_array_end(j);
    pk_json_object_end(j);
}

/* Complete only after the tables: they intern every string they refer to. */
static void write_strings(fx_writer *w)
{
    pk_json *j = &w->json;
    fx_column_begin(j, "stringArray");
    /* Whole strings: a NUL byte inside is written \u0000. */
    for (size_t i = 0; i < w->strings.count; i++) {
        if (w->strings.items[i] == w->script_string && w->script_name)
            pk_json_string(j, w->script_name);
        else
            pk_json_string_len(j, pk_str(w->p, w->strings.items[i]),
                               pk_str_len(w->p, w->strings.items[i]));
    }
    pk_json_array_end(j);
}

void fx_write_tables(fx_writer *w)
{
    write_stack_table(w);
    write_frame_table(w);
    write_func_table(w);
    write_resource_table(w);
    write_native_symbols(w);
    write_strings(w);
}
