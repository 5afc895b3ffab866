# SPDX-License-Identifier: MIT
# gperftools CPU profiles through the command: info, dump, convert round trips, writer options,
# damage and --salvage, missing binaries, --symbol-path and --no-symbols. interop_gperftools.sh
# reads profkit's output and a real program's profile with go tool pprof and google-pprof.
. "$(dirname "$0")/lib.sh"

DATA="$SRC/tests/data/gperftools"

expect_status 0 "$PROFKIT" formats
expect_contains "$OUT" "gperftools" "formats"

# ---- reading ------------------------------------------------------------------------------------
expect_status 0 "$PROFKIT" info --no-symbols "$DATA/real.prof"
expect_contains "$OUT" "format                   gperftools" "info format"
expect_contains "$OUT" "demo                   samples=298 cpu=2980000000" "info thread"
expect_contains "$OUT" "sample-rows            111" "info rows"
expect_contains "$OUT" "period                   10000000 nanoseconds of cpu" "info period"
expect_not_contains "$OUT$ERR" "binary not found" "--no-symbols reads no binary"

# The program of real.prof is not on this machine: one warning, exit 0.
expect_status 0 "$PROFKIT" info "$DATA/real.prof"
expect_contains "$OUT$ERR" "/opt/gperf-demo/build/x86_64/demo: binary not found" "missing binary"
expect_eq "$(printf '%s\n' "$OUT$ERR" | grep -c 'binary not found')" 1 "one warning per file"

# Content, not the name, decides the format.
cp "$DATA/variants/real.w4.big.prof" renamed.data
expect_status 0 "$PROFKIT" info --no-symbols renamed.data
expect_contains "$OUT" "format                   gperftools" "probe"
expect_contains "$OUT" "gperftools.word_bits     32" "32-bit variant"
expect_contains "$OUT" "gperftools.byte_order    big" "big-endian variant"

# ---- damage ---------------------------------------------------------------------------------------
expect_status 1 "$PROFKIT" info --no-symbols "$DATA/edge/no_trailer_with_maps.prof"
expect_contains "$ERR" "no_trailer_with_maps.prof: byte 20104: text where a record should be" \
    "missing trailer before the maps"
expect_status 0 "$PROFKIT" info --no-symbols --salvage "$DATA/edge/no_trailer_with_maps.prof"
expect_contains "$OUT$ERR" "samples=298" "salvage keeps the records"
expect_status 0 "$PROFKIT" info --no-symbols "$DATA/edge/truncated_last_record.prof"
expect_contains "$OUT$ERR" "last record truncated at byte 19920" "truncated record warning"
head -c 30 "$DATA/real.prof" > short.prof
expect_status 1 "$PROFKIT" info short.prof
expect_contains "$ERR" "header truncated" "short header"

# ---- dump -------------------------------------------------------------------------------------------
expect_status 0 "$PROFKIT" dump --raw "$DATA/real.prof"
expect_contains "$OUT" "8	header slot 1: 3 (header slots after this one)" "dump header"
expect_contains "$OUT" "40	record 1: count 1, depth 7: 0x56414735e2b4 0x56414735e331" "dump record"
expect_contains "$OUT" "20104	trailer: 0, 1, 0" "dump trailer"
expect_contains "$OUT" "20128	maps: 56414735d000-56414735e000 r--p" "dump maps"
expect_eq "$(printf '%s\n' "$OUT" | grep -c '	record ')" 114 "dump record count"
expect_status 0 "$PROFKIT" dump "$DATA/real.prof"
expect_contains "$OUT" "0x56414735e2b4(demo+0x12b4)" "dump resolves PCs to mapping offsets"
expect_contains "$OUT" "0x7fb51ab0024a(libc.so.6+0x2724a)" "dump library offsets"

