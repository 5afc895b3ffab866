# SPDX-License-Identifier: MIT
# Outputs survive interrupted runs: a long conversion killed at several points (SIGINT, SIGTERM,
# SIGHUP, SIGKILL) or stopped by the file size limit (ulimit -f, SIGXFSZ) leaves its output
# directory holding what it held before, the old output intact; a run that completes leaves the
# complete new output and nothing else; a run whose output name is taken by a directory while it
# writes fails and leaves no temporary. Both ways of writing are covered: the unnamed file
# (O_TMPFILE) and the hidden temporary used where a directory refuses unnamed files (made to refuse
# here by a small preloaded library).
#
# No timing is assumed: the conversion is stopped (SIGSTOP) and looked at through /proc until it
# is at the point wanted (its input open, an output file open in the directory, half a
# megabyte written), then signalled and continued, so a busy machine only makes the test slower.
#
# Arguments after the usual three: the gen_folded benchmark generator.
. "$(dirname "$0")/lib.sh"
GEN_FOLDED=$4

[ -d /proc/self/fd ] || skip "no /proc to watch the conversion through"

# The input: a folded file of INPUT_MB megabytes (8 MB make an SVG flame graph of about 2 MB),
# and its complete conversion. A machine so fast that the test finds the conversion already
# past the point it waits for gets an input four times larger, up to 128 MB.
INPUT_MB=8
make_input() {
    "$GEN_FOLDED" "$INPUT_MB" 1 > in/big.folded || { fail "gen_folded failed"; finish; }
    "$PROFKIT" convert in/big.folded -o reference.svg --quiet ||
        { fail "reference conversion"; finish; }
}
mkdir in
make_input

OLD_CONTENT='<svg xmlns="http://www.w3.org/2000/svg"><!-- the previous output --></svg>'

# ---- watching the conversion ----

# The state letter of process $1 (R, S, D, T, Z...), empty once it is gone.
process_state() {
    sed -n 's/^[0-9]* (.*) \([A-Za-z]\).*/\1/p' "/proc/$1/stat" 2>/dev/null
}

# The descriptor numbers of process $1 whose file lies in directory $2 (also an unnamed file,
# whose link reads "DIR/#INODE (deleted)").
fds_into() {
    local fd target
    for fd in /proc/"$1"/fd/*; do
        target=$(readlink "$fd" 2>/dev/null) || continue
        case "$target" in "$2"/*) echo "${fd##*/}" ;; esac
    done
}

# The names in directory $1, one per line, hidden ones too.
listing() {
    (cd "$1" && ls -A)
}

# The output's name as the run found it: the inode of $OUT_DIR/profile.svg, or "none".
output_inode() {
    stat -c %i "$OUT_DIR/profile.svg" 2>/dev/null || echo none
}

# The run has not begun to name its output: the output's name holds what it held before
# ($BEFORE_INODE) and, where the output is an unnamed file, no hidden temporary links it yet
# (commit links it under one, renames that over the old output, syncs the directory and only then
# closes it). Every point interrupted here comes before; a loaded machine can let a run go from
# writing to naming between two polls, and the descriptor stays open through the naming.
not_named() {
    [ "$(output_inode)" = "$BEFORE_INODE" ] || return 1
    [ -n "${EXPECT_TEMPORARY:-}" ] || ! listing "$OUT_DIR" | grep -q '^\.profkit-'
}

# Conditions on a stopped process $1, with the output directory in $OUT_DIR.
reading_input() { # the input open, no output yet
    [ -n "$(fds_into "$1" "$SCRATCH/in")" ] && [ -z "$(fds_into "$1" "$OUT_DIR")" ]
}
writer_open() {
    [ -n "$(fds_into "$1" "$OUT_DIR")" ] && not_named
}
written_half_a_megabyte() {
    local fd size
    not_named || return 1
    for fd in $(fds_into "$1" "$OUT_DIR"); do
        size=$(stat -L -c %s "/proc/$1/fd/$fd" 2>/dev/null) || continue
        [ "$size" -ge 524288 ] && return 0
    done
    return 1
}

# stop_at PID CONDITION: stops the process and leaves it stopped once CONDITION holds; returns
# 1 when the process ends before.
stop_at() {
    local pid=$1 condition=$2 state
    while kill -STOP "$pid" 2>/dev/null; do
        while state=$(process_state "$pid"); [ -n "$state" ] && [ "$state" != T ] &&
              [ "$state" != Z ]; do
            :
        done
        [ "$state" = T ] || return 1
        "$condition" "$pid" && return 0
        kill -CONT "$pid"
        sleep 0.002
    done
    return 1
}

