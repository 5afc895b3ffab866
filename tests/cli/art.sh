# SPDX-License-Identifier: MIT
# ART method traces (tests/data/art): threads named from *threads, methods with their files, the
# dual clock's two values, and truncation: a cut in the records keeps the whole records before
# it, a cut in a header is an error naming the byte offset or line.
. "$(dirname "$0")/lib.sh"
DATA=$SRC/tests/data/art

expect_status 0 "$PROFKIT" report "$DATA/v3-dual.trace" --threads --wide
expect_contains "$OUT" "main"
expect_contains "$OUT" "Worker-1"
expect_status 0 "$PROFKIT" report "$DATA/v3-dual.trace" --value cpu --top 0 --wide
expect_contains "$OUT" "90.0 us"
expect_status 0 "$PROFKIT" report "$DATA/v1-wall.trace" --lines
expect_contains "$OUT" "MainActivity.java:24"

# The streaming form: the same calls as v3-dual.trace, the same report.
expect_status 0 "$PROFKIT" report "$DATA/v3-dual.trace" --value cpu --top 0 --wide
want=$OUT
expect_status 0 "$PROFKIT" report "$DATA/stream-v3-dual.trace" --value cpu --top 0 --wide
expect_eq "$OUT" "$want" "the streaming form reads as the other"
expect_status 0 "$PROFKIT" report "$DATA/stream-v3-dual.trace" --threads
expect_contains "$OUT" "Worker-1" "thread names announced in the stream"
size=$(stat -c %s "$DATA/stream-v3-dual.trace")
head -c $((size - 40)) "$DATA/stream-v3-dual.trace" >cut-stream.trace
expect_status 0 "$PROFKIT" report cut-stream.trace
expect_contains "$ERR" "cut inside the entry at byte" "a streaming trace cut in its summary"

size=$(stat -c %s "$DATA/v3-dual.trace")
head -c $((size - 5)) "$DATA/v3-dual.trace" >cut-record.trace
expect_status 0 "$PROFKIT" report cut-record.trace
expect_contains "$ERR" "ends inside a record"
head -c 100 "$DATA/v3-dual.trace" >cut-header.trace
expect_status 1 "$PROFKIT" report cut-header.trace
expect_contains "$ERR" "line"
header_end=$(grep -abo '^\*end$' "$DATA/v3-dual.trace" | cut -d: -f1)
head -c $((header_end + 5 + 10)) "$DATA/v3-dual.trace" >cut-binary.trace
expect_status 1 "$PROFKIT" report cut-binary.trace
expect_contains "$ERR" "binary header"
for n in $(seq 1 7 "$(stat -c %s "$DATA/v3-recursion.trace")"); do
    head -c "$n" "$DATA/v3-recursion.trace" >cut.trace
    "$PROFKIT" report cut.trace >/dev/null 2>&1
    status=$?
    CHECKS=$((CHECKS + 1))
    [ "$status" -le 1 ] || fail "cut at $n: exit status $status"
done
finish
