# SPDX-License-Identifier: MIT
# Helpers for CLI tests. A test script is run as: script PROFKIT SOURCE_DIR SCRATCH_DIR
# Scripts that compare profkit with another tool (interop_*.sh) first check that the tool is
# there with require_tool, which skips the test (exit 77) when it is not.
set -u
PROFKIT=$1
SRC=$2
SCRATCH=$3
rm -rf "$SCRATCH"
mkdir -p "$SCRATCH"
cd "$SCRATCH" || exit 1
FAILURES=0
CHECKS=0
# No test asks a debuginfod server on the network (Debian's profile may name one): the test of
# debuginfod names its own.
unset DEBUGINFOD_URLS

fail() {
    echo "FAIL: $*" >&2
    FAILURES=$((FAILURES + 1))
}

# expect_status CODE command...: runs the command, keeps stdout in $OUT and stderr in $ERR.
expect_status() {
    local want=$1
    shift
    CHECKS=$((CHECKS + 1))
    "$@" >"$SCRATCH/.out" 2>"$SCRATCH/.err"
    local got=$?
    OUT=$(cat "$SCRATCH/.out")
    ERR=$(cat "$SCRATCH/.err")
    if [ "$got" != "$want" ]; then
        fail "exit $got, wanted $want: $*"
        sed 's/^/  stderr: /' "$SCRATCH/.err" | head -20 >&2
    fi
}

# expect_contains HAYSTACK NEEDLE [what]
expect_contains() {
    CHECKS=$((CHECKS + 1))
    case "$1" in
        *"$2"*) ;;
        *) fail "${3:-output} does not contain '$2'"; printf '%s\n' "$1" | head -20 | sed 's/^/  got: /' >&2 ;;
    esac
}

expect_not_contains() {
    CHECKS=$((CHECKS + 1))
    case "$1" in
        *"$2"*) fail "${3:-output} contains '$2'" ;;
        *) ;;
    esac
}

expect_eq() {
    CHECKS=$((CHECKS + 1))
    [ "$1" = "$2" ] || fail "${3:-value}: got '$1', wanted '$2'"
}

# expect_same_lines EXPECTED_FILE ACTUAL_FILE WHAT: the two files are the same bytes; else a
# failure naming WHAT, with the first lines of their difference.
expect_same_lines() {
    CHECKS=$((CHECKS + 1))
    if ! cmp -s "$1" "$2"; then
        fail "$3"
        diff "$1" "$2" | head -20 >&2
    fi
}

expect_file() {
    CHECKS=$((CHECKS + 1))
    [ -f "$1" ] || fail "missing file $1"
}

expect_no_file() {
    CHECKS=$((CHECKS + 1))
    [ ! -e "$1" ] || fail "file $1 should not exist"
}

# skip REASON: ends a test that cannot run here, with the status ctest counts as skipped.
skip() {
    echo "SKIP: $*"
    exit 77
}

# require_tool COMMAND HOW: skips the test when COMMAND (a name on PATH or a path) is missing;
# HOW says where it comes from (a Debian package, or the set-up script that installs it).
require_tool() {
    command -v "$1" >/dev/null 2>&1 || skip "$1 is not installed ($2)"
}

# need_tool COMMAND PACKAGE: for a check of a test that runs without the tool otherwise, whose
# tool scripts/setup.sh installs (PACKAGE, in BUILD_PACKAGES or TEST_PACKAGES). Returns 0 when
# COMMAND is there; when it is missing, the check fails, named, and need_tool returns 1: a check
# of a declared tool is never dropped quietly.
need_tool() {
    command -v "$1" >/dev/null 2>&1 && return 0
    fail "$1 is not installed (Debian package $2, which scripts/setup.sh installs): its checks cannot run"
    return 1
}

# note_not_run WHAT: says that checks of a genuinely optional part were not run, and why.
note_not_run() {
    echo "NOT RUN: $*"
}

# require_file FILE HOW: the same for a file a tool is made of.
require_file() {
    [ -e "$1" ] || skip "$1 is missing ($2)"
}

# refuse_tmpfile: builds cli/refuse_tmpfile.c (with the compiler of the build, plainly) and sets
# PRELOAD to the environment assignments, for env, under which profkit finds unnamed files
# (O_TMPFILE) refused and writes its outputs through hidden temporaries. Fails, said, when the
# library cannot be built.
refuse_tmpfile() {
    if ! "${PK_CC:-cc}" -shared -fPIC -o "$SCRATCH/refuse_tmpfile.so" \
            "$SRC/tests/cli/refuse_tmpfile.c" -ldl 2>"$SCRATCH/refuse_tmpfile.err"; then
        cat "$SCRATCH/refuse_tmpfile.err" >&2
        fail "cannot build the library that refuses O_TMPFILE"
        return 1
    fi
    # ASan checks that its runtime comes first only where it is a shared library; the preloaded
    # library calls nothing it instruments.
    PRELOAD=(LD_PRELOAD="$SCRATCH/refuse_tmpfile.so"
             ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0")
}

finish() {
    if [ "$FAILURES" -ne 0 ]; then
        echo "$FAILURES of $CHECKS checks failed" >&2
        exit 1
    fi
    echo "$CHECKS checks passed"
    exit 0
}
