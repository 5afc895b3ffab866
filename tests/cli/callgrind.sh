# SPDX-License-Identifier: MIT
# callgrind files: probing by content, what the reader keeps (values, threads, parts, lines),
# damage and cut files. interop_callgrind.sh compares profkit with callgrind_annotate.
. "$(dirname "$0")/lib.sh"
DATA=$SRC/tests/data/callgrind

# Every fixture is taken for callgrind by its content (no extension helps), not for folded.
for f in "$DATA"/callgrind.out.* "$DATA"/cachegrind.out.*; do
    expect_status 0 "$PROFKIT" info "$f"
    expect_contains "$OUT" "format                   callgrind" "info of ${f##*/}"
    expect_eq "$ERR" "" "warnings of ${f##*/}"
done

# The totals are callgrind's (summary:/totals:), the thread is the program's.
expect_status 0 "$PROFKIT" info "$DATA/callgrind.out.prog"
expect_contains "$OUT" "prog                   Ir=165934"
expect_contains "$OUT" "command                  ./prog 12"
# Combined dumps: both parts are summed.
expect_status 0 "$PROFKIT" info "$DATA/callgrind.out.parts-combined"
expect_contains "$OUT" "Ir=101789" "parts summed (5 + 101784)"
# --separate-threads: the thread is named by its number.
expect_status 0 "$PROFKIT" info "$DATA/callgrind.out.threads-03"
expect_contains "$OUT" "thread 3               tid 3        Ir=839990"

# The cache and branch simulations' 13 events are all kept, with the totals of the file's
# `totals:` line, and written back in the same order with the same totals.
expect_status 0 "$PROFKIT" info "$DATA/callgrind.out.prog-cache"
expect_contains "$OUT" "Ir=27604 Dr=1947 Dw=1796 I1mr=172 D1mr=49 D1mw=46 ILmr=172 DLmr=30 DLmw=45 Bc=4206 Bcm=242 Bi=31 Bim=17" \
    "every event of the cache and branch simulations"
expect_not_contains "$ERR" "left out" "no event left out"
expect_status 0 "$PROFKIT" convert "$DATA/callgrind.out.prog-cache" --to callgrind -o cache.callgrind
expect_eq "$(sed -n 's/^events: //p' cache.callgrind)" "Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim" \
    "the events written back"
expect_eq "$(sed -n 's/^totals: //p' cache.callgrind)" "27604 1947 1796 172 49 46 172 30 45 4206 242 31 17" \
    "the totals written back"

# The call graph becomes stacks: fib's recursion is one level of fib'2 under fib (the
# cycle's cost stays with the open fib'2), under work under main.
expect_status 0 "$PROFKIT" report "$DATA/callgrind.out.prog-instr" --tree --min-percent 5
expect_contains "$OUT" "main"
expect_contains "$OUT" "work"
expect_contains "$OUT" "fib'2"
# Per-line self cost is kept (positions: instr line): sum_squares' loop lines, the inlined
# square.h line among them.
expect_status 0 "$PROFKIT" report "$DATA/callgrind.out.prog-instr" --lines
expect_contains "$OUT" "square.h:4"
expect_contains "$OUT" "prog.c:"

# A file of another producer: Xdebug's events with units, no header signature, name
# compression, subposition compression and omitted costs.
cat >xdebug.out <<'XDEBUG'
version: 1
creator: xdebug 3.2.0 (PHP 8.2.0)
cmd: /var/www/index.php
part: 1
positions: line

events: Time_(10ns) Memory_(bytes)

fl=(1) /var/www/lib.php
fn=(1) php::strlen
4 60 0

fl=(2) /var/www/index.php
fn=(2) {main}
1 100 512
cfl=(1)
cfn=(1)
calls=3 4
+2 60 0
* 5

summary: 165 512
XDEBUG
expect_status 0 "$PROFKIT" info xdebug.out
expect_contains "$OUT" "format                   callgrind"
expect_contains "$OUT" "Time                   nanoseconds    total 1650"
expect_contains "$OUT" "Memory                 bytes          total 512"
expect_status 0 "$PROFKIT" convert xdebug.out --to folded
expect_eq "$OUT" "$(printf '{main} 1050\n{main};php::strlen 600')" "stacks with Time in ns"

# The sums are checked against totals: and summary:.
sed 's/^summary: 165 512/summary: 186 512/' xdebug.out >mismatch.out
expect_status 0 "$PROFKIT" info mismatch.out
expect_contains "$OUT" "part 1: summary: gives Time 186, but its cost lines add up to 165"

