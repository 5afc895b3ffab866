#!/usr/bin/env bash
# Builds the libFuzzer harnesses with clang and runs each for SECONDS (default 60) on its seed
# corpus (fuzz/corpus/NAME). Findings are left in build-fuzz/findings/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
jobs=$(nproc 2>/dev/null || echo 2)

scripts/setup.sh --build-only
cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
      -DPROFKIT_FUZZ=ON -DPROFKIT_TESTS=OFF -DPROFKIT_WERROR=ON >/dev/null
cmake --build build-fuzz -j"$jobs"

mkdir -p build-fuzz/findings
status=0
for harness in build-fuzz/fuzz/fuzz_*; do
  [ -x "$harness" ] || continue
  name=${harness##*/fuzz_}
  corpus=build-fuzz/corpus/$name
  mkdir -p "$corpus"
  [ -d "fuzz/corpus/$name" ] && cp -r "fuzz/corpus/$name/." "$corpus/"
  echo "== fuzz $name for ${seconds}s" >&2
  if ! "$harness" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 \
       -artifact_prefix="build-fuzz/findings/$name-" -print_final_stats=1 "$corpus" \
       2>"build-fuzz/findings/$name.log"; then
    echo "fuzz $name: failure, see build-fuzz/findings/$name.log" >&2
    tail -40 "build-fuzz/findings/$name.log" >&2
    status=1
  else
    grep -E "^stat::number_of_executed_units|^Done" "build-fuzz/findings/$name.log" >&2 || true
  fi
done
exit $status
