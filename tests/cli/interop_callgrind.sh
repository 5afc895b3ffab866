# SPDX-License-Identifier: MIT
# callgrind in and out, checked with valgrind's callgrind_annotate: for every fixture made by
# valgrind --tool=callgrind, profkit's self cost per function equals callgrind_annotate's, for
# each event compared; and callgrind_annotate reads what profkit writes (from callgrind, pprof,
# gperftools, .bsprof and perf script profiles) with profkit's own self cost per function and totals.
# callgrind.sh holds the checks that need profkit only.
. "$(dirname "$0")/lib.sh"
DATA=$SRC/tests/data/callgrind

require_tool callgrind_annotate "Debian package valgrind"

# Self cost per function name, "name cost" lines sorted, of one event as callgrind_annotate
# lists it: it lists file:function (code inlined from another file under that file), so the
# entries of one function name are summed. callgrind_annotate takes the cost line of a call
# counted 0 (`calls=0`: a call still running when callgrind dumped a part) for self cost,
# where KCachegrind and profkit take it for the call's inclusive cost: it is shown such calls
# counted 1, which changes nothing else it lists.
# ANNOTATE (default callgrind_annotate --threshold=100) may name cachegrind's cg_annotate.
annotate_functions() {
    sed 's/^calls=0 /calls=1 /' "$1" >annotate.input
    ${ANNOTATE:-callgrind_annotate --threshold=100} --auto=no --show="$2" --sort="$2" annotate.input 2>/dev/null |
        python3 -c 'import re, sys
sums = {}
started = False
for line in sys.stdin:
    line = line.rstrip("\n")
    if line.endswith("file:function"):
        started = True
        continue
    m = re.match(r"^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)$", line) if started else None
    if not m:
        continue
    entry = re.sub(r" \[(\[[^\]]*\]|[^\]]*)\]$", "", m.group(2))  # the object, [[kernel.kallsyms]] too
    # file:function, where files may hold a ':' (pkg:/...) and C++ names "::": the separator is
    # the last single ':'.
    singles = [i for i, c in enumerate(entry) if c == ":" and entry[i - 1:i] != ":" and entry[i + 1:i + 2] != ":"]
    name = entry[singles[-1] + 1:]
    sums[name] = sums.get(name, 0) + int(m.group(1).replace(",", ""))
for name, cost in sorted(sums.items()):
    if cost:
        print(name, cost)'
}

# The same from profkit's report of self cost per function (any format; extra options after
# the event).
profkit_functions() {
    local input=$1 event=$2
    shift 2
    "$PROFKIT" report "$input" --value "$event" --top 0 --json --quiet "$@" |
        python3 -c 'import json, sys
sums = {}
for f in json.load(sys.stdin)["functions"]:
    sums[f["name"]] = sums.get(f["name"], 0) + f["self"]
for name, cost in sorted(sums.items()):
    if cost:
        print(name, cost)'
}

compare() {
    local file=$1 event=$2
    annotate_functions "$DATA/$file" "$event" >"annotate.$file.$event"
    profkit_functions "$DATA/$file" "$event" >"profkit.$file.$event"
    [ -s "annotate.$file.$event" ] || fail "callgrind_annotate listed nothing for $file ($event)"
    expect_same_lines "annotate.$file.$event" "profkit.$file.$event" \
        "$file ($event): self cost per function differs from callgrind_annotate's"
}

for file in callgrind.out.prog callgrind.out.prog-instr callgrind.out.prog-jumps \
            callgrind.out.parts-combined callgrind.out.threads-02 callgrind.out.threads-03 \
            callgrind.out.tiny; do
    compare "$file" Ir
done
# Every event of the cache and branch simulations (13: more than the model once held).
cache_events=$(sed -n 's/^events: //p' "$DATA/callgrind.out.prog-cache")
expect_eq "$(printf '%s\n' $cache_events | wc -l)" 13 "events of callgrind.out.prog-cache"
for event in $cache_events; do
    compare callgrind.out.prog-cache "$event"
done
# 17 events: the cache and branch simulations with --collect-bus and --collect-systime.
many_events=$(sed -n 's/^events: //p' "$DATA/callgrind.out.prog-17events")
expect_eq "$(printf '%s\n' $many_events | wc -l)" 17 "events of callgrind.out.prog-17events"
for event in $many_events; do
    compare callgrind.out.prog-17events "$event"
done
# A compressed name used and never defined (the shape of selinux's file in gprof2dot's tests):
# callgrind_annotate reads it too, with the same self costs.
compare undefined-name.callgrind Ir
# Relative positions on call cost lines, a calls= without its own cfn=, a call target that the
# next fn= ends (issue 40).
compare calls-relative.callgrind Ir
# cachegrind's files are read too (a function in each file it has code in, no calls).
ANNOTATE="cg_annotate --threshold=0" compare cachegrind.out.prog Ir

