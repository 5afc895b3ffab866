#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the ART method trace fixtures of this folder (see README): a text header (*version,
*threads, *methods, *end) and the binary part (the SLOW header, then records), laid out from the
format's documentation (AOSP art/runtime/trace.cc and dmtracedump's tracedump.cc, read for facts).
Run it from this folder; the files are committed, so tests never run it."""
import struct

ENTER, EXIT, UNWIND = 0, 1, 2


def header(version, clock, threads, methods, extra=()):
    lines = ["*version", str(version), "data-file-overflow=false", "clock=" + clock,
             "vm=art"] + list(extra) + ["*threads"]
    lines += ["%d\t%s" % t for t in threads]
    lines.append("*methods")
    lines += ["0x%08x\t%s" % (mid, "\t".join(rest)) for mid, *rest in methods]
    lines.append("*end")
    return ("\n".join(lines) + "\n").encode()


def binary(version, clock, records, start_usec=1_000_000):
    dual = clock == "dual"
    if version == 1:
        size, offset = 9, 16
    elif version == 2:
        size, offset = 10, 16
    else:
        size, offset = (14 if dual else 10), 32
    head = struct.pack("<IHHQ", 0x574F4C53, version, offset, start_usec)
    if version == 3:
        head += struct.pack("<H", size)
    head = head.ljust(offset, b"\0")
    out = bytearray(head)
    for tid, mid, action, *times in records:
        out += struct.pack("<B" if version == 1 else "<H", tid)
        out += struct.pack("<I", mid | action)
        for t in times:
            out += struct.pack("<I", t)
    return bytes(out)


METHODS = [
    (0x04, "com/example/app/MainActivity", "onCreate", "(Landroid/os/Bundle;)V",
     "MainActivity.java", "24"),
    (0x08, "com/example/app/Loader", "load", "(Ljava/lang/String;)[B", "Loader.java", "51"),
    (0x0c, "com/example/app/Loader", "parse", "([B)Lcom/example/app/Model;", "Loader.java"),
    (0x10, "java/lang/String", "hashCode", "()I", "String.java"),
    (0x14, "com/example/app/Worker", "run", "()V", "Worker.java", "12"),
]
THREADS = [(1, "main"), (12, "Worker-1")]


def calls(dual):
    """main: onCreate { load { hashCode } parse { hashCode } load } ; Worker-1: run { parse }."""
    seq = [  # thread, method, action, wall usec (cpu usec = wall * 3 / 4 on each thread)
        (1, 0x04, ENTER, 0), (1, 0x08, ENTER, 10), (12, 0x14, ENTER, 12), (1, 0x10, ENTER, 20),
        (1, 0x10, EXIT, 24), (12, 0x0c, ENTER, 30), (1, 0x08, EXIT, 40), (1, 0x0c, ENTER, 40),
        (1, 0x10, ENTER, 45), (12, 0x0c, EXIT, 70), (1, 0x10, EXIT, 52), (1, 0x0c, EXIT, 80),
        (1, 0x08, ENTER, 80), (12, 0x14, EXIT, 90), (1, 0x08, EXIT, 100), (1, 0x04, EXIT, 120),
    ]
    seq.sort(key=lambda r: r[3])
    if dual:
        return [(t, m, a, w * 3 // 4, w) for t, m, a, w in seq]
    return [(t, m, a, w) for t, m, a, w in seq]


def streaming(version, clock, threads, methods, records, start_usec=1_000_000, cut_names=False):
    """The streaming form: the 32-byte header (version | 0xF0), then each thread and method
    announced (code 2 and 1 after a 0 thread id) before its first record, and the summary (code
    3) with the text header, whose *methods section is empty, as ART writes it."""
    dual = clock == "dual"
    size = 14 if dual else 10
    head = struct.pack("<IHHQ", 0x574F4C53, version | 0xF0, 32, start_usec)
    if version == 3:
        head += struct.pack("<H", size)
    out = bytearray(head.ljust(32, b"\0"))
    names = dict(threads)
    seen_threads, seen_methods = set(), set()
    info = {m[0]: m for m in methods}
    for tid, mid, action, *times in records:
        if tid not in seen_threads:
            seen_threads.add(tid)
            name = names[tid].encode()
            out += struct.pack("<HBHH", 0, 2, tid, len(name)) + name
        if mid not in seen_methods:
            seen_methods.add(mid)
            line = ("0x%x\t%s\n" % (mid, "\t".join(info[mid][1:]))).encode()
            out += struct.pack("<HBH", 0, 1, len(line)) + line
        out += struct.pack("<HI", tid, mid | action)
        for t in times:
            out += struct.pack("<I", t)
    summary = ["*version", str(version), "data-file-overflow=false", "clock=" + clock,
               "elapsed-time-usec=130", "clock-call-overhead-nsec=300", "vm=art", "pid=4242",
               "*threads"] + ["%d\t%s" % t for t in threads] + ["*methods", "*end"]
    text = ("\n".join(summary) + "\n").encode()
    out += struct.pack("<HBI", 0, 3, len(text)) + text
    return bytes(out)


def write(name, data):
    with open(name, "wb") as f:
        f.write(data)


for version in (1, 2):
    write("v%d-wall.trace" % version,
          header(version, "wall", THREADS, METHODS) + binary(version, "wall", calls(False)))
write("v3-dual.trace", header(3, "dual", THREADS, METHODS) + binary(3, "dual", calls(True)))
write("v3-cpu.trace", header(3, "thread-cpu", THREADS, METHODS) + binary(3, "thread-cpu", calls(False)))
# The streaming form of v3-dual.trace's calls (and v2, one clock: wall).
write("stream-v3-dual.trace", streaming(3, "dual", THREADS, METHODS, calls(True)))
write("stream-v2-wall.trace", streaming(2, "wall", THREADS, METHODS, calls(False)))
# Recursion and an exception: fib calls itself, the innermost call unwinds.
REC = [(0x04, "Fib", "fib", "(I)I", "Fib.java", "3"), (0x08, "Fib", "main", "([Ljava/lang/String;)V",
                                                        "Fib.java", "9")]
rec = [(1, 0x08, ENTER, 0), (1, 0x04, ENTER, 5), (1, 0x04, ENTER, 10), (1, 0x04, ENTER, 12),
       (1, 0x04, UNWIND, 20), (1, 0x04, EXIT, 26), (1, 0x04, ENTER, 30), (1, 0x04, EXIT, 34),
       (1, 0x04, EXIT, 40), (1, 0x08, EXIT, 50)]
write("v3-recursion.trace", header(3, "wall", [(1, "main")], REC) + binary(3, "wall", rec))
