/* SPDX-License-Identifier: MIT */
/* The pprof writer: the Profile message, field by field, with libprotobuf-c packing each
 * sub-message straight into the output. The bytes are plain protobuf; the core compresses them
 * (pprof is written gzip-compressed unless asked otherwise: PK_FORMAT_GZIP_BY_DEFAULT). */
#include <assert.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <protobuf-c/protobuf-c.h>

#include "core/array.h"
#include "core/title.h"
#include "core/buffer.h"
#include "core/hashmap.h"
#include "core/output.h"
#include "core/path.h"
#include "formats/pprof/pprof.h"
#include "formats/pprof/pprof.pb-c.h"
#include "formats/pprof/sample.h"
#include "formats/pprof/wire.h"
#include "profkit/symbolize.h"
#include "profkit/thread_names.h"

typedef struct writer {
    const pk_profile *p;
    pk_output *out;
    bool failed; /* out of memory */
    /* strings beyond the model's, numbered after them */
    char **extra_strings;
    size_t extra_count, extra_capacity;
    pk_buffer text; /* scratch for a comment being made */
    /* inlined frames fold into their caller's location: a location is a chain of frames */
    uint32_t *frame_location;    /* per frame starting a location: that location, or PK_NONE */
    uint8_t *frame_inlined;      /* per frame: inlined into its parent (the model's flag, kept
                                  * compact: every frame of every sample is looked up twice) */
    pk_u64map inlined_locations; /* (outer location, inlined frame) -> location */
    uint32_t *location_next_frame; /* per location: the inlined frame that last extended it */
    uint32_t *location_next;       /* and the location that made, which most often comes again */
    size_t location_capacity_next_frame, location_capacity_next;
    uint32_t *frames;            /* scratch for one stack's frames */
    size_t frames_capacity;
    uint32_t *location_outer;    /* per location: the location it extends, PK_NONE for a base */
    uint32_t *location_frame;    /* per location: its innermost frame */
    size_t location_count, location_capacity_outer, location_capacity_frame;
    uint32_t *location_id;    /* per location: its ID in the file, 0 when no sample uses it */
    uint32_t *used_locations; /* locations in ID order */
    size_t used_count, numbered, location_id_capacity, used_capacity;
    bool *resource_unsymbolized; /* per resource */
    bool *resource_has_files;
    bool *resource_has_lines;
    bool *resource_has_inlines;
    uint64_t *ids; /* scratch for one sample's location IDs */
    size_t ids_capacity;
    uint8_t *sample_bytes; /* scratch for one sample's message */
    size_t sample_bytes_capacity;
    Perftools__Profiles__Line *lines;
    Perftools__Profiles__Line **line_pointers;
    size_t lines_capacity, line_pointers_capacity;
    uint32_t main_resource; /* the program's resource, written first (PK_NONE: no resources) */
} writer;

/* ---- fields ------------------------------------------------------------------------------------ */

static void emit_varint(writer *w, uint64_t v)
{
    uint8_t buf[PK_VARINT_MAX_BYTES];
    pk_out_write(w->out, buf, pk_varint_encode(buf, v));
}

static void emit_tag(writer *w, uint32_t field, pb_wire_type wire)
{
    uint8_t buf[PK_VARINT_MAX_BYTES];
    pk_out_write(w->out, buf, pb_encode_tag(buf, field, wire));
}

/* A varint field; proto3 leaves out zero values. */
static void emit_scalar(writer *w, uint32_t field, uint64_t v)
{
    if (v == 0)
        return;
    emit_tag(w, field, PB_WIRE_VARINT);
    emit_varint(w, v);
}

typedef struct sink {
    ProtobufCBuffer base;
    writer *w;
} sink;

static void sink_append(ProtobufCBuffer *buffer, size_t len, const uint8_t *data)
{
    pk_out_write(((sink *)buffer)->w->out, data, len);
}