# ---- one interrupted run ----

# interrupt NAME SIGNAL CONDITION [ENV...]: converts into a directory holding an old output
# (NAME "fresh": an empty directory), stops the run where CONDITION holds, sends SIGNAL,
# continues it and checks the exit status and the directory.
interrupt() {
    local name=$1 signal=$2 condition=$3
    shift 3
    OUT_DIR=$SCRATCH/out-$name-$signal-$condition
    rm -rf "$OUT_DIR"
    mkdir "$OUT_DIR"
    [ "$name" = fresh ] || printf '%s\n' "$OLD_CONTENT" > "$OUT_DIR/profile.svg"
    local before
    before=$(listing "$OUT_DIR")
    BEFORE_INODE=$(output_inode)
    # A background job of a non-interactive shell ignores SIGINT; profkit keeps dispositions
    # it inherits, so give it the default one.
    env --default-signal=INT "$@" "$PROFKIT" convert in/big.folded -o "$OUT_DIR/profile.svg" \
        --quiet 2>"$OUT_DIR.err" &
    local pid=$!
    CHECKS=$((CHECKS + 1))
    if ! stop_at "$pid" "$condition"; then
        wait "$pid" 2>/dev/null
        if [ "$INPUT_MB" -ge 128 ]; then
            fail "$name $signal: the conversion of $INPUT_MB MB ended before $condition"
            return
        fi
        INPUT_MB=$((INPUT_MB * 4))
        echo "$name $signal $condition: missed; again with $INPUT_MB MB"
        make_input
        interrupt "$name" "$signal" "$condition" "$@"
        return
    fi
    if [ -n "${EXPECT_TEMPORARY:-}" ]; then
        CHECKS=$((CHECKS + 1))
        listing "$OUT_DIR" | grep -q '^\.profkit-' ||
            fail "$name $signal $condition: no hidden temporary while writing"
    fi
    kill "-$signal" "$pid"
    kill -CONT "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null # without the shell's note of how the job ended
    local status=$?
    expect_eq "$status" "$((128 + $(kill -l "$signal")))" "$name $signal $condition: exit status"
    if [ "$signal" = KILL ] && [ -n "${EXPECT_TEMPORARY:-}" ]; then
        # Nothing runs after SIGKILL: the hidden temporary stays, the old output too.
        expect_eq "$(listing "$OUT_DIR" | grep -v '^\.profkit-')" "$before" \
            "$name $signal $condition: the directory apart from the temporary"
    else
        expect_eq "$(listing "$OUT_DIR")" "$before" "$name $signal $condition: the directory"
    fi
    if [ "$name" != fresh ]; then
        expect_eq "$(cat "$OUT_DIR/profile.svg")" "$OLD_CONTENT" \
            "$name $signal $condition: the old output"
    fi
}

# ---- unnamed files (O_TMPFILE) ----
interrupt old TERM reading_input
interrupt old INT writer_open
interrupt old KILL writer_open
interrupt old HUP written_half_a_megabyte
interrupt old KILL written_half_a_megabyte
interrupt fresh TERM written_half_a_megabyte

# ---- the file size limit ----
# The limit (in KiB blocks) below the output's size: the write past it raises SIGXFSZ; above
# it, the run completes.
size_kib=$(( ($(stat -c %s reference.svg) + 1023) / 1024 ))
for limit in 512 $((size_kib + 64)); do
    OUT_DIR=$SCRATCH/out-limit-$limit
    mkdir "$OUT_DIR"
    printf '%s\n' "$OLD_CONTENT" > "$OUT_DIR/profile.svg"
    # (the braces keep the shell's note of a job killed by a signal out of the log)
    { (ulimit -f "$limit" && exec "$PROFKIT" convert in/big.folded -o "$OUT_DIR/profile.svg" \
        --quiet) 2>"$OUT_DIR.err"; status=$?; } 2>/dev/null
    expect_eq "$(listing "$OUT_DIR")" "profile.svg" "ulimit -f $limit: the directory"
    if [ "$limit" -lt "$size_kib" ]; then
        expect_eq "$status" "$((128 + $(kill -l XFSZ)))" "ulimit -f $limit: exit status"
        expect_eq "$(cat "$OUT_DIR/profile.svg")" "$OLD_CONTENT" "ulimit -f $limit: the old output"
    else
        expect_eq "$status" 0 "ulimit -f $limit: exit status"
        CHECKS=$((CHECKS + 1))
        cmp -s "$OUT_DIR/profile.svg" reference.svg || fail "ulimit -f $limit: the new output"
    fi
