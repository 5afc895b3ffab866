# SPDX-License-Identifier: MIT
# What people see in the outputs: threads that share a name told apart the same way in every
# output (info, Firefox Profiler, speedscope, folded, SVG, reports, pprof); one category per
# kind of frame in the SVG and the Firefox Profiler output alike (BR: Business Rules, Apple
# Sampler: Other, .bsprof: BrightScript); pprof's period for BR and Sampler profiles and the
# build IDs of the binaries symbols were read from.
. "$(dirname "$0")/lib.sh"

CHANNEL="$SRC/examples/roku-channel.bsprof"
DATA="$SRC/tests/data"

# ---- thread names ----------------------------------------------------------------------------
expect_status 0 "$PROFKIT" info --json "$CHANNEL"
printf '%s\n' "$OUT" > info.json
expect_status 0 "$PROFKIT" info "$CHANNEL"
printf '%s\n' "$OUT" > info.txt
expect_status 0 "$PROFKIT" convert "$CHANNEL" -o channel.json --quiet
expect_status 0 "$PROFKIT" convert "$CHANNEL" -o channel.speedscope.json --quiet
expect_status 0 "$PROFKIT" convert "$CHANNEL" --to folded --with-threads -o channel.folded --quiet
expect_status 0 "$PROFKIT" convert "$CHANNEL" --with-threads -o channel.svg --quiet
expect_status 0 "$PROFKIT" convert "$CHANNEL" -o channel.pb.gz --quiet
expect_status 0 "$PROFKIT" report --threads --top 0 --json "$CHANNEL"
printf '%s\n' "$OUT" > threads.json
CHECKS=$((CHECKS + 1))
python3 - info.json info.txt channel.json channel.speedscope.json channel.folded channel.svg \
    threads.json <<'EOF' || fail "thread names"
import json, re, sys
info, text, firefox, speedscope, folded, svg, report = sys.argv[1:]
threads = json.load(open(info))["threads"]
# The model keeps the names; six components share one, told apart by module ID.
names = [t["name"] for t in threads]
assert names.count("RowListItem") == 6, names
shown = [t["display_name"] for t in threads]
assert len(set(shown)) == len(shown), shown
for t in threads:
    if t["name"] == "RowListItem":
        assert t["display_name"] == "RowListItem (module %d)" % t["tid"], t
    else:
        assert t["display_name"] == t["name"], t
# info's text lists them so.
listed = [line.split()[0:3] for line in open(text).read().split("\nthreads (")[1].split("\n\n")[0].splitlines()[1:]]
for name in shown:
    assert any(" ".join(words).startswith(name) for words in listed), (name, listed)
# The Firefox Profiler's thread names.
assert [t["name"] for t in json.load(open(firefox))["threads"]] == shown
# speedscope's profile names (one profile per thread).
assert sorted(p["name"] for p in json.load(open(speedscope))["profiles"]) == sorted(shown)
# The first frame of folded lines with threads.
roots = {line.rsplit(" ", 1)[0].split(";")[0] for line in open(folded)}
assert roots == set(shown), roots
# The thread frames of the flame graph.
svg_threads = set(re.findall(r'<g class="thread"><title>([^\n<]*)\n[^<]*\nthread</title>',
                             open(svg).read()))
assert svg_threads == set(shown), svg_threads
# The threads report.
assert sorted(e["name"] for e in json.load(open(report))["threads"]) == sorted(shown)
EOF
# pprof's thread label is the display name (what go tool pprof -tags lists); threads sharing a
# name also get a thread_name label with it, so that reading back keeps each thread's own name,
# told apart by the tid label.
expect_status 0 "$PROFKIT" info --json channel.pb.gz
CHECKS=$((CHECKS + 1))
printf '%s\n' "$OUT" | python3 -c '
import json, sys
threads = json.load(sys.stdin)["threads"]
rows = [t for t in threads if t["name"] == "RowListItem"]
assert sorted(t["tid"] for t in rows) == list(range(5, 11)), threads
assert sorted(t["display_name"] for t in rows) == sorted("RowListItem (tid %d)" % i for i in range(5, 11)), rows' \
    || fail "pprof thread labels"