static void emit_message(writer *w, uint32_t field, const ProtobufCMessage *message)
{
    emit_tag(w, field, PB_WIRE_BYTES);
    emit_varint(w, protobuf_c_message_get_packed_size(message));
    sink s = {{sink_append}, w};
    protobuf_c_message_pack_to_buffer(message, &s.base);
}

static void emit_bytes_field(writer *w, uint32_t field, const char *data, size_t len)
{
    emit_tag(w, field, PB_WIRE_BYTES);
    emit_varint(w, len);
    pk_out_write(w->out, data, len);
}

/* String index of s (len bytes) in the written table: the model's own strings keep their
 * indexes, the writer's come after them. */
static int64_t extra_string(writer *w, const char *s, size_t len)
{
    size_t base = pk_string_count(w->p);
    for (size_t i = 0; i < w->extra_count; i++)
        if (strlen(w->extra_strings[i]) == len && memcmp(w->extra_strings[i], s, len) == 0)
            return (int64_t)(base + i);
    char *copy = strndup(s, len);
    if (!copy || !PK_ARRAY_RESERVE(w->extra_strings, w->extra_capacity, w->extra_count + 1)) {
        free(copy);
        w->failed = true;
        return 0;
    }
    w->extra_strings[w->extra_count++] = copy;
    return (int64_t)(base + w->extra_count - 1);
}

static int64_t extra_cstring(writer *w, const char *s)
{
    return extra_string(w, s, strlen(s));
}

/* The string "key=value", in the written table. */
static int64_t extra_pair(writer *w, const char *key, const char *value)
{
    pk_buffer_clear(&w->text);
    pk_buffer_append(&w->text, key, strlen(key));
    pk_buffer_byte(&w->text, '=');
    pk_buffer_append(&w->text, value, strlen(value));
    if (w->text.failed) {
        w->failed = true;
        return 0;
    }
    return extra_string(w, (const char *)w->text.data, w->text.len);
}

/* ---- locations ---------------------------------------------------------------------------------- */

static uint32_t frame_resource(const pk_profile *p, const pk_frame *f)
{
    if (f->resource != PK_NONE)
        return f->resource;
    const pk_function *fn = pk_function_at(p, f->function);
    return fn ? fn->resource : PK_NONE;
}

/* Prepares the grouping of frames into locations: a frame that is not inlined starts a location
 * of its own, found by frame without hashing; an inlined frame extends the location of the
 * frame it is inlined into. */
static bool build_locations(writer *w)
{
    size_t frame_count = pk_frame_count(w->p);
    w->frame_location = malloc((frame_count ? frame_count : 1) * sizeof *w->frame_location);
    w->frame_inlined = malloc(frame_count ? frame_count : 1);
    if (!w->frame_location || !w->frame_inlined)
        return false;
    for (size_t f = 0; f < frame_count; f++) {
        w->frame_location[f] = PK_NONE;
        w->frame_inlined[f] = (pk_frame_at(w->p, (uint32_t)f)->flags & PK_FRAME_INLINED) != 0;
    }
    pk_u64map_init(&w->inlined_locations);
    return true;
}

/* The location of frame extending location outer (PK_NONE: the frame starts one), made when
 * new; PK_NONE when memory runs out. */
static uint32_t location_of(writer *w, uint32_t outer, uint32_t frame)
{
    uint32_t *slot = &w->frame_location[frame];
    if (outer != PK_NONE) {
        if (w->location_next_frame[outer] == frame)
            return w->location_next[outer];
        bool inserted;
        if (!pk_u64map_put(&w->inlined_locations, ((uint64_t)outer << 32) | frame, PK_NONE, &slot,
                           &inserted))
            return PK_NONE;
    }
    if (*slot == PK_NONE) {
        size_t need = w->location_count + 1;
        if (!PK_ARRAY_RESERVE(w->location_outer, w->location_capacity_outer, need) ||
            !PK_ARRAY_RESERVE(w->location_frame, w->location_capacity_frame, need) ||
            !PK_ARRAY_RESERVE(w->location_next_frame, w->location_capacity_next_frame, need) ||
            !PK_ARRAY_RESERVE(w->location_next, w->location_capacity_next, need))
            return PK_NONE;
        w->location_outer[w->location_count] = outer;
        w->location_frame[w->location_count] = frame;
        w->location_next_frame[w->location_count] = PK_NONE;
        *slot = (uint32_t)w->location_count++;
    }
    if (outer != PK_NONE) {
        w->location_next_frame[outer] = frame;
        w->location_next[outer] = *slot;
    }
    return *slot;
}