# What profkit writes: callgrind_annotate's self cost per function of the written file equals
# profkit's report of the input, and its program totals equal profkit's totals.
compare_written() {
    local input=$1 event=$2 name
    shift 2
    name=$(basename "$input").$event
    CHECKS=$((CHECKS + 1))
    if ! "$PROFKIT" convert "$input" --to callgrind -o "$name.callgrind" --quiet "$@"; then
        fail "profkit could not write $input as callgrind"
        return
    fi
    # Event names keep letters, digits and '_'; a time or size value is written NAME_(UNIT), as
    # Xdebug names its events.
    local written
    written=$(sed -n 's/^events: //p' "$name.callgrind" | tr ' ' '\n' |
              grep -E "^$(printf '%s' "$event" | tr -c 'A-Za-z0-9_' '_')(_\(.*\))?\$" | head -1)
    [ -n "$written" ] || fail "no event for $event in $name.callgrind"
    annotate_functions "$name.callgrind" "$written" >"annotate.$name"
    profkit_functions "$input" "$event" "$@" >"profkit.$name"
    [ -s "profkit.$name" ] || fail "profkit reported nothing for $input ($event)"
    expect_same_lines "annotate.$name" "profkit.$name" \
        "$input written as callgrind ($event): callgrind_annotate's self cost per function differs from profkit's"
    CHECKS=$((CHECKS + 1))
    local annotated profkit_total
    annotated=$(callgrind_annotate --auto=no --show="$written" "$name.callgrind" 2>/dev/null |
                awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
    profkit_total=$("$PROFKIT" info "$input" --quiet "$@" |
                    awk -v v="$event" '$1 == v && $3 == "total" { print $4 }')
    expect_eq "$annotated" "$profkit_total" "$input written as callgrind: program total of $event"
}

compare_written "$DATA/callgrind.out.prog-instr" Ir
for event in $cache_events; do
    compare_written "$DATA/callgrind.out.prog-cache" "$event"
done
compare_written "$SRC/tests/data/pprof/cppbench.cpu" cpu
compare_written "$SRC/tests/data/pprof/cppbench.cpu" samples
compare_written "$SRC/tests/data/pprof/gobench.cpu" samples
compare_written "$SRC/tests/data/gperftools/real.prof" samples --no-symbols
compare_written "$SRC/examples/roku-channel.bsprof" cpu
compare_written "$SRC/tests/data/perf/prog.perf" cpu-clock
compare_written "$SRC/tests/data/perf/prog-srcline.perf" cpu-clock-samples

# Call counts (issue 35: KCachegrind showed "Called 394" for a function called once): the calls
# callgrind_annotate's call tree (--tree=calling) lists in what profkit writes from a callgrind
# file are the input's, each with the input's own count, summed per caller and callee name.
# By name, because callgrind_annotate names a caller by the file of the code that calls (an
# inlined file's too) and a callee's object by whichever block it read first; profkit writes
# a call made from inlined code as the function's own. Calls the expansion into stacks does
# not follow (recursion such as fib'2 -> fib'2, calls below its threshold) are there too,
# with no cost.
annotate_calls() {
    callgrind_annotate --tree=calling --threshold=100 "$1" 2>/dev/null | python3 -c 'import re, sys
def name(entry):
    entry = re.sub(r" \[(\[[^\]]*\]|[^\]]*)\]$", "", entry)
    singles = [i for i, c in enumerate(entry) if c == ":" and entry[i - 1:i] != ":" and entry[i + 1:i + 2] != ":"]
    return entry[singles[-1] + 1:]
cost = r"^\s*(?:[\d,]+ \(\s*[\d.]+%\)|\.)\s+"
caller, counts = None, {}
for line in sys.stdin:
    line = line.rstrip("\n")
    m = re.match(cost + r"\*\s+(.*)$", line)
    if m:
        caller = name(m.group(1))
        continue
    m = re.match(cost + r">\s+(.*) \(([\d,]+)x\)( \[.*\])?$", line)
    if m and caller is not None:
        key = caller + " -> " + name(m.group(1))
        counts[key] = counts.get(key, 0) + int(m.group(2).replace(",", ""))
for key, count in sorted(counts.items()):
    print(count, key)'
}

compare_calls() {
    local file=$1
    CHECKS=$((CHECKS + 1))
    if ! "$PROFKIT" convert "$DATA/$file" --to callgrind -o "calls.$file.callgrind" --quiet; then
        fail "profkit could not write $file as callgrind"
        return
    fi
    annotate_calls "$DATA/$file" >"calls.in.$file"
    annotate_calls "calls.$file.callgrind" >"calls.out.$file"
    [ -s "calls.in.$file" ] || fail "callgrind_annotate listed no calls for $file"
    expect_same_lines "calls.in.$file" "calls.out.$file" \
        "$file written as callgrind: call counts differ from the input's"
}

for file in callgrind.out.prog callgrind.out.prog-instr callgrind.out.prog-jumps \
            callgrind.out.parts-combined callgrind.out.threads-02 callgrind.out.threads-03 \
            callgrind.out.tiny calls-relative.callgrind undefined-name.callgrind; do
    compare_calls "$file"
done
# The recursion's own count, which callgrind keeps apart as fib'2 calling itself.
expect_eq "$(grep -c "^678 fib'2 -> fib'2\$" calls.out.callgrind.out.prog)" 1 \
          "fib'2's calls of itself written from callgrind.out.prog"

finish
