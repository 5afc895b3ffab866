#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The benchmark tools decode and generate what they claim: the plain .bsprof decode loop finds
# every entry and field that profkit's dump finds, and the gperftools generator's shapes are
# real profiles of a real program with the records, samples and repetitions it reports;
# wall_split runs the command it is given and reports its threads; every JSON parser of
# json_parsers counts what yajl counts and fails on a cut document.
# Extra arguments: gen_bsprof, naive_bsprof_decode, gen_gperftools, wall_split, json_parsers,
# gen_bsprof_spread.
. "$(dirname "$0")/lib.sh"
GEN_BSPROF=$4
NAIVE=$5
GEN_GPERFTOOLS=$6
WALL_SPLIT=$7
JSON_PARSERS=$8
GEN_SPREAD=$9

# ---- naive_bsprof_decode against the reader's codec ----------------------------------------------
expect_status 0 "$GEN_BSPROF" --size 200K channel.bsprof
expect_status 0 "$NAIVE" channel.bsprof
naive=$OUT
expect_status 0 "$PROFKIT" dump --raw channel.bsprof
# Per entry type, and a checksum of the tags and of every numeric field but IDs and the type.
from_dump=$(printf '%s\n' "$OUT" | awk '
    / type=[0-9]/ {
        for (i = 2; i <= NF; i++) {
            split($i, kv, "=")
            if (kv[1] == "tag") sum += kv[2]
            if (kv[1] == "type") { type = kv[2]; count[type]++ }
        }
        if (type != 0)
            for (i = 2; i <= NF; i++) {
                split($i, kv, "=")
                if (kv[1] != "tag" && kv[1] != "type" && kv[1] != "id" && kv[1] != "path" &&
                    kv[1] != "op" && kv[2] ~ /^[0-9]+$/)
                    sum += kv[2]
            }
    }
    END {
        printf "strings %d modules %d paths %d memory %d cpu %d calls %d checksum %.0f\n",
               count[0], count[1], count[2], count[3], count[4], count[5], sum
    }')
expect_eq "$naive" "$from_dump" "naive decode loop against profkit dump"
expect_contains "$naive" " cpu " "naive decode loop output"
# No line data: entries are one field shorter.
expect_status 0 "$GEN_BSPROF" --size 50K --no-lines --no-memory plain.bsprof
expect_status 0 "$NAIVE" plain.bsprof
expect_contains "$OUT" "memory 0 " "no memory operations"
expect_eq "$(printf '%s\n' "$OUT" | awk '{print $10 + $12}')" \
    "$("$PROFKIT" dump --raw plain.bsprof | grep -cE ' type=(4|5) ')" "cpu and call-count entries"
# Long increments (--cpu-max): longer varints, still found by the loop, and summed exactly by the
# reader (the folded totals of cpu, wall and calls against the fields that dump lists).
expect_status 0 "$GEN_BSPROF" --size 300K --no-memory --cpu-max 2000000000 long.bsprof
expect_status 0 "$NAIVE" long.bsprof
naive=$OUT
expect_status 0 "$PROFKIT" dump --raw long.bsprof
dump=$OUT
for value in cpu wall count; do
    expected=$(printf '%s\n' "$dump" | awk -v k="$value" '
        / type=[45] / { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) s += kv[2] } }
        END { printf "%.0f\n", s }')
    name=$value
    [ "$value" = count ] && name=calls
    expect_status 0 "$PROFKIT" convert long.bsprof --to folded --value "$name"
    expect_eq "$(printf '%s\n' "$OUT" | awk '{ s += $NF } END { printf "%.0f\n", s }')" "$expected" \
        "long increments: total $name"
done
expect_contains "$naive" " cpu " "naive decode loop on long increments"
expect_status 2 "$GEN_BSPROF" --cpu-max 10 small.bsprof
# gen_bsprof_spread: the entries it reports, most values five bytes long, a line offset in every
# CPU entry, and the reader's totals (over many cells, past the caches' share of them) exact.
expect_status 0 "$GEN_SPREAD" --size 400K --paths 500 spread.bsprof
report=$ERR
expect_status 0 "$NAIVE" spread.bsprof
naive=$OUT
expect_eq "$(printf '%s\n' "$naive" | awk '{print $10 " cpu, " $12 " call-count"}')" \
    "$(printf '%s\n' "$report" | sed -n 's/.* entries (\([0-9]*\) cpu, \([0-9]*\) call-count).*/\1 cpu, \2 call-count/p')" \
    "gen_bsprof_spread: the entries it reports"
expect_status 0 "$PROFKIT" dump --raw spread.bsprof
dump=$OUT
expect_eq "$(printf '%s\n' "$dump" | grep ' type=4 ' | grep -vc ' line_offset=[1-9]')" 0 \
    "gen_bsprof_spread: a line offset in every CPU entry"
for value in cpu wall count; do
    expected=$(printf '%s\n' "$dump" | awk -v k="$value" '
        / type=[45] / { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) s += kv[2] } }
        END { printf "%.0f\n", s }')
    name=$value
    [ "$value" = count ] && name=calls
    expect_status 0 "$PROFKIT" convert spread.bsprof --to folded --value "$name"
    expect_eq "$(printf '%s\n' "$OUT" | awk '{ s += $NF } END { printf "%.0f\n", s }')" "$expected" \
        "gen_bsprof_spread: total $name"