/* A frame named by its address (unsymbolized) is written as a location without lines, so that
 * pprof symbolizes it itself. */
static bool location_is_bare(const writer *w, uint32_t location)
{
    return w->location_outer[location] == PK_NONE &&
           pk_frame_is_unresolved(w->p, w->location_frame[location]);
}

/* The frame whose address and resource the location carries: the outermost of its chain. */
static const pk_frame *location_base_frame(const writer *w, uint32_t location)
{
    while (w->location_outer[location] != PK_NONE)
        location = w->location_outer[location];
    return pk_frame_at(w->p, w->location_frame[location]);
}

static bool note_resources(writer *w)
{
    const pk_profile *p = w->p;
    size_t n = pk_resource_count(p);
    size_t alloc = n ? n : 1;
    w->resource_unsymbolized = calloc(alloc, sizeof(bool));
    w->resource_has_files = calloc(alloc, sizeof(bool));
    w->resource_has_lines = calloc(alloc, sizeof(bool));
    w->resource_has_inlines = calloc(alloc, sizeof(bool));
    if (!w->resource_unsymbolized || !w->resource_has_files || !w->resource_has_lines ||
        !w->resource_has_inlines)
        return false;
    for (size_t u = 0; u < w->used_count; u++) {
        uint32_t l = w->used_locations[u];
        const pk_frame *base = location_base_frame(w, l);
        uint32_t r = frame_resource(p, base);
        if (r == PK_NONE || r >= n)
            continue;
        if (location_is_bare(w, l)) {
            w->resource_unsymbolized[r] = true;
            continue;
        }
        const pk_frame *f = pk_frame_at(p, w->location_frame[l]);
        const pk_function *fn = pk_function_at(p, f->function);
        if (fn && fn->file)
            w->resource_has_files[r] = true;
        if (f->line)
            w->resource_has_lines[r] = true;
        if (w->location_outer[l] != PK_NONE)
            w->resource_has_inlines[r] = true;
    }
    return true;
}

/* The locations of a stack, leaf first, into w->ids (as location indexes): a frame and the
 * frames inlined into it are one location, the one of the innermost. */
static bool sample_locations(writer *w, uint32_t stack, size_t *depth_out)
{
    const pk_profile *p = w->p;
    size_t depth = pk_stack_depth(p, stack), count = 0;
    if (!PK_ARRAY_RESERVE(w->frames, w->frames_capacity, depth + 1) ||
        !PK_ARRAY_RESERVE(w->ids, w->ids_capacity, depth + 1)) {
        w->failed = true;
        return false;
    }
    pk_stack_frames(p, stack, w->frames, depth);
    uint32_t location = PK_NONE;
    for (size_t k = 0; k < depth; k++) {
        bool inlined = k > 0 && w->frame_inlined[w->frames[k]];
        location = location_of(w, inlined ? location : PK_NONE, w->frames[k]);
        if (location == PK_NONE) {
            w->failed = true;
            return false;
        }
        if (k + 1 == depth || !w->frame_inlined[w->frames[k + 1]])
            w->ids[count++] = location;
    }
    for (size_t a = 0, b = count; a + 1 < b; a++, b--) {
        uint64_t t = w->ids[a];
        w->ids[a] = w->ids[b - 1];
        w->ids[b - 1] = t;
    }
    *depth_out = count;
    return true;
}

