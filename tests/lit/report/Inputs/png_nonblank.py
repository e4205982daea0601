#!/usr/bin/env python3
"""Checks that a PNG screenshot is not blank: decodes it with zlib alone
(8-bit greyscale, RGB, palette, grey+alpha or RGBA, not interlaced), then
requires at least MIN_COLOURS distinct colours and at least MIN_INK of the
pixels to differ from the most common (background) colour.

Usage: png_nonblank.py FILE [MIN_COLOURS [MIN_INK]]; exit 0 when non-blank,
1 with a reason otherwise."""
import struct
import sys
import zlib


def fail(message):
    print(f"png_nonblank: {message}", file=sys.stderr)
    sys.exit(1)


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(f"{path} is not a PNG file")
    pos, idat, header, palette = 8, [], None, None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"PLTE":
            palette = body
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    if header is None:
        fail("no IHDR chunk")
    width, height, depth, colour, _, _, interlace = header
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}.get(colour)
    if depth != 8 or channels is None or interlace != 0:
        fail(f"unsupported PNG (depth {depth}, colour type {colour}, interlace {interlace})")
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    rows, prev, at = [], bytearray(stride), 0
    for _ in range(height):
        kind = raw[at]
        line = bytearray(raw[at + 1:at + 1 + stride])
        at += 1 + stride
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + b) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif kind == 4:
                line[i] = (line[i] + paeth(a, b, c)) & 0xFF
            elif kind != 0:
                fail(f"bad filter type {kind}")
        rows.append(bytes(line))
        prev = line
    pixels = []
    for line in rows:
        for x in range(width):
            px = line[x * channels:(x + 1) * channels]
            if colour == 3:
                px = palette[px[0] * 3:px[0] * 3 + 3]
            pixels.append(bytes(px[:3]) if channels >= 3 else bytes(px[:1]))
    return width, height, pixels


def main():
    if len(sys.argv) < 2:
        fail("usage: png_nonblank.py FILE [MIN_COLOURS [MIN_INK]]")
    min_colours = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    min_ink = float(sys.argv[3]) if len(sys.argv) > 3 else 0.01
    width, height, pixels = decode(sys.argv[1])
    counts = {}
    for px in pixels:
        counts[px] = counts.get(px, 0) + 1
    background = max(counts.values())
    ink = 1 - background / len(pixels)
    print(f"png_nonblank: {width}x{height}, {len(counts)} colours, "
          f"{ink:.1%} of pixels differ from the background")
    if len(counts) < min_colours:
        fail(f"only {len(counts)} colours (want at least {min_colours})")
    if ink < min_ink:
        fail(f"only {ink:.2%} of pixels differ from the background (want {min_ink:.0%})")


main()
