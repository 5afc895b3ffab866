#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A large valgrind DHAT heap profile (dhat.out.PID JSON, in DHAT's own layout) for
bench/bench_dhat.sh:

  gen_dhat.py SIZE_MB OUT     program points until SIZE_MB, with stacks 4 to 40 frames deep
                              drawn from a program of 60,000 frames (call sites), sharing
                              prefixes as a real program's do; a quarter of the points with
                              access counts (`acc`), as DHAT writes them for small blocks

Deterministic: the same arguments give the same bytes."""
import random
import sys


def main():
    size = int(float(sys.argv[1]) * 1e6)
    out = open(sys.argv[2], "w")
    rnd = random.Random(38)
    frames = 60000
    out.write('{"dhatFileVersion":2\n,"mode":"heap","verb":"Allocated"\n,"bklt":true,'
              '"bkacc":true\n,"tu":"instrs","Mtu":"Minstr"\n,"tuth":500\n,"cmd":"./bench_prog"\n'
              ',"pid":4242\n,"te":981234567\n,"tg":512345678\n,"pps":\n')
    written = out.tell()
    stacks = [[1, 2 + rnd.randrange(50)]]
    first = True
    while written < size:
        base = stacks[-1 - rnd.randrange(min(len(stacks), 200))]
        keep = max(2, len(base) - rnd.randrange(1, 6))
        stack = base[:keep] + [51 + rnd.randrange(frames - 51)
                               for _ in range(rnd.randrange(1, 8))]
        stack = stack[:40]
        stacks.append(stack)
        tbk = 1 + int(rnd.expovariate(1 / 50))
        size_each = 8 * (1 + rnd.randrange(256))
        tb = tbk * size_each
        ebk = rnd.randrange(tbk + 1) if rnd.random() < 0.1 else 0
        gbk = rnd.randrange(tbk + 1)
        mbk = max(gbk, rnd.randrange(tbk + 1))
        text = ' %s{"tb":%d,"tbk":%d\n  ,"tl":%d\n  ,"mb":%d,"mbk":%d\n  ,"gb":%d,"gbk":%d\n' \
               '  ,"eb":%d,"ebk":%d\n  ,"rb":%d,"wb":%d\n' % (
                   "[" if first else ",", tb, tbk, tbk * rnd.randrange(1000, 100000),
                   mbk * size_each, mbk, gbk * size_each, gbk, ebk * size_each, ebk,
                   rnd.randrange(4 * tb + 1), rnd.randrange(2 * tb + 1))
        if rnd.random() < 0.25:
            acc = []
            for _ in range(rnd.randrange(1, 6)):
                acc += [-rnd.randrange(1, 64), rnd.randrange(1, 200)]
            text += '  ,"acc":[%s]\n' % ",".join(map(str, acc))
        # DHAT lists a point's frames innermost first
        text += '  ,"fs":[%s]\n  }\n' % ",".join(map(str, reversed(stack)))
        out.write(text)
        written += len(text)
        first = False
        if len(stacks) > 4000:
            del stacks[:2000]
    out.write(' ]\n,"ftbl":\n ["[root]"\n')
    out.write(' ,"0x48417B4: malloc (in /usr/libexec/valgrind/vgpreload_dhat-amd64-linux.so)"\n')
    for i in range(2, frames):
        if i < 51:
            out.write(' ,"0x%X: main (bench_prog.c:%d)"\n' % (0x109000 + i * 16, 100 + i))
        else:
            out.write(' ,"0x%X: bench::module_%d::function_%d(int, char const*) '
                      '(module_%d.cpp:%d)"\n' % (0x109000 + i * 16, i % 97, i, i % 97,
                                                 10 + i % 3000))
    out.write(' ]\n}\n')


if __name__ == "__main__":
    main()
