#!/bin/bash
# SPDX-License-Identifier: MIT
# JFR recordings: threads, value types, several chunks, a cut recording and damage.
. "$(dirname "$0")/lib.sh"

DATA="$SRC/tests/data/jfr"
REC="$DATA/busy.jfr"

expect_status 0 "$PROFKIT" convert "$REC" --to folded --with-threads
expect_contains "$OUT" "worker-a;" "the Java thread's name"
expect_status 0 "$PROFKIT" info "$REC"
expect_contains "$OUT" "cpu-samples" "CPU samples as a value"
expect_contains "$OUT" "alloc-sampled-bytes" "allocation samples as a value"
expect_status 0 "$PROFKIT" convert "$REC" --to folded --value alloc-sampled-bytes
expect_contains "$OUT" "Busy.alloc;int[]" "the allocated class as the leaf frame"

# Two chunks, one after the other, read as one recording: every count doubles.
cat "$REC" "$REC" > two.jfr
expect_status 0 "$PROFKIT" convert "$REC" --to folded
one=$(printf '%s\n' "$OUT" | awk '{n += $NF} END {print n}')
expect_status 0 "$PROFKIT" convert two.jfr --to folded
expect_eq "$(printf '%s\n' "$OUT" | awk '{n += $NF} END {print n}')" $((one * 2)) "two chunks"

# A recording of two chunks made by the JVM (1 MB chunks): an event of the second chunk refers
# to a stack trace the JVM wrote with the other chunk, which the JDK reads as null: counted at
# its thread's root, with a warning.
expect_status 0 "$PROFKIT" convert "$DATA/two-chunks.jfr.gz" --to folded --value alloc-sampled-bytes
expect_contains "$ERR" "1 JFR events refer to a stack trace that no constant pool of their chunk holds" \
    "the event whose stack trace is in another chunk"
expect_contains "$OUT" "JfrBusy.allocate" "the other allocation samples' stacks"

# Cut in the second chunk (the JVM killed mid-chunk): the first is read, with a warning that
# names where the recording ends.
size=$(stat -c %s "$REC")
head -c $((size + 1000)) two.jfr > cut.jfr
expect_status 0 "$PROFKIT" convert cut.jfr --to folded
expect_eq "$(printf '%s\n' "$OUT" | awk '{n += $NF} END {print n}')" "$one" "the whole chunk before the cut"
expect_contains "$ERR" "cut at offset $((size + 1000))" "the warning names the offset"

# Cut in the only chunk: nothing whole to read, an error naming the offset.
head -c 5000 "$REC" > cut1.jfr
expect_status 1 "$PROFKIT" convert cut1.jfr --to folded
expect_contains "$ERR" "5000" "the error names the offset"

# A constant pool of a type the metadata does not describe, a size past the chunk: errors
# with offsets, no output file.
python3 - "$REC" bad_size.jfr <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
data[68] = 0xff; data[69] = 0xff; data[70] = 0xff; data[71] = 0x7f  # first event's size
open(sys.argv[2], "wb").write(data)
PY
# The sampled thread's state as a label: every CPU sample of the fixture is runnable.
expect_status 0 "$PROFKIT" report "$REC" --threads-by thread_state --threads
expect_contains "$OUT" "STATE_RUNNABLE" "a thread per thread state"
expect_status 0 "$PROFKIT" report "$REC" --label thread_state=STATE_RUNNABLE --top 1
expect_contains "$OUT" "total 36;" "the runnable samples selected by their label"

expect_status 1 "$PROFKIT" convert bad_size.jfr -o bad.folded
expect_contains "$ERR" "byte 68" "a size past the chunk names its offset"
expect_no_file bad.folded

finish
