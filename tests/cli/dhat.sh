# SPDX-License-Identifier: MIT
# valgrind DHAT files (heap, copy and ad-hoc modes, made by valgrind; the Rust crate's by hand):
# probing by content; every value's total and every stack's numbers are those of the file's
# program points, as DHAT's viewer and the Firefox Profiler's DHAT importer show them (its
# "Total Bytes", "Maximum Bytes", "Bytes at Global Max" and "Bytes at End" are alloc_space,
# max_space, peak_space and inuse_space); damage and cut files.
. "$(dirname "$0")/lib.sh"
DATA=$SRC/tests/data/dhat

for f in "$DATA"/dhat.out.*; do
    expect_status 0 "$PROFKIT" info "$f"
    expect_contains "$OUT" "format                   dhat" "info of ${f##*/}"
    expect_eq "$ERR" "" "warnings of ${f##*/}"
done

# What the file's points say, per value: "value total" lines, then "value stack number" lines
# (the stack of function names from fs, root first, as folded writes it).
from_json() {
    python3 -c 'import json, re, sys
d = json.load(open(sys.argv[1]))
mode = d.get("mode", "heap")
names = {"heap": [("tbk", "alloc_objects"), ("tb", "alloc_space"), ("ebk", "inuse_objects"),
                  ("eb", "inuse_space"), ("gb", "peak_space"), ("gbk", "peak_objects"),
                  ("mb", "max_space"), ("mbk", "max_objects"), ("tl", "lifetime"),
                  ("rb", "read_bytes"), ("wb", "write_bytes")],
         "copy": [("tbk", "copies"), ("tb", "copied_bytes")],
         "ad-hoc": [("tbk", "events"), ("tb", "units")]}[mode]
def function(entry):
    m = re.match(r"^0x[0-9A-Fa-f]+: (.*?)(?: \((?:in [^)]*|[^()]*:\d+)\))?$", entry)
    return m.group(1) if m else entry
for field, name in names:
    if any(field in pp for pp in d["pps"]):
        print(name, sum(pp.get(field, 0) for pp in d["pps"]))
for field, name in names:
    stacks = {}
    for pp in d["pps"]:
        key = ";".join(function(d["ftbl"][i]) for i in reversed(pp["fs"]))
        stacks[key] = stacks.get(key, 0) + pp.get(field, 0)
    for key in sorted(stacks):
        if stacks[key] > 0:
            print(name, key, stacks[key])' "$1"
}

from_profkit() {
    local values
    values=$("$PROFKIT" info "$1" | sed -n '/^values$/,/^$/p' | awk 'NF >= 4 {print $1}')
    "$PROFKIT" info "$1" | sed -n '/^values$/,/^$/p' | awk 'NF >= 4 {print $1, $4}'
    for v in $values; do
        "$PROFKIT" convert "$1" --to folded --value "$v" | sort | sed "s/^/$v /"
    done
}

for f in "$DATA"/dhat.out.*; do
    from_json "$f" >"${f##*/}.json.txt"
    from_profkit "$f" >"${f##*/}.profkit.txt"
    expect_same_lines "${f##*/}.json.txt" "${f##*/}.profkit.txt" \
        "${f##*/}: profkit's values differ from the file's program points"
done
expect_status 0 "$PROFKIT" info "$DATA/dhat.out.heap"
expect_contains "$OUT" "alloc_space            bytes          total 179128  (default)"
expect_contains "$OUT" "inuse_space            bytes          total 64564"
expect_contains "$OUT" "dhat.time_global_peak"
expect_status 0 "$PROFKIT" info "$DATA/dhat.out.ad-hoc"
expect_contains "$OUT" "units                  count          total 150  (default)"

# report --memory reads the leak report from the memory vocabulary: unfreed is DHAT's "At t-end".
expect_status 0 "$PROFKIT" report "$DATA/dhat.out.heap" --memory
expect_contains "$OUT" "memory: 63.1 KiB unfreed in 21 blocks"
expect_contains "$OUT" "allocated 175 KiB in 33 blocks"

# The Rust crate's files: its modes, and FILE:LINE:COLUMN locations (the column is not kept).
printf '{"dhatFileVersion":2,"mode":"rust-heap","verb":"Allocated","bklt":true,"bkacc":false,"tu":"µs","Mtu":"s","tuth":10,"cmd":"x","pid":3,"te":10,"tg":5,"pps":[{"tb":8,"tbk":1,"tl":3,"mb":8,"mbk":1,"gb":8,"gbk":1,"eb":8,"ebk":1,"fs":[1,2]}],"ftbl":["[root]","0x10250148c: alloc::vec::Vec<T,A>::append_elements (vec.rs:1469:9)","0x1: main (src/main.rs:5:1)"]}' >rust.json
expect_status 0 "$PROFKIT" report rust.json --lines
expect_contains "$OUT" "vec.rs:1469"
expect_contains "$OUT" "src/main.rs:5"

# Damage: a version profkit does not know, a frame index past the table (left out with a
# warning: nothing is allocated for it), a frame index beyond 2^32.
printf '{"dhatFileVersion":3,"pps":[],"ftbl":[]}' >v3.json
expect_status 1 "$PROFKIT" info v3.json
expect_contains "$ERR" "dhatFileVersion 3 is not one profkit knows"
printf '{"dhatFileVersion":2,"mode":"heap","pps":[{"tb":1,"tbk":1,"fs":[4000000000]},{"tb":2,"tbk":1,"fs":[0]}],"ftbl":["[root]"]}' >index.json
expect_status 0 "$PROFKIT" info index.json
expect_contains "$OUT" "alloc_space            bytes          total 2"
expect_contains "$OUT" "1 program point with a frame index past the frame table (1 entries) left out"
printf '{"dhatFileVersion":2,"pps":[{"tb":1,"fs":[99999999999]}],"ftbl":[]}' >big.json
expect_status 1 "$PROFKIT" info big.json
expect_contains "$ERR" "frame index is not an integer from 0 to 2^32 - 2"
expect_contains "$ERR" "byte "

# Cut files: an error naming its byte offset, or with --salvage the points read whole, never
# more than the file's totals.
size=$(wc -c <"$DATA/dhat.out.heap")
cut=30
while [ "$cut" -lt "$size" ]; do
    head -c "$cut" "$DATA/dhat.out.heap" >cut.json
    CHECKS=$((CHECKS + 1))
    if "$PROFKIT" info cut.json >/dev/null 2>cut.err; then
        fail "cut at $cut: read without complaint"
    else
        grep -q "byte [0-9]" cut.err || fail "cut at $cut: error names no byte offset: $(cat cut.err)"
    fi
    if "$PROFKIT" info --salvage cut.json >cut.out 2>cut.err; then
        got=$(sed -n 's/^  alloc_space *bytes *total \([0-9]*\).*/\1/p' cut.out)
        [ "${got:-0}" -le 179128 ] || fail "cut at $cut: alloc_space $got beyond the file's"
    else
        grep -q "byte [0-9]" cut.err || fail "cut at $cut: --salvage error names no byte offset"
    fi
    cut=$((cut + 101))
done

finish
