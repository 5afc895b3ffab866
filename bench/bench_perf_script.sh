#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# profkit against speedscope's own `perf script` importer (the npm package, in node) on perf
# script text made from a real recording, side by side in one run: wall time, CPU time, MB/s
# and peak memory of each command.
#
#   bench/bench_perf_script.sh [BUILD_DIR] [DATA_DIR]     (defaults: build, BUILD_DIR/bench-data/perf)
#
# The recording: `perf record -F 999 -g -e cpu-clock` of gcc compiling profkit's sources (about
# 5,000 samples of cc1, as, gcc and the kernel; made once in DATA_DIR, about 1.2 MB of text).
# Its text is repeated, each copy's times shifted after the previous one's (speedscope refuses
# times that go back), into a file of SIZE MB (default 200) and one of a quarter of that: the
# same distinct stacks, four times the samples, so peak memory must not grow between them.
# profkit converts both to folded stacks, pprof and the Firefox Profiler's JSON; speedscope
# imports the large one (tests/tools/speedscope_import.js, the import alone; scripts/setup-speedscope.sh
# installs the package; skipped without node). RUNS (default 3) repeats the profkit commands
# and keeps the fastest; speedscope runs once. The load average is printed: on a busy machine
# the CPU columns are the steadier ones, and MB/s is given for both.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
data=${2:-$build/bench-data/perf}
size=${SIZE:-200}
runs=${RUNS:-3}
profkit=$build/profkit
. bench/measure.sh

if [ ! -x "$profkit" ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" -j2 >/dev/null
fi
mkdir -p "$data"
recording=$data/recording.perf
if [ ! -s "$recording" ]; then
  command -v perf >/dev/null || { echo "bench_perf_script: perf is not installed" >&2; exit 77; }
  echo "recording gcc compiling profkit's sources (about 30 s)..." >&2
  cat >"$data/compile.sh" <<SCRIPT
#!/bin/sh
for f in $PWD/src/formats/*.c $PWD/src/core/*.c $PWD/src/analysis/*.c; do
  gcc -O2 -g -I$PWD/src -I$PWD/include -I$PWD/$build/generated -I$PWD/$build/src -c "\$f" -o "$data/x.o" 2>/dev/null
done
SCRIPT
  chmod +x "$data/compile.sh"
  perf record -F 999 -g -e cpu-clock -o "$data/recording.data" -- "$data/compile.sh" 2>/dev/null
  perf script -i "$data/recording.data" >"$recording" 2>/dev/null
fi

# repeat MB OUT: copies of the recording, times shifted, until MB megabytes.
repeat() {
  [ -s "$2" ] && return
  perl -e '
    my ($limit, $file) = ($ARGV[0] * 1000000, $ARGV[1]);
    open(my $in, "<", $file) or die; local $/; my $text = <$in>;
    my ($first) = $text =~ /\s(\d+\.\d+):/; my $last = 0;
    $last = $1 while $text =~ /\s(\d+\.\d+):/g;
    my $span = $last - $first + 0.001;
    for (my ($k, $written) = (0, 0); $written < $limit; $k++) {
      (my $copy = $text) =~ s/(\s)(\d+\.\d+):/sprintf("%s%.6f:", $1, $2 + $k * $span)/ge;
      print $copy; $written += length $copy;
    }' "$1" "$recording" >"$2"
}
large=$data/perf-${size}m.perf
small=$data/perf-$((size / 4))m.perf
repeat "$size" "$large"
repeat $((size / 4)) "$small"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# row LABEL FILE RESULT: one table row with MB/s by wall and by CPU time (measure.sh).
row() { bench_row 44 "$@"; }

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
echo
echo "| command | MB | wall s | CPU s | MB/s wall | MB/s CPU | peak MB | |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
for file in "$small" "$large"; do
  name=$(basename "$file")
  bench_measure "$tmp/folded" "$runs" "$profkit" convert "$file" -o "$tmp/out.folded"
  row "profkit convert $name -o x.folded" "$file" "$tmp/folded"
  bench_measure "$tmp/pprof" "$runs" "$profkit" convert "$file" -o "$tmp/out.pb.gz"
  row "profkit convert $name -o x.pb.gz" "$file" "$tmp/pprof"
  bench_measure "$tmp/firefox" "$runs" "$profkit" convert "$file" -o "$tmp/out.json"
  row "profkit convert $name -o x.json (Firefox)" "$file" "$tmp/firefox"
done
package=tools/speedscope/node_modules/speedscope
if command -v node >/dev/null && [ -d "$package" ]; then
  SPEEDSCOPE_IMPORT_ONLY=1 bench_measure "$tmp/speedscope" 1 node tests/tools/speedscope_import.js "$package" "$large"
  row "speedscope import $(basename "$large") (node)" "$large" "$tmp/speedscope"
else
  echo "(speedscope: node or $package missing; scripts/setup-speedscope.sh installs it)"
fi
