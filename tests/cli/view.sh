# SPDX-License-Identifier: MIT
# profkit view: the profile served on 127.0.0.1 the way the Firefox Profiler's page fetches it
# (with an Origin header and the CORS preflight), the same JSON as `profkit convert` writes,
# gzip to clients that take it, the link printed, usage errors, and a clean stop on SIGINT and
# SIGTERM. Waits are for lines the command prints, bounded, never timed.
. "$(dirname "$0")/lib.sh"

CHANNEL="$SRC/examples/roku-channel.bsprof"
BR="$SRC/tests/data/br-profile-sampled-synthetic.bin"
APP=https://profiler.firefox.com

# start_view NAME ARGS...: starts `profkit view` in the background, its output in NAME.out and
# NAME.err; waits (bounded) for the line that gives the link, then sets VIEW_PID, PROFILE_URL
# and OPEN_URL. VIEW_PATH, when set, is the command's PATH (where it looks for xdg-open).
start_view() {
    local name=$1
    shift
    PATH="${VIEW_PATH:-$PATH}" "$PROFKIT" view "$@" >"$name.out" 2>"$name.err" &
    VIEW_PID=$!
    local waited=0
    while ! grep -q '^Open: ' "$name.out" 2>/dev/null; do
        if ! kill -0 "$VIEW_PID" 2>/dev/null || [ "$waited" -ge 1800 ]; then
            fail "profkit view $* did not print its link"
            sed 's/^/  stderr: /' "$name.err" >&2
            kill "$VIEW_PID" 2>/dev/null
            return 1
        fi
        sleep 0.1
        waited=$((waited + 1))
    done
    PROFILE_URL=$(sed -n 's/^Profile: //p' "$name.out")
    OPEN_URL=$(sed -n 's/^Open: *//p' "$name.out")
}

# stop_view SIGNAL: sends the signal and checks that the command exits 0.
stop_view() {
    CHECKS=$((CHECKS + 1))
    kill "-$1" "$VIEW_PID"
    wait "$VIEW_PID"
    local status=$?
    [ "$status" -eq 0 ] || fail "profkit view exited $status after SIG$1"
}

# fetch METHOD URL OUT [HEADER=VALUE...]: an HTTP request as the browser makes it; the status,
# the headers (lower-case names) and the body go to OUT.status, OUT.headers and OUT.
fetch() {
    python3 - "$@" <<'EOF'
import sys, urllib.request, urllib.error
method, url, out = sys.argv[1:4]
request = urllib.request.Request(url, method=method)
for header in sys.argv[4:]:
    name, value = header.split("=", 1)
    request.add_header(name, value)
try:
    response = urllib.request.urlopen(request, timeout=120)
    status, headers, body = response.status, response.headers, response.read()
except urllib.error.HTTPError as e:
    status, headers, body = e.code, e.headers, e.read()
open(out + ".status", "w").write("%d\n" % status)
open(out + ".headers", "w").write("".join("%s: %s\n" % (k.lower(), v) for k, v in headers.items()))
open(out, "wb").write(body)
EOF
}

header() {
    sed -n "s/^$1: //p" "$2.headers" | tr -d '\r'
}

expect_status 0 "$PROFKIT" view --help
expect_contains "$OUT" "--no-open" "help"
expect_contains "$OUT" "--app-url URL" "help"
expect_contains "$OUT" "--port N" "help"
expect_status 0 "$PROFKIT" --help
expect_contains "$OUT" "view" "the command list"

# ---- usage and input errors ------------------------------------------------------------------
expect_status 2 "$PROFKIT" view
expect_status 2 "$PROFKIT" view --port 70000 "$CHANNEL"
expect_contains "$ERR" "--port takes a port number" "port range"
expect_status 2 "$PROFKIT" view --port x "$CHANNEL"
expect_status 2 "$PROFKIT" view --app-url ftp://example.org "$CHANNEL"
expect_contains "$ERR" "--app-url takes an http:// or https:// URL" "app url"
expect_status 2 "$PROFKIT" view --app-url "https://" "$CHANNEL"
expect_status 2 "$PROFKIT" view --app-url "https://example.org/a b" "$CHANNEL"
expect_status 2 "$PROFKIT" view --value nosuch --no-open "$CHANNEL"
expect_status 1 "$PROFKIT" view --no-open missing.bsprof
expect_contains "$ERR" "missing.bsprof" "missing input named"

