#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs the libFuzzer harnesses (fuzz/fuzz_*.c), built with clang in build-fuzz/.
#
#   scripts/fuzz.sh [SECONDS] [JOBS]   each harness for SECONDS (default 60) of wall time with
#                                      JOBS processes (default 1; more use libFuzzer's -fork)
#   scripts/fuzz.sh --merge            adds to fuzz/corpus/NAME the inputs of the last runs
#                                      that reach code it does not (libFuzzer's -merge=1 by
#                                      edges)
#
# Each harness starts from its corpus fuzz/corpus/NAME (copied to build-fuzz/corpus/NAME, where
# it grows; the round trip also from every other corpus) with its dictionary fuzz/NAME.dict when
# there is one. PK_FUZZ_HARNESSES="pprof round_trip" runs only those; they run side by side, as
# many as the processors hold (PK_FUZZ_PARALLEL=N sets it). An input that crashes, trips a
# sanitizer (undefined behaviour halts too), leaks, runs longer than 60 s or allocates more than
# 2 GiB is a finding, saved in build-fuzz/findings/. Prints per harness the CPU seconds it used,
# the executions, the coverage (libFuzzer's cov: and ft:) and the findings; exits 1, lists the
# saved inputs and shows what each failing harness printed about its finding when there is any.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

merge=false
if [ "${1:-}" = "--merge" ]; then
  merge=true
  shift
  [ $# -eq 0 ] || usage
fi
seconds=${1:-60}
jobs=${2:-1}
[ $# -le 2 ] || usage
case "$seconds" in '' | *[!0-9]* | 0) usage ;; esac
case "$jobs" in '' | *[!0-9]* | 0) usage ;; esac

scripts/setup.sh --build-only
cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
      -DPROFKIT_FUZZ=ON -DPROFKIT_TESTS=OFF -DPROFKIT_WERROR=ON >/dev/null
cmake --build build-fuzz -j"$(nproc 2>/dev/null || echo 2)" >/dev/null

harnesses=()
for harness in build-fuzz/fuzz/fuzz_*; do
  [ -x "$harness" ] || continue
  name=${harness##*/fuzz_}
  if [ -n "${PK_FUZZ_HARNESSES:-}" ]; then
    case " $PK_FUZZ_HARNESSES " in *" $name "*) ;; *) continue ;; esac
  fi
  harnesses+=("$name")
