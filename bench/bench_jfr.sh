#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Java Flight Recorder recordings to folded stacks and to the Firefox Profiler: profkit against
# the JDK's `jfr summary` (which walks every event's header without decoding the event) and
# speedscope's JFR importer (the npm package's jfrview WebAssembly decoder, run in node by
# tests/tools/speedscope_import.js with SPEEDSCOPE_IMPORT_ONLY=1), side by side in one run, on
# a quarter of the input and on the whole: wall and CPU time (user + system), MB per CPU second
# and peak memory (/usr/bin/time's maximum resident set size); then the machine's load.
#
#   bench/bench_jfr.sh [BUILD_DIR] [DATA_DIR]    (defaults: build, BUILD_DIR/bench-data)
#
# The input is made once in DATA_DIR/jfr: bench/JfrBusy.java (threads doing CPU-heavy and
# allocation-heavy work through many call paths, a contended lock, a parked thread) recorded by
# OpenJDK with `-XX:StartFlightRecording=settings=profile` for RECORD_SECONDS (default 120),
# then copies of the whole recording concatenated up to SIZE MB (default 100; the issue's
# figure is SIZE=500): a recording is a sequence of self-contained chunks, so the copies are a
# valid recording of as many chunks (`jfr summary` is checked to read them all), and profkit's
# folded stacks of the quarter file are checked to be those of one copy times the copies.
# Peak memory should be the same for the quarter and the whole: it may grow with one chunk's
# constant pools and the distinct stacks, not with the events. RUNS (default 3) keeps the
# fastest run by CPU time. speedscope runs SPEEDSCOPE_RUNS times (default 1), on the quarter
# file only (about 4 s of CPU per MB and 12 MB of memory per MB: the whole would take most of an
# hour), on both with SPEEDSCOPE=all, on neither with SPEEDSCOPE=0. Needs java, javac and jfr
# (Debian's openjdk-17-jdk-headless) and, for speedscope, node and tools/speedscope.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
data=${2:-$build/bench-data}/jfr
size_mb=${SIZE:-100}
seconds=${RECORD_SECONDS:-120}
runs=${RUNS:-3}
speedscope_runs=${SPEEDSCOPE_RUNS:-1}
speedscope=tools/speedscope/node_modules/speedscope
profkit=${PROFKIT:-$build/profkit}
export BENCH_FASTEST_BY=cpu
. bench/measure.sh
for tool in java javac jfr; do
  command -v "$tool" >/dev/null || { echo "bench_jfr: $tool is not installed" >&2; exit 1; }
done
[ -x "$profkit" ] || {
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" -j2 --target profkit_cli >/dev/null
}
mkdir -p "$data"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One recording of the busy program, made once.
one=$data/recording.jfr
if [ ! -s "$one" ]; then
  javac -d "$data" bench/JfrBusy.java || exit 1
  echo "bench_jfr: recording JfrBusy for $seconds s" >&2
  java "-XX:StartFlightRecording=settings=profile,filename=$one.part" -cp "$data" \
    JfrBusy "$seconds" >"$data/recording.log" 2>&1 || { cat "$data/recording.log" >&2; exit 1; }
  mv "$one.part" "$one"
fi
one_bytes=$(stat -c %s "$one")
one_chunks=$(jfr summary "$one" | awk '$1 == "Chunks:" {print $2}')

# Copies of it up to SIZE MB, and a quarter of as many.
copies=$(( (size_mb * 1000000 + one_bytes - 1) / one_bytes ))
quarter_copies=$(( (copies + 3) / 4 ))
make_copies() { # FILE N
  [ -s "$1" ] && [ "$(stat -c %s "$1")" = $((one_bytes * $2)) ] && return
  for _ in $(seq "$2"); do cat "$one"; done >"$1.part" && mv "$1.part" "$1"
}
full=$data/recording-x$copies.jfr
quarter=$data/recording-x$quarter_copies.jfr
make_copies "$full" "$copies"
make_copies "$quarter" "$quarter_copies"
chunks=$(jfr summary "$full" | awk '$1 == "Chunks:" {print $2}')
if [ "$chunks" != $((one_chunks * copies)) ]; then
  echo "bench_jfr: jfr summary reads $chunks chunks in $full, not $((one_chunks * copies))" >&2
  exit 1
fi
# the same stacks, each count times the copies, or the speed means nothing
"$profkit" convert "$one" --to folded -o "$tmp/one.folded" --quiet || exit 1
"$profkit" convert "$quarter" --to folded -o "$tmp/quarter.folded" --quiet || exit 1
if ! awk -v n="$quarter_copies" '{k = $NF; $NF = ""; print $0 k * n}' "$tmp/one.folded" |
    sort | cmp -s - <(sort "$tmp/quarter.folded"); then
  echo "bench_jfr: the folded stacks of $quarter are not those of $one times $quarter_copies" >&2
  exit 1
fi

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) processors"
echo
echo "| MB | chunks | command | wall s | CPU s | MB/s (CPU) | peak MiB |"
echo "|---:|---:|---|---:|---:|---:|---:|"
for input in "$quarter" "$full"; do
  cat "$input" >/dev/null # from the page cache, for every command alike
  bytes=$(stat -c %s "$input")
  n=$(( bytes / one_bytes * one_chunks ))
  commands=(
    "jfr summary $input"
    "$profkit convert $input --to folded -o /dev/null"
    "$profkit convert $input --to firefox -o /dev/null"
  )
  want_speedscope=${SPEEDSCOPE:-quarter}
  [ "$want_speedscope" = quarter ] && [ "$input" = "$full" ] && want_speedscope=0
  [ "$want_speedscope" != 0 ] && [ -d "$speedscope" ] && command -v node >/dev/null &&
    commands+=("node --max-old-space-size=8192 tests/tools/speedscope_import.js $speedscope $input")
  for c in "${commands[@]}"; do
    r=$runs
    case $c in node*) r=$speedscope_runs ;; esac
    # shellcheck disable=SC2086
    SPEEDSCOPE_IMPORT_ONLY=1 bench_measure "$tmp/m" "$r" $c
    read -r wall cpu peak status <"$tmp/m"
    shown=${c//$input/FILE}
    shown=${shown//$profkit/profkit}
    shown=${shown//$speedscope/SPEEDSCOPE}
    [ "$status" = 0 ] || shown="$shown (exit $status)"
    awk -v b="$bytes" -v k="$n" -v s="$shown" -v w="$wall" -v c="$cpu" -v p="$peak" 'BEGIN {
      printf "| %.0f | %d | `%s` | %.2f | %.2f | %.0f | %d |\n", b / 1e6, k, s, w, c,
             (c > 0 ? b / 1e6 / c : 0), p }'
  done
done
echo
echo "(one recording: $one_bytes bytes, $one_chunks chunk(s), $seconds s of JfrBusy;" \
  "$quarter_copies and $copies copies of it)"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) processors"
