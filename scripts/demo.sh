#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Sets up, builds, and converts the bundled example Roku profile into the formats people open:
# a Firefox Profiler file, folded stacks, and more where profkit writes them.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)

scripts/setup.sh --build-only
# The tests need libraries of their own (cmocka, ...) that the build-only set-up leaves out.
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPROFKIT_TESTS=OFF >/dev/null
cmake --build build -j"$jobs" >/dev/null

example=examples/roku-channel.bsprof
out=demo-output
mkdir -p "$out"
profkit=build/profkit

"$profkit" info "$example"
echo
"$profkit" convert "$example" -o "$out/roku-channel.json"
"$profkit" convert "$example" -o "$out/roku-channel.folded"
written=("$out/roku-channel.json" "$out/roku-channel.folded")
# Further outputs, where this build has the format.
for target in svg:roku-channel.svg pprof:roku-channel.pb.gz speedscope:roku-channel.speedscope.json; do
  format=${target%%:*}
  file=${target#*:}
  if "$profkit" formats | awk '{print $1}' | grep -qx "$format"; then
    "$profkit" convert "$example" -o "$out/$file"
    written+=("$out/$file")
  fi
done

echo "Converted $example:"
for f in "${written[@]}"; do
  printf '  %s\n' "$(realpath "$f")"
done
echo "Open the .json file at https://profiler.firefox.com (Load a profile from file)."
