#!/usr/bin/env python3
"""Writes the small profile.proto fixtures of this folder that no profiler makes on demand:

signed-values.pb  an inuse_space profile with negative and mixed-sign rows, as a delta heap
                  profile (go tool pprof -diff_base) has them
odd-strings.pb    function names with a NUL byte inside ("mid\\0nul"), a NUL byte first
                  ("\\0lead") and an empty name

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


if __name__ == "__main__":
    main()
