# SPDX-License-Identifier: MIT
# Binaries and sources from debuginfod servers: a program recorded by perf whose binary and
# source are no longer on the machine is named through the servers DEBUGINFOD_URLS names, and
# only then, through elfutils' libdebuginfod as client: Debian's debuginfod indexing a folder
# that holds the binary, started and stopped here on a loopback port. `profkit view` serves the
# program's source file to the Firefox Profiler's /source/v1 from a second server,
# tests/tools/debuginfod_server.py: debuginfod serves a source file only from the path the
# DWARF names on its own machine, where profkit would read it without asking.
. "$(dirname "$0")/lib.sh"

require_tool perf "Debian package linux-perf; scripts/setup.sh installs it"
require_tool readelf "Debian package binutils"
require_tool debuginfod "Debian package debuginfod; scripts/setup.sh installs it"
require_tool curl "Debian package curl"
CC=${CC:-cc}
command -v "$CC" > /dev/null 2>&1 || skip "no C compiler"

mkdir -p build
cat > build/prog.c <<'C'
#include <stdio.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void spin_in_served_code(void)
{
    for (unsigned long i = 0; i < 300000000UL; i++)
        sink += i;
}
int main(void)
{
    spin_in_served_code();
    printf("%lu\n", sink);
    return 0;
}
C
"$CC" -O0 -g -fno-omit-frame-pointer build/prog.c -o build/prog || fail "cc prog.c"
# Not in perf's build-id cache either: the binary is gone once the recording is made.
perf record -q --no-buildid-cache -e cpu-clock -g -o rec.data ./build/prog > /dev/null 2>&1 ||
    skip "perf record cannot record here"
id=$(readelf -n build/prog | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
[ -n "$id" ] || fail "the program has no build id"
mkdir -p elf "sources/$id/source$SCRATCH/build"
cp build/prog elf/prog
cp build/prog.c "sources/$id/source$SCRATCH/build/prog.c"
rm -rf build
export HOME="$SCRATCH/home" # no ~/.debug of the user's
mkdir -p "$HOME"

# No server named: the program's frames stay unnamed.
expect_status 0 "$PROFKIT" convert rec.data --to folded -o none.folded
expect_not_contains "$(cat none.folded)" "spin_in_served_code" "without a server"

SERVERS=
stop_servers() {
    for pid in $SERVERS; do
        kill "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
}
trap stop_servers EXIT
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
debuginfod -F -p "$port" -d "$SCRATCH/debuginfod.sqlite" -t 0 -g 0 "$SCRATCH/elf" \
    > debuginfod.log 2>&1 &
SERVERS="$SERVERS $!"
python3 "$SRC/tests/tools/debuginfod_server.py" sources port requests.log &
SERVERS="$SERVERS $!"
# debuginfod answers once it has indexed the folder.
for _ in $(seq 1 300); do
    curl -sf -o /dev/null "http://127.0.0.1:$port/buildid/$id/executable" && [ -s port ] && break
    sleep 0.1
done
curl -sf -o /dev/null "http://127.0.0.1:$port/buildid/$id/executable" ||
    { fail "debuginfod did not index the program"; sed 's/^/  debuginfod: /' debuginfod.log | tail -5 >&2; }
export DEBUGINFOD_URLS="http://127.0.0.1:$port http://127.0.0.1:$(cat port)"
export DEBUGINFOD_CACHE_PATH="$SCRATCH/cache"

expect_status 0 "$PROFKIT" convert rec.data --to folded -o served.folded
expect_contains "$(cat served.folded)" ";main;spin_in_served_code " "named through the server"
expect_contains "$(ls "$SCRATCH/cache/$id" 2>&1)" "executable" "the executable in libdebuginfod's cache"

# The source view: /source/v1 of the file DWARF names, which only the server has, for the
# library the Firefox output names (as the app asks, by its debug name and id).
expect_status 0 "$PROFKIT" convert rec.data -o served.json
lib=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join([l["debugName"] + " " + l["breakpadId"] for l in d["libs"] if l["debugName"] == "prog"][0:1]))' served.json)
[ -n "$lib" ] || fail "the Firefox output names no library prog"
. "$(dirname "$0")/view_server.sh"
if start_view rec.data; then
    body=$(printf '{"debugName":"%s","debugId":"%s","moduleOffset":"0x0","file":"%s"}' \
        "${lib%% *}" "${lib#* }" "$SCRATCH/build/prog.c")
    CHECKS=$((CHECKS + 1))
    status=$(curl -s -o source.out -w '%{http_code}' -X POST --data "$body" "$API/source/v1")
    expect_eq "$status" 200 "/source/v1 of a file only the server has"
    expect_contains "$(cat source.out)" "spin_in_served_code" "the source served from the server"
    expect_contains "$(cat requests.log)" "/buildid/$id/source$SCRATCH/build/prog.c" \
        "the source was asked for"
    stop_view
fi
finish
