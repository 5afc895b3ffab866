# SPDX-License-Identifier: MIT
# profkit report, diff and merge on folded stacks: every view as text and JSON, the limits of
# the text width, usage errors.
. "$(dirname "$0")/lib.sh"


json_get() { # json_get FILE PYTHON-EXPRESSION-ON-d
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

cat > base.folded <<'END'
main;foo 10
main;foo;bar 20
main;bar 5
main 1
main;rec;rec;bar 4
main;rec 2
END
cat > new.folded <<'END'
main;foo 20
main;foo;bar 20
main;bar 5
main 1
main;rec;bar 2
END
printf 'ui;main;foo 3\nui;main;bar 1\nnet;poll 6\n' > threads.folded
long=$(printf 'Namespace::Sub%.0s' $(seq 1 12))
printf 'main;%s::method 5\nmain 1\n' "$long" > long.folded

# ---- top ------------------------------------------------------------------------------------
expect_status 0 "$PROFKIT" report base.folded
expect_contains "$OUT" "samples (count): total 42; 4 of 4 functions by self" "top header"
expect_contains "$OUT" "        29  69.05%  69.05%         29  69.05%  bar" "top first row"
expect_contains "$OUT" "         2   4.76%  97.62%          6  14.29%  rec" "recursion counted once"
expect_status 0 "$PROFKIT" report base.folded --top 1 --sort total
expect_contains "$OUT" "1 of 4 functions by total" "--top 1 --sort total"
expect_contains "$OUT" "100.00%  main" "--sort total first row"
expect_not_contains "$OUT" "bar" "--top 1"
expect_status 0 "$PROFKIT" report base.folded --json
printf '%s' "$OUT" > top.json
expect_eq "$(json_get top.json 'd["total"], [(f["name"], f["self"], f["total"]) for f in d["functions"]]')" \
    "(42, [('bar', 29, 29), ('foo', 10, 30), ('rec', 2, 6), ('main', 1, 42)])" "top JSON"

# ---- tree -----------------------------------------------------------------------------------
expect_status 0 "$PROFKIT" report base.folded --tree --min-percent 12
expect_contains "$OUT" "branches under 12% folded" "tree header"
expect_contains "$OUT" "        42 100.00%          1  main" "tree root"
expect_contains "$OUT" "        30  71.43%         10    foo" "tree child"
expect_contains "$OUT" "         6  14.29%          2    rec" "tree recursion"
expect_contains "$OUT" "         4   9.52%                 ... 1 more" "tree folded branch"
expect_contains "$OUT" "         5  11.90%               ... 1 more" "tree folded branch"
expect_status 0 "$PROFKIT" report base.folded --tree --min-percent 0 --json
printf '%s' "$OUT" > tree.json
expect_eq "$(json_get tree.json '[(c["name"], c["total"]) for c in d["roots"][0]["children"]]')" \
    "[('foo', 30), ('rec', 6), ('bar', 5)]" "tree JSON children heaviest first"
expect_eq "$(json_get tree.json 'd["roots"][0]["children"][1]["children"][0]["children"][0]["name"]')" \
    "bar" "tree JSON recursion as it occurs"

# ---- callers, callees, lines, memory, threads -----------------------------------------------
expect_status 0 "$PROFKIT" report base.folded --callers bar
expect_contains "$OUT" "callers of bar: samples (count) 29 (69.05% of all)" "callers header"
expect_contains "$OUT" "        20  68.97%  foo" "callers share"
expect_status 0 "$PROFKIT" report base.folded --callees main --json
printf '%s' "$OUT" > callees.json
expect_eq "$(json_get callees.json '[(c["name"], c["value"]) for c in d["callees"]]')" \
    "[('foo', 30), ('rec', 6), ('bar', 5), (None, 1)]" "callees JSON"
expect_status 2 "$PROFKIT" report base.folded --callers nosuch
expect_contains "$ERR" "no function named 'nosuch'" "unknown function"
expect_status 0 "$PROFKIT" report base.folded --lines
expect_contains "$OUT" "the profile has no source lines" "no lines in folded stacks"
expect_status 0 "$PROFKIT" report base.folded --memory
expect_contains "$OUT" "no memory events" "no memory events in folded stacks"
expect_status 0 "$PROFKIT" report threads.folded --folded-threads --threads
expect_contains "$OUT" "         6  60.00%        1  net" "threads"
expect_contains "$OUT" "         4  40.00%        2  ui" "threads"
expect_status 0 "$PROFKIT" report threads.folded --folded-threads --thread ui --json
printf '%s' "$OUT" > thread.json
expect_eq "$(json_get thread.json 'd["total"], [f["name"] for f in d["functions"]]')" \
    "(4, ['foo', 'bar', 'main'])" "--thread restricts"
expect_status 0 "$PROFKIT" report threads.folded --folded-threads --tree
expect_contains "$OUT" "[net]" "one branch per thread"

# Every view as JSON parses.
for view in "" --tree "--callers foo" "--callees foo" --lines --memory --threads; do
    # shellcheck disable=SC2086
    expect_status 0 "$PROFKIT" report base.folded $view --json
    CHECKS=$((CHECKS + 1))
    printf '%s' "$OUT" | python3 -c 'import json,sys; json.load(sys.stdin)' ||
        fail "report $view --json is not JSON"
done

# ---- 80 columns -----------------------------------------------------------------------------
for view in "" --tree "--callees main"; do
    # shellcheck disable=SC2086
    expect_status 0 "$PROFKIT" report long.folded $view
    CHECKS=$((CHECKS + 1))
    widest=$(printf '%s\n' "$OUT" | awk '{ if (length($0) > w) w = length($0) } END { print w }')
    [ "$widest" -le 80 ] || fail "report $view: a line is $widest columns wide"
    expect_contains "$OUT" "..." "report $view shortens"
done
expect_status 0 "$PROFKIT" report long.folded --wide
expect_contains "$OUT" "$long::method" "--wide keeps names"

# ---- usage errors ---------------------------------------------------------------------------
expect_status 2 "$PROFKIT" report base.folded --tree --lines
expect_contains "$ERR" "choose one view" "two views"
expect_status 2 "$PROFKIT" report base.folded --sort fast
expect_status 2 "$PROFKIT" report base.folded --top many
expect_status 2 "$PROFKIT" report base.folded --tree --min-percent 120
expect_status 2 "$PROFKIT" report base.folded --value cpu
expect_contains "$ERR" "this profile has: samples" "unknown value"
expect_status 2 "$PROFKIT" report
expect_status 1 "$PROFKIT" report missing.folded
expect_status 0 "$PROFKIT" report --help
expect_contains "$OUT" "Usage: profkit report" "report --help"

# ---- diff -----------------------------------------------------------------------------------
expect_status 0 "$PROFKIT" diff base.folded new.folded
expect_contains "$OUT" "samples (count): base 42, new 48 (+14.3%)" "diff header"
expect_contains "$OUT" "        10         20         +10  +100.0%  foo" "diff biggest change first"
expect_status 0 "$PROFKIT" diff base.folded new.folded --json --tree
printf '%s' "$OUT" > diff.json
expect_eq "$(json_get diff.json '(d["by"], d["rows"][0]["path"], d["rows"][0]["change"])')" \
    "('path', ['main', 'foo'], 10)" "diff --tree JSON"
expect_status 0 "$PROFKIT" diff base.folded new.folded --normalize --json
printf '%s' "$OUT" > diffn.json
expect_eq "$(json_get diffn.json 'round(d["base_scale"], 6), d["normalized"]')" \
    "(1.142857, True)" "diff --normalize"
expect_status 0 "$PROFKIT" diff base.folded new.folded -o diff.folded
expect_eq "$(sort diff.folded | tr '\n' '|')" \
    "main 1 1|main;bar 5 5|main;foo 10 20|main;foo;bar 20 20|main;rec 2 0|main;rec;bar 0 2|main;rec;rec;bar 4 0|" \
    "diff -o .folded"
expect_status 0 "$PROFKIT" diff base.folded new.folded -o diff.svg --title "Before and after"
CHECKS=$((CHECKS + 1))
python3 "$SRC/tests/cli/svg_check.py" widths diff.svg >/dev/null || fail "diff.svg widths"
expect_contains "$(cat diff.svg)" "Before and after" "diff.svg title"
# Every option diff took before the comparison became a profile, in one run.
expect_status 0 "$PROFKIT" diff base.folded new.folded --tree --sort total --normalize --top 3 \
    --json --wide --value samples --title "A title" --from folded --quiet
expect_eq "$(printf '%s' "$OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["row_count"], len(d["rows"]))')" \
    "8 3" "diff with all its options"
