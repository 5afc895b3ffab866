# SPDX-License-Identifier: MIT
# Loads profkit's Firefox Profiler output for .bsprof files with the profiler's own loading code
# (@firefox-devtools/profiler-cli, run by Node 24 from tools/node_modules): a file made by hand
# from the specification (threads, metadata, cpu and wall weights, the heaviest functions, the
# native allocation views) and the bundled example channel (every thread's cpu total, the range
# of the whole run, the one memory track of the channel's live bytes).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/profiler_cli.sh"

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
    expect_contains "$OUT" "Sample times: placed"
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
    # One memory track for the channel, on main: 64, 192, 224, 160 and 128 bytes live after
    # the five events (the last two free main's memory, one on the Task).
    query counter list --json
    expect_eq "$(json_get '[(c["label"], c["mainThreadName"], c["rangeSampleCount"], c["stats"][0]["value"], c["graph"][-1]) for c in d["counters"]]')" \
        "[('Memory', 'main', 6, 224, 128)]" "bsprof memory track"

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
        # The profiler labels a process's track by its main thread's name ("main") and by the
        # process's name only when it has no main thread: the channel's process has none, and
        # its name is the channel's title.
        expect_eq "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(sorted({(t["processName"], t["isMainThread"]) for t in d["threads"]}))' "$SCRATCH/channel.json")" \
            "[('Streamline TV', False)]" "the channel's process track named by the channel"
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
        # The timeline spans the whole run.
        query profile info --json
        expect_eq "$(json_get 'float(d["context"]["rootRange"]["end"] - d["context"]["rootRange"]["start"])')" \
            "$(printf '%s' "$INFO" | python3 -c '
import json, sys
print(round(json.load(sys.stdin)["metadata"]["duration_seconds"] * 1000, 6))')" "example range is the run"
        # The channel is one process, with one memory track: the live bytes of all its
        # threads, on its main thread; the loader keeps all its samples; it ends at what the
        # reader counts as live, and the graph's range is the peak of the running sum.
        expect_eq "$(json_get '[(p["name"], [c["label"] for c in p.get("counters") or []]) for p in d["processes"]]')" \
            "[('Streamline TV', ['Memory'])]" "example's process and its memory track"
        query counter list --json
        want=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
want = []
for c in d["counters"]:
    live = peak = 0
    for x in c["samples"]["count"]:
        live += x
        peak = max(peak, live)
    want.append(("Memory", "Live memory", "main", "line-accumulated", "bytes", c["samples"]["length"], peak))
print(want)' \
            "$SCRATCH/channel.json")
        expect_eq "$(json_get '[(c["label"], c["name"], c["mainThreadName"], c["graphType"], c["unit"], c["rangeSampleCount"], c["stats"][0]["value"]) for c in d["counters"]]')" \
            "$want" "example memory track"
        expect_eq "$(json_get '[c["graph"][-1] for c in d["counters"]]')" \
            "[$(printf '%s' "$INFO" | python3 -c '
import json, sys
print([v["total"] for v in json.load(sys.stdin)["values"] if v["name"] == "inuse_space"][0])')]" \
            "example live bytes at the end"
    fi
else
    echo "note: no .bsprof reader in this build; its checks were not run"
fi

finish
