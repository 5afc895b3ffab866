# SPDX-License-Identifier: MIT
# .bsprof through the command: info (text and JSON), conversions to folded stacks, to .bsprof
# and back, to the Firefox Profiler when this build has it; values, damage and --salvage, standard
# input, dump, and exit statuses.
. "$(dirname "$0")/lib.sh"

EXAMPLE=$SRC/examples/roku-channel.bsprof
cp "$EXAMPLE" channel.bsprof

# Sum of the weights of folded lines on standard input.
folded_sum() { awk '{ s += $NF } END { printf "%d\n", s }'; }
# Total of a value from info --json.
json_total() {
    python3 -c 'import json,sys
info = json.load(open(sys.argv[1]))
print(next(v["total"] for v in info["values"] if v["name"] == sys.argv[2]))' "$1" "$2"
}

# ---- info ---------------------------------------------------------------------------------------
expect_status 0 "$PROFKIT" info channel.bsprof
for needle in "bsprof" "format-version           1.0.0" "Streamline TV" "target-version           2.4.1" \
              "device-vendor            Roku" "device-model             4802X" \
              "device-firmware          12.5.0.4178" "line-data                yes" \
              "memory-operations        yes" "requested-sample-ratio   1" "2024-11-12T08:26:40.000Z" \
              "HomeScene" "RowListItem" "warnings (0)"; do
    expect_contains "$OUT" "$needle" "info"
done
expect_status 0 "$PROFKIT" info --json channel.bsprof
printf '%s\n' "$OUT" > info.json
CHECKS=$((CHECKS + 1))
python3 - info.json <<'EOF' || fail "info --json content"
import json, sys
info = json.load(open(sys.argv[1]))
assert info["format"] == "bsprof", info["format"]
names = [(v["name"], v["unit"]) for v in info["values"]]
assert names == [("cpu", "operations"), ("wall", "wall-units"), ("calls", "count"),
                 ("alloc_space", "bytes"), ("alloc_objects", "count"), ("inuse_space", "bytes"),
                 ("inuse_objects", "count")], names
threads = [t["name"] for t in info["threads"]]
assert threads[:4] == ["main", "HomeScene", "ContentTask", "VideoPlayer"], threads
assert threads.count("RowListItem") == 6, threads
props = info["metadata"]["properties"]
assert props["format-version"] == "1.0.0" and props["line-data"] == "yes", props
assert info["metadata"]["times_approximate"] is True
assert info["warnings"] == [], info["warnings"]
EOF

# ---- folded stacks: every value, totals as info reports them --------------------------------------
for value in cpu wall calls alloc_space alloc_objects inuse_space inuse_objects; do
    expect_status 0 "$PROFKIT" convert channel.bsprof --to folded --value "$value"
    expect_eq "$(printf '%s\n' "$OUT" | folded_sum)" "$(json_total info.json "$value")" "folded $value total"
    CHECKS=$((CHECKS + 1))
    printf '%s\n' "$OUT" | grep -Evq '^[^ ;][^;]*(;[^;]+)* [1-9][0-9]*$' && fail "folded $value: malformed line"
done
expect_status 0 "$PROFKIT" convert channel.bsprof --to folded
printf '%s\n' "$OUT" | sort > cpu.folded
expect_contains "$OUT" "Main;RunEventLoop;HandleRoUrlEvent;ParseJsonSafe " "folded cpu stacks"
expect_status 0 "$PROFKIT" convert channel.bsprof --to folded --with-threads
expect_contains "$OUT" "VideoPlayer;onPositionChange;UpdateProgressBar" "--with-threads"
expect_status 2 "$PROFKIT" convert channel.bsprof --to folded --value bogus
expect_contains "$ERR" "cpu wall calls alloc_space alloc_objects inuse_space inuse_objects" "unknown --value lists the values"
# The names of the memory values before 0.2.0 still select them (docs/formats/memory-values.md).
for former in alloc-bytes:alloc_space allocs:alloc_objects live-bytes:inuse_space; do
    expect_status 0 "$PROFKIT" convert channel.bsprof --to folded --value "${former%%:*}"
    printf '%s\n' "$OUT" | sort > former.folded
    expect_status 0 "$PROFKIT" convert channel.bsprof --to folded --value "${former#*:}"
    CHECKS=$((CHECKS + 1))
    printf '%s\n' "$OUT" | sort | cmp -s - former.folded ||
        fail "--value ${former%%:*} is not ${former#*:}"
    expect_status 0 "$PROFKIT" report channel.bsprof --value "${former%%:*}" --top 3
    expect_contains "$OUT" "${former#*:} (" "report --value ${former%%:*} reports ${former#*:}"
