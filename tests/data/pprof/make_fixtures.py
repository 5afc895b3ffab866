#!/usr/bin/env python3
"""Writes the small profile.proto fixtures of this folder that no profiler makes on demand:

signed-values.pb  an inuse_space profile with negative and mixed-sign rows, as a delta heap
                  profile (go tool pprof -diff_base) has them
odd-strings.pb    function names with a NUL byte inside ("mid\\0nul"), a NUL byte first
                  ("\\0lead") and an empty name
same-stack.pb     one stack in three samples: labelled span=a (3), span=b (4) and unlabelled (5)
unnamed.pb        names that are not UTF-8 and functions without a name: at an address in a
                  mapping, at no address, and an address without lines

Usage: make_fixtures.py DIRECTORY. The protobuf is written by hand (Profile, ValueType,
Sample, Location, Line, Function of google/pprof's profile.proto) so that no library is needed.
"""
import os
import sys


def varint(n):
    n &= (1 << 64) - 1  # negative int64: two's complement, ten bytes
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def field_varint(number, value):
    return varint(number << 3) + varint(value)


def field_bytes(number, data):
    return varint(number << 3 | 2) + varint(len(data)) + data


def packed(number, values):
    return field_bytes(number, b"".join(varint(v) for v in values))


def profile(sample_types, functions, stacks):
    """functions: names (bytes), ids 1...; stacks: (function ids leaf first, values)."""
    strings = [b""]

    def s(text):
        if text not in strings:
            strings.append(text)
        return strings.index(text)

    out = bytearray()
    for name, unit in sample_types:
        out += field_bytes(1, field_varint(1, s(name)) + field_varint(2, s(unit)))
    for leaf_first, values in stacks:
        out += field_bytes(2, packed(1, leaf_first) + packed(2, values))
    for fid, name in enumerate(functions, 1):
        # one location per function, at no address, its line naming the function
        out += field_bytes(4, field_varint(1, fid) + field_bytes(4, field_varint(1, fid) +
                                                                  field_varint(2, 10 + fid)))
    for fid, name in enumerate(functions, 1):
        out += field_bytes(5, field_varint(1, fid) + field_varint(2, s(name)) +
                           field_varint(4, s(b"main.go")))
    for text in strings:
        out += field_bytes(6, text)
    return bytes(out)


def main():
    directory = sys.argv[1]
    # main=1 alloc=2 free=3 grow=4 shrink=5; stacks leaf first
    signed = profile([(b"inuse_space", b"bytes")],
                     [b"main", b"alloc", b"free", b"grow", b"shrink"],
                     [([2, 1], [1000]),
                      ([3, 1], [-400]),
                      ([4, 2, 1], [300]),
                      ([5, 2, 1], [-300]),
                      ([5, 1], [-250]),
                      ([1], [50])])
    with open(os.path.join(directory, "signed-values.pb"), "wb") as f:
        f.write(signed)
    odd = profile([(b"samples", b"count")],
                  [b"main", b"mid\0nul", b"\0lead", b""],
                  [([2, 1], [3]), ([3, 1], [2]), ([4, 1], [1])])
    with open(os.path.join(directory, "odd-strings.pb"), "wb") as f:
        f.write(odd)
    with open(os.path.join(directory, "unnamed.pb"), "wb") as f:
        f.write(unnamed())
    with open(os.path.join(directory, "same-stack.pb"), "wb") as f:
        f.write(same_stack())


def same_stack():
    """main;work three times: with the label span=a (3), span=b (4), and without labels (5)."""
    strings = [b"", b"samples", b"count", b"main", b"work", b"span", b"a", b"b"]
    out = bytearray(field_bytes(1, field_varint(1, 1) + field_varint(2, 2)))
    for value, label in ((3, 6), (4, 7), (5, 0)):
        labels = field_bytes(3, field_varint(1, 5) + field_varint(2, label)) if label else b""
        out += field_bytes(2, packed(1, [2, 1]) + packed(2, [value]) + labels)
    for lid in (1, 2):
        out += field_bytes(4, field_varint(1, lid) + field_bytes(4, field_varint(1, lid)))
    for fid, name in ((1, 3), (2, 4)):
        out += field_bytes(5, field_varint(1, fid) + field_varint(2, name))
    for text in strings:
        out += field_bytes(6, text)
    return bytes(out)


def unnamed():
    """main calls: "bad\\xffname" and "cut\\xc3" (not UTF-8), an unnamed function at 0x2345 in
    /bin/app, an address without lines (0x1234 in /bin/app), and an unnamed function at no
    address without a mapping."""
    strings = [b"", b"samples", b"count", b"/bin/app", b"main", b"bad\xffname", b"cut\xc3",
               b"main.go"]
    out = bytearray(field_bytes(1, field_varint(1, 1) + field_varint(2, 2)))
    for leaf_first, value in (([2, 1], 6), ([6, 1], 5), ([3, 1], 4), ([4, 1], 3), ([5, 1], 2)):
        out += field_bytes(2, packed(1, leaf_first) + packed(2, [value]))
    out += field_bytes(3, field_varint(1, 1) + field_varint(2, 0x1000) + field_varint(3, 0x9000) +
                       field_varint(5, 3))
    line = lambda fid: field_bytes(4, field_varint(1, fid))
    locations = {1: (0, 0, line(1)), 2: (0, 0, line(2)), 3: (1, 0x2345, line(4)),
                 4: (1, 0x1234, b""), 5: (0, 0, line(4)), 6: (0, 0, line(3))}
    for lid, (mapping, address, lines) in locations.items():
        out += field_bytes(4, field_varint(1, lid) + field_varint(2, mapping) +
                           field_varint(3, address) + lines)
    for fid, name in ((1, 4), (2, 5), (3, 6), (4, 0)):
        out += field_bytes(5, field_varint(1, fid) + field_varint(2, name) +
                           field_varint(4, 7 if name else 0))
    for text in strings:
        out += field_bytes(6, text)
    return bytes(out)


if __name__ == "__main__":
    main()
