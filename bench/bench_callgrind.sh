#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Reading a large callgrind file: profkit against speedscope's callgrind importer (the npm
# package, run in node by tests/tools/speedscope_import.js), side by side in one run: wall time,
# CPU time, throughput (MB/s of the file over wall time and over CPU time: on a loaded machine
# the second says more) and peak memory.
#
#   bench/bench_callgrind.sh [BUILD_DIR] [DATA_DIR]   (defaults: build, BUILD_DIR/bench-data)
#
# The file: valgrind --tool=callgrind on gcc compiling one of profkit's sources (cc1's profile,
# a real call graph of about 9,000 functions), its body repeated with renamed functions and
# compressed ids into one part of SIZE bytes (default 100M): one `events:` line, as speedscope
# needs, and memory that has to grow with the distinct functions of every copy. RUNS (default 2)
# repeats each command and keeps the fastest. speedscope_import.js also lists the imported
# call tree as folded lines, which is part of its time.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
data=${2:-$build/bench-data}/callgrind
runs=${RUNS:-2}
size=${SIZE:-100M}
profkit=$build/profkit
speedscope=tools/speedscope/node_modules/speedscope
mkdir -p "$data"

if [ ! -x "$profkit" ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" -j2 >/dev/null
fi
command -v valgrind >/dev/null || { echo "bench_callgrind: valgrind is needed" >&2; exit 2; }

base=$data/cc1.callgrind
if [ ! -s "$base" ]; then
  tmp=$(mktemp -d)
  valgrind -q --tool=callgrind --trace-children=yes --callgrind-out-file="$tmp/cg.%p" \
    gcc -O2 -Isrc -Iinclude -I"$build/generated" -c src/formats/folded.c -o "$tmp/folded.o" ||
    { echo "bench_callgrind: valgrind failed" >&2; exit 1; }
  # cc1's is the largest of the processes' files.
  cp "$(ls -S "$tmp"/cg.* | head -1)" "$base"
  rm -rf "$tmp"
fi

big=$data/big.callgrind
if [ ! -s "$big" ]; then
  python3 - "$base" "$big" "$size" <<'PY'
import re, sys
base, out, size = sys.argv[1], sys.argv[2], sys.argv[3]
units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
target = int(size[:-1]) * units[size[-1]] if size[-1] in units else int(size)
lines = open(base, encoding="latin-1").read().split("\n")
start = next(i for i, l in enumerate(lines) if l.startswith("summary:"))
end = next(i for i, l in enumerate(lines) if l.startswith("totals:"))
head, body = lines[:start], lines[start + 1:end]
totals = [int(x) for x in lines[end].split()[1:]]
body_size = sum(len(l) + 1 for l in body)
copies = max(1, target // body_size)
spec = re.compile(r"^(fl|fi|fe|fn|ob|cfi|cfl|cfn|cob|jfi|jfn)=\((\d+)\)(.*)$")
step = 1 + max(int(m.group(2)) for m in map(spec.match, body) if m)
with open(out, "w", encoding="latin-1") as f:
    f.write("\n".join(head) + "\n")
    f.write("summary: " + " ".join(str(t * copies) for t in totals) + "\n")
    for k in range(copies):
        for l in body:
            m = spec.match(l)
            if m:
                # Copy k has ids of its own; its function names say which copy they are in.
                name = m.group(3)
                if name and m.group(1) in ("fn", "cfn", "jfn"):
                    name += " #%d" % k
                l = "%s=(%d)%s" % (m.group(1), int(m.group(2)) + k * step, name)
            f.write(l + "\n")
    f.write("totals: " + " ".join(str(t * copies) for t in totals) + "\n")
PY
fi

# measure OUT COMMAND...: "wall cpu peak_mb status" of the fastest of RUNS runs into OUT.
measure() {
  local out=$1 best="" line status
  shift
  for _ in $(seq "$runs"); do
    line=$(/usr/bin/time -f "%e %U %S %M" "$@" 2>&1 >/dev/null | tail -1)
    status=${PIPESTATUS[0]}
    line=$(echo "$line" | awk -v s="$status" '{printf "%.2f %.2f %.0f %s", $1, $2 + $3, $4 / 1024, s}')
    if [ -z "$best" ] || awk -v a="$line" -v b="$best" 'BEGIN {split(a, x, " "); split(b, y, " "); exit !(x[1] < y[1])}'; then
      best=$line
    fi
  done
  echo "$best" >"$out"
}

bytes=$(stat -c %s "$big")
table_row() {
  awk -v l="$1" -v b="$bytes" '{
      note = $4 != 0 ? "exit " $4 : ""
      printf "| %-58s | %7.2f | %7.2f | %7.1f | %7.1f | %6d | %s\n", l, $1, $2, ($1 > 0 ? b / 1048576 / $1 : 0), ($2 > 0 ? b / 1048576 / $2 : 0), $3, note
    }' "$2"
}

tmp=$(mktemp -d)
echo "## callgrind: $bytes bytes ($(grep -c '^fn=' "$big") fn= lines, from $(basename "$base"))"
echo
"$profkit" info --quiet "$big" | grep -E "^  (functions|stacks|sample-rows) " | sed 's/^ */    /'
echo
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| command | wall s | CPU s | MB/s (wall) | MB/s (CPU) | peak MB | |"
echo "|---|---:|---:|---:|---:|---:|---|"
measure "$tmp/info" "$profkit" info --quiet "$big"
table_row "profkit info big.callgrind" "$tmp/info"
measure "$tmp/folded" "$profkit" convert --quiet "$big" --to folded -o "$tmp/x.folded"
table_row "profkit convert big.callgrind --to folded" "$tmp/folded"
measure "$tmp/write" "$profkit" convert --quiet "$big" --to callgrind -o "$tmp/x.callgrind"
table_row "profkit convert big.callgrind --to callgrind" "$tmp/write"
if [ -d "$speedscope" ] && command -v node >/dev/null; then
  measure "$tmp/speedscope" node --max-old-space-size=8192 tests/tools/speedscope_import.js \
    "$speedscope" "$big"
  table_row "node speedscope_import.js (speedscope's importer)" "$tmp/speedscope"
fi
rm -rf "$tmp"