done
expect_status 0 "$PROFKIT" diff channel.bsprof channel.bsprof --value live-bytes
expect_status 2 "$PROFKIT" convert channel.bsprof --to folded --value live-objects
expect_contains "$ERR" "no value 'live-objects'; this profile has: cpu wall calls alloc_space" \
    "a name that was never a value is still unknown"

# ---- standard input, extension-free names, --from -----------------------------------------------
CHECKS=$((CHECKS + 1))
"$PROFKIT" convert - --to folded < channel.bsprof | sort | cmp -s - cpu.folded || fail "stdin differs"
cp channel.bsprof capture.bin
expect_status 0 "$PROFKIT" convert capture.bin --to folded
expect_status 0 "$PROFKIT" convert capture.bin --from bsprof --to folded

# ---- .bsprof to .bsprof keeps every total and stack -----------------------------------------------
expect_status 0 "$PROFKIT" convert channel.bsprof -o again.bsprof
expect_file again.bsprof
expect_status 0 "$PROFKIT" info --json again.bsprof
printf '%s\n' "$OUT" > again.json
for value in cpu wall calls alloc_space alloc_objects inuse_space inuse_objects; do
    expect_eq "$(json_total again.json "$value")" "$(json_total info.json "$value")" "round trip $value"
done
CHECKS=$((CHECKS + 1))
"$PROFKIT" convert again.bsprof --to folded --value inuse_space | sort > a.folded
"$PROFKIT" convert channel.bsprof --to folded --value inuse_space | sort > b.folded
cmp -s a.folded b.folded || fail "round trip changes inuse_space stacks"
CHECKS=$((CHECKS + 1))
"$PROFKIT" convert again.bsprof --to folded | sort | cmp -s - cpu.folded || fail "round trip changes cpu stacks"

# ---- Firefox Profiler, when this build has the writer ---------------------------------------------
if "$PROFKIT" formats | awk '{print $1}' | grep -qx firefox; then
    expect_status 0 "$PROFKIT" convert channel.bsprof -o channel.json
    expect_status 0 "$PROFKIT" convert channel.bsprof --to firefox --value wall -o wall.json
    CHECKS=$((CHECKS + 1))
    python3 - channel.json wall.json info.json <<'EOF' || fail "firefox output"
import json, sys
profile, wall, info = (json.load(open(f)) for f in sys.argv[1:4])
names = [t["name"] for t in profile["threads"]]
assert names == [t["display_name"] for t in info["threads"]], names
assert len(set(names)) == len(names), names
total = {v["name"]: v["total"] for v in info["values"]}
def weight(p):
    return sum(sum(t["samples"]["weight"] or [1] * t["samples"]["length"]) for t in p["threads"])
assert weight(profile) == total["cpu"], (weight(profile), total["cpu"])
assert weight(wall) == total["wall"], (weight(wall), total["wall"])
allocated = sum(w for t in profile["threads"] if t.get("nativeAllocations")
                for w in t["nativeAllocations"]["weight"] if w > 0)
assert allocated == total["alloc_space"], (allocated, total["alloc_space"])
assert profile["meta"]["product"] == "Streamline TV", profile["meta"]["product"]
EOF
fi

