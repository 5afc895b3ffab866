# SPDX-License-Identifier: MIT
# The svg format: a flame graph from folded stacks is well-formed and its widths add up; a big
# input gives a small file. interop_svg_browser.sh opens the graph in a real browser.
. "$(dirname "$0")/lib.sh"

CHECK="$SRC/tests/cli/svg_check.py"

cat > in.folded <<'END'
main;foo 10
main;foo;bar 20
main;bar 5
main 1
main;rec;rec;bar 4
main;rec 2
END

expect_status 0 "$PROFKIT" convert in.folded -o graph.svg --title "Test & <title>"
expect_file graph.svg
CHECKS=$((CHECKS + 1))
python3 "$CHECK" widths graph.svg >/dev/null || fail "graph.svg: widths"
expect_contains "$(cat graph.svg)" "Test &amp; &lt;title&gt;" "title escaped"
frames=$(python3 "$CHECK" frames graph.svg)
expect_contains "$frames" "foo	150.48	" "foo placed after bar"
expect_contains "$frames" "foo	150.48	94.0	842.86	" "foo's width is 30/42 of 1180"
expect_status 0 "$PROFKIT" convert in.folded -o icicle.svg --inverted
CHECKS=$((CHECKS + 1))
python3 "$CHECK" widths icicle.svg --inverted >/dev/null || fail "icicle.svg: widths"
expect_status 0 "$PROFKIT" convert in.folded --to svg -o - --reverse
expect_contains "$OUT" "<svg" "svg on standard output"
expect_status 2 "$PROFKIT" convert in.folded -o bad.svg --svg-width 5
expect_no_file bad.svg

# A big input still gives a small file: narrow frames are merged.
python3 -c '
import random
random.seed(7)
with open("big.folded", "w") as f:
    for i in range(200000):
        f.write("main;work%d;step%d;leaf%d %d\n" % (i % 5000, i % 37, i, random.randint(1, 9)))
'
expect_status 0 "$PROFKIT" convert big.folded -o big.svg
CHECKS=$((CHECKS + 1))
python3 "$CHECK" widths big.svg >/dev/null || fail "big.svg: widths"
size=$(wc -c < big.svg)
CHECKS=$((CHECKS + 1))
[ "$size" -lt 3000000 ] || fail "big.svg is $size bytes"
expect_contains "$(cat big.svg)" "small frames)" "narrow frames merged"

finish
