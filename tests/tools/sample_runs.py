#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs of consecutive samples in one leaf function, computed from a profile itself, as JSON:
a list of [leaf name, start, weight] per thread, times in ms from the profile's first sample.

  sample_runs.py cpuprofile FILE     a .cpuprofile: sample i at startTime plus the deltas so far,
                                     lasting until sample i + 1 (the last one nothing), as
                                     DevTools weighs them; runs weighing nothing are left out
  sample_runs.py trace FILE          a Chrome trace (gzipped or not): {tid: runs} of each CPU
                                     profile (`Profile` and `ProfileChunk` events) on the thread
                                     of its `Profile` event, sample i at startTime plus the deltas
                                     so far, in time order; weighed as DevTools weighs it, until
                                     the next sample's time or the latest time reached before it
                                     if later (a delta that goes back weighs nothing), the last
                                     one nothing, and those weighing nothing left out; times in
                                     ms from each thread's first sample
  sample_runs.py perf FILE           `perf script` text: {tid: runs}, the leaf the first frame
                                     line's symbol, each sample weighing its period (ns)
  sample_runs.py firefox FILE        a Firefox Profiler file profkit wrote: {tid: runs} of its
                                     samples' times and weights
  sample_runs.py speedscope FILE [NAME]
                                     speedscope_import.js's output with SPEEDSCOPE_TIME_ORDER=1:
                                     the frame on top of the time order of the first profile (or
                                     of the profile named NAME) between two of its events
                                     (instants left out)
"""
import gzip
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


def trace(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        events = json.load(f)["traceEvents"]
    profiles = {}
    for e in events:
        if e.get("name") == "Profile":
            profiles[(e["pid"], e["id"])] = {"tid": e["tid"], "time": e["args"]["data"]["startTime"],
                                             "names": {}, "samples": [], "deltas": []}
    for e in events:
        if e.get("name") == "ProfileChunk" and (e["pid"], e["id"]) in profiles:
            profile, data = profiles[(e["pid"], e["id"])], e["args"]["data"]
            for node in data.get("cpuProfile", {}).get("nodes", []):
                profile["names"][node["id"]] = node["callFrame"]["functionName"] or "(anonymous)"
            profile["samples"] += data.get("cpuProfile", {}).get("samples", [])
            profile["deltas"] += data.get("timeDeltas", [])
    result = {}
    for profile in profiles.values():
        times, now = [], profile["time"]
        for delta in profile["deltas"]:
            now += delta
            times.append(now)
        samples, latest = [], None
        for i, node in enumerate(profile["samples"]):
            latest = times[i] if latest is None else max(latest, times[i])
            weight = max(times[i + 1], latest) - latest if i + 1 < len(times) else 0
            samples.append([profile["names"][node], times[i], weight])
        # Stable: equal times in file order. A sample that weighs nothing shows nowhere (its
        # run starts with the next one).
        samples = sorted((sample for sample in samples if sample[2] > 0), key=lambda s: s[1])
        result[str(profile["tid"])] = relative(merge(samples), samples[0][1], 1e-3)
    return result


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


def speedscope(path, name=None):
    profiles = json.load(open(path))["profiles"]
    events = next(p for p in profiles if name is None or p["name"] == name)["timeOrder"]
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
        runs = speedscope(path, sys.argv[3] if len(sys.argv) > 3 else None)
        # speedscope's values are in the file's unit (nanoseconds from profkit).
        print(json.dumps(relative(runs, runs[0][1], 1e-6)))
    else:
        print(json.dumps({"cpuprofile": cpuprofile, "trace": trace, "perf": perf,
                          "firefox": firefox}[kind](path)))