# ---- damage -------------------------------------------------------------------------------------
# The offset of entry 300 and of the end marker, from the dump.
"$PROFKIT" dump channel.bsprof > dump.txt
CHECKS=$((CHECKS + 1))
[ "$(sed -n 1p dump.txt | cut -d' ' -f2)" = header ] || fail "dump starts with the header"
entry=$(sed -n 301p dump.txt | cut -d: -f1)
end_marker=$(grep ': end$' dump.txt | cut -d: -f1)

head -c "$entry" channel.bsprof > clean-cut.bsprof
expect_status 0 "$PROFKIT" convert clean-cut.bsprof --to folded
expect_contains "$ERR" "truncated stream: no end marker" "clean cut warning"
head -c "$end_marker" channel.bsprof > no-marker.bsprof
expect_status 0 "$PROFKIT" info no-marker.bsprof
expect_contains "$OUT" "truncated stream: no end marker" "info lists the warning"

head -c $((entry + 1)) channel.bsprof > cut.bsprof
expect_status 1 "$PROFKIT" convert cut.bsprof -o cut.folded
expect_contains "$ERR" "cut.bsprof: byte $entry: truncated" "cut inside an entry"
expect_contains "$ERR" "--salvage keeps what can be read before the damage" "salvage hint"
expect_no_file cut.folded
expect_status 0 "$PROFKIT" convert cut.bsprof -o cut.folded --salvage
expect_file cut.folded
expect_contains "$ERR" "damaged at byte $entry: truncated" "salvage warning"
expect_contains "$ERR" "; kept what was read before it" "salvage warning says what was kept"
CHECKS=$((CHECKS + 1))
cmp -s <("$PROFKIT" convert clean-cut.bsprof --to folded 2>/dev/null | sort) <(sort cut.folded) ||
    fail "salvage keeps exactly the entries before the damage"

cp clean-cut.bsprof type6.bsprof
printf '\016\001\002' >> type6.bsprof
expect_status 1 "$PROFKIT" info type6.bsprof
expect_contains "$ERR" "byte $entry: unknown entry type 6" "unknown entry type"
expect_status 0 "$PROFKIT" info type6.bsprof --salvage
expect_contains "$OUT" "damaged at byte $entry: unknown entry type 6" "salvage on type 6"
expect_status 1 "$PROFKIT" dump type6.bsprof
expect_status 0 "$PROFKIT" dump type6.bsprof --salvage
expect_contains "$OUT" "$entry: damaged: unknown entry type 6" "dump --salvage"

: > empty.bsprof
expect_status 1 "$PROFKIT" convert empty.bsprof --to folded
expect_contains "$ERR" "empty" "empty file"
expect_status 1 "$PROFKIT" convert empty.bsprof --from bsprof --to folded
expect_contains "$ERR" "empty" "empty file with --from"
head -c 40 channel.bsprof > header-cut.bsprof
expect_status 1 "$PROFKIT" info header-cut.bsprof --salvage
expect_contains "$ERR" "truncated header" "cut header"
expect_status 1 "$PROFKIT" info header-cut.bsprof
expect_not_contains "$ERR" "--salvage" "no salvage hint for a cut header"

# A failed conversion never replaces an existing output, nor writes over its input.
echo keep > out.folded
expect_status 1 "$PROFKIT" convert cut.bsprof -o out.folded
expect_eq "$(cat out.folded)" "keep" "failed conversion keeps the old output"
expect_status 2 "$PROFKIT" convert channel.bsprof -o channel.bsprof
expect_eq "$(cmp -s channel.bsprof "$EXAMPLE" && echo same)" "same" "input untouched"

# ---- dump ---------------------------------------------------------------------------------------
expect_contains "$(cat dump.txt)" ": module id=1 name=\"main\"" "dump resolves names"
expect_contains "$(cat dump.txt)" ": footer end_ms=" "dump footer"
expect_status 0 "$PROFKIT" dump --raw channel.bsprof
expect_contains "$OUT" "type=1 module id=1 name=" "raw dump"
expect_not_contains "$OUT" "name=\"main\"" "raw dump prints IDs"
expect_eq "$(printf '%s\n' "$OUT" | wc -l)" "$(wc -l < dump.txt)" "one line per entry in both modes"

finish
