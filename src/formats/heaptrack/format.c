/* SPDX-License-Identifier: MIT */
/* heaptrack's recordings in the format table (heaptrack.h; docs/formats/heaptrack.md). */
#include "formats/formats.h"
#include "formats/heaptrack/heaptrack.h"

const pk_format pk_format_heaptrack = {
    .name = "heaptrack",
    .aliases = NULL,
    .extensions = NULL,
    .description = "heaptrack's recording (heaptrack.NAME.PID.zst or .gz; heaptrack_print, "
                   "heaptrack_gui)",
    .flags = PK_FORMAT_TEXT,
    .probe = ht_probe,
    .read = ht_read,
};
