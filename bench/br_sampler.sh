#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Measures the BR and Sampler readers and writers on generated files (see docs/performance.md).
#   bench/br_sampler.sh BUILD_DIR [MEGABYTES] [SCRATCH_DIR]
# Prints one row per run: what, input size, wall and CPU seconds, MB/s of CPU time, peak memory.
set -euo pipefail
build=${1:?usage: bench/br_sampler.sh BUILD_DIR [MEGABYTES] [SCRATCH_DIR]}
megabytes=${2:-200}
scratch=${3:-$(mktemp -d)}
profkit=$build/profkit
mkdir -p "$scratch"

"$build/bench/gen_br" "$megabytes" 1 > "$scratch/sampled.br"
"$build/bench/gen_br" "$megabytes" 2 --timed > "$scratch/timed.br"
"$build/bench/gen_sampler" "$megabytes" 1 > "$scratch/leaf-first.sample"

measure() {
    local what=$1 input=$2
    shift 2
    local bytes
    bytes=$(stat -c %s "$input")
    # Warm the page cache so that the disk is not measured.
    cat "$input" > /dev/null
    /usr/bin/time -f "%e %U %S %M" -o "$scratch/time" "$@" > /dev/null
    read -r wall user sys peak < "$scratch/time"
    awk -v what="$what" -v bytes="$bytes" -v wall="$wall" -v user="$user" -v sys="$sys" \
        -v peak="$peak" 'BEGIN {
            cpu = user + sys
            printf "| %-34s | %6.0f MB | %6.2f s | %6.2f s | %6.0f MB/s | %6.1f MB |\n",
                   what, bytes / 1048576, wall, cpu, bytes / 1048576 / (cpu > 0 ? cpu : 0.01),
                   peak / 1024
        }'
}

echo "| run | input | wall | CPU | MB/s (CPU) | peak memory |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
measure "read br (sampled)" "$scratch/sampled.br" "$profkit" info --quiet "$scratch/sampled.br"
measure "read br (timed)" "$scratch/timed.br" "$profkit" info --quiet "$scratch/timed.br"
measure "read sampler (leaf first)" "$scratch/leaf-first.sample" \
    "$profkit" info --quiet "$scratch/leaf-first.sample"
measure "read br (timed), write br" "$scratch/timed.br" \
    "$profkit" convert --quiet "$scratch/timed.br" --to br -o "$scratch/out.br"
measure "read sampler, write sampler" "$scratch/leaf-first.sample" \
    "$profkit" convert --quiet "$scratch/leaf-first.sample" -o "$scratch/out.sample"
measure "read sampler, write br" "$scratch/leaf-first.sample" \
    "$profkit" convert --quiet "$scratch/leaf-first.sample" --to br -o "$scratch/out2.br"
ls -l "$scratch" >&2
