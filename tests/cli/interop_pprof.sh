# SPDX-License-Identifier: MIT
# pprof in and out, checked with go tool pprof: profiles written by `go tool pprof -proto` and
# by Go's runtime/pprof convert with the totals and function names pprof shows; profkit's
# output reads back in go tool pprof with the same reports. pprof.sh holds the checks that need
# profkit only (damage, round trips through profkit).
. "$(dirname "$0")/lib.sh"
DATA=$SRC/tests/data/pprof

require_tool go "Debian package golang-go; scripts/setup.sh installs it"
go version >/dev/null 2>&1 || skip "go does not run here (go version failed)"
export GOCACHE=$SCRATCH/gocache GOPATH=$SCRATCH/gopath GOFLAGS=-mod=mod GO111MODULE=auto

# The total of one sample type as go tool pprof reports it: "... of 712 total".
pprof_total() {
    go tool pprof -top -symbolize=none -sample_index="$2" "$1" 2>/dev/null |
        sed -n 's/.* of \([0-9.]*[a-zA-Z]*\) total.*/\1/p' | head -1
}

# The total of one value as profkit info reports it.
profkit_total() {
    "$PROFKIT" info "$1" 2>/dev/null | awk -v v="$2" '$1 == v && $3 == "total" { print $4 }'
}

# A report with the lines that name sample labels left out (profkit adds thread labels).
report() {
    go tool pprof "-$1" -symbolize=none "$2" 2>/dev/null | grep -v 'thread:'
}

# Per function "name flat cum" from go tool pprof -top, one value (inline marks left out).
pprof_functions() {
    go tool pprof -top -symbolize=none -nodecount=100000 -nodefraction=0 -sample_index="$2" "$1" 2>/dev/null |
        awk 'started { name = $6; for (i = 7; i <= NF; i++) name = name " " $i
                       sub(/ \(inline\)$/, "", name); print name, $1, $4 }
             /flat%/ { started = 1 }' | sort
}

# The same from profkit's own per-function summary (report --top 0 --json).
profkit_functions() {
    "$PROFKIT" report "$1" --value "$2" --top 0 --json --quiet |
        python3 -c 'import json, sys
for f in json.load(sys.stdin)["functions"]:
    print(f["name"], f["self"], f["total"])' | sort
}

