/* Temporary files to remove when a signal ends the run. The table is fixed in size so that a
 * signal handler can walk it without allocating or locking. */
#ifndef PK_CORE_CLEANUP_H
#define PK_CORE_CLEANUP_H

/* Registers path for removal; returns its slot, or -1 when the table is full or the path too
 * long (the file is then left to the normal error paths). */
int pk_cleanup_add(const char *path);
/* Forgets a slot (the file was renamed or removed); -1 is allowed. */
void pk_cleanup_remove(int slot);

#endif
