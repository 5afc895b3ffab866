/* SPDX-License-Identifier: MIT */
/* The symbolization pass (profkit/symbolize.h): a copy of the profile (pk_profile_copy) whose
 * frame hook replaces every unresolved frame by the chain of frames the symbolizer finds at its
 * address, and whose resource hook gives a mapping without a build ID the build ID of the
 * binary read for it. */
#include <stdlib.h>
#include <string.h>

#include "core/path.h"
#include "core/profile_internal.h"
#include "core/symbolize.h"
#include "profkit/copy.h"

typedef struct symbolize_pass {
    pk_symbolizer *symbolizer;
    uint32_t *resources; /* source resource -> destination resource, PK_NONE until looked up */
    bool *unresolved_in; /* source resource -> some unresolved frame lies in it */
    uint32_t *build_ids; /* source resource -> build ID (a destination string) the binary read
                          * for it gave, PK_NONE when the resource is copied as it is */
    bool perf_names;      /* name what nothing names as perf script does (PK_UNNAMED_ADDRESSES) */
    uint32_t perf_named;  /* the frame so named, returned to the copy */
} symbolize_pass;

/* A resource whose addresses will be looked up and that names no build ID gets the one of the
 * binary the symbolizer reads for it: the mapping then says which binary named its code. */
static bool complete_resource(void *context, const pk_profile *src, uint32_t index,
                              pk_profile *dst, pk_resource *resource)
{
    symbolize_pass *pass = context;
    (void)src;
    if (!pass->unresolved_in[index] || pk_str_len(dst, resource->build_id))
        return true;
    const char *build_id = pk_symbolizer_build_id(pass->symbolizer, resource);
    if (!build_id)
        return true;
    uint32_t id = pk_intern_cstr(dst, build_id);
    if (id == PK_NONE)
        return false;
    resource->build_id = pass->build_ids[index] = id;
    return true;
}

/* The destination's resource equal to src's resource id: the copy has interned every resource
 * (completed by complete_resource) before the first frame, so interning it again finds it. */
static uint32_t destination_resource(symbolize_pass *pass, const pk_profile *src, uint32_t id,
                                     pk_profile *dst)
{
    if (id >= pk_resource_count(src))
        return PK_NONE;
    if (pass->resources[id] == PK_NONE) {
        pk_resource r = *pk_resource_at(src, id);
        r.name = pk_intern_cstr(dst, pk_str(src, r.name));
        r.path = pk_intern_cstr(dst, pk_str(src, r.path));
        r.build_id = pass->build_ids[id] != PK_NONE ? pass->build_ids[id]
                                                    : pk_intern_cstr(dst, pk_str(src, r.build_id));
        if (r.name != PK_NONE && r.path != PK_NONE && r.build_id != PK_NONE)
            pass->resources[id] = pk_intern_resource(dst, &r);
    }
    return pass->resources[id];
}

/* The frame perf script shows as `[unknown] (DSO)`, named as the perf script reader names it:
 * `[DSO base name]`, or `[unknown]` outside every mapping. */
static size_t perf_name(symbolize_pass *pass, pk_profile *dst, uint32_t resource,
                        uint64_t address, const uint32_t **frames)
{
    uint32_t name;
    if (resource == PK_NONE) {
        name = pk_intern_cstr(dst, "[unknown]");
    } else {
        const pk_resource *r = pk_resource_at(dst, resource);
        const char *path = pk_str(dst, r->path);
        name = pk_intern_printf(dst, "[%s]", pk_path_basename(*path ? path : pk_str(dst, r->name)));
    }
    pk_function fn = {.name = name, .resource = resource};
    uint32_t function = name == PK_NONE ? PK_NONE : pk_intern_function(dst, &fn);
    pk_frame named = {function, 0, address, resource, PK_FRAME_HAS_ADDRESS};
    pass->perf_named = function == PK_NONE ? PK_NONE : pk_intern_frame(dst, &named);
    if (pass->perf_named == PK_NONE)
        return SIZE_MAX;
    *frames = &pass->perf_named;
    return 1;
}