# ---- legacy CPU profiles turned into profile.proto by go tool pprof -----------------------------
for spec in real.prof:298 cppbench.cpu:712 gobench.cpu:305 java.cpu:7; do
    name=${spec%%:*}
    want=${spec##*:}
    go tool pprof -symbolize=none -proto "$DATA/$name" > "$name.pb.gz" 2>/dev/null
    expect_status 0 "$PROFKIT" info "$name.pb.gz"
    expect_contains "$OUT" "format                   pprof" "$name: probed as pprof"
    expect_eq "$(profkit_total "$name.pb.gz" samples)" "$want" "$name: profkit samples total"
    expect_eq "$(pprof_total "$name.pb.gz" samples)" "$want" "$name: pprof samples total"

    # profkit's output: same totals and the same reports in go tool pprof (addresses left as
    # they are, as -symbolize=none left them)
    expect_status 0 "$PROFKIT" convert "$name.pb.gz" --no-symbols -o "$name.out.pb.gz"
    expect_eq "$(pprof_total "$name.out.pb.gz" samples)" "$want" "$name: total of profkit's output"
    expect_eq "$(pprof_total "$name.out.pb.gz" cpu)" "$(pprof_total "$name.pb.gz" cpu)" \
        "$name: cpu total of profkit's output"
    expect_eq "$(report top "$name.out.pb.gz")" "$(report top "$name.pb.gz")" "$name: -top"
    expect_eq "$(report traces "$name.out.pb.gz")" "$(report traces "$name.pb.gz")" \
        "$name: -traces"
    # -raw lists every sample: their counts add up to profkit's total
    raw_sum=$(go tool pprof -raw -symbolize=none "$name.out.pb.gz" 2>/dev/null |
        awk '/^Samples:/ { s = 1; next } /^Locations/ { s = 0 } s && $2 ~ /:$/ { n += $1 } END { print n + 0 }')
    expect_eq "$raw_sum" "$want" "$name: sum of -raw samples"

    # pprof -> pprof -> pprof keeps the reports
    expect_status 0 "$PROFKIT" convert "$name.out.pb.gz" --no-symbols --to pprof -o "$name.again.pprof"
    expect_eq "$(report top "$name.again.pprof")" "$(report top "$name.pb.gz")" "$name: -top twice"
done

# Function names survive: the Java profile names its functions in the proto; per function,
# profkit's flat and cumulative samples are pprof's.
expect_eq "$(profkit_functions java.cpu.pb.gz samples)" "$(pprof_functions java.cpu.pb.gz samples)" \
    "java: per-function flat and cum samples"
expect_status 0 "$PROFKIT" dump java.cpu.out.pb.gz
expect_contains "$OUT" '"com.example.function06"' "java: function name in profkit's output"
expect_contains "$(report top java.cpu.out.pb.gz)" "com.example.function06" "java: -top names"
# Addresses without symbols stay addresses in the binary's mapping: pprof shows [demo].
expect_contains "$(report top real.prof.out.pb.gz)" "[demo]" "real.prof: mapping names"
expect_contains "$(go tool pprof -raw -symbolize=none real.prof.out.pb.gz 2>/dev/null)" \
    "/opt/gperf-demo/build/x86_64/demo" "real.prof: mapping file"

# The Java variant's symbol text names its frames as pprof's legacy parser names them: read
# straight from the legacy files, per function the same flat and cumulative samples.
for java in "$DATA/java.cpu" "$SRC/tests/data/gperftools/java-symbols.prof"; do
    expect_eq "$(profkit_functions "$java" samples)" \
        "$(pprof_functions "$java" samples)" \
        "$(basename "$java"): per-function samples as go tool pprof reads the symbol text"
done

# Plain protobuf out and in.
expect_status 0 "$PROFKIT" convert cppbench.cpu.pb.gz --to pprof --compression 0 -o plain.pb
expect_eq "$(head -c 1 plain.pb | od -An -tx1 | tr -d ' ')" "0a" "plain output starts with sample_type"
expect_eq "$(report top plain.pb)" "$(report top cppbench.cpu.pb.gz)" "plain: -top"
gzip -dc cppbench.cpu.pb.gz > cppbench.raw.pb
expect_eq "$(profkit_total cppbench.raw.pb samples)" "712" "uncompressed input"

# ---- negative values (signed-values.pb: a delta inuse_space profile by make_fixtures.py) ----------
# Per function "name flat% cum%" as go tool pprof -top shows them, in its order.
pprof_shares() {
    go tool pprof -top -nodecount=100000 -nodefraction=0 "$1" 2>/dev/null |
        awk 'started { print $6, $2, $5 } /flat%/ { started = 1 }'
}
profkit_shares() {
    "$PROFKIT" report "$1" --top 0 --quiet |
        awk 'started { print $8, $3, $7 } /self%/ { started = 1 }'
}
SIGNED=$DATA/signed-values.pb
expect_eq "$(profkit_shares "$SIGNED")" "$(pprof_shares "$SIGNED")" \
    "signed: report shares and order equal go tool pprof -top"
expect_contains "$(profkit_shares "$SIGNED")" "shrink 23.91% 23.91%" "signed: a negative share"
expect_eq "$(profkit_functions "$SIGNED" inuse_space)" "$(pprof_functions "$SIGNED" inuse_space | sed 's/B / /; s/B$//')" \
    "signed: per-function flat and cum"
# pprof and Firefox Profiler output keep the signed rows; the others say what they leave out.
expect_status 0 "$PROFKIT" convert "$SIGNED" -o signed.out.pb.gz
expect_eq "$(pprof_shares signed.out.pb.gz)" "$(pprof_shares "$SIGNED")" "signed: pprof round trip"
expect_eq "$(report top signed.out.pb.gz)" "$(report top "$SIGNED")" "signed: -top of profkit's output"
expect_status 0 "$PROFKIT" convert "$SIGNED" --to firefox -o signed.json
expect_not_contains "$ERR" "warning" "signed: Firefox Profiler output keeps negative weights"
# A row may be written as several samples (placed times): its stack's weights add up to it.
expect_eq "$(python3 -c '
import collections, json, sys
s = json.load(open(sys.argv[1]))["threads"][0]["samples"]
sums = collections.Counter()
for stack, weight in zip(s["stack"], s["weight"]):
    sums[stack] += weight
print(sorted(v for v in sums.values() if v < 0))' signed.json)" "[-400, -300, -250]" \
    "signed: negative weights in Firefox Profiler output"
for to in folded speedscope svg; do
    expect_status 0 "$PROFKIT" convert "$SIGNED" --to "$to" -o "signed.$to"
    expect_contains "$ERR" "warning: $to output has no negative weights: 3 stacks with a negative 'inuse_space' (-950 in all) are left out" \
        "signed: $to says what it leaves out"
done
expect_eq "$(LC_ALL=C sort signed.folded)" "$(printf 'main 50\nmain;alloc 1000\nmain;alloc;grow 300\n')" \
    "signed: folded keeps the positive stacks"

# ---- profiles from Go's runtime/pprof ----------------------------------------------------------
cp "$DATA/goprof.go" .
if go run goprof.go >go-run.log 2>&1; then
    expect_status 0 "$PROFKIT" info cpu.pprof
    expect_contains "$OUT" "worker" "cpu.pprof: the labelled goroutine is a thread"
    expect_eq "$(profkit_total cpu.pprof cpu)ns" "$(go tool pprof -top -unit=ns cpu.pprof 2>/dev/null |
        sed -n 's/.* of \([0-9]*ns\) total.*/\1/p')" "cpu.pprof: cpu total"
    expect_status 0 "$PROFKIT" convert cpu.pprof -o cpu.out.pb.gz
    expect_eq "$(report top cpu.out.pb.gz)" "$(report top cpu.pprof)" "cpu.pprof: -top"
    expect_eq "$(report traces cpu.out.pb.gz)" "$(report traces cpu.pprof)" "cpu.pprof: -traces"
    expect_contains "$(report top cpu.out.pb.gz)" "main.leafWork (inline)" "inlined frame kept"
    expect_eq "$(profkit_functions cpu.pprof samples)" "$(pprof_functions cpu.pprof samples)" \
        "cpu.pprof: per-function flat and cum samples"
    expect_eq "$(profkit_functions heap.pprof alloc_objects)" \
        "$(pprof_functions heap.pprof alloc_objects)" "heap.pprof: per-function alloc_objects"
    expect_contains "$(go tool pprof -traces cpu.out.pb.gz 2>/dev/null)" "thread:  worker" \
        "thread label written"

    expect_status 0 "$PROFKIT" info heap.pprof
    expect_contains "$OUT" "inuse_space            bytes          total" "heap: value types"
    expect_contains "$OUT" "(default)" "heap: a default value"
    expect_status 0 "$PROFKIT" convert heap.pprof -o heap.out.pb.gz
    for index in alloc_objects alloc_space inuse_objects inuse_space; do
        expect_eq "$(pprof_total heap.out.pb.gz $index)" "$(pprof_total heap.pprof $index)" \
            "heap: $index total"
    done
    expect_eq "$(report top heap.out.pb.gz)" "$(report top heap.pprof)" "heap: -top"
