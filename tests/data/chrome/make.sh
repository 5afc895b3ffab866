#!/usr/bin/env bash
# Remakes the fixtures of this directory with the real tools (node v20, Debian's chromium), from
# the sources in sources/. The outputs differ from run to run (times, ids, sample counts); the
# tests compute what they expect from the files themselves.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here"/sources/* "$work"/
cd "$work"

# node --cpu-prof: a .cpuprofile (nodes, samples, timeDeltas, positionTicks).
node --cpu-prof --cpu-prof-interval 500 --cpu-prof-name=node.cpuprofile work.js
cp node.cpuprofile "$here"/node-cpu-prof.cpuprofile

# node --cpu-prof on three functions taking turns: dozens of runs of one leaf, in time order.
node --cpu-prof --cpu-prof-name=alternating.cpuprofile alternate.js
cp alternating.cpuprofile "$here"/node-alternating.cpuprofile

# node --cpu-prof on a minified script: every function on line 1, told apart by its column.
node --cpu-prof --cpu-prof-interval 500 --cpu-prof-name=minified.cpuprofile minified.js
cp minified.cpuprofile "$here"/node-minified.cpuprofile

# Node's trace events with the V8 CPU profiler category, started through the inspector
# (NodeTracing.start): Profile and ProfileChunk events, durations, thread names.
node trace_profile.js node-inspector-trace.json ./work.js
cp node-inspector-trace.json "$here"/node-inspector-trace.json

# node --trace-events-enabled: B/E and X events only (the profiler category yields no samples
# this way).
node --trace-events-enabled --trace-event-categories v8,node work.js
cp node_trace.1.log "$here"/node-trace-events.json

# Headless Chromium's startup trace of a busy page: DevTools timeline events and the renderers'
# CPU profiles in chunks, in JSON.
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$work/profile" \
    --trace-startup=disabled-by-default-v8.cpu_profiler,v8.execute,devtools.timeline \
    --trace-startup-format=json --trace-startup-file="$work/startup.json" \
    --trace-startup-duration=2 "file://$work/page.html" >/dev/null 2>&1 &
browser=$!
for _ in $(seq 60); do
    [ -s startup.json ] && tail -c 3 startup.json | grep -q '}' && break
    sleep 0.5
done
kill "$browser" 2>/dev/null || true
wait "$browser" 2>/dev/null || true
gzip -9n < startup.json > "$here"/chromium-startup.trace.json.gz

# node --heap-prof: a sampling heap profile (a head tree with selfSize, samples), with a small
# sampling interval so that a short script gives a few hundred samples.
node --heap-prof --heap-prof-interval 16384 --heap-prof-name=alloc.heapprofile alloc.js
cp alloc.heapprofile "$here"/node-heap-prof.heapprofile

# The inspector's HeapProfiler.startSampling / stopSampling, as DevTools' Memory panel takes a
# profile ("Allocation sampling", with the objects the garbage collector discarded kept).
node heap_sample.js inspector.heapprofile ./alloc.js
cp inspector.heapprofile "$here"/node-inspector-sampling.heapprofile