# Files of other writers that KCachegrind and gprof2dot read (the shapes of gprof2dot's test
# files, written here: tests/data/callgrind/README.md).
# bzr's (a Python profile): summary: and no totals:, which only callgrind promises.
expect_status 0 "$PROFKIT" info "$DATA/summary-without-totals.callgrind"
expect_contains "$OUT" "Ticks=950"
expect_eq "$ERR" "" "no warning: the cost lines add up to the summary"
expect_status 0 "$PROFKIT" convert "$DATA/summary-without-totals.callgrind" --to folded
expect_contains "$OUT" "main app:1;load app:10;<built-in method decompress> 400"
sed 's/^summary: 950/summary: 1000/' "$DATA/summary-without-totals.callgrind" >summary-differs.out
expect_status 0 "$PROFKIT" info summary-differs.out
expect_contains "$OUT" "part 1: summary: gives Ticks 1000, but its cost lines add up to 950"
# A file of callgrind without the totals: that ends each of its parts is cut.
grep -v '^totals:' "$DATA/callgrind.out.prog" >no-totals.out
expect_status 1 "$PROFKIT" info no-totals.out
expect_contains "$ERR" "but not the totals: line that ends it: the file is cut"
# selinux's (an early callgrind): an object (8) used and never defined. KCachegrind and
# gprof2dot read on; profkit too, with the (N) as the name and a warning naming the line.
expect_status 0 "$PROFKIT" info "$DATA/undefined-name.callgrind"
expect_contains "$OUT" "Ir=280"
expect_contains "$OUT" "line 24: the compressed object name (8) is used without a definition before it and is read as the name '(8)' (2 lines in all"
expect_status 0 "$PROFKIT" convert "$DATA/undefined-name.callgrind" --to callgrind --quiet
expect_contains "$OUT" "cob=(2) (8)" "the object named (8), written back"
printf 'events: Ir\nfn=(1) main\n3 10\nfn=(2)\n4 5\n' >undefined.out
expect_status 0 "$PROFKIT" info undefined.out
expect_contains "$OUT" "line 4: the compressed function name (2) is used without a definition before it and is read as the name '(2)'"
expect_not_contains "$OUT" "lines in all" "one line only"
expect_contains "$OUT" "Ir                     count          total 15"
# An empty dump (callgrind collected nothing: gprof2dot's empty.callgrind has this shape) is
# an empty profile, and folded stacks of it an empty output with a warning.
expect_status 0 "$PROFKIT" info "$DATA/callgrind.out.empty"
expect_contains "$OUT" "sample-rows            0"
expect_contains "$OUT" "DLmw                   count          total 0"
expect_status 0 "$PROFKIT" convert "$DATA/callgrind.out.empty" -o empty.folded
expect_contains "$ERR" "warning: the profile has no samples: empty.folded holds none"
[ -f empty.folded ] && [ ! -s empty.folded ] || fail "empty.folded is not an empty file"
# More than eight events: the 17 of the cache, branch, bus and system call collections.
expect_status 0 "$PROFKIT" info "$DATA/callgrind.out.prog-17events"
expect_contains "$OUT" "Bim=17 Ge=4 sysCount=5 sysTime=47691 sysCpuTime=44346"

# Damage: an error naming the line, or with --salvage what came before it and a warning.
printf 'events: Ir\nfn=main\ncfn=f\ncalls=1 3\nfn=g\n' >call.out
expect_status 1 "$PROFKIT" info call.out
expect_contains "$ERR" "line 5: calls= is not followed by the call's cost line"
printf 'events: Ir\nfn=main\n3 x\n' >cost.out
expect_status 1 "$PROFKIT" info cost.out --from callgrind
expect_contains "$ERR" "line 3: a cost line holds something other than numbers"
printf '# callgrind format\nversion: 1\n' >empty.out
expect_status 1 "$PROFKIT" info empty.out
expect_contains "$ERR" "no events: line"

# A cut file: cut anywhere before its last line, it is refused with the line where it ends or
# breaks, and --salvage keeps what came before.
input=$DATA/callgrind.out.prog-instr
size=$(wc -c <"$input")
for cut in 1000 4999 9001 15000 20011 $((size - 12)); do
    head -c "$cut" "$input" >cut.out
    expect_status 1 "$PROFKIT" info cut.out
    expect_contains "$ERR" "line " "error of a file cut at $cut"
    expect_status 0 "$PROFKIT" info --salvage cut.out
    expect_contains "$OUT" "damaged at byte" "salvage of a file cut at $cut"
done

