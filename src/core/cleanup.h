/* SPDX-License-Identifier: MIT */
/* Temporary files to remove when a signal ends the run. The table is fixed in size so that a
 * signal handler can walk it without allocating or locking. */
#ifndef PK_CORE_CLEANUP_H
#define PK_CORE_CLEANUP_H

/* Registers path for removal; returns its slot, or -1 when the table is full or the path too
 * long (the file is then left to the normal error paths). */
int pk_cleanup_add(const char *path);
/* Forgets a slot (the file was renamed or removed); -1 is allowed. */
void pk_cleanup_remove(int slot);
/* Creates a temporary file from template (mkstemp) and registers its name (*slot, -1 when it
 * could not be), with the signals that remove files held off in between: one that comes then is
 * handled once the file is registered, instead of ending the run with the file left behind.
 * Returns the descriptor, or -1 with errno set. */
int pk_cleanup_mkstemp(char *template, int *slot);

#endif
