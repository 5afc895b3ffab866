#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Sets up (Debian packages, npm tools), builds, and runs every test twice: once in a Release
# build with gcc, once with clang under AddressSanitizer and UndefinedBehaviorSanitizer.
# Warnings are errors in both builds.
#   scripts/test.sh            everything
#   scripts/test.sh --quick    the gcc build only
# Tests labelled `interop` compare profkit with other tools; they skip (exit 77) when a tool is
# missing, which set-up prevents. `ctest -L unit` runs the rest.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
started=$SECONDS

scripts/setup.sh

echo "== build (gcc, Release) and test" >&2
cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=gcc \
      -DPROFKIT_TESTS=ON -DPROFKIT_WERROR=ON >/dev/null
cmake --build build-release -j"$jobs"
ctest --test-dir build-release --output-on-failure -j"$jobs"

if [ "${1:-}" != "--quick" ]; then
  echo "== build (clang, AddressSanitizer + UndefinedBehaviorSanitizer) and test" >&2
  cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=clang \
        -DPROFKIT_TESTS=ON -DPROFKIT_WERROR=ON -DPROFKIT_SANITIZE=ON >/dev/null
  cmake --build build-sanitize -j"$jobs"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-sanitize --output-on-failure -j"$jobs"
fi

elapsed=$((SECONDS - started))
printf 'test.sh: all tests passed in %dm%02ds\n' $((elapsed / 60)) $((elapsed % 60)) >&2
