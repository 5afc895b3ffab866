# SPDX-License-Identifier: MIT
# What the command says when it cannot do what was asked: help texts, the salvage hint only
# where salvage keeps something, messages about inputs of unknown size, usage errors, and
# profiles without samples through every writer and back through its reader.
. "$(dirname "$0")/lib.sh"

# ---- help texts are printed as written (no printf escapes left in them) ----
for cmd in "" convert info formats dump report diff merge; do
    expect_status 0 "$PROFKIT" $cmd --help
    expect_contains "$OUT" "Usage: profkit" "${cmd:-profkit} --help"
    expect_not_contains "$OUT" "%%" "${cmd:-profkit} --help"
done
expect_status 0 "$PROFKIT" report --help
expect_contains "$OUT" "under P% of the total" "report --help"
# Every command that writes a profile documents the options of its output.
for cmd in convert merge diff; do
    expect_status 0 "$PROFKIT" $cmd --help
    for option in --output --to --with-threads --title --compress --compression --quiet; do
        expect_contains "$OUT" "$option " "$cmd --help: $option"
    done
done

# ---- no salvage hint where salvage would keep nothing ----
: > empty.bin
expect_status 1 "$PROFKIT" convert empty.bin --to folded -o out.folded
expect_contains "$ERR" "the file is empty" "empty input"
expect_not_contains "$ERR" "--salvage" "empty input"
printf 'garbage that is no profile\000\001' > junk.bin
expect_status 1 "$PROFKIT" convert junk.bin --to folded -o out.folded
expect_contains "$ERR" "not a profile format" "unknown content"
expect_not_contains "$ERR" "--salvage" "unknown content"
# A long first line (2.5 MB: deep stacks) is read; a long first line that is no stack is
# refused with where it is, and no salvage hint (salvage keeps nothing of a file without stacks).
awk 'BEGIN { for (i = 0; i < 200000; i++) printf "frame%d;", i; print "leaf 1" }' > long-line.folded
expect_status 0 "$PROFKIT" convert long-line.folded --to pprof -o long.pb.gz
awk 'BEGIN { for (i = 0; i < 200000; i++) printf "frame%d;", i; print "leaf" }' > long-nocount.folded
for from in "" "--from folded"; do
    expect_status 1 "$PROFKIT" convert long-nocount.folded $from --to pprof -o out.pb.gz
    expect_contains "$ERR" "long-nocount.folded" "long first line without a count ${from:-probed}"
    expect_not_contains "$ERR" "--salvage" "long first line without a count ${from:-probed}"
done
expect_no_file out.folded
expect_no_file out.pb.gz

# ---- a gperftools record too deep for any input, read from a pipe of unknown size ----
python3 - <<'EOF'
import struct
header = struct.pack('<5Q', 0, 3, 0, 10000, 0)
record = struct.pack('<QQ', 1, 0xFFFFFFFFFFFFFFF0) + bytes(64)
open('deep.prof', 'wb').write(header + record)
EOF
expect_status 1 "$PROFKIT" convert deep.prof --to folded -o out.folded
expect_contains "$ERR" "deep.prof: byte 48: record depth 18446744073709551600 does not fit the 64 bytes that remain" "depth, file"
expect_status 1 sh -c 'cat deep.prof | "$1" convert - --from gperftools --to folded -o out.folded' sh "$PROFKIT"
expect_contains "$ERR" "standard input: byte 48: record depth 18446744073709551600 is more than any input holds" "depth, pipe"
expect_not_contains "$ERR" "18446744073709551615" "depth, pipe: no size of a pipe"
expect_no_file out.folded

# ---- output names ----
expect_status 2 "$PROFKIT" convert deep.prof -o ""
expect_contains "$ERR" "the output name is empty" "-o ''"
expect_status 2 "$PROFKIT" convert deep.prof --to folded -o ""
expect_contains "$ERR" "the output name is empty" "-o '' --to folded"
expect_not_contains "$ERR" "deep.prof" "-o '' is found before reading"
expect_status 2 "$PROFKIT" merge deep.prof deep.prof -o ""
expect_contains "$ERR" "merge: the output name is empty" "merge -o ''"
expect_status 2 "$PROFKIT" diff deep.prof deep.prof --to folded -o ""
expect_contains "$ERR" "diff: the output name is empty" "diff -o ''"

