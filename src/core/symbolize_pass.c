/* The symbolization pass (profkit/symbolize.h): a copy of the profile (pk_profile_copy) whose
 * frame hook replaces every unresolved frame by the chain of frames the symbolizer finds at its
 * address. */
#include <stdlib.h>
#include <string.h>

#include "core/symbolize.h"
#include "profkit/merge.h"

typedef struct symbolize_pass {
    pk_symbolizer *symbolizer;
    uint32_t *resources; /* source resource -> destination resource, PK_NONE until looked up */
} symbolize_pass;

/* The destination's resource equal to src's resource id: the copy has interned every resource
 * before the first frame, so interning it again finds it. */
static uint32_t destination_resource(symbolize_pass *pass, const pk_profile *src, uint32_t id,
                                     pk_profile *dst)
{
    if (id >= pk_resource_count(src))
        return PK_NONE;
    if (pass->resources[id] == PK_NONE) {
        pk_resource r = *pk_resource_at(src, id);
        r.name = pk_intern_cstr(dst, pk_str(src, r.name));
        r.path = pk_intern_cstr(dst, pk_str(src, r.path));
        r.build_id = pk_intern_cstr(dst, pk_str(src, r.build_id));
        if (r.name != PK_NONE && r.path != PK_NONE && r.build_id != PK_NONE)
            pass->resources[id] = pk_intern_resource(dst, &r);
    }
    return pass->resources[id];
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
    return n == 0 ? SIZE_MAX : n;
}

pk_status pk_symbolize(const pk_profile *p, const pk_symbolize_options *options,
                       pk_profile **out, pk_error *err)
{
    *out = NULL;
    pk_profile *dst = pk_profile_new();
    size_t resources = pk_resource_count(p);
    symbolize_pass pass = {
        .symbolizer = dst ? pk_symbolizer_new(dst, options) : NULL,
        .resources = malloc((resources ? resources : 1) * sizeof *pass.resources),
    };
    pk_status status;
    if (!dst || !pass.symbolizer || !pass.resources) {
        status = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    } else {
        memset(pass.resources, 0xff, (resources ? resources : 1) * sizeof *pass.resources);
        pk_copy_options copy = {.map_frame = name_unresolved_frame, .map_context = &pass};
        status = pk_profile_copy(dst, p, &copy, err);
    }
    /* Adds a warning per binary that could not be used. */
    pk_symbolizer_free(pass.symbolizer);
    free(pass.resources);
    if (status != PK_OK) {
        pk_profile_free(dst);
        return status;
    }
    *out = dst;
    return PK_OK;
}
