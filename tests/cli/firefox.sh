# SPDX-License-Identifier: MIT
# Firefox Profiler files through the command: processed profiles of every version and Gecko
# profiles found by content whatever their names, profkit's own output read back, cut and
# damaged files.
. "$(dirname "$0")/lib.sh"

DATA=$SRC/tests/data/firefox

sorted() {
    LC_ALL=C sort "$@"
}

# ---- probing by content --------------------------------------------------------------------
for file in "$DATA"/*.json; do
    cp "$file" profile.bin
    expect_status 0 "$PROFKIT" info profile.bin --no-symbols
    expect_contains "$OUT" "format                   firefox" "$(basename "$file") by content"
done
expect_status 0 "$PROFKIT" convert "$DATA/notes-example.v66.json" --to folded
expect_eq "$(printf '%s\n' "$OUT" | sorted)" "$(printf 'main 3\nmain;parse 1\nmain;parse;read_block 2')" \
    "version 66: shared tables"
expect_contains "$ERR" "1 marker left aside" "markers are left aside with a warning"
expect_status 0 "$PROFKIT" convert "$DATA/gecko-handmade.v27.json" --to folded --no-symbols
expect_contains "$OUT" "(root);js::RunScript;render 2" "a Gecko profile"
expect_contains "$OUT" "(root);onLoad 2" "its child process"
cp "$DATA/devtools-recording.v9.json" Recording.json
expect_status 0 "$PROFKIT" convert Recording.json --to folded --no-symbols
expect_contains "$OUT" "js::RunScript;main;work 2" "the Gecko profile of a DevTools recording"
expect_contains "$ERR" "the DevTools recording's own timeline left aside" "its timeline, with a warning"

# ---- written and read back ------------------------------------------------------------------
expect_status 0 "$PROFKIT" convert "$SRC/tests/data/chrome/node-cpu-prof.cpuprofile" -o cpu.json
expect_status 0 "$PROFKIT" info cpu.json
expect_contains "$OUT" "format                   firefox" "profkit's output by content"
expect_status 0 "$PROFKIT" convert "$SRC/tests/data/chrome/node-cpu-prof.cpuprofile" --to folded
before=$(printf '%s\n' "$OUT" | sorted)
expect_status 0 "$PROFKIT" convert cpu.json --to folded
expect_eq "$(printf '%s\n' "$OUT" | sorted)" "$before" "the same stacks and times read back"
expect_status 0 "$PROFKIT" convert "$SRC/tests/data/folded/synthetic.folded" --folded-threads \
    -o threads.json --to firefox
expect_status 0 "$PROFKIT" convert "$SRC/tests/data/folded/synthetic.folded" --folded-threads \
    --to folded --with-threads
before=$(printf '%s\n' "$OUT" | sorted)
expect_status 0 "$PROFKIT" convert threads.json --to folded --with-threads
expect_eq "$(printf '%s\n' "$OUT" | sorted)" "$before" "threads read back"

# ---- cut and damaged files --------------------------------------------------------------------
size=$(stat -c %s cpu.json)
head -c $((size * 2 / 3)) cpu.json > cut.json
expect_status 1 "$PROFKIT" convert cut.json --to folded
expect_contains "$ERR" "cut.json: byte $((size * 2 / 3)): the Firefox profile ends early" \
    "the error names the byte"
expect_status 0 "$PROFKIT" convert cut.json --to folded --salvage
printf '{"meta":{"preprocessedProfileVersion":55},"threads":[{"samples":{"stack":[0,]}}]}' > bad.json
expect_status 1 "$PROFKIT" info bad.json
expect_contains "$ERR" "byte 77: the Firefox profile is not valid JSON" "the offset of the syntax error"

finish
