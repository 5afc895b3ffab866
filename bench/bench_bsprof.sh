#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Throughput and peak memory of profkit on large generated .bsprof files.
#
#   bench/bench_bsprof.sh [BUILD_DIR] [DATA_DIR]      (defaults: build, BUILD_DIR/bench-data)
#
# 1. A 512 MiB file with line data and memory operations: `profkit info` (the reader),
#    `convert --to folded` and, when this build has it, `convert --to firefox`.
# 2. Files of 128, 256 and 512 MiB with the same 1,000,000 memory operations: only CPU and
#    call-count entries grow, so the peak memory should stay flat.
# 3. Live allocations: files with about 2.9 million memory operations of which about a million
#    stay live to the end (gen_bsprof --alloc-percent 64), and a realloc-heavy one (30% allocs,
#    50% reallocs): `info`, `report --memory` and `convert --to folded --value inuse_space`,
#    whose peak memory should follow the live allocations, not the events.
# 4. The reader against a plain decode loop (bench/naive_bsprof_decode: every varint byte by
#    byte, nothing built) on three 330 MiB files of CPU and call-count entries only, with short
#    and with long increments, and the shape of other recorders (bench/gen_bsprof_spread:
#    3,000 path elements, a line offset from 1 to 60 in every CPU entry, increments over all
#    32 bits, 45% call-count entries): CPU time of the loop, `profkit info` and `convert --to
#    folded` (taking turns, RUNS rounds, the least time of each kept), and the loop's time over
#    profkit's.
# MB/s is the file size (MiB) over the wall-clock time; "cpu MB/s" over user + system time,
# which is steadier on a busy machine. Peak memory is the maximum resident set size. Each
# command runs RUNS times (default 3); the fastest run is reported. SECTIONS (default
# "channel growth live naive") picks the parts to run.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
data=${2:-$build/bench-data}
profkit=$build/profkit
gen=$build/bench/gen_bsprof

if [ ! -x /usr/bin/time ]; then
  scripts/setup.sh --build-only
fi
if [ ! -x "$profkit" ] || [ ! -x "$gen" ] || [ ! -x "$build/bench/naive_bsprof_decode" ] ||
   [ ! -x "$build/bench/gen_bsprof_spread" ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$build" -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
fi
mkdir -p "$data"

generate() { # NAME SIZE ARGS...; a first argument "spread" picks gen_bsprof_spread
  local file=$data/$1.bsprof generator=$gen
  shift
  local size=$1
  shift
  if [ "${1:-}" = spread ]; then
    generator=$build/bench/gen_bsprof_spread
    shift
  fi
  [ -s "$file" ] && [ -s "$file.txt" ] || "$generator" --size "$size" "$@" "$file" 2>"$file.txt"
  echo "$file"
}

# measure LABEL FILE command...: one line of the results table, from the fastest of RUNS runs
# (the machine may be shared; the fastest run is the least disturbed one).
RUNS=${RUNS:-3}
measure() {
  local label=$1 file=$2
  shift 2
  local log best="" best_elapsed=""
  log=$(mktemp)
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -v "$@" >/dev/null 2>"$log"
    local elapsed user sys rss
    elapsed=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0;
                          for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s}' "$log")
    user=$(awk -F': ' '/User time/ {print $2}' "$log")
    sys=$(awk -F': ' '/System time/ {print $2}' "$log")
    rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$log")
    if [ -z "$best_elapsed" ] || awk -v a="$elapsed" -v b="$best_elapsed" 'BEGIN {exit !(a < b)}'; then
      best_elapsed=$elapsed
      best="$elapsed $user $sys $rss"
    fi
  done
  rm -f "$log"
  local mib
  mib=$(stat -c %s "$file" | awk '{printf "%.0f", $1 / 1048576}')
  echo "$best" | awk -v l="$label" -v m="$mib" '{
        printf "| %-34s | %5d | %7.2f | %7.0f | %7.2f | %8.0f | %8d |\n",
               l, m, $1, m / $1, $2 + $3, m / ($2 + $3), $4 }'
}

header() {
  echo "| command                            |   MiB |  wall s |    MB/s |   cpu s | cpu MB/s | peak MiB |"
  echo "|------------------------------------|------:|--------:|--------:|--------:|---------:|---------:|"
}

sections=" ${SECTIONS:-channel growth live naive} "
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

