# SPDX-License-Identifier: MIT
# Chrome's and Node's JSON profiles through the command: found by content whatever their names,
# converted to folded stacks, pprof and the Firefox Profiler's format; cut and damaged files.
. "$(dirname "$0")/lib.sh"

DATA=$SRC/tests/data/chrome

# Sum of the weights of folded lines on standard input.
folded_total() {
    awk '{ total += $NF } END { print total + 0 }'
}

# ---- probing by content --------------------------------------------------------------------
cp "$DATA/node-cpu-prof.cpuprofile" profile.bin
expect_status 0 "$PROFKIT" info profile.bin
expect_contains "$OUT" "format                   cpuprofile" "a .cpuprofile by its keys"
cp "$DATA/node-inspector-trace.json" trace.bin
expect_status 0 "$PROFKIT" info trace.bin
expect_contains "$OUT" "format                   chrome-trace" "a trace by its keys"
expect_contains "$OUT" "JavaScriptMainThread" "thread named by its M event"
expect_status 0 "$PROFKIT" info "$DATA/chromium-startup.trace.json.gz"
expect_contains "$OUT" "format                   chrome-trace" "a gzipped Chromium trace"
expect_status 0 "$PROFKIT" formats
expect_contains "$OUT" "cpuprofile" "listed"
expect_contains "$OUT" "chrome-trace" "listed"
expect_contains "$OUT" "heapprofile" "listed"
cp "$DATA/node-heap-prof.heapprofile" heap.bin
expect_status 0 "$PROFKIT" info heap.bin
expect_contains "$OUT" "format                   heapprofile" "a .heapprofile by its keys"
expect_contains "$OUT" "space                  bytes" "bytes by stack"

# ---- conversions ----------------------------------------------------------------------------
expect_status 0 "$PROFKIT" convert "$DATA/node-cpu-prof.cpuprofile" --to folded
# The samples counted with python3, which every CLI test may use (scripts/setup.sh), so that
# the check never depends on a tool that may be missing.
samples=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["samples"]))' \
    "$DATA/node-cpu-prof.cpuprofile")
expect_eq "$samples" 114 "the samples of node-cpu-prof.cpuprofile"
expect_status 0 "$PROFKIT" convert "$DATA/node-cpu-prof.cpuprofile" --to folded --value samples
expect_eq "$(printf '%s\n' "$OUT" | folded_total)" "$samples" "one count per sample"
expect_contains "$OUT" "(program) " "the (program) frame kept"
expect_status 0 "$PROFKIT" convert "$DATA/node-cpu-prof.cpuprofile" -o cpu.pb.gz
expect_file cpu.pb.gz
expect_status 0 "$PROFKIT" info cpu.pb.gz
expect_contains "$OUT" "samples" "pprof keeps both values"
expect_status 0 "$PROFKIT" convert "$DATA/chromium-startup.trace.json.gz" -o trace.json --to firefox
expect_file trace.json
# The renderers' duration events weigh no cpu (the default value, from the CPU profiles): written
# by cpu they are left out, as rows weighing nothing are (the writer wrote them without their
# frames and said "out of memory"); written by wall time they are the spans.
expect_status 0 "$PROFKIT" convert "$DATA/chromium-startup.trace.json.gz" -o trace.speedscope.json \
    --to speedscope --quiet
expect_not_contains "$(cat trace.speedscope.json)" '"name":"ParseHTML"' "speedscope by cpu: no span"
expect_contains "$(cat trace.speedscope.json)" '"name":"work"' "speedscope by cpu: the V8 samples"
expect_status 0 "$PROFKIT" convert "$DATA/chromium-startup.trace.json.gz" -o trace-wall.speedscope.json \
    --to speedscope --value wall --quiet
expect_contains "$(cat trace-wall.speedscope.json)" '"name":"ParseHTML"' "speedscope by wall: the spans"
expect_status 0 "$PROFKIT" convert "$DATA/node-trace-events.json" --to folded
expect_contains "$OUT" "MinorGC;V8.GCScavenger " "duration events as stacks"
expect_status 0 "$PROFKIT" report "$DATA/node-trace-events.json" --tree
expect_contains "$OUT" "wall" "duration events weigh wall time"
# A heap profile: its bytes (the selfSize of every node, summed with python3) by stack.
bytes=$(python3 -c '
import json, sys
def size(node): return node["selfSize"] + sum(size(c) for c in node["children"])
print(size(json.load(open(sys.argv[1]))["head"]))' "$DATA/node-heap-prof.heapprofile")
expect_status 0 "$PROFKIT" convert "$DATA/node-heap-prof.heapprofile" --to folded
expect_eq "$(printf '%s\n' "$OUT" | folded_total)" "$bytes" "the bytes of every node"
expect_contains "$OUT" "makeStrings;repeat " "the script's allocations by stack"
expect_status 0 "$PROFKIT" convert "$DATA/node-heap-prof.heapprofile" -o heap.pb.gz
expect_status 0 "$PROFKIT" info heap.pb.gz
expect_contains "$OUT" "space                  bytes          total $bytes" "pprof keeps the bytes"

# ---- cut and damaged files --------------------------------------------------------------------
size=$(stat -c %s "$DATA/node-inspector-trace.json")
head -c $((size * 2 / 3)) "$DATA/node-inspector-trace.json" > cut.json
expect_status 0 "$PROFKIT" convert cut.json --to folded
expect_contains "$ERR" "the trace ends early" "a cut trace is read with a warning"
head -c $((size * 2 / 3)) "$DATA/node-cpu-prof.cpuprofile" > cut.cpuprofile
expect_status 1 "$PROFKIT" convert cut.cpuprofile --to folded
expect_contains "$ERR" "cut.cpuprofile: byte" "the error names the byte"
expect_contains "$ERR" "--salvage" "salvage suggested"
expect_status 0 "$PROFKIT" convert cut.cpuprofile --to folded --salvage
size=$(stat -c %s "$DATA/node-heap-prof.heapprofile")
head -c $((size / 4)) "$DATA/node-heap-prof.heapprofile" > cut.heapprofile # inside the tree
expect_status 1 "$PROFKIT" convert cut.heapprofile --to folded
expect_contains "$ERR" "cut.heapprofile: byte $((size / 4))" "a cut heap profile: the byte"
expect_status 0 "$PROFKIT" convert cut.heapprofile --to folded --salvage
expect_contains "$ERR" "ends early" "salvage keeps the nodes read"
printf '{"nodes": [{"id": 1, "callFrame": {"functionName": "a"}}], "samples": [1,}' > bad.cpuprofile
expect_status 1 "$PROFKIT" info bad.cpuprofile
expect_contains "$ERR" "byte 74: the CPU profile is not valid JSON" "the offset of the syntax error"
expect_not_contains "$OUT" "gperftools" "not taken for gperftools"

finish