done
[ ${#harnesses[@]} -gt 0 ] || { echo "fuzz: no harness to run" >&2; exit 2; }

# The corpora a harness starts from besides its own: the round trip reads every format, so the
# other harnesses' corpora seed it, and its own corpus holds only what they do not reach.
seed_corpora() {
  [ "$1" = round_trip ] || return 0
  local dir
  for dir in fuzz/corpus/*/; do
    [ "${dir%/}" = fuzz/corpus/round_trip ] || echo "${dir%/}"
  done
}

if $merge; then
  for name in "${harnesses[@]}"; do
    [ -d "build-fuzz/corpus/$name" ] || continue
    mkdir -p "fuzz/corpus/$name"
    before=$(ls "fuzz/corpus/$name" | wc -l)
    # Merged into a copy of the seeds and the corpus, so that an input counts only for what
    # none of them reaches; the inputs it adds go to the corpus.
    work=build-fuzz/merge-$name
    rm -rf "$work"
    mkdir -p "$work"
    for dir in $(seed_corpora "$name") "fuzz/corpus/$name"; do
      cp "$dir"/* "$work"/ 2>/dev/null || true
    done
    ls "$work" | sort >"$work.before"
    # Edges, not hit counts (-use_counters=0): a few times fewer inputs for the same code.
    # An input that fails is left out of the merge and saved as a finding.
    mkdir -p build-fuzz/findings
    "build-fuzz/fuzz/fuzz_$name" -merge=1 -use_counters=0 -max_len=65536 -rss_limit_mb=2048 \
      -timeout=60 -artifact_prefix="build-fuzz/findings/$name-" "$work" \
      "build-fuzz/corpus/$name" >"$work.log" 2>&1
    comm -13 "$work.before" <(ls "$work" | sort) | while IFS= read -r file; do
      cp "$work/$file" "fuzz/corpus/$name/"
    done
    after=$(ls "fuzz/corpus/$name" | wc -l)
    echo "$name: $before inputs, $((after - before)) added"
  done
  exit 0
fi

mkdir -p build-fuzz/findings
# Findings from earlier runs are not this run's: only new files count.
list_findings() {
  find build-fuzz/findings -maxdepth 1 -type f \
    \( -name "$1-crash-*" -o -name "$1-leak-*" -o -name "$1-timeout-*" -o -name "$1-oom-*" \) |
    sort
}

# Runs one harness; writes its table row to build-fuzz/findings/NAME.row and what it found (new
# saved inputs, or its log when it failed without saving one) to NAME.found, a path a line.
run_harness() {
  local name=$1
  local harness=build-fuzz/fuzz/fuzz_$name corpus=build-fuzz/corpus/$name
  local log=build-fuzz/findings/$name.log
  mkdir -p "$corpus"
  [ -d "fuzz/corpus/$name" ] && cp -r "fuzz/corpus/$name/." "$corpus/"
  local options=(-max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 -timeout=60
                 -artifact_prefix="build-fuzz/findings/$name-" -print_final_stats=1)
  [ -f "fuzz/$name.dict" ] && options+=(-dict="fuzz/$name.dict")
  [ "$jobs" -gt 1 ] && options+=(-fork="$jobs")
  local before status=0
  before=$(list_findings "$name")
  # CPU time of the harness and its forked jobs (a shared machine gives less than wall time).
  local cpu_file=build-fuzz/findings/$name.cpu
  /usr/bin/time -f '%U %S' -o "$cpu_file" "$harness" "${options[@]}" "$corpus" \
    $(seed_corpora "$name") >"$log" 2>&1 ||
    status=$?
  local cpu new last executions cov ft count
  cpu=$(awk 'END { if (NF == 2) printf "%.0f", $1 + $2 }' "$cpu_file")
  new=$(comm -13 <(printf '%s\n' "$before") <(list_findings "$name") | sed '/^$/d')
  # The last status line: "#EXECUTIONS<TAB>DONE cov: N ft: N" (plain) or "#EXECUTIONS: cov: ..."
  # (fork).
  last=$(grep -E '^#[0-9]+:?[[:space:]].*cov: [0-9]+ ft: [0-9]+' "$log" | tail -1 || true)
  executions=$(printf '%s' "$last" | sed -nE 's/^#([0-9]+).*/\1/p')
  cov=$(printf '%s' "$last" | sed -nE 's/.*cov: ([0-9]+).*/\1/p')
  ft=$(printf '%s' "$last" | sed -nE 's/.* ft: ([0-9]+).*/\1/p')
  count=$(printf '%s' "$new" | grep -c . || true)
  if [ "$status" -ne 0 ] && [ "$count" -eq 0 ]; then
    count="failed (exit $status, see $log)"
    new=$log
  fi
  printf '%-12s %9s %9s %12s %8s %8s %s\n' "$name" "$seconds" "${cpu:-?}" "${executions:-?}" \
    "${cov:-?}" "${ft:-?}" "$count" >"build-fuzz/findings/$name.row"
  printf '%s\n' "$new" | sed '/^$/d' >"build-fuzz/findings/$name.found"
}

# Harnesses run side by side, as many at once as the processors hold their jobs (each harness
# is one process, or JOBS with -fork), so that the time of a run is the harnesses' time over
# that share; PK_FUZZ_PARALLEL=N sets it.
parallel=${PK_FUZZ_PARALLEL:-$(( $(nproc 2>/dev/null || echo 1) / jobs ))}
case "$parallel" in '' | *[!0-9]* | 0) parallel=1 ;; esac
for name in "${harnesses[@]}"; do
  rm -f "build-fuzz/findings/$name.row" "build-fuzz/findings/$name.found"
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do
    wait -n || true
  done
  run_harness "$name" &
done
wait

printf '%-12s %9s %9s %12s %8s %8s %s\n' HARNESS SECONDS CPU_S EXECUTIONS COV FT FINDINGS
all_findings=()
for name in "${harnesses[@]}"; do
  if [ -f "build-fuzz/findings/$name.row" ]; then
    cat "build-fuzz/findings/$name.row"
  else
    printf '%-12s %9s %s\n' "$name" "$seconds" "did not finish"
    all_findings+=("build-fuzz/findings/$name.log")
  fi
  while IFS= read -r file; do
    [ -n "$file" ] && all_findings+=("$file")
  done <"build-fuzz/findings/$name.found" 2>/dev/null || true
done

if [ ${#all_findings[@]} -gt 0 ]; then
  echo "fuzz: findings (reproduce with build-fuzz/fuzz/fuzz_NAME FILE):" >&2
  printf '  %s\n' "${all_findings[@]}" >&2
  # What each failing harness printed about its finding (the message before the report and the
  # report's first frames): a CI log then says what failed without the saved input at hand.
  for name in "${harnesses[@]}"; do
    log=build-fuzz/findings/$name.log
    line=$(grep -n -m1 -E '==[0-9]+== ?ERROR|runtime error:|ERROR: libFuzzer' "$log" | cut -d: -f1 || true)
    [ -n "$line" ] || continue
    echo "== $name: $log from line $((line > 3 ? line - 3 : 1))" >&2
    sed -n "$((line > 3 ? line - 3 : 1)),$((line + 16))p" "$log" | cut -c1-200 >&2
  done
  exit 1
fi
