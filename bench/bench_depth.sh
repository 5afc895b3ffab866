#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Deep recursion: how the reports and writers grow with the depth of the stacks. The input is
# bench/gen_deep's Trace Event file of DEPTH nested calls of six recursive-descent functions,
# each call with time of its own: DEPTH distinct stacks of depths 1 to DEPTH. Prints one
# markdown row per command and depth: wall time, CPU time (user + system) and peak memory.
#
#   bench/bench_depth.sh [BUILD_DIR] [DATA_DIR]   (defaults: build, BUILD_DIR/bench-data)
#
# Output goes to standard output, which is thrown away. DEPTHS (default "2000 20000 200000") are the depths measured; the writers of formats that
# store every stack whole (folded, pprof), whose output grows with the square of the depth,
# run only at QUADRATIC_DEPTHS (default "2000 20000"). PROFKIT (default BUILD_DIR/profkit) is
# the command measured, to compare another build; RUNS (default 1) keeps the fastest of so
# many runs.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
data=${2:-$build/bench-data}/depth
runs=${RUNS:-1}
depths=${DEPTHS:-2000 20000 200000}
quadratic_depths=${QUADRATIC_DEPTHS:-2000 20000}
profkit=${PROFKIT:-$build/profkit}
. bench/measure.sh
mkdir -p "$data"

if [ ! -x "$build/bench/gen_deep" ] || [ ! -x "$profkit" ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DPROFKIT_BENCH=ON >/dev/null
  cmake --build "$build" -j2 --target profkit_cli gen_deep >/dev/null
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "| depth | command | wall s | cpu s | peak MiB |"
echo "|---:|---|---:|---:|---:|"
for depth in $depths; do
  input=$data/deep-$depth.json
  [ -s "$input" ] || "$build/bench/gen_deep" trace "$depth" >"$input"
  commands=(
    "report"
    "report --tree"
    "report --callers parse_term"
    "report --lines"
    "report --json"
    "report --tree --json"
    "convert --to svg -o -"
    "convert --to callgrind -o -"
    "convert --to speedscope -o -"
    "convert --to firefox -o -"
  )
  case " $quadratic_depths " in
  *" $depth "*)
    commands+=("convert --to folded -o -" "convert --to pprof -o -") ;;
  esac
  for c in "${commands[@]}"; do
    set -- $c
    verb=$1
    shift
    bench_measure "$out/m" "$runs" "$profkit" "$verb" "$input" "$@"
    read -r wall cpu peak status <"$out/m"
    shown=$c
    [ "$status" = 0 ] || shown="$shown (exit $status)"
    echo "| $depth | \`profkit $shown\` | $wall | $cpu | $peak |"
  done
done
