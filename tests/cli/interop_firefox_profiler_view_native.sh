#!/bin/sh
# SPDX-License-Identifier: MIT
# `profkit view` of a real native profile (a C program built here, linked by lld so that its
# code's file offsets are not its virtual addresses, profiled with gperftools' libprofiler):
# the Firefox Profiler's own code (profiler-cli's `function annotate`) shows a function's
# instructions from /asm/v1, which match `objdump -d`, and its C source lines from /source/v1
# (the file DWARF names); served with --no-symbols, the app names the functions itself through
# /symbolicate/v5.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/profiler_cli.sh"
require_tool curl "curl sends the API's requests"
require_tool objdump "binutils: the instructions are checked against objdump -d"
require_tool readelf "binutils: the program headers"
CC=${PK_TEST_CC:-cc}
require_tool "$CC" "a C compiler builds the profiled program"
[ -e /usr/lib/x86_64-linux-gnu/libprofiler.so ] || ls /usr/lib/*/libprofiler.so >/dev/null 2>&1 ||
    skip "libprofiler (Debian package libgoogle-perftools-dev) profiles the program"
LINKER=
command -v ld.lld >/dev/null 2>&1 && LINKER=-fuse-ld=lld

# The program: the gperftools demo, its source named by an absolute path in DWARF.
cp "$SRC/tests/gperftools/demo.c" hot.c
expect_status 0 "$CC" -O0 -g -fno-omit-frame-pointer $LINKER "$PWD/hot.c" -o hot \
    -Wl,--no-as-needed -lprofiler
CPUPROFILE="$PWD/hot.prof" CPUPROFILE_FREQUENCY=1000 ./hot 2 >/dev/null 2>&1
expect_file hot.prof
# file offset -> virtual address by the program headers (what objdump prints).
readelf -lW hot | awk '$1 == "LOAD" {print $2, $3, $5}' >loads.txt
to_vaddr() {
    python3 -c 'import sys
off = int(sys.argv[1], 0)
for line in open("loads.txt"):
    o, v, size = (int(x, 16) for x in line.split())
    if o <= off < o + size:
        print(hex(off - o + v)); break' "$1"
}
if [ -n "$LINKER" ]; then
    expect_eq "$(awk '{if ($1 != $2) n++} END {print (n > 0)}' loads.txt)" 1 \
        "a segment whose file offset is not its address (lld)"
fi

. "$(dirname "$0")/view_server.sh"
post() {
    local route=$1 body=$2
    CHECKS=$((CHECKS + 1))
    STATUS=$(curl -s -o post.out -w '%{http_code}' -X POST --data "$body" "$API$route")
    OUT=$(cat post.out)
}

# objdump's instructions of FUNCTION: "address mnemonic" lines.
objdump_function() {
    objdump -d -M intel --no-show-raw-insn "--disassemble=$1" hot |
        awk -F'\t' '/^ *[0-9a-f]+:\t/ {sub(/:$/, "", $1); gsub(/ /, "", $1); split($2, m, " "); print "0x" $1, m[1]}'
}

expect_status 0 "$PROFKIT" convert hot.prof --to firefox -o hot.json --quiet
if start_view hot.prof; then
    load "$LINK"
    query thread functions --search multiply --json
    handle=$(json_get '[f["functionHandle"] for f in d["functions"] if f["name"] == "multiply"][0]')

    # The app's assembly view: the instructions of multiply from /asm/v1.
    query function annotate "$handle" --mode asm --json --symbol-server "$API"
    printf '%s' "$OUT" >asm.json
    expect_eq "$(json_get '[c["fetchError"] for c in d["asmAnnotations"]]' 2>&1 | tr -d "'")" "[None]" \
        "the app fetched the instructions" || true
    json_get '"\n".join("%s %s" % (hex(i["address"]), i["decodedString"].split(" ")[0]) for c in d["asmAnnotations"] for i in c["instructions"])' >app.txt
    while read -r offset mnemonic; do
        printf '%s %s\n' "$(to_vaddr "$offset")" "$mnemonic"
    done <app.txt >app_vaddr.txt
    objdump_function multiply >objdump.txt
    expect_eq "$(wc -l <app_vaddr.txt)" "$(wc -l <objdump.txt)" "every instruction of multiply"
    expect_eq "$(cat app_vaddr.txt)" "$(cat objdump.txt)" \
        "the app's instructions and addresses are objdump's"
    expect_eq "$(json_get 'sum(i["selfSamples"] for c in d["asmAnnotations"] for i in c["instructions"]) > 0')" \
        "True" "samples on multiply's instructions"

    # The request the app sends, by hand: from inside the function (a caller's address is
    # inside a call instruction), with its end unknown; then a library the profile lacks.
    first=$(head -1 app.txt | cut -d' ' -f1)
    count=$(wc -l <app.txt)
    lib=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join([(l["debugName"] + " " + l["breakpadId"]) for l in d["libs"] if l["debugName"] == "hot"][0:1]))' hot.json)
    request() {
        printf '{"debugName":"%s","debugId":"%s","name":"hot","codeId":null,"startAddress":"%s","size":"0x4","continueUntilFunctionEnd":%s}' \
            "${lib% *}" "${lib#* }" "$1" "$2"
    }
    post /asm/v1 "$(request "$(printf '0x%x' $((first + 5)))" true)"
    expect_eq "$STATUS" 200 "an /asm/v1 request from inside the function"
    expect_eq "$(printf '%s' "$OUT" | python3 -c 'import json, sys
d = json.load(sys.stdin)
print(d["startAddress"], len(d["instructions"]), d["arch"])')" "$first $count x86_64" \
        "decoded from the function's start to its end"
    post /asm/v1 "$(request "$first" false)"
    expect_eq "$(printf '%s' "$OUT" | python3 -c 'import json, sys
print(len(json.load(sys.stdin)["instructions"]))')" \
        "$(python3 -c 'import sys
print(sum(1 for l in open("app.txt") if int(l.split()[0], 16) < int(sys.argv[1], 16) + 4))' "$first")" \
        "without continueUntilFunctionEnd, the instructions that begin in the range asked"
    post /asm/v1 "$(printf '{"debugName":"hot","debugId":"0123","startAddress":"%s","size":"0x4"}' "$first")"
    expect_eq "$STATUS" 404 "a library the profile does not have"
    post /asm/v1 "$(request 0x7fffffffffff true)"
    expect_eq "$STATUS" 404 "an address outside the library"

    # /symbolicate/v5 as the app asks it (one job per library, [libIndex, address] pairs):
    # multiply named from inside it, with its start and its DWARF file and line.
    third=$(sed -n 3p app.txt | cut -d' ' -f1)
    post /symbolicate/v5 "$(printf '{"jobs":[{"memoryMap":[["%s","%s"],["nope","00"]],"stacks":[[[0,%d],[1,5]]]}]}' \
        "${lib% *}" "${lib#* }" "$((third))")"
    expect_eq "$STATUS" 200 "a /symbolicate/v5 request"
    expect_eq "$(printf '%s' "$OUT" | python3 -c 'import json, sys
r = json.load(sys.stdin)["results"][0]
f, g = r["stacks"][0]
print(f["function"], f["function_offset"], f["file"].endswith("/hot.c"), f["line"] > 0, "function" in g,
      sorted(r["found_modules"].values()))')" \
        "multiply $(printf '0x%x' $((third - first))) True True False [False, True]" \
        "the address named, with its function's start; an unknown library is not found"
    post /symbolicate/v5 '{"jobs":[{"memoryMap":3}]}'
    expect_eq "$STATUS" 400 "a job without its memoryMap and stacks"

    # The app's source view: multiply's lines from hot.c, named by DWARF.
    query function annotate "$handle" --json --context file --symbol-server "$API"
    expect_eq "$(json_get 'd["srcAnnotation"]["filename"]')" "$PWD/hot.c" "the file DWARF names"
    line=$(grep -n 'multiply(' hot.c | head -1 | cut -d: -f1)
    expect_eq "$(json_get '[l["sourceText"] for l in d["srcAnnotation"]["lines"] if l["lineNumber"] == '"$line"']')" \
        "['$(sed -n "${line}p" hot.c)']" "the text of multiply's first line"
    expect_eq "$(json_get 'sum(l["selfSamples"] for l in d["srcAnnotation"]["lines"]) > 0')" "True" \
        "samples on multiply's lines"
    expect_eq "$(json_get 'd["warnings"]')" "[]" "no warnings"
fi

# The app's own symbolication: a profile served with --no-symbols says it is not symbolicated,
# and the app names its native frames through the view's /symbolicate/v5.
if start_view hot.prof --no-symbols; then
    load_symbolicating "$LINK" "$API"
    query thread functions --json
    expect_eq "$(json_get 'sorted(f["name"] for f in d["functions"] if f["name"] in ("multiply", "main"))')" \
        "['main', 'multiply']" "functions named by the app's symbolication, not addresses"
    expect_contains "$(cat "$PROFILER_CLI_SESSION_DIR"/*.log 2>/dev/null)" "Symbolication complete" \
        "the app symbolicated"
fi
stop_view
finish
