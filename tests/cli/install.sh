# `cmake --install` puts the command, both libraries, the headers and profkit.pc in place, and a
# program built with pkg-config against the installed library reads a profile.
. "$(dirname "$0")/lib.sh"

BUILD=$(dirname "$PROFKIT")
PREFIX="$SCRATCH/prefix"
expect_status 0 cmake --install "$BUILD" --prefix "$PREFIX"
libdir=$(find "$PREFIX" -name profkit.pc -printf '%h\n' | head -1)
expect_file "$PREFIX/bin/profkit"
expect_file "$PREFIX/include/profkit/profile.h"
expect_file "$PREFIX/include/profkit/version.h"
expect_file "$libdir/profkit.pc"
[ -e "$libdir/../libprofkit.so" ] || fail "no installed libprofkit.so"
[ -e "$libdir/../libprofkit.a" ] || fail "no installed libprofkit.a"

export PKG_CONFIG_PATH="$libdir"
expect_status 0 pkg-config --modversion profkit
expect_eq "$OUT" "$("$PROFKIT" --version | awk '{print $2}')" "pkg-config version"
expect_status 0 "${PK_CC:-cc}" -std=c11 -Wall -Wextra -Werror ${PK_SANITIZE_FLAGS:-} \
    "$SRC/examples/embed.c" $(pkg-config --cflags --libs profkit) -o embed
expect_status 0 env LD_LIBRARY_PATH="$libdir/.." ./embed "$SRC/examples/roku-channel.bsprof" out.folded
expect_contains "$OUT" "HomeScene" "embed output"
expect_file out.folded
# The installed command works on its own.
expect_status 0 env LD_LIBRARY_PATH="$libdir/.." "$PREFIX/bin/profkit" formats
expect_contains "$OUT" "bsprof" "installed profkit formats"
finish
