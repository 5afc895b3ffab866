#include "reading.h"

#include <string.h>

pk_profile *tb_read_file_with(const char *path, const pk_format *format, const pk_option *options,
                              size_t count, pk_status *status, pk_error *err)
{
    pk_read_options o = {0};
    o.extra.items = options;
    o.extra.count = count;
    pk_profile *p = NULL;
    *status = pk_read_file(path, format, &o, &p, err);
    if (*status != PK_OK) {
        pk_profile_free(p);
        return NULL;
    }
    return p;
}

bool tb_has_warning(const pk_profile *p, const char *needle)
{
    for (size_t i = 0; i < pk_warning_count(p); i++)
        if (strstr(pk_warning_at(p, i), needle))
            return true;
    return false;
}
