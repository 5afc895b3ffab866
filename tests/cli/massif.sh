# SPDX-License-Identifier: MIT
# valgrind massif files: probing by content, the values (inuse_space, peak_space) and summary
# properties the reader keeps, frames, damage and cut files. interop_massif.sh compares
# profkit with ms_print.
. "$(dirname "$0")/lib.sh"
DATA=$SRC/tests/data/massif

# Every fixture is taken for massif by its content (no extension helps).
for f in "$DATA"/massif.out.*; do
    expect_status 0 "$PROFKIT" info "$f"
    expect_contains "$OUT" "format                   massif" "info of ${f##*/}"
    expect_eq "$ERR" "" "warnings of ${f##*/}"
done

# The peak snapshot's tree is peak_space, the last detailed one's inuse_space; their totals are
# the snapshots' mem_heap_B.
expect_status 0 "$PROFKIT" info "$DATA/massif.out.stacks"
expect_contains "$OUT" "heap                   inuse_space=64564 peak_space=164500"
expect_contains "$OUT" "massif.peak_snapshot     80"
expect_contains "$OUT" "massif.inuse_snapshot    90"
expect_contains "$OUT" "massif.time_unit         B"
expect_contains "$OUT" "massif.snapshots         91"
expect_status 0 "$PROFKIT" convert "$DATA/massif.out.prog" --to folded --value peak_space
expect_eq "$OUT" "main 100000
main;mid;leaf 24500
main;other;leaf 40000" "the peak's bytes by stack"
# Frames keep their file and line; entries below massif's threshold are frames named as
# massif and ms_print name them.
expect_status 0 "$PROFKIT" report "$DATA/massif.out.prog" --value peak_space --lines --json --quiet
expect_contains "$OUT" '"prog.c"' "the source file of frames"
expect_status 0 "$PROFKIT" convert "$DATA/massif.out.threshold" --to folded --value peak_space
expect_contains "$OUT" "in 2 places, all below massif's threshold (30.00%);leaf 64500"

# report --memory reads the last detailed snapshot's tree as what is in use.
expect_status 0 "$PROFKIT" report "$DATA/massif.out.stacks" --memory
expect_contains "$OUT" "memory: 63.1 KiB unfreed"

# Damage: a line that is no massif line is named by its number and offset.
printf 'desc: x\ncmd: ./a\ntime_unit: i\n#-----------\nsnapshot=0\n#-----------\ntime=0\nmem_heap_B=0\nbogus\n' >bad.massif
expect_status 1 "$PROFKIT" info bad.massif
expect_contains "$ERR" "line 9 is no massif line"
expect_contains "$ERR" "byte 87"
# A tree whose nodes are not where their parents' children counts put them.
printf 'desc: x\ncmd: ./a\ntime_unit: i\nsnapshot=0\ntime=0\nmem_heap_B=5\nmem_heap_extra_B=0\nmem_stacks_B=0\nheap_tree=peak\nn1: 5 (heap allocation functions) malloc\n  n0: 5 0x1: f (a.c:1)\n' >deep.massif
expect_status 1 "$PROFKIT" info deep.massif
expect_contains "$ERR" "line 11 is not where its tree's declared children put it"
# A count far beyond what the file holds allocates nothing: children are counted as they come.
printf 'desc: x\ncmd: ./a\ntime_unit: i\nsnapshot=0\ntime=0\nmem_heap_B=5\nmem_heap_extra_B=0\nmem_stacks_B=0\nheap_tree=peak\nn18446744073709551615: 5 (heap allocation functions) malloc\n' >count.massif
expect_status 1 "$PROFKIT" info count.massif
expect_contains "$ERR" "line 10 is not a tree node"
printf 'desc: x\ncmd: ./a\ntime_unit: i\nsnapshot=0\ntime=0\nmem_heap_B=5\nmem_heap_extra_B=0\nmem_stacks_B=0\nheap_tree=peak\nn4000000000: 5 (heap allocation functions) malloc\n' >many.massif
expect_status 1 "$PROFKIT" info many.massif
expect_contains "$ERR" "ends inside snapshot 0's heap tree"

# Cut files: every cut either reads whole snapshots (the trees it completed, never part of one)
# or is an error naming its line or offset; with --salvage it is kept with a warning.
totals=$(sed -n 's/^mem_heap_B=//p' "$DATA/massif.out.stacks" | sort -u | tr '\n' ' ')
size=$(wc -c <"$DATA/massif.out.stacks")
cut=40
while [ "$cut" -lt "$size" ]; do
    head -c "$cut" "$DATA/massif.out.stacks" >cut.massif
    CHECKS=$((CHECKS + 1))
    if ! "$PROFKIT" info cut.massif >/dev/null 2>cut.err; then
        grep -q -e "line [0-9]" -e "byte [0-9]" cut.err || fail "cut at $cut: error names no line or offset: $(cat cut.err)"
    fi
    "$PROFKIT" info --salvage cut.massif >cut.out 2>cut.err || fail "cut at $cut: --salvage fails: $(cat cut.err)"
    for value in inuse_space peak_space; do
        got=$(sed -n "s/^  $value *bytes *total \([0-9]*\).*/\1/p" cut.out)
        case " 0 $totals" in
            *" $got "*) ;;
            *) fail "cut at $cut: $value total $got is no snapshot's mem_heap_B (part of a tree?)" ;;
        esac
    done
    cut=$((cut + 997))
done

# Memory over time: a counter of every snapshot's heap + extra-heap + stack bytes at its time
# (instructions here, one a nanosecond), in the info and in the Firefox output's memory track.
for fixture in massif.out.prog massif.out.stacks; do
    expect_status 0 "$PROFKIT" info --json "$DATA/$fixture"
    printf "%s" "$OUT" >info.json
    expect_status 0 "$PROFKIT" convert --quiet "$DATA/$fixture" -o counter.json
    want=$(python3 - "$DATA/$fixture" <<'PY'
import re, sys
snaps, cur = [], {}
for line in open(sys.argv[1]):
    m = re.match(r"(time|mem_heap_B|mem_heap_extra_B|mem_stacks_B)=(\d+)", line)
    if m:
        cur[m.group(1)] = int(m.group(2))
    if line.startswith("heap_tree="):
        snaps.append((cur["time"], cur["mem_heap_B"] + cur["mem_heap_extra_B"] + cur["mem_stacks_B"]))
print(len(snaps), snaps[-1][0], max(s for _, s in snaps), ",".join(str(s) for _, s in snaps))
PY
)
    got=$(python3 - info.json counter.json <<'PY'
import json, sys
info = json.load(open(sys.argv[1]))["counters"]
assert len(info) == 1 and info[0]["name"] == "massif" and info[0]["unit"] == "bytes", info
ff = [c for c in json.load(open(sys.argv[2]))["counters"] if c["name"] == "massif"]
assert len(ff) == 1 and ff[0]["category"] == "Memory", ff
levels, level = [], 0
for change in ff[0]["samples"]["count"]:
    level += change
    levels.append(level)
assert ff[0]["samples"]["length"] == len(levels)
# Times in milliseconds from the first sample: instructions as nanoseconds.
assert abs(ff[0]["samples"]["time"][-1] * 1e6 - info[0]["last_ns"]) < 1, ff[0]["samples"]["time"][-1]
print(info[0]["samples"], info[0]["last_ns"], info[0]["max"], ",".join(str(l) for l in levels))
PY
)
    expect_eq "$got" "$want" "$fixture: snapshots, last time, peak and every level of the counter"
done

finish
