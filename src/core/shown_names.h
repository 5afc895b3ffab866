/* SPDX-License-Identifier: MIT */
/* Threads renamed to their display names (profkit/thread_names.h), for the readers of formats
 * whose writers write display names: what such a file holds reads back under the same names,
 * and writing it again gives the same file. */
#ifndef PK_CORE_SHOWN_NAMES_H
#define PK_CORE_SHOWN_NAMES_H

#include <stdbool.h>

#include "profkit/profile.h"

/* Renames every thread whose display name is not its name. False when memory runs out. */
bool pk_rename_threads_as_shown(pk_profile *p);

#endif
