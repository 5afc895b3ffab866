/* SPDX-License-Identifier: MIT */
/* Naming anonymous BrightScript functions from the channel's source (profkit/source_names.h):
 * each one's definition line is read from the source (source_tree.c) and matched
 * (brs_names.c); the profile is then copied with a frame hook that gives the frames of those
 * functions a function of the new name. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/brs_names.h"
#include "analysis/source_tree.h"
#include "core/hashmap.h"
#include "profkit/merge.h"

#define ANON_PREFIX "$anon_"

/* A source file some anonymous function names, read once: its lines, with .xml files reduced
 * to their script. */
typedef struct source_file {
    char *text;           /* NULL when it could not be read */
    size_t *line_starts;  /* offset of each line's first byte */
    size_t line_count;
    char problem[sizeof ((pk_error *)0)->message]; /* why it could not be read */
} source_file;

typedef struct anon_function {
    uint32_t function;         /* in the input */
    char name[PK_BRS_NAME_MAX]; /* from the source; "" when not named */
    char problem[sizeof ((pk_error *)0)->message + 200]; /* why not named */
    uint32_t name_id;          /* the name in the scratch table that finds clashes */
    bool shared;               /* another function has that name too */
} anon_function;

typedef struct naming {
    const pk_profile *src;
    pk_source *source;
    anon_function *anon;
    size_t anon_count;
    pk_u64map by_function; /* input function -> index in anon, for the named ones */
    source_file *files;
    size_t file_count;
    pk_u64map by_file;     /* input string of the file -> index in files */
    uint32_t *frames;      /* the hook's results, one slot per input frame */
    uint32_t *resources;   /* input resource -> copy's resource, PK_NONE until looked up */
} naming;

static bool has_suffix_nocase(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strncasecmp(s + n - k, suffix, k) == 0;
}

static void source_file_free(source_file *f)
{
    free(f->text);
    free(f->line_starts);
}

/* Reads a file and indexes its lines (ending in LF or CR LF). */
static pk_status load_file(naming *nm, const char *path, source_file *f)
{
    memset(f, 0, sizeof *f);
    size_t size;
    pk_error err;
    pk_error_clear(&err);
    pk_status status = pk_source_read(nm->source, path, &f->text, &size, &err);
    if (status == PK_ERR_NOMEM)
        return status;
    if (status != PK_OK) {
        snprintf(f->problem, sizeof f->problem, "%s", err.message);
        return PK_OK;
    }
    if (has_suffix_nocase(path, ".xml"))
        pk_brs_keep_xml_scripts(f->text, size);
    size_t lines = 1;
    for (size_t i = 0; i < size; i++)
        lines += f->text[i] == '\n';
    f->line_starts = malloc(lines * sizeof *f->line_starts);
    if (!f->line_starts)
        return PK_ERR_NOMEM;
    f->line_starts[0] = 0;
    f->line_count = 1;
    for (size_t i = 0; i < size; i++)
        if (f->text[i] == '\n')
            f->line_starts[f->line_count++] = i + 1;
    /* A final line end does not start a line. */
    if (size > 0 && f->text[size - 1] == '\n')
        f->line_count--;
    /* A byte order mark is not part of the first line. */
    if (size >= 3 && memcmp(f->text, "\xef\xbb\xbf", 3) == 0)
        memset(f->text, ' ', 3);
    return PK_OK;
}

/* The file of an input string, loaded on first use. */
static pk_status file_for(naming *nm, uint32_t file, source_file **out)
{
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&nm->by_file, file, (uint32_t)nm->file_count, &slot, &inserted))
        return PK_ERR_NOMEM;
    if (!inserted) {
        *out = &nm->files[*slot];
        return PK_OK;
    }
    source_file *grown = realloc(nm->files, (nm->file_count + 1) * sizeof *grown);
    if (!grown)
        return PK_ERR_NOMEM;
    nm->files = grown;
    source_file *f = &nm->files[nm->file_count++];
    *out = f;
    return load_file(nm, pk_str(nm->src, file), f);
}

/* A line of text for a message: at most 60 bytes, without its line end. */
static void shown_line(const char *line, size_t len, char *buf, size_t size)
{
    while (len > 0 && (line[0] == ' ' || line[0] == '\t')) {
        line++;
        len--;
    }
    size_t n = len > 60 ? 60 : len;
    snprintf(buf, size, "\"%.*s%s\"", (int)n, line, len > n ? "..." : "");
}

