# SPDX-License-Identifier: MIT
# `profkit view` with the Firefox Profiler's own loading code (@firefox-devtools/profiler-cli):
# the printed from-url link is decoded and the served profile fetched by the profiler, which
# then shows the example channel's threads under distinct names, and BR and Apple Sampler
# frames in the categories the SVG gives them (Business Rules, Other).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/profiler_cli.sh"

VIEW_PID=
VIEWS=0
stop_view() {
    [ -n "$VIEW_PID" ] || return 0
    CHECKS=$((CHECKS + 1))
    kill -INT "$VIEW_PID"
    wait "$VIEW_PID" || fail "profkit view did not exit 0 when interrupted"
    VIEW_PID=
}

# view INPUT: serves INPUT with profkit view and loads its link into a fresh profiler session.
view() {
    stop_view
    # Each run its own output file: the shell empties it only once the command has started.
    VIEWS=$((VIEWS + 1))
    local out="view$VIEWS.out" err="view$VIEWS.err"
    "$PROFKIT" view --no-open --quiet "$1" >"$out" 2>"$err" &
    VIEW_PID=$!
    local waited=0
    while ! grep -q '^Open: ' "$out" 2>/dev/null; do
        if ! kill -0 "$VIEW_PID" 2>/dev/null || [ "$waited" -ge 1800 ]; then
            fail "profkit view $1 did not print its link"
            sed 's/^/  stderr: /' "$err" >&2
            VIEW_PID=
            return 1
        fi
        sleep 0.1
        waited=$((waited + 1))
    done
    load "$(sed -n 's/^Open: *//p' "$out")"
}

if view "$SRC/examples/roku-channel.bsprof"; then
    query profile info --json
    expect_eq "$(json_get '[t["name"] for p in d["processes"] for t in p["threads"] if t["name"].startswith("RowListItem")]')" \
        "['RowListItem (module 5)', 'RowListItem (module 6)', 'RowListItem (module 7)', 'RowListItem (module 8)', 'RowListItem (module 9)', 'RowListItem (module 10)']" \
        "six RowListItem threads told apart"
    query thread samples --json --thread t-0
    expect_eq "$(json_get 'd["categoryBreakdown"]["categories"][0]["name"]')" "BrightScript" \
        ".bsprof category"
fi

if view "$SRC/tests/data/br-profile-sampled-synthetic.bin"; then
    query thread samples --json --thread t-0
    expect_eq "$(json_get 'd["categoryBreakdown"]["totalSamples"]')" "3" "BR samples"
    expect_eq "$(json_get '[c["name"] for c in d["categoryBreakdown"]["categories"]]')" \
        "['Business Rules']" "BR category"
fi

if view "$SRC/tests/data/sampler-synthetic.sample"; then
    query thread samples --json --thread t-0
    expect_eq "$(json_get '[c["name"] for c in d["categoryBreakdown"]["categories"]]')" \
        "['Other']" "Sampler category"
fi
stop_view

finish
