# SPDX-License-Identifier: MIT
# Loads profkit's Firefox Profiler output with the profiler's own loading code
# (@firefox-devtools/profiler-cli, run by Node 24 from tools/node_modules) and checks thread
# names, total weights, the heaviest functions and the native allocation views of profiles
# built through the model API and of folded stacks. interop_firefox_profiler_bsprof.sh does the
# same for .bsprof files.
# Run as: interop_firefox_profiler.sh PROFKIT SOURCE_DIR SCRATCH_DIR FIXTURE_WRITER
# FIXTURE_WRITER is test_firefox, which writes its model-built profiles with --write-fixtures.
. "$(dirname "$0")/lib.sh"
FIXTURE_WRITER=$4

. "$(dirname "$0")/profiler_cli.sh"

# ---- profiles built through the model API ---------------------------------------------------------
expect_status 0 "$FIXTURE_WRITER" --write-fixtures "$SCRATCH"

load "$SCRATCH/script.json"
query profile info --json
expect_eq "$(json_get '[t["name"] for p in d["processes"] for t in p["threads"]]')" \
    "['main', 'TaskNode']" "thread names"
query thread samples --json --thread t-0
expect_eq "$(json_get 'd["weightType"]')" "samples" "weight type"
expect_eq "$(json_get 'd["categoryBreakdown"]["totalSamples"]')" "227" "main total cpu"
expect_eq "$(json_get 'd["categoryBreakdown"]["categories"][0]["name"]')" "BrightScript" "category"
expect_eq "$(json_get '[(f["name"], f["totalSamples"]) for f in d["topFunctionsByTotal"]]')" \
    "[('main', 227), ('parse', 107), ('token', 7)]" "functions by total"
expect_eq "$(json_get '[(f["name"], f["selfSamples"]) for f in d["topFunctionsBySelf"]]')" \
    "[('main', 120), ('parse', 100), ('token', 7)]" "functions by self"
query thread samples --json --thread t-1
expect_eq "$(json_get 'd["categoryBreakdown"]["totalSamples"]')" "30" "task total cpu"
query profile meta
expect_contains "$OUT" "Imported from: bsprof"
expect_contains "$OUT" "Sample times: placed"
expect_contains "$OUT" "Duration: 2s"
query thread samples --json --thread t-0 --strategy native-allocations
expect_eq "$(json_get 'd["weightType"]')" "bytes" "allocation weight type"
expect_eq "$(json_get 'd["categoryBreakdown"]["totalSamples"]')" "396" "bytes allocated on main"
query thread samples --json --thread t-0 --strategy native-retained-allocations
expect_eq "$(json_get '[(f["name"], f["selfSamples"]) for f in d["topFunctionsBySelf"] if f["selfSamples"]]')" \
    "[('render', 200)]" "retained bytes on main"
query thread samples --json --thread t-0 --strategy native-deallocations-memory
expect_eq "$(json_get 'd["categoryBreakdown"]["totalSamples"]')" "196" "bytes freed on main"
query thread samples --json --thread t-0 --strategy native-deallocations-sites
expect_contains "$OUT" '"name": "run"' "free sites of main's memory"
query thread samples --json --thread t-1 --strategy native-retained-allocations
expect_eq "$(json_get 'd["categoryBreakdown"]["totalSamples"]')" "8" "retained bytes on the task"
# The tracks the profiler builds from the counters: one memory track for the process of both
# threads, on its main thread, ending at what stays live (200 + 8 bytes) after a peak of 240
# (over the whole run the graph's levels are the live bytes).
query counter list --json
expect_eq "$(json_get '[(c["label"], c["name"], c["pid"], c["mainThreadName"], c["graphType"], c["unit"], c["rangeSampleCount"]) for c in d["counters"]]')" \
    "[('Memory', 'Live memory', '1', 'main', 'line-accumulated', 'bytes', 9)]" "one memory track"
expect_eq "$(json_get '[c["graph"][-1] for c in d["counters"]]')" "[208]" "live bytes at the end"
expect_eq "$(json_get '[s["value"] for c in d["counters"] for s in c["stats"] if s["source"] == "count-range"]')" \
    "[240]" "peak of the live bytes"

load "$SCRATCH/script-wall.json"
query thread samples --json --thread t-0
expect_eq "$(json_get 'd["weightType"]')" "tracing-ms" "wall weight type"
expect_eq "$(json_get 'd["categoryBreakdown"]["totalSamples"]')" "5.75" "main wall ms"
query thread samples-top-down --thread t-0
expect_contains "$OUT" "main"

