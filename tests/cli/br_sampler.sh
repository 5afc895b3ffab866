# SPDX-License-Identifier: MIT
# BR profiler and Apple Sampler files through the command: probing, info, dump, errors with
# byte offsets, --salvage, the format options, and conversions between the two and back.
# interop_br_sampler.sh loads the conversions in the Firefox Profiler.
. "$(dirname "$0")/lib.sh"
DATA=$SRC/tests/data
BR_SAMPLED=$DATA/br-profile-sampled-synthetic.bin
BR_TIMED=$DATA/br-profile-timed-synthetic.bin
SAMPLE=$DATA/sampler-synthetic.sample
EDGE=$DATA/sampler-synthetic-edge.sample

expect_status 0 "$PROFKIT" formats
expect_contains "$OUT" "br " "formats lists br"
expect_contains "$OUT" "sampler " "formats lists sampler"

# Probed by content (the BR files have no fixed name).
expect_status 0 "$PROFKIT" info "$BR_SAMPLED"
expect_contains "$OUT" "format                   br" "br probed"
expect_contains "$OUT" "samples                count          total 3" "br samples"
expect_status 0 "$PROFKIT" info "$BR_TIMED"
expect_contains "$OUT" "time                   nanoseconds    total 1750000  (default)" "br time"
expect_status 0 "$PROFKIT" info "$SAMPLE"
expect_contains "$OUT" "format                   sampler" "sampler probed"
expect_contains "$OUT" "Thread_0001" "sampler thread"
expect_contains "$OUT" "root-first (fewer distinct frames at the root end)" "order detected"
expect_status 0 "$PROFKIT" info "$SAMPLE" --sampler-order leaf-first
expect_contains "$OUT" "leaf-first (--sampler-order)" "order forced"
expect_status 2 "$PROFKIT" info "$SAMPLE" --sampler-order sideways
expect_contains "$ERR" "leaf-first or root-first" "bad order"
expect_status 0 "$PROFKIT" info "$EDGE"
expect_contains "$OUT" "samples                count          total 2" "edge file"

# Dumps: resolved names by default, every field with --raw.
expect_status 0 "$PROFKIT" dump "$BR_SAMPLED"
expect_contains "$OUT" '    37  current line "C:\\APP\\LIB.BR" line 500 clause 1' "br dump"
expect_contains "$OUT" '    45  function name "FNCALC"' "br dump function"
expect_status 0 "$PROFKIT" dump --raw "$BR_SAMPLED"
expect_contains "$OUT" '    37  3 module=2 line=500 clause=1' "br raw dump"
expect_status 0 "$PROFKIT" dump "$EDGE"
expect_contains "$OUT" "   202  sample 2 frames: tab_lf_id; all_lf_id" "sampler dump"
expect_status 0 "$PROFKIT" dump --raw "$EDGE"
expect_contains "$OUT" "   202  sample 1 0 1 n=2: 0x0000090a 0x0a0a0a0a" "sampler raw dump"

# Damage: the byte offset, and --salvage.
head -c 70 "$BR_SAMPLED" > cut.bin
expect_status 1 "$PROFKIT" info cut.bin
expect_contains "$ERR" "cut.bin: byte 63: the current line record runs past the end of the input" "br cut"
expect_status 0 "$PROFKIT" info cut.bin --salvage
expect_contains "$OUT" "damaged at byte 63: the current line record runs past the end of the input; kept what was read before it" "br salvage"
expect_contains "$OUT" "samples                count          total 1" "br salvage keeps the complete group"
expect_status 0 "$PROFKIT" dump cut.bin --salvage
expect_contains "$OUT" "63: damaged: the current line record runs past the end of the input" "br dump --salvage"
{ cat "$BR_SAMPLED"; printf '\002'; } > type2.bin
expect_status 1 "$PROFKIT" info type2.bin
expect_contains "$ERR" "byte 92: unknown record type 2" "br type 2"
head -c 300 "$SAMPLE" > cut.sample
expect_status 1 "$PROFKIT" info cut.sample
expect_contains "$ERR" "cut.sample: byte 299: the file ends inside a sample row" "sampler cut"
expect_contains "$ERR" "--salvage keeps what can be read before the damage" "sampler salvage hint"
expect_status 0 "$PROFKIT" info cut.sample --salvage
expect_contains "$OUT" "samples                count          total 1" "sampler salvage"
expect_contains "$OUT" "damaged at byte 299: the file ends inside a sample row; kept what was read before it" "sampler salvage warning"
# Through a pipe the size is not known: the row is read until the input ends inside it.
head -c 223 "$EDGE" > cut-edge.sample
expect_status 0 sh -c "cat cut-edge.sample | \"$PROFKIT\" dump --from sampler - --salvage"
expect_contains "$OUT" "   202  sample 2 frames:
202: damaged: a sample row of 2 frames runs past the end of the input" "sampler dump of a cut row"
head -c 20 "$SAMPLE" > header-cut.sample
expect_status 1 "$PROFKIT" info header-cut.sample --salvage
expect_contains "$ERR" "byte 18: the file ends inside @symboltableV1.1 and a line feed" "sampler cut header"
expect_not_contains "$ERR" "--salvage" "no salvage hint for a cut header"

