# SPDX-License-Identifier: MIT
# ART method traces checked with Debian's dmtracedump: for every fixture (tests/data/art, written
# from the format's documentation), profkit's exclusive and inclusive time per method equal
# dmtracedump's (for a streaming fixture, dmtracedump's of its twin in the other form), in the clock dmtracedump reports (the thread CPU clock of a dual-clock trace,
# which it reads first). art.sh holds the checks that need profkit only.
. "$(dirname "$0")/lib.sh"
DATA=$SRC/tests/data/art

require_tool dmtracedump "Debian package dmtracedump"

# "name exclusive inclusive" per method in microseconds, sorted. dmtracedump names methods
# class.method signature with '/' in class names and a source file after a tab (when the method
# line has no line number); profkit writes the class with dots and keeps the file apart.
dmtracedump_times() {
    dmtracedump "$1" 2>/dev/null | python3 -c 'import re, sys
excl, incl, section = {}, {}, 0
for line in sys.stdin:
    line = line.rstrip("\n")
    if line.startswith("Exclusive elapsed times for each method,"):
        section = 1
    elif line.startswith("Inclusive elapsed times"):
        section = 2
    elif line.startswith("Exclusive elapsed time for each class"):
        section = 3
    def name(s):
        method, _, signature = s.split("\t")[0].partition(" ")
        return method.replace("/", ".") + " " + signature
    m = re.match(r"^\s+(\d+)\s+[\d.]+\s+[\d.]+\s+\[\d+\] (.*)$", line) if section == 1 else None
    if m:
        excl[name(m.group(2))] = int(m.group(1))
    m = re.match(r"^\[\d+\]\s+[\d.]+%\s+\S+\s+(\d+) (.*)$", line) if section == 2 else None
    if m:
        incl[name(m.group(2))] = int(m.group(1))
for n in sorted(excl):
    print(n, excl[n], incl.get(n))'
}

profkit_times() {
    "$PROFKIT" report "$1" --top 0 --json --value "$2" --quiet | python3 -c 'import json, sys
for f in sorted(json.load(sys.stdin)["functions"], key=lambda f: f["name"]):
    print(f["name"], f["self"] // 1000, f["total"] // 1000)'
}

# dmtracedump does not read the streaming form: a streaming fixture (stream-*.trace, the same
# calls as its twin in the other form) is compared with what dmtracedump gives for the twin.
for f in "$DATA"/*.trace; do
    value=wall
    case "$f" in *-dual.trace | *-cpu.trace) value=cpu ;; esac
    twin=$f
    case "$f" in */stream-v3-dual.trace) twin=$DATA/v3-dual.trace ;;
                 */stream-v2-wall.trace) twin=$DATA/v2-wall.trace ;; esac
    want=$(dmtracedump_times "$twin")
    got=$(profkit_times "$f" "$value")
    CHECKS=$((CHECKS + 1))
    [ -n "$want" ] || fail "$f: dmtracedump listed no methods"
    [ "$want" = "$got" ] || fail "$f: dmtracedump and profkit differ:
--- dmtracedump
$want
--- profkit
$got"
done
finish
