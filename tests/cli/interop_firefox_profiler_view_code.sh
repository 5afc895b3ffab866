# SPDX-License-Identifier: MIT
# `profkit view --source`: the Firefox Profiler's own source-view code (profiler-cli's
# `function annotate`, which fetches a file through the app's symbol server API) shows a
# BrightScript function's lines from the channel's source with their samples; and the server
# refuses what it must: files the profile does not name, a link or ".." out of the source,
# pages of another origin, addresses without the random part.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/profiler_cli.sh"
require_tool curl "curl sends the API's requests"

# A channel whose Strings.brs has PadLeft at line 80; Json.brs is a link to a file outside it.
mkdir -p chan/source/utils
printf 'title=test\n' >chan/manifest
python3 -c '
lines = ["\x27 line %d" % i for i in range(1, 121)]
lines[79] = "function PadLeft(s, n)"
open("chan/source/utils/Strings.brs", "w").write("\n".join(lines) + "\n")'
printf 'secret outside the channel\n' >outside.brs
ln -s "$PWD/outside.brs" chan/source/utils/Json.brs
# A profile naming a file that climbs out of the channel: its Json.brs renamed.
"$PROFKIT" convert "$SRC/examples/roku-channel.bsprof" --to firefox -o climbing.json --quiet
sed -i 's#pkg:/source/utils/Json.brs#pkg:/../outside.brs#' climbing.json

. "$(dirname "$0")/view_server.sh"
# post ROUTE BODY [curl args...]: the status in $STATUS, the answer in $OUT.
post() {
    local route=$1 body=$2
    shift 2
    CHECKS=$((CHECKS + 1))
    STATUS=$(curl -s -o post.out -w '%{http_code}' -X POST --data "$body" "$@" "$API$route")
    OUT=$(cat post.out)
}
source_request() {
    printf '{"debugName":"chan","debugId":"000000000000000000000000000000000","moduleOffset":"0x50","file":"%s"}' "$1"
}

if start_view "$SRC/examples/roku-channel.bsprof" --source chan; then
    expect_contains "$API" "http://127.0.0.1:" "symbol server on the loopback interface"
    expect_eq "$(printf '%s' "$API" | grep -cE '/[0-9a-f]{32}$')" 1 "symbol server's random part"

    # The app's own source view: the function's lines with the file's text and their samples.
    load "$LINK"
    query thread functions --search PadLeft --json
    handle=$(json_get 'd["functions"][0]["functionHandle"]')
    expect_eq "$(json_get 'd["functions"][0]["library"]')" "chan" "BrightScript library"
    query function annotate "$handle" --json --symbol-server "$API"
    expect_eq "$(json_get 'd["srcAnnotation"]["filename"]')" "pkg:/source/utils/Strings.brs" \
        "annotated file"
    expect_eq "$(json_get 'd["srcAnnotation"]["totalFileLines"]')" 121 "the whole file fetched"
    expect_eq "$(json_get '[l["sourceText"] for l in d["srcAnnotation"]["lines"] if l["lineNumber"] == 80]')" \
        "['function PadLeft(s, n)']" "line 80's text"
    expect_eq "$(json_get 'all(l["selfSamples"] > 0 for l in d["srcAnnotation"]["lines"] if 80 <= l["lineNumber"] <= 88)')" \
        "True" "samples on PadLeft's lines"
    expect_eq "$(json_get 'd["warnings"]')" "[]" "no warnings"

    # The same request as the app's, by hand.
    post /source/v1 "$(source_request pkg:/source/utils/Strings.brs)"
    expect_eq "$STATUS" 200 "a file the profile names"
    expect_contains "$OUT" 'function PadLeft(s, n)' "its text"
    post /source/v1 "$(source_request pkg:/source/utils/Strings.brs)" \
        -H 'Origin: https://profiler.firefox.com'
    expect_eq "$STATUS" 200 "the app's origin"
    # Refusals.
    post /source/v1 "$(source_request pkg:/source/utils/Strings.brs)" -H 'Origin: https://evil.example'
    expect_eq "$STATUS" 403 "another origin"
    post /source/v1 "$(source_request /etc/passwd)"
    expect_eq "$STATUS" 403 "a file the profile does not name"
    expect_not_contains "$OUT" "root:" "no /etc/passwd"
    post /source/v1 "$(source_request pkg:/source/utils/Nothing.brs)"
    expect_eq "$STATUS" 403 "a channel file the profile does not name"
    post /source/v1 "$(source_request pkg:/source/utils/Json.brs)"
    expect_eq "$STATUS" 404 "a link out of the source"
    expect_not_contains "$OUT" "secret" "the link is not followed"
    post /source/v1 'not json'
    expect_eq "$STATUS" 400 "not JSON"
    post /nothing/v1 "$(source_request pkg:/source/utils/Strings.brs)"
    expect_eq "$STATUS" 404 "an unknown route"
    CHECKS=$((CHECKS + 1))
    status=$(curl -s -o /dev/null -w '%{http_code}' -X POST --data "$(source_request pkg:/source/utils/Strings.brs)" \
        "${API%/*}/0123456789abcdef0123456789abcdef/source/v1")
    expect_eq "$status" 404 "without the random part"
fi

if start_view climbing.json --source chan; then
    post /source/v1 "$(source_request pkg:/../outside.brs)"
    expect_eq "$STATUS" 404 "a named file climbing out of the source"
    expect_not_contains "$OUT" "secret" "'..' is not followed"
fi

# A package zip as the source, and a view without one.
(cd chan && python3 -c '
import zipfile
with zipfile.ZipFile("../chan.zip", "w") as z:
    z.write("manifest")
    z.write("source/utils/Strings.brs")')
if start_view "$SRC/examples/roku-channel.bsprof" --source chan.zip; then
    post /source/v1 "$(source_request pkg:/source/utils/Strings.brs)"
    expect_eq "$STATUS" 200 "a file from the package"
    expect_contains "$OUT" 'function PadLeft(s, n)' "its text from the package"
fi
if start_view "$SRC/examples/roku-channel.bsprof"; then
    post /source/v1 "$(source_request pkg:/source/utils/Strings.brs)"
    expect_eq "$STATUS" 404 "no source given"
    expect_contains "$OUT" "--source" "the answer says what is missing"
fi
stop_view

# convert --source writes the same library into a saved profile.
expect_status 0 "$PROFKIT" convert "$SRC/examples/roku-channel.bsprof" --source chan --to firefox \
    -o saved.json --quiet
expect_eq "$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print([(l["debugName"], l["breakpadId"]) for l in d["libs"]])' saved.json)" \
    "[('chan', '000000000000000000000000000000000')]" "saved profile's source library"

finish