#!/bin/bash
# SPDX-License-Identifier: MIT
# JFR recordings against the JDK's own parser (`jfr print --json`, folded by
# tests/cli/jfr_folded.py): busy.jfr made by the JDK (tests/data/jfr/Busy.java under
# -XX:StartFlightRecording=settings=profile), two-chunks.jfr.gz made by the JDK with 1 MB chunks
# (bench/JfrBusy.java; read by profkit through gzip, by the JDK decompressed), v1.jfr (a version
# 1.0 chunk) and asprof.jfr (async-profiler's layout) written by tests/data/jfr/make_fixtures.py.
# For every fixture the CPU samples' stacks and counts are the JDK's; for the written ones the
# allocation, lock and park events' too (their ticks are nanoseconds, so durations compare as
# they are).
. "$(dirname "$0")/lib.sh"

DATA="$SRC/tests/data/jfr"
require_tool jfr "the JDK's jfr command (Debian package openjdk-17-jdk-headless)"
require_tool python3 "Debian package python3"

# compare FILE EVENTS VALUE [jfr_folded.py options]: profkit's folded VALUE against the JDK's
# (a FILE.gz decompressed for the JDK)
compare() {
    local recording=$1 events=$2 value=$3 plain=$1
    shift 3
    if [ "${recording%.gz}" != "$recording" ]; then
        plain=$(basename "${recording%.gz}")
        python3 -c 'import gzip, shutil, sys; shutil.copyfileobj(gzip.open(sys.argv[1]), open(sys.argv[2], "wb"))' "$recording" "$plain"
    fi
    expect_status 0 jfr print --json --stack-depth 4096 --events "$events" "$plain"
    theirs=$(printf '%s\n' "$OUT" | python3 "$SRC/tests/cli/jfr_folded.py" "$@" | LC_ALL=C sort)
    expect_status 0 "$PROFKIT" convert "$recording" --to folded --value "$value"
    mine=$(printf '%s\n' "$OUT" | LC_ALL=C sort)
    expect_eq "$mine" "$theirs" "$(basename "$recording"): $value against jfr print --json"
    [ -n "$mine" ] || fail "$(basename "$recording"): no $value at all"
}

for recording in "$DATA"/*.jfr "$DATA"/*.jfr.gz; do
    compare "$recording" ExecutionSample cpu-samples
done
compare "$DATA/busy.jfr" ExecutionSample cpu-samples
expect_contains "$mine" "Busy.spinA" "busy.jfr: a busy method"
compare "$DATA/two-chunks.jfr.gz" ExecutionSample cpu-samples
expect_contains "$mine" "JfrBusy.lambda" "two-chunks.jfr.gz: a busy method"

compare "$DATA/v1.jfr" ObjectAllocationInNewTLAB alloc_space --weight allocationSize --leaf-class objectClass
expect_contains "$mine" "V1.compute;int[] 4096" "v1.jfr: the allocated class as the leaf"

A="$DATA/asprof.jfr"
compare "$A" ExecutionSample cpu-samples
expect_contains "$mine" "Demo.main;Demo.write;__write;do_syscall_64_[k] 2" "asprof.jfr: native and kernel frames by their symbols"
expect_contains "$mine" "start_thread;thread_native_entry;G1ParScanThreadState::trim_queue() 2" "asprof.jfr: C++ frames"
compare "$A" ObjectAllocationInNewTLAB,ObjectAllocationOutsideTLAB alloc_space --weight allocationSize --leaf-class objectClass
compare "$A" JavaMonitorEnter lock-wait --weight duration
compare "$A" ThreadPark park --weight duration

finish
