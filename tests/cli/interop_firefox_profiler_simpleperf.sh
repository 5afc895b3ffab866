#!/bin/bash
# SPDX-License-Identifier: MIT
# The simpleperf fixture (tests/data/simpleperf/app.simpleperf) loaded by the Firefox Profiler's
# own simpleperf importer (@firefox-devtools/profiler-cli) and, converted by profkit, by its
# loader: the same threads, and per thread the same functions by name with the same self and
# total counts (every sample weighs 1 ms of cpu-clock, so samples and milliseconds agree).
# Two differences are the importer's and are checked as such: it names a symbol whose demangled
# name is empty by that empty name (profkit by the mangled one), and it takes a table index of 0
# for a missing one, so the first function it meets (__libc_init) is split in two.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/profiler_cli.sh"

REP="$SRC/tests/data/simpleperf/app.simpleperf"
expect_status 0 "$PROFKIT" convert "$REP" -o app.json --to firefox --quiet

# "threads" then, per thread, its functions: "name self total" sorted, the library left out.
summary() {
    load "$1"
    query profile info --json
    json_get '[t["name"] for p in d["processes"] for t in p["threads"]]'
    for t in t-0 t-1; do
        query thread samples --json --thread "$t"
        json_get 'sorted((f["name"].split("!")[-1], f["selfSamples"], f["totalSamples"]) for f in d["topFunctionsByTotal"])'
    done
}

theirs=$(summary "$REP")
ours=$(summary app.json)
expect_contains "$theirs" "('', 1, 1)" "the importer names an empty symbol by its empty name"
expect_contains "$ours" "('_Z5emptyv', 1, 1)" "profkit by the mangled name"
expect_contains "$theirs" "('__libc_init', 0, 1), ('__libc_init', 0, 6)" "the importer's split root"
expect_contains "$ours" "('__libc_init', 0, 7)" "profkit's one root"
normalise() {
    sed -e "s/('', 1, 1), //; s/('_Z5emptyv', 1, 1), //" \
        -e "s/('__libc_init', 0, 1), ('__libc_init', 0, 6)/('__libc_init', 0, 7)/"
}
expect_eq "$(printf '%s\n' "$ours" | normalise)" "$(printf '%s\n' "$theirs" | normalise)" \
    "threads and functions as the Firefox Profiler's importer gives them"
finish
