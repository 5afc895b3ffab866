#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# profkit reading perf.data directly against perf's own tools on the same recording, side by
# side in one run: wall time, CPU time, MB/s of perf.data and peak memory of each command.
#
#   bench/bench_perf_data.sh [BUILD_DIR] [DATA_DIR]   (defaults: build, BUILD_DIR/bench-data/perf_data)
#
# The recordings (made once in DATA_DIR): `perf record -g -c 20000 -e cpu-clock` (a sample
# every 20 us of CPU, frame-pointer callchains) of bench/busy_stacks.c, one thread a processor
# descending through 16 to 120 frames to a leaf and spinning there: about 20,000 distinct
# stacks. The large one runs until the program has used CPU_SECONDS (default 22, about 400 MB),
# the small one a quarter of that: the same stacks, a quarter of the samples, so peak memory
# must not grow between them. Each is converted to folded stacks and to the Firefox Profiler's
# JSON (every sample's time kept) by profkit, and compared with `perf script` alone (its text
# to /dev/null), with `perf script | profkit convert --from perf-script` and, on the large one,
# with `perf report --stdio` (PERF_REPORT=no leaves it out). DWARF unwinding is measured apart
# (DWARF=no leaves it out): busy_stacks built -O2 without frame pointers, recorded with
# `--call-graph dwarf` (8 KB of stack a sample) for DWARF_CPU_SECONDS (default 3), converted by
# profkit and printed by perf script, in samples per second. RUNS (default 3) repeats the
# profkit commands and keeps the fastest; perf's commands run once. A pipeline's CPU time is
# both processes', its peak memory the larger one's. The load average is printed: on a busy
# machine the CPU columns are the steadier ones.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
data=${2:-$build/bench-data/perf_data}
cpu_seconds=${CPU_SECONDS:-22}
runs=${RUNS:-3}
profkit=$build/profkit
. bench/measure.sh

command -v perf >/dev/null || { echo "bench_perf_data: perf is not installed" >&2; exit 77; }
if [ ! -x "$profkit" ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" -j2 >/dev/null
fi
mkdir -p "$data"
if [ ! -x "$data/busy_stacks" ]; then
  gcc -O2 -g -fno-omit-frame-pointer -pthread bench/busy_stacks.c -o "$data/busy_stacks" || exit 1
fi
# record FILE CPU_SECONDS
record() {
  [ -s "$1" ] && return
  echo "recording busy_stacks for $2 s of CPU into $1..." >&2
  perf record -q -g -c 20000 -e cpu-clock -o "$1" -- "$data/busy_stacks" "$2" >/dev/null 2>&1 ||
    { echo "bench_perf_data: perf record failed" >&2; exit 1; }
}
large=$data/recording.data
small=$data/recording-quarter.data
record "$large" "$cpu_seconds"
record "$small" "$(awk -v s="$cpu_seconds" 'BEGIN {print s / 4}')"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# row LABEL FILE RESULT: one table row with MB/s by wall and by CPU time (measure.sh).
row() { bench_row 52 "$@"; }

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; $(perf version)"
echo
echo "| command | MB | wall s | CPU s | MB/s wall | MB/s CPU | peak MB | |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
for file in "$small" "$large"; do
  name=$(basename "$file")
  bench_measure "$tmp/folded" "$runs" "$profkit" convert --quiet "$file" -o "$tmp/direct.folded"
  row "profkit convert $name -o x.folded" "$file" "$tmp/folded"
  bench_measure "$tmp/firefox" "$runs" "$profkit" convert --quiet "$file" -o "$tmp/out.json"
  row "profkit convert $name -o x.json (Firefox)" "$file" "$tmp/firefox"
  bench_measure "$tmp/script" 1 sh -c 'perf script -i "$1" >/dev/null 2>&1' sh "$file"
  row "perf script -i $name > /dev/null" "$file" "$tmp/script"
  bench_measure "$tmp/piped" 1 sh -c 'perf script -i "$1" 2>/dev/null | "$2" convert --quiet --from perf-script - -o "$3"' \
    sh "$file" "$profkit" "$tmp/script.folded"
  row "perf script -i $name \\| profkit convert -o x.folded" "$file" "$tmp/piped"
  if [ "$file" = "$large" ] && [ "${PERF_REPORT:-yes}" != no ]; then
    bench_measure "$tmp/report" 1 sh -c 'perf report -i "$1" --stdio >/dev/null 2>&1' sh "$file"
    row "perf report -i $name --stdio > /dev/null" "$file" "$tmp/report"
  fi
done
if [ "${DWARF:-yes}" != no ]; then
  dwarf=$data/dwarf.data
  if [ ! -s "$dwarf" ]; then
    gcc -O2 -g -fomit-frame-pointer -pthread bench/busy_stacks.c -o "$data/busy_stacks_nofp" || exit 1
    echo "recording busy_stacks_nofp with --call-graph dwarf into $dwarf..." >&2
    perf record -q --call-graph dwarf -e cpu-clock -o "$dwarf" -- "$data/busy_stacks_nofp" \
      "${DWARF_CPU_SECONDS:-3}" >/dev/null 2>&1 || { echo "bench_perf_data: perf record failed" >&2; exit 1; }
  fi
  bench_measure "$tmp/dwarf" "$runs" "$profkit" convert --quiet "$dwarf" -o "$tmp/dwarf.folded"
  row "profkit convert $(basename "$dwarf") -o x.folded" "$dwarf" "$tmp/dwarf"
  bench_measure "$tmp/dwarf-script" 1 sh -c 'perf script -i "$1" >/dev/null 2>&1' sh "$dwarf"
  row "perf script -i $(basename "$dwarf") > /dev/null" "$dwarf" "$tmp/dwarf-script"
  samples=$("$profkit" info --quiet "$dwarf" | awk '/^user stacks unwound/ {sub(",", "", $4); print $4 + $5}')
  echo
  awk -v n="$samples" -v a="$(cut -d' ' -f2 "$tmp/dwarf")" -v b="$(cut -d' ' -f2 "$tmp/dwarf-script")" 'BEGIN {
      printf "DWARF unwinding, %d samples: profkit %.0f samples/s of CPU, perf script %.0f\n", n,
        (a > 0 ? n / a : 0), (b > 0 ? n / b : 0) }'
fi
echo
# The same stacks both ways (perf names a few libc and ld.so functions otherwise, see
# docs/formats/perf-data.md): the total weight and the program's own stacks.
total() { awk '{n += $NF} END {print n}' "$1"; }
own() { grep -E ';(parse|resolve|evaluate|emit);' "$1" | sort | md5sum | cut -c1-12; }
echo "large file, total weight: direct $(total "$tmp/direct.folded"), through perf script $(total "$tmp/script.folded");" \
  "busy_stacks' stacks: $(own "$tmp/direct.folded") / $(own "$tmp/script.folded") (md5)"
