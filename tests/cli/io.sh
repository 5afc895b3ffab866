# SPDX-License-Identifier: MIT
# The I/O layer through the command: every format read through gzip, outputs written through
# gzip (by extension, --compress, --compression), other compressions named, and format options
# checked against the formats they belong to.
. "$(dirname "$0")/lib.sh"
DATA=$SRC/tests/data

# info --json without the file name: what was read.
content() {
    "$PROFKIT" info --json --no-symbols --quiet "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
d.pop("file")
print(json.dumps(d, sort_keys=True))'
}

# ---- every readable format, gzip-compressed: the same profile ---------------------------------
cp "$SRC/examples/roku-channel.bsprof" channel.bsprof
"$PROFKIT" convert channel.bsprof -o channel.pb --compression 0 --quiet
"$PROFKIT" convert channel.bsprof -o channel.folded --quiet
for input in channel.bsprof channel.pb channel.folded "$DATA/br-profile-timed-synthetic.bin" \
             "$DATA/sampler-synthetic.sample" "$DATA/gperftools/real.prof"; do
    name=$(basename "$input")
    gzip -c "$input" > "$name.gz"
    want=$(content "$input")
    # The title is the file's name without the ".gz" (property "source-file").
    expect_eq "$(content "$name.gz")" "$want" "$name read through gzip"
    # Concatenated gzip members are one stream, as gzip -d reads them.
    half=$(($(wc -c < "$input") / 2))
    mkdir -p two
    { head -c "$half" "$input" | gzip -c; tail -c +$((half + 1)) "$input" | gzip -c; } \
        > "two/$name.gz"
    expect_eq "$(content "two/$name.gz")" "$want" "$name in two gzip members"
    # From standard input too, where nothing can be read twice (and no file names the profile).
    expect_eq "$(content - < "$name.gz")" "$(content - < "$input")" \
        "$name through gzip on standard input"
done
# The extension behind ".gz" breaks probe ties, as it does uncompressed.
expect_status 0 "$PROFKIT" info channel.folded.gz
expect_contains "$OUT" "format                   folded" "folded.gz probed as folded"

# ---- damaged gzip ------------------------------------------------------------------------------
head -c 3000 channel.bsprof.gz > cut.bsprof.gz
expect_status 1 "$PROFKIT" info cut.bsprof.gz
expect_contains "$ERR" "the gzip data is cut short" "cut gzip"
expect_contains "$ERR" "--salvage keeps" "cut gzip is salvageable"
expect_status 0 "$PROFKIT" info --salvage cut.bsprof.gz
expect_contains "$OUT" "kept what was read before it" "salvaged cut gzip"
printf 'trailing' | cat channel.folded.gz - > trailing.folded.gz
expect_status 0 "$PROFKIT" info trailing.folded.gz
expect_contains "$OUT" "bytes after the end of the gzip data were ignored" "trailing bytes warning"

# ---- an input whose reading fails ----------------------------------------------------------------
# Reading a process's memory at offset 0 (never mapped) fails with EIO: the error is named.
if [ -r /proc/self/mem ]; then
    expect_status 1 "$PROFKIT" info /proc/self/mem
    expect_contains "$ERR" "/proc/self/mem: cannot read: Input/output error" "a failing read"
fi

# ---- other compressions are named --------------------------------------------------------------
printf '\375' > xz.bin; printf '7zXZ\000 rest' >> xz.bin
expect_status 1 "$PROFKIT" info xz.bin
expect_contains "$ERR" "compressed with xz" "xz named"
expect_not_contains "$ERR" "--salvage" "no salvage hint for an unread compression"
printf 'BZh91AY&SY rest' > bz.bin
expect_status 1 "$PROFKIT" info bz.bin
expect_contains "$ERR" "compressed with bzip2" "bzip2 named"

