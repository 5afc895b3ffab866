# SPDX-License-Identifier: MIT
# perf script text through the command: found by content, converted to folded stacks equal to
# stackcollapse-perf.pl's (tests/data/perf/README.md), the stackcollapse options, pprof and the
# Firefox Profiler, damage and --salvage, standard input.
. "$(dirname "$0")/lib.sh"

DATA=$SRC/tests/data/perf

sorted() {
    LC_ALL=C sort "$@"
}

# ---- found by content, whatever the name -----------------------------------------------------
cp "$DATA/prog.perf" recording.txt
expect_status 0 "$PROFKIT" info recording.txt
expect_contains "$OUT" "format                   perf-script" "probed format"
expect_contains "$OUT" "cpu-clock              nanoseconds" "period value"
# Each sample's time is measured: said for the file and per thread, first and last.
expect_contains "$OUT" "sample times             measured, 860.582027000 s to 861.330737000 s" \
    "times measured"
expect_contains "$OUT" "tid 19964    cpu-clock=105105105 cpu-clock-samples=105
    times measured: 105 samples, 860.582027000 s to 861.330737000 s" "thread's times"
expect_status 0 "$PROFKIT" info --json recording.txt
expect_contains "$OUT" '"times_approximate":false' "not approximate"
expect_contains "$OUT" '"times":{"kind":"measured","samples":151,"first_ns":860590369000,"last_ns":861324758000}' \
    "thread's times in JSON"
cp "$DATA/prog-header.perf" header.data
expect_status 0 "$PROFKIT" info header.data
expect_contains "$OUT" "perf version             6.1.192" "header property"
expect_contains "$OUT" "duration                 0.749 s" "run length"

# ---- folded stacks as stackcollapse-perf.pl writes them --------------------------------------
for name in prog prog-pid-cpu prog-no-offsets prog-srcline cxx rust multi-event inline jit names; do
    expect_status 0 "$PROFKIT" convert "$DATA/$name.perf" -o "$name.folded"
    expect_eq "$(sorted "$name.folded")" "$(sorted "$DATA/$name.folded")" "$name folded"
done
expect_status 0 "$PROFKIT" convert "$DATA/jit.perf" --perf-all --to folded
expect_eq "$(printf '%s\n' "$OUT" | sorted)" "$(sorted "$DATA/jit-all.folded")" "--perf-all"
expect_status 0 "$PROFKIT" convert "$DATA/multi-event.perf" --value instructions --to folded
expect_eq "$(printf '%s\n' "$OUT" | sorted)" "$(sorted "$DATA/multi-event-instructions.folded")" \
    "--value instructions"
expect_status 0 "$PROFKIT" convert "$DATA/prog-pid-cpu.perf" --perf-tid --to folded
expect_contains "$OUT" "prog-24922/24940;start_thread;worker;leaf_sqrt " "--perf-tid root"
# An option of this reader is refused for another input format.
expect_status 2 "$PROFKIT" convert "$DATA/prog.folded" --perf-pid --to folded

# Standard input, and a last sample without a line end.
head -c -1 "$DATA/inline.perf" | head -c -1 > no-newline.perf
expect_status 0 "$PROFKIT" convert - --to folded < no-newline.perf
expect_eq "$(printf '%s\n' "$OUT" | sorted)" "$(sorted "$DATA/inline.folded")" "no final newline"

# ---- other outputs ---------------------------------------------------------------------------
expect_status 0 "$PROFKIT" convert "$DATA/prog-pid-cpu.perf" -o prog.pb.gz
expect_status 0 "$PROFKIT" report prog.pb.gz --top 3
expect_contains "$OUT" "leaf_sqrt" "pprof report"
expect_status 0 "$PROFKIT" convert "$DATA/prog-header.perf" -o prog.firefox.json
expect_file prog.firefox.json
expect_contains "$(cat prog.firefox.json)" '"processName":"prog"' "Firefox process name"
# The command name is folded output's root only: the viewers with threads show no frame
# "prog" above the thread's frames (in the Firefox Profiler, speedscope, pprof).
roots() {
    python3 - "$@" <<'PY'
import json, sys
firefox = json.load(open(sys.argv[1]))
speedscope = json.load(open(sys.argv[2]))
print(sum(1 for f in speedscope["shared"]["frames"] if f["name"] == "prog"),
      sum(1 for t in firefox["threads"] for n in t["funcTable"]["name"]
          if t["stringArray"][n] == "prog"))
PY
}
expect_status 0 "$PROFKIT" convert "$DATA/prog.perf" -o prog.speedscope.json
expect_eq "$(roots prog.firefox.json prog.speedscope.json)" "0 0" "no command-name frame"
expect_status 0 "$PROFKIT" report prog.pb.gz --top 20
expect_not_contains "$OUT" " prog" "no command-name frame in pprof"
expect_status 0 "$PROFKIT" convert "$DATA/prog.perf" -o prog-again.folded
expect_contains "$(cat prog-again.folded)" "prog;start_thread;worker;leaf_sqrt " "folded root"

# ---- damage ----------------------------------------------------------------------------------
{ head -n 20 "$DATA/prog.perf"; echo "garbage line"; tail -n 40 "$DATA/prog.perf"; } > stray.perf
expect_status 0 "$PROFKIT" convert stray.perf --from perf --to folded
expect_contains "$ERR" "1 line that is no sample header, frame or source line was skipped (line 21)" \
    "a stray line is read past, named"
{ head -n 20 "$DATA/prog.perf"; for i in 1 2 3 4 5 6 7 8 9 10; do echo "garbage line $i"; done
  tail -n 40 "$DATA/prog.perf"; } > damaged.perf
expect_status 1 "$PROFKIT" convert damaged.perf --from perf --to folded
expect_contains "$ERR" "line 29 is not perf script output" "damage names the line"
expect_contains "$ERR" "--salvage" "salvage suggested"
expect_status 0 "$PROFKIT" convert damaged.perf --from perf --to folded --salvage
expect_contains "$ERR" "line 29" "salvage warning names the line"
# Shapes the collapsers' test inputs have: frames flush left, frames on event lines.
for name in flush-left two-events-ip-sym; do
    expect_status 0 "$PROFKIT" convert "$DATA/$name.perf" --to folded
    expect_eq "$(printf '%s\n' "$OUT" | sorted)" "$(sorted "$DATA/$name.folded")" "$name found, folded"
done
head -c 1000 "$DATA/prog.perf" > cut.perf
expect_status 1 "$PROFKIT" convert cut.perf --from perf --to folded
expect_contains "$ERR" "is cut short" "cut file"

[ "$FAILURES" -eq 0 ] || exit 1
echo "perf_script: $CHECKS checks passed"
