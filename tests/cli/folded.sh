# SPDX-License-Identifier: MIT
# Folded stacks in and out through the command: round trips, CRLF and standard input, threads,
# and error messages. interop_speedscope.sh checks profkit's speedscope and folded output with
# speedscope's own schema and importers.
. "$(dirname "$0")/lib.sh"

DATA=$SRC/tests/data/folded

sorted() {
    LC_ALL=C sort "$@"
}

# ---- folded -> folded ----------------------------------------------------------------------
expect_status 0 "$PROFKIT" info "$DATA/synthetic.folded"
expect_contains "$OUT" "format                   folded" "probed format"
expect_status 0 "$PROFKIT" convert "$DATA/synthetic.folded" -o round.folded
expect_eq "$(sorted round.folded)" "$(sorted "$DATA/synthetic.folded")" "folded round trip"
expect_status 0 "$PROFKIT" convert round.folded --to collapsed
expect_eq "$(printf '%s\n' "$OUT" | sorted)" "$(sorted "$DATA/synthetic.folded")" "second round trip"

# CRLF, blank lines, duplicates, decimals (dropped as inferno drops them), from standard input.
printf 'b;c 1\r\n\r\na 2.5\r\nb;c 4\r\n' > crlf.txt
expect_status 0 "$PROFKIT" convert - --from folded --to folded < crlf.txt
expect_eq "$(printf '%s\n' "$OUT" | sorted)" "$(printf 'a 2\nb;c 5\n' | sorted)" "CRLF input"
expect_contains "$ERR" "1 count had a fractional part, which was dropped" "fraction warning"

# The quirks of tests/data/folded/ (README.md there gives the peers' readings), by content.
# odd-lines.folded is mostly lines that are not stacks: read as the peers read it with --from
# folded, refused as not folded stacks without.
expect_status 1 "$PROFKIT" convert "$DATA/odd-lines.folded" --to folded
expect_contains "$ERR" "not folded stacks: 8 of the 11 lines that are neither blank nor comments" \
    "odd lines: refused"
expect_contains "$ERR" "the first: line 3 (\"// written by a script\")" "odd lines: the first"
expect_contains "$ERR" "--from folded reads the stack lines among them" "odd lines: --from"
expect_status 0 "$PROFKIT" convert "$DATA/odd-lines.folded" --from folded --to folded
expect_eq "$(printf '%s\n' "$OUT" | sorted)" \
    "$(printf 'main 2\nmain;eval;kmalloc_[k] 5\nmain;parse 3\n' | sorted)" "odd lines skipped"
expect_contains "$ERR" "8 lines that are not a stack were skipped (lines 3, 4, 5, 6, 7, ...)" \
    "skipped lines warning"
# callgrind's output (tests/data/callgrind/) is not folded stacks: never read as such unless
# asked for, and then with the lines that are not stacks counted.
if "$PROFKIT" info "$SRC/tests/data/callgrind/callgrind.out.tiny" >cg.txt 2>cg.err; then
    expect_eq "$(grep -c '^format  *folded' cg.txt)" "0" "callgrind: not read as folded"
else
    expect_contains "$(cat cg.err)" "callgrind.out.tiny: byte 30: not folded stacks: 967 of the first 1000 lines" \
        "callgrind: refused as folded"
fi
expect_status 0 "$PROFKIT" info --from folded "$SRC/tests/data/callgrind/callgrind.out.tiny"
expect_contains "$OUT" "317 lines that are not a stack were skipped" "callgrind: --from folded"
# austin's header and footer are comments: no stack of them, the counts are microseconds.
expect_status 0 "$PROFKIT" convert "$DATA/austin-wall.folded" --to folded
expect_eq "$(printf '%s\n' "$OUT" | grep -c '^#')" "0" "austin: no comment became a stack"
expect_eq "$(printf '%s\n' "$OUT" | awk '{ s += $NF } END { print s }')" "23873" "austin: total"
expect_status 0 "$PROFKIT" info "$DATA/austin-wall.folded"
expect_contains "$OUT" "100 microseconds of wall" "austin: the interval is the period"
expect_contains "$OUT" "wall                   microseconds" "austin: the value"
expect_status 0 "$PROFKIT" convert "$DATA/fractions.folded" --to folded
expect_eq "$(printf '%s\n' "$OUT" | awk '{ s += $NF } END { print s }')" "333" "inferno's total"
for f in cr-only utf8-bom utf16le utf16be; do
    expect_status 0 "$PROFKIT" convert "$DATA/$f.folded" --to folded
    expect_contains "$OUT" "main;parse 3" "$f"
    expect_not_contains "$OUT" "$(printf '\357\273\277')" "$f: no byte-order mark"