# ---- a profile without samples through every writer: read back, or refused with a reason ----
empty=$SRC/tests/data/gperftools/edge/empty_no_records.prof
expect_status 0 "$PROFKIT" info "$empty"
expect_contains "$OUT" "sample-rows            0" "the empty profile has no samples"
expect_status 0 "$PROFKIT" formats
formats=$(printf '%s\n' "$OUT" | awk 'NR > 1 && ($2 == "write" || $3 == "write") { print $1 }')
readers=$(printf '%s\n' "$OUT" | awk 'NR > 1 && $2 == "read" { print $1 }')
[ "$(printf '%s\n' "$formats" | wc -l)" -ge 9 ] || fail "fewer writers than expected: $formats"
for to in $formats; do
    out=empty-as-$to.out
    "$PROFKIT" convert "$empty" --to "$to" -o "$out" >/dev/null 2>convert.err
    status=$?
    CHECKS=$((CHECKS + 1))
    if [ "$status" -eq 1 ]; then
        # A refusal names the output and the format, says why, and leaves nothing.
        expect_contains "$(cat convert.err)" "cannot write $out as $to: " "refused $to"
        expect_no_file "$out"
        continue
    fi
    [ "$status" -eq 0 ] || { fail "convert to $to: exit $status"; continue; }
    expect_file "$out"
    if [ ! -s "$out" ]; then
        # Folded stacks of no sample are no line at all, with a warning.
        expect_eq "$to" folded "only folded writes an empty profile as nothing"
        expect_contains "$(cat convert.err)" "warning: the profile has no samples: $out holds none" \
            "$to warns of the empty profile"
        continue
    fi
    case " $(echo $readers) " in
        *" $to "*)
            # Read back as the command opens any file: by probing its content.
            expect_status 0 "$PROFKIT" info "$out"
            expect_contains "$OUT" "format                   $to" "$to read back by probing"
            expect_contains "$OUT" "sample-rows            0" "$to read back without samples"
            ;;
    esac
done
# A BR file is nothing but its samples: an empty one would not be a BR file.
expect_status 1 "$PROFKIT" convert "$empty" --to br -o refused.br
expect_contains "$ERR" "the profile has no samples" "br refuses the empty profile"
expect_no_file refused.br
# Folded stacks of an empty profile are an empty output, with a warning (--quiet: none).
expect_status 0 "$PROFKIT" convert "$empty" --to folded -o empty.folded
expect_contains "$ERR" "warning: the profile has no samples: empty.folded holds none"
[ -f empty.folded ] && [ ! -s empty.folded ] || fail "empty.folded is not an empty file"
expect_status 0 "$PROFKIT" convert "$empty" --to folded --quiet
expect_eq "$OUT$ERR" "" "an empty profile to standard output, quietly"
# gperftools writes the header and trailer of a run without samples, as libprofiler does.
expect_status 0 "$PROFKIT" convert "$empty" --to gperftools -o again.prof
expect_status 0 "$PROFKIT" info again.prof
expect_contains "$OUT" "sample-rows            0" "gperftools without samples"
# A profile whose frames have names and no addresses still cannot be gperftools.
expect_status 1 "$PROFKIT" convert "$SRC/tests/data/folded/synthetic.folded" --to gperftools -o names.prof
expect_contains "$ERR" "cannot write names.prof as gperftools: " "names-only refused"
expect_contains "$ERR" "has none (its frames carry names only)" "names-only reason"
expect_no_file names.prof
expect_status 1 "$PROFKIT" convert "$SRC/tests/data/folded/synthetic.folded" --to gperftools
expect_contains "$ERR" "cannot write gperftools to standard output: " "names-only to standard output"
finish
