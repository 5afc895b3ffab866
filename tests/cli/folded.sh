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

# CRLF, blank lines, duplicates, decimals, from standard input.
printf 'b;c 1\r\n\r\na 2.5\r\nb;c 4\r\n' > crlf.txt
expect_status 0 "$PROFKIT" convert - --from folded --to folded < crlf.txt
expect_eq "$(printf '%s\n' "$OUT" | sorted)" "$(printf 'a 3\nb;c 5\n' | sorted)" "CRLF input"
expect_contains "$ERR" "1 count had a fractional part" "rounding warning"

# Threads: --with-threads writes them first, --folded-threads reads them back.
printf 'worker;run;step 4\nmain;start;run 30\nmain;start 1\nworker;run;step 2\n' > threads.folded
expect_status 0 "$PROFKIT" convert threads.folded --folded-threads --with-threads --to folded
expect_eq "$(printf '%s\n' "$OUT" | sorted)" \
    "$(printf 'main;start 1\nmain;start;run 30\nworker;run;step 6\n' | sorted)" "thread round trip"
expect_status 0 "$PROFKIT" convert threads.folded --folded-threads --to folded
expect_eq "$(printf '%s\n' "$OUT" | sorted)" \
    "$(printf 'start 1\nstart;run 30\nrun;step 6\n' | sorted)" "threads dropped"

# ---- errors ----------------------------------------------------------------------------------
printf 'main;parse 2\nmain;eval x3\nmain 1\n' > bad.folded
expect_status 1 "$PROFKIT" convert bad.folded -o bad-out.folded
expect_contains "$ERR" "profkit: bad.folded: byte 23: line 2 ends in \"x3\", which is not a count" \
    "bad count message"
expect_no_file bad-out.folded
expect_status 0 "$PROFKIT" convert bad.folded -o salvaged.folded --salvage
expect_eq "$(cat salvaged.folded)" "main;parse 2" "salvaged lines"
expect_contains "$ERR" "line 2" "salvage warning"
printf 'a;b\n' > nocount.folded
expect_status 1 "$PROFKIT" convert nocount.folded --from folded --to folded
expect_contains "$ERR" "byte 3: line 1 has no count" "missing count message"
expect_status 2 "$PROFKIT" convert "$DATA/synthetic.folded" --to folded --value cpu
expect_contains "$ERR" "samples" "unknown value lists the values"

finish