/* Finds the name of one anonymous function, or says why there is none. */
static pk_status name_one(naming *nm, anon_function *a)
{
    const pk_function *fn = pk_function_at(nm->src, a->function);
    if (fn->file == 0 || fn->start_line == 0) {
        snprintf(a->problem, sizeof a->problem, "the profile gives no file and line for it");
        return PK_OK;
    }
    const char *path = pk_str(nm->src, fn->file);
    source_file *f;
    pk_status status = file_for(nm, fn->file, &f);
    if (status != PK_OK)
        return status;
    if (!f->text) {
        snprintf(a->problem, sizeof a->problem, "%s", f->problem);
        return PK_OK;
    }
    if (fn->start_line > f->line_count) {
        snprintf(a->problem, sizeof a->problem, "%s has %zu lines, not %" PRIu32, path,
                 f->line_count, fn->start_line);
        return PK_OK;
    }
    size_t start = f->line_starts[fn->start_line - 1];
    const char *line = f->text + start;
    const char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    if (len > 0 && line[len - 1] == '\r')
        len--;
    if (!pk_brs_anonymous_name(line, len, a->name)) {
        char shown[80];
        shown_line(line, len, shown, sizeof shown);
        a->name[0] = '\0';
        snprintf(a->problem, sizeof a->problem,
                 "line %" PRIu32 " of %s defines no function by an assignment or a key: %s",
                 fn->start_line, path, shown);
    }
    return PK_OK;
}

/* Marks the names shared with another function of the input, which keep the original name
 * beside them. */
static pk_status find_shared_names(naming *nm)
{
    pk_profile *scratch = pk_profile_new(); /* its string table: a set of names */
    pk_u64map owner;  /* name -> input name of the first anonymous function given it */
    pk_u64map shared; /* the names given to a function and something else */
    pk_u64map_init(&owner);
    pk_u64map_init(&shared);
    pk_status status = scratch ? PK_OK : PK_ERR_NOMEM;
    for (uint32_t f = 0; status == PK_OK && f < pk_function_count(nm->src); f++) {
        const char *name = pk_str(nm->src, pk_function_at(nm->src, f)->name);
        if (strncmp(name, ANON_PREFIX, strlen(ANON_PREFIX)) != 0 &&
            pk_intern_cstr(scratch, name) == PK_NONE)
            status = PK_ERR_NOMEM;
    }
    size_t named_before = scratch ? pk_string_count(scratch) : 0;
    for (size_t i = 0; status == PK_OK && i < nm->anon_count; i++) {
        anon_function *a = &nm->anon[i];
        if (!a->name[0])
            continue;
        a->name_id = pk_intern_cstr(scratch, a->name);
        uint32_t original = pk_function_at(nm->src, a->function)->name;
        uint32_t *slot;
        bool inserted;
        if (a->name_id == PK_NONE ||
            !pk_u64map_put(&owner, a->name_id, original, &slot, &inserted)) {
            status = PK_ERR_NOMEM;
            break;
        }
        if ((a->name_id < named_before || (!inserted && *slot != original)) &&
            !pk_u64map_put(&shared, a->name_id, 0, &slot, &inserted))
            status = PK_ERR_NOMEM;
    }
    for (size_t i = 0; status == PK_OK && i < nm->anon_count; i++)
        nm->anon[i].shared =
            nm->anon[i].name[0] && pk_u64map_find(&shared, nm->anon[i].name_id) != NULL;
    pk_u64map_free(&owner);
    pk_u64map_free(&shared);
    pk_profile_free(scratch);
    return status;
}

/* The copy's resource equal to input resource id (the copy has interned every resource before
 * the first frame, so interning it again finds it). */
static uint32_t copy_resource(naming *nm, uint32_t id, pk_profile *dst)
{
    if (id == PK_NONE || id >= pk_resource_count(nm->src))
        return PK_NONE;
    if (nm->resources[id] == PK_NONE) {
        pk_resource r = *pk_resource_at(nm->src, id);
        r.name = pk_intern_cstr(dst, pk_str(nm->src, r.name));
        r.path = pk_intern_cstr(dst, pk_str(nm->src, r.path));
        r.build_id = pk_intern_cstr(dst, pk_str(nm->src, r.build_id));
        if (r.name != PK_NONE && r.path != PK_NONE && r.build_id != PK_NONE)
            nm->resources[id] = pk_intern_resource(dst, &r);
    }
    return nm->resources[id];
}

/* The frame hook: a frame of a named function becomes the same frame of a function with the
 * new name. */