# ---- outputs through gzip ------------------------------------------------------------------------
expect_status 0 "$PROFKIT" convert channel.bsprof -o out.folded.gz
expect_eq "$(gzip -dc out.folded.gz)" "$(cat channel.folded)" "-o x.folded.gz is gzip"
expect_status 0 "$PROFKIT" convert channel.bsprof --to folded --compress -o out.compressed
expect_eq "$(gzip -dc out.compressed)" "$(cat channel.folded)" "--compress"
expect_status 0 "$PROFKIT" convert channel.bsprof --to folded --compression 9 -o out.nine
expect_eq "$(gzip -dc out.nine)" "$(cat channel.folded)" "--compression 9"
expect_status 0 "$PROFKIT" convert channel.bsprof -o plain.pb.gz --compression 0
expect_eq "$(head -c 1 plain.pb.gz | od -An -tx1 | tr -d ' ')" "0a" "--compression 0: plain protobuf"
expect_status 0 "$PROFKIT" convert channel.bsprof -o default.pb.gz
expect_eq "$(head -c 2 default.pb.gz | od -An -tx1 | tr -d ' ')" "1f8b" "pprof is gzip by default"
expect_status 2 "$PROFKIT" convert channel.bsprof -o x.folded --compression 12
expect_contains "$ERR" "--compression takes a gzip level" "bad level"

# ---- format options belong to formats ----------------------------------------------------------
expect_status 2 "$PROFKIT" convert channel.bsprof --to folded --word-size 32
expect_contains "$ERR" "--word-size is an option of gperftools output" "option of another format"
expect_contains "$ERR" "not apply to bsprof input or folded output" "the formats chosen"
expect_no_file out-word.folded
expect_status 2 "$PROFKIT" report channel.bsprof --folded-threads
expect_contains "$ERR" "--folded-threads is an option of folded input" "reader option"
expect_status 0 "$PROFKIT" convert channel.folded --folded-threads --to folded
expect_status 2 "$PROFKIT" merge channel.bsprof channel.folded -o m.json --inverted
expect_contains "$ERR" "--inverted is an option of svg output" "writer option checked in merge"
expect_status 0 "$PROFKIT" merge channel.folded channel.folded.gz --folded-threads -o m.json
# dump reads with the input's reader: an option of another reader is refused, as elsewhere,
# from a file and from standard input, which is then dumped as a file is.
expect_status 2 "$PROFKIT" dump channel.bsprof --perf-pid
expect_contains "$ERR" "--perf-pid is an option of perf-script input" "reader option checked in dump"
expect_contains "$ERR" "not apply to bsprof input" "dump: the input's format"
expect_eq "$OUT" "" "dump prints nothing when it refuses an option"
expect_status 2 "$PROFKIT" dump - --perf-pid < channel.bsprof
expect_contains "$ERR" "--perf-pid is an option of perf-script input" "dump of standard input"
expect_status 0 "$PROFKIT" dump channel.bsprof
dumped=$OUT
expect_contains "$dumped" "HomeScene" "dump of a file"
expect_status 0 "$PROFKIT" dump - < channel.bsprof
expect_eq "$OUT" "$dumped" "dump of standard input"

# ---- sums that int64 cannot hold are refused, never clamped ------------------------------------
printf 'a;b 9223372036854775807\na;c 9223372036854775807\n' > over.folded
expect_status 1 "$PROFKIT" report over.folded
expect_contains "$ERR" "over.folded: byte" "the overflow names the file and offset"
expect_contains "$ERR" "add up beyond the 64-bit range" "the overflow is said"
expect_status 1 "$PROFKIT" convert over.folded -o over.json
expect_no_file over.json
printf 'a;b 9223372036854775807\n' > max.folded
expect_status 0 "$PROFKIT" report max.folded
expect_contains "$OUT" "100.00%" "the largest total that fits"
expect_status 1 "$PROFKIT" merge max.folded max.folded -o merged.folded
expect_contains "$ERR" "merged samples values add up beyond the 64-bit range" "merge overflow"
expect_no_file merged.folded
finish
