# SPDX-License-Identifier: MIT
# A Chromium trace converted by profkit, loaded with the Firefox Profiler's own code
# (profiler-cli): what the profiler shows of it besides the call tree.
. "$2/tests/cli/lib.sh"
. "$SRC/tests/cli/profiler_cli.sh"

TRACE="$SRC/tests/data/chrome/chromium-startup.trace.json.gz"
expect_status 0 "$PROFKIT" convert "$TRACE" -o "$SCRATCH/trace.json" --quiet
load "$SCRATCH/trace.json"

# Processes are named as the trace's process_name events name them (the second renderer
# "Renderer"; the first one by its command line, as Chromium wrote it), not by the format.
query thread list
expect_contains "$OUT" "Renderer " "the renderer's process named"
expect_not_contains "$OUT" "chrome-trace" "no process named by the format"

# JavaScript: the page's script functions (V8 names them by the page's URL, page.html, or by
# none) are the JavaScript category, as a .cpuprofile's are, and only V8's own entries
# ((idle), (program), (garbage collector)) are Other.
query thread samples --json --thread t-1
javascript=$(json_get 'sum(c["samples"] for c in d["categoryBreakdown"]["categories"] if c["name"] == "JavaScript")')
other=$(json_get 'sum(c["samples"] for c in d["categoryBreakdown"]["categories"] if c["name"] == "Other")')
query thread functions --json --limit 0 --thread t-1
entries=$(json_get 'sum(f["selfSamples"] for f in d["functions"] if f["name"] in ("(idle)", "(program)", "(garbage collector)", "(root)"))')
script=$(json_get 'sum(f["selfSamples"] for f in d["functions"] if f["name"] not in ("(idle)", "(program)", "(garbage collector)", "(root)"))')
expect_eq "$(python3 -c "print(abs($other - $entries) < 0.01)")" True \
    "Other is V8's entries alone ($other ms, entries $entries ms)"
expect_eq "$(python3 -c "print($script > 0 and abs($javascript - $script) < 0.01)")" True \
    "JavaScript is the script's time ($javascript ms, script $script ms)"

finish