static size_t name_unresolved_frame(void *context, const pk_profile *src, uint32_t frame,
                                    pk_profile *dst, const uint32_t **frames)
{
    symbolize_pass *pass = context;
    if (!pk_frame_is_unresolved(src, frame))
        return 0;
    const pk_frame *f = pk_frame_at(src, frame);
    uint32_t resource = PK_NONE;
    if (f->resource != PK_NONE) {
        resource = destination_resource(pass, src, f->resource, dst);
        if (resource == PK_NONE && f->resource < pk_resource_count(src))
            return SIZE_MAX;
    }
    size_t n = pk_symbolizer_frames(pass->symbolizer, resource, f->address, frames);
    if (n == 0)
        return SIZE_MAX;
    /* Nothing found for it: a frame already named by an address keeps that name. The name may
     * be the address in the process where the frame's own address is relative to its library
     * (a format whose libraries have no start keeps only that), and a profile written and read
     * back must name its frames as before. */
    if (n == 1 && pk_frame_is_unresolved(dst, (*frames)[0])) {
        if (pass->perf_names)
            return perf_name(pass, dst, resource, f->address, frames);
        const char *name = pk_frame_name(src, frame);
        if (name && *name)
            return 0;
    }
    return n;
}

/* The pass; when releasing is p, p's memory is given back as the copy goes. */
static pk_status symbolize(const pk_profile *p, pk_profile *releasing,
                           const pk_symbolize_options *options, pk_profile **out, pk_error *err)
{
    *out = NULL;
    pk_profile *dst = pk_profile_new();
    size_t resources = pk_resource_count(p);
    symbolize_pass pass = {
        .symbolizer = dst ? pk_symbolizer_new(dst, options) : NULL,
        .resources = malloc((resources ? resources : 1) * sizeof *pass.resources),
        .unresolved_in = calloc(resources ? resources : 1, sizeof *pass.unresolved_in),
        .build_ids = malloc((resources ? resources : 1) * sizeof *pass.build_ids),
    };
    pk_status status;
    if (!dst || !pass.symbolizer || !pass.resources || !pass.unresolved_in || !pass.build_ids) {
        status = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    } else {
        memset(pass.resources, 0xff, (resources ? resources : 1) * sizeof *pass.resources);
        memset(pass.build_ids, 0xff, (resources ? resources : 1) * sizeof *pass.build_ids);
        for (uint32_t f = 0; f < pk_frame_count(p); f++) {
            uint32_t r = pk_frame_at(p, f)->resource;
            if (r < resources && pk_frame_is_unresolved(p, f))
                pass.unresolved_in[r] = true;
        }
        const char *unnamed = pk_property_get(p, PK_UNNAMED_ADDRESSES);
        pass.perf_names = unnamed && strcmp(unnamed, "perf") == 0;
        pk_copy_options copy = {.map_frame = name_unresolved_frame, .map_context = &pass,
                                .map_resource = complete_resource};
        status = releasing ? pk_profile_copy_releasing(dst, releasing, &copy, err)
                           : pk_profile_copy(dst, p, &copy, err);
    }
    /* Adds a warning per binary that could not be used. */
    pk_symbolizer_free(pass.symbolizer);
    free(pass.resources);
    free(pass.unresolved_in);
    free(pass.build_ids);
    if (status != PK_OK) {
        pk_profile_free(dst);
        return status;
    }
    *out = dst;
    return PK_OK;
}

pk_status pk_symbolize(const pk_profile *p, const pk_symbolize_options *options,
                       pk_profile **out, pk_error *err)
{
    return symbolize(p, NULL, options, out, err);
}

pk_status pk_symbolize_consume(pk_profile *p, const pk_symbolize_options *options,
                               pk_profile **out, pk_error *err)
{
    pk_status status = symbolize(p, p, options, out, err);
    pk_profile_free(p);
    return status;
}
