# SPDX-License-Identifier: MIT
# Sourced by the benchmark scripts: one command measured with /usr/bin/time -v.
#
#   bench_measure OUT RUNS COMMAND...   writes "wall_s cpu_s peak_mb status" of the fastest of
#                                       RUNS runs (by wall time, or by CPU time when
#                                       BENCH_FASTEST_BY=cpu) into OUT
#   bench_row WIDTH LABEL FILE OUT      prints OUT as a table row for a command that read FILE:
#                                       LABEL (padded to WIDTH), FILE's MB, wall and CPU
#                                       seconds, MB/s by each, peak MB, a non-zero exit status
bench_measure() {
  local out=$1 n=$2 log best="" status=0 line
  shift 2
  log=$(mktemp)
  for _ in $(seq "$n"); do
    /usr/bin/time -v "$@" >/dev/null 2>"$log"
    status=$?
    line=$(awk -F': ' '
      /Elapsed \(wall clock\)/ {k = split($2, t, ":"); s = 0; for (i = 1; i <= k; i++) s = s * 60 + t[i]; w = s}
      /User time/ {u = $2} /System time/ {y = $2}
      /Maximum resident set size/ {r = $2 / 1024}
      END {printf "%.2f %.2f %.0f", w, u + y, r}' "$log")
    if [ -z "$best" ] || awk -v a="$line" -v b="$best" -v k="$([ "${BENCH_FASTEST_BY:-}" = cpu ] && echo 2 || echo 1)" \
        'BEGIN {split(a, x, " "); split(b, y, " "); exit !(x[k] < y[k])}'; then
      best=$line
    fi
  done
  rm -f "$log"
  echo "$best $status" >"$out"
}

bench_row() {
  local mb
  mb=$(awk -v b="$(stat -c %s "$3")" 'BEGIN {printf "%.1f", b / 1e6}')
  awk -v w="$1" -v l="$2" -v mb="$mb" '{
      note = $4 != 0 ? "exit " $4 : ""
      wall = $1 > 0 ? mb / $1 : 0
      cpu = $2 > 0 ? mb / $2 : 0
      printf "| %-*s | %6.1f | %7.2f | %7.2f | %7.0f | %7.0f | %6d | %s\n", w, l, mb, $1, $2, wall, cpu, $3, note
    }' "$4"
}
