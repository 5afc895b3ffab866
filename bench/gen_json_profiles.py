#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Large speedscope and Firefox Profiler files of real shapes, for bench/bench_json_read.sh.

    gen_json_profiles.py KIND SOURCE MEGABYTES OUT

SOURCE is a processed Firefox Profiler file that profkit wrote from a benchmark input (its first
thread: real frames, functions, stacks and the order of its samples). Its samples are repeated,
times running on, until OUT holds about MEGABYTES. KIND is the layout written:

  firefox             the processed profile itself (profkit's own layout, version 55), repeated
  gecko               the Gecko format inside an old DevTools export ({"systemHost": {"name":
                      "Firefox"}, "duration", "profile"}): the only Firefox form speedscope's
                      importer reads; frames located "name (file:line)", which it keeps
  speedscope-sampled  a speedscope file, one sampled profile, one sample per Firefox sample
  speedscope-evented  the same as an evented profile: open and close events at each change of
                      stack, as speedscope's own exporter writes its files

Written as it goes: memory stays with the source file.
"""
import json
import sys


def chunks_of(values, size=4096):
    for i in range(0, len(values), size):
        yield values[i:i + size]


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    kind, source, megabytes, out_path = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
    with open(source) as f:
        profile = json.load(f)
    thread = profile["threads"][0]
    strings = thread["stringArray"]
    stacks, frames, funcs = thread["stackTable"], thread["frameTable"], thread["funcTable"]
    samples = thread["samples"]
    stack_of = samples["stack"]
    weights = samples.get("weight") or [1] * len(stack_of)
    times = samples["time"]
    period = (times[-1] - times[0]) / max(1, len(times) - 1) or 1.0
    span = times[-1] - times[0] + period
    target = int(megabytes * 1e6)

    def func_of_frame(frame):
        return frames["func"][frame]

    def location(func):
        name = strings[funcs["name"][func]]
        file_index = funcs["fileName"][func]
        line = funcs["lineNumber"][func]
        if file_index is None:
            return name
        return "%s (%s:%d)" % (name, strings[file_index], line or 1) if line else \
            "%s (%s)" % (name, strings[file_index])

    def path_of(stack):
        """Frame indexes, root first."""
        path = []
        while stack is not None:
            path.append(stacks["frame"][stack])
            stack = stacks["prefix"][stack]
        path.reverse()
        return path

    out = open(out_path, "w")
    written = [0]

    def put(text):
        out.write(text)
        written[0] += len(text)

    def repeats():
        """(round, index) over the samples, again and again, until the target is reached."""
        r = 0
        while written[0] < target:
            for i in range(len(stack_of)):
                yield r, i
            r += 1

    if kind == "firefox":
        # Everything but the samples as profkit wrote it; the samples repeated.
        head = dict(profile)
        rest = dict(thread)
        del rest["samples"]
        put('{"meta":%s,"libs":%s,"threads":[{' % (json.dumps(head["meta"]), json.dumps(head["libs"])))
        put(json.dumps(rest)[1:-1])
        put(',"samples":{"weightType":%s,' % json.dumps(samples.get("weightType", "samples")))
        stack_part, time_part, weight_part = [], [], []
        count = 0
        for r, i in repeats():
            stack_part.append("null" if stack_of[i] is None else str(stack_of[i]))
            time_part.append("%.3f" % (times[i] + r * span))
            weight_part.append(json.dumps(weights[i]))
            count += 1
            written[0] += len(stack_part[-1]) + len(time_part[-1]) + len(weight_part[-1]) + 3
        put('"length":%d,"stack":[%s],"time":[%s],"weight":[%s]}}]}\n' % (
            count, ",".join(stack_part), ",".join(time_part), ",".join(weight_part)))
    elif kind == "gecko":
        # One thread, GeckoMain, a frame per function located as speedscope's importer wants.
        func_count = funcs["length"]
        table = [location(f) for f in range(func_count)]
        frame_rows = ",".join("[%d,false,0,null,null,null,0,0]" % f for f in range(func_count))
        stack_rows = ",".join(
            "[%s,%d]" % ("null" if stacks["prefix"][s] is None else stacks["prefix"][s],
                         func_of_frame(stacks["frame"][s])) for s in range(stacks["length"]))
        put('{"systemHost":{"name":"Firefox"},"profile":{"meta":{"version":27,"interval":%g,'
            '"startTime":0,"product":"profkit bench"},"libs":[],"threads":[{"name":"GeckoMain",'
            '"processType":"default","pid":1,"tid":1,"stringTable":%s,'
            '"frameTable":{"schema":{"location":0,"relevantForJS":1,"innerWindowID":2,'
            '"implementation":3,"line":4,"column":5,"category":6,"subcategory":7},"data":[%s]},'
            '"stackTable":{"schema":{"prefix":0,"frame":1},"data":[%s]},'
            '"markers":{"schema":{"name":0,"startTime":1,"endTime":2,"phase":3,"category":4,'
            '"data":5},"data":[]},"samples":{"schema":{"stack":0,"time":1,"eventDelay":2},"data":['
            % (period, json.dumps(table), frame_rows, stack_rows))
        last = 0.0
        first = True
        for r, i in repeats():
            last = times[i] + r * span
            put("%s[%s,%.3f,0]" % ("" if first else ",",
                                  "null" if stack_of[i] is None else stack_of[i], last))
            first = False
        # speedscope closes what is open at the last sample: it must have an empty stack.
        put(',[null,%.3f,0]]}}]},"duration":%.3f}\n' % (last + period, last + period))
    elif kind in ("speedscope-sampled", "speedscope-evented"):
        func_count = funcs["length"]
        shared = []
        for f in range(func_count):
            frame = {"name": strings[funcs["name"][f]]}
            if funcs["fileName"][f] is not None:
                frame["file"] = strings[funcs["fileName"][f]]
            if funcs["lineNumber"][f]:
                frame["line"] = funcs["lineNumber"][f]
            shared.append(frame)
        paths = {}

        def stack_path(stack):
            if stack not in paths:
                paths[stack] = [] if stack is None else [func_of_frame(x) for x in path_of(stack)]
            return paths[stack]

        unit = "milliseconds" if samples.get("weightType") == "tracing-ms" else "none"
        put('{"$schema":"https://www.speedscope.app/file-format-schema.json","exporter":'
            '"profkit bench","name":"bench","activeProfileIndex":0,"shared":{"frames":%s},'
            '"profiles":[{"type":"%s","name":"main","unit":"%s","startValue":0,'
            % (json.dumps(shared), kind.split("-")[1], unit))
        if kind == "speedscope-sampled":
            total = 0
            sample_part, weight_part = [], []
            for r, i in repeats():
                sample_part.append(json.dumps(stack_path(stack_of[i]), separators=(",", ":")))
                weight_part.append(json.dumps(weights[i]))
                total += weights[i]
                written[0] += len(sample_part[-1]) + len(weight_part[-1]) + 2
            put('"endValue":%s,"samples":[%s],"weights":[%s]}]}\n' % (
                json.dumps(total), ",".join(sample_part), ",".join(weight_part)))
        else:
            put('"events":[')

            def transitions(before, after):
                common = 0
                while common < min(len(before), len(after)) and before[common] == after[common]:
                    common += 1
                return [("C", f) for f in reversed(before[common:])] + \
                       [("O", f) for f in after[common:]]

            # One pass over the samples as (kind, frame, time from the pass's start), made once:
            # each repetition writes it again later in time.
            step = [(weights[i] if unit != "none" else 1) for i in range(len(stack_of))]
            last_path = stack_path(stack_of[-1])
            one_pass, t, before = [], 0.0, last_path
            for i in range(len(stack_of)):
                path = stack_path(stack_of[i])
                one_pass.extend((k, f, t) for k, f in transitions(before, path))
                before = path
                t += step[i]
            pass_span = t
            first_path = stack_path(stack_of[0])
            # The first pass opens from nothing, not from the end of a pass before it.
            start = [("O", f, 0.0) for f in first_path]
            skip = len(transitions(last_path, first_path))
            rounds = 0
            first = True
            while written[0] < target:
                base = rounds * pass_span
                events = (start + one_pass[skip:]) if rounds == 0 else one_pass
                put(("" if first else ",") + ",".join(
                    '{"type":"%s","frame":%d,"at":%.3f}' % (k, f, base + at) for k, f, at in events))
                first = False
                rounds += 1
            at = rounds * pass_span
            put("".join(',{"type":"C","frame":%d,"at":%.3f}' % (f, at) for f in reversed(last_path)))
            put('],"endValue":%.3f}]}\n' % at)
    else:
        sys.exit("unknown kind " + kind)
    out.close()


if __name__ == "__main__":
    main()
