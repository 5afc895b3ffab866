# Loads profkit's Firefox Profiler output with the profiler's own loading code
# (@firefox-devtools/profiler-cli, run by Node 24 from tools/node_modules) and checks thread
# names, total weights, the heaviest functions and the native allocation views.
# Run as: interop_firefox_profiler.sh PROFKIT SOURCE_DIR SCRATCH_DIR FIXTURE_WRITER
# FIXTURE_WRITER is test_firefox, which writes its model-built profiles with --write-fixtures.
. "$(dirname "$0")/lib.sh"
FIXTURE_WRITER=$4

. "$(dirname "$0")/profiler_cli.sh"

# ---- profiles built through the model API ---------------------------------------------------------
expect_status 0 "$FIXTURE_WRITER" --write-fixtures "$SCRATCH"

load "$SCRATCH/script.json"
query profile info --json
expect_eq "$(json_get '[t["name"] for p in d["processes"] for t in p["threads"]]')" \
    "['main', 'TaskNode']" "thread names"
query thread samples --json --thread t-0
expect_eq "$(json_get 'd["weightType"]')" "samples" "weight type"
expect_eq "$(json_get 'd["categoryBreakdown"]["totalSamples"]')" "227" "main total cpu"
expect_eq "$(json_get 'd["categoryBreakdown"]["categories"][0]["name"]')" "BrightScript" "category"
expect_eq "$(json_get '[(f["name"], f["totalSamples"]) for f in d["topFunctionsByTotal"]]')" \
    "[('main', 227), ('parse', 107), ('token', 7)]" "functions by total"
expect_eq "$(json_get '[(f["name"], f["selfSamples"]) for f in d["topFunctionsBySelf"]]')" \
    "[('main', 120), ('parse', 100), ('token', 7)]" "functions by self"
query thread samples --json --thread t-1
expect_eq "$(json_get 'd["categoryBreakdown"]["totalSamples"]')" "30" "task total cpu"
query profile meta
expect_contains "$OUT" "Imported from: bsprof"
expect_contains "$OUT" "Sample times: approximate"
expect_contains "$OUT" "Duration: 2s"
query thread samples --json --thread t-0 --strategy native-allocations
expect_eq "$(json_get 'd["weightType"]')" "bytes" "allocation weight type"
expect_eq "$(json_get 'd["categoryBreakdown"]["totalSamples"]')" "396" "bytes allocated on main"
query thread samples --json --thread t-0 --strategy native-retained-allocations
expect_eq "$(json_get '[(f["name"], f["selfSamples"]) for f in d["topFunctionsBySelf"] if f["selfSamples"]]')" \
    "[('render', 200)]" "retained bytes on main"
query thread samples --json --thread t-0 --strategy native-deallocations-memory
expect_eq "$(json_get 'd["categoryBreakdown"]["totalSamples"]')" "196" "bytes freed on main"
query thread samples --json --thread t-0 --strategy native-deallocations-sites
expect_contains "$OUT" '"name": "run"' "free sites of main's memory"
query thread samples --json --thread t-1 --strategy native-retained-allocations
expect_eq "$(json_get 'd["categoryBreakdown"]["totalSamples"]')" "8" "retained bytes on the task"

load "$SCRATCH/script-wall.json"
query thread samples --json --thread t-0
expect_eq "$(json_get 'd["weightType"]')" "tracing-ms" "wall weight type"
expect_eq "$(json_get 'd["categoryBreakdown"]["totalSamples"]')" "5.75" "main wall ms"
query thread samples-top-down --thread t-0
expect_contains "$OUT" "main"

load "$SCRATCH/native.json"
query thread samples --json
expect_eq "$(json_get '[(f["nameWithLibrary"], f["totalSamples"]) for f in d["topFunctionsByTotal"]]')" \
    "[('main', 30), ('libdemo.so!read_block', 30)]" "native functions"
expect_eq "$(json_get 'd["categoryBreakdown"]["categories"][0]["name"]')" "Native" "native category"

