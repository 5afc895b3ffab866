# SPDX-License-Identifier: MIT
# heaptrack recordings (zstd and gzip, made by heaptrack 1.4 from tests/data/heaptrack/src):
# probing by content through either decompressor; the totals and every allocation site's
# figures are heaptrack_print's (its *.print.txt beside each file: calls to allocation
# functions, temporary allocations, peak consumption, leaks); go tool pprof on the pprof output;
# cut and damaged files.
. "$(dirname "$0")/lib.sh"
DATA=$SRC/tests/data/heaptrack

for f in "$DATA"/heaptrack.*.zst "$DATA"/heaptrack.*.gz; do
    expect_status 0 "$PROFKIT" info "$f"
    expect_contains "$OUT" "format                   heaptrack" "info of ${f##*/}"
    expect_eq "$ERR" "" "warnings of ${f##*/}"
done

# heaptrack_print's figures: the totals, then per section and leaf function the sum of its
# entries ("calls NAME N", "peak NAME BYTES", "leaked NAME BYTES", "temporary NAME N"), sizes
# as heaptrack prints them.
from_print() {
    python3 - "$1" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().split("\n")
total = {}
for key, pattern in [("calls", r"^calls to allocation functions: (\d+)"),
                     ("temporary", r"^temporary memory allocations: (\d+)"),
                     ("peak", r"^peak heap memory consumption: (\S+)"),
                     ("leaked", r"^total memory leaked: (\S+)")]:
    for line in lines:
        m = re.match(pattern, line)
        if m:
            total[key] = m.group(1)
for key in ["calls", "temporary", "peak", "leaked"]:
    print("total", key, total.get(key, "missing"))
entries = [("calls", r"^(\d+) calls to allocation functions with \S+ peak consumption from$"),
           ("peak", r"^(\S+) peak memory consumed over \d+ calls from$"),
           ("leaked", r"^(\S+) leaked over \d+ calls from$"),
           ("temporary", r"^(\d+) temporary allocations of \d+ allocations in total .* from$")]
sums = {}
for i, line in enumerate(lines):
    for key, pattern in entries:
        m = re.match(pattern, line)
        if m and i + 1 < len(lines):
            sums.setdefault((key, lines[i + 1]), []).append(m.group(1))
for (key, name) in sorted(sums):
    values = sums[(key, name)]
    # sizes sum only when the entry is alone: heaptrack rounds each one
    if key in ("calls", "temporary"):
        print(key, name, sum(int(v) for v in values))
    elif len(values) == 1:
        print(key, name, values[0])
PY
}

# The same figures of profkit's reading: its properties, and per value the folded stacks
# summed by leaf function.
from_profkit() {
    "$PROFKIT" info "$1" >info.txt
    for v in alloc_objects peak_space inuse_space temporary_objects; do
        "$PROFKIT" convert "$1" --to folded --value "$v" >"$v.folded"
    done
    python3 - info.txt <<'PY'
import re, sys
def size(b):
    # heaptrack_print's units: powers of 1000, a unit up while the number is above 1000
    units, v, u = ["B", "K", "M", "G", "T"], float(b), 0
    while abs(v) > 1000 and u + 1 < len(units):
        v, u = v / 1000, u + 1
    return "%dB" % b if u == 0 else "%.2f%s" % (v, units[u])
props = {}
for line in open(sys.argv[1]):
    m = re.match(r"^(heaptrack\.\S+)\s+(\S+)$", line)
    if m:
        props[m.group(1)] = m.group(2)
print("total calls", props["heaptrack.calls"])
print("total temporary", props["heaptrack.temporary"])
print("total peak", size(int(props["heaptrack.peak_heap_B"])))
print("total leaked", size(int(props["heaptrack.leaked_B"])))
def short(name):
    # heaptrack_print shows template arguments as <> (its prettyFunction; operator< stays)
    out, depth = "", 0
    for c in name:
        if c in "<>" and len(out) >= 8:
            if out.endswith("operator" + (c if out.endswith(c) else "")):
                out += c
                continue
        if c == "<":
            depth += 1
            if depth == 1:
                out += c
        elif c == ">":
            depth -= 1
        if depth:
            continue
        out += c
    return out
out = []
for key, value, sized in [("calls", "alloc_objects", False), ("peak", "peak_space", True),
                          ("leaked", "inuse_space", True), ("temporary", "temporary_objects", False)]:
    sums = {}
    for line in open(value + ".folded"):
        stack, n = line.rstrip("\n").rsplit(" ", 1)
        leaf = short(stack.split(";")[-1])
        sums[leaf] = sums.get(leaf, 0) + int(n)
    for leaf, n in sums.items():
        if n > 0:
            out.append((key, leaf, size(n) if sized else str(n)))
for key, leaf, n in sorted(out):
    print(key, leaf, n)
PY
}