# ---- writing -----------------------------------------------------------------------------------------
expect_status 0 "$PROFKIT" convert --no-symbols "$DATA/real.prof" -o copy.prof
expect_file copy.prof
expect_status 0 "$PROFKIT" info --no-symbols copy.prof
expect_contains "$OUT" "demo                   samples=298 cpu=2980000000" "round trip totals"
expect_contains "$OUT" "sample-rows            111" "round trip rows"
# One record per stack: the evicted duplicates are merged.
expect_status 0 "$PROFKIT" dump --raw copy.prof
expect_eq "$(printf '%s\n' "$OUT" | grep -c '	record ')" 111 "merged records"
expect_eq "$(od -A n -t x1 -N 16 copy.prof | tr -d ' \n')" \
    "00000000000000000300000000000000" "64-bit little-endian header"

expect_status 0 "$PROFKIT" convert --no-symbols "$DATA/variants/real.w4.little.prof" \
    --to gperftools --word-size 32 --big-endian -o w4.out
expect_eq "$(od -A n -t x1 -N 12 w4.out | tr -d ' \n')" "000000000000000300000000" \
    "32-bit big-endian header"
expect_status 0 "$PROFKIT" info --no-symbols w4.out
expect_contains "$OUT" "samples=298" "32-bit big-endian round trip"
expect_status 1 "$PROFKIT" convert --no-symbols "$DATA/real.prof" --to gperftools \
    --word-size 32 -o too-wide.prof
expect_contains "$ERR" "does not fit 32-bit slots" "64-bit addresses in 32-bit slots"
expect_no_file too-wide.prof
expect_status 2 "$PROFKIT" convert "$DATA/real.prof" --to gperftools --word-size 12 -o x.prof

# A round trip through a Firefox profile without the program: the processed format keeps each
# frame's address relative to its library (which has no start there), and its name, the
# address in the process; read back, the frames the binary would name keep that name.
expect_status 0 "$PROFKIT" convert "$DATA/real.prof" --to folded -o direct.folded
expect_contains "$ERR" "52 addresses left unnamed" "program absent"
expect_contains "$(cat direct.folded)" "0x56414735e090;__libc_start_main_impl" "named by address"
expect_status 0 "$PROFKIT" convert "$DATA/real.prof" -o trip.json
expect_status 0 "$PROFKIT" convert trip.json --to folded -o trip.folded
expect_contains "$ERR" "52 addresses left unnamed" "program absent, read back"
expect_eq "$(cat trip.folded)" "$(cat direct.folded)" "Firefox round trip keeps the names"
expect_not_contains "$(cat trip.folded)" "0x1090;" "no library offsets for names"
expect_status 0 "$PROFKIT" report trip.json --top 0
expect_contains "$OUT" "0x56414735e2b4" "report names by address"
expect_status 0 "$PROFKIT" convert --no-symbols trip.json --to folded -o trip-raw.folded
expect_eq "$(cat trip-raw.folded)" "$(cat direct.folded)" "the same with --no-symbols"

# ---- symbols from a real program ----------------------------------------------------------------
if [ -n "${PK_GPERF_DEMO:-}" ] && [ -x "$PK_GPERF_DEMO" ]; then
    CPUPROFILE="$SCRATCH/demo.prof" CPUPROFILE_FREQUENCY=1000 "$PK_GPERF_DEMO" 2 > /dev/null 2>&1
    expect_file demo.prof
    expect_status 0 "$PROFKIT" info demo.prof
    expect_not_contains "$OUT$ERR" "binary not found" "program found at its path"
    expect_not_contains "$OUT$ERR" "warnings (1)" "no warnings"
    # The same profile from a program that moved: found again with --symbol-path.
    real=$(readlink -f "$PK_GPERF_DEMO")
    moved="$(dirname "$real")/xperftools_demo"
    python3 - "$real" "$moved" demo.prof moved.prof <<'EOF'
import sys
old, new, src, dst = sys.argv[1:]
data = open(src, 'rb').read().replace(old.encode(), new.encode())
open(dst, 'wb').write(data)
EOF
    expect_status 0 "$PROFKIT" info moved.prof
    expect_contains "$OUT$ERR" "xperftools_demo: binary not found" "moved program"
    mkdir -p symbols
    cp "$real" symbols/xperftools_demo
    expect_status 0 "$PROFKIT" info --symbol-path /nonexistent --symbol-path symbols moved.prof
    expect_not_contains "$OUT$ERR" "binary not found" "--symbol-path finds it"
fi

finish
