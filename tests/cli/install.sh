# SPDX-License-Identifier: MIT
# `cmake --install` puts the command, both libraries, the headers, profkit.pc and the CMake
# package in place; programs built with pkg-config against the installed library read a
# profile, report on it and compare two; examples/ builds as a project of its own through
# find_package(profkit) (shared and static) and through pkg-config; every installed header
# compiles on its own, as C and as C++.
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
expect_file "$libdir/../cmake/profkit/profkitConfig.cmake"
expect_file "$libdir/../cmake/profkit/profkitConfigVersion.cmake"
# The shell completions, where each shell looks under the prefix.
expect_file "$PREFIX/share/bash-completion/completions/profkit"
expect_file "$PREFIX/share/zsh/site-functions/_profkit"
expect_file "$PREFIX/share/fish/vendor_completions.d/profkit.fish"
# The man pages, where the build made them (scdoc).
if [ -f "$BUILD/man/profkit.1" ]; then
    expect_file "$PREFIX/share/man/man1/profkit.1"
    expect_file "$PREFIX/share/man/man1/profkit-convert.1"
fi

export PKG_CONFIG_PATH="$libdir"
expect_status 0 pkg-config --modversion profkit
expect_eq "$OUT" "$("$PROFKIT" --version | awk 'NR == 1 {print $2}')" "pkg-config version"
expect_status 0 "${PK_CC:-cc}" -std=c11 -Wall -Wextra -Werror ${PK_SANITIZE_FLAGS:-} \
    "$SRC/examples/embed.c" $(pkg-config --cflags --libs profkit) -o embed
expect_status 0 env LD_LIBRARY_PATH="$libdir/.." ./embed "$SRC/examples/roku-channel.bsprof" out.folded
expect_contains "$OUT" "HomeScene" "embed output"
expect_file out.folded
# The installed command works on its own: it finds the library beside it.
expect_status 0 "$PREFIX/bin/profkit" formats
expect_contains "$OUT" "bsprof" "installed profkit formats"

# Reports and diff through the public API (examples/report_and_diff.c): the example, then the
# example against itself merged twice, where every function doubles.
expect_status 0 "${PK_CC:-cc}" -std=c11 -Wall -Wextra -Werror ${PK_SANITIZE_FLAGS:-} \
    "$SRC/examples/report_and_diff.c" $(pkg-config --cflags --libs profkit) -o report_and_diff
expect_status 0 env LD_LIBRARY_PATH="$libdir/.." ./report_and_diff "$SRC/examples/roku-channel.bsprof"
expect_contains "$OUT" "top 5 of 55 functions by self cpu (operations), total 5034993:" "report header"
expect_contains "$OUT" "  PadLeft                  self     793106  total     793106" "report first row"
expect_status 0 "$PREFIX/bin/profkit" merge "$SRC/examples/roku-channel.bsprof" \
    "$SRC/examples/roku-channel.bsprof" -o twice.bsprof
expect_status 0 env LD_LIBRARY_PATH="$libdir/.." ./report_and_diff \
    "$SRC/examples/roku-channel.bsprof" twice.bsprof
expect_contains "$OUT" "cpu (operations): base 5034993, new 10069986 (+100.0%)" "diff header"
expect_contains "$OUT" "    793106    1586212     +793106  +100.0%  PadLeft" "diff first row"
expect_file diff.svg
expect_contains "$(cat diff.svg)" "Differential Flame Graph" "diff.svg"

# examples/ as a project of its own, with the build's compiler and sanitizers.
example_flags="-Wall -Wextra -Werror ${PK_SANITIZE_FLAGS:-}"
# build_examples DIR CMAKE-ARGS...: configures and builds examples/ in DIR.
build_examples() {
    local dir=$1
    shift
    expect_status 0 cmake -S "$SRC/examples" -B "$dir" -DCMAKE_C_COMPILER="${PK_CC:-cc}" \
        -DCMAKE_C_FLAGS="$example_flags" -DCMAKE_EXE_LINKER_FLAGS="${PK_SANITIZE_FLAGS:-}" "$@"
    expect_status 0 cmake --build "$dir"
}
# Through the CMake package: profkit::profkit (shared) and profkit::profkit_static.
build_examples examples-cmake -DCMAKE_PREFIX_PATH="$PREFIX"
expect_status 0 examples-cmake/embed "$SRC/examples/roku-channel.bsprof" cmake.folded
expect_contains "$OUT" "HomeScene" "embed built through the CMake package"
expect_contains "$(ldd examples-cmake/embed)" "$(realpath "$libdir/..")/libprofkit.so.0" \
    "embed's library"
expect_status 0 examples-cmake/embed_static "$SRC/examples/roku-channel.bsprof" static.folded
expect_contains "$OUT" "HomeScene" "embed linked with profkit::profkit_static"
expect_not_contains "$(ldd examples-cmake/embed_static)" "libprofkit" "embed_static's libraries"
expect_eq "$(cmp static.folded cmake.folded && echo same)" "same" "static and shared outputs"
expect_status 0 examples-cmake/report_and_diff "$SRC/examples/roku-channel.bsprof"
expect_contains "$OUT" "top 5 of 55 functions" "report_and_diff built through the CMake package"
# Through pkg-config (PKG_CONFIG_PATH above).
build_examples examples-pkg-config -DPROFKIT_EXAMPLES_PKG_CONFIG=ON
expect_status 0 examples-pkg-config/embed "$SRC/examples/roku-channel.bsprof" pc.folded
expect_contains "$OUT" "HomeScene" "embed built through pkg-config"

# Each installed header is self-contained, in C and in C++ (extern "C").
cxx=
need_tool c++ "g++, of build-essential" && cxx=c++
for header in "$PREFIX"/include/profkit/*.h; do
    name=$(basename "$header")
    [ "$name" = export.h ] && continue
    printf '#include <profkit/%s>\nint profkit_header_check;\n' "$name" > header.c
    expect_status 0 "${PK_CC:-cc}" -std=c11 -Wall -Wextra -Werror -pedantic -fsyntax-only \
        $(pkg-config --cflags profkit) header.c
    if [ -n "$cxx" ]; then
        cp header.c header.cpp
        expect_status 0 c++ -Wall -Wextra -Werror -fsyntax-only $(pkg-config --cflags profkit) \
            header.cpp
    fi
done
finish
