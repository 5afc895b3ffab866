#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes large Android profiles for bench/bench_android.sh, laid out as the fixtures of
tests/data/simpleperf and tests/data/art are (their make_fixtures.py say from what):

  gen_android.py simpleperf OUT MB   a simpleperf report of about MB megabytes: 4 threads,
                                     2,000 distinct call chains 12 to 40 entries deep over 60
                                     files, one sample each 1 ms of cpu-clock, then the files'
                                     symbol tables and the threads, as simpleperf orders them
  gen_android.py art OUT MB [stream] an ART method trace (dual clock, version 3) of about MB
                                     megabytes: 4 threads taking 300 fixed call paths (1 to 30
                                     calls deep over 500 methods) again and again, in the form
                                     with a text header or, with `stream`, the streaming form
"""
import random
import struct
import sys


def varint(v):
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
    if wire == 0:
        return tag + varint(value)
    if isinstance(value, str):
        value = value.encode()
    return tag + varint(len(value)) + value


def simpleperf(out, mb):
    rnd = random.Random(39)
    files, symbols = 60, 400
    threads = [1000, 1001, 1002, 1003]
    chains = []
    for _ in range(2000):
        depth = rnd.randint(12, 40)
        body = b""
        for _ in range(depth):
            fid, sid = rnd.randrange(files), rnd.randrange(symbols)
            body += field(3, 2, field(1, 0, 0x1000 + sid * 64 + rnd.randrange(64)) +
                          field(2, 0, fid) + field(3, 0, sid))
        chains.append(body + field(4, 0, 1_000_000) + field(5, 0, 0))
    meta = field(5, 2, field(1, 2, "cpu-clock") + field(2, 2, "com.example.bench"))
    with open(out, "wb") as f:
        f.write(b"SIMPLEPERF" + struct.pack("<H", 1))
        f.write(struct.pack("<I", len(meta)) + meta)
        written, t, i = 0, 10**9, 0
        limit = mb * 1_000_000
        while written < limit:
            tid = threads[i % len(threads)]
            rec = field(1, 2, field(1, 0, t) + field(2, 0, tid) + chains[rnd.randrange(len(chains))])
            f.write(struct.pack("<I", len(rec)) + rec)
            written += 4 + len(rec)
            t += 250_000
            i += 1
        tail = [field(2, 2, field(1, 0, i) + field(2, 0, 0))]
        for fid in range(files):
            m = field(1, 0, fid) + field(2, 2, "/system/lib64/libbench%d.so" % fid)
            for sid in range(symbols):
                m += field(3, 2, "bench::module%d::function%d(int, char const*)" % (fid, sid))
            tail.append(field(3, 2, m))
        for tid in threads:
            tail.append(field(4, 2, field(1, 0, tid) + field(2, 0, 1000) +
                              field(3, 2, "worker-%d" % tid)))
        for rec in tail:
            f.write(struct.pack("<I", len(rec)) + rec)
        f.write(struct.pack("<I", 0))


def art(out, mb, stream):
    rnd = random.Random(39)
    methods = 500
    threads = [1, 2, 3, 4]
    lines = [("0x%x\tcom/example/bench/Class%d\tmethod%d\t()V\tClass%d.java" % (m * 4, m % 37, m, m % 37))
             for m in range(1, methods + 1)]
    # 300 call paths, each a fixed walk 1 to 30 calls deep, taken again and again as an app's
    # code paths are: the distinct stacks stay a few thousand, whatever the size
    scenarios = []
    for _ in range(300):
        walk, depth = [], 0
        for _ in range(rnd.randint(4, 40)):
            if depth < 30 and (depth == 0 or rnd.random() < 0.55):
                walk.append((rnd.randrange(1, methods + 1) * 4, 0))
                depth += 1
            else:
                walk.append((None, 1))
                depth -= 1
        walk += [(None, 1)] * depth
        scenarios.append(walk)
    record_count = mb * 1_000_000 // 14
    buf = bytearray(record_count * 14)
    stacks = {tid: [] for tid in threads}
    clock = {tid: 0 for tid in threads}
    pos, n = 0, 0
    while n < record_count:
        tid = threads[rnd.randrange(len(threads))]
        st = stacks[tid]
        for mid, action in scenarios[rnd.randrange(len(scenarios))]:
            if n == record_count:
                break
            if action == 0:
                st.append(mid)
            else:
                mid = st.pop()
            clock[tid] += rnd.randint(1, 5)
            wall = clock[tid]
            struct.pack_into("<HIII", buf, pos, tid, mid | action, wall * 3 // 4, wall)
            pos += 14
            n += 1
    start = 1_700_000_000_000_000
    thread_lines = ["%d\tworker-%d" % (t, t) for t in threads]
    if not stream:
        header = "\n".join(["*version", "3", "data-file-overflow=false", "clock=dual", "vm=art",
                            "*threads"] + thread_lines + ["*methods"] + lines + ["*end"]) + "\n"
        with open(out, "wb") as f:
            f.write(header.encode())
            f.write(struct.pack("<IHHQH", 0x574F4C53, 3, 32, start, 14).ljust(32, b"\0"))
            f.write(buf)
        return
    with open(out, "wb") as f:
        f.write(struct.pack("<IHHQH", 0x574F4C53, 0xF3, 32, start, 14).ljust(32, b"\0"))
        for t in threads:
            name = ("worker-%d" % t).encode()
            f.write(struct.pack("<HBHH", 0, 2, t, len(name)) + name)
        for line in lines:
            data = (line + "\n").encode()
            f.write(struct.pack("<HBH", 0, 1, len(data)) + data)
        f.write(buf)
        summary = ("\n".join(["*version", "3", "data-file-overflow=false", "clock=dual", "vm=art",
                              "*threads"] + thread_lines + ["*methods", "*end"]) + "\n").encode()
        f.write(struct.pack("<HBI", 0, 3, len(summary)) + summary)


if __name__ == "__main__":
    kind, out, mb = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if kind == "simpleperf":
        simpleperf(out, mb)
    else:
        art(out, mb, len(sys.argv) > 4 and sys.argv[4] == "stream")
