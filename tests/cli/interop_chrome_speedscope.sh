# SPDX-License-Identifier: MIT
# Chrome's and Node's JSON profiles read by profkit and by speedscope's own importers (the
# speedscope npm package): the self time of every function agrees where the two agree by design.
# They differ by design on: the last sample (both weigh it nothing; its function is left out of
# the comparison), (idle) (a frame in profkit, no frame in speedscope), anonymous
# functions' names (speedscope adds the file and line), and Trace Event frames (speedscope keys
# them by name and args).
. "$(dirname "$0")/lib.sh"

SPEEDSCOPE=$SRC/tools/speedscope/node_modules/speedscope
IMPORT="node $SRC/tests/tools/speedscope_import.js $SPEEDSCOPE"
COMPARE="node $SRC/tests/tools/folded_self_compare.js"
DATA=$SRC/tests/data/chrome

require_tool node "Debian package nodejs; scripts/setup.sh installs it"
require_file "$SPEEDSCOPE/package.json" "scripts/setup-speedscope.sh installs speedscope"

# The name of the function of a V8 profile's last sample (its weight differs by design).
last_sample_function() {
    node -e '
        const d = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
        let nodes = d.nodes, samples = d.samples;
        if (d.traceEvents) {
            nodes = []; samples = [];
            for (const e of d.traceEvents) {
                const p = e.name === "ProfileChunk" && e.args.data.cpuProfile;
                if (!p) continue;
                nodes.push(...(p.nodes || []));
                samples.push(...(p.samples || []));
            }
        }
        const last = nodes.find(n => n.id === samples[samples.length - 1]);
        console.log(last.callFrame.functionName || "(anonymous");' "$1"
}

for fixture in node-cpu-prof.cpuprofile node-inspector-trace.json; do
    expect_status 0 $IMPORT "$DATA/$fixture"
    printf '%s\n' "$OUT" > "$fixture.speedscope"
    expect_status 0 "$PROFKIT" convert "$DATA/$fixture" --to folded --value cpu -o "$fixture.folded"
    last=$(last_sample_function "$DATA/$fixture")
    expect_status 0 $COMPARE "$fixture.speedscope" "$fixture.folded" 1000 "(idle)" "(root)" "$last"
    expect_contains "$OUT" "compared" "$fixture: per-function self time as speedscope"
    count=$(printf '%s\n' "$OUT" | sed -n 's/compared \([0-9]*\) functions/\1/p')
    [ "${count:-0}" -ge 5 ] || fail "$fixture: only ${count:-0} functions compared"
done

# Heap profiles (node --heap-prof; the inspector's sampling, as DevTools takes it): speedscope
# weighs each node by its selfSize, as profkit does, so the stacks and their bytes are the same,
# once speedscope's "(root)" frame is taken off and its anonymous functions' names
# ("(anonymous FILE:LINE)") made profkit's "(anonymous)".
for fixture in node-heap-prof.heapprofile node-inspector-sampling.heapprofile; do
    expect_status 0 $IMPORT "$DATA/$fixture"
    printf '%s\n' "$OUT" > "$fixture.speedscope"
    expect_contains "$OUT" "Chrome Heap Profile" "speedscope imports it as a heap profile"
    expect_status 0 "$PROFKIT" convert "$DATA/$fixture" --to folded -o "$fixture.folded"
    expect_status 0 python3 - "$fixture.speedscope" "$fixture.folded" <<'PY'
import collections, json, re, sys
summary = json.load(open(sys.argv[1]))
assert len(summary["profiles"]) == 1 and summary["profiles"][0]["unit"] == "bytes"
theirs = collections.Counter()
for line in summary["profiles"][0]["folded"]:
    stack, weight = line.rsplit(" ", 1)
    frames = [re.sub(r"^\(anonymous .*\)$", "(anonymous)", f) for f in stack.split(";")]
    theirs[";".join(frames[1:] if frames[0] == "(root)" else frames)] += int(weight)
ours = collections.Counter()
for line in open(sys.argv[2]):
    stack, weight = line.rstrip("\n").rsplit(" ", 1)
    ours[stack] += int(weight)
total = summary["profiles"][0]["total"]
print(f"stacks {len(theirs)} {len(ours)} bytes {total} {sum(theirs.values())} {sum(ours.values())}")
for stack in sorted(set(theirs) | set(ours)):
    if theirs[stack] != ours[stack]:
        print(f"differs: {stack}: speedscope {theirs[stack]}, profkit {ours[stack]}")
PY
    stacks=$(printf '%s\n' "$OUT" | sed -n 's/^stacks \([0-9]*\) .*/\1/p')
    [ "${stacks:-0}" -ge 5 ] || fail "$fixture: only ${stacks:-0} stacks"
    expect_contains "$OUT" "stacks $stacks $stacks bytes" "$fixture: as many stacks as speedscope"
    bytes=$(printf '%s\n' "$OUT" | sed -n 's/.* bytes \([0-9]*\) .*/\1/p')
    expect_contains "$OUT" "bytes $bytes $bytes $bytes" "$fixture: the same bytes as speedscope"
    expect_not_contains "$OUT" "differs:" "$fixture: every stack's bytes as speedscope's"
done

# A minified script (node --cpu-prof): its anonymous functions are all on line 1. speedscope
# keys a V8 frame by name, url, line and column, so it sees each function apart; profkit's
# speedscope file carries the columns, and speedscope sees the same frames in it.
minified_frames() {
    printf '%s\n' "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(sorted({(f["file"], f["line"], f["col"]) for p in d["profiles"] for f in p["frames"]
              if (f.get("file") or "").endswith("/minified.js")}))'
}
expect_status 0 $IMPORT "$DATA/node-minified.cpuprofile"
theirs=$(minified_frames "$OUT")
expect_eq "$(printf '%s' "$theirs" | grep -o "minified.js" | wc -l)" "4" \
    "speedscope: four functions of the minified script"
expect_status 0 "$PROFKIT" convert "$DATA/node-minified.cpuprofile" -o minified.speedscope.json
expect_status 0 $IMPORT minified.speedscope.json
expect_eq "$(minified_frames "$OUT")" "$theirs" "the same frames through profkit's speedscope file"

# Duration events: speedscope's Trace Event importer on the same nested events.
expect_status 0 $IMPORT "$DATA/node-trace-events.json"
printf '%s\n' "$OUT" > events.speedscope
expect_status 0 "$PROFKIT" convert "$DATA/node-trace-events.json" --to folded -o events.folded
expect_status 0 $COMPARE events.speedscope events.folded 1000
expect_contains "$OUT" "compared" "duration events: per-function self time as speedscope"

finish
