# The svg format: a flame graph from folded stacks is well-formed, its widths add up, the
# script zooms and searches in a real browser, and a screenshot of it is not blank.
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

# ---- in a browser ---------------------------------------------------------------------------
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
    fail "chromium is not installed (scripts/setup.sh installs it)"
    finish
fi
run_browser() {
    HOME="$SCRATCH" timeout 120 "$browser" --headless --no-sandbox --disable-gpu \
        --disable-dev-shm-usage --hide-scrollbars --no-first-run --disable-quic \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$SCRATCH/chromium-profile" "$@" 2>/dev/null
}
run_browser --window-size=1200,240 --screenshot="$SCRATCH/shot.png" "file://$SCRATCH/graph.svg" >/dev/null
expect_file shot.png
CHECKS=$((CHECKS + 1))
python3 "$CHECK" png-not-blank shot.png >/dev/null || fail "the screenshot of graph.svg is blank"

# Zoom into foo, search for bar, reset: the script reports what it did.
python3 - graph.svg probe.svg <<'END'
import sys
svg = open(sys.argv[1]).read()
probe = """<script><![CDATA[
window.addEventListener('load', function () {
  var out = [];
  var foo = frames.filter(function (f) { return f.name === 'foo'; })[0];
  zoom(foo);
  frames.forEach(function (f) {
    if (!f.g.classList.contains('hidden'))
      out.push(f.name + '=' + f.rect.getAttribute('width'));
  });
  applySearch(new RegExp('bar'));
  out.push(matched.textContent);
  unzoom();
  out.push('reset foo=' + foo.rect.getAttribute('width'));
  var t = document.createElementNS('http://www.w3.org/2000/svg', 'text');
  t.textContent = 'RESULT[' + out.join(' ') + ']';
  document.documentElement.appendChild(t);
});
]]></script>
</svg>"""
open(sys.argv[2], "w").write(svg.replace("</svg>", probe))
END
dom=$(run_browser --virtual-time-budget=3000 --dump-dom "file://$SCRATCH/probe.svg")
result=$(printf '%s' "$dom" | grep -o 'RESULT\[[^]]*\]' | tail -1)
expect_eq "$result" \
    "RESULT[all=1180.00 main=1180.00 foo=1180.00 bar=786.66 Matched: 69.0% reset foo=842.86]" \
    "zoom, search and reset in the browser"
finish