load "$SCRATCH/empty.json"
query thread list

# ---- folded stacks in, through the command --------------------------------------------------------
if "$PROFKIT" formats 2>/dev/null | grep -q '^folded .*read'; then
    printf 'main;parse;token 7\nmain;parse 100\nmain 120\nidle 3\n' >"$SCRATCH/stacks.folded"
    expect_status 0 "$PROFKIT" convert "$SCRATCH/stacks.folded" -o "$SCRATCH/stacks.json" --quiet
    load "$SCRATCH/stacks.json"
    query thread samples --json
    expect_eq "$(json_get 'd["categoryBreakdown"]["totalSamples"]')" "230" "folded total"
    expect_eq "$(json_get '[(f["name"], f["selfSamples"]) for f in d["topFunctionsBySelf"]]')" \
        "[('main', 120), ('parse', 100), ('token', 7), ('idle', 3)]" "folded heaviest functions"
fi

# ---- .bsprof in, through the command, when the .bsprof reader is registered ------------------------
# A hand-made file, byte by byte from the specification: modules main and Task; Main -> Work on
# main, RunTask -> Helper on Task; line data and memory operations on; the Task frees 32 bytes
# that main allocated; 128 bytes of the Task stay allocated.
write_hand_bsprof() {
    python3 - "$1" <<'PY'
import struct, sys

def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append(v & 0x7F | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)

def tag(payload, kind):
    return varint(payload << 3 | kind)

fields = varint(1) + varint(0) + varint(0)
rest = (struct.pack('<ff', 1.0, 1.0) + varint(1) + varint(1) + varint(1700000000000)
        + b'Hand Channel\0' + b'\0' + b'1.0.0\0' + b'Roku\0' + b'4800X\0' + b'12.0\0')
size = 8 + len(fields) + 2 + len(rest) + 4          # 4 bytes of padding
header = b'bsprof\0\0' + fields + varint(size) + rest
header += b'\0' * (size - len(header))
body = bytearray()
for sid, text in enumerate(['main', 'pkg:/source/main.brs', 'Main', 'Work', 'Task',
                            'pkg:/components/Task.brs', 'RunTask', 'Helper'], 1):
    body += tag(sid, 0) + text.encode() + b'\0'
body += tag(1, 1) + varint(1) + tag(2, 1) + varint(5)              # modules
body += tag(1, 2) + varint(0) + varint(1) + varint(2) + varint(1) + varint(3)    # Main, root
body += tag(2, 2) + varint(1) + varint(5) + varint(2) + varint(20) + varint(4)   # Work
body += tag(3, 2) + varint(0) + varint(2) + varint(6) + varint(3) + varint(7)    # RunTask, root
body += tag(4, 2) + varint(3) + varint(2) + varint(6) + varint(30) + varint(8)   # Helper
def cpu(path, offset, cpu_self, wall_self):
    return tag(path, 4) + varint(offset) + varint(cpu_self) + varint(wall_self)
def mem(path, op, offset, address, size=None):
    return (varint(path << 5 | op << 3 | 3) + varint(offset) + varint(address)
            + (varint(size) if size is not None else b''))
body += cpu(1, 1, 100, 1000) + cpu(2, 3, 300, 2000) + cpu(3, 1, 50, 100)
body += cpu(2, 3, 200, 500) + cpu(4, 1, 150, 300)
body += tag(1, 5) + varint(1) + tag(2, 5) + varint(4) + tag(3, 5) + varint(1) + tag(4, 5) + varint(2)
body += mem(2, 0, 1, 0x1000, 64) + mem(4, 0, 1, 0x2000, 128) + mem(2, 0, 2, 0x3000, 32)
body += mem(1, 1, 1, 0x1000) + mem(3, 1, 1, 0x3000)
body += varint(0) + varint(1700000005000)                          # end marker, footer
open(sys.argv[1], 'wb').write(header + bytes(body))
PY
}

