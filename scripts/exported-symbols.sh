#!/bin/sh
# SPDX-License-Identifier: MIT
# Prints the functions and data a shared library exports (its defined dynamic symbols), sorted,
# one per line. Sanitizer and coverage builds add instrumentation symbols of their own
# (reserved names), which are not part of the interface and are left out.
# Run as: scripts/exported-symbols.sh LIBRARY.so
set -eu
nm -D --defined-only "$1" | awk '{ print $NF }' |
    grep -Ev '^(__asan_|__odr_asan|__ubsan_|__sancov_|__sanitizer_|___asan_)' |
    LC_ALL=C sort -u
