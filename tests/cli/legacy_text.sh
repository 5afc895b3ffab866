# SPDX-License-Identifier: MIT
# Legacy text profiles on the command line: the recorded fixtures read, converted and
# reported; a program built here run under tcmalloc's HEAPPROFILE and jemalloc's prof, its
# heap profiles symbolized from it; cut and damaged files.
. "$(dirname "$0")/lib.sh"

DATA="$SRC/tests/data/legacy_text"

expect_status 0 "$PROFKIT" info "$DATA/tcmalloc-heapprofile.heap"
expect_contains "$OUT" "legacy-text" "probed as a legacy text profile"
expect_contains "$OUT" "inuse_space            bytes          total 1176666  (default)" \
    "in-use bytes are the default value"
expect_status 0 "$PROFKIT" formats
expect_contains "$OUT" "legacy-text" "the format is listed"

# Converted to pprof with Go's heap sample types; back again.
expect_status 0 "$PROFKIT" convert --no-symbols --quiet "$DATA/jemalloc-exact.heap" -o je.pb.gz
expect_status 0 "$PROFKIT" info je.pb.gz
expect_contains "$OUT" "alloc_objects" "pprof output: alloc_objects"
expect_contains "$OUT" "inuse_space" "pprof output: inuse_space"

# The leak report from the memory values: allocated, in use (unfreed) and the difference (freed).
expect_status 0 "$PROFKIT" report --memory --no-symbols "$DATA/tcmalloc-heapprofile.heap"
expect_contains "$OUT" "memory: 1.12 MiB unfreed in 102 blocks" "leak report: in use"
expect_contains "$OUT" "allocated 5.03 MiB in 1102 blocks, freed 3.91 MiB in 1000 blocks" \
    "leak report: allocated and freed"
expect_status 0 "$PROFKIT" report --memory --no-symbols "$DATA/jemalloc-exact.heap"
expect_contains "$OUT" "unfreed in 103 blocks" "leak report of a jemalloc profile"
# A Go heap profile (pprof), whose values have the same names.
expect_status 0 "$PROFKIT" report --memory --no-symbols "$SRC/tests/data/pprof/labels-heap.pb.gz"
expect_contains "$OUT" "unfreed in 469 blocks" "leak report of a Go heap profile"
# A profile without memory says so.
expect_status 0 "$PROFKIT" report --memory --no-symbols "$DATA/contention.txt"
expect_contains "$OUT" "no memory events" "no leak report without memory values"

# A file cut inside a line: the complete lines, and a warning naming the cut one.
head -c 300 "$DATA/tcmalloc-heapprofile.heap" > cut.heap
expect_status 0 "$PROFKIT" info cut.heap
expect_contains "$OUT$ERR" "ends without a line end" "the cut line is reported"
# A damaged line: an error naming its line; --salvage keeps the lines before it.
{ head -n 2 "$DATA/tcmalloc-heapprofile.heap"; echo "1: 10 [1: 10] @ nonsense"; } > bad.heap
expect_status 1 "$PROFKIT" info bad.heap
expect_contains "$ERR" "line 3" "the damaged line is named"
expect_status 0 "$PROFKIT" info --salvage bad.heap

# ---- a real program under each allocator ----------------------------------------------------------
if [ -n "${PK_LEAK_PROGRAM:-}" ] && [ -x "$PK_LEAK_PROGRAM" ]; then
    if [ -n "${PK_TCMALLOC:-}" ] && [ -e "$PK_TCMALLOC" ]; then
        LD_PRELOAD=$PK_TCMALLOC HEAPPROFILE=$SCRATCH/tc "$PK_LEAK_PROGRAM" > /dev/null 2>&1
        expect_file tc.0001.heap
        expect_status 0 "$PROFKIT" report --top 0 tc.0001.heap
        expect_contains "$OUT" "leak_big" "tcmalloc: frames named from the program"
        expect_contains "$OUT" "make_buffer" "tcmalloc: the allocating function"
        expect_contains "$OUT" "1.00 MiB" "tcmalloc: the leaked MiB"
    else
        note_not_run "tcmalloc (libgoogle-perftools-dev) not found"
    fi
    if [ -n "${PK_JEMALLOC:-}" ] && [ -e "$PK_JEMALLOC" ]; then
        MALLOC_CONF=prof:true,prof_final:true,prof_accum:true,lg_prof_sample:0,prof_prefix:$SCRATCH/je \
            LD_PRELOAD=$PK_JEMALLOC "$PK_LEAK_PROGRAM" > /dev/null 2>&1
        je=$(ls "$SCRATCH"/je.*.heap 2> /dev/null | head -n 1)
        expect_status 0 "$PROFKIT" report --top 0 --value alloc_objects "$je"
        expect_contains "$OUT" "churn" "jemalloc: frames named from the program"
        expect_status 0 "$PROFKIT" info "$je"
        expect_contains "$OUT" "thread 1" "jemalloc: the second thread's own lines"
    else
        note_not_run "jemalloc (libjemalloc-dev) not found"
    fi
fi
finish
