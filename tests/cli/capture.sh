# SPDX-License-Identifier: MIT
# profkit capture against the simulated device of tests/tools/roku_device.py: a stream that
# arrives slowly and ends at channel exit, one dropped inside an entry, one ended with Ctrl-C
# (SIGINT) and one with SIGTERM, the developer web server's download with the right password, a
# wrong one and no data, conversions with --keep-raw, usage errors; and --source naming
# anonymous functions from a directory and a zip (CRLF files, a component with an inline script)
# on info, convert, report, diff and merge.
. "$(dirname "$0")/lib.sh"

require_tool python3 "Debian package python3"
DEVICE="$SRC/tests/tools/roku_device.py"
EXAMPLE=$SRC/examples/roku-channel.bsprof
cp "$EXAMPLE" channel.bsprof
SIZE=$(wc -c < channel.bsprof)
mkdir -p tmp
export TMPDIR=$SCRATCH/tmp

DEVICE_PID=
# start_device MODE DATA [ARGS...]: the device in the background; its address in $HOST.
start_device() {
    rm -f port
    python3 "$DEVICE" "$@" --port-file port &
    DEVICE_PID=$!
    while [ ! -s port ]; do
        kill -0 "$DEVICE_PID" 2>/dev/null || { fail "the simulated device did not start"; finish; }
        sleep 0.05
    done
    HOST=127.0.0.1:$(cat port)
}
stop_device() {
    [ -n "$DEVICE_PID" ] && kill "$DEVICE_PID" 2>/dev/null && wait "$DEVICE_PID" 2>/dev/null
    DEVICE_PID=
}
trap stop_device EXIT

# The byte offset of the damage the reader reports for FILE ("byte N: ...").
damage_offset() {
    "$PROFKIT" info "$1" 2>&1 >/dev/null | sed -n 's/.*: byte \([0-9]*\): .*/\1/p' | head -1
}

# ---- the stream: complete ---------------------------------------------------------------------
start_device network channel.bsprof --chunk 4096 --delay 0.01
expect_status 0 "$PROFKIT" capture "$HOST" -o stream.bsprof
expect_file stream.bsprof
CHECKS=$((CHECKS + 1))
cmp -s stream.bsprof channel.bsprof || fail "the capture differs from what the device sent"
expect_contains "$ERR" "complete capture: $SIZE bytes" "complete capture message"
expect_contains "$ERR" "receiving data" "the start of the data is told"
expect_status 0 "$PROFKIT" info stream.bsprof
expect_contains "$OUT" "Streamline TV" "info of the capture"
expect_contains "$OUT" "warnings (0)" "info of the capture"

# Converted: the raw capture kept beside it when asked, and nothing left in TMPDIR.
expect_status 0 "$PROFKIT" capture "$HOST" -o stream.json --keep-raw raw.bsprof
CHECKS=$((CHECKS + 1))
cmp -s raw.bsprof channel.bsprof || fail "--keep-raw differs from what the device sent"
CHECKS=$((CHECKS + 1))
python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); assert d["meta"]["product"] == "Streamline TV"' \
    stream.json || fail "the converted capture is not the Firefox profile of the channel"
expect_status 0 "$PROFKIT" capture "$HOST" -o stream.folded --quiet
expect_eq "$ERR" "" "--quiet says nothing"
"$PROFKIT" convert channel.bsprof --to folded > direct.folded
CHECKS=$((CHECKS + 1))
cmp -s stream.folded direct.folded || fail "capture -o x.folded differs from converting the file"
expect_eq "$(ls tmp)" "" "no temporary left in TMPDIR"
# gzip on the way, as the name asks.
expect_status 0 "$PROFKIT" capture "$HOST" -o stream.bsprof.gz
CHECKS=$((CHECKS + 1))
gzip -dc stream.bsprof.gz | cmp -s - channel.bsprof || fail "stream.bsprof.gz"
stop_device

