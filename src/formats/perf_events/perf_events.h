/* SPDX-License-Identifier: MIT */
/* What perf's two outputs (perf script text, perf.data) share about events: an event's
 * values, named by the event without its modifiers, and the first event as the profile's
 * default value and period. */
#ifndef PK_FORMATS_PERF_EVENTS_H
#define PK_FORMATS_PERF_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profkit/profile.h"

/* Room for an event's value name (at most 200 bytes of the event's name) and its NUL. */
#define PERF_VALUE_NAME_SIZE 256

/* The event's name without modifiers: `cycles:u` -> `cycles`, `cpu-clock:ppp` -> `cpu-clock`;
 * a tracepoint `sched:sched_switch` keeps its colon (its last part is no modifier list). */
size_t perf_event_base_len(const char *e, size_t n);

/* Whether the n bytes at name are a clock event's, counted in nanoseconds. */
bool perf_event_is_clock(const char *name, size_t n);

/* Names the value of event e (n bytes) in value_name: the bare event, unless another event of
 * that name (other modifiers) took it, then the whole event; either cut to 200 bytes. Returns
 * the length of the bare event. */
size_t perf_event_value_name(const pk_profile *p, const char *e, size_t n,
                             char value_name[PERF_VALUE_NAME_SIZE]);

/* Declares an event's values: its periods as value_name (in nanoseconds when clock, else
 * events) and its samples as `value_name-samples`; the first event's periods become the
 * default value and the run's period type. False when memory runs out. */
bool perf_event_declare_values(pk_profile *p, const char *value_name, bool clock, bool first,
                               uint32_t *period, uint32_t *count);

#endif
