/* SPDX-License-Identifier: MIT */
/* What a line of BrightScript calls the anonymous function defined on it, and which lines of a
 * component's .xml file are script (profkit/source_names.h). */
#ifndef PK_ANALYSIS_BRS_NAMES_H
#define PK_ANALYSIS_BRS_NAMES_H

#include <stdbool.h>
#include <stddef.h>

/* Longest name taken from a line; a longer one is not taken. */
#define PK_BRS_NAME_MAX 256

/* The name the line [line, line + len) gives the one anonymous function it defines:
 * `target = function(` or `= sub(` at the start of a statement, target a variable or a member
 * chain (`m.top.name`: its last member), or `key: function(` with key a name or a "string"
 * after the start of the line, '{' or ','. Keywords in any case, spaces and tabs anywhere
 * between the words; a comment (') ends the line. Copies the name, NUL-terminated, to name
 * (PK_BRS_NAME_MAX bytes) and returns true; false when the line defines no anonymous function,
 * or more than one, or not in one of these ways. */
bool pk_brs_anonymous_name(const char *line, size_t len, char *name);

/* Blanks everything of an .xml file's text that is not the content of a <script> element (tags,
 * comments, CDATA markers, other elements): each such byte becomes a space, line ends stay, so
 * that lines keep their numbers and only script remains on them. */
void pk_brs_keep_xml_scripts(char *text, size_t len);

#endif