/* Gives the locations of a sample (w->ids, depth of them) their IDs, in place: the locations
 * that samples use are numbered 1..N in order of first use, as the samples are written; the
 * chains that only lead up to a longer inline chain are not written. Locations are made as
 * samples reach them, so the numbering grows with them. */
static bool number_locations(writer *w, size_t depth)
{
    if (w->location_count > w->numbered) {
        if (!PK_ARRAY_RESERVE(w->location_id, w->location_id_capacity, w->location_count) ||
            !PK_ARRAY_RESERVE(w->used_locations, w->used_capacity, w->location_count))
            return false;
        memset(w->location_id + w->numbered, 0,
               (w->location_count - w->numbered) * sizeof *w->location_id);
        w->numbered = w->location_count;
    }
    for (size_t k = 0; k < depth; k++) {
        uint32_t location = (uint32_t)w->ids[k];
        if (w->location_id[location] == 0) {
            w->used_locations[w->used_count++] = location;
            w->location_id[location] = (uint32_t)w->used_count;
        }
        w->ids[k] = w->location_id[location];
    }
    return true;
}

/* ---- the messages ----------------------------------------------------------------------------- */

/* Appends one sample label: a string (str) or a number (num); the key string is added to the
 * table on first use. */
static void add_label(writer *w, pprof_label *labels, size_t *count, int64_t *key,
                      const char *key_text, int64_t str, int64_t num)
{
    if (!*key)
        *key = extra_cstring(w, key_text);
    labels[(*count)++] = (pprof_label){*key, str, num, 0};
}

/* What a sample's labels say of its thread, as string indexes in the written table: `thread`,
 * its display name (what pprof's viewers show and group by, distinct for every thread); and
 * `thread_name`, its own name, only where the display name differs from it (threads sharing a
 * name, a thread without one), so that reading back gives each thread the name it had. */
typedef struct thread_label {
    int64_t shown;
    int64_t own; /* 0: the same as shown */
} thread_label;

/* Every thread's labels; NULL when memory runs out. */
static thread_label *thread_labels_of(writer *w)
{
    const pk_profile *p = w->p;
    size_t threads = pk_thread_count(p);
    thread_label *labels = calloc(threads ? threads : 1, sizeof *labels);
    pk_thread_names *names = pk_thread_names_new(p);
    if (!labels || !names) {
        free(labels);
        pk_thread_names_free(names);
        return NULL;
    }
    for (uint32_t t = 0; t < threads; t++) {
        const pk_thread *th = pk_thread_at(p, t);
        const char *shown = pk_thread_display_name(names, t);
        labels[t] = (thread_label){th->name, 0};
        if (strcmp(shown, pk_str(p, th->name)) != 0) {
            labels[t].shown = extra_cstring(w, shown);
            /* string 0 would make a numeric label: an empty name is another "" entry */
            labels[t].own = th->name ? th->name : extra_cstring(w, "");
        }
    }
    pk_thread_names_free(names);
    return labels;
}