else
    fail "go run goprof.go failed"
    sed 's/^/  go: /' go-run.log | head -20 >&2
fi

# ---- a Roku BrightScript profile ------------------------------------------------------------------
ROKU=$SRC/examples/roku-channel.bsprof
if "$PROFKIT" formats | grep -q '^bsprof .*read' && [ -f "$ROKU" ]; then
    expect_status 0 "$PROFKIT" convert "$ROKU" -o roku.pb.gz
    expect_eq "$(pprof_total roku.pb.gz cpu)" "$(profkit_total "$ROKU" cpu)operations" \
        "roku: cpu total in go tool pprof"
    # BrightScript functions in go tool pprof -top, with profkit's own per-function numbers
    expect_contains "$(report top roku.pb.gz)" "PadLeft" "roku: frames in go tool pprof -top"
    expect_eq "$(pprof_functions roku.pb.gz calls)" "$(profkit_functions "$ROKU" calls)" \
        "roku: per-function calls"
    expect_eq "$(pprof_functions roku.pb.gz cpu | sed 's/operations//g')" \
        "$(profkit_functions "$ROKU" cpu)" "roku: per-function cpu"
    # The memory values carry Go's heap sample type names (docs/formats/memory-values.md), so
    # that -sample_index selects them; -unit=B shows every total as a plain number.
    for value in alloc_objects alloc_space inuse_objects inuse_space; do
        go tool pprof -top -unit=B -symbolize=none -sample_index=$value roku.pb.gz \
            > "top.$value" 2>/dev/null
        expect_contains "$(cat "top.$value")" "Type: $value" "roku: -sample_index=$value selects it"
        expect_eq "$(sed -n 's/.* of \([0-9]*\)B total.*/\1/p' "top.$value" | head -1)" \
            "$(profkit_total "$ROKU" $value)" "roku: $value total in go tool pprof"
    done
