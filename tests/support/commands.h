/* SPDX-License-Identifier: MIT */
/* Whether an external command is there, for the tests that compare profkit with other tools:
 * they skip (exit 77) when it is not. */
#ifndef PK_TEST_COMMANDS_H
#define PK_TEST_COMMANDS_H

#include <stdbool.h>

/* True when name (without a slash) is an executable file in a directory of PATH, or, with a
 * slash, is an executable file itself. */
bool tb_command_exists(const char *name);

#endif