static void write_samples(writer *w)
{
    const pk_profile *p = w->p;
    size_t nv = pk_value_type_count(p);
    thread_label *thread_labels = thread_labels_of(w);
    if (!thread_labels) {
        w->failed = true;
        return;
    }
    int64_t thread_key = 0, name_key = 0, pid_key = 0, tid_key = 0;
    pprof_label *labels = NULL; /* the thread's four at most, then the row's own */
    size_t labels_capacity = 0;
    int64_t empty = 0; /* the index of a "" written for a string label's empty value */
    for (size_t row = 0; row < pk_sample_count(p) && !w->failed; row++) {
        uint32_t stack = pk_sample_stack(p, row);
        size_t depth;
        if (!sample_locations(w, stack, &depth))
            break; /* w->failed is set */
        if (!number_locations(w, depth)) {
            w->failed = true;
            break;
        }
        uint32_t thread = pk_sample_thread(p, row);
        const pk_thread *t = pk_thread_at(p, thread);
        const pk_label *own;
        size_t own_count = pk_label_set_at(p, pk_sample_label_set(p, row), &own);
        /* A label set counts its labels in 32 bits: the reserve below cannot wrap to nothing. */
        assert(own_count <= UINT32_MAX);
        if (!PK_ARRAY_RESERVE(labels, labels_capacity, 4 + own_count)) {
            w->failed = true;
            break;
        }
        size_t nl = 0;
        if (t && thread_labels[thread].shown)
            add_label(w, labels, &nl, &thread_key, LABEL_THREAD, thread_labels[thread].shown, 0);
        if (t && thread_labels[thread].own)
            add_label(w, labels, &nl, &name_key, LABEL_THREAD_NAME, thread_labels[thread].own,
                      0);
        if (t && t->pid >= 0)
            add_label(w, labels, &nl, &pid_key, LABEL_PID, 0, t->pid);
        if (t && t->tid >= 0)
            add_label(w, labels, &nl, &tid_key, LABEL_TID, 0, t->tid);
        /* The model's strings keep their indexes in the written table. A string label is one
         * whose str is set: an empty value is written as another "" entry, not string 0. */
        for (size_t k = 0; k < own_count; k++) {
            const pk_label *l = &own[k];
            if (l->str == PK_NONE) {
                labels[nl++] = (pprof_label){l->key, 0, l->num, l->unit};
            } else {
                if (l->str == 0 && !empty)
                    empty = extra_cstring(w, "");
                labels[nl++] = (pprof_label){l->key, l->str ? l->str : empty, 0, 0};
            }
        }
        pprof_sample sample = {w->ids, depth, pk_sample_values(p, row), nv, labels, nl};
        if (!PK_ARRAY_RESERVE(w->sample_bytes, w->sample_bytes_capacity,
                              pprof_sample_max_size(&sample))) {
            w->failed = true;
            break;
        }
        emit_bytes_field(w, PROFILE_SAMPLE, (const char *)w->sample_bytes,
                         pprof_encode_sample(w->sample_bytes, &sample));
        if (pk_out_failed(w->out))
            break;
    }
    free(labels);
    free(thread_labels);
}

/* The file name of a resource, without its directory. */
static const char *resource_file(const pk_profile *p, const pk_resource *r)
{
    return pk_path_basename(pk_str(p, r->path ? r->path : r->name));
}

/* Code that is not the program: the kernel ("[kernel.kallsyms]", "[vdso]"), shared libraries
 * and the dynamic loader ("libc.so.6", "ld-linux-x86-64.so.2") and JIT maps ("perf-7001.map"). */
static bool resource_is_library(const char *file)
{
    const char *so = strstr(file, ".so");
    return file[0] == '[' || (so && (so[3] == '\0' || so[3] == '.')) ||
           (strncmp(file, "perf-", 5) == 0 && strstr(file, ".map"));
}

/* pprof takes the first mapping for the program ("File:" in `go tool pprof -top`): the
 * resource named as the product (callgrind's cmd), else as a thread (perf's comm, which the
 * kernel cuts to 15 bytes), else the first that is not a library, else the first. */
static uint32_t choose_main_resource(const pk_profile *p)
{
    uint32_t count = (uint32_t)pk_resource_count(p);
    if (count == 0)
        return PK_NONE;
    uint32_t product = pk_metadata_get(p)->product;
    const char *program = product ? pk_path_basename(pk_str(p, product)) : "";
    for (uint32_t i = 0; i < count && *program; i++)
        if (strcmp(resource_file(p, pk_resource_at(p, i)), program) == 0)
            return i;
    for (uint32_t t = 0; t < pk_thread_count(p) && t < 64; t++) {
        const char *name = pk_str(p, pk_thread_at(p, t)->name);
        if (!*name)
            continue;
        for (uint32_t i = 0; i < count; i++)
            if (strncmp(resource_file(p, pk_resource_at(p, i)), name, 15) == 0)
                return i;
    }
    for (uint32_t i = 0; i < count; i++)
        if (!resource_is_library(resource_file(p, pk_resource_at(p, i))))
            return i;
    return 0;
}