# ---- the stream dropped inside an entry: every byte kept, where the last entry ends ----------
start_device network channel.bsprof --chunk 4096 --drop-at 50003
expect_status 1 "$PROFKIT" capture "$HOST" -o dropped.bsprof
expect_file dropped.bsprof
expect_eq "$(wc -c < dropped.bsprof)" 50003 "bytes kept"
CHECKS=$((CHECKS + 1))
head -c 50003 channel.bsprof | cmp -s - dropped.bsprof || fail "the kept bytes differ"
WHERE=$(damage_offset dropped.bsprof)
expect_contains "$ERR" "capture cut short" "drop message"
expect_contains "$ERR" "dropped.bsprof holds all 50003 bytes received" "drop message"
expect_contains "$ERR" "the last complete entry ends at byte $WHERE " "drop message"
expect_contains "$ERR" "--salvage" "drop message"
expect_status 0 "$PROFKIT" info --salvage dropped.bsprof
expect_contains "$OUT" "damaged at byte $WHERE" "--salvage reads it"
# Converting: the raw capture is kept in TMPDIR, named in the message; no output.
expect_status 1 "$PROFKIT" capture "$HOST" -o dropped.json
expect_no_file dropped.json
KEPT=$(ls tmp/*.bsprof 2>/dev/null | head -1)
expect_contains "$ERR" "$KEPT holds all 50003 bytes received" "the raw capture is named"
CHECKS=$((CHECKS + 1))
[ -n "$KEPT" ] && cmp -s "$KEPT" dropped.bsprof || fail "the temporary raw capture was not kept"
rm -f tmp/*
stop_device

# ---- Ctrl-C and SIGTERM: the capture ends, keeping what arrived ---------------------------------
# The device sends 30001 bytes and then nothing. The command runs on a terminal, so that its
# progress line says when all of them are in; then the signal.
cat > interrupt.py <<'EOF'
import os, pty, select, signal, subprocess, sys
sig, want, err_file = getattr(signal, sys.argv[1]), sys.argv[2].encode(), sys.argv[3]
master, slave = pty.openpty()
child = subprocess.Popen(sys.argv[4:], stdout=subprocess.DEVNULL, stderr=slave)
os.close(slave)
seen, sent = b"", False
while True:
    ready, _, _ = select.select([master], [], [], 600)
    if not ready:
        break
    try:
        chunk = os.read(master, 4096)
    except OSError:
        break
    if not chunk:
        break
    seen += chunk
    if not sent and b"(" + want + b" bytes)" in seen:
        child.send_signal(sig)
        sent = True
open(err_file, "wb").write(seen)
sys.exit(child.wait())
EOF
start_device network channel.bsprof --chunk 1000 --delay 0.005 --stall-at 30001
for sig in SIGINT SIGTERM; do
    rm -f interrupted.bsprof
    expect_status 1 python3 interrupt.py "$sig" 30001 interrupt.err "$PROFKIT" capture "$HOST" -o interrupted.bsprof
    ERR=$(tr '\r' '\n' < interrupt.err)
    expect_contains "$ERR" "received 29.3 KiB (30001 bytes)" "$sig: the progress line"
    expect_contains "$ERR" " entries, " "$sig: the progress line counts entries"
    expect_contains "$ERR" "capture interrupted" "$sig message"
    expect_contains "$ERR" "interrupted.bsprof holds all 30001 bytes received" "$sig message"
    expect_file interrupted.bsprof
    CHECKS=$((CHECKS + 1))
    head -c 30001 channel.bsprof | cmp -s - interrupted.bsprof || fail "$sig: the kept bytes differ"
    WHERE=$(damage_offset interrupted.bsprof)
    expect_contains "$ERR" "the last complete entry ends at byte $WHERE " "$sig message"
    expect_status 0 "$PROFKIT" convert --salvage interrupted.bsprof --to folded
done
stop_device

# ---- the download: digest authentication, a wrong password, no data ----------------------------
start_device local channel.bsprof --password 's3cret pw' --log download.log
expect_status 0 "$PROFKIT" capture "$HOST" --download --password 's3cret pw' -o downloaded.bsprof
CHECKS=$((CHECKS + 1))
cmp -s downloaded.bsprof channel.bsprof || fail "the download differs"
expect_contains "$(cat download.log)" "POST /plugin_inspect auth=yes field=dloadProf" "the form"
expect_contains "$(cat download.log)" "GET /pkgs/channel.bsprof auth=yes" "the download"
ROKU_DEV_PASSWORD='s3cret pw' expect_status 0 "$PROFKIT" capture "$HOST" --download -o env.bsprof
CHECKS=$((CHECKS + 1))
cmp -s env.bsprof channel.bsprof || fail "the download with ROKU_DEV_PASSWORD differs"
expect_status 1 "$PROFKIT" capture "$HOST" --download --password wrong -o refused.bsprof
expect_contains "$ERR" "refused the password" "wrong password"
expect_no_file refused.bsprof
expect_status 1 "$PROFKIT" capture "$HOST" --download --password wrong -o refused.json
expect_no_file refused.json
expect_eq "$(ls tmp)" "" "no temporary left after a refused password"
stop_device
start_device local channel.bsprof --password pw --no-data
expect_status 1 "$PROFKIT" capture "$HOST" --download --password pw -o nodata.bsprof
expect_contains "$ERR" "No profiling data available" "no data"
expect_no_file nodata.bsprof
stop_device

# ---- usage -------------------------------------------------------------------------------------
expect_status 0 "$PROFKIT" capture --help
for option in --download --password --keep-raw --source --connect-timeout bsprof_data_dest; do
    expect_contains "$OUT" "$option" "capture --help"
done
expect_status 0 "$PROFKIT" --help
expect_contains "$OUT" "capture" "the command list"
expect_status 2 "$PROFKIT" capture 127.0.0.1
expect_contains "$ERR" "give -o OUTPUT" "no output"
expect_status 2 "$PROFKIT" capture -o x.bsprof
expect_status 2 "$PROFKIT" capture 127.0.0.1 -o x.bsprof --keep-raw y.bsprof
expect_status 2 "$PROFKIT" capture 127.0.0.1 -o x.bsprof --password pw
env -u ROKU_DEV_PASSWORD "$PROFKIT" capture 127.0.0.1 --download -o x.bsprof 2>.err
expect_eq "$?" 2 "--download without a password"
expect_contains "$(cat .err)" "ROKU_DEV_PASSWORD" "--download without a password"
expect_status 2 "$PROFKIT" capture http://127.0.0.1 -o x.bsprof
expect_contains "$ERR" "without a scheme" "a URL for a host"
expect_status 2 "$PROFKIT" capture 127.0.0.1:99999 -o x.bsprof
expect_status 2 "$PROFKIT" capture 127.0.0.1 -o x.bsprof --connect-timeout soon
expect_status 1 "$PROFKIT" capture 127.0.0.1 -o x.json --source no-such-dir
expect_contains "$ERR" "no-such-dir" "a missing --source is found before the capture"
expect_no_file x.bsprof
expect_no_file x.json
# Nobody listening.
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
expect_status 1 "$PROFKIT" capture "127.0.0.1:$PORT" -o nobody.bsprof
expect_contains "$ERR" "127.0.0.1:$PORT" "the address in the message"
expect_contains "$ERR" "bsprof_data_dest=network" "the set-up hint"
expect_no_file nobody.bsprof

# ---- --source: anonymous functions named from the channel's source ------------------------------
# A channel with Main calling three anonymous functions: one in a .brs file with CRLF line ends,
# one in a component's inline script, and one whose line names nothing.
python3 - anon.bsprof <<'EOF'
import struct, sys
def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7f
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)
def cstr(s):
    return s.encode() + b"\0"
fields = (struct.pack("<ff", 1.0, 1.0) + varint(0) + varint(0) + varint(1731400000000) +
          cstr("Anon Channel") + cstr("") + cstr("1.0") + cstr("Roku") + cstr("4802X") + cstr("12.5"))
start = b"bsprof\0\0" + varint(1) + varint(0) + varint(0)
size = len(start) + 1 + len(fields)
header = start + varint(size) + fields
assert len(header) == size
body = bytearray()
strings = ["main", "pkg:/source/main.brs", "Main", "pkg:/components/Home.brs", "$anon_a1",
           "pkg:/components/Home.xml", "$anon_b2", "pkg:/source/util.brs", "$anon_c3"]
for i, s in enumerate(strings, 1):
    body += varint(i << 3 | 0) + cstr(s)
body += varint(1 << 3 | 1) + varint(1)                                       # module 1 "main"
body += varint(10 << 3 | 2) + varint(0) + varint(1) + varint(2) + varint(1) + varint(3)  # Main
for pid, file, line, fn in [(11, 4, 3, 5), (12, 6, 7, 7), (13, 8, 2, 9)]:
    body += varint(pid << 3 | 2) + varint(10) + varint(file) + varint(line) + varint(fn)
for pid, cpu in [(10, 5), (11, 100), (12, 200), (13, 300)]:
    body += varint(pid << 3 | 4) + varint(cpu) + varint(cpu // 10)
    body += varint(pid << 3 | 5) + varint(1)
body += varint(0) + varint(1731400001000)
open(sys.argv[1], "wb").write(header + body)
EOF
mkdir -p src/source src/components
printf 'sub Main()\r\n  Home()\r\nend sub\r\n' > src/source/main.brs
printf "' Home\r\nsub init()\r\n  m.onItemSelected = function(index as integer)\r\n  end function\r\nend sub\r\n" > src/components/Home.brs
printf '<?xml version="1.0" encoding="utf-8" ?>\r\n<component name="Home" extends="Scene">\r\n  <script type="text/brightscript" uri="pkg:/components/Home.brs" />\r\n  <script type="text/brightscript"><![CDATA[\r\n    sub play()\r\n      handlers = {\r\n        onPlay: function()\r\n        end function\r\n      }\r\n    end sub\r\n  ]]></script>\r\n</component>\r\n' > src/components/Home.xml
printf 'sub util()\n  print 1\nend sub\n' > src/source/util.brs
printf 'title=Anon Channel\nbsprof_enable=1\n' > src/manifest
(cd src && python3 -c 'import sys, zipfile
with zipfile.ZipFile("../channel.zip", "w", zipfile.ZIP_DEFLATED) as z:
    for name in ["manifest", "source/main.brs", "source/util.brs", "components/Home.brs", "components/Home.xml"]:
        z.write(name)')

expect_status 0 "$PROFKIT" info anon.bsprof
expect_not_contains "$OUT" "anonymous-functions" "info without --source"
for source in src channel.zip; do
    expect_status 0 "$PROFKIT" info anon.bsprof --source "$source"
    expect_contains "$OUT" "anonymous-functions      2 named from $source, 1 not named" "info --source $source"
    expect_contains "$OUT" "\$anon_c3 not named from the source: line 2 of pkg:/source/util.brs" "info --source $source: why"
    expect_status 0 "$PROFKIT" convert anon.bsprof --to folded --source "$source"
    expect_contains "$OUT" "Main;onItemSelected 100" "convert --source $source"
    expect_contains "$OUT" "Main;onPlay 200" "convert --source $source"
    expect_contains "$OUT" "Main;\$anon_c3 300" "convert --source $source"
    expect_contains "$ERR" "anon.bsprof: anonymous functions: 2 named from $source, 1 not named" "convert says the counts"
    expect_status 0 "$PROFKIT" convert anon.bsprof --to folded --source "$source" --quiet
    expect_eq "$ERR" "" "--quiet"
done
expect_status 0 "$PROFKIT" info --json anon.bsprof --source src
CHECKS=$((CHECKS + 1))
printf '%s\n' "$OUT" | python3 -c 'import json, sys
info = json.load(sys.stdin)
assert info["metadata"]["properties"]["anonymous-functions"] == "2 named from src, 1 not named"
assert len(info["warnings"]) == 1 and "$anon_c3" in info["warnings"][0]' || fail "info --json --source"
expect_status 0 "$PROFKIT" report anon.bsprof --source src
expect_contains "$OUT" "onPlay" "report --source"
expect_contains "$OUT" "onItemSelected" "report --source"
expect_status 0 "$PROFKIT" diff anon.bsprof anon.bsprof --source channel.zip
expect_contains "$OUT" "onPlay" "diff --source"
expect_status 0 "$PROFKIT" merge anon.bsprof anon.bsprof --source src -o merged.folded
expect_contains "$(cat merged.folded)" "Main;onItemSelected 200" "merge --source"
expect_status 2 "$PROFKIT" dump anon.bsprof --source src
expect_status 1 "$PROFKIT" info anon.bsprof --source no-such-dir
echo "not a zip" > notzip.txt
expect_status 1 "$PROFKIT" info anon.bsprof --source notzip.txt
expect_contains "$ERR" "not a channel source" "--source of a plain file"

# A converted capture named from the source.
start_device network anon.bsprof
expect_status 0 "$PROFKIT" capture "$HOST" -o named.folded --source channel.zip
expect_contains "$(cat named.folded)" "Main;onPlay 200" "capture --source"
expect_status 2 "$PROFKIT" capture "$HOST" -o named.bsprof --source channel.zip
stop_device

finish