if "$PROFKIT" formats 2>/dev/null | grep -q '^bsprof '; then
    write_hand_bsprof "$SCRATCH/hand.bsprof"
    expect_status 0 "$PROFKIT" convert "$SCRATCH/hand.bsprof" -o "$SCRATCH/hand.json" --quiet
    load "$SCRATCH/hand.json"
    query profile info --json
    expect_eq "$(json_get '[t["name"] for p in d["processes"] for t in p["threads"]]')" \
        "['main', 'Task']" "bsprof thread names"
    query profile meta
    expect_contains "$OUT" "Sample times: approximate"
    expect_contains "$OUT" "Duration: 5s"
    expect_contains "$OUT" "4800X"
    query thread samples --json --thread t-0
    expect_eq "$(json_get 'd["categoryBreakdown"]["totalSamples"]')" "600" "bsprof main cpu"
    expect_eq "$(json_get 'd["categoryBreakdown"]["categories"][0]["name"]')" "BrightScript" \
        "bsprof category"
    expect_eq "$(json_get '[(f["name"], f["selfSamples"]) for f in d["topFunctionsBySelf"]]')" \
        "[('Work', 500), ('Main', 100)]" "bsprof heaviest functions on main"
    query thread samples --json --thread t-1
    expect_eq "$(json_get '[(f["name"], f["selfSamples"]) for f in d["topFunctionsBySelf"]]')" \
        "[('Helper', 150), ('RunTask', 50)]" "bsprof heaviest functions on the task"
    query thread samples --json --thread t-0 --strategy native-allocations
    expect_eq "$(json_get 'd["categoryBreakdown"]["totalSamples"]')" "96" "bsprof bytes allocated on main"
    query thread samples --json --thread t-0 --strategy native-retained-allocations
    expect_eq "$(json_get 'd["categoryBreakdown"]["totalSamples"]')" "0" "bsprof retained on main"
    query thread samples --json --thread t-1 --strategy native-retained-allocations
    expect_eq "$(json_get '[(f["name"], f["selfSamples"]) for f in d["topFunctionsBySelf"] if f["selfSamples"]]')" \
        "[('Helper', 128)]" "bsprof retained on the task"

    expect_status 0 "$PROFKIT" convert "$SCRATCH/hand.bsprof" -o "$SCRATCH/hand-wall.json" \
        --value wall --quiet
    load "$SCRATCH/hand-wall.json"
    query thread samples --json --thread t-0
    expect_eq "$(json_get 'd["categoryBreakdown"]["totalSamples"]')" "3500" "bsprof main wall"

    if [ -f "$SRC/examples/roku-channel.bsprof" ]; then
        expect_status 0 "$PROFKIT" info --json "$SRC/examples/roku-channel.bsprof"
        INFO=$OUT
        expect_status 0 "$PROFKIT" convert "$SRC/examples/roku-channel.bsprof" \
            -o "$SCRATCH/channel.json" --quiet
        load "$SCRATCH/channel.json"
        # Every thread's cpu total in profiler-cli equals the reader's.
        for handle in $(printf '%s' "$INFO" | python3 -c '
import json, sys
for i, _ in enumerate(json.load(sys.stdin)["threads"]): print("t-%d" % i)'); do
            query thread samples --json --thread "$handle"
            got=$(json_get 'd["categoryBreakdown"]["totalSamples"]')
            want=$(printf '%s' "$INFO" | python3 -c '
import json, sys
info = json.load(sys.stdin); i = int(sys.argv[1][2:])
print(info["threads"][i]["totals"]["cpu"])' "$handle" 2>&1)
            expect_eq "$got" "$want" "example cpu of $handle"
        done
    fi
fi

# ---- the harness itself: the reference profiles load -------------------------------------------------
REFERENCE="$SRC/../shared/reference/firefox"
if [ -d "$REFERENCE" ]; then
    for ref in "$REFERENCE"/*.json; do
        load "$ref"
    done
fi

finish
