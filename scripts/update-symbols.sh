#!/bin/sh
# SPDX-License-Identifier: MIT
# Brings debian/libprofkit0.symbols (the Debian symbols file, which records the version that
# added each symbol of the shared library) up to date with a built library: symbols the file
# has keep their version, new ones get the version at the top of debian/changelog, and symbols
# no longer exported are dropped, which breaks the ABI (docs/design.md, "Versions and the ABI").
# Run as: scripts/update-symbols.sh [BUILD_DIR]   (default build-release)
set -eu
cd "$(dirname "$0")/.."
build=${1:-build-release}
library=$(ls "$build"/libprofkit.so.*.*.* 2>/dev/null | head -1)
[ -n "$library" ] || { echo "update-symbols: no libprofkit.so.X.Y.Z in $build (build it first)" >&2; exit 1; }
symbols=debian/libprofkit0.symbols
version=$(sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' debian/changelog)
soname=$(objdump -p "$library" | awk '$1 == "SONAME" { print $2 }')

scripts/exported-symbols.sh "$library" > "$symbols.exported"
{
    echo "$soname libprofkit0 #MINVER#"
    echo "* Build-Depends-Package: libprofkit-dev"
    while read -r name; do
        known=$(awk -v s="$name@Base" '$1 == s { print $2 }' "$symbols" 2>/dev/null || true)
        echo " $name@Base ${known:-$version}"
    done < "$symbols.exported"
} > "$symbols.new"
rm -f "$symbols.exported"
if [ -f "$symbols" ]; then
    diff -u "$symbols" "$symbols.new" | grep -E '^[-+] ' | sed 's/^/update-symbols: /' >&2 || true
fi
mv "$symbols.new" "$symbols"
