#!/bin/sh
# SPDX-License-Identifier: MIT
# perf.data read directly gives perf script's stacks and weights: the fixtures, and a program
# built and recorded here (file, pipe and -z layouts, two events). Frames named alike by both
# are compared; perf names functions from ELF symbol tables without inlined frames, the libdw
# symbolizer from DWARF with them, so lines through libc and ld.so may name a frame otherwise:
# those are compared by weight only.
. "$(dirname "$0")/lib.sh"

DATA="$SRC/tests/data/perf_data"
require_tool perf "Debian package linux-perf; scripts/setup.sh installs it"
perf script --help > /dev/null 2>&1 || perf version > /dev/null 2>&1 || skip "perf does not run"

# glibc's internal aliases (__GI__dl_allocate_tls for _dl_allocate_tls) as plain names: perf
# names a function by one of the symbols at its address, the libdw symbolizer by its DWARF name,
# and a sample that lands in libc (a page fault in pthread_create) shows either.
glibc_names() {
    sed 's/__GI_//g'
}

# Compares the direct reading of $1 with perf script's, through the perf script reader.
same_as_perf_script() {
    "$PROFKIT" convert "$1" --to folded -o direct.folded 2> /dev/null ||
        fail "$1: profkit does not read it"
    perf script -i "$1" 2> /dev/null > script.txt || fail "$1: perf script fails"
    "$PROFKIT" convert --from perf-script script.txt --to folded -o script.folded 2> /dev/null ||
        fail "$1: profkit does not read perf script's text"
    expect_eq "$(awk '{n += $NF} END {print n}' direct.folded)" \
        "$(awk '{n += $NF} END {print n}' script.folded)" "$1: total weight"
    expect_eq "$(wc -l < direct.folded | tr -d ' ')" "$(wc -l < script.folded | tr -d ' ')" \
        "$1: distinct stacks"
    expect_eq "$(grep -E ';(main|worker);' direct.folded | glibc_names | sort)" \
        "$(grep -E ';(main|worker);' script.folded | glibc_names | sort)" "$1: the program's stacks"
}

for f in g multi pipe z flat; do
    # The fixtures' program is at /tmp/pd/prog only where they were recorded: elsewhere their
    # user frames stay addresses for both, and only the weights compare.
    cp "$DATA/$f.data" "$f.data"
    "$PROFKIT" convert "$f.data" --to folded -o direct.folded 2> /dev/null || fail "$f.data"
    perf script -i "$f.data" 2> /dev/null > script.txt || continue
    "$PROFKIT" convert --from perf-script script.txt --to folded -o script.folded 2> /dev/null
    expect_eq "$(awk '{n += $NF} END {print n}' direct.folded)" \
        "$(awk '{n += $NF} END {print n}' script.folded)" "fixture $f: total weight"
done

# ---- a program recorded here --------------------------------------------------------------------
CC=${CC:-cc}
command -v "$CC" > /dev/null 2>&1 || skip "no C compiler"
"$CC" -O0 -g -fno-omit-frame-pointer -pthread "$DATA/prog.c" -o prog || fail "cc prog.c"
perf record -q -e cpu-clock -g -o rec.data ./prog > /dev/null 2>&1 || skip "perf record cannot record here"
same_as_perf_script rec.data
perf record -q -e cpu-clock,task-clock -g -o multi.data ./prog > /dev/null 2>&1 &&
    same_as_perf_script multi.data
perf record -q -e cpu-clock -g -z -o z.data ./prog > /dev/null 2>&1 && same_as_perf_script z.data
perf record -q -e cpu-clock -g -o - ./prog 2> /dev/null > pipe.data && same_as_perf_script pipe.data
expect_contains "$(cat direct.folded)" "prog;__libc_start_call_main;main;recurse;recurse" "symbols of the program"
# The recordings above run on every processor, so their records are in time order per
# processor only (the reader sorts each round as perf does); one processor's come in order.
if command -v taskset > /dev/null 2>&1 &&
    taskset -c 0 perf record -q -e cpu-clock -g -o one.data ./prog > /dev/null 2>&1; then
    same_as_perf_script one.data
fi

# A file's feature sections are read before its records: the event descriptions name a
# tracepoint (a pipe has them before its samples too).
if perf record -q -e sched:sched_process_exec -e cpu-clock -o tp.data ./prog > /dev/null 2>&1; then
    expect_status 0 "$PROFKIT" info --no-symbols tp.data
    expect_contains "$OUT" "sched:sched_process_exec-samples" "a tracepoint named by its description"
    expect_not_contains "$OUT" "tracepoint:0x" "no tracepoint by number"
fi

# The binary found by its build id in perf's cache (~/.debug/.build-id/xx/yyyy/elf) once it is
# gone from its path; from a pipe the build ids come after the records, so the path is all.
mkdir -p home
if HOME="$PWD/home" perf record -q -e cpu-clock -g -o cached.data ./prog > /dev/null 2>&1 &&
    [ -d home/.debug/.build-id ]; then
    mv prog prog.gone
    expect_status 0 env HOME="$PWD/home" "$PROFKIT" convert cached.data --to folded
    expect_contains "$OUT" "prog;__libc_start_call_main;main;recurse;recurse" \
        "symbols from perf's build id cache"
    mv prog.gone prog
