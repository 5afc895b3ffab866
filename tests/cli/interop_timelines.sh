#!/bin/sh
# SPDX-License-Identifier: MIT
# Timelines in the real viewers: profiles with measured times (built through the model API by
# test_timed_writers --write-fixtures) loaded into the Firefox Profiler's own code
# (profiler-cli) and speedscope's own importer, whose sample order and times must be the
# input's; and a value that is not a time (callgrind's instructions) never laid out as hours.
# A real recording with many runs of one leaf (node --cpu-prof; perf script) keeps its runs, their
# order, times and weights in both viewers, and so does a Chromium trace its renderers' runs
# (tests/tools/sample_runs.py computes them from each file).
# Run as: interop_timelines.sh PROFKIT SOURCE_DIR SCRATCH_DIR FIXTURE_WRITER
. "$(dirname "$0")/lib.sh"
FIXTURE_WRITER=$4

SPEEDSCOPE=$SRC/tools/speedscope/node_modules/speedscope
require_file "$SPEEDSCOPE/package.json" "scripts/setup-speedscope.sh installs speedscope"
. "$(dirname "$0")/profiler_cli.sh"

expect_status 0 "$FIXTURE_WRITER" --write-fixtures "$SCRATCH"

# ---- Firefox Profiler ---------------------------------------------------------------------------
# Samples every ms: a 0-9, b 10-19, a 20-29, nothing 30-49, main 50-59. Each run of one leaf is
# one sample weighing the run (4 samples), the track spans 0 to 59 ms, and a zoom on each run's
# time finds that run's leaf and weight.
load "$SCRATCH/timed-samples.json"
query thread info --json
expect_eq "$(json_get 'd["sampleCount"]')" "4" "one sample per run of a leaf"
expect_eq "$(json_get '(d["context"]["rootRange"]["start"], d["context"]["rootRange"]["end"])')" \
    "(0, 59)" "the track spans the samples' times"
query zoom push 20ms,29.5ms
query thread samples --json
expect_eq "$(json_get '[(f["name"], f["selfSamples"]) for f in d["topFunctionsBySelf"] if f["selfSamples"]]')" \
    "[('a', 10)]" "the second run of a at 20-29 ms"
query zoom pop
query zoom push 10ms,19.5ms
query thread samples --json
expect_eq "$(json_get '[(f["name"], f["selfSamples"]) for f in d["topFunctionsBySelf"] if f["selfSamples"]]')" \
    "[('b', 10)]" "b at 10-19 ms"
query zoom pop
query zoom push 45ms,59ms
query thread samples --json
expect_eq "$(json_get '[(f["name"], f["selfSamples"]) for f in d["topFunctionsBySelf"] if f["selfSamples"]]')" \
    "[('main', 10)]" "main after the idle time"
query profile meta
expect_contains "$OUT" "Sample times: measured"

# Spans a 0-5 ms, b 5-8, a gap, a 10-12: weighed in milliseconds, an empty sample at each gap's
# start and after the last span (5 samples), a at 10-12 ms where it happened.
load "$SCRATCH/timed-spans.json"
query thread info --json
expect_eq "$(json_get 'd["sampleCount"]')" "5" "a sample per span, an empty one per gap"
expect_eq "$(json_get 'd["context"]["rootRange"]["end"]')" "12" "the track ends with the last span"
query thread samples --json
expect_eq "$(json_get 'd["weightType"]')" "tracing-ms" "spans weigh their durations"
expect_eq "$(json_get '[(f["name"], f["selfSamples"]) for f in d["topFunctionsBySelf"] if f["selfSamples"]]')" \
    "[('a', 7), ('b', 3)]" "span durations in ms"
query zoom push 9ms,12ms
query thread samples --json
expect_eq "$(json_get '[(f["name"], f["selfSamples"]) for f in d["topFunctionsBySelf"] if f["selfSamples"]]')" \
    "[('a', 2)]" "the span of a at 10-12 ms"

# Instructions without times: weighed as samples, placed over at most 100 s (never hours).
expect_status 0 "$PROFKIT" convert "$SRC/tests/data/callgrind/callgrind.out.prog" -o callgrind.json
load "$SCRATCH/callgrind.json"
query thread samples --json
expect_eq "$(json_get 'd["weightType"]')" "samples" "instructions as samples"
expect_eq "$(json_get 'd["categoryBreakdown"]["totalSamples"]')" "165934" "every instruction"
query thread info --json
expect_eq "$(json_get 'd["context"]["rootRange"]["end"] <= 100000')" "True" \
    "placed instructions span at most 100 s"

