#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 35's aim for timelines, side by side in one run: a `perf script` of a million samples
# and a 1 GB Trace Event file converted to the Firefox Profiler by a build from before the
# timelines and by this one (every sample's time kept), CPU time, wall time and peak memory of
# each, and the ratio of CPU times. The aim: at most 1.5 times the time before, under 96 MB.
#
#   BEFORE=DIR/profkit bench/bench_timelines.sh [BUILD_DIR] [DATA_DIR]
#                                        (defaults: build, BUILD_DIR/bench-data/timelines)
#
# BEFORE is a profkit built from the tree before the timelines (607c08f, the parent of their
# first commit; `git archive 607c08f | tar -x -C DIR` and a Release build of profkit_cli);
# without it only this build is measured. Inputs, made once in DATA_DIR:
#   perf-1M.perf    tests/data/perf/prog.perf (256 samples on 2 threads) repeated with its
#                   times shifted after the previous copy's, to SAMPLES samples (1,000,000)
#   trace-1GB.json  bench/gen_chrome.py trace BIG_MB (1000): the Chromium startup trace
#                   repeated (CPU profile chunks and duration events on 6 threads)
# RUNS (default 3) runs of each command, the fastest by CPU time kept (the machine may be
# shared: CPU time is the figure to compare). The load average is printed.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
build=${1:-build}
data=${2:-$build/bench-data/timelines}
samples=${SAMPLES:-1000000}
big_mb=${BIG_MB:-1000}
runs=${RUNS:-3}
after=$build/profkit
before=${BEFORE:-}
# shellcheck source=bench/measure.sh
. bench/measure.sh
[ -x "$after" ] || { echo "bench_timelines: build profkit in $build first" >&2; exit 2; }
[ -z "$before" ] || [ -x "$before" ] || { echo "bench_timelines: $before is no program" >&2; exit 2; }
mkdir -p "$data"

perf=$data/perf-1M.perf
if [ ! -s "$perf" ]; then
  perl -e '
    my ($wanted, $file) = @ARGV;
    open(my $in, "<", $file) or die; local $/; my $text = <$in>;
    my @times = $text =~ /\s(\d+\.\d+):/g;
    my $span = $times[-1] - $times[0] + 0.001;
    for (my ($k, $n) = (0, 0); $n < $wanted; $k++, $n += @times) {
      (my $copy = $text) =~ s/(\s)(\d+\.\d+):/sprintf("%s%.6f:", $1, $2 + $k * $span)/ge;
      print $copy;
    }' "$samples" tests/data/perf/prog.perf >"$perf" || exit 1
fi
trace=$data/trace-${big_mb}MB.json
[ -s "$trace" ] || python3 bench/gen_chrome.py trace "$big_mb" "$trace" || exit 1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
echo "perf script: $(grep -cE '^\S.*\s[0-9]+\.[0-9]+:' "$perf") samples in $perf"
echo
echo "| input | MB | build | wall s | CPU s | peak MB | CPU after / before |"
echo "| --- | ---: | --- | ---: | ---: | ---: | ---: |"
for file in "$perf" "$trace"; do
  mb=$(awk -v b="$(stat -c %s "$file")" 'BEGIN {printf "%.1f", b / 1e6}')
  cat "$file" >/dev/null # both builds read it from the page cache
  cpu_before=""
  for which in before after; do
    program=$after
    if [ "$which" = before ]; then
      [ -n "$before" ] || continue
      program=$before
    fi
    BENCH_FASTEST_BY=cpu bench_measure "$tmp/$which" "$runs" "$program" convert "$file" \
      --to firefox -o "$tmp/out.json" --quiet
    read -r wall cpu peak status <"$tmp/$which"
    ratio=""
    [ "$which" = before ] && cpu_before=$cpu
    [ "$which" = after ] && [ -n "$cpu_before" ] &&
      ratio=$(awk -v a="$cpu" -v b="$cpu_before" 'BEGIN {if (b > 0) printf "%.2f", a / b}')
    [ "$status" = 0 ] || ratio="exit $status"
    printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$(basename "$file")" "$mb" "$which" \
      "$wall" "$cpu" "$peak" "$ratio"
  done
done
