# SPDX-License-Identifier: MIT
# Sample labels: Go's pprof.Do labels and heap `bytes` labels (tests/data/pprof/labels-*.pb.gz,
# made by labels/labels.go) kept through pprof -> pprof, selected with --label and split into
# threads with --threads-by in report and convert; go tool pprof -raw shows the labels profkit
# wrote as it shows Go's own.
. "$(dirname "$0")/lib.sh"
DATA=$SRC/tests/data/pprof
CPU=$DATA/labels-cpu.pb.gz
HEAP=$DATA/labels-heap.pb.gz

# Kept without a warning, written back.
expect_status 0 "$PROFKIT" convert "$CPU" --no-symbols -o again.pb.gz
expect_not_contains "$ERR" "warning" "reading Go's labels"
expect_status 0 "$PROFKIT" convert again.pb.gz --no-symbols --label handler=login --to folded
expect_eq "$OUT" "runtime.main;main.main;runtime/pprof.Do;main.main.func1;main.work;main.spin;time.Now 30000000" \
    "login's samples after pprof -> pprof"

# --label: one key's values are alternatives, keys must all match; numbers compare as numbers.
expect_status 0 "$PROFKIT" report "$CPU" --no-symbols --label handler=search --top 1
expect_contains "$OUT" "total 80.0 ms" "--label handler=search"
expect_status 0 "$PROFKIT" report "$CPU" --no-symbols --label handler=search --label handler=login --top 1
expect_contains "$OUT" "total 110 ms" "--label of two values of a key"
expect_status 0 "$PROFKIT" report "$CPU" --no-symbols --label handler=search --label user=alice --top 1
expect_contains "$OUT" "total 0 ns" "--label of two keys: both must match"
expect_contains "$ERR" "no sample has labels that match" "an empty selection is said"
expect_status 0 "$PROFKIT" report "$HEAP" --no-symbols --label bytes=8192 --value alloc_space --top 1
expect_contains "$OUT" "total 18.5 KiB" "--label of a numeric label"
expect_status 2 "$PROFKIT" report "$CPU" --label handler
expect_contains "$ERR" "--label takes KEY=VALUE" "--label without a value"

# --threads-by: a thread per value; samples without the label keep theirs.
expect_status 0 "$PROFKIT" report "$CPU" --no-symbols --threads-by handler --threads
expect_contains "$OUT" "80.0 ms  57.14%        1  search" "--threads-by: search"
expect_contains "$OUT" "30.0 ms  21.43%        2  login" "--threads-by: login"
expect_contains "$OUT" "30.0 ms  21.43%        1  fixture" "--threads-by: unlabelled samples"
expect_status 0 "$PROFKIT" convert "$CPU" --no-symbols --threads-by handler --label user=alice \
    --to folded --with-threads
expect_eq "$OUT" "login;runtime.main;main.main;runtime/pprof.Do;main.main.func1;main.work;main.spin;time.Now 30000000" \
    "--threads-by with --label in convert"
expect_status 0 "$PROFKIT" report "$CPU" --no-symbols --threads-by nosuch --threads
expect_contains "$ERR" "no sample has the label 'nosuch'" "--threads-by a label no sample has"

# Rows that differ only in their labels: one stack, summed by the outputs without labels.
SAME=$DATA/same-stack.pb
expect_status 0 "$PROFKIT" report "$SAME" --threads
expect_contains "$OUT" "12 100.00%        1  main" "--threads counts a stack once"
for to in folded speedscope callgrind firefox bsprof; do
    expect_status 0 "$PROFKIT" convert "$SAME" --to "$to" -o "same.$to"
    expect_status 0 "$PROFKIT" convert "same.$to" --to folded
    expect_eq "$OUT" "main;work 12" "$to output of rows that differ in labels"
done
expect_status 0 "$PROFKIT" convert "$SAME" --threads-by span --to folded --with-threads
expect_eq "$(printf '%s\n' "$OUT" | LC_ALL=C sort)" "$(printf 'a;main;work 3\nb;main;work 4\nmain;main;work 5')" \
    "--threads-by of rows of one stack"

# What go tool pprof shows of the labels profkit wrote.
if need_tool go golang-go; then
    go tool pprof -raw "$CPU" 2>/dev/null | grep -E '^ +[a-z]+:\[' | sed 's/^ *//' | LC_ALL=C sort > want.txt
    go tool pprof -raw again.pb.gz 2>/dev/null | grep -E '^ +[a-z]+:\[' | sed -e 's/^ *//' \
        -e 's/ *thread:\[[^]]*\]//' -e '/^$/d' | LC_ALL=C sort > got.txt
    expect_eq "$(cat got.txt)" "$(cat want.txt)" "go tool pprof -raw: the labels of profkit's pprof"
    expect_contains "$(cat got.txt)" "handler:[login] user:[alice]" "go tool pprof -raw labels"
    expect_status 0 "$PROFKIT" convert "$HEAP" --no-symbols -o heap.pb.gz
    go tool pprof -raw "$HEAP" 2>/dev/null | grep -E '^ +bytes:\[' | LC_ALL=C sort > want.txt
    go tool pprof -raw heap.pb.gz 2>/dev/null | grep -E '^ +bytes:\[' | LC_ALL=C sort > got.txt
    expect_eq "$(cat got.txt)" "$(cat want.txt)" "go tool pprof -raw: numeric labels"
    expect_contains "$(cat got.txt)" "bytes:[8192]" "go tool pprof -raw numeric labels"
fi
finish
