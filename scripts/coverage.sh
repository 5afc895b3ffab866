#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Line and branch coverage of the whole test suite, per directory and per file.
# Builds with gcc --coverage at -O0 in a separate directory, runs every test (the interop tests
# skip when their tools are missing), then prints gcovr's summaries:
#   scripts/coverage.sh [BUILD_DIR]    (default: build-coverage)
# The per-file report is left in BUILD_DIR/coverage.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
dir=${1:-build-coverage}
jobs=$(nproc 2>/dev/null || echo 2)
if ! command -v gcovr >/dev/null 2>&1; then
  echo "coverage: gcovr is missing (scripts/setup.sh installs it)" >&2
  exit 1
fi

cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=gcc -DPROFKIT_TESTS=ON \
      -DCMAKE_C_FLAGS="--coverage -O0" -DCMAKE_EXE_LINKER_FLAGS=--coverage \
      -DCMAKE_SHARED_LINKER_FLAGS=--coverage >/dev/null
cmake --build "$dir" -j"$jobs" >/dev/null
# Counts from an earlier run would add up with this one. CMake's compiler check is no source of
# ours (and gcov cannot find its source).
find "$dir" -name '*.gcda' -delete
find "$dir"/CMakeFiles -path '*/CompilerId*' -name '*.gcno' -delete
# A failing test still counts what it ran; the figures are printed, and the exit status says.
status=0
ctest --test-dir "$dir" -j"$jobs" --output-on-failure >"$dir/ctest.log" 2>&1 || status=$?
tail -3 "$dir/ctest.log" >&2

# Generated sources (protobuf-c) and the tests themselves are not measured.
common=(--root "$root" --object-directory "$dir" --exclude "$dir/" --exclude 'tests/'
        --exclude 'bench/' --exclude 'fuzz/' --exclude-unreachable-branches
        --exclude-throw-branches)
gcovr "${common[@]}" --txt "$dir/coverage.txt"
gcovr "${common[@]}" --branches --txt "$dir/coverage-branches.txt"

# Per directory: the sums of the per-file rows (covered and total lines, then branches).
summarize() {
  awk -v kind="$1" '
    /^src\// && NF >= 4 {
      n = split($1, part, "/")
      d = part[1] "/" part[2]
      if (part[2] == "formats" && n > 3) d = d "/" part[3]
      total[d] += $2; covered[d] += $3; all += $2; hit += $3
    }
    END {
      for (d in total) printf "%-26s %7d %7d %6.1f%%\n", d, covered[d], total[d],
                              total[d] ? 100 * covered[d] / total[d] : 100
      printf "%-26s %7d %7d %6.1f%%\n", "(all)", hit, all, all ? 100 * hit / all : 100
    }' "$2" | sort
}
printf '%-26s %7s %7s %7s\n' "lines" covered total share
summarize lines "$dir/coverage.txt"
echo
printf '%-26s %7s %7s %7s\n' "branches" covered total share
summarize branches "$dir/coverage-branches.txt"
exit "$status"
