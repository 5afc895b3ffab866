# SPDX-License-Identifier: MIT
# Packaging: `dpkg-buildpackage -us -uc -b` in a fresh clone of the tree's HEAD makes profkit,
# libprofkit0 and libprofkit-dev; lintian finds no error in them; apt accepts them as they
# are (simulated: nothing is installed on this machine); unpacked into a scratch root, the
# packaged command converts the bundled example as the build's own does, its man pages and
# completions are where man and the shells look, and the examples build against the packaged
# library through its CMake package and through pkg-config.
# Only the committed tree is packaged: commit before running this. Skipped (77) where the Debian
# tools or the build dependencies are missing (scripts/setup.sh installs them).
. "$(dirname "$0")/lib.sh"

require_tool dpkg-buildpackage "Debian package dpkg-dev"
require_tool dh "Debian package debhelper"
require_tool fakeroot "Debian package fakeroot"
require_tool lintian "Debian package lintian"
require_tool git "Debian package git"
git -C "$SRC" rev-parse --verify -q HEAD > /dev/null || skip "$SRC is not a git checkout with a commit"

expect_status 0 git clone --quiet "$SRC" clone
expect_eq "$(git -C clone rev-parse HEAD)" "$(git -C "$SRC" rev-parse HEAD)" "the clone's HEAD"
(cd clone && dpkg-checkbuilddeps) > builddeps.txt 2>&1 ||
    skip "build dependencies missing: $(cat builddeps.txt)"

jobs=$(nproc 2>/dev/null || echo 2)
# Without optimization (noopt), which halves the compile time: the test is of the packaging.
echo "building the packages (dpkg-buildpackage, log in $SCRATCH/build.log)"
(cd clone && DEB_BUILD_OPTIONS="nocheck noopt parallel=$jobs" dpkg-buildpackage -us -uc -b) \
    > build.log 2>&1
CHECKS=$((CHECKS + 1))
if [ $? -ne 0 ]; then
    fail "dpkg-buildpackage failed:"
    tail -30 build.log >&2
    finish
fi
version=$(sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' clone/debian/changelog)
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
for package in profkit libprofkit0 libprofkit-dev; do
    expect_file "${package}_${version}_${arch}.deb"
done

# The symbols file went into the library's package; the command depends on the library.
expect_status 0 dpkg-deb -I "libprofkit0_${version}_${arch}.deb" symbols
expect_contains "$OUT" "libprofkit.so.0 libprofkit0 #MINVER#" "libprofkit0's symbols"
expect_status 0 dpkg-deb -f "profkit_${version}_${arch}.deb" Depends
expect_contains "$OUT" "libprofkit0 (>= " "profkit's dependencies"

# lintian: no errors (warnings are shown).
lintian --tag-display-limit 0 "profkit_${version}_${arch}.changes" > lintian.txt 2>&1
grep -E '^[WI]: ' lintian.txt | sed 's/^/lintian: /'
expect_eq "$(grep -E '^E: ' lintian.txt)" "" "lintian errors"

# apt takes them as they are, with what this machine has for their dependencies.
expect_status 0 apt-get install --simulate --quiet \
    "./profkit_${version}_${arch}.deb" "./libprofkit0_${version}_${arch}.deb" \
    "./libprofkit-dev_${version}_${arch}.deb"
expect_contains "$OUT" "Inst libprofkit0" "apt-get install --simulate"

# Unpacked into a throwaway root.
ROOT="$SCRATCH/root"
for package in profkit libprofkit0 libprofkit-dev; do
    expect_status 0 dpkg-deb -x "${package}_${version}_${arch}.deb" "$ROOT"
done
LIBDIR="$ROOT/usr/lib/$multiarch"
packaged() { env LD_LIBRARY_PATH="$LIBDIR" "$ROOT/usr/bin/profkit" "$@"; }
expect_contains "$(env LD_LIBRARY_PATH="$LIBDIR" ldd "$ROOT/usr/bin/profkit")" \
    "$LIBDIR/libprofkit.so.0" "the packaged command's library"
expect_status 0 packaged --version
expect_contains "$OUT" "profkit $version" "packaged profkit --version"
expect_contains "$OUT" "libprofkit $version" "packaged library's version"
expect_status 0 packaged info "$SRC/examples/roku-channel.bsprof"
expect_contains "$OUT" "HomeScene" "packaged profkit info"
expect_status 0 packaged convert "$SRC/examples/roku-channel.bsprof" -o packaged.folded
expect_status 0 "$PROFKIT" convert "$SRC/examples/roku-channel.bsprof" -o built.folded
expect_eq "$(cmp packaged.folded built.folded && echo same)" "same" "packaged and built outputs"

# Man pages and completions where man and the shells look.
expect_status 0 man -l "$ROOT/usr/share/man/man1/profkit-convert.1.gz"
expect_contains "$OUT" "FORMAT OPTIONS" "packaged profkit-convert(1)"
expect_file "$ROOT/usr/share/bash-completion/completions/profkit"
expect_file "$ROOT/usr/share/zsh/vendor-completions/_profkit"
expect_file "$ROOT/usr/share/fish/vendor_completions.d/profkit.fish"

# The development package: examples/ through its CMake package and through pkg-config.
expect_status 0 cmake -S "$SRC/examples" -B examples-cmake -DCMAKE_PREFIX_PATH="$ROOT/usr" \
    -DCMAKE_C_COMPILER="${PK_CC:-cc}"
expect_status 0 cmake --build examples-cmake
expect_status 0 env LD_LIBRARY_PATH="$LIBDIR" examples-cmake/embed \
    "$SRC/examples/roku-channel.bsprof" cmake.folded
expect_contains "$OUT" "HomeScene" "embed against the packaged library"
expect_status 0 examples-cmake/embed_static "$SRC/examples/roku-channel.bsprof" static.folded
expect_contains "$OUT" "HomeScene" "embed against the packaged static library"
expect_status 0 env PKG_CONFIG_PATH="$LIBDIR/pkgconfig" \
    cmake -S "$SRC/examples" -B examples-pkg-config -DPROFKIT_EXAMPLES_PKG_CONFIG=ON \
    -DCMAKE_C_COMPILER="${PK_CC:-cc}"
expect_status 0 cmake --build examples-pkg-config
expect_status 0 env LD_LIBRARY_PATH="$LIBDIR" examples-pkg-config/report_and_diff \
    "$SRC/examples/roku-channel.bsprof"
expect_contains "$OUT" "top 5 of 55 functions" "report_and_diff against the packaged library"

# The package build's tree is large; the packages and logs stay for a look.
rm -rf clone
finish
