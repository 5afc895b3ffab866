#!/usr/bin/env python3
"""Writes java-symbols.prof: a gperftools CPU profile of the Java variant (header version 1,
32-bit little-endian) whose symbol text has a line of every form pprof's legacy parser knows,
with the "--- symbol" and "binary=" lines of a symbolized profile around them.
Usage: make_java.py DIRECTORY"""
import os
import struct
import sys

words = [0, 3, 1, 10000, 0]  # header: version 1, period 10000 us
records = [
    (3, [0x10, 0x11, 0x12]),  # leaf first
    (2, [0x13, 0x11, 0x12]),
    (1, [0x14, 0x12]),
    (4, [0x15]),
    (1, [0x16, 0x12]),
    (2, [0x17, 0x12]),
]
for count, pcs in records:
    words += [count, len(pcs)] + pcs
words += [0, 1, 0]  # trailer
text = """--- symbol
binary=/usr/lib/jvm/bin/java
 0x00000010 com.example.Parser.parse (Parser.java:42)
0x11    com.example.Main.run (Main.java:-1)
0x00000012 com.example.Main.main (Main.java:7)
0x13 Interpreter (/usr/lib/jvm/lib/server/libjvm.so)
0x14 a generated stub/JIT frame
0x15 GC
0x16 com.example.Main.run (Main.java:9)
0x17 java.util.HashMap.get (HashMap.java:x)
0x99 com.example.Unused.never (Unused.java:1)
0xZZ not an address
---
"""
with open(os.path.join(sys.argv[1], "java-symbols.prof"), "wb") as f:
    f.write(struct.pack("<%dI" % len(words), *words))
    f.write(text.encode())
