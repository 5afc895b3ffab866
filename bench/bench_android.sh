#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Android readers' speed and memory: a simpleperf report and ART method traces (the form
# with a text header and the streaming form), made by bench/gen_android.py, each converted by
# profkit to folded stacks and to the Firefox Profiler (`convert --to FORMAT -o /dev/null`, the
# whole read plus a writer), side by side in one run: wall and CPU time, throughput (MB per CPU
# second, steadier than wall time on a loaded machine) and peak memory (/usr/bin/time's maximum
# resident set size).
#
#   bench/bench_android.sh [BUILD_DIR] [DATA_DIR]    (defaults: build, BUILD_DIR/bench-data)
#
# MB (default 200) sets each input's size. Each file is read once before it is measured, so
# that it comes from the page cache; the fastest of RUNS (default 3) runs is shown.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
data=${2:-$build/bench-data}
mb=${MB:-200}
runs=${RUNS:-3}
. bench/measure.sh
mkdir -p "$data"
profkit=$build/profkit

inputs=("simpleperf-${mb}MB.simpleperf" "art-${mb}MB.trace" "art-stream-${mb}MB.trace")
[ -s "$data/${inputs[0]}" ] || python3 bench/gen_android.py simpleperf "$data/${inputs[0]}" "$mb"
[ -s "$data/${inputs[1]}" ] || python3 bench/gen_android.py art "$data/${inputs[1]}" "$mb"
[ -s "$data/${inputs[2]}" ] || python3 bench/gen_android.py art "$data/${inputs[2]}" "$mb" stream

printf '| input | MB | output | wall s | CPU s | MB/s (CPU) | peak MB |\n|---|---|---|---|---|---|---|\n'
for input in "${inputs[@]}"; do
  file=$data/$input
  cat "$file" >/dev/null
  size=$(stat -c %s "$file")
  for to in folded firefox; do
    result=$(mktemp)
    bench_measure "$result" "$runs" "$profkit" convert "$file" --to "$to" -o /dev/null --quiet
    read -r wall cpu peak status <"$result"
    rm -f "$result"
    [ "$status" = 0 ] || wall="failed ($status)"
    awk -v n="$input" -v s="$size" -v t="$to" -v w="$wall" -v c="$cpu" -v p="$peak" 'BEGIN {
      printf "| %s | %.0f | %s | %s | %s | %.0f | %s |\n", n, s / 1e6, t, w, c, (c > 0 ? s / 1e6 / c : 0), p }'
  done
done
