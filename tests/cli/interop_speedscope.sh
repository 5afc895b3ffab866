# SPDX-License-Identifier: MIT
# profkit's speedscope output checked against speedscope's own schema and importer (the
# speedscope npm package, installed by scripts/setup-speedscope.sh), profkit's folded output
# read by speedscope's collapsed-stack importer, and speedscope files read by both.
. "$(dirname "$0")/lib.sh"

SPEEDSCOPE=$SRC/tools/speedscope/node_modules/speedscope
SCHEMA=$SPEEDSCOPE/dist/release/file-format-schema.json
IMPORT="node $SRC/tests/tools/speedscope_import.js $SPEEDSCOPE"
DATA=$SRC/tests/data/folded

require_tool node "Debian package nodejs; scripts/setup.sh installs it"
require_file "$SCHEMA" "scripts/setup-speedscope.sh installs speedscope"
PYTHON=
for candidate in /usr/bin/python3 python3; do
    if "$candidate" -c 'import jsonschema' 2>/dev/null; then
        PYTHON=$candidate
        break
    fi
done
[ -n "$PYTHON" ] || skip "no python3 with jsonschema (Debian package python3-jsonschema)"

sorted() {
    LC_ALL=C sort "$@"
}

# Sum of the weights of folded lines on standard input.
folded_total() {
    awk '{ total += $NF } END { print total + 0 }'
}

# The folded lines speedscope found in profile INDEX of its import summary FILE, sorted.
speedscope_lines() {
    node -e '
        const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
        const p = r.profiles[Number(process.argv[2])];
        if (p) for (const l of p.folded) console.log(l);' "$1" "$2" | sorted
}

# speedscope_field FILE EXPRESSION: a value of the import summary (r is the summary).
speedscope_field() {
    node -e '
        const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
        console.log(eval(process.argv[2]));' "$1" "$2"
}

# check_speedscope FILE: valid against the schema and imported by speedscope; the summary goes
# to FILE.import.json.
check_speedscope() {
    expect_status 0 "$PYTHON" "$SRC/tests/tools/validate_json_schema.py" "$SCHEMA" "$1"
    expect_status 0 $IMPORT "$1"
    printf '%s\n' "$OUT" > "$1.import.json"
    expect_contains "$OUT" '"importer": "Importing as speedscope json file"' "speedscope import of $1"
}

# ---- speedscope ------------------------------------------------------------------------------
expect_status 0 "$PROFKIT" convert "$DATA/synthetic.folded" -o synthetic.speedscope.json
check_speedscope synthetic.speedscope.json
expect_eq "$(speedscope_lines synthetic.speedscope.json.import.json 0)" \
    "$(sorted "$DATA/synthetic.folded")" "speedscope sees the folded stacks"
expect_eq "$(speedscope_field synthetic.speedscope.json.import.json 'r.profiles.length')" 1 \
    "one profile"
expect_eq "$(speedscope_field synthetic.speedscope.json.import.json 'r.profiles[0].total')" \
    "$(folded_total < "$DATA/synthetic.folded")" "speedscope total"
expect_eq "$(speedscope_field synthetic.speedscope.json.import.json 'r.profiles[0].name')" "all" \
    "profile name"
expect_contains "$(cat synthetic.speedscope.json)" '"exporter":"profkit@' "exporter"

# Several threads: one profile each in thread order; the heaviest is the one shown first.
printf 'worker;run;step 4\nmain;start;run 30\nmain;start 1\nworker;run;step 2\n' > threads.folded
expect_status 0 "$PROFKIT" convert threads.folded --folded-threads --to speedscope \
    -o threads.speedscope.json --title "two threads"
check_speedscope threads.speedscope.json
summary=threads.speedscope.json.import.json
expect_eq "$(speedscope_field $summary 'r.profiles.map(p => p.name).join(",")')" "worker,main" \
    "thread profiles"
expect_eq "$(speedscope_lines $summary 0)" "run;step 6" "worker stacks"
expect_eq "$(speedscope_lines $summary 1)" "$(printf 'start 1\nstart;run 30\n' | sorted)" \
    "main stacks"
expect_eq "$(speedscope_field $summary 'r.active')" 1 "heaviest thread shown first"
expect_eq "$(speedscope_field $summary 'r.name')" "two threads" "title"

