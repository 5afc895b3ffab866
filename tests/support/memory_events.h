/* SPDX-License-Identifier: MIT */
/* A profile's memory events by index, for tests that check them one by one: each call reads
 * the events back from the start (the model offers them only in order, through a cursor). */
#ifndef PK_TEST_MEMORY_EVENTS_H
#define PK_TEST_MEMORY_EVENTS_H

#include <stddef.h>

#include "profkit/profile.h"

/* Event `index`, or an event with thread and stack PK_NONE past the end. Aborts when the
 * events cannot be read back. */
void tm_memory_event_at(const pk_profile *p, size_t index, pk_memory_event *out);

#endif