/* Mapping IDs follow the order of the mappings: the main resource and resource 0 trade
 * places. */
static uint64_t mapping_id(const writer *w, uint32_t resource)
{
    uint32_t position = resource == w->main_resource ? 0
                        : resource == 0              ? w->main_resource
                                                     : resource;
    return (uint64_t)position + 1;
}

static void write_mappings(writer *w)
{
    const pk_profile *p = w->p;
    for (uint32_t k = 0; k < pk_resource_count(p) && !w->failed; k++) {
        uint32_t i = k == 0 ? w->main_resource : k == w->main_resource ? 0 : k;
        const pk_resource *r = pk_resource_at(p, i);
        Perftools__Profiles__Mapping m = PERFTOOLS__PROFILES__MAPPING__INIT;
        m.id = mapping_id(w, i);
        m.memory_start = r->start;
        m.memory_limit = r->limit;
        m.file_offset = r->offset;
        m.filename = r->path ? r->path : r->name;
        m.build_id = r->build_id;
        m.has_functions = !w->resource_unsymbolized[i];
        m.has_filenames = m.has_functions && w->resource_has_files[i];
        m.has_line_numbers = m.has_functions && w->resource_has_lines[i];
        m.has_inline_frames = m.has_functions && w->resource_has_inlines[i];
        emit_message(w, PROFILE_MAPPING, &m.base);
    }
}

static void write_locations(writer *w)
{
    const pk_profile *p = w->p;
    for (size_t u = 0; u < w->used_count && !w->failed; u++) {
        uint32_t l = w->used_locations[u];
        const pk_frame *base = location_base_frame(w, l);
        Perftools__Profiles__Location loc = PERFTOOLS__PROFILES__LOCATION__INIT;
        loc.id = w->location_id[l];
        uint32_t resource = frame_resource(p, base);
        loc.mapping_id = resource == PK_NONE ? 0 : mapping_id(w, resource);
        loc.address = (base->flags & PK_FRAME_HAS_ADDRESS) ? base->address : 0;
        size_t n = 0;
        if (!location_is_bare(w, l)) {
            for (uint32_t c = l; c != PK_NONE; c = w->location_outer[c]) {
                if (!PK_ARRAY_RESERVE(w->lines, w->lines_capacity, n + 1) ||
                    !PK_ARRAY_RESERVE(w->line_pointers, w->line_pointers_capacity, n + 1)) {
                    w->failed = true;
                    return;
                }
                const pk_frame *f = pk_frame_at(p, w->location_frame[c]);
                perftools__profiles__line__init(&w->lines[n]);
                w->lines[n].function_id = (uint64_t)f->function + 1;
                w->lines[n].line = f->line;
                n++;
            }
            for (size_t k = 0; k < n; k++)
                w->line_pointers[k] = &w->lines[k];
        }
        loc.n_line = n;
        loc.line = w->line_pointers;
        emit_message(w, PROFILE_LOCATION, &loc.base);
    }
}

static void write_functions(writer *w)
{
    const pk_profile *p = w->p;
    for (uint32_t i = 0; i < pk_function_count(p) && !w->failed; i++) {
        const pk_function *fn = pk_function_at(p, i);
        Perftools__Profiles__Function f = PERFTOOLS__PROFILES__FUNCTION__INIT;
        f.id = (uint64_t)i + 1;
        f.name = fn->name;
        f.system_name = fn->name;
        f.filename = fn->file;
        f.start_line = fn->start_line;
        emit_message(w, PROFILE_FUNCTION, &f.base);
    }
}