# Names that need JSON escaping and names that folded output must sanitise.
printf 'r\xc3\xa9sum\xc3\xa9;"quoted" \\back;tab\there 5\nx<y>&z;a b c 2\n' > names.folded
expect_status 0 "$PROFKIT" convert names.folded -o names.speedscope.json
check_speedscope names.speedscope.json
expect_eq "$(speedscope_lines names.speedscope.json.import.json 0)" "$(sorted names.folded)" \
    "escaped names"

# Deeply nested calls are written as an evented profile: speedscope's importer takes its open
# and close events, innermost closed first, and sees the same stacks and total. (speedscope walks
# its call tree recursively, which fails at some thousands of frames whatever the profile's
# type, its own exports' too: 300 here.)
sh "$SRC/tests/tools/nested_trace.sh" 300 > nested.trace.json
expect_status 0 "$PROFKIT" convert nested.trace.json -o nested.speedscope.json
expect_eq "$(grep -c '"type":"evented"' nested.speedscope.json)" 1 "an evented profile"
check_speedscope nested.speedscope.json
summary=nested.speedscope.json.import.json
expect_status 0 "$PROFKIT" convert nested.trace.json --to folded
expect_eq "$(speedscope_lines $summary 0)" "$(printf '%s\n' "$OUT" | sorted)" \
    "speedscope sees the nested stacks"
expect_eq "$(speedscope_field $summary 'r.profiles[0].total')" \
    "$(printf '%s\n' "$OUT" | folded_total)" "speedscope total of the events"
expect_eq "$(speedscope_field $summary 'r.profiles[0].unit')" "nanoseconds" "unit"

# ---- speedscope reads profkit's folded output with its own collapsed-stack importer --------
expect_status 0 "$PROFKIT" convert "$DATA/synthetic.folded" -o synthetic.collapsedstack.txt
expect_status 0 $IMPORT synthetic.collapsedstack.txt
printf '%s\n' "$OUT" > collapsed.import.json
expect_contains "$OUT" '"importer": "Importing as collapsed stack format"' "collapsed import"
expect_eq "$(speedscope_lines collapsed.import.json 0)" "$(sorted "$DATA/synthetic.folded")" \
    "speedscope reads profkit folded output"

# ---- profkit reads what speedscope reads ------------------------------------------------------
# speedscope's own exports and the files of older schema versions: the same stacks with the same
# weights (profkit's in nanoseconds where the file's unit is a time).
for file in "$SRC"/tests/data/speedscope/*.speedscope.json; do
    name=$(basename "$file")
    expect_status 0 $IMPORT "$file"
    printf '%s\n' "$OUT" > "$name.import.json"
    profiles=$(speedscope_field "$name.import.json" 'r.profiles.length')
    expect_status 0 "$PROFKIT" report "$file" --threads
    expect_contains "$OUT" "$profiles of $profiles threads" "$name: a thread per profile"
    [ "$profiles" = 1 ] || continue
    scale=$(speedscope_field "$name.import.json" \
        '({nanoseconds: 1, microseconds: 1e3, milliseconds: 1e6, seconds: 1e9})[r.profiles[0].unit] || 1')
    theirs=$(speedscope_lines "$name.import.json" 0 | awk -v scale="$scale" \
        '{ w = $NF; $NF = ""; sub(/ $/, ""); printf "%s %.0f\n", $0, w * scale }' | sorted)
    expect_status 0 "$PROFKIT" convert "$file" --to folded
    expect_eq "$(printf '%s\n' "$OUT" | sorted)" "$theirs" "$name: the stacks speedscope sees"
done

# ---- every bundled example that profkit reads: speedscope and folded agree --------------------
for example in "$SRC"/examples/*; do
    [ -f "$example" ] || continue
    "$PROFKIT" info "$example" >/dev/null 2>&1 || continue
    name=$(basename "$example")
    expect_status 0 "$PROFKIT" convert "$example" --quiet -o "$name.speedscope.json"
    check_speedscope "$name.speedscope.json"
    expect_status 0 "$PROFKIT" convert "$example" --quiet --to folded
    folded_sum=$(printf '%s\n' "$OUT" | folded_total)
    speedscope_sum=$(speedscope_field "$name.speedscope.json.import.json" \
        'r.profiles.reduce((s, p) => s + p.total, 0)')
    expect_eq "$speedscope_sum" "$folded_sum" "$name: speedscope and folded totals"
done

finish