done

# ---- the output's name taken while it is written ----
# An output open in $OUT_DIR and not named yet.
writing_unnamed() {
    [ -n "$(fds_into "$1" "$OUT_DIR")" ] && [ ! -e "$OUT_DIR/profile.svg" ]
}

# appears NAME [ENV...]: stops a fresh conversion once its output is open, makes a directory at
# the output's name, and continues it: the output cannot be named, so the run fails, says why,
# and leaves the directory as it was and no temporary.
appears() {
    local name=$1
    shift
    OUT_DIR=$SCRATCH/out-appears-$name
    mkdir "$OUT_DIR"
    env "$@" "$PROFKIT" convert in/big.folded -o "$OUT_DIR/profile.svg" --quiet \
        2>"$OUT_DIR.err" &
    local pid=$!
    CHECKS=$((CHECKS + 1))
    if ! stop_at "$pid" writing_unnamed; then
        wait "$pid" 2>/dev/null
        if [ "$INPUT_MB" -ge 128 ]; then
            fail "appears $name: the conversion of $INPUT_MB MB ended before it was caught writing"
            return
        fi
        rm -rf "$OUT_DIR"
        INPUT_MB=$((INPUT_MB * 4))
        echo "appears $name: missed; again with $INPUT_MB MB"
        make_input
        appears "$name" "$@"
        return
    fi
    mkdir "$OUT_DIR/profile.svg"
    kill -CONT "$pid"
    wait "$pid"
    expect_eq "$?" 1 "appears $name: exit status"
    expect_contains "$(cat "$OUT_DIR.err")" "profile.svg: cannot write: Is a directory" \
        "appears $name: the reason"
    expect_eq "$(listing "$OUT_DIR")" "profile.svg" "appears $name: the directory"
    expect_eq "$(listing "$OUT_DIR/profile.svg")" "" "appears $name: nothing in the new directory"
}
appears unnamed

# ---- a directory that refuses unnamed files: the hidden temporary ----
# Makes a directory refuse unnamed files (cli/refuse_tmpfile.c, preloaded): sets PRELOAD.
refuse_tmpfile || finish

# The preloaded library is in effect: a complete run still writes its output, through the
# hidden temporary, and leaves nothing else.
OUT_DIR=$SCRATCH/out-fallback-complete
mkdir "$OUT_DIR"
printf '%s\n' "$OLD_CONTENT" > "$OUT_DIR/profile.svg"
expect_status 0 env "${PRELOAD[@]}" "$PROFKIT" convert in/big.folded -o "$OUT_DIR/profile.svg" --quiet
expect_eq "$(listing "$OUT_DIR")" "profile.svg" "fallback, complete: the directory"
CHECKS=$((CHECKS + 1))
cmp -s "$OUT_DIR/profile.svg" reference.svg || fail "fallback, complete: the new output"

appears named "${PRELOAD[@]}"

EXPECT_TEMPORARY=1
interrupt fallback INT writer_open "${PRELOAD[@]}"
interrupt fallback TERM written_half_a_megabyte "${PRELOAD[@]}"
interrupt fresh HUP written_half_a_megabyte "${PRELOAD[@]}"
interrupt fallback KILL written_half_a_megabyte "${PRELOAD[@]}"
unset EXPECT_TEMPORARY

OUT_DIR=$SCRATCH/out-fallback-limit
mkdir "$OUT_DIR"
printf '%s\n' "$OLD_CONTENT" > "$OUT_DIR/profile.svg"
{ (ulimit -f 512 && exec env "${PRELOAD[@]}" "$PROFKIT" convert in/big.folded \
    -o "$OUT_DIR/profile.svg" --quiet) 2>"$OUT_DIR.err"; status=$?; } 2>/dev/null
expect_eq "$status" "$((128 + $(kill -l XFSZ)))" "fallback, ulimit -f: exit status"
expect_eq "$(listing "$OUT_DIR")" "profile.svg" "fallback, ulimit -f: the directory"
expect_eq "$(cat "$OUT_DIR/profile.svg")" "$OLD_CONTENT" "fallback, ulimit -f: the old output"
finish