static bool property_is_field(const char *key)
{
    return strcmp(key, PROPERTY_DROP_FRAMES) == 0 || strcmp(key, PROPERTY_KEEP_FRAMES) == 0 ||
           strcmp(key, PROPERTY_DOC_URL) == 0 || strcmp(key, PROPERTY_DURATION) == 0;
}

static void add_comment(writer *w, int64_t **list, size_t *count, size_t *capacity,
                        int64_t string)
{
    if (!PK_ARRAY_RESERVE(*list, *capacity, *count + 1)) {
        w->failed = true;
        return;
    }
    (*list)[(*count)++] = string;
}

/* Comments: the product and every property as "key=value", the comment property line by
 * line. */
static void collect_comments(writer *w, int64_t **out, size_t *count)
{
    const pk_profile *p = w->p;
    int64_t *list = NULL;
    size_t n = 0, capacity = 0;
    /* pprof names the program after the first mapping; the comment only when that does not */
    uint32_t product = pk_metadata_get(p)->product;
    if (product && w->main_resource != PK_NONE &&
        pk_resource_at(p, w->main_resource)->name == product)
        product = 0;
    if (product)
        add_comment(w, &list, &n, &capacity, extra_pair(w, COMMENT_PRODUCT, pk_str(p, product)));
    /* The input file's name titles a profile without a product (core/title.h), which pprof
     * shows at the head of its reports; a profile read from pprof is written back with the
     * comments it had, so that go tool pprof reports it as before. */
    const pk_metadata *md = pk_metadata_get(p);
    bool file_titles = !(md->product && pk_str_len(p, md->product)) &&
                       strcmp(pk_str(p, md->source_format), "pprof") != 0;
    for (size_t i = 0; i < pk_property_count(p) && !w->failed; i++) {
        const char *key = pk_property_key(p, i);
        const char *value = pk_property_value(p, i);
        if (property_is_field(key) || (product && strcmp(key, COMMENT_PRODUCT) == 0) ||
            (!file_titles && strcmp(key, PK_SOURCE_FILE_PROPERTY) == 0))
            continue;
        if (strcmp(key, PROPERTY_COMMENT) != 0) {
            add_comment(w, &list, &n, &capacity, extra_pair(w, key, value));
            continue;
        }
        for (const char *line = value; *line && !w->failed;) {
            const char *nl = strchr(line, '\n');
            size_t len = nl ? (size_t)(nl - line) : strlen(line);
            add_comment(w, &list, &n, &capacity, extra_string(w, line, len));
            line += len + (nl ? 1 : 0);
        }
    }
    *out = list;
    *count = n;
}

static int64_t property_string(writer *w, const char *key)
{
    const char *value = pk_property_get(w->p, key);
    return value && *value ? extra_cstring(w, value) : 0;
}

static void writer_release(writer *w)
{
    for (size_t i = 0; i < w->extra_count; i++)
        free(w->extra_strings[i]);
    free(w->extra_strings);
    pk_buffer_free(&w->text);
    free(w->frame_location);
    free(w->frame_inlined);
    free(w->location_next_frame);
    free(w->location_next);
    pk_u64map_free(&w->inlined_locations);
    free(w->frames);
    free(w->location_outer);
    free(w->location_frame);
    free(w->location_id);
    free(w->used_locations);
    free(w->resource_unsymbolized);
    free(w->resource_has_files);
    free(w->resource_has_lines);
    free(w->resource_has_inlines);
    free(w->ids);
    free(w->sample_bytes);
    free(w->lines);
    free(w->line_pointers);
}

/* Everything after the functions: the string table, times, period, comments and the default
 * sample type. */
