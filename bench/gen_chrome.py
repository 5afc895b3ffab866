#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Large Chrome JSON inputs for the streaming benchmark (bench/bench_chrome.sh), made from the
real fixtures of tests/data/chrome/ (README.md there):

  gen_chrome.py trace SIZE_MB OUT      the Chromium startup trace's events repeated, each round
                                       shifted in time past the previous one (so B/E/X events
                                       stay nested and in order and the CPU profiles' chunks
                                       continue), as {"traceEvents": [...]}, until SIZE_MB
  gen_chrome.py events SIZE_MB OUT     the same without the CPU profile events: duration events
                                       only, a plain Trace Event file
  gen_chrome.py cpuprofile SAMPLES OUT node's .cpuprofile with SAMPLES samples drawn from its
                                       own samples (deterministic), deltas as recorded

Deterministic: the same arguments give the same bytes."""
import gzip
import json
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, '..', 'tests', 'data', 'chrome')


def trace(size_mb, out, profiles=True):
    with gzip.open(os.path.join(DATA, 'chromium-startup.trace.json.gz'), 'rt') as f:
        doc = json.load(f)
    events = doc['traceEvents']
    if not profiles:
        events = [e for e in events if e.get('name') not in ('Profile', 'ProfileChunk')]
    times = [e['ts'] for e in events if isinstance(e.get('ts'), (int, float)) and e['ts'] > 0]
    span = int(max(times) - min(times)) + 1000
    # Each event once as text, split around its time so that a round only rewrites numbers.
    parts = []
    for e in events:
        text = json.dumps(e, separators=(',', ':'))
        m = re.search(r'"ts":(\d+)', text)
        if m and e.get('ph') != 'M':
            parts.append((text[:m.start(1)], int(m.group(1)), text[m.end(1):]))
        elif e.get('ph') == 'M':
            parts.append((text, None, ''))
    limit = size_mb * 1000 * 1000
    written = 0
    with open(out, 'w') as f:
        f.write('{"traceEvents":[\n')
        rounds = 0
        first = True
        while written < limit:
            offset = rounds * span
            chunk = []
            for head, ts, tail in parts:
                if ts is None:
                    if rounds:
                        continue  # names once
                    chunk.append(head)
                else:
                    chunk.append(head + str(ts + offset) + tail)
            text = (',\n' if not first else '') + ',\n'.join(chunk)
            first = False
            f.write(text)
            written += len(text)
            rounds += 1
        f.write('\n],"metadata":{"source":"gen_chrome.py"}}\n')


def cpuprofile(samples, out):
    with open(os.path.join(DATA, 'node-cpu-prof.cpuprofile')) as f:
        doc = json.load(f)
    rng = random.Random(42)
    pool = list(zip(doc['samples'], doc['timeDeltas'][1:] + [doc['timeDeltas'][-1]]))
    drawn = [rng.choice(pool) for _ in range(samples)]
    doc['samples'] = [s for s, _ in drawn]
    doc['timeDeltas'] = [max(1, d) for _, d in drawn]
    doc['endTime'] = doc['startTime'] + sum(doc['timeDeltas'])
    with open(out, 'w') as f:
        json.dump(doc, f, separators=(',', ':'))


if __name__ == '__main__':
    if len(sys.argv) != 4 or sys.argv[1] not in ('trace', 'events', 'cpuprofile'):
        sys.exit(__doc__)
    if sys.argv[1] == 'events':
        trace(int(sys.argv[2]), sys.argv[3], profiles=False)
    else:
        (trace if sys.argv[1] == 'trace' else cpuprofile)(int(sys.argv[2]), sys.argv[3])
