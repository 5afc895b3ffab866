#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# profkit's Chrome readers against speedscope's importers (the speedscope npm package, run in
# node by tests/tools/speedscope_import.js with SPEEDSCOPE_IMPORT_ONLY=1), side by side in one
# run: wall and CPU time, throughput (MB per CPU second, steadier than wall time on a loaded
# machine) and peak memory on the same files.
#
#   bench/bench_chrome.sh [BUILD_DIR] [DATA_DIR]    (defaults: build, BUILD_DIR/bench-data)
#
# Inputs, made by bench/gen_chrome.py from the real fixtures of tests/data/chrome/:
#   cpuprofile-700k   node's .cpuprofile with 700,000 samples (about 5 MB)
#   cpuprofile-6M     the same with 6,000,000 samples (about 45 MB)
#   trace-20MB        the Chromium startup trace repeated to 20 MB (CPU profile chunks and
#                     duration events)
#   events-20MB, events-100MB: the same without the CPU profile events, a plain Trace Event
#                     file of duration events (speedscope's Trace Event importer)
#   trace-100MB, trace-1GB (BIG_MB, default 1000): the same at 100 MB and 1 GB, where memory
#                     must stay flat
# and speedscope and Firefox Profiler files, made by bench/gen_json_profiles.py from the
# processed Firefox file profkit writes from cpuprofile-6M (its frames, stacks and sample order,
# repeated to the size):
#   speedscope-sampled-*, speedscope-evented-*: speedscope files (evented as speedscope's own
#                     exporter writes them), read by speedscope's speedscope importer
#   gecko-*           the Gecko format in an old DevTools export, the one Firefox form
#                     speedscope's Firefox importer reads
#   firefox-*         the processed format (profkit's own layout), which speedscope does not read
# ONLY=chrome or ONLY=json runs one of the two sets.
# profkit converts each to folded stacks (`convert --to folded -o /dev/null`, the whole read plus
# a writer); bench/yajl_parse (yajl alone, no callbacks: the floor under the readers) parses it; speedscope imports each (the peer is skipped above PEER_MAX_MB, default 150: it
# cannot hold them) under PEER_TIMEOUT seconds (default 300); a failure is shown with its exit
# status. Peak memory is /usr/bin/time's
# maximum resident set size. Each file is read once before it is measured, so that every tool
# reads it from the page cache.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
data=${2:-$build/bench-data}
big_mb=${BIG_MB:-1000}
peer_max_mb=${PEER_MAX_MB:-150}
peer_timeout=${PEER_TIMEOUT:-300}
profkit=$build/profkit
yajl_parse=$build/bench/yajl_parse
speedscope=tools/speedscope/node_modules/speedscope
[ -x "$profkit" ] || { echo "bench_chrome: build profkit in $build first" >&2; exit 2; }
mkdir -p "$data"

make_input() {
  local file=$data/$1
  shift
  [ -s "$file" ] || python3 bench/gen_chrome.py "$@" "$file" || exit 1
  echo "$file"
}

# measure COMMAND...: "wall_s cpu_s peak_mb status" (cpu: user + system)
measure() {
  local log
  log=$(mktemp)
  /usr/bin/time -f '%e %U %S %M' -o "$log" timeout "$peer_timeout" "$@" >/dev/null 2>&1
  local status=$?
  read -r wall user sys kb < <(tail -n 1 "$log")
  rm -f "$log"
  echo "$wall $(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }') $((kb / 1024)) $status"
}

# row NAME SIZE_MB TOOL WALL CPU PEAK STATUS
row() {
  local rate=- note=""
  [ "$7" = 0 ] && rate=$(awk -v s="$2" -v c="$5" 'BEGIN { printf "%.1f", (c > 0 ? s / c : 0) }')
  [ "$7" = 0 ] || note="failed (status $7$([ "$7" = 124 ] && echo ": time limit"))"
  printf '| %-16s | %8s | %-10s | %8s | %7s | %9s | %8s | %s\n' "$1" "$2" "$3" "$4" "$5" "$rate" \
    "$6" "$note"
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '| %-16s | %8s | %-10s | %8s | %7s | %9s | %8s | %s\n' input MB tool "wall s" "cpu s" \
  "cpu MB/s" "peak MB" ""
# measure_all NAME FILE: profkit, yajl alone and speedscope on FILE, a row each
measure_all() {
  local name=$1 file=$2 size wall cpu peak status
  size=$(awk -v b="$(stat -c %s "$file")" 'BEGIN { printf "%.1f", b / 1e6 }')
  # Every tool reads the file from the page cache: the first one measured must not pay the disk.
  cat "$file" >/dev/null
  read -r wall cpu peak status < <(measure "$profkit" convert "$file" --to folded -o /dev/null)
  row "$name" "$size" profkit "$wall" "$cpu" "$peak" "$status"
  if [ -x "$yajl_parse" ]; then
    read -r wall cpu peak status < <(measure "$yajl_parse" "$file")
    row "$name" "$size" "yajl alone" "$wall" "$cpu" "$peak" "$status"
  fi
  if [ -d "$speedscope" ] && awk -v s="$size" -v m="$peer_max_mb" 'BEGIN { exit !(s <= m) }'; then
    read -r wall cpu peak status < <(SPEEDSCOPE_IMPORT_ONLY=1 measure node \
      tests/tools/speedscope_import.js "$speedscope" "$file")
    row "$name" "$size" speedscope "$wall" "$cpu" "$peak" "$status"
  fi
}

[ "${ONLY:-chrome}" = chrome ] || [ -z "${ONLY:-}" ] &&
for spec in "cpuprofile-700k.cpuprofile cpuprofile 700000" \
            "cpuprofile-6M.cpuprofile cpuprofile 6000000" "trace-20MB.json trace 20" \
            "events-20MB.json events 20" "events-100MB.json events 100" \
            "trace-100MB.json trace 100" "trace-${big_mb}MB.json trace $big_mb"; do
  set -- $spec
  measure_all "${1%.*}" "$(make_input "$1" "$2" "$3")"
done

[ "${ONLY:-json}" = json ] || [ -z "${ONLY:-}" ] || exit 0
source=$data/cpuprofile-6M.firefox.json
[ -s "$source" ] || "$profkit" convert "$(make_input cpuprofile-6M.cpuprofile cpuprofile 6000000)" \
  --to firefox -o "$source" || exit 1
for spec in "speedscope-sampled 20 100" "speedscope-evented 20 100" "gecko 20 100" "firefox 20 100"; do
  set -- $spec
  kind=$1
  shift
  for mb in "$@"; do
    file=$data/$kind-${mb}MB.json
    [ -s "$file" ] || python3 bench/gen_json_profiles.py "$kind" "$source" "$mb" "$file" || exit 1
    measure_all "$kind-${mb}MB" "$file"
  done
done