expect_status 2 "$PROFKIT" diff base.folded new.folded -o diff.txt
expect_status 2 "$PROFKIT" diff base.folded
expect_status 0 "$PROFKIT" diff --help

# The comparison is a differential profile: 'stack BASE NEW' lines read back as one, and any
# format writes it.
expect_status 0 "$PROFKIT" report diff.folded --json --top 0
printf '%s' "$OUT" > diffreport.json
expect_eq "$(json_get diffreport.json '(d["value"]["name"], d["total"], [(f["name"], f["self"], f["total"]) for f in d["functions"]])')" \
    "('new', 48, [('bar', 27, 27), ('foo', 20, 40), ('main', 1, 48), ('rec', 0, 2)])" \
    "report on a differential folded file"
expect_status 0 "$PROFKIT" report diff.folded --value base --top 1
expect_contains "$OUT" "base (count): total 42; 1 of 4 functions by self" "its base value"
expect_status 0 "$PROFKIT" info diff.folded
expect_contains "$OUT" "differential             yes (values base and new)" "info on it"
expect_status 0 "$PROFKIT" convert diff.folded -o again.folded
expect_eq "$(sort again.folded | tr '\n' '|')" "$(sort diff.folded | tr '\n' '|')" \
    "two-count lines round trip"
expect_status 0 "$PROFKIT" convert diff.folded -o again.svg
expect_contains "$(cat again.svg)" "Differential Flame Graph" "a differential flame graph from two-count lines"
CHECKS=$((CHECKS + 1))
python3 "$SRC/tests/cli/svg_check.py" widths again.svg >/dev/null || fail "again.svg widths"
expect_status 0 "$PROFKIT" diff base.folded new.folded --normalize -o diffn.folded
expect_contains "$(cat diffn.folded)" "main;foo 11 20" "normalised base, rounded"
expect_status 0 "$PROFKIT" diff base.folded new.folded -o diff.json
expect_contains "$(cat diff.json)" '"value":"new (count)"' "diff -o .json (Firefox Profiler)"
expect_status 0 "$PROFKIT" diff base.folded new.folded --to speedscope
expect_contains "$OUT" '"name":"foo"' "diff --to speedscope on standard output"
expect_status 0 "$PROFKIT" diff base.folded new.folded -o diff-icicle.svg --inverted --with-threads
CHECKS=$((CHECKS + 1))
python3 "$SRC/tests/cli/svg_check.py" widths diff-icicle.svg --inverted >/dev/null ||
    fail "diff-icicle.svg widths"
