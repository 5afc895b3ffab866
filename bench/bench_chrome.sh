#!/usr/bin/env bash
# profkit's Chrome readers against speedscope's importers (the speedscope npm package, run in
# node by tests/tools/speedscope_import.js with SPEEDSCOPE_IMPORT_ONLY=1), side by side in one
# run: wall time, throughput and peak memory on the same files.
#
#   bench/bench_chrome.sh [BUILD_DIR] [DATA_DIR]    (defaults: build, BUILD_DIR/bench-data)
#
# Inputs, made by bench/gen_chrome.py from the real fixtures of tests/data/chrome/:
#   cpuprofile-700k   node's .cpuprofile with 700,000 samples (about 5 MB)
#   trace-20MB        the Chromium startup trace repeated to 20 MB (CPU profile chunks and
#                     duration events)
#   trace-100MB, trace-1GB (BIG_MB, default 1000): the same at 100 MB and 1 GB, where memory
#                     must stay flat
# profkit converts each to folded stacks (`convert --to folded -o /dev/null`, the whole read plus
# a writer); speedscope imports each (the peer is skipped above PEER_MAX_MB, default 100: it
# cannot hold them) under PEER_TIMEOUT seconds (default 300). Peak memory is /usr/bin/time's
# maximum resident set size.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
data=${2:-$build/bench-data}
big_mb=${BIG_MB:-1000}
peer_max_mb=${PEER_MAX_MB:-100}
peer_timeout=${PEER_TIMEOUT:-300}
profkit=$build/profkit
speedscope=tools/speedscope/node_modules/speedscope
[ -x "$profkit" ] || { echo "bench_chrome: build profkit in $build first" >&2; exit 2; }
mkdir -p "$data"

make_input() {
  local file=$data/$1
  shift
  [ -s "$file" ] || python3 bench/gen_chrome.py "$@" "$file" || exit 1
  echo "$file"
}

# measure COMMAND...: "wall_s peak_mb status"
measure() {
  local log
  log=$(mktemp)
  /usr/bin/time -f '%e %M' -o "$log" timeout "$peer_timeout" "$@" >/dev/null 2>&1
  local status=$?
  read -r wall kb < <(tail -n 1 "$log")
  rm -f "$log"
  echo "$wall $((kb / 1024)) $status"
}

row() { # name size_mb tool wall peak status
  local mbs=-
  [ "$6" = 0 ] && mbs=$(awk -v s="$2" -v w="$4" 'BEGIN { printf "%.0f", w > 0 ? s / w : 0 }')
  local note=""
  [ "$6" = 0 ] || note="failed (status $6$([ "$6" = 124 ] && echo ": time limit"))"
  printf '| %-16s | %8s | %-10s | %8s | %7s | %8s | %s\n' "$1" "$2" "$3" "$4" "$mbs" "$5" "$note"
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '| %-16s | %8s | %-10s | %8s | %7s | %8s | %s\n' input MB tool "wall s" "MB/s" "peak MB" ""
for spec in "cpuprofile-700k.cpuprofile cpuprofile 700000" "trace-20MB.json trace 20" \
            "trace-100MB.json trace 100" "trace-${big_mb}MB.json trace $big_mb"; do
  set -- $spec
  file=$(make_input "$1" "$2" "$3")
  size=$(awk -v b="$(stat -c %s "$file")" 'BEGIN { printf "%.1f", b / 1e6 }')
  read -r wall peak status < <(measure "$profkit" convert "$file" --to folded -o /dev/null)
  row "${1%.*}" "$size" profkit "$wall" "$peak" "$status"
  if [ -d "$speedscope" ] && awk -v s="$size" -v m="$peer_max_mb" 'BEGIN { exit !(s <= m) }'; then
    read -r wall peak status < <(SPEEDSCOPE_IMPORT_ONLY=1 measure node \
      tests/tools/speedscope_import.js "$speedscope" "$file")
    row "${1%.*}" "$size" speedscope "$wall" "$peak" "$status"
  fi
done