if [[ $sections == *" channel "* ]]; then
big=$(generate channel-512m 512M)
entries=$(sed -n 's/.* bytes, \([0-9]*\) entries.*/\1/p' "$big.txt")
echo "## $big: 512 MiB, $entries entries, line data and memory operations"
echo
header
measure "info" "$big" "$profkit" info "$big"
measure "convert --to folded" "$big" "$profkit" convert "$big" --to folded -o "$data/out.folded"
if "$profkit" formats | awk '{print $1}' | grep -qx firefox; then
  measure "convert --to firefox" "$big" "$profkit" convert "$big" --to firefox -o "$data/out.json"
fi
rm -f "$data/out.folded" "$data/out.json"
echo
fi

if [[ $sections == *" growth "* ]]; then
echo "## Peak memory as CPU and call-count entries grow (1,000,000 memory operations each)"
echo
header
for size in 128 256 512; do
  file=$(generate "cpu-growth-${size}m" "${size}M" --max-memory-ops 1000000)
  measure "info (${size} MiB)" "$file" "$profkit" info "$file"
  measure "convert --to folded (${size} MiB)" "$file" "$profkit" convert "$file" --to folded \
    -o "$data/out.folded"
done
rm -f "$data/out.folded"
echo
fi

if [[ $sections == *" live "* ]]; then
echo "## Peak memory with many live allocations"
echo
header
for shape in "live-2.9m 170M --max-memory-ops 2900000 --alloc-percent 64" \
             "realloc-2.9m 150M --max-memory-ops 2900000 --alloc-percent 30 --realloc-percent 50 --seed 7"; do
  read -r name size args <<<"$shape"
  # shellcheck disable=SC2086
  file=$(generate "$name" "$size" $args)
  live=$("$profkit" report "$file" --memory | sed -n 's/^memory: .* in \([0-9]*\) blocks/\1/p')
  measure "info ($name, $live live)" "$file" "$profkit" info "$file"
  measure "report --memory ($name)" "$file" "$profkit" report "$file" --memory
  measure "convert inuse_space ($name)" "$file" "$profkit" convert "$file" --to folded \
    --value inuse_space -o "$data/out.folded"
done
rm -f "$data/out.folded"
echo
fi

# cpu_of COMMAND...: user + system seconds of one run.
cpu_of() {
  local log
  log=$(mktemp)
  /usr/bin/time -f "%U %S" -o "$log" "$@" >/dev/null
  awk '{printf "%.2f", $1 + $2}' "$log"
  rm -f "$log"
}

min_of() { awk -v a="$1" -v b="$2" 'BEGIN {print (b == "" || a < b) ? a : b}'; }

if [[ $sections == *" naive "* ]]; then
# Three shapes of 330 MiB of CPU and call-count entries: the generator's default increments (about
# 4.8 bytes an entry), increments of up to 2,000,000,000 CPU operations (longer varints,
# about 6.9 bytes an entry, nearer the 8 of a device that counts finer), and gen_bsprof_spread's
# (8.5 bytes an entry, 183,000 (path element, line offset) cells: more than the caches hold).
for shape in "cpu-330m --no-memory" "cpu-long-330m --no-memory --cpu-max 2000000000" \
             "spread-330m spread"; do
read -r name args <<<"$shape"
# shellcheck disable=SC2086
cpu=$(generate "$name" 330M $args)
counts=$("$build/bench/naive_bsprof_decode" "$cpu")
echo "## $cpu: $(stat -c %s "$cpu") bytes, $(echo "$counts" | awk '{print $10 " cpu and " $12 " call-count entries"}')"
echo
# The three commands take turns, so that each meets the same load; the least CPU time of each.
# Each round's ratios are printed too: on a loaded machine their spread says how far to trust them.
naive="" info="" folded=""
ratio() { awk -v n="$1" -v t="$2" 'BEGIN {printf "%.2f", n / t}'; }
for round in $(seq "$RUNS"); do
  n=$(cpu_of "$build/bench/naive_bsprof_decode" "$cpu")
  i=$(cpu_of "$profkit" info "$cpu")
  f=$(cpu_of "$profkit" convert "$cpu" --to folded -o "$data/out.folded")
  echo "round $round: naive loop $n s, info $i s ($(ratio "$n" "$i")x), convert --to folded $f s ($(ratio "$n" "$f")x)"
  naive=$(min_of "$n" "$naive")
  info=$(min_of "$i" "$info")
  folded=$(min_of "$f" "$folded")
done
rm -f "$data/out.folded"
echo
echo "| command | cpu s | naive loop cpu / this cpu |"
echo "|---|---:|---:|"
echo "| naive_bsprof_decode (byte-wise varint loop) | $naive | 1.00 |"
echo "| profkit info | $info | $(ratio "$naive" "$info") |"
echo "| profkit convert --to folded | $folded | $(ratio "$naive" "$folded") |"
echo
done
fi
