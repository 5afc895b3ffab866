# SPDX-License-Identifier: MIT
"""Folded stacks of the jdk.ExecutionSample events of `jfr print --json` (the JDK's own
parser): root first, frames as package.Class.method, one line per stack with its count."""
import collections
import json
import sys

events = json.load(sys.stdin)["recording"]["events"]
counts = collections.Counter()
for event in events:
    trace = event["values"].get("stackTrace")
    if not trace:
        continue
    # class names as Java developers read them (the JSON keeps the binary name)
    frames = [f["method"]["type"]["name"].replace("/", ".") + "." + f["method"]["name"]
              for f in trace["frames"]]
    counts[";".join(reversed(frames))] += 1
for stack, count in sorted(counts.items()):
    print(stack, count)
