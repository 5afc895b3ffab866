# SPDX-License-Identifier: MIT
"""Folded stacks of the events of `jfr print --json` (the JDK's own parser) as profkit names
them (docs/formats/jfr.md): root first, Java frames as package.Class.method, native code (frame
types "C++" and "Kernel", and "Native" frames whose class is a library or nothing, as
async-profiler writes them) as the symbol alone, a kernel one marked "_[k]"; one line per stack with its count, or with the
sum of a field (--weight FIELD), the allocated class as the leaf (--leaf-class FIELD)."""
import argparse
import collections
import json
import re
import sys

PRIMITIVES = {"B": "byte", "C": "char", "D": "double", "F": "float", "I": "int", "J": "long",
              "S": "short", "Z": "boolean"}


def is_library(name):
    return bool(re.search(r"\.so(\.|$)", name)) or name.endswith((".dylib", ".dll"))


def frame_name(frame):
    cls = frame["method"]["type"]["name"].replace("/", ".")
    method = frame["method"]["name"]
    kind = frame.get("type")
    if kind == "Kernel":
        return method + "_[k]"
    if kind == "C++" or (kind == "Native" and (not cls or is_library(cls))):
        return method
    return cls + "." + method


def source_name(binary):
    """An array class as Java source writes it: "[[I" is int[][], "[Lx.Y;" is x.Y[]."""
    name = binary.replace("/", ".")
    dims = len(name) - len(name.lstrip("["))
    base = name[dims:]
    if dims and base.startswith("L") and base.endswith(";"):
        base = base[1:-1]
    elif dims and base in PRIMITIVES:
        base = PRIMITIVES[base]
    return base + "[]" * dims


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--weight")
    parser.add_argument("--leaf-class")
    args = parser.parse_args()
    counts = collections.Counter()
    for event in json.load(sys.stdin)["recording"]["events"]:
        values = event["values"]
        trace = values.get("stackTrace")
        frames = [frame_name(f) for f in trace["frames"]] if trace else []
        stack = list(reversed(frames))
        if args.leaf_class and values.get(args.leaf_class):
            stack.append(source_name(values[args.leaf_class]["name"]))
        counts[";".join(stack)] += int(values[args.weight]) if args.weight else 1
    for stack, count in sorted(counts.items()):
        if count:
            print(stack, count)


main()
