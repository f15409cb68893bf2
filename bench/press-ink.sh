#!/usr/bin/env bash
# Total ink of a press file as a RIP separates it (docs/benchmarks.md): Ghostscript renders
# each page's bleed box (the marks, on every plate, left out) to CMYK through the file's own
# output intent (-dUsePDFX3Profile, tiff32nc at 150 dpi), and this prints, per page, the largest C + M + Y + K of any pixel and the mean
# ink of each plate. Default file: the newest press test file (cargo test -p
# presspack-engine --test press makes them); or give one: bench/press-ink.sh file.pdf
set -euo pipefail
cd "$(dirname "$0")/.."
pdf=${1:-$(ls -t target/press-tests/card-??????.pdf | head -1)}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
gs -q -dNOPAUSE -dBATCH -dSAFER -dUseBleedBox -dUsePDFX3Profile -sDEVICE=tiff32nc -r150 \
  -sOutputFile="$out/page-%d.tif" "$pdf"
python3 - "$out" "$pdf" <<'PY'
import glob, struct, sys

def pixels(path):
    data = open(path, "rb").read()
    endian = "<" if data[:2] == b"II" else ">"
    (ifd,) = struct.unpack(endian + "I", data[4:8])
    (count,) = struct.unpack(endian + "H", data[ifd:ifd + 2])
    tags = {}
    for i in range(count):
        entry = data[ifd + 2 + 12 * i: ifd + 14 + 12 * i]
        tag, kind, n = struct.unpack(endian + "HHI", entry[:8])
        if kind not in (3, 4):
            continue  # (an embedded ICC profile and the like: not needed)
        size = 2 if kind == 3 else 4
        if n * size <= 4:
            fmt = endian + ("H" if kind == 3 else "I") * n
            values = struct.unpack(fmt, entry[8:8 + n * size])
        else:
            (offset,) = struct.unpack(endian + "I", entry[8:12])
            fmt = endian + ("H" if kind == 3 else "I") * n
            values = struct.unpack(fmt, data[offset:offset + n * size])
        tags[tag] = values
    assert tags.get(259, (1,))[0] == 1, "uncompressed TIFF expected"
    strips = b"".join(data[o:o + c] for o, c in zip(tags[273], tags[279]))
    return strips

for page in sorted(glob.glob(sys.argv[1] + "/page-*.tif"), key=lambda p: int(p.rsplit("-", 1)[1][:-4])):
    raw = pixels(page)
    most, sums, n = 0, [0, 0, 0, 0], len(raw) // 4
    for i in range(0, len(raw), 4):
        c, m, y, k = raw[i], raw[i + 1], raw[i + 2], raw[i + 3]
        total = c + m + y + k
        if total > most:
            most = total
        sums[0] += c; sums[1] += m; sums[2] += y; sums[3] += k
    means = " ".join(f"{name} {100 * s / n / 255:.1f}%" for name, s in zip("CMYK", sums))
    print(f"{sys.argv[2]} page {page.rsplit('-', 1)[1][:-4]}: most ink {100 * most / 255:.0f}%; mean {means}")
PY