fi

# The stacks from where the frames of $2 (a pattern) start, summed by what follows: the part
# of $1 (folded) that the binary's own names decide, whatever names libc and ld.so get.
stacks_from() {
    awk -v from="$2" '{ i = index($0, from); if (i == 0) next; w = $NF; s = substr($0, i);
        sub(/ [0-9]+$/, "", s); sum[s] += w } END { for (s in sum) print s, sum[s] }' "$1" | sort
}

# ---- JIT code named from /tmp/perf-PID.map, as perf script names it -----------------------------
case "$(uname -m)" in
x86_64)
    "$CC" -O2 -fno-omit-frame-pointer "$DATA/jit.c" -o jit || fail "cc jit.c"
    if perf record -q -e cpu-clock -g -o jit.data ./jit > jit.out 2> /dev/null; then
        map=$(cat jit.out)
        perf script -i jit.data 2> /dev/null > script.txt || fail "perf script jit.data"
        "$PROFKIT" convert --from perf-script script.txt --to folded -o script.folded 2> /dev/null
        expect_status 0 "$PROFKIT" convert jit.data --to folded -o direct.folded
        expect_contains "$(cat direct.folded)" ";main;run;JS:*hot /srv/app/math.js:1:14 " \
            "a JIT frame named from $map"
        expect_contains "$(cat direct.folded)" ";main;run;LazyCompile:warm " "a second JIT frame"
        expect_contains "$(cat direct.folded)" ";main;run;[$(basename "$map")] " \
            "code the map does not name, named as perf script names it"
        expect_eq "$(stacks_from direct.folded ';run;')" "$(stacks_from script.folded ';run;')" \
            "JIT stacks as perf script's"
        # Found under --symbol-path by its base name once gone from /tmp; without it, named
        # as perf names code in a map it cannot read.
        mkdir -p jit-maps && mv "$map" jit-maps/
        expect_status 0 "$PROFKIT" convert jit.data --symbol-path jit-maps --to folded
        expect_contains "$OUT" ";main;run;LazyCompile:warm " "the JIT map under --symbol-path"
        expect_status 0 "$PROFKIT" convert jit.data --to folded -o gone.folded
        expect_contains "$ERR" "JIT symbol map not found" "a missing JIT map said"
        perf script -i jit.data 2> /dev/null |
            "$PROFKIT" convert --from perf-script - --to folded -o script.folded 2> /dev/null
        expect_eq "$(stacks_from gone.folded ';run;')" "$(stacks_from script.folded ';run;')" \
            "JIT stacks without the map as perf script's"
    fi
    ;;
esac

# ---- DWARF unwinding (--call-graph dwarf) of -O2 code without frame pointers -------------------
# The user stacks unwound from each sample's registers and stack copy are perf script's.
case "$(uname -m)" in
x86_64)
    "$CC" -O2 -g -fomit-frame-pointer -pthread "$DATA/prog.c" -o prog-o2 || fail "cc -O2 prog.c"
    if perf record -q -e cpu-clock --call-graph dwarf -o dwarf.data ./prog-o2 > /dev/null 2>&1; then
        same_as_perf_script dwarf.data
        # But for the odd sample of a page fault on a new thread's first touch of its stack:
        # its stack copy is empty, perf shows its kernel frames alone, profkit the user
        # instruction pointer (clone3) above them (docs/formats/perf-data.md).
        expect_eq "$(grep -v exc_page_fault direct.folded | glibc_names | sort)" \
            "$(grep -v exc_page_fault script.folded | glibc_names | sort)" \
            "every unwound stack as perf script's"
        expect_contains "$(grep ';main;' direct.folded)" "spin" "main's calls down to spin"
        expect_status 0 "$PROFKIT" info dwarf.data
        expect_contains "$OUT" "user stacks unwound" "the unwound samples counted"
        expect_status 0 "$PROFKIT" convert dwarf.data --no-unwind --to folded -o ip.folded
        expect_eq "$(grep -c '__libc_start_call_main;main' ip.folded)" 0 \
            "--no-unwind: the instruction pointer's frames alone"
    fi
    ;;
esac

# ---- a stripped program: frames nothing names, named as perf script names them ------------------
"$CC" -O0 -fno-omit-frame-pointer -pthread "$DATA/prog.c" -o stripped && strip stripped ||
    fail "cc prog.c, strip"
if perf record -q -e cpu-clock -g -o stripped.data ./stripped > /dev/null 2>&1; then
    expect_status 0 "$PROFKIT" convert stripped.data --to folded -o direct.folded
    perf script -i stripped.data 2> /dev/null |
        "$PROFKIT" convert --from perf-script - --to folded -o script.folded 2> /dev/null
    expect_contains "$(cat direct.folded)" ";[stripped];[stripped]" "a stripped binary's frames"
    expect_not_contains "$(cat direct.folded)" ";0x" "no frame left an address"
    expect_eq "$(stacks_from direct.folded '[stripped]')" \
        "$(stacks_from script.folded '[stripped]')" "the stripped program's stacks as perf script's"
fi

finish
