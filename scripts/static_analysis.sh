#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Static analysis of the whole tree; any report fails the script.
#   scan-build  clang's static analyzer with its default checkers, over a fresh build of the
#               library and the command (--status-bugs: exit 1 on a bug).
#   cppcheck    over every C file CMake compiles (library, command, tests, benchmarks), with the
#               include paths and definitions of the real build (compile_commands.json).
# Where the analyzers cannot see an invariant, the code states it (an assertion or a
# restructuring); there are no suppressions.
#   scripts/static_analysis.sh [BUILD_DIR]    (default: build-analysis)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
dir=${1:-build-analysis}
jobs=$(nproc 2>/dev/null || echo 2)
for tool in scan-build cppcheck python3; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "static_analysis: $tool is missing (scripts/setup.sh installs it)" >&2
    exit 1
  fi
done
rm -rf "$dir"
mkdir -p "$dir"
failed=0

echo "== scan-build (clang static analyzer, default checkers)" >&2
# The tests are left to cppcheck: their cmocka assertions stop a test by a call the analyzer
# cannot see as ending it, so every pointer checked by assert_non_null would be reported.
scan-build cmake -S . -B "$dir/scan" -DCMAKE_BUILD_TYPE=Debug -DPROFKIT_TESTS=OFF \
  >/dev/null
if ! scan-build --status-bugs -o "$dir/scan-reports" cmake --build "$dir/scan" -j"$jobs" \
     >"$dir/scan-build.log" 2>&1; then
  grep -E 'warning:|error:|bugs? found' "$dir/scan-build.log" >&2 ||
    tail -20 "$dir/scan-build.log" >&2
  echo "static_analysis: scan-build reported the above (HTML in $dir/scan-reports)" >&2
  failed=1
fi

echo "== cppcheck" >&2
# Configure only: the compile commands name the real flags of every file. Generated sources
# (protobuf-c) are not ours and are left out.
cmake -S . -B "$dir/cppcheck" -DCMAKE_BUILD_TYPE=Debug -DPROFKIT_TESTS=ON \
      -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
python3 - "$dir/cppcheck" "$root" <<'EOF'
import json, os, sys
build, root = (os.path.realpath(a) for a in sys.argv[1:3])
entries = json.load(open(os.path.join(build, "compile_commands.json")))
ours = [e for e in entries if os.path.realpath(e["file"]).startswith(root + os.sep)
        and not os.path.realpath(e["file"]).startswith(build + os.sep)]
json.dump(ours, open(os.path.join(build, "cppcheck_commands.json"), "w"))
EOF
# warning, performance, portability: real defects and undefined or implementation-defined
# behaviour. style is left off: it is matters of taste (scope of variables, const).
# missingIncludeSystem: cppcheck reads system headers only when told to; it does not need them.
if ! cppcheck --project="$dir/cppcheck/cppcheck_commands.json" --std=c11 \
     --enable=warning,performance,portability --suppress=missingIncludeSystem \
     --error-exitcode=1 --quiet -j"$jobs" --cppcheck-build-dir="$dir/cppcheck" \
     2>"$dir/cppcheck.log"; then
  cat "$dir/cppcheck.log" >&2
  echo "static_analysis: cppcheck reported the above" >&2
  failed=1
elif [ -s "$dir/cppcheck.log" ]; then
  cat "$dir/cppcheck.log" >&2
  failed=1
fi

if [ "$failed" -ne 0 ]; then
  exit 1
fi
echo "static_analysis: no reports" >&2
