#!/bin/sh
# SPDX-License-Identifier: MIT
# Timelines in the real viewers: profiles with measured times (built through the model API by
# test_timed_writers --write-fixtures) loaded into the Firefox Profiler's own code
# (profiler-cli) and speedscope's own importer, whose sample order and times must be the
# input's; and a value that is not a time (callgrind's instructions) never laid out as hours.
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

finish
