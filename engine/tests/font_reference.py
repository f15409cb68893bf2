#!/usr/bin/env python3
"""Independent text widths for the engine's measurement test: advance widths (hmtx) plus
pair kerning (the legacy `kern` table, format 0) read with fontTools, for each request line
on stdin: `<font file>\t<size mm>\t<text>`. Prints one width in millimetres per line."""
import sys
from fontTools.ttLib import TTFont

fonts = {}
for line in sys.stdin:
    path, size, text = line.rstrip("\n").split("\t", 2)
    if path not in fonts:
        font = TTFont(path)
        kern = {}
        if "kern" in font:
            for table in font["kern"].kernTables:
                if table.format == 0 and getattr(table, "coverage", 1) & 1:
                    for pair, value in table.kernTable.items():
                        kern.setdefault(pair, value)
        fonts[path] = (font.getBestCmap(), font["hmtx"].metrics, kern, font["head"].unitsPerEm)
    cmap, hmtx, kern, upem = fonts[path]
    glyphs = [cmap[ord(c)] for c in text]
    units = sum(hmtx[g][0] for g in glyphs)
    units += sum(kern.get((a, b), 0) for a, b in zip(glyphs, glyphs[1:]))
    print(units / upem * float(size))