done
expect_eq "$(printf '%s\n' "$OUT" | sorted)" \
    "$(printf 'main;parse 3\nmain;\303\251val 4\nmain;\360\237\224\245 2\n' | sorted)" \
    "UTF-16 decoded"
cat "$DATA/utf16le.folded" | "$PROFKIT" convert - --to folded > /dev/null 2>&1
expect_eq "$?" 0 "UTF-16 from standard input"
gzip -c "$DATA/utf16be.folded" > utf16.folded.gz
expect_status 0 "$PROFKIT" convert utf16.folded.gz --to folded
expect_contains "$OUT" "main;parse 3" "compressed UTF-16"

# A first line far longer than the 4096 bytes the probe sees: a deep Java stack.
awk 'BEGIN { for (i = 0; i < 710; i++) printf "%scom/example/Frame%d.call(Frame.java:%d)", (i ? ";" : ""), i, i + 10; print " 5" }' > deep.txt
expect_status 0 "$PROFKIT" info deep.txt
expect_contains "$OUT" "format                   folded" "deep first line probed"

# What profkit writes it reads: a 2 MiB line through a pipe.
awk 'BEGIN { for (i = 0; i < 46000; i++) printf "%spackage/Class%05d.method_with_a_longish_name", (i ? ";" : ""), i; print " 3" }' > wide.folded
expect_status 0 "$PROFKIT" convert wide.folded -o wide-out.folded
expect_eq "$(wc -c < wide-out.folded)" "$(wc -c < wide.folded)" "2 MiB line written"
cat wide-out.folded | "$PROFKIT" convert - --from folded --to folded > wide-again.folded
expect_eq "$(cmp wide.folded wide-again.folded && echo same)" "same" "2 MiB line read back"

# Threads: --with-threads writes them first, --folded-threads reads them back.
printf 'worker;run;step 4\nmain;start;run 30\nmain;start 1\nworker;run;step 2\n' > threads.folded
expect_status 0 "$PROFKIT" convert threads.folded --folded-threads --with-threads --to folded
expect_eq "$(printf '%s\n' "$OUT" | sorted)" \
    "$(printf 'main;start 1\nmain;start;run 30\nworker;run;step 6\n' | sorted)" "thread round trip"
expect_status 0 "$PROFKIT" convert threads.folded --folded-threads --to folded
expect_eq "$(printf '%s\n' "$OUT" | sorted)" \
    "$(printf 'start 1\nstart;run 30\nrun;step 6\n' | sorted)" "threads dropped"

# ---- errors ----------------------------------------------------------------------------------
# A line that is not a stack is skipped with a warning, without --salvage.
printf 'main;parse 2\nmain;eval x3\nmain 1\n' > bad.folded
expect_status 0 "$PROFKIT" convert bad.folded -o skipped.folded
expect_eq "$(sorted skipped.folded)" "$(printf 'main 1\nmain;parse 2\n' | sorted)" "skipped line"
expect_contains "$ERR" "1 line that is not a stack was skipped (line 2)" "skip warning"
# A file without a stack line is refused, naming the first line and why.
printf 'a;b\n# x\n' > nocount.folded
expect_status 1 "$PROFKIT" convert nocount.folded --from folded --to folded -o nocount-out.folded
expect_contains "$ERR" "profkit: nocount.folded: byte 0: no line is a stack" "no stack message"
expect_contains "$ERR" "line 1 (\"a;b\") has no blank before a count" "why line 1 is no stack"
expect_no_file nocount-out.folded
# A NUL byte is damage: refused, or with --salvage the lines before it are kept.
printf 'main;parse 2\nmain;ev\000al 3\nmain 1\n' > nul.folded
expect_status 1 "$PROFKIT" convert nul.folded --from folded --to folded
expect_contains "$ERR" "byte 20: line 2 holds a NUL byte" "NUL message"
expect_contains "$ERR" "--salvage" "salvage suggested"
expect_status 0 "$PROFKIT" convert nul.folded --from folded --to folded --salvage
expect_eq "$OUT" "main;parse 2" "salvaged lines"
expect_status 2 "$PROFKIT" convert "$DATA/synthetic.folded" --to folded --value cpu
expect_contains "$ERR" "samples" "unknown value lists the values"

finish