# ---- categories -------------------------------------------------------------------------------
# Each function's category in the SVG (its data-category) is its category in the Firefox
# Profiler output (meta.categories of its frames), for every format.
check_categories() {
    local input=$1 want=$2
    expect_status 0 "$PROFKIT" convert "$input" -o cat.json --quiet
    expect_status 0 "$PROFKIT" convert "$input" -o cat.svg --quiet
    CHECKS=$((CHECKS + 1))
    python3 - cat.json cat.svg "$want" <<'EOF' || fail "categories of $input"
import html, json, re, sys
firefox, svg, want = sys.argv[1:]
profile = json.load(open(firefox))
categories = [c["name"] for c in profile["meta"]["categories"]]
by_function = {}
for t in profile["threads"]:
    strings, frames, funcs = t["stringArray"], t["frameTable"], t["funcTable"]
    for i in range(frames["length"]):
        name = strings[funcs["name"][frames["func"][i]]]
        by_function.setdefault(name, set()).add(categories[frames["category"][i]])
drawn = {}
for category, title in re.findall(r'<g data-category="([^"]*)"><title>([^\n<]*)', open(svg).read()):
    drawn.setdefault(html.unescape(title), set()).add(html.unescape(category))
assert drawn, "no frame has a category"
for name, kinds in drawn.items():
    assert kinds == by_function[name], (name, kinds, by_function[name])
assert set().union(*drawn.values()) == {want}, drawn
assert "native code" not in open(svg).read()
EOF
}
check_categories "$DATA/br-profile-sampled-synthetic.bin" "Business Rules"
check_categories "$DATA/br-profile-timed-synthetic.bin" "Business Rules"
check_categories "$DATA/sampler-synthetic.sample" "Other"
check_categories "$CHANNEL" "BrightScript"
# Kernel and JIT frames of folded stacks, in both.
printf 'main;run;sys_read_[k] 3\nmain;run;Interp_[j] 2\n' > annotated.folded
expect_status 0 "$PROFKIT" convert annotated.folded -o annotated.json --quiet
expect_status 0 "$PROFKIT" convert annotated.folded -o annotated.svg --quiet
expect_contains "$(cat annotated.svg)" '<g data-category="Kernel"><title>sys_read_[k]' "SVG kernel"
expect_contains "$(cat annotated.svg)" '<g data-category="JIT"><title>Interp_[j]' "SVG JIT"
CHECKS=$((CHECKS + 1))
python3 -c '
import json, sys
names = [c["name"] for c in json.load(open(sys.argv[1]))["meta"]["categories"]]
assert names == ["Other", "Kernel", "JIT"], names' annotated.json || fail "Firefox kernel and JIT"

# ---- pprof: period, build IDs -------------------------------------------------------------------
for input in br-profile-sampled-synthetic.bin br-profile-timed-synthetic.bin sampler-synthetic.sample; do
    expect_status 0 "$PROFKIT" convert "$DATA/$input" -o period.pb.gz --quiet
    expect_status 0 "$PROFKIT" info --json period.pb.gz
    CHECKS=$((CHECKS + 1))
    printf '%s\n' "$OUT" | python3 -c '
import json, sys
m = json.load(sys.stdin)["metadata"]
assert (m["period"], m["period_type"], m["period_unit"]) == (1, "samples", "count"), m' \
        || fail "pprof period of $input"
done

# The gperftools demo program is built where gperftools is (tests/CMakeLists.txt); readelf, of
# binutils, is a test package: missing, it fails the checks.
if [ -z "${PK_GPERF_DEMO:-}" ] || [ ! -x "$PK_GPERF_DEMO" ]; then
    note_not_run "no gperftools demo program in this build; the build ID checks"
elif need_tool readelf binutils; then
    CPUPROFILE="$SCRATCH/demo.prof" CPUPROFILE_FREQUENCY=1000 "$PK_GPERF_DEMO" 1 > /dev/null 2>&1
    want=$(readelf -n "$PK_GPERF_DEMO" | sed -n 's/.*Build ID: *//p')
    expect_status 0 "$PROFKIT" convert demo.prof -o demo.pb.gz --quiet
    # The maps text of a gperftools profile names no build IDs: the binary read gives its own,
    # to the mapping that holds the program's code.
    expect_status 0 "$PROFKIT" dump demo.pb.gz
    CHECKS=$((CHECKS + 1))
    printf '%s\n' "$OUT" | python3 -c '
import re, sys
text, want, program = sys.stdin.read(), sys.argv[1], sys.argv[2]
strings = re.findall(r"string_table \[(\d+)\] \"(.*)\"", text)
table = {int(i): s for i, s in strings}
ids = {}
for filename, build_id in re.findall(r"mapping \{[^}]*filename: (\d+) build_id: (\d+)", text):
    ids[table[int(filename)]] = table[int(build_id)]
assert ids.get(program) == want, (ids, program, want)' "$want" "$(readlink -f "$PK_GPERF_DEMO")" \
        || fail "build ID of the program's mapping"
    # Without symbols, nothing was read: no build ID is made up.
    expect_status 0 "$PROFKIT" convert demo.prof -o bare.pb.gz --no-symbols --quiet
    expect_status 0 "$PROFKIT" dump bare.pb.gz
    expect_not_contains "$OUT" "build_id" "no build ID without symbols"
fi

finish
