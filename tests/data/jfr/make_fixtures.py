#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the JFR fixtures of this folder that no tool here records (see README): v1.jfr, a
version 1.0 chunk as JDK 9 and 10 wrote them, and asprof.jfr, a chunk laid out as
async-profiler's `-o jfr` writes it. Both are built field by field from the format as the JDK's
own parser (jdk.jfr.internal.consumer), JDK Mission Control's (parser/v1) and async-profiler's
writer (src/flightRecorder.cpp, src/jfrMetadata.cpp) read or write it, read for facts only.
Run it from this folder; the files are committed, so tests never run it. Check a file with
`jfr summary FILE` and `jfr print --json FILE`."""
import struct


def varint(v):
    """A compressed integer: seven bits a byte, low bits first, the ninth byte whole."""
    v &= (1 << 64) - 1
    out = bytearray()
    for _ in range(8):
        if v < 0x80:
            out.append(v)
            return bytes(out)
        out.append(v & 0x7F | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def padded_varint(v, width=5):
    """async-profiler patches sizes in place: a compressed integer padded to five bytes."""
    out = bytearray()
    for i in range(width):
        b = v >> (7 * i) & 0x7F
        out.append(b | (0x80 if i < width - 1 else 0))
    return bytes(out)


def utf8(s):
    if s is None:
        return b"\x00"
    if s == "":
        return b"\x01"
    data = s.encode()
    return b"\x03" + varint(len(data)) + data


def latin1(s):
    data = s.encode("latin-1")
    return b"\x05" + varint(len(data)) + data


def utf16(s):
    units = s.encode("utf-16-be")
    codes = [units[i] << 8 | units[i + 1] for i in range(0, len(units), 2)]
    return b"\x04" + varint(len(codes)) + b"".join(varint(c) for c in codes)


def event(type_id, body, padded=False):
    """An event: its size (itself included), its type, its fields."""
    rest = varint(type_id) + body
    if padded:
        return padded_varint(len(rest) + 5) + rest
    size = len(rest) + 1
    while len(varint(size)) + len(rest) != size:
        size += 1
    return varint(size) + rest


class Metadata:
    """The metadata event: a string table, then a tree of elements (name, attributes,
    children) whose classes describe every type."""

    def __init__(self):
        self.strings = []
        self.index = {}
        self.classes = []

    def s(self, text):
        if text not in self.index:
            self.index[text] = len(self.strings)
            self.strings.append(text)
        return self.index[text]

    def add_class(self, type_id, name, fields=(), event=False, simple=False):
        """fields: (name, type id, constant pool?, array?)"""
        attrs = [("id", str(type_id)), ("name", name)]
        if event:
            attrs.append(("superType", "jdk.jfr.Event"))
        if simple:
            attrs.append(("simpleType", "true"))
        children = []
        for fname, ftype, pool, array in fields:
            fattrs = [("name", fname), ("class", str(ftype))]
            if pool:
                fattrs.append(("constantPool", "true"))
            if array:
                fattrs.append(("dimension", "1"))
            children.append(("field", fattrs, []))
        self.classes.append(("class", attrs, children))

    def element(self, name, attrs, children):
        out = varint(self.s(name)) + varint(len(attrs))
        for k, v in attrs:
            out += varint(self.s(k)) + varint(self.s(v))
        out += varint(len(children))
        for child in children:
            out += self.element(*child)
        return out

    def encode(self, start_ticks, metadata_id, padded=False):
        root = self.element("root", [], [("metadata", [], self.classes),
                                         ("region", [("locale", "en_US"), ("gmtOffset", "0")], [])])
        table = varint(len(self.strings)) + b"".join(utf8(t) for t in self.strings)
        body = varint(start_ticks) + varint(0) + varint(metadata_id) + table + root
        return event(0, body, padded)


def checkpoint(start_ticks, pools, padded=False):
    """A checkpoint: start, duration, delta to the previous checkpoint (0: none), a byte of
    flags, then the pools, each a type id, a count and its entries (a key, then the value)."""
    body = varint(start_ticks) + varint(0) + varint(0) + b"\x00" + varint(len(pools))
    for type_id, entries in pools:
        body += varint(type_id) + varint(len(entries))
        for key, value in entries:
            body += varint(key) + value
    return event(1, body, padded)


def header(major, minor, size, cpool, meta, start_ns, duration_ns, start_ticks, tps):
    # bytes 64..67: version 2 reads a file state byte (0: finished), a pad byte and a 16-bit
    # flags word whose bit 0 says integers are compressed; JMC reads one 32-bit "features" word
    # there for both versions, bit 0 the same flag; async-profiler writes it as the int 1
    return (b"FLR\0" + struct.pack(">HHqqqqqqq", major, minor, size, cpool, meta, start_ns,
                                   duration_ns, start_ticks, tps) + struct.pack(">I", 1))


def chunk(major, minor, parts, cpool_index, meta_index, start_ns, start_ticks, tps, duration_ns):
    offsets, at = [], 68
    for p in parts:
        offsets.append(at)
        at += len(p)
    head = header(major, minor, at, offsets[cpool_index], offsets[meta_index], start_ns,
                  duration_ns, start_ticks, tps)
    return head + b"".join(parts)


# Primitive types, as every writer declares them.
PRIMITIVES = [(4, "boolean"), (5, "char"), (6, "float"), (7, "double"), (8, "byte"),
              (9, "short"), (10, "int"), (11, "long"), (20, "java.lang.String")]
BOOLEAN, FLOAT, INT, LONG, STRING = 4, 6, 10, 11, 20


def v1_fixture():
    """Version 1.0: the JDK 9/10 spellings (events com.oracle.jdk.*, types
    com.oracle.jfr.types.*), the layout of version 2: events, then the checkpoint, then the
    metadata at the chunk's end, as the JDK writes a chunk."""
    T = "com.oracle.jfr.types."
    THREAD, CLASS, SYMBOL, PACKAGE, METHOD, FRAME, STACK, FRAME_TYPE, STATE = range(21, 30)
    SAMPLE, TLAB = 101, 102
    m = Metadata()
    for tid, name in PRIMITIVES:
        m.add_class(tid, name)
    m.add_class(THREAD, "java.lang.Thread", [("osName", STRING, False, False),
                                            ("osThreadId", LONG, False, False),
                                            ("javaName", STRING, False, False),
                                            ("javaThreadId", LONG, False, False)])
    m.add_class(CLASS, "java.lang.Class", [("name", SYMBOL, True, False),
                                          ("package", PACKAGE, True, False),
                                          ("modifiers", INT, False, False)])
    m.add_class(SYMBOL, T + "Symbol", [("string", STRING, False, False)], simple=True)
    m.add_class(PACKAGE, T + "Package", [("name", SYMBOL, True, False)])
    m.add_class(METHOD, T + "Method", [("type", CLASS, True, False), ("name", SYMBOL, True, False),
                                       ("descriptor", SYMBOL, True, False),
                                       ("modifiers", INT, False, False),
                                       ("hidden", BOOLEAN, False, False)])
    m.add_class(FRAME, T + "StackFrame", [("method", METHOD, True, False),
                                          ("lineNumber", INT, False, False),
                                          ("bytecodeIndex", INT, False, False),
                                          ("type", FRAME_TYPE, True, False)])
    m.add_class(STACK, T + "StackTrace", [("truncated", BOOLEAN, False, False),
                                          ("frames", FRAME, False, True)])
    m.add_class(FRAME_TYPE, T + "FrameType", [("description", STRING, False, False)], simple=True)
    m.add_class(STATE, T + "ThreadState", [("name", STRING, False, False)], simple=True)
    m.add_class(SAMPLE, "com.oracle.jdk.ExecutionSample",
                [("startTime", LONG, False, False), ("sampledThread", THREAD, True, False),
                 ("stackTrace", STACK, True, False), ("state", STATE, True, False)], event=True)
    m.add_class(TLAB, "com.oracle.jdk.ObjectAllocationInNewTLAB",
                [("startTime", LONG, False, False), ("eventThread", THREAD, True, False),
                 ("stackTrace", STACK, True, False), ("objectClass", CLASS, True, False),
                 ("allocationSize", LONG, False, False), ("tlabSize", LONG, False, False)],
                event=True)

    start_ticks, tps = 5_000_000, 1_000_000_000
    symbols = {1: utf8("V1"), 2: utf8("main"), 3: latin1("compute"), 4: utf16("helper"),
               5: utf8("java/lang/Thread"), 6: utf8("sleep"), 7: utf8("([Ljava/lang/String;)V"),
               8: utf8("()V"), 9: utf8("(J)V"), 10: utf8("java/lang"), 11: utf8("[I")}
    packages = {1: varint(10)}
    classes = {1: varint(1) + varint(0) + varint(1), 2: varint(5) + varint(1) + varint(1),
               3: varint(11) + varint(0) + varint(0)}
    methods = {1: varint(1) + varint(2) + varint(7) + varint(9) + b"\x00",
               2: varint(1) + varint(3) + varint(8) + varint(8) + b"\x00",
               3: varint(1) + varint(4) + varint(8) + varint(10) + b"\x00",
               4: varint(2) + varint(6) + varint(9) + varint(0x109) + b"\x00"}
    frame_types = {0: utf8("Interpreted"), 1: utf8("JIT compiled"), 2: utf8("Inlined"),
                   3: utf8("Native")}

    def frame(method, line, bci, ftype):
        return varint(method) + varint(line) + varint(bci) + varint(ftype)

    stacks = {
        1: b"\x00" + varint(3) + frame(3, 30, 4, 2) + frame(2, 20, 7, 1) + frame(1, 10, 1, 0),
        2: b"\x00" + varint(2) + frame(2, 21, 9, 1) + frame(1, 11, 3, 0),
        3: b"\x00" + varint(2) + frame(4, 0, 0, 3) + frame(1, 12, 5, 0),
    }
    threads = {1: utf8("main") + varint(100) + utf8("main") + varint(1),
               2: utf8("worker-1") + varint(101) + utf8("worker-1") + varint(12)}
    states = {1: utf8("STATE_RUNNABLE"), 2: utf8("STATE_SLEEPING")}

    events = []
    tick = start_ticks
    for thread, stack, state, n in [(1, 1, 1, 3), (2, 2, 1, 2), (1, 3, 2, 1), (2, 1, 1, 1)]:
        for _ in range(n):
            tick += 1_000_000
            events.append(event(SAMPLE, varint(tick) + varint(thread) + varint(stack) +
                                varint(state)))
    tick += 1_000_000
    events.append(event(TLAB, varint(tick) + varint(2) + varint(2) + varint(3) + varint(4096) +
                        varint(65536)))
    pools = [(FRAME_TYPE, list(frame_types.items())), (STATE, list(states.items())),
             (THREAD, list(threads.items())), (STACK, list(stacks.items())),
             (METHOD, list(methods.items())), (CLASS, list(classes.items())),
             (PACKAGE, list(packages.items())), (SYMBOL, list(symbols.items()))]
    parts = events + [checkpoint(tick, pools), m.encode(tick, 1)]
    return chunk(1, 0, parts, len(events), len(events) + 1, 1_700_000_000_000_000_000,
                 start_ticks, tps, tick - start_ticks)


