# SPDX-License-Identifier: MIT
"""Checks of profkit's SVG flame graphs for the CLI tests.

  svg_check.py widths GRAPH.svg [--inverted]   well-formed XML; frames nest and add up
  svg_check.py frames GRAPH.svg                prints "name<TAB>x<TAB>y<TAB>width<TAB>fill" per frame
  svg_check.py png-not-blank SHOT.png          the picture has more than one colour
"""
import bisect
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

SVG = "{http://www.w3.org/2000/svg}"


def frames(path):
    root = ET.parse(path).getroot()  # raises on malformed XML
    assert root.tag == SVG + "svg", root.tag
    area = [g for g in root if g.get("id") == "frames"]
    assert len(area) == 1, "no frames group"
    out = []
    for g in area[0]:
        title = g.find(SVG + "title").text or ""
        rect = g.find(SVG + "rect")
        out.append({
            "name": title.split("\n")[0],
            "title": title,
            "x": float(rect.get("x")),
            "y": float(rect.get("y")),
            "w": float(rect.get("width")),
            "fill": rect.get("fill"),
        })
    return root, out


def check_widths(path, inverted):
    root, fs = frames(path)
    width = float(root.get("width"))
    assert fs, "no frames"
    base = fs[0]
    assert base["name"] == "all", base
    assert abs(base["w"] - (width - 20)) < 0.02, ("root width", base["w"], width)
    step = 16.0 if inverted else -16.0
    rows = {}
    for f in fs:
        rows.setdefault(round(f["y"], 1), []).append(f)
    starts = {}
    for y, row in rows.items():
        row.sort(key=lambda f: f["x"])
        starts[y] = [f["x"] for f in row]
    for parent in fs:
        y = round(parent["y"] + step, 1)
        row, xs = rows.get(y, []), starts.get(y, [])
        i = bisect.bisect_left(xs, parent["x"] - 0.02)
        total = 0.0
        while i < len(row) and row[i]["x"] + row[i]["w"] <= parent["x"] + parent["w"] + 0.02:
            total += row[i]["w"]
            i += 1
        assert total <= parent["w"] + 0.05, ("children wider than parent", parent["name"], total, parent["w"])
        if parent is base:
            continue
        y = round(parent["y"] - step, 1)
        row, xs = rows.get(y, []), starts.get(y, [])
        i = bisect.bisect_right(xs, parent["x"] + 0.02) - 1
        ok = i >= 0 and row[i]["x"] + row[i]["w"] >= parent["x"] + parent["w"] - 0.02
        assert ok, ("frame without a parent", parent["name"], parent["y"])
    print("ok %d frames" % len(fs))


def png_rows(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    w, h, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, header
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    rows = []
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def check_png(path):
    w, h, bpp, rows = png_rows(path)
    colours = set()
    for row in rows[::4]:
        for x in range(0, w * bpp, bpp * 4):
            colours.add(row[x:x + 3])
    assert len(colours) > 8, "the screenshot is blank (%d colours)" % len(colours)
    print("ok %dx%d, %d colours sampled" % (w, h, len(colours)))


def main():
    what, path = sys.argv[1], sys.argv[2]
    if what == "widths":
        check_widths(path, "--inverted" in sys.argv[3:])
    elif what == "frames":
        for f in frames(path)[1]:
            print("%s\t%.2f\t%.1f\t%.2f\t%s" % (f["name"], f["x"], f["y"], f["w"], f["fill"]))
    elif what == "png-not-blank":
        check_png(path)
    else:
        sys.exit("unknown check " + what)


if __name__ == "__main__":
    main()
