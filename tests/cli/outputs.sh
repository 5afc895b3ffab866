# SPDX-License-Identifier: MIT
# Where outputs go: new files get the umask's mode, replaced files keep theirs (and their owner
# where permitted), other hard links keep the old content, symbolic links are followed (also
# dangling ones and chains, not loops), devices and FIFOs are written in place (sockets refused),
# and what must not be written is refused with the old file intact: the input itself, a
# directory, a read-only file, a missing directory. Each check runs twice: with unnamed files
# (O_TMPFILE), and through the hidden temporary used where a directory refuses them (made to
# refuse by a preloaded library). No run leaves a temporary behind. crash_safety.sh interrupts
# runs.
. "$(dirname "$0")/lib.sh"

printf 'main;work;leaf 3\nmain;idle 2\n' > in.folded
"$PROFKIT" convert in.folded --to folded -o - > reference.folded 2>/dev/null ||
    { fail "reference conversion"; finish; }
[ -s reference.folded ] || { fail "empty reference"; finish; }
OLD='old content'

refuse_tmpfile || finish

# The names in directory $1, hidden ones too, one line.
listing() {
    (cd "$1" && ls -A | tr '\n' ' ')
}

# convert_to STATUS OUTPUT [ARG...]: converts in.folded to folded at OUTPUT under $MODE.
convert_to() {
    local want=$1 output=$2
    shift 2
    if [ "$MODE" = named ]; then
        expect_status "$want" env "${PRELOAD[@]}" "$PROFKIT" convert in.folded --to folded \
            -o "$output" "$@"
    else
        expect_status "$want" "$PROFKIT" convert in.folded --to folded -o "$output" "$@"
    fi
}

# same_content FILE WHAT: FILE holds the reference conversion.
same_content() {
    CHECKS=$((CHECKS + 1))
    cmp -s "$1" "$SCRATCH/reference.folded" || fail "$MODE: $2: not the new output"
}

for MODE in unnamed named; do
    D=$SCRATCH/$MODE
    mkdir "$D"
    cd "$D" || exit 1
    cp ../in.folded in.folded

    # ---- new files and replaced ones --------------------------------------------------------
    mkdir new
    (umask 027 && convert_to 0 new/out.folded)
    same_content new/out.folded "new file"
    expect_eq "$(stat -c %a new/out.folded)" 640 "$MODE: a new file's mode follows the umask"
    expect_eq "$(listing new)" "out.folded " "$MODE: the directory holds the new file alone"

    mkdir old
    printf '%s\n' "$OLD" > old/out.folded
    chmod 600 old/out.folded
    ln old/out.folded old/other-link
    if [ "$(id -u)" = 0 ]; then
        chown 65534:65534 old/out.folded
    fi
    convert_to 0 old/out.folded
    same_content old/out.folded "replaced file"
    expect_eq "$(stat -c %a old/out.folded)" 600 "$MODE: a replaced file keeps its mode"
    if [ "$(id -u)" = 0 ]; then
        expect_eq "$(stat -c %u:%g old/out.folded)" 65534:65534 \
            "$MODE: a replaced file keeps its owner"
    fi
    expect_eq "$(cat old/other-link)" "$OLD" "$MODE: another hard link keeps the old content"
    expect_eq "$(listing old)" "other-link out.folded " "$MODE: nothing else in the directory"

    # ---- symbolic links --------------------------------------------------------------------------
    mkdir -p links/real
    printf '%s\n' "$OLD" > links/real/target.folded
    chmod 640 links/real/target.folded
    ln -s real/target.folded links/first
    ln -s first links/second
    convert_to 0 links/second
    same_content links/real/target.folded "the file at the end of a chain of links"
    expect_eq "$(readlink links/second):$(readlink links/first)" "first:real/target.folded" \
        "$MODE: the links stay links"
    expect_eq "$(stat -c %a links/real/target.folded)" 640 "$MODE: the linked file keeps its mode"
    expect_eq "$(listing links/real)" "target.folded " "$MODE: nothing else beside the linked file"

    # A dangling link names the file to create, relative to the link or absolute.
    ln -s real/created.folded links/dangling
    convert_to 0 links/dangling
    same_content links/real/created.folded "relative dangling link"
    expect_eq "$(readlink links/dangling)" real/created.folded "$MODE: the dangling link stays"
    ln -s "$D/links/real/absolute.folded" links/absolute
    convert_to 0 links/absolute
    same_content links/real/absolute.folded "absolute dangling link"

    ln -s loop-b links/loop-a
    ln -s loop-a links/loop-b
    convert_to 1 links/loop-a
    expect_contains "$ERR" "links/loop-a: Too many levels of symbolic links" "$MODE: a loop"

    # ---- written in place: devices and FIFOs --------------------------------------------------
    convert_to 0 /dev/null
    # A write that fails names the device (it was "(null)").
    convert_to 1 /dev/full
    expect_contains "$ERR" "/dev/full: cannot write: No space left on device" \
        "$MODE: a full device"
    mkfifo pipe
    cat pipe > from-pipe &
    reader=$!
    convert_to 0 pipe
    wait "$reader"
    same_content from-pipe "FIFO"
    expect_eq "$(stat -c %F pipe)" fifo "$MODE: the FIFO stays a FIFO"

    # A socket cannot be opened for writing: refused with the reason.
    python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' socket
    convert_to 1 socket
    expect_contains "$ERR" "socket: No such device or address" "$MODE: a socket"

    # ---- refused, the old file intact ------------------------------------------------------------
    convert_to 2 in.folded
    expect_contains "$ERR" "in.folded: refusing to write the output over the input" \
        "$MODE: the input itself"
    ln in.folded input-hard-link
    ln -s in.folded input-link
    convert_to 2 input-hard-link
    expect_contains "$ERR" "refusing to write the output over the input" "$MODE: a hard link"
    convert_to 2 input-link
    expect_contains "$ERR" "refusing to write the output over the input" "$MODE: a symbolic link"
    CHECKS=$((CHECKS + 1))
    cmp -s in.folded "$SCRATCH/in.folded" || fail "$MODE: the input changed"

    mkdir a-directory
    convert_to 1 a-directory
    expect_contains "$ERR" "a-directory: is a directory" "$MODE: a directory"
    expect_eq "$(listing a-directory)" "" "$MODE: nothing written into the directory"

    printf '%s\n' "$OLD" > read-only.folded
    chmod 444 read-only.folded
    convert_to 1 read-only.folded
    expect_contains "$ERR" "read-only.folded: the file is read-only (mode 0444); not replacing it" \
        "$MODE: a read-only file"
    expect_eq "$(cat read-only.folded)" "$OLD" "$MODE: the read-only file is intact"

    convert_to 1 missing/out.folded
    expect_contains "$ERR" "missing/out.folded: cannot create: No such file or directory" \
        "$MODE: a missing directory"
    convert_to 2 ""
    expect_contains "$ERR" "the output name is empty" "$MODE: an empty name"

    # No run left a temporary anywhere.
    expect_eq "$(find "$D" -name '.profkit-*')" "" "$MODE: no temporary left"
    cd "$SCRATCH" || exit 1
done

finish