for f in "$DATA"/heaptrack.*.zst; do
    base=${f##*/}
    base=${base%.zst}
    from_print "$DATA/$base.print.txt" >"$base.print.sums"
    from_profkit "$f" >"$base.profkit.sums"
    # profkit lists every site; heaptrack_print sizes an entry only where it stands alone
    CHECKS=$((CHECKS + 1))
    missing=$(grep -v -x -F -f "$base.profkit.sums" "$base.print.sums" || true)
    if [ -n "$missing" ]; then
        fail "$base: heaptrack_print's figures that profkit's differ from: $missing"
        diff "$base.print.sums" "$base.profkit.sums" | head -20 >&2
    fi
    # not vacuous: the four totals and some sites of each kind were compared
    expect_contains "$(cat "$base.print.sums")" "total calls " "$base totals"
    CHECKS=$((CHECKS + 1))
    [ "$(grep -c -v '^total ' "$base.print.sums")" -ge 3 ] || fail "$base: too few sites compared"
done

# The committed heaptrack_print outputs are what heaptrack_print prints today.
if need_tool heaptrack_print heaptrack; then
    for f in "$DATA"/heaptrack.*.zst; do
        base=${f##*/}
        (cd "$DATA" && heaptrack_print -n 1000 -s 1 -l 1 "${f##*/}") >live.txt 2>/dev/null
        expect_eq "$(cat live.txt)" "$(cat "$DATA/${base%.zst}.print.txt")" "heaptrack_print of $base"
    done
fi

# Memory over time: the counter `heap` holds, at every time stamp, what heaptrack_print's massif
# output (-M) gives for that time; the Firefox output draws it as a memory track.
OVER_TIME=$DATA/heaptrack.phases_over_time.30736
expect_status 0 "$PROFKIT" convert --quiet "$OVER_TIME.zst" -o over_time.json
expect_eq "$(python3 - over_time.json "$OVER_TIME.massif" <<'PY'
import json, re, sys
counters = {c["name"]: c for c in json.load(open(sys.argv[1]))["counters"]}
heap = counters["heap"]["samples"]
assert counters["heap"]["category"] == "Memory" and counters["RSS"]["category"] == "Memory"
levels, level = [], 0
for change in heap["count"]:
    level += change
    levels.append(level)
# heaptrack_print's snapshots: time in seconds since the start, heap bytes then
snapshots = dict(re.findall(r"time=([\d.]+)\nmem_heap_B=(\d+)", open(sys.argv[2]).read()))
snapshots = {round(float(t) * 1000): int(b) for t, b in snapshots.items()}
# Firefox times count from the earliest counter sample, heaptrack_print's first snapshot
start = min(snapshots)
matched = 0
for t, l in zip(heap["time"], levels):
    ms = round(t) + start
    assert snapshots.get(ms) == l, (ms, l, snapshots.get(ms))
    matched += 1
print(matched >= 40, max(levels), levels[-1])
PY
)" "True 872704 200000" "the heap counter against heaptrack_print's massif output"

# The gzip copy reads the same as the zstd recording.
expect_status 0 "$PROFKIT" convert "$DATA/heaptrack.news.25393.gz" --to folded --value peak_space
gz=$OUT
expect_status 0 "$PROFKIT" convert "$DATA/heaptrack.news.25393.zst" --to folded --value peak_space
expect_eq "$gz" "$OUT" "the gzip and zstd copies"

# The phases: a site's peak is its bytes at the global peak, not its own maximum.
expect_status 0 "$PROFKIT" convert "$DATA/heaptrack.phases.27345.zst" --to folded --value peak_space
expect_contains "$OUT" "main;site_a 100000" "site_a's bytes at the peak"
expect_contains "$OUT" "main;site_b 400000" "site_b's bytes at the peak"
expect_not_contains "$OUT" "site_c" "site_c, allocated after the peak"

# report --memory: the leaks.
expect_status 0 "$PROFKIT" report --memory "$DATA/heaptrack.news.25393.zst"
expect_contains "$OUT" "memory: 1.09 KiB unfreed in 20 blocks" "the leak report"

# pprof output carries the memory values under Go's names, which go tool pprof selects.
if need_tool go golang-go; then
    export GOCACHE=$SCRATCH/gocache GOPATH=$SCRATCH/gopath
    expect_status 0 "$PROFKIT" convert "$DATA/heaptrack.leaks.25303.zst" --to pprof -o leaks.pb.gz
    expect_status 0 go tool pprof -top -sample_index=inuse_space -symbolize=none leaks.pb.gz
    expect_contains "$OUT" "Showing nodes accounting for 14.93kB, 100% of 14.93kB total" \
        "go tool pprof's leaks (15292 B)"
    expect_status 0 go tool pprof -top -sample_index=peak_space -symbolize=none leaks.pb.gz
    expect_contains "$OUT" "1062.21kB, 100% of 1062.21kB total" "go tool pprof's peak (1087704 B)"
    expect_contains "$OUT" "976.56kB 91.94% 91.94%   976.56kB 91.94%  peak" "the peak's site"
fi

# Cut files: the complete lines are kept with --salvage, the cut is named by its line.
python3 -c 'import gzip, sys
text = gzip.open(sys.argv[1]).read()
cut = text[:len(text) * 2 // 3]
if cut.endswith(b"\n"):
    cut = cut[:-1]
open("cut.txt", "wb").write(cut)' "$DATA/heaptrack.news.25393.gz"
expect_status 1 "$PROFKIT" info cut.txt
expect_contains "$ERR" "is cut short (no line end)" "a cut line"
expect_status 0 "$PROFKIT" info --salvage cut.txt
expect_contains "$OUT" "format                   heaptrack" "salvaged cut file"
expect_contains "$OUT" "is cut short (no line end); kept what was read before it" "the salvage warning"
# a cut compressed file: the zstd stream ends early (in its only block: nothing is left to read)
size=$(wc -c <"$DATA/heaptrack.leaks.25303.zst")
head -c $((size - 20)) "$DATA/heaptrack.leaks.25303.zst" >cut.zst
expect_status 1 "$PROFKIT" info cut.zst
expect_contains "$ERR" "byte 903: the zstd data is cut short" "a cut zstd stream"

# Damage inside: an event naming an allocation info never read.
printf 'v 10400 3\nX ./p\ns 1 f\ni 10 0 1\nt 1 0\na 10 1\n+ 0\n+ 5\n' >bad.txt
expect_status 1 "$PROFKIT" info bad.txt
expect_contains "$ERR" "line 8 names an allocation info not read before it" "an unknown info"
expect_status 0 "$PROFKIT" info --salvage bad.txt
expect_contains "$OUT" "alloc_objects          count          total 1" "what came before"
finish
