# SPDX-License-Identifier: MIT
# BR profiler and Apple Sampler files converted by profkit and loaded in the Firefox Profiler
# (its own loading code, @firefox-devtools/profiler-cli): weights, functions and threads.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/profiler_cli.sh"
DATA=$SRC/tests/data
BR_SAMPLED=$DATA/br-profile-sampled-synthetic.bin
BR_TIMED=$DATA/br-profile-timed-synthetic.bin
SAMPLE=$DATA/sampler-synthetic.sample

# samples EXPRESSION: a Python expression over `thread samples --json` of the loaded profile
samples() {
    query thread samples --json
    json_get "$1"
}

expect_status 0 "$PROFKIT" convert "$BR_TIMED" -o timed.json --quiet
load timed.json
expect_eq "$(samples 'd["weightType"], d["categoryBreakdown"]["totalSamples"]')" \
    "('tracing-ms', 1.75)" "br time in the Firefox Profiler"
expect_status 0 "$PROFKIT" convert "$BR_SAMPLED" -o sampled.json --quiet
load sampled.json
expect_eq "$(samples '[(f["name"], f["totalSamples"]) for f in d["topFunctionsByTotal"]]')" \
    "[('MENU.BR!MENU.BR main', 3), ('LIB.BR!FNCALC', 1), ('MENU.BR!MENU.BR gosub', 1)]" \
    "br functions in the Firefox Profiler"
expect_status 0 "$PROFKIT" convert "$SAMPLE" -o sample.json --quiet
load sample.json
expect_eq "$(samples '[(f["name"], f["totalSamples"]) for f in d["topFunctionsByTotal"]]')" \
    "[('demo!main', 4), ('demo!parse', 2), ('demo!eval', 1)]" "sampler functions in the Firefox Profiler"
expect_status 0 timeout 120 "$PQ" profile info --json
expect_contains "$OUT" '"name": "Thread_0001"' "sampler thread in the Firefox Profiler"
finish
