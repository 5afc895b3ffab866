#!/usr/bin/env bash
# Throughput and peak memory of profkit on large generated .bsprof files.
#
#   bench/bench_bsprof.sh [BUILD_DIR] [DATA_DIR]      (defaults: build, BUILD_DIR/bench-data)
#
# 1. A 512 MiB file with line data and memory operations: `profkit info` (the reader),
#    `convert --to folded` and, when this build has it, `convert --to firefox`.
# 2. Files of 128, 256 and 512 MiB with the same 1,000,000 memory operations: only CPU and
#    call-count entries grow, so the peak memory should stay flat.
# 3. The reader against a plain decode loop (bench/naive_bsprof_decode: every varint byte by
#    byte, nothing built) on a 330 MiB file of CPU and call-count entries only: CPU time of the
#    loop, `profkit info` and `convert --to folded` (taking turns, RUNS rounds, the least time
#    of each kept), and the loop's time over profkit's.
# MB/s is the file size (MiB) over the wall-clock time; "cpu MB/s" over user + system time,
# which is steadier on a busy machine. Peak memory is the maximum resident set size. Each
# command runs RUNS times (default 3); the fastest run is reported. SECTIONS (default
# "channel growth naive") picks the parts to run.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
data=${2:-$build/bench-data}
profkit=$build/profkit
gen=$build/bench/gen_bsprof

if [ ! -x /usr/bin/time ]; then
  scripts/setup.sh --build-only
fi
if [ ! -x "$profkit" ] || [ ! -x "$gen" ] || [ ! -x "$build/bench/naive_bsprof_decode" ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$build" -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
fi
mkdir -p "$data"

generate() { # NAME SIZE ARGS...
  local file=$data/$1.bsprof
  shift
  local size=$1
  shift
  [ -s "$file" ] && [ -s "$file.txt" ] || "$gen" --size "$size" "$@" "$file" 2>"$file.txt"
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

sections=" ${SECTIONS:-channel growth naive} "
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
cpu=$(generate cpu-330m 330M --no-memory)
counts=$("$build/bench/naive_bsprof_decode" "$cpu")
echo "## $cpu: $(stat -c %s "$cpu") bytes, $(echo "$counts" | awk '{print $10 " cpu and " $12 " call-count entries"}')"
echo
# The three commands take turns, so that each meets the same load; the least CPU time of each.
naive="" info="" folded=""
for _ in $(seq "$RUNS"); do
  naive=$(min_of "$(cpu_of "$build/bench/naive_bsprof_decode" "$cpu")" "$naive")
  info=$(min_of "$(cpu_of "$profkit" info "$cpu")" "$info")
  folded=$(min_of "$(cpu_of "$profkit" convert "$cpu" --to folded -o "$data/out.folded")" "$folded")
done
rm -f "$data/out.folded"
echo "| command | cpu s | naive loop cpu / this cpu |"
echo "|---|---:|---:|"
echo "| naive_bsprof_decode (byte-wise varint loop) | $naive | 1.00 |"
echo "| profkit info | $info | $(awk -v n="$naive" -v t="$info" 'BEGIN {printf "%.2f", n / t}') |"
echo "| profkit convert --to folded | $folded | $(awk -v n="$naive" -v t="$folded" 'BEGIN {printf "%.2f", n / t}') |"
fi