# ---- serving a .bsprof file --------------------------------------------------------------------
# The same --source to both: the served profile's script frames are in a library named after it.
expect_status 0 "$PROFKIT" convert "$CHANNEL" --source "$SRC/examples" --to firefox \
    -o converted.json --quiet
if start_view channel --no-open --port 0 --source "$SRC/examples" "$CHANNEL"; then
    expect_contains "$(cat channel.out)" "until interrupted" "the first line"
    port=$(sed -n 's/.* port \([0-9]*\) .*/\1/p' channel.out)
    expect_contains "$PROFILE_URL" "http://127.0.0.1:$port/" "profile URL on the printed port"
    # The link is the app's from-url route with the profile's URL percent-encoded.
    CHECKS=$((CHECKS + 1))
    python3 - "$OPEN_URL" "$PROFILE_URL" "$APP" <<'EOF' || fail "the link"
import sys, urllib.parse
link, profile, app = sys.argv[1:]
prefix = app + "/from-url/"
assert link.startswith(prefix), link
encoded, symbol_server = link[len(prefix):].split("/?symbolServer=")
assert urllib.parse.unquote(symbol_server) == profile.rsplit("/", 1)[0], symbol_server
assert "/" not in encoded and ":" not in encoded, encoded
assert urllib.parse.unquote(encoded) == profile, (encoded, profile)
EOF

    # What the page does: GET with its Origin. The body is what convert writes.
    fetch GET "$PROFILE_URL" got.json "Origin=$APP"
    expect_eq "$(cat got.json.status)" 200 "GET status"
    expect_eq "$(header access-control-allow-origin got.json)" "$APP" "CORS origin"
    expect_eq "$(header content-type got.json)" "application/json" "content type"
    CHECKS=$((CHECKS + 1))
    cmp -s got.json converted.json || fail "the served JSON differs from convert's"
    # gzip for clients that accept it, the same document once decompressed.
    fetch GET "$PROFILE_URL" got.json.gz "Origin=$APP" "Accept-Encoding=gzip, deflate"
    expect_eq "$(header content-encoding got.json.gz)" "gzip" "gzip encoding"
    CHECKS=$((CHECKS + 1))
    python3 -c 'import gzip, sys; sys.stdout.buffer.write(gzip.decompress(open(sys.argv[1], "rb").read()))' \
        got.json.gz | cmp -s - converted.json || fail "the gzip body differs from convert's"
    CHECKS=$((CHECKS + 1))
    [ "$(stat -c %s got.json.gz)" -lt "$(stat -c %s got.json)" ] || fail "gzip is not smaller"
    fetch GET "$PROFILE_URL" refused "Accept-Encoding=gzip;q=0"
    expect_eq "$(header content-encoding refused)" "" "gzip;q=0 refuses gzip"
    # The CORS preflight a page sends before a request with headers of its own.
    fetch OPTIONS "$PROFILE_URL" preflight "Origin=$APP" "Access-Control-Request-Method=GET" \
        "Access-Control-Request-Headers=x-requested-with"
    expect_eq "$(cat preflight.status)" 204 "preflight status"
    expect_eq "$(header access-control-allow-origin preflight)" "$APP" "preflight origin"
    expect_contains "$(header access-control-allow-methods preflight)" "GET" "preflight methods"
    expect_eq "$(header access-control-allow-headers preflight)" "x-requested-with" \
        "preflight headers"
    fetch HEAD "$PROFILE_URL" head
    expect_eq "$(cat head.status)" 200 "HEAD status"
    expect_eq "$(header content-length head)" "$(stat -c %s converted.json)" "HEAD length"
    # Nothing else is served.
    fetch GET "${PROFILE_URL%/*}/other.json" other "Origin=$APP"
    expect_eq "$(cat other.status)" 404 "another path"
    fetch GET "http://127.0.0.1:$port/" root
    expect_eq "$(cat root.status)" 404 "the root"
    fetch POST "$PROFILE_URL" post
    expect_eq "$(cat post.status)" 404 "POST to the profile: no route of the symbol server"
    # A client that sends no request does not stop the others.
    exec 3<>"/dev/tcp/127.0.0.1/$port"
    printf 'GET / HTTP/1.1\r\n' >&3
    exec 3>&-
    fetch GET "$PROFILE_URL" again "Origin=$APP"
    expect_eq "$(cat again.status)" 200 "served after a broken request"
    stop_view INT
    expect_contains "$(cat channel.err)" "GET 200" "requests logged"
