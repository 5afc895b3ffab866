#!/bin/sh
# SPDX-License-Identifier: MIT
# Remakes the recorded fixtures of this folder with the real tools (Debian 12: google-perftools,
# libgoogle-perftools-dev, libjemalloc2): tests/legacy_text/leak.c run under tcmalloc's
# HEAPPROFILE and under jemalloc's prof, and tests/legacy_text/sample.cc's heap growth stacks.
# The addresses are this machine's; the tests that symbolize build the program themselves.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$here/../../legacy_text
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
lib=/usr/lib/x86_64-linux-gnu
cc -O0 -g -fno-omit-frame-pointer -pthread "$src/leak.c" -o "$work/leak"
c++ -O0 -g -fno-omit-frame-pointer "$src/sample.cc" -o "$work/sample" -ltcmalloc
LD_PRELOAD=$lib/libtcmalloc.so.4 HEAPPROFILE=$work/tc "$work/leak" 2>/dev/null
cp "$work/tc.0001.heap" "$here/tcmalloc-heapprofile.heap"
MALLOC_CONF=prof:true,prof_final:true,prof_accum:true,lg_prof_sample:0,prof_prefix:$work/je \
  LD_PRELOAD=$lib/libjemalloc.so.2 "$work/leak"
cp "$work"/je.*.f.heap "$here/jemalloc-exact.heap"
rm -f "$work"/je.*
MALLOC_CONF=prof:true,prof_final:true,prof_accum:true,lg_prof_sample:12,prof_prefix:$work/je \
  LD_PRELOAD=$lib/libjemalloc.so.2 "$work/leak"
cp "$work"/je.*.f.heap "$here/jemalloc-sampled.heap"
"$work/sample" "$work/sample.heap" "$here/tcmalloc-growth.heap"
# tcmalloc here writes no samples to GetHeapSample (0 objects), so the sampled gperftools
# fixture is the HEAPPROFILE one with its header's "@ heapprofile" turned into "@ heap_v2/4096":
# the lines of a heap_v2 profile have the same shape, and pprof unsamples them.
sed '1s/@ heapprofile/@ heap_v2\/4096/' "$here/tcmalloc-heapprofile.heap" \
  > "$here/tcmalloc-heap_v2-edited.heap"
