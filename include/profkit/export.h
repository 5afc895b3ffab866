/* SPDX-License-Identifier: MIT */
/* PK_API marks what libprofkit exports: the library is built with every other symbol hidden,
 * so the shared library's interface is exactly what the installed headers declare. */
#ifndef PROFKIT_EXPORT_H
#define PROFKIT_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define PK_API __attribute__((visibility("default")))
#else
#define PK_API
#endif

#endif