fi

# ---- another app, a chosen port, SIGTERM, --value ------------------------------------------------
# A port that was free a moment ago; should another program take it first, the command says so.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
expect_status 0 "$PROFKIT" convert "$BR" --to firefox -o br.json --quiet
if start_view self --no-open --port "$port" --app-url "http://localhost:4242/profiler/" --quiet "$BR"; then
    expect_contains "$PROFILE_URL" "http://127.0.0.1:$port/" "the port asked for"
    expect_contains "$OPEN_URL" "http://localhost:4242/profiler/from-url/http%3A%2F%2F127.0.0.1%3A$port%2F" \
        "a self-hosted app's link"
    fetch GET "$PROFILE_URL" br-got.json "Origin=http://localhost:4242"
    expect_eq "$(header access-control-allow-origin br-got.json)" "http://localhost:4242" \
        "the app's origin"
    CHECKS=$((CHECKS + 1))
    cmp -s br-got.json br.json || fail "BR: the served JSON differs from convert's"
    # The port is taken now.
    expect_status 1 "$PROFKIT" view --no-open --port "$port" "$BR"
    expect_contains "$ERR" "cannot serve on 127.0.0.1 port $port" "port in use"
    stop_view TERM
    expect_eq "$(cat self.err)" "" "--quiet logs nothing"
fi

expect_status 0 "$PROFKIT" convert "$CHANNEL" --source "$SRC/examples" --to firefox --value wall \
    -o wall.json --quiet
if start_view wall --no-open --value wall --quiet --source "$SRC/examples" "$CHANNEL"; then
    fetch GET "$PROFILE_URL" wall-got.json
    CHECKS=$((CHECKS + 1))
    cmp -s wall-got.json wall.json || fail "--value wall: the served JSON differs from convert's"
    stop_view INT
fi

# The link opens in the default browser through xdg-open, here a stand-in that notes what it
# was given; without any, the link is still printed and the command serves all the same.
mkdir -p bin
printf '#!/bin/sh\nprintf "%%s\\n" "$1" > "%s/opened"\n' "$SCRATCH" > bin/xdg-open
chmod +x bin/xdg-open
if VIEW_PATH="$SCRATCH/bin:$PATH" start_view opened --quiet "$BR"; then
    waited=0
    while [ ! -s opened ] && [ "$waited" -lt 1800 ]; do
        sleep 0.1
        waited=$((waited + 1))
    done
    expect_eq "$(cat opened 2>/dev/null)" "$OPEN_URL" "the browser is given the link"
    stop_view INT
fi
if VIEW_PATH="$SCRATCH/nothing" start_view nobrowser --port 0 "$BR"; then
    expect_contains "$(cat nobrowser.err)" "no browser could be started" "no browser"
    fetch GET "$PROFILE_URL" nobrowser-got.json
    expect_eq "$(cat nobrowser-got.json.status)" 200 "served without a browser"
    stop_view INT
fi

finish