static size_t rename_frame(void *context, const pk_profile *src, uint32_t frame, pk_profile *dst,
                           const uint32_t **frames)
{
    naming *nm = context;
    const pk_frame *f = pk_frame_at(src, frame);
    uint32_t *index = pk_u64map_find(&nm->by_function, f->function);
    if (!index)
        return 0;
    const anon_function *a = &nm->anon[*index];
    const pk_function *fn = pk_function_at(src, f->function);
    pk_function renamed = *fn;
    renamed.name = a->shared ? pk_intern_printf(dst, "%s (%s)", a->name, pk_str(src, fn->name))
                             : pk_intern_cstr(dst, a->name);
    renamed.file = pk_intern_cstr(dst, pk_str(src, fn->file));
    renamed.resource = copy_resource(nm, fn->resource, dst);
    pk_frame copy = *f;
    copy.resource = copy_resource(nm, f->resource, dst);
    if (renamed.name == PK_NONE || renamed.file == PK_NONE ||
        (fn->resource != PK_NONE && renamed.resource == PK_NONE) ||
        (f->resource != PK_NONE && copy.resource == PK_NONE) ||
        (copy.function = pk_intern_function(dst, &renamed)) == PK_NONE ||
        (nm->frames[frame] = pk_intern_frame(dst, &copy)) == PK_NONE)
        return SIZE_MAX;
    *frames = &nm->frames[frame];
    return 1;
}

static void naming_free(naming *nm)
{
    for (size_t i = 0; i < nm->file_count; i++)
        source_file_free(&nm->files[i]);
    free(nm->files);
    free(nm->anon);
    free(nm->frames);
    free(nm->resources);
    pk_u64map_free(&nm->by_function);
    pk_u64map_free(&nm->by_file);
}

/* Finds every anonymous function's name; fills counts. */
static pk_status name_all(naming *nm, pk_source_naming *counts)
{
    size_t functions = pk_function_count(nm->src);
    for (uint32_t f = 0; f < functions; f++) {
        const char *name = pk_str(nm->src, pk_function_at(nm->src, f)->name);
        if (strncmp(name, ANON_PREFIX, strlen(ANON_PREFIX)) != 0)
            continue;
        anon_function *grown = realloc(nm->anon, (nm->anon_count + 1) * sizeof *grown);
        if (!grown)
            return PK_ERR_NOMEM;
        nm->anon = grown;
        anon_function *a = &nm->anon[nm->anon_count++];
        memset(a, 0, sizeof *a);
        a->function = f;
        pk_status status = name_one(nm, a);
        if (status != PK_OK)
            return status;
    }
    pk_status status = find_shared_names(nm);
    for (size_t i = 0; status == PK_OK && i < nm->anon_count; i++) {
        bool inserted;
        uint32_t *slot;
        if (!nm->anon[i].name[0]) {
            counts->unnamed++;
            continue;
        }
        counts->named++;
        if (!pk_u64map_put(&nm->by_function, nm->anon[i].function, (uint32_t)i, &slot,
                           &inserted))
            status = PK_ERR_NOMEM;
    }
    return status;
}

pk_status pk_name_anonymous_functions(const pk_profile *p, pk_source *source,
                                      pk_profile **out, pk_source_naming *counts,
                                      pk_error *err)
{
    *out = NULL;
    pk_source_naming tally = {0, 0};
    naming nm = {.src = p, .source = source};
    pk_u64map_init(&nm.by_function);
    pk_u64map_init(&nm.by_file);
    size_t frames = pk_frame_count(p), resources = pk_resource_count(p);
    nm.frames = malloc((frames ? frames : 1) * sizeof *nm.frames);
    nm.resources = malloc((resources ? resources : 1) * sizeof *nm.resources);
    pk_profile *dst = pk_profile_new();
    pk_status status = nm.frames && nm.resources && dst ? PK_OK : PK_ERR_NOMEM;
    if (status == PK_OK) {
        memset(nm.resources, 0xff, (resources ? resources : 1) * sizeof *nm.resources);
        status = name_all(&nm, &tally);
    }
    if (status == PK_OK) {
        pk_copy_options copy = {.map_frame = rename_frame, .map_context = &nm};
        status = pk_profile_copy(dst, p, &copy, err);
    }
    if (status == PK_OK) {
        char summary[PK_BRS_NAME_MAX + 512];
        snprintf(summary, sizeof summary, "%zu named from %s, %zu not named", tally.named,
                 pk_source_name(source), tally.unnamed);
        status = pk_property_set(dst, "anonymous-functions", summary);
        for (size_t i = 0; status == PK_OK && i < nm.anon_count; i++) {
            const anon_function *a = &nm.anon[i];
            if (!a->name[0])
                pk_warn(dst, "%s not named from the source: %s",
                        pk_str(p, pk_function_at(p, a->function)->name), a->problem);
        }
    }
    naming_free(&nm);
    if (status != PK_OK) {
        pk_profile_free(dst);
        if (status == PK_ERR_NOMEM)
            return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
        return status;
    }
    if (counts)
        *counts = tally;
    *out = dst;
    return PK_OK;
}
