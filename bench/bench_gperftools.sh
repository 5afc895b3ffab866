#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# profkit against pprof on 200 MB gperftools CPU profiles of a real program with debug
# information, side by side in one run: wall time, CPU time and peak memory of each command.
#
#   bench/bench_gperftools.sh [BUILD_DIR] [DATA_DIR] [SHAPE...]
#                                   (defaults: build, BUILD_DIR/bench-data, $SHAPES or
#                                    "deep wide branchy")
#
# Each shape's profile and program come from bench/gen_gperftools (deterministic; the program is
# compiled once and kept in DATA_DIR/SHAPE):
#   deep  stacks that share long prefixes (a program sampled over time);
#   wide  3,000 functions, every stack a fresh walk from main: few shared prefixes;
#   branchy  3,000 functions, stacks about 50 deep branching off recent ones at any depth (14
#         million distinct prefixes), leaf PCs on any instruction: the shape of issue 41.
# For each shape, one table for the gperftools profile and one for a pprof file of the same
# profile (made once with `profkit convert`). profkit is measured reading with symbols
# (`info`), without (`info --no-symbols`), with a per-function summary (`report --top`), and
# converting to pprof and to folded stacks. The peers, each under a time limit (PEER_TIMEOUT
# seconds, default 3600: Go pprof symbolizing takes tens of minutes): `go tool pprof -top
# -symbolize=none`, `go tool pprof -top` and `google-pprof --text` on the gperftools profile,
# `go tool pprof -top -symbolize=none` on the pprof file.
# The ratio columns compare each profkit command with the first peer of its table (go tool
# pprof -top, without symbolization for the gperftools profile): the peer's wall and CPU time
# over profkit's (how many times faster), and profkit's peak memory over the peer's.
# PARTS (default "gperftools pprof") picks the tables: the gperftools profile, its pprof form.
# SYMBOLIZING_PEERS=no leaves out the two peers that symbolize (they run until PEER_TIMEOUT on
# these files), for a run of minutes.
# RUNS (default 3) repeats the profkit commands and keeps the fastest; peers run once. SIZE
# (default 200M) sets the size of the profiles generated. The load average is printed with
# each table: on a busy machine the CPU columns are the steadier ones.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
data=${2:-$build/bench-data}
shift $(($# < 2 ? $# : 2))
shapes=${*:-${SHAPES:-deep wide branchy}}
runs=${RUNS:-3}
parts=" ${PARTS:-gperftools pprof} "
peer_timeout=${PEER_TIMEOUT:-3600}
profkit=$build/profkit
gen=$build/bench/gen_gperftools
. bench/measure.sh

if [ ! -x "$profkit" ] || [ ! -x "$gen" ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$build" -j2 >/dev/null
fi

# run_measured OUT COMMAND...: "wall cpu peak_mb status" of the fastest of N runs into OUT
# (N = RUNS for profkit, 1 for the peers).
run_measured() {
  local out=$1 n=$runs
  shift
  [ "$(basename "$1")" = profkit ] || n=1
  bench_measure "$out" "$n" "$@"
}

# row LABEL RESULT [REFERENCE]: one table row; the ratios against REFERENCE when given.
row() {
  local label=$1 result=$2 reference=${3:-}
  awk -v l="$label" -v ref="$reference" '{
      w = $1; c = $2; m = $3; s = $4
      note = s == 124 ? "timed out" : (s != 0 ? "exit " s : "")
      ratios = "| | |"
      if (ref != "" && split(ref, q, " ") == 4 && q[4] != 0 && q[4] != 124) {
        ratios = "| - | - |"
      } else if (ref != "") {
        # A peer that timed out ran at least that long: the ratios are lower bounds.
        split(ref, r, " ")
        at_least = r[4] == 124 ? ">= " : ""
        ratios = sprintf("| %s%.1fx / %.1fx | %s%.2f |", at_least, (w > 0 ? r[1] / w : 0), (c > 0 ? r[2] / c : 0), r[4] == 124 ? "<= " : "", (r[3] > 0 ? m / r[3] : 0))
      }
      printf "| %-52s | %8.2f | %8.2f | %7d %s %s\n", l, w, c, m, ratios, note
    }' "$result"
}

header() {
  echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "| command | wall s | CPU s | peak MB | peer wall / this, CPU / this | peak / peer's | |"
  echo "|---|---:|---:|---:|---:|---:|---|"
}

bench_shape() {
  local shape=$1 dir=$data/$1
  local profile=$dir/big.prof program=$dir/bench_prog tmp ref
  mkdir -p "$dir"
  if [ ! -s "$profile" ] || [ ! -x "$program" ]; then
    "$gen" --shape "$shape" --size "${SIZE:-200M}" "$dir" "$profile" 2>"$profile.txt" ||
      { cat "$profile.txt"; exit 1; }
  fi
  # perl pprof keeps the program's mapping only when the path given is the one in the profile.
  program=$(readlink -f "$program")
  tmp=$(mktemp -d)

  echo "## $shape: $(sed -n 's/^gen_gperftools: //p' "$profile.txt")"
  echo
  "$profkit" info --no-symbols --quiet "$profile" | grep -E "sample-rows|stacks|frames" | sed 's/^/    /'
  "$profkit" info --quiet "$profile" | grep -E "^  (functions|frames|stacks) " | sed 's/^ */    symbolized: /'
  echo

  if [[ $parts == *" gperftools "* ]]; then
  # The peers first: their numbers are the reference of the profkit rows.
  run_measured "$tmp/go-none" timeout "$peer_timeout" go tool pprof -top -symbolize=none "$program" "$profile"
  if [ "${SYMBOLIZING_PEERS:-yes}" != no ]; then
    run_measured "$tmp/go-sym" timeout "$peer_timeout" go tool pprof -top "$program" "$profile"
    run_measured "$tmp/perl" timeout "$peer_timeout" google-pprof --text "$program" "$profile"
  fi
  ref=$(cat "$tmp/go-none")
  run_measured "$tmp/info" "$profkit" info --quiet "$profile"
  run_measured "$tmp/info-ns" "$profkit" info --no-symbols --quiet "$profile"
  run_measured "$tmp/top" "$profkit" report --top 20 --quiet "$profile"
  run_measured "$tmp/pprof" "$profkit" convert --quiet "$profile" -o "$tmp/x.pb.gz"
  run_measured "$tmp/folded" "$profkit" convert --quiet "$profile" --to folded -o "$tmp/x.folded"
  echo "### $shape: the gperftools profile ($(stat -c %s "$profile") bytes)"
  echo
  header
  row "go tool pprof -top -symbolize=none bench_prog big.prof" "$tmp/go-none"
  if [ -s "$tmp/go-sym" ]; then
    row "go tool pprof -top bench_prog big.prof" "$tmp/go-sym"
    row "google-pprof --text bench_prog big.prof" "$tmp/perl"
  fi
  row "profkit info big.prof" "$tmp/info" "$ref"
  row "profkit info --no-symbols big.prof" "$tmp/info-ns" "$ref"
  row "profkit report --top 20 big.prof" "$tmp/top" "$ref"
  row "profkit convert big.prof -o x.pb.gz" "$tmp/pprof" "$ref"
  row "profkit convert big.prof --to folded -o x.folded" "$tmp/folded" "$ref"
  echo
  fi

  if [[ $parts == *" pprof "* ]]; then
  # The same profile as pprof: symbolized once, so that no run needs the binary.
  local pb=$dir/big.pb.gz
  [ -s "$pb" ] || "$profkit" convert --quiet "$profile" -o "$pb"
  # Without -symbolize=none Go pprof looks up the libc mapping's addresses with binutils again.
  run_measured "$tmp/go-pb" timeout "$peer_timeout" go tool pprof -top -symbolize=none "$pb"
  ref=$(cat "$tmp/go-pb")
  run_measured "$tmp/pb-info" "$profkit" info --quiet "$pb"
  run_measured "$tmp/pb-top" "$profkit" report --top 20 --quiet "$pb"
  run_measured "$tmp/pb-pprof" "$profkit" convert --quiet "$pb" -o "$tmp/x.pb.gz"
  run_measured "$tmp/pb-folded" "$profkit" convert --quiet "$pb" --to folded -o "$tmp/x.folded"
  echo "### $shape: the same profile as pprof ($(stat -c %s "$pb") bytes, made by profkit convert)"
  echo
  header
  row "go tool pprof -top -symbolize=none big.pb.gz" "$tmp/go-pb"
  row "profkit info big.pb.gz" "$tmp/pb-info" "$ref"
  row "profkit report --top 20 big.pb.gz" "$tmp/pb-top" "$ref"
  row "profkit convert big.pb.gz -o x.pb.gz" "$tmp/pb-pprof" "$ref"
  row "profkit convert big.pb.gz --to folded -o x.folded" "$tmp/pb-folded" "$ref"
  echo
  fi
  rm -rf "$tmp"
}

for shape in $shapes; do
  case $shape in
    deep | wide | branchy) bench_shape "$shape" ;;
    *) echo "bench_gperftools.sh: unknown shape '$shape' (deep, wide or branchy)" >&2; exit 2 ;;
  esac
done