# ---- speedscope --------------------------------------------------------------------------------
# The time-order view speedscope builds (forEachCall) is the input's order: the runs of a, b, a
# and main by their weights; the spans at their own nanoseconds, closed at the gap.
time_order() {
    SPEEDSCOPE_TIME_ORDER=1 node "$SRC/tests/tools/speedscope_import.js" "$SPEEDSCOPE" "$1" |
        python3 -c 'import json, sys
d = json.load(sys.stdin)
print(" ".join("%s%s@%s" % tuple(e) for e in d["profiles"][0]["timeOrder"]))'
}
expect_eq "$(time_order "$SCRATCH/timed-samples.speedscope.json")" \
    "Omain@0 Oa@0 Ca@10 Ob@10 Cb@20 Oa@20 Ca@30 Cmain@40" "speedscope's time order of samples"
expect_eq "$(time_order "$SCRATCH/timed-spans.speedscope.json")" \
    "Omain@0 Oa@0 Ca@5000000 Ob@5000000 Cb@8000000 Cmain@8000000 Omain@10000000 Oa@10000000 Ca@12000000 Cmain@12000000" \
    "speedscope's time order of spans"

# ---- a real recording: node --cpu-prof, 63 runs of alpha, beta, gamma taking turns -------------
RUNS="python3 $SRC/tests/tools/sample_runs.py"
# same_runs WHAT EXPECTED_JSON GOT_JSON: equal lists of runs (numbers compared as numbers).
same_runs() {
    CHECKS=$((CHECKS + 1))
    python3 - "$2" "$3" <<'PY' || fail "$1: the runs differ"
import json, sys
want, got = json.loads(sys.argv[1]), json.loads(sys.argv[2])
if want != got:
    print("  %d runs wanted, %d got" % (len(want), len(got)), file=sys.stderr)
    for i, (w, g) in enumerate(zip(want, got)):
        if w != g:
            print("  run %d: wanted %s, got %s" % (i, w, g), file=sys.stderr)
            break
    sys.exit(1)
PY
}
CPUPROFILE="$SRC/tests/data/chrome/node-alternating.cpuprofile"
INPUT_RUNS=$($RUNS cpuprofile "$CPUPROFILE")
expect_eq "$(printf '%s' "$INPUT_RUNS" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)) >= 60)')" \
    "True" "the recording has dozens of runs"
expect_status 0 "$PROFKIT" convert "$CPUPROFILE" -o node.json --quiet
expect_status 0 "$PROFKIT" convert "$CPUPROFILE" -o node.speedscope.json --quiet
same_runs "the Firefox file's runs" "$INPUT_RUNS" \
    "$($RUNS firefox node.json | python3 -c 'import json, sys; print(json.dumps(*json.load(sys.stdin).values()))')"
SPEEDSCOPE_TIME_ORDER=1 node "$SRC/tests/tools/speedscope_import.js" "$SPEEDSCOPE" node.speedscope.json \
    >node.timeorder.json
same_runs "speedscope's time order" "$INPUT_RUNS" "$($RUNS speedscope node.timeorder.json)"

# The Firefox Profiler: one sample per run (the stacks of this recording are one per leaf), the
# track from the first sample to the last run's end, and a zoom on every 16th run (a zoom is
# three queries) finds its leaf and its weight in ms.
load "$SCRATCH/node.json"
query thread info --json
expect_eq "$(json_get 'd["sampleCount"]')" \
    "$(printf '%s' "$INPUT_RUNS" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')" \
    "a sample per run"
expect_eq "$(json_get '(d["context"]["rootRange"]["start"], d["context"]["rootRange"]["end"])')" \
    "$(printf '%s' "$INPUT_RUNS" | python3 -c 'import json, sys; r = json.load(sys.stdin); print((0, round(r[-1][1] + r[-1][2], 6)))')" \
    "the track spans the runs"