# Writing: what profkit writes reads back with the same self cost per function and totals.
report_self() {
    "$PROFKIT" report "$@" --top 0 --json --quiet |
        python3 -c 'import json, sys
report = json.load(sys.stdin)
rows = report.get("functions") or report.get("lines")
for f in sorted(rows, key=lambda f: (f.get("file", ""), f.get("line", 0), f.get("function", f.get("name")))):
    print(f.get("file", ""), f.get("line", ""), f.get("function", f.get("name")), f["self"])'
}
expect_status 0 "$PROFKIT" convert "$DATA/callgrind.out.prog-instr" -o written.callgrind
expect_status 0 "$PROFKIT" info written.callgrind
expect_contains "$OUT" "format                   callgrind"
expect_contains "$OUT" "Ir=39965"
expect_eq "$(report_self written.callgrind)" "$(report_self "$DATA/callgrind.out.prog-instr")" \
    "self cost per function through profkit's callgrind"
expect_eq "$(report_self written.callgrind --lines)" \
    "$(report_self "$DATA/callgrind.out.prog-instr" --lines)" "self cost per line"
# Every value is an event with its plain name (what callgrind_annotate and KCachegrind show);
# times and sizes carry their unit in an `event: NAME : NAME (UNIT)` line, read back as the unit.
expect_status 0 "$PROFKIT" convert "$SRC/examples/roku-channel.bsprof" --to callgrind -o roku.out
expect_contains "$(cat roku.out)" "events: cpu wall calls alloc_space alloc_objects inuse_space inuse_objects"
expect_contains "$(cat roku.out)" "event: alloc_space : alloc_space (bytes)"
expect_status 0 "$PROFKIT" info roku.out
expect_contains "$OUT" "alloc_space            bytes          total 1751624"
expect_status 0 "$PROFKIT" convert xdebug.out --to callgrind -o xdebug-again.out
expect_contains "$(cat xdebug-again.out)" "events: Time Memory"
expect_contains "$(cat xdebug-again.out)" "event: Time : Time (nanoseconds)"
expect_status 0 "$PROFKIT" info xdebug-again.out
expect_contains "$OUT" "Time                   nanoseconds    total 1650"
expect_contains "$OUT" "Memory                 bytes          total 512"

# An event: line's long name gives the unit; callgrind's own sysTime long name stays a count.
printf 'event: cpu : cpu (nanoseconds)\nevent: sysTime : sysTime (elapsed ns)\nevents: cpu sysTime\nfn=main\n1 5 7\n' >event-unit.out
expect_status 0 "$PROFKIT" info event-unit.out
expect_contains "$OUT" "cpu                    nanoseconds    total 5"
expect_contains "$OUT" "sysTime                count          total 7"
# A call target does not outlive its function's block: the next fn= ends it.
printf 'events: Ir\nfn=main\n1 1\ncfn=f\nfn=g\ncalls=1 1\n1 5\n' >block.out
expect_status 1 "$PROFKIT" info block.out
expect_contains "$ERR" "line 6: calls= without a cfn= before it"

# Call counts are the input's own: the calls= counts into each function (KCachegrind's
# "Called") are .bsprof's call counts of that function, not the number of stacks merged.
called_per_function() {
    awk '/^c?fn=/ { v = $0; sub(/^c?fn=/, "", v); id = v; sub(/\).*/, ")", id)
                    nm = v; sub(/^\([0-9]+\) ?/, "", nm); if (nm != "") names[id] = nm
                    if ($0 ~ /^cfn=/) callee = names[id] }
         /^calls=/ { split($1, a, "="); called[callee] += a[2] }
         END { for (f in called) print f, called[f] }' "$1" | sort
}
called_per_function roku.out >roku.called
"$PROFKIT" report "$SRC/examples/roku-channel.bsprof" --value calls --top 0 --json --quiet |
    python3 -c 'import json, sys
for f in json.load(sys.stdin)["functions"]:
    if f["self"] > 0: print(f["name"], f["self"])' | sort >roku.calls
grep -F -x -f roku.called roku.calls >roku.same
expect_eq "$(wc -l <roku.same)" "$(wc -l <roku.called)" "calls= counts equal .bsprof's calls"
# The 11 others are entry points (Main, init, event handlers): called by no frame of a stack.
expect_eq "$(grep -c . roku.called)" 44 "functions called in roku.out"
# Without call counts (a sampled profile) a call is written as called once: never the number
# of stacks through it.
printf 'main;f 5\nmain;g;f 3\nmain;g;f;h 2\nmain;f;h 1\n' >sampled.folded
expect_status 0 "$PROFKIT" convert sampled.folded --to callgrind -o sampled.out
expect_eq "$(grep '^calls=' sampled.out | sort -u)" "calls=1 0" "calls= of a sampled profile"

# A text format with a signature wins over folded's lenient reading, but folded can still be
# asked for.
expect_status 0 "$PROFKIT" info --from callgrind "$DATA/callgrind.out.prog"
expect_contains "$OUT" "format                   callgrind"

finish
