#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs of consecutive samples in one leaf function, computed from a profile itself, as JSON:
a list of [leaf name, start, weight] per thread, times in ms from the profile's first sample.

  sample_runs.py cpuprofile FILE     a .cpuprofile: sample i at startTime plus the deltas so far,
                                     lasting until sample i + 1 (the last one nothing), as
                                     DevTools weighs them; runs weighing nothing are left out
  sample_runs.py perf FILE           `perf script` text: {tid: runs}, the leaf the first frame
                                     line's symbol, each sample weighing its period (ns)
  sample_runs.py firefox FILE        a Firefox Profiler file profkit wrote: {tid: runs} of its
                                     samples' times and weights
  sample_runs.py speedscope FILE     speedscope_import.js's output with SPEEDSCOPE_TIME_ORDER=1:
                                     the frame on top of the first profile's time order between
                                     two of its events (instants left out)
"""
import json
import re
import sys


def merge(samples):
    """samples: [name, start, weight] in time order -> runs, the weightless left out."""
    runs = []
    for name, start, weight in samples:
        if runs and runs[-1][0] == name:
            runs[-1][2] += weight
        else:
            runs.append([name, start, weight])
    kept = []
    for run in runs:
        if run[2] <= 0:
            continue
        if kept and kept[-1][0] == run[0]:
            kept[-1][2] += run[2]
        else:
            kept.append(run)
    return kept


def relative(runs, origin, scale):
    return [[name, round((start - origin) * scale, 3), round(weight * scale, 3)]
            for name, start, weight in runs]


def cpuprofile(path):
    profile = json.load(open(path))
    nodes = {node["id"]: node for node in profile["nodes"]}
    times, now = [], profile["startTime"]
    for delta in profile["timeDeltas"]:
        now += delta
        times.append(now)
    samples = []
    for i, node_id in enumerate(profile["samples"]):
        name = nodes[node_id]["callFrame"]["functionName"] or "(anonymous)"
        samples.append([name, times[i], times[i + 1] - times[i] if i + 1 < len(times) else 0])
    return relative(merge(samples), times[0], 1e-3)


EVENT = re.compile(r"^\S.*?\s(\d+)(?:/(\d+))?\s+(?:\[\d+\]\s+)?(\d+\.\d+):\s+(\d+)\s")
FRAME = re.compile(r"^\s+[0-9a-f]+\s+(.+?)(?:\+0x[0-9a-f]+)?\s+\(")


def perf(path):
    per_thread, tid, first_frame = {}, None, False
    for line in open(path, encoding="utf-8", errors="replace"):
        event = EVENT.match(line)
        if event:
            tid = event.group(2) or event.group(1)
            per_thread.setdefault(tid, []).append(
                ["?", float(event.group(3)), int(event.group(4)) * 1e-9])
            first_frame = True
            continue
        frame = FRAME.match(line)
        if frame and first_frame and tid is not None:
            per_thread[tid][-1][0] = frame.group(1)
            first_frame = False
    origin = min(samples[0][1] for samples in per_thread.values())
    result = {}
    for tid, samples in per_thread.items():
        result[tid] = relative(merge(samples), origin, 1e3)
    return result


def firefox(path):
    profile = json.load(open(path))
    origin = profile["meta"].get("startTime", 0)
    result = {}
    for thread in profile["threads"]:
        strings = thread.get("stringArray") or profile.get("shared", {}).get("stringArray")
        table, stacks, frames, funcs = (thread["samples"], thread["stackTable"],
                                        thread["frameTable"], thread["funcTable"])
        samples = []
        for i in range(table["length"]):
            stack = table["stack"][i]
            name = None if stack is None else strings[funcs["name"][frames["func"][stacks["frame"][stack]]]]
            weight = table["weight"][i] if table.get("weight") else 0
            if name is not None:  # a gap's empty sample: the run goes on after it
                samples.append([name, table["time"][i], weight])
        runs = merge(samples)
        result[str(thread["tid"])] = relative(runs, origin, 1)
    return result


def speedscope(path):
    events = json.load(open(path))["profiles"][0]["timeOrder"]
    stack, tops = [], []
    for kind, name, at in events:
        if kind == "O":
            stack.append(name)
        else:
            stack.pop()
        top = stack[-1] if stack else None
        if tops and tops[-1][1] == at:
            tops[-1] = (top, at)
        else:
            tops.append((top, at))
    samples = [[name, at, end - at] for (name, at), (_, end) in zip(tops, tops[1:])
               if name is not None]
    runs = merge(samples)
    return runs


if __name__ == "__main__":
    kind, path = sys.argv[1], sys.argv[2]
    if kind == "speedscope":
        runs = speedscope(path)
        # speedscope's values are in the file's unit (nanoseconds from profkit).
        print(json.dumps(relative(runs, runs[0][1], 1e-6)))
    else:
        print(json.dumps({"cpuprofile": cpuprofile, "perf": perf, "firefox": firefox}[kind](path)))
