/* SPDX-License-Identifier: MIT */
/* Whether a second thread can run beside the caller. */
#ifndef PK_CORE_PROCESSORS_H
#define PK_CORE_PROCESSORS_H

#include <stdbool.h>

/* True when the process may run on more than one processor (its affinity mask): with a single
 * one, a worker thread would only add switches between the two threads. */
bool pk_several_processors(void);

#endif