else
    echo "note: no bsprof reader or example in this build; the Roku checks were not run"
fi

# ---- period of BR and Apple Sampler profiles; threads of one name ----------------------------------
# Neither file states an interval: a period of one sample.
for input in br-profile-sampled-synthetic.bin br-profile-timed-synthetic.bin sampler-synthetic.sample; do
    expect_status 0 "$PROFKIT" convert "$SRC/tests/data/$input" -o period.pb.gz --quiet
    expect_status 0 go tool pprof -raw period.pb.gz
    expect_contains "$OUT" "PeriodType: samples count" "$input: period type"
    expect_contains "$OUT" "Period: 1" "$input: period"
done
# The six RowListItem components of the example are six thread label values in pprof.
expect_status 0 "$PROFKIT" convert "$SRC/examples/roku-channel.bsprof" -o channel.pb.gz --quiet
expect_status 0 go tool pprof -tags -symbolize=none channel.pb.gz
expect_eq "$(printf '%s\n' "$OUT" | grep -c 'RowListItem (module [0-9]*)')" 6 \
    "go tool pprof -tags: six RowListItem threads"

# ---- addresses without lines, named from the binary ---------------------------------------------
if "$PROFKIT" convert --help | grep -q -- '--symbol-path' && [ -e /usr/lib/x86_64-linux-gnu/libprofiler.so.0 ] &&
   gcc -O0 -g -fno-omit-frame-pointer "$DATA/native.c" -o native \
       -Wl,--no-as-needed /usr/lib/x86_64-linux-gnu/libprofiler.so.0 2>gcc.log; then
    CPUPROFILE=native.prof CPUPROFILE_FREQUENCY=1000 ./native 2>/dev/null
    go tool pprof -symbolize=none -proto ./native native.prof > native.pb.gz 2>/dev/null
    expect_status 0 "$PROFKIT" convert native.pb.gz --to folded -o native.folded
    expect_contains "$(cat native.folded)" "main;middle;leaf " "native: stacks named from the binary"
    expect_contains "$(cat native.folded)" "main;other " "native: second stack"
    expect_status 0 "$PROFKIT" convert native.pb.gz --to folded --no-symbols -o native.raw.folded
    expect_not_contains "$(cat native.raw.folded)" "middle" "native: --no-symbols keeps addresses"
    expect_contains "$(cat native.raw.folded)" "0x" "native: address names"
    # the symbolized output reads in go tool pprof without the binary, with the same numbers
    expect_status 0 "$PROFKIT" convert native.pb.gz -o native.out.pb.gz
    want=$(profkit_functions native.pb.gz samples | grep -E '^(leaf|middle|other|main) ')
    expect_contains "$want" "middle 0 " "native: profkit's per-function samples"
    mv native native.moved
    expect_eq "$(pprof_functions native.out.pb.gz samples | grep -E '^(leaf|middle|other|main) ')" \
        "$want" "native: per-function samples in go tool pprof"
else
    echo "note: no symbolization pass, gcc or libprofiler in this build; the native checks were not run"
fi

# The program a profile is of: pprof takes the first mapping for it ("File:" in -top), so the
# program's mapping comes first, not the first one the input met (callgrind's run starts in the
# dynamic loader, perf's samples in the kernel), and locations keep their own mappings.
for case in "callgrind/callgrind.out.prog prog" "perf/cxx.perf cxx" "perf/rust.perf rs" \
            "perf/prog.perf prog"; do
    set -- $case
    expect_status 0 "$PROFKIT" convert "$SRC/tests/data/$1" -o main.pb.gz --no-symbols --quiet
    expect_eq "$(go tool pprof -top -symbolize=none main.pb.gz 2>/dev/null | head -1)" \
        "File: $2" "$1: the program's mapping first"
done
expect_status 0 "$PROFKIT" convert "$SRC/tests/data/callgrind/callgrind.out.prog" -o main.pb.gz \
    --no-symbols --quiet
raw=$(go tool pprof -raw -symbolize=none main.pb.gz 2>/dev/null)
libc=$(printf '%s\n' "$raw" | awk '/^Mappings/ { m = 1 } m && /libc\.so/ { sub(":", "", $1); print $1 }')
expect_contains "$(printf '%s\n' "$raw" | grep ' __libc_start_main')" "M=$libc " \
    "a libc function on libc's mapping"

finish
