#!/bin/bash
# SPDX-License-Identifier: MIT
# simpleperf reports (tests/data/simpleperf): found by content, threads named, event types as
# values, frames named from the files at the end of the report, and a cut report.
. "$(dirname "$0")/lib.sh"

REP="$SRC/tests/data/simpleperf/app.simpleperf"

expect_status 0 "$PROFKIT" convert "$REP" --to folded --with-threads
expect_contains "$OUT" "RenderThread;com.example.app.Worker.run;memcpy;el0_svc 2000000" "named frames"
expect_contains "$OUT" "MainActivity.onCreate;libnative.so+0x1234 1000000" "a frame without symbol"
expect_contains "$ERR" "lost 1 samples" "the lost count"
expect_status 0 "$PROFKIT" info "$REP"
expect_contains "$OUT" "cpu-cycles" "every event type a value"
expect_status 0 "$PROFKIT" convert "$REP" --to folded --value cpu-cycles
expect_contains "$OUT" "com.example.app.Worker.run;memcpy 5000" "the second event"

# Cut before the files and threads: the samples stay, named by file and symbol number.
expect_status 0 bash -c "head -c 700 '$REP' > cut.simpleperf"
expect_status 0 "$PROFKIT" convert cut.simpleperf --to folded
expect_contains "$OUT" "[file 0]+0x1234 1000000" "a frame whose file the cut took"
expect_contains "$ERR" "cut at offset" "the warning names the offset"
finish
