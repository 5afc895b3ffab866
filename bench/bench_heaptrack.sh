#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# heaptrack recordings to leak reports: profkit against heaptrack_print and against zstd alone
# (the floor: reading the file at all), on recordings made by bench/gen_heaptrack (the text
# heaptrack_interpret writes, zstd-compressed as heaptrack compresses it), side by side in one
# run. Prints one markdown row per file and command: wall time, CPU time (user + system),
# decompressed MB per second of each, and peak memory; then the machine's load.
#
#   bench/bench_heaptrack.sh [BUILD_DIR] [DATA_DIR]   (defaults: build, BUILD_DIR/bench-data)
#
# EVENTS (default "5000000 20000000") are the allocation events (allocations and frees) of the
# recordings: the same 20,000 stacks and at most 100,000 live blocks whatever the events, so
# that profkit's peak memory should stay flat as they grow. RUNS (default 3) keeps the fastest
# of so many runs (by CPU time: the machine may be shared). Before measuring, profkit's totals
# are checked against heaptrack_print's (calls, temporary allocations, peak, leaked). Needs zstd
# and heaptrack_print (Debian packages zstd and heaptrack).
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
data=${2:-$build/bench-data}/heaptrack
runs=${RUNS:-3}
events_list=${EVENTS:-5000000 20000000}
profkit=${PROFKIT:-$build/profkit}
export BENCH_FASTEST_BY=cpu
. bench/measure.sh
mkdir -p "$data"
for tool in zstd heaptrack_print; do
  command -v "$tool" >/dev/null || { echo "bench_heaptrack: $tool is not installed" >&2; exit 1; }
done

if [ ! -x "$build/bench/gen_heaptrack" ] || [ ! -x "$profkit" ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DPROFKIT_BENCH=ON >/dev/null
  cmake --build "$build" -j2 --target profkit_cli gen_heaptrack >/dev/null
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "| events | command | wall s | cpu s | MB/s (wall) | MB/s (cpu) | peak MiB |"
echo "|---:|---|---:|---:|---:|---:|---:|"
for events in $events_list; do
  input=$data/heaptrack.bench.$events.zst
  [ -s "$input" ] || "$build/bench/gen_heaptrack" --events "$events" 2>"$input.txt" |
    zstd -q -c >"$input"
  mb=$(zstd -dc "$input" | wc -c | awk '{print $1 / 1e6}')
  # the same totals as heaptrack_print, or the speed means nothing
  ours=$("$profkit" info "$input" | awk '
    $1 == "heaptrack.calls" {c = $2} $1 == "heaptrack.temporary" {t = $2}
    $1 == "heaptrack.peak_heap_B" {p = $2} $1 == "heaptrack.leaked_B" {l = $2}
    END {print c, t, p, l}')
  theirs=$(heaptrack_print -p 0 -a 0 -T 0 "$input" | awk -F': ' '
    /^calls to allocation functions/ {split($2, x, " "); c = x[1]}
    /^temporary memory allocations/ {split($2, x, " "); t = x[1]}
    END {print c, t}')
  if [ "${ours% * *}" != "$theirs" ]; then
    echo "bench_heaptrack: profkit's totals ($ours) are not heaptrack_print's ($theirs)" >&2
    exit 1
  fi
  commands=(
    "zstd -dc $input"
    "heaptrack_print $input"
    "$profkit report --memory $input"
    "$profkit convert $input --to pprof -o -"
    "$profkit info $input"
  )
  for c in "${commands[@]}"; do
    # shellcheck disable=SC2086
    bench_measure "$out/m" "$runs" $c
    read -r wall cpu peak status <"$out/m"
    shown=${c//$input/FILE}
    shown=${shown//$profkit/profkit}
    [ "$status" = 0 ] || shown="$shown (exit $status)"
    awk -v e="$events" -v s="$shown" -v w="$wall" -v c="$cpu" -v m="$mb" -v p="$peak" 'BEGIN {
      printf "| %d | `%s` | %.2f | %.2f | %.0f | %.0f | %d |\n", e, s, w, c,
             (w > 0 ? m / w : 0), (c > 0 ? m / c : 0), p }'
  done
  echo "($(cat "$input.txt"); $(stat -c %s "$input") bytes compressed, $mb MB decompressed)"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) processors"
