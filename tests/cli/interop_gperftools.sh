# SPDX-License-Identifier: MIT
# gperftools CPU profiles in go tool pprof and google-pprof: they read what profkit writes, and
# profkit's per-function samples of a real program's profile are google-pprof's.
. "$(dirname "$0")/lib.sh"

DATA="$SRC/tests/data/gperftools"
require_tool go "Debian package golang-go; scripts/setup.sh installs it"
require_tool google-pprof "Debian package google-perftools; scripts/setup.sh installs it"
export GOCACHE=$SCRATCH/gocache GOPATH=$SCRATCH/gopath

# google-pprof and go tool pprof read what profkit writes.
expect_status 0 "$PROFKIT" convert --no-symbols "$DATA/real.prof" -o copy.prof
expect_status 0 go tool pprof -raw copy.prof
expect_contains "$OUT" "PeriodType: cpu nanoseconds" "go tool pprof reads the output"
expect_eq "$(printf '%s\n' "$OUT" | awk '/^Samples:/{s=1;next} /^Locations/{s=0} s && $2 ~ /:$/ {n+=$1} END{print n}')" \
    298 "go tool pprof sample total"

# ---- symbols from a real program ----------------------------------------------------------------
if [ -n "${PK_GPERF_DEMO:-}" ] && [ -x "$PK_GPERF_DEMO" ]; then
    CPUPROFILE="$SCRATCH/demo.prof" CPUPROFILE_FREQUENCY=1000 "$PK_GPERF_DEMO" 2 > /dev/null 2>&1
    expect_file demo.prof
    # Per-function samples agree with google-pprof (which strips no frame here: no caller is
    # shared by every sample of this program). Both read the same profile.
    if "$PROFKIT" report --help > /dev/null 2>&1; then
        expect_status 0 "$PROFKIT" report --value samples --top 0 --wide demo.prof
        mine=$(printf '%s\n' "$OUT" | awk '$6 ~ /^(multiply|fib|hash_block|main|sort_phase)$/ {print $6, $1, $4}' | sort)
        theirs=$(google-pprof --text "$(readlink -f "$PK_GPERF_DEMO")" demo.prof 2>/dev/null |
                 awk '$6 ~ /^(multiply|fib|hash_block|main|sort_phase)$/ {print $6, $1, $4}' | sort)
        expect_eq "$mine" "$theirs" "self and total samples per function against google-pprof"
        expect_contains "$mine" "main" "main in the report"
    fi
    # Symbols were read from the program: its mapping carries the program's build ID, which
    # the maps text of the profile does not give.
    build_id=$(readelf -n "$PK_GPERF_DEMO" 2>/dev/null | sed -n 's/.*Build ID: *//p')
    if [ -n "$build_id" ]; then
        expect_status 0 "$PROFKIT" convert demo.prof -o demo.pb.gz --quiet
        expect_status 0 go tool pprof -raw demo.pb.gz
        expect_contains "$(printf '%s\n' "$OUT" | sed -n '/^Mappings/,$p')" \
            " $(readlink -f "$PK_GPERF_DEMO") $build_id " "go tool pprof: the program's build ID"
    fi
else
    echo "note: no profiled demo program in this build (libprofiler missing); its checks were not run"
fi

finish