# Conversions: names and totals survive BR -> Sampler -> BR and Sampler -> BR -> Sampler.
expect_status 0 "$PROFKIT" convert "$BR_SAMPLED" -o via.sample
expect_status 0 "$PROFKIT" dump via.sample
expect_contains "$OUT" "sample 3 frames: Thread_0001; MENU.BR main; FNCALC" "br in sampler"
expect_status 0 "$PROFKIT" convert via.sample --to br -o back.br
expect_status 0 "$PROFKIT" dump back.br
expect_contains "$OUT" 'current line "C:\\APP\\MENU.BR" line 2 clause 1' "module from library"
expect_contains "$OUT" "gosub" "gosub label back"
expect_contains "$OUT" "main routine" "main label back"
expect_contains "$OUT" 'function name "FNCALC"' "function back"
expect_status 0 "$PROFKIT" info back.br
expect_contains "$OUT" "samples                count          total 3" "total back"

expect_status 0 "$PROFKIT" convert "$BR_TIMED" --to br -o timed.br
expect_status 0 "$PROFKIT" info timed.br
expect_contains "$OUT" "time                   nanoseconds    total 1750000  (default)" "time kept"

expect_status 0 "$PROFKIT" convert "$SAMPLE" --to br -o sample.br
expect_status 0 "$PROFKIT" convert sample.br -o again.sample
expect_status 0 "$PROFKIT" info again.sample
expect_contains "$OUT" "root-first (thread id at the root end)" "written order detected"
expect_contains "$OUT" "samples                count          total 4" "total kept"
expect_status 0 "$PROFKIT" dump again.sample
expect_contains "$OUT" "sample 3 frames: Thread_0001; main; parse" "stack kept"
expect_contains "$OUT" "sample 2 frames: Thread_0001; main" "short stack kept"

# Folded stacks: BR and Sampler as flame graph input, and folded stacks through both and back.
expect_status 0 "$PROFKIT" convert "$BR_SAMPLED" --to folded
expect_eq "$OUT" "MENU.BR main 1
MENU.BR main;FNCALC 1
MENU.BR main;MENU.BR gosub 1" "br as folded"
expect_status 0 "$PROFKIT" convert "$BR_TIMED" --to folded
expect_eq "$OUT" "MENU.BR main 1750000" "br time as folded"
expect_status 0 "$PROFKIT" convert "$SAMPLE" --to folded --with-threads
expect_eq "$OUT" "Thread_0001;main 1
Thread_0001;main;parse 2
Thread_0001;main;eval 1" "sampler as folded"
printf 'app;main;parse 2\napp;main;eval 1\napp;main 1\napp;main;eval;kmalloc_[k] 3\nother 4\n' > in.folded
expect_status 0 "$PROFKIT" convert in.folded --to folded
WANT=$OUT
expect_status 0 "$PROFKIT" convert in.folded -o f.sample
expect_status 0 "$PROFKIT" convert f.sample --to folded
expect_eq "$OUT" "$WANT" "folded through sampler"
expect_status 0 "$PROFKIT" convert in.folded --to br -o f.br
expect_status 0 "$PROFKIT" convert f.br --to folded
expect_eq "$OUT" "$WANT" "folded through br"
expect_status 0 "$PROFKIT" convert f.br -o f2.sample
expect_status 0 "$PROFKIT" convert f2.sample --to br -o f2.br
expect_status 0 "$PROFKIT" convert f2.br --to folded
expect_eq "$OUT" "$WANT" "folded through br, sampler, br"

finish
