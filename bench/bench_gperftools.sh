#!/usr/bin/env bash
# profkit against pprof on a 200 MB gperftools CPU profile of a real program with debug
# information, in one run: wall time, CPU time and peak memory of each command.
#
#   bench/bench_gperftools.sh [BUILD_DIR] [DATA_DIR]   (defaults: build, BUILD_DIR/bench-data)
#
# The profile and its program come from bench/gen_gperftools (deterministic; the program is
# compiled once and kept in DATA_DIR). profkit is measured reading with symbols (`info`),
# without (`info --no-symbols`), with a per-function summary (`report --top`), and converting
# to pprof and folded stacks when this build has those writers. The peers: `go tool pprof -top`
# with and without symbolization and `google-pprof --text`, each under a time limit
# (PEER_TIMEOUT seconds, default 3600: Go pprof symbolizing takes tens of minutes).
# RUNS (default 1) repeats the profkit commands and keeps the fastest; SIZE (default 200M) sets
# the size of the profile generated.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
data=${2:-$build/bench-data}
runs=${RUNS:-1}
peer_timeout=${PEER_TIMEOUT:-3600}
profkit=$build/profkit
gen=$build/bench/gen_gperftools

if [ ! -x "$profkit" ] || [ ! -x "$gen" ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$build" -j2 >/dev/null
fi
mkdir -p "$data"
profile=$data/big.prof
program=$data/bench_prog
if [ ! -s "$profile" ] || [ ! -x "$program" ]; then
  "$gen" --size "${SIZE:-200M}" "$data" "$profile" 2>"$profile.txt" || { cat "$profile.txt"; exit 1; }
fi
# perl pprof keeps the program's mapping only when the path given is the one in the profile.
program=$(readlink -f "$program")

# measure LABEL COMMAND...: "| label | wall s | cpu s | peak MB |" (status in a 5th column
# when the command failed or timed out). Fastest of RUNS for profkit, one run for peers.
measure() {
  local label=$1
  shift
  local n=$runs log best="" status=0
  case "$1" in go|google-pprof|timeout) n=1 ;; esac
  log=$(mktemp)
  for _ in $(seq "$n"); do
    /usr/bin/time -v "$@" >/dev/null 2>"$log"
    status=$?
    local line
    line=$(awk -F': ' '
      /Elapsed \(wall clock\)/ {k = split($2, t, ":"); s = 0; for (i = 1; i <= k; i++) s = s * 60 + t[i]; w = s}
      /User time/ {u = $2} /System time/ {y = $2}
      /Maximum resident set size/ {r = $2 / 1024}
      END {printf "%.2f %.2f %.0f", w, u + y, r}' "$log")
    if [ -z "$best" ] || awk -v a="$line" -v b="$best" 'BEGIN {split(a, x, " "); split(b, y, " "); exit !(x[1] < y[1])}'; then
      best=$line
    fi
  done
  rm -f "$log"
  local note=""
  [ "$status" = 124 ] && note="timed out"
  [ "$status" != 0 ] && [ "$status" != 124 ] && note="exit $status"
  echo "$best" | awk -v l="$label" -v n="$note" '{printf "| %-58s | %8.2f | %8.2f | %7d | %s\n", l, $1, $2, $3, n}'
}

echo "## $(basename "$profile"): $(sed -n 's/^gen_gperftools: //p' "$profile.txt")"
echo
"$profkit" info --no-symbols --quiet "$profile" | grep -E "sample-rows|stacks|frames|samples " | sed 's/^/    /'
echo
echo "| command | wall s | cpu s | peak MB | |"
echo "|---|---:|---:|---:|---|"
measure "profkit info big.prof" "$profkit" info --quiet "$profile"
measure "profkit info --no-symbols big.prof" "$profkit" info --no-symbols --quiet "$profile"
if "$profkit" report --help >/dev/null 2>&1; then
  measure "profkit report --top 20 --value samples big.prof" \
    "$profkit" report --top 20 --value samples --quiet "$profile"
fi
if "$profkit" formats | awk '{print $1}' | grep -qx pprof; then
  measure "profkit convert big.prof -o big.pb.gz" "$profkit" convert --quiet "$profile" -o "$data/big.pb.gz"
fi
if "$profkit" formats | awk '{print $1}' | grep -qx folded; then
  measure "profkit convert big.prof -o big.folded" "$profkit" convert --quiet "$profile" -o "$data/big.folded"
fi
rm -f "$data/big.pb.gz" "$data/big.folded"
if command -v go >/dev/null; then
  measure "go tool pprof -symbolize=none -top bench_prog big.prof" \
    timeout "$peer_timeout" go tool pprof -symbolize=none -top "$program" "$profile"
  measure "go tool pprof -top bench_prog big.prof" \
    timeout "$peer_timeout" go tool pprof -top "$program" "$profile"
fi
if command -v google-pprof >/dev/null; then
  measure "google-pprof --text bench_prog big.prof" \
    timeout "$peer_timeout" google-pprof --text "$program" "$profile"
fi
