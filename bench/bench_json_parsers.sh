#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Debian's C JSON parsers against yajl on the JSON bench files, side by side in one run
# (docs/performance.md, "Choosing the JSON parser"): `json_parsers PARSER FILE` for every parser
# the build has (bench/json_parsers.c; `BUILD_DIR/bench/json_parsers` lists them).
#
#   bench/bench_json_parsers.sh [BUILD_DIR] [DATA_DIR]    (defaults: build, BUILD_DIR/bench-data,
#                                                         where bench/bench_chrome.sh makes them)
#
# Three tables:
#   - CPU seconds (user + system), the least of RUNS runs (default 3), on each of FILES (default:
#     the 100 MB files and cpuprofile-6M);
#   - the peak memory (maximum resident set size) of that run;
#   - instructions, from valgrind --tool=callgrind, on each of SMALL_FILES (default: the 20 MB
#     files and cpuprofile-700k), each run under CALLGRIND_TIMEOUT seconds (default 120: "-"
#     past it); these runs also check that every parser counts the same objects, arrays, keys,
#     strings, numbers and literals as yajl.
# PARSERS picks the parsers (default: all the build has). A parser that fails on a file is shown
# as failing, with its message below the table. The load average is printed with each table.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
data=${2:-$build/bench-data}
runs=${RUNS:-3}
files=${FILES:-events-100MB.json trace-100MB.json speedscope-sampled-100MB.json
  speedscope-evented-100MB.json gecko-100MB.json firefox-100MB.json cpuprofile-6M.cpuprofile}
small_files=${SMALL_FILES:-events-20MB.json trace-20MB.json speedscope-sampled-20MB.json
  speedscope-evented-20MB.json gecko-20MB.json firefox-20MB.json cpuprofile-700k.cpuprofile}
callgrind_timeout=${CALLGRIND_TIMEOUT:-120}
program=$build/bench/json_parsers
[ -x "$program" ] || { echo "bench_json_parsers: build $program first" >&2; exit 2; }
parsers=${PARSERS:-$("$program" | awk '{ print $1 }')}
for f in $files $small_files; do
  [ -s "$data/$f" ] || { echo "bench_json_parsers: no $data/$f (bench/bench_chrome.sh makes it)" >&2; exit 2; }
done
. bench/measure.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# header FILE...: a table's first two lines, a column per file
header() {
  printf '| parser |'
  for f; do printf ' %s |' "${f%.*}"; done
  printf '\n|---|'
  for f; do printf -- '---:|'; done
  echo
}

# Runs PARSER on FILE once more to show why it failed.
failures=$tmp/failures
why() {
  "$program" "$1" "$data/$2" 2>&1 >/dev/null | tail -n 1 | cut -c1-300 >>"$failures"
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for p in $parsers; do
  for f in $files; do
    BENCH_FASTEST_BY=cpu bench_measure "$tmp/$p.$f" "$runs" "$program" "$p" "$data/$f"
  done
done
# column FIELD: a table of one field of bench_measure's result (2: cpu s, 3: peak MB)
column() {
  header $files
  for p in $parsers; do
    printf '| %s |' "$p"
    for f in $files; do
      read -r _ cpu peak status <"$tmp/$p.$f"
      if [ "$status" != 0 ]; then
        printf ' fails |'
      elif [ "$1" = 2 ]; then
        printf ' %s |' "$cpu"
      else
        printf ' %s |' "$peak"
      fi
    done
    echo
  done
}
echo
echo "CPU seconds (user + system), the least of $runs runs:"
echo
column 2
echo
echo "Peak memory, MB (maximum resident set size):"
echo
column 3
for p in $parsers; do
  for f in $files; do
    read -r _ _ _ status <"$tmp/$p.$f"
    [ "$status" = 0 ] || why "$p" "$f"
  done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

# The counts a parser printed: objects arrays keys strings numbers literals
counts() {
  tr ' ' '\n' <"$1" | awk -F= '$1 ~ /^(objects|arrays|keys|strings|numbers|literals)$/ { printf "%s ", $2 }'
}
echo
echo "Instructions (valgrind --tool=callgrind), G:"
echo
header $small_files
for p in yajl $parsers; do
  [ "$p" = yajl ] && [ -e "$tmp/yajl.counted" ] && continue
  printf '| %s |' "$p"
  for f in $small_files; do
    timeout "$callgrind_timeout" valgrind --tool=callgrind --callgrind-out-file=/dev/null \
      "$program" "$p" "$data/$f" >"$tmp/out" 2>"$tmp/err"
    status=$?
    if [ "$p" = yajl ]; then
      counts "$tmp/out" >"$tmp/counts.$f"
    fi
    cell=$(awk '/Collected :/ { printf "%.2f", $NF / 1e9 }' "$tmp/err")
    if [ "$status" = 124 ]; then
      cell="- (over ${callgrind_timeout} s)"
    elif [ "$status" != 0 ]; then
      cell="fails"
      why "$p" "$f"
    elif [ "$(counts "$tmp/out")" != "$(cat "$tmp/counts.$f")" ]; then
      cell="$cell (counts differ from yajl's)"
    fi
    printf ' %s |' "$cell"
  done
  echo
  [ "$p" = yajl ] && touch "$tmp/yajl.counted"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -s "$failures" ]; then
  echo
  echo "Failures:"
  sort -u "$failures" | sed 's/^/  /'
fi
