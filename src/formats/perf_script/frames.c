/* SPDX-License-Identifier: MIT */
/* Frame lines of perf script to frames of the model: the function named by the symbol, the DSO
 * as resource, the address printed; each distinct line parsed once and found again by its
 * text. */
#include <stdio.h>
#include <string.h>

#include "core/array.h"
#include "core/path.h"
#include "formats/perf_script/reader.h"

static bool has_suffix(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

static bool contains(const char *s, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++)
        if (memcmp(s + i, needle, k) == 0)
            return true;
    return false;
}

uint32_t perf_named_frame(pk_profile *p, uint32_t name, uint32_t resource, uint64_t address,
                          uint32_t flags, uint32_t file, uint32_t line)
{
    pk_function f = {.name = name, .file = file, .start_line = 0, .resource = resource};
    uint32_t fn = pk_intern_function(p, &f);
    if (fn == PK_NONE)
        return PK_NONE;
    pk_frame fr = {.function = fn, .line = line, .address = address, .resource = resource,
                   .flags = flags};
    return pk_intern_frame(p, &fr);
}

/* The resource of a DSO; PK_NONE for none, `[unknown]` and `inlined`; *nomem on failure. */
static uint32_t resource_of(perf_reader *r, const perf_frame *f, bool *nomem)
{
    *nomem = false;
    if (!f->dso || f->dso_len == 0 || f->inlined ||
        (f->dso_len == 9 && memcmp(f->dso, "[unknown]", 9) == 0))
        return PK_NONE;
    size_t base = pk_path_basename_offset(f->dso, f->dso_len);
    pk_resource res = {0};
    res.name = pk_intern(r->p, f->dso + base, f->dso_len - base);
    res.path = pk_intern(r->p, f->dso, f->dso_len);
    uint32_t id = res.name == PK_NONE || res.path == PK_NONE ? PK_NONE
                                                             : pk_intern_resource(r->p, &res);
    *nomem = id == PK_NONE;
    return id;
}

/* The annotation stackcollapse-perf.pl's --kernel and --jit add for a frame of this DSO. */
static const char *annotation(const perf_reader *r, const perf_frame *f)
{
    if (!f->dso)
        return "";
    if (r->annotate_kernel && (perf_has_prefix(f->dso, f->dso_len, "[") ||
                               has_suffix(f->dso, f->dso_len, "vmlinux")) &&
        !contains(f->dso, f->dso_len, "unknown"))
        return "_[k]";
    if (r->annotate_jit) {
        /* /tmp/perf-PID.map anywhere in the DSO */
        for (size_t i = 0; i + 10 <= f->dso_len; i++) {
            if (memcmp(f->dso + i, "/tmp/perf-", 10) != 0)
                continue;
            size_t k = i + 10;
            while (k < f->dso_len && f->dso[k] >= '0' && f->dso[k] <= '9')
                k++;
            if (k > i + 10 && perf_has_prefix(f->dso + k, f->dso_len - k, ".map"))
                return "_[j]";
        }
    }
    return "";
}

/* Appends the frames of a parsed frame line to reader.runs (one per piece of a Java `a->b`
 * chain, outermost first). Returns how many, or SIZE_MAX when memory runs out. */
