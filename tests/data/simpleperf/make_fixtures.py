#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the simpleperf report fixtures of this folder (see README): "SIMPLEPERF", the
version 1 as a little-endian u16, then Record messages each after its size as a little-endian
u32, and a size of 0. The messages are encoded here field by field from the field numbers of
src/formats/simpleperf/simpleperf_report.proto (simpleperf's cmd_report_sample.proto, read for
facts). Run it from this folder; the files are committed, so tests never run it. Check a record
with `protoc-c --decode=simpleperf_report_proto.Record`."""
import struct

VARINT, BYTES = 0, 2


def varint(v):
    if v < 0:
        v += 1 << 64  # negative int32 values take ten bytes, as protobuf writes them
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(number, wire, value):
    tag = varint(number << 3 | wire)
    if wire == VARINT:
        return tag + varint(value)
    if isinstance(value, str):
        value = value.encode()
    return tag + varint(len(value)) + value


def entry(file_id, symbol_id, vaddr, execution_type=None):
    m = field(1, VARINT, vaddr) + field(2, VARINT, file_id) + field(3, VARINT, symbol_id)
    if execution_type is not None:
        m += field(4, VARINT, execution_type)
    return m


def sample(time, tid, chain, count, event=0):
    m = field(1, VARINT, time) + field(2, VARINT, tid)
    for e in chain:
        m += field(3, BYTES, entry(*e))
    return field(1, BYTES, m + field(4, VARINT, count) + field(5, VARINT, event))


def lost(sample_count, lost_count):
    return field(2, BYTES, field(1, VARINT, sample_count) + field(2, VARINT, lost_count))


def file(fid, path, symbols, mangled=()):
    m = field(1, VARINT, fid) + field(2, BYTES, path)
    for s in symbols:
        m += field(3, BYTES, s)
    for s in mangled:
        m += field(4, BYTES, s)
    return field(3, BYTES, m)


def thread(tid, pid, name):
    return field(4, BYTES, field(1, VARINT, tid) + field(2, VARINT, pid) + field(3, BYTES, name))


def meta_info(events, package=None, offcpu=False):
    m = b"".join(field(1, BYTES, e) for e in events)
    if package:
        m += field(2, BYTES, package) + field(3, BYTES, "debuggable")
        m += field(4, BYTES, "34") + field(5, BYTES, "userdebug")
    return field(5, BYTES, m + field(6, VARINT, 1 if offcpu else 0))


def context_switch(on, time, tid):
    return field(6, BYTES, field(1, VARINT, 1 if on else 0) + field(2, VARINT, time) +
                 field(3, VARINT, tid))


def report(records):
    out = bytearray(b"SIMPLEPERF" + struct.pack("<H", 1))
    for r in records:
        out += struct.pack("<I", len(r)) + r
    return bytes(out + struct.pack("<I", 0))


# files: 0 the app's native library, 1 libc, 2 the JIT cache, 3 the kernel
NATIVE, LIBC, JIT, KERNEL = 0, 1, 2, 3
HELPER, COMPUTE, EMPTY = (NATIVE, 1, 0x2010), (NATIVE, 0, 0x1f00), (NATIVE, 2, 0x2200)
UNKNOWN = (NATIVE, -1, 0x1234)
INIT, MEMCPY = (LIBC, 0, 0x5000), (LIBC, 1, 0x6100)
ON_CREATE, RUN = (JIT, 0, 0x10, 2), (JIT, 1, 0x20, 2)
SYSCALL = (KERNEL, 0, 0xffffffc000100000)

MS = 1_000_000


def app_records():
    main, render = 4242, 4250
    t = 5_000_000_000
    chains = [  # (thread, callchain innermost first, samples)
        (main, [HELPER, COMPUTE, ON_CREATE, INIT], 3),
        (main, [MEMCPY, COMPUTE, ON_CREATE, INIT], 2),
        (main, [UNKNOWN, ON_CREATE, INIT], 1),
        (main, [EMPTY, ON_CREATE, INIT], 1),
        (render, [SYSCALL, MEMCPY, RUN], 2),
    ]
    records = [meta_info(["cpu-clock:u", "cpu-cycles"], "com.example.app")]
    for tid, chain, n in chains:
        for _ in range(n):
            records.append(sample(t, tid, chain, MS))
            t += MS
    records.append(sample(t, render, [MEMCPY, RUN], 5000, event=1))
    records.append(context_switch(False, t + 10, render))
    records += [
        lost(10, 1),
        file(NATIVE, "/data/app/com.example.app/lib/arm64/libnative.so",
             ["compute()", "helper(int)", ""], ["_Z7computev", "_Z6helperi", "_Z5emptyv"]),
        file(LIBC, "/apex/com.android.runtime/lib64/bionic/libc.so", ["__libc_init", "memcpy"]),
        file(JIT, "[JIT app cache]",
             ["com.example.app.MainActivity.onCreate", "com.example.app.Worker.run"]),
        file(KERNEL, "[kernel.kallsyms]", ["el0_svc"]),
        thread(main, main, "com.example.app"),
        thread(render, main, "RenderThread"),
    ]
    return records


def names_first_records():
    """Files and threads before the samples, no meta info: sample ids name event types the file
    never lists, and one frame names a file no record describes."""
    tid = 77
    return [
        file(0, "/system/bin/app_process64", ["main"]),
        file(1, "/system/lib64/libart.so", ["art_quick_invoke_stub", "ExecuteSwitchImpl"]),
        thread(tid, tid, "main"),
        sample(1_000, tid, [(1, 1, 0x300), (1, 0, 0x200), (0, 0, 0x100)], 250, event=3),
        sample(2_000, tid, [(1, 0, 0x210), (0, 0, 0x100)], 250, event=3),
        sample(3_000, tid, [(9, 0, 0x42), (0, 0, 0x100)], 250, event=3),
    ]


def main():
    with open("app.simpleperf", "wb") as f:
        f.write(report(app_records()))
    with open("names-first.simpleperf", "wb") as f:
        f.write(report(names_first_records()))


if __name__ == "__main__":
    main()