def asprof_fixture(spans=True):
    """async-profiler's layout: version 2.0, the metadata at byte 68 (right after the header),
    an active recording and its settings, the events (each size a byte, or five bytes padded,
    patched in place), and one checkpoint with every pool at the chunk's end. Thread keys are
    OS thread ids; a thread the JVM does not know has no Java name and Java id 0. Native symbols
    are methods whose class is their library ("libc.so.6") or "" when unknown. Without spans,
    no lock and park events (events with a duration)."""
    CLASS, THREAD, LOADER, FRAME_TYPE, STATE, STACK, FRAME, METHOD, PACKAGE, SYMBOL, LEVEL = \
        range(21, 32)
    (SAMPLE, TLAB_IN, TLAB_OUT, MONITOR, PARK, CPU_LOAD, RECORDING, SETTING, LOG, WINDOW,
     LIVE) = range(101, 112)
    m = Metadata()
    for tid, name in PRIMITIVES:
        m.add_class(tid, name)
    m.add_class(CLASS, "java.lang.Class", [("classLoader", LOADER, True, False),
                                          ("name", SYMBOL, True, False),
                                          ("package", PACKAGE, True, False),
                                          ("modifiers", INT, False, False)])
    m.add_class(THREAD, "java.lang.Thread", [("osName", STRING, False, False),
                                            ("osThreadId", LONG, False, False),
                                            ("javaName", STRING, False, False),
                                            ("javaThreadId", LONG, False, False)])
    m.add_class(LOADER, "jdk.types.ClassLoader", [("type", CLASS, True, False),
                                                  ("name", SYMBOL, True, False)])
    m.add_class(FRAME_TYPE, "jdk.types.FrameType", [("description", STRING, False, False)],
                simple=True)
    m.add_class(STATE, "jdk.types.ThreadState", [("name", STRING, False, False)], simple=True)
    m.add_class(STACK, "jdk.types.StackTrace", [("truncated", BOOLEAN, False, False),
                                                ("frames", FRAME, False, True)])
    m.add_class(FRAME, "jdk.types.StackFrame", [("method", METHOD, True, False),
                                                ("lineNumber", INT, False, False),
                                                ("bytecodeIndex", INT, False, False),
                                                ("type", FRAME_TYPE, True, False)])
    m.add_class(METHOD, "jdk.types.Method", [("type", CLASS, True, False),
                                             ("name", SYMBOL, True, False),
                                             ("descriptor", SYMBOL, True, False),
                                             ("modifiers", INT, False, False),
                                             ("hidden", BOOLEAN, False, False)])
    m.add_class(PACKAGE, "jdk.types.Package", [("name", SYMBOL, True, False)])
    m.add_class(SYMBOL, "jdk.types.Symbol", [("string", STRING, False, False)], simple=True)
    m.add_class(LEVEL, "profiler.types.LogLevel", [("name", STRING, False, False)], simple=True)
    start = ("startTime", LONG, False, False)
    duration = ("duration", LONG, False, False)
    ev_thread = ("eventThread", THREAD, True, False)
    stack = ("stackTrace", STACK, True, False)
    m.add_class(SAMPLE, "jdk.ExecutionSample",
                [start, ("sampledThread", THREAD, True, False), stack,
                 ("state", STATE, True, False)], event=True)
    m.add_class(TLAB_IN, "jdk.ObjectAllocationInNewTLAB",
                [start, ev_thread, stack, ("objectClass", CLASS, True, False),
                 ("allocationSize", LONG, False, False), ("tlabSize", LONG, False, False)],
                event=True)
    m.add_class(TLAB_OUT, "jdk.ObjectAllocationOutsideTLAB",
                [start, ev_thread, stack, ("objectClass", CLASS, True, False),
                 ("allocationSize", LONG, False, False)], event=True)
    m.add_class(MONITOR, "jdk.JavaMonitorEnter",
                [start, duration, ev_thread, stack, ("monitorClass", CLASS, True, False),
                 ("previousOwner", THREAD, True, False), ("address", LONG, False, False)],
                event=True)
    m.add_class(PARK, "jdk.ThreadPark",
                [start, duration, ev_thread, stack, ("parkedClass", CLASS, True, False),
                 ("timeout", LONG, False, False), ("until", LONG, False, False),
                 ("address", LONG, False, False)], event=True)
    m.add_class(CPU_LOAD, "jdk.CPULoad", [start, ("jvmUser", FLOAT, False, False),
                                          ("jvmSystem", FLOAT, False, False),
                                          ("machineTotal", FLOAT, False, False)], event=True)
    m.add_class(RECORDING, "jdk.ActiveRecording",
                [start, duration, ev_thread, ("id", LONG, False, False),
                 ("name", STRING, False, False), ("destination", STRING, False, False),
                 ("maxAge", LONG, False, False), ("maxSize", LONG, False, False),
                 ("recordingStart", LONG, False, False),
                 ("recordingDuration", LONG, False, False)], event=True)
    m.add_class(SETTING, "jdk.ActiveSetting",
                [start, duration, ev_thread, stack, ("id", LONG, False, False),
                 ("name", STRING, False, False), ("value", STRING, False, False)], event=True)
    m.add_class(LOG, "profiler.Log", [start, ("level", LEVEL, True, False),
                                      ("message", STRING, False, False)], event=True)
    m.add_class(WINDOW, "profiler.Window", [start, duration, ev_thread], event=True)
    m.add_class(LIVE, "profiler.LiveObject",
                [start, ev_thread, stack, ("objectClass", CLASS, True, False),
                 ("allocationSize", LONG, False, False), ("allocationTime", LONG, False, False)],
                event=True)

    start_ticks, tps = 9_000_000_000, 1_000_000_000
    events = []
    # async-profiler's own events: leave tick at start, eventThread and stackTrace 0 (none)
    events.append(event(RECORDING, varint(start_ticks) + varint(0) + varint(0) + varint(1) +
                        utf8("async-profiler 3.0") + utf8("async-profiler.jfr") +
                        varint((1 << 63) - 1) + varint(0) + varint(1_700_000_000_000) +
                        varint((1 << 63) - 1)))
    for key, value in [("version", "3.0"), ("event", "cpu"), ("cstack", "fp")]:
        events.append(event(SETTING, varint(start_ticks) + varint(0) + varint(0) + varint(0) +
                            varint(RECORDING) + utf8(key) + utf8(value), padded=True))

    names = {}

    def sym(text):
        return names.setdefault(text, len(names) + 1)

    # classes: key -> (name symbol, package key); key 1 "" and the libraries are
    # async-profiler's classes of native symbols
    class_names = ["", "libc.so.6", "libjvm.so", "Demo", "java/lang/Object", "[B",
                   "java/lang/String", "java/util/concurrent/locks/ReentrantLock$NonfairSync"]
    classes = {i + 1: n for i, n in enumerate(class_names)}
    packages = {1: "java/lang", 2: "java/util/concurrent/locks"}
    package_of = {"java/lang/Object": 1, "java/lang/String": 1,
                  "java/util/concurrent/locks/ReentrantLock$NonfairSync": 2}
    C = {n: k for k, n in classes.items()}
    # methods: key -> (class key, name, descriptor, modifiers)
    method_list = [
        (C["Demo"], "main", "([Ljava/lang/String;)V", 9),
        (C["Demo"], "work", "()V", 2),
        (C["Demo"], "inner", "()I", 2),
        (C["Demo"], "write", "([B)V", 2),
        (C[""], "do_syscall_64", "(Lk;)L;", 0x100),
        (C["libc.so.6"], "__write", "()L;", 0x100),
        (C["libjvm.so"], "G1ParScanThreadState::trim_queue()", "()L;", 0x100),
        (C["libjvm.so"], "thread_native_entry", "()L;", 0x100),
        (C["libc.so.6"], "start_thread", "()L;", 0x100),
        (C[""], "unknown", "()L;", 0x100),
        (C["java/lang/Object"], "wait", "(J)V", 0x111),
    ]
    methods = {i + 1: v for i, v in enumerate(method_list)}
    M = {v[1]: k for k, v in methods.items()}
    INTERPRETED, JIT, INLINED, NATIVE, CPP, KERNEL, C1 = range(7)
    frame_types = ["Interpreted", "JIT compiled", "Inlined", "Native", "C++", "Kernel",
                   "C1 compiled"]

    def java(name, line, bci, ftype):
        return varint(M[name]) + varint(line) + varint(bci) + bytes([ftype])

    def native(name, ftype):
        return varint(M[name]) + b"\x00\x00" + bytes([ftype])

    stack_frames = {
        1: [java("inner", 31, 4, INLINED), java("work", 22, 9, JIT), java("main", 10, 2,
                                                                          INTERPRETED)],
        2: [java("work", 23, 14, JIT), java("main", 10, 2, INTERPRETED)],
        3: [native("do_syscall_64", KERNEL), native("__write", NATIVE),
            java("write", 40, 6, C1), java("main", 11, 8, INTERPRETED)],
        4: [native("G1ParScanThreadState::trim_queue()", CPP),
            native("thread_native_entry", NATIVE), native("start_thread", NATIVE)],
        5: [native("unknown", NATIVE), java("main", 12, 11, INTERPRETED)],
        6: [java("wait", 0, 0, NATIVE), java("work", 24, 20, JIT), java("main", 10, 2,
                                                                        INTERPRETED)],
    }
    stacks = {k: b"\x00" + varint(len(f)) + b"".join(f) for k, f in stack_frames.items()}
    # threads: OS thread id -> (name, Java thread id); 0 for threads the JVM does not know
    thread_list = {4001: ("main", 1), 4002: ("worker-1", 15), 4010: ("G1 Conc#0", 0)}
    tick = start_ticks
    for tid, stk, state, n in [(4001, 1, 1, 4), (4002, 2, 1, 3), (4001, 3, 1, 2),
                               (4010, 4, 0, 2), (4002, 5, 1, 1), (4001, 6, 2, 1)]:
        for _ in range(n):
            tick += 1_000_000
            events.append(event(SAMPLE, varint(tick) + varint(tid) + varint(stk) +
                                varint(state)))
    tick += 1_000_000
    events.append(event(TLAB_IN, varint(tick) + varint(4002) + varint(2) + varint(C["[B"]) +
                        varint(1024) + varint(262144)))
    events.append(event(TLAB_OUT, varint(tick) + varint(4001) + varint(1) +
                        varint(C["java/lang/String"]) + varint(1 << 20)))
    if spans:
        events.append(event(MONITOR, varint(tick) + varint(2_500_000) + varint(4002) +
                            varint(2) + varint(C["java/lang/Object"]) + b"\x00" +
                            varint(0x7F00DEAD0000)))
        events.append(event(PARK, varint(tick) + varint(7_000_000) + varint(4001) + varint(6) +
                            varint(C["java/util/concurrent/locks/ReentrantLock$NonfairSync"]) +
                            varint(0) + varint(1 << 63) + varint(0x7F00BEEF0000)))
    events.append(event(CPU_LOAD, varint(tick) + struct.pack(">fff", 0.25, 0.05, 0.5)))
    events.append(event(LOG, varint(tick) + varint(3) + utf8("Ignoring a test warning")))
    events.append(event(WINDOW, varint(tick) + varint(3_000_000) + varint(4001)))
    events.append(event(LIVE, varint(tick) + varint(4002) + varint(2) + varint(C["[B"]) +
                        varint(1024) + varint(tick - 500_000)))

    pools = [
        (FRAME_TYPE, [(i, utf8(t)) for i, t in enumerate(frame_types)]),
        (STATE, [(0, utf8("STATE_DEFAULT")), (1, utf8("STATE_RUNNABLE")),
                 (2, utf8("STATE_SLEEPING"))]),
        (THREAD, [(tid, utf8(name) + varint(tid) +
                   (utf8(name) if jid else b"\x00") + varint(jid))
                  for tid, (name, jid) in thread_list.items()]),
        (STACK, list(stacks.items())),
        (METHOD, [(k, varint(c) + varint(sym(n)) + varint(sym(d)) + varint(mod) + b"\x00")
                  for k, (c, n, d, mod) in methods.items()]),
        (CLASS, [(k, varint(0) + varint(sym(n)) + varint(package_of.get(n, 0)) + varint(0))
                 for k, n in classes.items()]),
        (PACKAGE, [(k, varint(sym(n))) for k, n in packages.items()]),
    ]
    pools.append((SYMBOL, [(k, utf8(t)) for t, k in names.items()]))
    pools.append((LEVEL, [(i, utf8(n)) for i, n in enumerate(["TRACE", "DEBUG", "INFO", "WARN",
                                                               "ERROR"])]))
    parts = [m.encode(start_ticks, 0x7FFFFFFF, padded=True)] + events + \
            [checkpoint(tick, pools, padded=True)]
    return chunk(2, 0, parts, len(parts) - 1, 0, 1_700_000_000_000_000_000, start_ticks, tps,
                 tick - start_ticks)


if __name__ == "__main__":
    with open("v1.jfr", "wb") as f:
        f.write(v1_fixture())
    with open("asprof.jfr", "wb") as f:
        f.write(asprof_fixture())
    # fuzz seeds (fuzz/corpus/jfr): async-profiler's layout without the events whose duration
    # makes a timeline span, and with them (see the README)
    with open("../../../fuzz/corpus/jfr/asprof-no-spans.jfr", "wb") as f:
        f.write(asprof_fixture(spans=False))
    with open("../../../fuzz/corpus/jfr/asprof-spans.jfr", "wb") as f:
        f.write(asprof_fixture())
