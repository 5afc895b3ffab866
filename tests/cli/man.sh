# SPDX-License-Identifier: MIT
# The man pages say what --help says: every option a command's --help mentions (its own, the
# input options, the formats' options) is in the command's page, and the page names no option
# --help does not know (nor describes one the command does not take); profkit(1) lists every
# command and every format of the build.
# Run as: man.sh PROFKIT SOURCE_DIR SCRATCH_DIR MAN_DIR
. "$(dirname "$0")/lib.sh"

MAN=${4:-}
[ -n "$MAN" ] && [ -f "$MAN/profkit.1" ] || skip "the man pages are not built (scdoc: Debian package scdoc)"

# The options named in a text (a man page's roff without its font changes): long options, and
# short ones standing alone (-o).
options_in() {
    sed -e 's/\\f[A-Z]//g' -e 's/\\&//g' "$1" |
        grep -oE -- '(^|[^A-Za-z0-9_-])--?[A-Za-z][A-Za-z0-9-]*' | sed 's/^[^-]*//' |
        grep -E -- '^(--[a-z][a-z0-9-]*|-[A-Za-z])$' | LC_ALL=C sort -u
}

# What the registry's format options say, which the pages take from the build: never stale.
"$PROFKIT" formats --options | awk -F '\t' '{ print "--" $1; print $5 }' > registry.txt
# The formats' descriptions, which the pages also take from the build, may quote a tool's
# option (`node --cpu-prof`): not an option of profkit's, not stale either.
"$PROFKIT" formats --tab | cut -f5 >> registry.txt
options_in registry.txt > registry.options

expect_status 0 "$PROFKIT" --help
commands=$(printf '%s\n' "$OUT" | awk '/^Commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }')
expect_contains "$commands" "convert" "commands of profkit --help"
for command in $commands; do
    page="$MAN/profkit-$command.1"
    expect_file "$page"
    expect_contains "$(cat "$MAN/profkit.1")" "profkit-$command" "profkit(1) on $command"
    "$PROFKIT" "$command" --help > "help-$command.txt"
    options_in "help-$command.txt" > "help-$command.options"
    options_in "$page" > "man-$command.options"
    CHECKS=$((CHECKS + 1))
    missing=$(LC_ALL=C comm -23 "help-$command.options" "man-$command.options")
    [ -z "$missing" ] || fail "profkit $command --help has options profkit-$command(1) lacks:" $missing
    CHECKS=$((CHECKS + 1))
    stale=$(LC_ALL=C sort -u "help-$command.options" registry.options |
        LC_ALL=C comm -13 - "man-$command.options" | grep -vx -- '--help')
    [ -z "$stale" ] || fail "profkit-$command(1) names options profkit $command --help does not:" $stale
    # The options the page describes (an entry each, formats' options too) are all the
    # command's: a page may mention another option in passing, never describe it. (The page
    # of `formats` describes every format's options, which `formats --options` lists.)
    [ "$command" = formats ] && continue
    sed -n 's/^\\fB\(--[a-z][a-z0-9-]*\)\\fR.*/\1/p' "$page" | LC_ALL=C sort -u > "entries-$command.options"
    CHECKS=$((CHECKS + 1))
    foreign=$(LC_ALL=C comm -23 "entries-$command.options" "help-$command.options")
    [ -z "$foreign" ] || fail "profkit-$command(1) describes options profkit $command does not take:" $foreign
done
# Not vacuous: the options of convert include its own and the formats'.
expect_contains "$(cat help-convert.options)" "--output" "options of convert --help"
expect_contains "$(cat man-convert.options)" "--br-names" "options of profkit-convert(1)"

# Every format of the build, in profkit(1) and profkit-formats(1).
"$PROFKIT" formats --tab | cut -f1 > formats.txt
expect_contains "$(cat formats.txt)" "bsprof" "formats --tab"
while read -r format; do
    for page in profkit profkit-formats; do
        CHECKS=$((CHECKS + 1))
        grep -q "^\\\\fB$format\\\\fR (" "$MAN/$page.1" || fail "$page(1) does not list the format $format"
    done
done < formats.txt

# The pages are well-formed for man: no warnings from groff (groff-base, as man uses it).
if need_tool groff groff-base; then
    for page in "$MAN"/*.1; do
        expect_status 0 groff -man -Tutf8 -ww -z "$page"
        expect_eq "$ERR" "" "groff warnings of $(basename "$page")"
    done
fi
finish