load "$SCRATCH/native.json"
query thread samples --json
expect_eq "$(json_get '[(f["nameWithLibrary"], f["totalSamples"]) for f in d["topFunctionsByTotal"]]')" \
    "[('main', 30), ('libdemo.so!read_block', 30)]" "native functions"
expect_eq "$(json_get 'd["categoryBreakdown"]["categories"][0]["name"]')" "Native" "native category"

# Four processes: one memory track for each process with memory events, under that process
# (its pid, its main thread: named by the pid, else its first thread), whatever thread the
# events are on; none for a process whose only event frees unknown memory, nor for one without.
load "$SCRATCH/processes.json"
query counter list --json
expect_eq "$(json_get '[(c["label"], c["pid"], c["mainThreadName"], c["graph"][-1]) for c in d["counters"]]')" \
    "[('Memory', '10', 'a-main', 5), ('Memory', '20', 'b-first', 30)]" "a memory track per process"
query profile info --json
expect_eq "$(json_get '[(p["pid"], [t["name"] for t in p["threads"]], [c["label"] for c in p.get("counters") or []]) for p in d["processes"]]')" \
    "[('10', ['a-worker', 'a-main'], ['Memory']), ('20', ['b-first', 'b-second'], ['Memory']), ('30', ['c-only'], []), ('40', ['d-only'], [])]" \
    "processes of the memory tracks"

load "$SCRATCH/empty.json"
query thread list

load "$SCRATCH/business-rules.json"
query thread samples --json
expect_eq "$(json_get '[(f["name"].split("!")[-1], f["totalSamples"]) for f in d["topFunctionsByTotal"]]')" \
    "[('MENU', 3), ('compute', 1)]" "Business Rules and native functions"
expect_eq "$(json_get '[(c["name"], c["samples"]) for c in d["categoryBreakdown"]["categories"]]')" \
    "[('Business Rules', 2), ('Native', 1)]" "Business Rules and native categories"

load "$SCRATCH/kilobytes.json"
query thread samples --json
expect_eq "$(json_get 'd["weightType"]')" "bytes" "kilobytes weight type"
expect_eq "$(json_get 'd["categoryBreakdown"]["totalSamples"]')" "5120" "kilobytes as bytes"

# ---- folded stacks in, through the command --------------------------------------------------------
if "$PROFKIT" formats 2>/dev/null | grep -q '^folded .*read'; then
    printf 'main;parse;token 7\nmain;parse 100\nmain 120\nidle 3\n' >"$SCRATCH/stacks.folded"
    expect_status 0 "$PROFKIT" convert "$SCRATCH/stacks.folded" -o "$SCRATCH/stacks.json" --quiet
    load "$SCRATCH/stacks.json"
    query thread samples --json
    expect_eq "$(json_get 'd["categoryBreakdown"]["totalSamples"]')" "230" "folded total"
    expect_eq "$(json_get '[(f["name"], f["selfSamples"]) for f in d["topFunctionsBySelf"]]')" \
        "[('main', 120), ('parse', 100), ('token', 7), ('idle', 3)]" "folded heaviest functions"
fi

# ---- a minified script's functions, told apart by their columns ----------------------------------
# node --cpu-prof on a one-line script: its anonymous functions differ only in their columns.
# The profiler lists as many "(anonymous)" functions as the profile has sampled (url, line,
# column) places of anonymous functions (Node's own included).
MINIFIED="$SRC/tests/data/chrome/node-minified.cpuprofile"
anonymous=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
nodes = {n["id"]: n for n in d["nodes"]}
parent = {c: n["id"] for n in d["nodes"] for c in n.get("children", [])}
places = set()
for s in set(d["samples"]):
    while s in nodes:
        f = nodes[s]["callFrame"]
        if f["functionName"] == "":
            places.add((f["url"], f["lineNumber"], f["columnNumber"]))
        s = parent.get(s)
print(len(places), len({p for p in places if p[0].endswith("/minified.js")}))' "$MINIFIED")
expect_eq "${anonymous#* }" "4" "anonymous functions of the minified script"
expect_status 0 "$PROFKIT" convert "$MINIFIED" -o "$SCRATCH/minified.json" --quiet
load "$SCRATCH/minified.json"
query thread functions --json --search anonymous --limit 0
expect_eq "$(json_get 'len([f for f in d["functions"] if f["name"] == "(anonymous)"])')" \
    "${anonymous% *}" "anonymous functions apart by their columns"

# ---- the harness itself: the reference profiles load -------------------------------------------------
REFERENCE="$SRC/../shared/reference/firefox"
if [ -d "$REFERENCE" ]; then
    for ref in "$REFERENCE"/*.json; do
        load "$ref"
    done
fi

finish
