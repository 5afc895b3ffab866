/* SPDX-License-Identifier: MIT */
/* The ART method trace format's probe, reader entry and registration (art.h). */
#include <string.h>

#include "formats/art/art.h"
#include "formats/formats.h"

static const char *const art_aliases[] = {"art", "dmtrace", "android-trace", NULL};
static const char *const art_extensions[] = {".trace", NULL};

/* The text header's first line, or the streaming form's binary header: SLOW, then a version
 * with its 0xF0 bits set (versions 2 and 3 are written). */
static int art_probe(const uint8_t *data, size_t size)
{
    static const char first[] = "*version\n";
    if (size >= sizeof first - 1 && !memcmp(data, first, sizeof first - 1))
        return PK_PROBE_CERTAIN;
    if (size >= 6 && !memcmp(data, "SLOW", 4) && data[5] == 0 && data[4] >= 0xf0)
        return data[4] == 0xf2 || data[4] == 0xf3 ? PK_PROBE_CERTAIN : PK_PROBE_LIKELY;
    return PK_PROBE_NO;
}

pk_status art_read(pk_input *in, pk_profile *p, const pk_read_options *options, pk_error *err)
{
    (void)options;
    const uint8_t *head;
    bool streaming = pk_in_peek(in, 4, &head) == 4 && !memcmp(head, "SLOW", 4);
    art_header h;
    art_header_init(&h, p);
    pk_status status;
    if (streaming) {
        status = art_streaming_read(&h, in, err);
    } else {
        status = art_header_read(&h, in, err);
        if (status == PK_OK)
            status = art_records_read(&h, in, err);
    }
    art_header_free(&h);
    return status;
}

const pk_format pk_format_art = {
    .name = "art-trace",
    .aliases = art_aliases,
    .extensions = art_extensions,
    .description = "Android ART method trace (Debug.startMethodTracing, Android Studio's "
                   "Java/Kotlin method trace, dmtracedump)",
    .flags = 0,
    .probe = art_probe,
    .read = art_read,
};
