/* SPDX-License-Identifier: MIT */
/* Display names of threads: the name a person sees for each thread in every output (viewers,
 * reports, `profkit info`), distinct for every thread of a profile, while the model keeps each
 * thread's original name.
 *
 * A thread whose name no other thread has is shown by its name. Threads sharing a name (six
 * instances of one .bsprof component, say) are told apart by what differs between them: their
 * thread id, named as the format names it ("RowListItem (module 5)", "worker (tid 4312)"), else
 * their process and thread ids, else their order among the threads of that name
 * ("worker #2"). A thread without a name is "Thread " and its thread id (or its position, from
 * 1, when the id is unknown).
 *
 * Ownership: a pk_thread_names belongs to the caller (pk_thread_names_free) and holds its own
 * copies of the names: the strings it returns stay valid until it is freed, even after the
 * profile is.
 */
#ifndef PROFKIT_THREAD_NAMES_H
#define PROFKIT_THREAD_NAMES_H

#include <stdint.h>

#include "profkit/export.h"
#include "profkit/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pk_thread_names pk_thread_names;

/* The display names of every thread of p, decided together. NULL when memory runs out. */
PK_API pk_thread_names *pk_thread_names_new(const pk_profile *p);
/* NULL is allowed. */
PK_API void pk_thread_names_free(pk_thread_names *names);
/* The display name of thread `thread`; "" for an index the profile did not have. */
PK_API const char *pk_thread_display_name(const pk_thread_names *names, uint32_t thread);

#ifdef __cplusplus
}
#endif

#endif
