# SPDX-License-Identifier: MIT
# profkit view in the background, for the tests that talk to its server: start_view INPUT ARGS...
# serves INPUT (stopping a view already running) and sets LINK (the app's link) and API (the
# symbol server); stop_view interrupts it and expects a clean exit. Sourced after lib.sh.
VIEW_PID=
stop_view() {
    [ -n "$VIEW_PID" ] || return 0
    kill -INT "$VIEW_PID"
    wait "$VIEW_PID" || fail "profkit view did not exit 0 when interrupted"
    VIEW_PID=
}
# start_view INPUT ARGS...: serves INPUT; sets LINK (the app's link) and API (the symbol server).
start_view() {
    stop_view
    # The previous view's link must not be taken for this one's: the shell empties view.out
    # only once the new command has started (and until the command has set its own handler, a
    # background job ignores SIGINT, so stopping it then would leave it running).
    rm -f view.out view.err
    "$PROFKIT" view --no-open --quiet "$@" >view.out 2>view.err &
    VIEW_PID=$!
    local waited=0
    while ! grep -q '^Open: ' view.out 2>/dev/null; do
        if ! kill -0 "$VIEW_PID" 2>/dev/null || [ "$waited" -ge 1800 ]; then
            fail "profkit view $* did not print its link"
            sed 's/^/  stderr: /' view.err >&2
            VIEW_PID=
            return 1
        fi
        sleep 0.1
        waited=$((waited + 1))
    done
    LINK=$(sed -n 's/^Open: *//p' view.out)
    API=$(python3 -c 'import re, sys, urllib.parse
print(urllib.parse.unquote(re.search(r"[?&]symbolServer=([^&]+)", sys.argv[1]).group(1)))' "$LINK")
}