done
long=$(printf '%s\n' "$report" | sed -n 's/.*, \([0-9]*\) five-byte values/\1/p')
cpu=$(printf '%s\n' "$naive" | awk '{print $10}')
expect_eq "$([ "$long" -gt "$cpu" ] && echo yes)" yes "gen_bsprof_spread: most values five bytes"
expect_status 2 "$GEN_SPREAD" --paths 0 x.bsprof
# What is not a .bsprof file is refused with the byte offset.
printf 'bsprof\0\0\x01\x00\x00\x7f' > cut.bsprof
expect_status 1 "$NAIVE" cut.bsprof
expect_contains "$ERR" "at byte" "error of a cut file"
expect_status 2 "$NAIVE"

# ---- gen_gperftools: every shape -----------------------------------------------------------------
mkdir -p wide deep branchy
for shape in wide deep branchy; do
    expect_status 0 "$GEN_GPERFTOOLS" --shape "$shape" --functions 60 --size 150K "$shape" \
        "$shape/big.prof"
    report=$ERR
    expect_contains "$report" "records" "$shape: generator report"
    samples=$(printf '%s\n' "$report" | sed -n 's/.* \([0-9]*\) samples,.*/\1/p')
    repeated=$(printf '%s\n' "$report" | sed -n 's/.*records (\([0-9]*\) repeated).*/\1/p')
    expect_status 0 "$PROFKIT" info --no-symbols "$shape/big.prof"
    expect_contains "$OUT" "samples                count          total $samples " \
        "$shape: samples read"
    expect_contains "$OUT" "warnings (0)" "$shape: a clean profile"
    # Symbolized from the generated program: its functions are named.
    expect_status 0 "$PROFKIT" report --top 0 --value samples "$shape/big.prof"
    expect_contains "$OUT" " main" "$shape: symbols"
    expect_contains "$OUT" " f0" "$shape: symbols"
    prefixes=$(printf '%s\n' "$report" | sed -n 's/.* \([0-9]*\) distinct stack prefixes.*/\1/p')
    expect_eq "$([ "${prefixes:-0}" -gt 0 ] && echo yes)" yes "$shape: distinct prefixes reported"
    if [ "$shape" != deep ]; then
        expect_eq "$repeated" 0 "$shape: no repeated stacks"
    else
        expect_eq "$([ "${repeated:-0}" -gt 0 ] && echo yes)" yes "deep: repeated stacks"
    fi
done
# The same program and seed give the same profile.
expect_status 0 "$GEN_GPERFTOOLS" --shape wide --functions 60 --size 150K wide again.prof
expect_status 0 cmp wide/big.prof again.prof
expect_status 1 "$GEN_GPERFTOOLS" --shape round wide x.prof
expect_contains "$ERR" "unknown shape" "bad shape"

# ---- wall_split: the command's own status and output, a line of times ----------------------------
expect_status 0 "$WALL_SPLIT" "$PROFKIT" info --no-symbols wide/big.prof
expect_contains "$OUT" "samples                count" "wall_split: the command's output"
expect_contains "$ERR" "; main: CPU " "wall_split: the main thread"
expect_contains "$ERR" "; main blocked " "wall_split: the main thread's blocked time"
expect_status 3 "$WALL_SPLIT" sh -c 'exit 3'
expect_status 137 "$WALL_SPLIT" sh -c 'kill -KILL $$'
expect_status 127 "$WALL_SPLIT" ./no-such-command
expect_status 2 "$WALL_SPLIT"
expect_contains "$ERR" "usage" "wall_split without a command"

# ---- json_parsers: every parser the build has sees the same values -----------------------------
# A document of every kind of value, escapes and nesting; no exponents (laxjson refuses them).
printf '%s\n' '{"traceEvents":[{"name":"a\"b\u00e9","ts":-12.5,"args":{}},' \
    '{"ph":"X","dur":3,"ok":true,"no":false,"id":null,"stack":[[1,2],[],[{"x":"y"}]]}],' \
    '"metadata":{"source":"test"}} ' > doc.json
expect_status 0 "$JSON_PARSERS"
parsers=$(printf '%s\n' "$OUT" | awk '{ print $1 }')
expect_contains " $(echo $parsers) " " yajl " "json_parsers: yajl is always built"
counts="objects=6 arrays=5 keys=13 strings=4 numbers=4 literals=3"
head -c 100 doc.json > cut.json
for parser in $parsers; do
    expect_status 0 "$JSON_PARSERS" "$parser" doc.json
    expect_contains "$OUT" "$counts" "json_parsers $parser: the values of the document"
    expect_contains "$OUT" "parser=$parser bytes=$(wc -c < doc.json) " "json_parsers $parser: bytes"
    expect_status 1 "$JSON_PARSERS" "$parser" cut.json
    expect_contains "$ERR" "json_parsers: $parser: cut.json: " "json_parsers $parser: a cut document"
done
expect_status 2 "$JSON_PARSERS" no-such-parser doc.json
expect_status 2 "$JSON_PARSERS" ../yajl doc.json

finish