static size_t make_frames(perf_reader *r, const perf_frame *f, uint32_t file, uint32_t line)
{
    bool nomem;
    uint32_t resource = resource_of(r, f, &nomem);
    if (nomem)
        return SIZE_MAX;
    const char *note = annotation(r, f);
    size_t made = 0;
    const char *s = f->symbol;
    size_t n = f->symbol_len;
    for (size_t piece = 0;; piece++) {
        size_t len = n;
        for (size_t i = 0; i + 1 < n; i++) {
            if (s[i] == '-' && s[i + 1] == '>') {
                len = i;
                break;
            }
        }
        uint32_t name;
        bool unknown = (len == 9 && memcmp(s, "[unknown]", 9) == 0) || (len == 0 && n == 0);
        if (unknown && f->dso && f->dso_len > 0 &&
            !(f->dso_len == 9 && memcmp(f->dso, "[unknown]", 9) == 0)) {
            /* Named by the DSO's base name, in brackets. */
            size_t slash = f->dso_len;
            while (slash > 0 && f->dso[slash - 1] != '/')
                slash--;
            name = pk_intern_printf(r->p, "[%.*s]%s", (int)(f->dso_len - slash), f->dso + slash,
                                    piece > 0 ? "_[i]" : note);
        } else if (unknown) {
            name = pk_intern_printf(r->p, "[unknown]%s", piece > 0 ? "_[i]" : note);
        } else if (piece > 0) {
            bool marked = contains(s, len, "_[i]");
            name = pk_intern_printf(r->p, "%.*s%s", (int)len, s, marked ? "" : "_[i]");
        } else if (*note) {
            name = pk_intern_printf(r->p, "%.*s%s", (int)len, s, note);
        } else {
            name = pk_intern(r->p, s, len);
        }
        if (name == PK_NONE)
            return SIZE_MAX;
        uint32_t flags = PK_FRAME_HAS_ADDRESS;
        if (piece > 0 || f->inlined)
            flags |= PK_FRAME_INLINED;
        uint32_t frame = perf_named_frame(r->p, name, resource, f->address, flags, file, line);
        if (frame == PK_NONE || !PK_ARRAY_RESERVE(r->runs, r->run_cap, r->run_count + 1))
            return SIZE_MAX;
        r->runs[r->run_count++] = frame;
        made++;
        if (len == n)
            break;
        s += len + 2;
        n -= len + 2;
    }
    return made;
}

static bool frame_line_equal(const void *context, uint32_t entry, const void *key)
{
    const perf_reader *r = context;
    const perf_text_key *k = key;
    const perf_frame_line *l = &r->frame_lines[entry];
    return l->text_len == k->len && memcmp(r->texts.data + l->text, k->text, k->len) == 0;
}

static bool push_frames(perf_reader *r, size_t run, size_t run_len)
{
    if (!PK_ARRAY_RESERVE(r->frames, r->frame_cap, r->frame_count + run_len))
        return false;
    /* Leaf first: the run is outermost first, so it goes in reversed. */
    for (size_t i = run_len; i-- > 0;)
        r->frames[r->frame_count++] = r->runs[run + i];
    r->last_run_len = run_len;
    return true;
}

bool perf_add_frame_line(perf_reader *r, const char *text, size_t len, const perf_frame *f)
{
    perf_text_key key = {text, len};
    uint64_t hash = pk_hash_bytes(text, len);
    uint32_t entry = pk_index_find(&r->frame_index, hash, frame_line_equal, r, &key);
    if (entry == UINT32_MAX) {
        size_t run = r->run_count;
        size_t made = make_frames(r, f, 0, 0);
        if (made == SIZE_MAX || r->frame_line_count >= UINT32_MAX - 1 ||
            !PK_ARRAY_RESERVE(r->frame_lines, r->frame_line_cap, r->frame_line_count + 1))
            return false;
        size_t at = r->texts.len;
        pk_buffer_append(&r->texts, text, len);
        if (r->texts.failed)
            return false;
        r->frame_lines[r->frame_line_count] = (perf_frame_line){at, len, run, made};
        if (!pk_index_insert(&r->frame_index, hash, (uint32_t)r->frame_line_count))
            return false;
        entry = (uint32_t)r->frame_line_count++;
    }
    const perf_frame_line *l = &r->frame_lines[entry];
    return push_frames(r, l->run, l->run_len);
}

bool perf_add_srcline(perf_reader *r, const char *file, size_t file_len, uint32_t line)
{
    if (r->last_run_len == 0 || r->frame_count < r->last_run_len)
        return true;
    uint32_t file_id = pk_intern(r->p, file, file_len);
    if (file_id == PK_NONE)
        return false;
    for (size_t i = 0; i < r->last_run_len; i++) {
        uint32_t *slot = &r->frames[r->frame_count - 1 - i];
        const pk_frame *old = pk_frame_at(r->p, *slot);
        const pk_function *fn = pk_function_at(r->p, old->function);
        uint32_t frame =
            perf_named_frame(r->p, fn->name, fn->resource, old->address, old->flags, file_id, line);
        if (frame == PK_NONE)
            return false;
        *slot = frame;
    }
    r->last_run_len = 0;
    return true;
}

