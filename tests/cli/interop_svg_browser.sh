# SPDX-License-Identifier: MIT
# profkit's SVG flame graph in a real browser (headless chromium): a screenshot of it is not
# blank, and its script zooms, searches and resets.
. "$(dirname "$0")/lib.sh"

CHECK="$SRC/tests/cli/svg_check.py"
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || skip "chromium is not installed (Debian package chromium; scripts/setup.sh installs it)"

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
