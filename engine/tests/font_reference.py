#!/usr/bin/env python3
"""Independent text widths for the engine's measurement tests: each request line on stdin,
`<font file>\t<size mm>\t<text>`, shaped by HarfBuzz itself (uharfbuzz, which bundles it),
with the direction and script HarfBuzz guesses from the text (so each string holds one
script). Prints one width in millimetres per line: the sum of the glyphs' advances."""
import sys

import uharfbuzz as hb

fonts = {}
for line in sys.stdin:
    path, size, text = line.rstrip("\n").split("\t", 2)
    if path not in fonts:
        with open(path, "rb") as file:
            face = hb.Face(file.read())
        fonts[path] = (hb.Font(face), face.upem)
    font, upem = fonts[path]
    buffer = hb.Buffer()
    buffer.add_str(text)
    buffer.guess_segment_properties()
    hb.shape(font, buffer)
    units = sum(position.x_advance for position in buffer.glyph_positions)
    print(units / upem * float(size))
