#!/bin/sh
# SPDX-License-Identifier: MIT
# perf.data through the command, on files recorded here by perf record (tests/data/perf_data/
# README.md): the file, pipe and zstd layouts, several events, info, dump, and damage: a cut
# file, a file without its data size (perf killed), a record running past the data section.
# interop_perf_data.sh compares the stacks with perf script's.
. "$(dirname "$0")/lib.sh"

DATA="$SRC/tests/data/perf_data"

expect_status 0 "$PROFKIT" formats
expect_contains "$OUT" "perf-data" "formats"

# ---- reading ------------------------------------------------------------------------------------
expect_status 0 "$PROFKIT" info --no-symbols "$DATA/g.data"
expect_contains "$OUT" "format                   perf-data" "probe by content"
expect_contains "$OUT" "cpu-clock              nanoseconds    total 118000000  (default)" "period sum"
expect_contains "$OUT" "cpu-clock-samples      count          total 472" "472 samples, as perf script"
expect_contains "$OUT" "prog (tid 414)" "the second thread, named by COMM"
expect_contains "$OUT" "times measured: 356 samples" "sample times in the timeline"
expect_contains "$OUT" "cmdline                  /usr/bin/perf record -e cpu-clock -g -o g.data ./prog" "cmdline feature"
expect_contains "$OUT" "perf version             6.1.187" "version feature"
expect_contains "$OUT" "nrcpus online            2" "nrcpus feature"
expect_contains "$OUT" "records not used         ID_INDEX 1, THREAD_MAP 1, CPU_MAP 1, EVENT_UPDATE 2" "unused kinds counted"

expect_status 0 "$PROFKIT" info --no-symbols "$DATA/pipe.data"
expect_contains "$OUT" "perf.data layout         pipe" "pipe layout"
expect_contains "$OUT" "cpu-clock-samples      count          total 489" "pipe samples"
expect_contains "$OUT" "hostname" "pipe features as records"

expect_status 0 "$PROFKIT" info --no-symbols "$DATA/z.data"
expect_contains "$OUT" "cpu-clock-samples      count          total 477" "compressed samples"
expect_contains "$OUT" "compressed               zstd" "compressed feature"

expect_status 0 "$PROFKIT" info --no-symbols "$DATA/multi.data"
expect_contains "$OUT" "task-clock-samples     count          total 500" "second event"
expect_contains "$OUT" "cpu-clock-samples      count          total 500" "first event"

expect_status 0 "$PROFKIT" info --no-symbols "$DATA/flat.data"
expect_contains "$OUT" "cpu-clock-samples" "without callchains"

# Stacks: the command is the root, the program's functions named from its symbols when it is
# here (by its path), addresses otherwise.
expect_status 0 "$PROFKIT" convert --no-symbols "$DATA/g.data" --to folded -o g.folded
expect_eq "$(awk '{n += $NF} END {print n}' g.folded)" 118000000 "folded weights"
expect_eq "$(grep -c '^prog;' g.folded)" "$(wc -l < g.folded | tr -d ' ')" "command as root"
# Kernel frames are named from this machine's kallsyms only when it is the recording's kernel.
if [ "$(awk '$3 == "_text" {print $1; exit}' /proc/kallsyms 2>/dev/null)" = ffffffff81000000 ]; then
    expect_contains "$(cat g.folded)" "entry_SYSCALL_64_after_hwframe" "kernel frames named"
fi
expect_status 0 "$PROFKIT" convert --no-symbols --no-kallsyms "$DATA/g.data" --to folded -o k.folded
expect_contains "$(cat k.folded)" "[[kernel.kallsyms]]" "kernel frames as perf names them unresolved"
expect_not_contains "$(cat k.folded)" "entry_SYSCALL_64" "--no-kallsyms reads no kallsyms"

# ---- dump ---------------------------------------------------------------------------------------
expect_status 0 "$PROFKIT" dump "$DATA/g.data"
expect_contains "$OUT" "# perf.data, little-endian, file layout" "dump header"
expect_contains "$OUT" "event 1: cpu-clock, type 1, config 0x0, frequency 4000" "dump attribute"
expect_contains "$OUT" "344	MMAP size 80 misc 0x1 pid -1" "dump record with offset"
expect_contains "$OUT" "SAMPLE size" "dump samples"
expect_contains "$OUT" "[user]" "callchain context markers"
expect_status 0 "$PROFKIT" dump "$DATA/z.data"
expect_contains "$OUT" "z	SAMPLE" "records out of compressed ones marked"

# ---- damage -------------------------------------------------------------------------------------
# Cut inside the data section: the whole records before, and a warning naming the offset.
head -c 30000 "$DATA/g.data" > cut.data
expect_status 0 "$PROFKIT" info --no-symbols cut.data
expect_contains "$OUT$ERR" "the records are cut short at byte 29896" "cut file"
expect_not_contains "$OUT$ERR" "feature sections not read" "one warning for a cut"

# perf killed before it wrote the data size: read to the end with a warning.
# (perf writes the sizes and the feature sections last: such a file ends with its records.)
head -c 53440 "$DATA/g.data" > nosize.data
printf '\000\000\000\000\000\000\000\000' | dd of=nosize.data bs=1 seek=48 conv=notrunc 2>/dev/null
expect_status 0 "$PROFKIT" info --no-symbols nosize.data
expect_contains "$OUT$ERR" "the header gives no data size" "missing data size"
expect_contains "$OUT" "cpu-clock-samples      count          total 472" "all samples without the size"

# A record whose size runs past the data section: an error with its offset; --salvage keeps
# what came before.
cp "$DATA/g.data" long.data
printf '\377\377' | dd of=long.data bs=1 seek=270 conv=notrunc 2>/dev/null
expect_status 1 "$PROFKIT" info --no-symbols long.data
expect_contains "$ERR" "byte 264" "offset of the long record"
expect_contains "$ERR" "runs past the end of the data section" "long record"
cp "$DATA/g.data" short.data
printf '\004\000' | dd of=short.data bs=1 seek=270 conv=notrunc 2>/dev/null
expect_status 1 "$PROFKIT" info --no-symbols short.data
expect_contains "$ERR" "less than its 8-byte header" "record shorter than its header"

# An attribute section outside the file: a clear error, nothing read.
cp "$DATA/g.data" attrs.data
printf '\377\377\000\000' | dd of=attrs.data bs=1 seek=24 conv=notrunc 2>/dev/null
expect_status 1 "$PROFKIT" info --no-symbols attrs.data
expect_contains "$ERR" "attribute section" "attributes out of place"

head -c 50 "$DATA/g.data" > header.data
expect_status 1 "$PROFKIT" info --no-symbols header.data
expect_contains "$ERR" "header is cut short" "cut header"

finish
