/* SPDX-License-Identifier: MIT */
#include "memory_events.h"

#include <stdio.h>
#include <stdlib.h>

void tm_memory_event_at(const pk_profile *p, size_t index, pk_memory_event *out)
{
    *out = (pk_memory_event){.thread = PK_NONE, .stack = PK_NONE, .owner = PK_NONE};
    pk_memory_cursor *c;
    if (pk_memory_events_open(p, &c) != PK_OK) {
        fprintf(stderr, "cannot read the memory events back\n");
        abort();
    }
    pk_memory_event e;
    for (size_t i = 0; pk_memory_events_next(c, &e); i++) {
        if (i == index) {
            *out = e;
            break;
        }
    }
    if (pk_memory_events_close(c) != PK_OK) {
        fprintf(stderr, "reading the memory events back failed\n");
        abort();
    }
}