# zoom_runs RUNS_JSON STEP: zooms on every STEP-th run (and the last) of RUNS_JSON, from its start
# to just before the next (times are whole µs), and checks the leaf (named without the library
# the profiler puts before it; functions of one name, such as V8's "(anonymous)" ones, summed)
# and the run's weight there. The loop runs in this shell (its input a here-document on its own
# descriptor, not a pipe), so that its checks count; fields are tab-separated, as names may hold spaces.
zoom_runs() {
    local zooms name range weight tab
    tab=$(printf '\t')
    zooms=$(printf '%s' "$1" | python3 -c '
import json, sys
runs = json.load(sys.stdin)
step = int(sys.argv[1])
for i in sorted(set(range(0, len(runs), step)) | {len(runs) - 1}):
    name, start, weight = runs[i]
    end = runs[i + 1][1] if i + 1 < len(runs) else start + weight
    print("%s\t%sms,%sms\t%s" % (name, start, round(end - 0.0005, 4), weight))' "$2")
    expect_contains "$zooms" "ms," "runs to zoom on"
    while IFS=$tab read -r name range weight <&3; do
        query zoom push "$range"
        query thread samples --json
        expect_eq "$(json_get '[(n, round(sum(f["selfSamples"] for f in d["topFunctionsBySelf"] if f["name"].split("!")[-1] == n), 3)) for n in dict.fromkeys(f["name"].split("!")[-1] for f in d["topFunctionsBySelf"] if f["selfSamples"])]')" \
            "[('$name', $weight)]" "the run of $name at $range"
        query zoom pop
    done 3<<EOF
$zooms
EOF
}
zoom_runs "$INPUT_RUNS" 16

# ---- perf script: two threads' runs of leaf_sqrt and leaf_loop -----------------------------------
# Each sample weighs its period; a thread's runs go on across the times it was not sampled (the
# gaps the file's times show).
PERF="$SRC/tests/data/perf/prog.perf"
expect_status 0 "$PROFKIT" convert "$PERF" -o perf.json --quiet
PERF_RUNS=$($RUNS perf "$PERF")
same_runs "the Firefox file's runs of perf samples" "$PERF_RUNS" "$($RUNS firefox perf.json)"
load "$SCRATCH/perf.json"
query thread list --json
HANDLES=$(json_get '" ".join("%s:%s" % (t["tid"], t["threadHandle"]) for t in d["threads"])')
expect_contains "$HANDLES" "19964:" "the main thread"
expect_contains "$HANDLES" "19991:" "the second thread"
for entry in $HANDLES; do
    tid=${entry%%:*}
    query thread select "${entry#*:}"
    THREAD_RUNS=$(printf '%s' "$PERF_RUNS" | python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)[sys.argv[1]]))' "$tid")
    zoom_runs "$THREAD_RUNS" 10
done

# ---- a real recording: Chromium, the renderers' V8 samples beside their duration events ---------
# Each renderer main thread's runs of one leaf, as DevTools weighs its samples, are the Firefox
# file's (its duration events, which weigh no cpu, add none), at the same times from the
# thread's first run, and speedscope's; the Firefox Profiler finds each 40th run's leaf and
# weight where it is.
TRACE="$SRC/tests/data/chrome/chromium-startup.trace.json.gz"
expect_status 0 "$PROFKIT" convert "$TRACE" -o chromium.json --quiet
TRACE_RUNS=$($RUNS trace "$TRACE")
FILE_RUNS=$($RUNS firefox chromium.json)
for tid in 8953 9052; do
    same_runs "the Firefox file's runs of the renderer $tid" \
        "$(printf '%s' "$TRACE_RUNS" | python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)[sys.argv[1]]))' "$tid")" \
        "$(printf '%s' "$FILE_RUNS" | python3 -c '
import json, sys
runs = json.load(sys.stdin)[sys.argv[1]]
print(json.dumps([[n, round(s - runs[0][1], 3), w] for n, s, w in runs]))' "$tid")"
done
expect_eq "$(printf '%s' "$TRACE_RUNS" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["8953"]) > 400)')" \
    "True" "the renderer's hundreds of runs"
# speedscope's time order (a sampled profile by cpu: its positions are the weights before, so
# the runs are compared by leaf and weight, in order).
expect_status 0 "$PROFKIT" convert "$TRACE" -o chromium.speedscope.json --quiet
SPEEDSCOPE_TIME_ORDER=1 node "$SRC/tests/tools/speedscope_import.js" "$SPEEDSCOPE" chromium.speedscope.json \
    >chromium.timeorder.json
for tid in 8953 9052; do
    same_runs "speedscope's time order of the renderer $tid" \
        "$(printf '%s' "$TRACE_RUNS" | python3 -c 'import json, sys; print(json.dumps([[n, w] for n, _, w in json.load(sys.stdin)[sys.argv[1]]]))' "$tid")" \
        "$($RUNS speedscope chromium.timeorder.json "CrRendererMain (tid $tid)" |
           python3 -c 'import json, sys; print(json.dumps([[n, w] for n, _, w in json.load(sys.stdin)]))')"
done
load "$SCRATCH/chromium.json"
query thread list --json
HANDLE=$(json_get '[t["threadHandle"] for t in d["threads"] if str(t["tid"]) == "8953"][0]')
query thread select "$HANDLE"
zoom_runs "$(printf '%s' "$FILE_RUNS" | python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["8953"]))')" 40

finish