static void write_tail(writer *w, uint32_t chosen)
{
    const pk_profile *p = w->p;
    int64_t *comments = NULL;
    size_t comment_count = 0;
    collect_comments(w, &comments, &comment_count);
    int64_t drop = property_string(w, PROPERTY_DROP_FRAMES);
    int64_t keep = property_string(w, PROPERTY_KEEP_FRAMES);
    int64_t doc = property_string(w, PROPERTY_DOC_URL);

    size_t model_strings = pk_string_count(p);
    for (uint32_t i = 0; i < model_strings && !w->failed; i++)
        emit_bytes_field(w, PROFILE_STRING_TABLE, pk_str(p, i), pk_str_len(p, i));
    for (size_t i = 0; i < w->extra_count; i++)
        emit_bytes_field(w, PROFILE_STRING_TABLE, w->extra_strings[i],
                         strlen(w->extra_strings[i]));

    const pk_metadata *meta = pk_metadata_get(p);
    emit_scalar(w, PROFILE_DROP_FRAMES, (uint64_t)drop);
    emit_scalar(w, PROFILE_KEEP_FRAMES, (uint64_t)keep);
    if (meta->start_time != PK_TIME_UNKNOWN) {
        emit_scalar(w, PROFILE_TIME_NANOS, (uint64_t)meta->start_time);
        if (meta->end_time != PK_TIME_UNKNOWN && meta->end_time > meta->start_time)
            emit_scalar(w, PROFILE_DURATION_NANOS, (uint64_t)(meta->end_time - meta->start_time));
    } else {
        const char *duration = pk_property_get(p, PROPERTY_DURATION);
        if (duration)
            emit_scalar(w, PROFILE_DURATION_NANOS, (uint64_t)strtoll(duration, NULL, 10));
    }
    if (meta->period_type || meta->period_unit) {
        Perftools__Profiles__ValueType t = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
        t.type = meta->period_type;
        t.unit = meta->period_unit;
        emit_message(w, PROFILE_PERIOD_TYPE, &t.base);
    }
    emit_scalar(w, PROFILE_PERIOD, (uint64_t)meta->period);
    for (size_t i = 0; i < comment_count; i++)
        emit_scalar(w, PROFILE_COMMENT, (uint64_t)comments[i]);
    free(comments);
    if (chosen != PK_NONE)
        emit_scalar(w, PROFILE_DEFAULT_SAMPLE_TYPE, pk_value_type_at(p, chosen)->name);
    emit_scalar(w, PROFILE_DOC_URL, (uint64_t)doc);
}

pk_status pprof_write(const pk_profile *p, pk_output *out, const pk_write_options *options,
                      pk_error *err)
{
    size_t nv = pk_value_type_count(p);
    /* Without sample types the message is a bare string table, which nothing recognises as
     * a profile. */
    if (nv == 0)
        return pk_error_set(err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                            "the profile has no values to write as pprof sample types");
    uint32_t chosen = options ? options->value : PK_NONE;
    if (chosen != PK_NONE && chosen >= nv)
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET, "no value %" PRIu32 " to write",
                            chosen);
    if (chosen == PK_NONE && nv)
        chosen = pk_default_value(p);

    writer w;
    memset(&w, 0, sizeof w);
    w.p = p;
    w.out = out;
    w.text = (pk_buffer)PK_BUFFER_INIT;
    w.main_resource = choose_main_resource(p);
    if (build_locations(&w)) {
        for (uint32_t i = 0; i < nv; i++) {
            const pk_value_type *vt = pk_value_type_at(p, i);
            Perftools__Profiles__ValueType t = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
            t.type = vt->name;
            t.unit = vt->unit;
            emit_message(&w, PROFILE_SAMPLE_TYPE, &t.base);
        }
        /* The samples number the locations: what the mappings say of their locations comes
         * after. */
        write_samples(&w);
        if (!w.failed && !note_resources(&w))
            w.failed = true;
        write_mappings(&w);
        write_locations(&w);
        write_functions(&w);
        write_tail(&w, chosen);
    } else {
        w.failed = true;
    }
    bool failed = w.failed;
    writer_release(&w);
    if (failed)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory writing pprof");
    return PK_OK;
}
