# SPDX-License-Identifier: MIT
# The command itself: help, version, usage errors and exit statuses.
. "$(dirname "$0")/lib.sh"

expect_status 0 "$PROFKIT" --help
expect_contains "$OUT" "convert" "--help"
expect_contains "$OUT" "formats" "--help"
expect_status 0 "$PROFKIT" --version
expect_eq "$(printf '%s\n' "$OUT" | head -1)" "profkit $(sed -n 's/^project(profkit VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")" "--version"
expect_contains "$OUT" "
libprofkit " "--version: the library's version"
for library in zlib libdw libcurl libzip protobuf-c xxhash; do
    expect_contains "$OUT" "
  $library " "--version: $library"
done
expect_status 2 "$PROFKIT"
expect_status 2 "$PROFKIT" frobnicate
expect_contains "$ERR" "unknown command" "unknown command message"
for cmd in convert info formats dump; do
    expect_status 0 "$PROFKIT" "$cmd" --help
    expect_contains "$OUT" "Usage: profkit $cmd" "$cmd --help"
done
expect_status 0 "$PROFKIT" formats
expect_contains "$OUT" "FORMAT" "formats header"
# The listings for programs: five tab-separated fields a line.
expect_status 0 "$PROFKIT" formats --tab
expect_eq "$(printf '%s\n' "$OUT" | awk -F '\t' 'NF != 5' | head -1)" "" "formats --tab fields"
expect_contains "$OUT" "$(printf 'bsprof\tread,write,dump\t.bsprof\t\t')" "formats --tab"
expect_status 0 "$PROFKIT" formats --options
expect_eq "$(printf '%s\n' "$OUT" | awk -F '\t' 'NF != 5' | head -1)" "" "formats --options fields"
expect_contains "$OUT" "$(printf 'br-names\tfunction|line\tbr\tinput\t')" "formats --options"
expect_status 2 "$PROFKIT" formats --tab --options
expect_status 2 "$PROFKIT" convert
expect_status 2 "$PROFKIT" convert a b
expect_status 2 "$PROFKIT" convert --bogus x
expect_status 2 "$PROFKIT" convert x --to no-such-format
expect_contains "$ERR" "unknown format 'no-such-format'" "unknown --to"
expect_status 2 "$PROFKIT" convert x.bin
expect_contains "$ERR" "--to" "no output format"
expect_status 1 "$PROFKIT" info does-not-exist
expect_contains "$ERR" "does-not-exist: cannot open" "missing input"
: > empty.bin
expect_status 1 "$PROFKIT" info empty.bin
expect_contains "$ERR" "empty.bin: byte 0: the file is empty" "empty input"
printf 'garbage that is no profile\000\001' > junk.bin
expect_status 1 "$PROFKIT" info junk.bin
expect_contains "$ERR" "not a profile format" "unknown content"
expect_status 1 "$PROFKIT" info .
finish
