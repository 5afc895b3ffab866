#!/bin/bash
# SPDX-License-Identifier: MIT
# JFR recordings made by the JDK (tests/data/jfr/Busy.java under
# -XX:StartFlightRecording=settings=profile; two-chunks.jfr.gz, bench/JfrBusy.java with
# 1 MB chunks, read by profkit through gzip and by the JDK decompressed): the CPU samples'
# stacks and counts are those the JDK's own parser prints (`jfr print --json`), folded by
# tests/cli/jfr_folded.py.
. "$(dirname "$0")/lib.sh"

DATA="$SRC/tests/data/jfr"
require_tool jfr "the JDK's jfr command (Debian package openjdk-17-jdk-headless)"
require_tool python3 "Debian package python3"

for recording in "$DATA"/*.jfr "$DATA"/*.jfr.gz; do
    name=$(basename "$recording")
    plain=$recording
    if [ "${recording%.gz}" != "$recording" ]; then
        plain=${name%.gz}
        python3 -c 'import gzip, shutil, sys; shutil.copyfileobj(gzip.open(sys.argv[1]), open(sys.argv[2], "wb"))' "$recording" "$plain"
    fi
    expect_status 0 jfr print --json --stack-depth 4096 --events jdk.ExecutionSample "$plain"
    theirs=$(printf '%s\n' "$OUT" | python3 "$SRC/tests/cli/jfr_folded.py")
    expect_status 0 "$PROFKIT" convert "$recording" --to folded
    mine=$(printf '%s\n' "$OUT" | LC_ALL=C sort)
    theirs=$(printf '%s\n' "$theirs" | LC_ALL=C sort)
    expect_eq "$mine" "$theirs" "$name: folded CPU samples against jfr print --json"
    case $name in
        busy.jfr) busy=Busy.spinA ;;
        *) busy=JfrBusy.lambda ;;
    esac
    expect_contains "$mine" "$busy" "$name: a busy method"
done

finish
