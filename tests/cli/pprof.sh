# SPDX-License-Identifier: MIT
# pprof through profkit alone: legacy CPU profiles written as profile.proto and read back, round
# trips pprof -> pprof, plain and gzip output, a Roku profile's metadata and totals, and damage
# reported with offsets. interop_pprof.sh checks the same kinds of files in go tool pprof.
. "$(dirname "$0")/lib.sh"
DATA=$SRC/tests/data/pprof

# The total of one value as profkit info reports it.
profkit_total() {
    "$PROFKIT" info "$1" 2>/dev/null | awk -v v="$2" '$1 == v && $3 == "total" { print $4 }'
}

# ---- legacy CPU profiles written as profile.proto by profkit, and read back ---------------------
for spec in real.prof:298 cppbench.cpu:712 gobench.cpu:305; do
    name=${spec%%:*}
    want=${spec##*:}
    expect_status 0 "$PROFKIT" convert "$DATA/$name" --no-symbols --to pprof -o "$name.pb.gz"
    expect_status 0 "$PROFKIT" info "$name.pb.gz"
    expect_contains "$OUT" "format                   pprof" "$name: probed as pprof"
    expect_eq "$(profkit_total "$name.pb.gz" samples)" "$want" "$name: samples total"
    expect_eq "$(profkit_total "$name.pb.gz" cpu)" "$(profkit_total "$DATA/$name" cpu)" \
        "$name: cpu total"
    # pprof -> pprof keeps every stack and its counts
    expect_status 0 "$PROFKIT" convert "$DATA/$name" --no-symbols --to folded
    want_folded=$OUT
    expect_status 0 "$PROFKIT" convert "$name.pb.gz" --no-symbols --to pprof -o "$name.again.pprof"
    expect_status 0 "$PROFKIT" convert "$name.again.pprof" --no-symbols --to folded
    expect_eq "$OUT" "$want_folded" "$name: stacks after two conversions"
done

# Plain protobuf out and in.
expect_status 0 "$PROFKIT" convert cppbench.cpu.pb.gz --to pprof --compression 0 -o plain.pb
expect_eq "$(head -c 1 plain.pb | od -An -tx1 | tr -d ' ')" "0a" "plain output starts with sample_type"
expect_eq "$(profkit_total plain.pb samples)" "712" "plain output read back"
gzip -dc cppbench.cpu.pb.gz > cppbench.raw.pb
expect_eq "$(profkit_total cppbench.raw.pb samples)" "712" "uncompressed input"

# ---- a Roku BrightScript profile ------------------------------------------------------------------
ROKU=$SRC/examples/roku-channel.bsprof
if "$PROFKIT" formats | grep -q '^bsprof .*read' && [ -f "$ROKU" ]; then
    expect_status 0 "$PROFKIT" convert "$ROKU" -o roku.pb.gz
    expect_status 0 "$PROFKIT" info roku.pb.gz
    expect_contains "$OUT" "product                  Streamline TV" "roku: product kept"
    expect_contains "$OUT" "VideoPlayer" "roku: threads kept"
    for value in cpu calls alloc_space inuse_space inuse_objects; do
        expect_eq "$(profkit_total roku.pb.gz $value)" "$(profkit_total "$ROKU" $value)" \
            "roku: $value total after conversion"
    done
    # The memory events are not in pprof, but the values by stack are the vocabulary's: the
    # leak report of the pprof file has the totals of the channel's own.
    expect_status 0 "$PROFKIT" report "$ROKU" --memory
    CHANNEL_MEMORY=$(printf '%s\n' "$OUT" | head -2)
    expect_status 0 "$PROFKIT" report roku.pb.gz --memory
    expect_eq "$(printf '%s\n' "$OUT" | head -2)" "$CHANNEL_MEMORY" "roku: leak report from pprof"
else
    echo "note: no bsprof reader or example in this build; the Roku checks were not run"
fi

# ---- damage --------------------------------------------------------------------------------------
head -c 300 cppbench.raw.pb > cut.pb
expect_status 1 "$PROFKIT" info --from pprof cut.pb
expect_contains "$ERR" "cut.pb: byte " "truncated plain protobuf: an offset"
head -c 1000 cppbench.cpu.pb.gz > cut.pb.gz
expect_status 1 "$PROFKIT" info cut.pb.gz
expect_contains "$ERR" "the gzip data is cut short" "truncated gzip"
expect_status 0 "$PROFKIT" info --salvage cut.pb.gz
expect_contains "$OUT" "kept what was read before it" "salvage warning"
printf '\022\003\012\005\001' > bad.pb
expect_status 1 "$PROFKIT" info --from pprof bad.pb
expect_contains "$ERR" "bad.pb: byte 0: malformed sample" "malformed sample"

# gperftools legacy profiles are not pprof, though pprof reads both
expect_status 0 "$PROFKIT" formats
"$PROFKIT" info "$DATA/real.prof" > legacy.txt 2>&1
expect_not_contains "$(cat legacy.txt)" "format                   pprof" "legacy file not probed as pprof"

# Chromium's default trace format, Perfetto's protobuf, is a protobuf message whose first field is
# also 1: not a pprof profile (it was read as one, with thousands of sample types).
expect_status 1 "$PROFKIT" info "$DATA/perfetto-head.pftrace"
expect_contains "$ERR" "not a profile format" "Perfetto trace refused"

finish
