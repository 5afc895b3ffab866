# SPDX-License-Identifier: MIT
# speedscope files through the command: found by content whatever their names (profkit's own
# output is .json too), converted, written and read back; cut and damaged files.
. "$(dirname "$0")/lib.sh"

DATA=$SRC/tests/data/speedscope

# ---- probing by content --------------------------------------------------------------------
cp "$DATA/node-cpu-prof.exported.speedscope.json" exported.bin
expect_status 0 "$PROFKIT" info exported.bin
expect_contains "$OUT" "format                   speedscope" "speedscope's export by its \$schema"
expect_contains "$OUT" "exporter                 speedscope@1.25.0" "its exporter kept"
cp "$DATA/old-v0.5-sampled.speedscope.json" old.json
expect_status 0 "$PROFKIT" info old.json
expect_contains "$OUT" "format                   speedscope" "an old file without \$schema"
expect_status 0 "$PROFKIT" formats
expect_contains "$OUT" "speedscope" "listed"

# ---- conversions ----------------------------------------------------------------------------
sorted() {
    LC_ALL=C sort "$@"
}
expect_status 0 "$PROFKIT" convert "$DATA/evented-synthetic.speedscope.json" --to folded
expect_eq "$(printf '%s\n' "$OUT" | sorted)" \
    "$(printf 'main 3000000\nmain;eval 4000000\nmain;parse 3000000')" \
    "evented profile: time between events, in nanoseconds"
expect_status 0 "$PROFKIT" convert "$DATA/frames-last.speedscope.json" --to folded --value samples
expect_eq "$(printf '%s\n' "$OUT" | sorted)" "$(printf 'main 1\nmain;eval 1\nmain;parse 2')" \
    "frames defined after the profiles"

# Written and read back: the same stacks, values and threads.
expect_status 0 "$PROFKIT" convert "$DATA/frames-last.speedscope.json" -o again.json --to speedscope
expect_status 0 "$PROFKIT" info again.json
expect_contains "$OUT" "format                   speedscope" "profkit's output by content"
expect_status 0 "$PROFKIT" report again.json --threads
expect_contains "$OUT" "3 of 3 threads" "a thread per profile read back"
for value in samples time bytes; do
    expect_status 0 "$PROFKIT" convert "$DATA/frames-last.speedscope.json" --to folded --value $value
    before=$OUT
    expect_status 0 "$PROFKIT" convert "$DATA/frames-last.speedscope.json" --value $value \
        -o "again-$value.speedscope.json"
    expect_status 0 "$PROFKIT" convert "again-$value.speedscope.json" --to folded
    expect_eq "$OUT" "$before" "$value read back"
done

# ---- deep stacks: events, as many as the changes of stack -----------------------------------
# A trace of 20,000 nested calls: as samples, its 20,000 stacks would list 200 million frame
# indexes (777 MB); as frames opened and closed, 40,000 events (1.6 MB).
sh "$SRC/tests/tools/nested_trace.sh" 20000 > deep.trace.json
expect_status 0 "$PROFKIT" convert deep.trace.json --to speedscope -o deep.speedscope.json
size=$(stat -c %s deep.speedscope.json)
CHECKS=$((CHECKS + 1))
[ "$size" -lt 4000000 ] || fail "20,000 nested calls written in $size bytes: more than linear"
expect_eq "$(grep -c '"type":"evented"' deep.speedscope.json)" 1 "an evented profile"
expect_status 0 "$PROFKIT" info deep.trace.json
trace_info=$OUT
expect_status 0 "$PROFKIT" info deep.speedscope.json
for line in "stacks                 20000" "sample-rows            20000" "total 39999000"; do
    expect_contains "$trace_info" "$line" "the trace"
    expect_contains "$OUT" "$line" "the trace's events read back"
done
expect_contains "$OUT" "warnings (0)" "read back without warnings"

# ---- cut and damaged files --------------------------------------------------------------------
size=$(stat -c %s "$DATA/node-cpu-prof.exported.speedscope.json")
head -c $((size * 2 / 3)) "$DATA/node-cpu-prof.exported.speedscope.json" > cut.speedscope.json
expect_status 1 "$PROFKIT" convert cut.speedscope.json --to folded
expect_contains "$ERR" "cut.speedscope.json: byte $((size * 2 / 3)): the speedscope file ends early" \
    "the error names the byte"
expect_contains "$ERR" "--salvage" "salvage suggested"
expect_status 0 "$PROFKIT" convert cut.speedscope.json --to folded --salvage
printf '{"$schema":"https://www.speedscope.app/file-format-schema.json","profiles":[{"samples":[[0,]}' \
    > bad.json
expect_status 1 "$PROFKIT" info bad.json
expect_contains "$ERR" "byte 92: the speedscope file is not valid JSON" "the offset of the syntax error"

# A frame index far beyond shared.frames costs its placeholder, not a table up to it: the read
# fits in 1 GB of address space (sanitizers reserve far more for themselves: not checked there).
printf '{"shared":{"frames":[]},"profiles":[{"type":"sampled","unit":"none",%s\n' \
    '"samples":[[4000000000]],"weights":[1]}]}' > far-index.json
case "${PK_SANITIZE_FLAGS:-}" in
*sanitize*) ;;
*)
    expect_status 0 bash -c 'ulimit -v 1000000 && exec "$1" convert far-index.json --to folded' \
        _ "$PROFKIT"
    expect_eq "$OUT" "(frame 4000000000) 1" "a frame index of four billion, in bounded memory"
    ;;
esac

finish