expect_status 0 "$PROFKIT" diff base.folded new.folded -o diff.folded.gz
expect_eq "$(gzip -dc diff.folded.gz | sort | tr '\n' '|')" "$(sort diff.folded | tr '\n' '|')" \
    "diff -o .folded.gz"
expect_status 2 "$PROFKIT" diff base.folded new.folded -o base.folded
expect_contains "$ERR" "is BASE" "diff over BASE"
expect_status 2 "$PROFKIT" diff base.folded new.folded -o new.folded
expect_eq "$(sort new.folded | head -1)" "main 1" "NEW is never written over"

# ---- merge ----------------------------------------------------------------------------------
expect_status 0 "$PROFKIT" merge base.folded new.folded base.folded -o merged.folded
expect_status 0 "$PROFKIT" report merged.folded --json --top 0
printf '%s' "$OUT" > merged.json
expect_eq "$(json_get merged.json 'd["total"], [(f["name"], f["self"]) for f in d["functions"]]')" \
    "(132, [('bar', 85), ('foo', 40), ('rec', 4), ('main', 3)])" "merge sums"
expect_status 0 "$PROFKIT" merge base.folded new.folded -o merged.svg
CHECKS=$((CHECKS + 1))
python3 "$SRC/tests/cli/svg_check.py" widths merged.svg >/dev/null || fail "merge to svg"
expect_status 2 "$PROFKIT" merge base.folded -o base.folded
expect_contains "$ERR" "is one of the inputs" "merge over an input"
expect_status 2 "$PROFKIT" merge base.folded
expect_status 2 "$PROFKIT" merge base.folded -o merged.unknown
expect_status 1 "$PROFKIT" merge base.folded missing.folded -o m2.folded
expect_no_file m2.folded
finish
