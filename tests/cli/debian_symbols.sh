# SPDX-License-Identifier: MIT
# debian/libprofkit0.symbols, the Debian symbols file, lists exactly what the shared library
# exports, so that the package build (dpkg-gensymbols, which fails on any difference) and the
# ABI record stay right as functions are added. scripts/update-symbols.sh updates it.
# Run as: debian_symbols.sh PROFKIT SOURCE_DIR SCRATCH_DIR LIBPROFKIT.so
. "$(dirname "$0")/lib.sh"

LIBRARY=$4
require_tool nm "binutils"
SYMBOLS="$SRC/debian/libprofkit0.symbols"
expect_file "$SYMBOLS"

sh "$SRC/scripts/exported-symbols.sh" "$LIBRARY" > exported.txt
sed -n 's/^ \([^@ ]*\)@Base .*/\1/p' "$SYMBOLS" | LC_ALL=C sort -u > listed.txt
added=$(LC_ALL=C comm -23 exported.txt listed.txt)
removed=$(LC_ALL=C comm -13 exported.txt listed.txt)
CHECKS=$((CHECKS + 1))
if [ -n "$added$removed" ]; then
    fail "debian/libprofkit0.symbols is out of date with the library's exports:"
    [ -z "$added" ] || printf '  exported, not in the file: %s\n' $added >&2
    [ -z "$removed" ] || printf '  in the file, no longer exported (an ABI break): %s\n' $removed >&2
    echo "  run scripts/update-symbols.sh BUILD_DIR after building, and commit the file" >&2
fi
# The file's first line names the SONAME the library has.
soname=$(objdump -p "$LIBRARY" | awk '$1 == "SONAME" { print $2 }')
expect_eq "$(head -1 "$SYMBOLS")" "$soname libprofkit0 #MINVER#" "symbols file header"
# Not vacuous.
expect_contains "$(cat listed.txt)" "pk_read_file" "symbols listed"
finish
