# SPDX-License-Identifier: MIT
# What the viewers call a profile, checked with their own code: the product the input names,
# else the input file's name (core/title.h), never the format's name; and the names of
# processes kept through a conversion to the Firefox Profiler and back. The Firefox Profiler
# (profiler-cli), speedscope's importer, callgrind_annotate and go tool pprof read profkit's
# outputs; each check runs where its tool is installed and says when it is not.
. "$2/tests/cli/lib.sh"

FOLDED=$SRC/tests/data/folded/austin-wall.folded
TRACE=$SRC/tests/data/chrome/chromium-startup.trace.json.gz
cp "$FOLDED" app.folded
cp "$FOLDED" other.folded

# ---- the model: the file's name where the input names no product -----------------------------
expect_status 0 "$PROFKIT" info app.folded
expect_contains "$OUT" "source-file              app.folded" "the file's name recorded"
gzip -c app.folded > app.folded.gz
expect_status 0 "$PROFKIT" info app.folded.gz
expect_contains "$OUT" "source-file              app.folded" "the name behind .gz"
expect_status 0 "$PROFKIT" info - < app.folded
expect_not_contains "$OUT" "source-file" "standard input names no file"

# ---- SVG: the subtitle ----------------------------------------------------------------------------
expect_status 0 "$PROFKIT" convert app.folded -o app.svg --quiet
expect_contains "$(cat app.svg)" "total 23.9 ms - app.folded" "SVG subtitle names the file"
expect_status 0 "$PROFKIT" convert "$SRC/tests/data/perf/cxx.perf" -o cxx.svg --quiet
expect_contains "$(cat cxx.svg)" " - cxx<" "SVG subtitle names perf's command"

# ---- callgrind: cmd, as callgrind_annotate shows it -----------------------------------------------
if need_tool callgrind_annotate valgrind; then
    expect_status 0 "$PROFKIT" convert app.folded -o app.callgrind --quiet
    expect_status 0 callgrind_annotate app.callgrind
    expect_contains "$OUT" "Profiled target:" "callgrind_annotate shows a target"
    expect_eq "$(printf '%s\n' "$OUT" | sed -n "s/^Profiled target: *//p")" "app.folded" \
        "callgrind_annotate's command is the file"
fi

# ---- pprof: go tool pprof heads its report with the comment -----------------------------------
if command -v go >/dev/null 2>&1; then
    expect_status 0 "$PROFKIT" convert app.folded -o app.pb.gz --quiet
    expect_status 0 go tool pprof -top -symbolize=none app.pb.gz
    expect_eq "$(printf '%s\n' "$OUT" | head -1)" "source-file=app.folded" \
        "go tool pprof names the file"
    # Read back, the comment keeps the first file's name.
    expect_status 0 "$PROFKIT" info app.pb.gz
    expect_contains "$OUT" "source-file              app.folded" "pprof keeps the name"
else
    note_not_run "go tool pprof (Debian package golang-go)"
fi

# ---- speedscope: the name its importer gives the file ---------------------------------------------
SPEEDSCOPE=$SRC/tools/speedscope/node_modules/speedscope
if [ -d "$SPEEDSCOPE" ] && command -v node >/dev/null 2>&1; then
    speedscope_name() {
        node "$SRC/tests/tools/speedscope_import.js" "$SPEEDSCOPE" "$1" |
            python3 -c 'import json, sys; print(json.load(sys.stdin)["name"])'
    }
    expect_status 0 "$PROFKIT" convert app.folded -o app.speedscope.json --quiet
    expect_eq "$(speedscope_name app.speedscope.json)" "app.folded" "speedscope's name"
    expect_status 0 "$PROFKIT" merge app.folded other.folded -o both.speedscope.json --quiet
    expect_eq "$(speedscope_name both.speedscope.json)" "app.folded + other.folded" \
        "a merge names both files"
    expect_status 0 "$PROFKIT" diff app.folded other.folded -o diff.speedscope.json --quiet
    expect_eq "$(speedscope_name diff.speedscope.json)" "app.folded vs other.folded" \
        "a comparison names both files"
else
    note_not_run "speedscope's importer (scripts/setup-speedscope.sh installs it)"
fi

# ---- the Firefox Profiler ---------------------------------------------------------------------
if [ -x "$SRC/tools/node_modules/.bin/profiler-cli" ]; then
    . "$SRC/tests/cli/profiler_cli.sh"
    expect_status 0 "$PROFKIT" convert app.folded -o app.json --quiet
    load app.json
    query profile info
    expect_contains "$OUT" "Name: app.folded" "the profile named by its file"
    query thread list
    expect_contains "$OUT" " app.folded " "the process named by the file"
    expect_not_contains "$OUT" " folded " "no process named by the format"

    expect_status 0 "$PROFKIT" convert "$SRC/tests/data/perf/cxx.perf" -o cxx.json --quiet
    load cxx.json
    query profile info
    expect_contains "$OUT" "Name: cxx" "the profile named by perf's command"

    # Chromium's processes: named by the trace, and still so after a conversion to the Firefox
    # Profiler and back (processName read back into the property process.PID.name).
    expect_status 0 "$PROFKIT" convert "$TRACE" -o trace.json --quiet
    expect_status 0 "$PROFKIT" convert trace.json -o again.json --quiet
    expect_status 0 "$PROFKIT" info trace.json
    expect_contains "$OUT" "process.9052.name        Renderer" "process name read back"
    load again.json
    query profile info
    expect_contains "$OUT" "Name: chromium-startup.trace.json" "the trace's file name kept"
    query thread list
    expect_contains "$OUT" "Renderer " "the renderer still named after two conversions"
    expect_not_contains "$OUT" "chrome-trace" "no process named by the format"
else
    note_not_run "the Firefox Profiler's checks (scripts/setup-node-tools.sh installs profiler-cli)"
fi

finish
