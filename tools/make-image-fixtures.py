#!/usr/bin/env python3
"""Writes the image fixtures of tests/e2e/images/ (see the README.md there for what each is for).

How to run, from the repository root:

    python3 -m pip install Pillow==13.0.0       # the version the committed fixtures were made with
    python3 tools/make-image-fixtures.py        # fetches the scikit-image wheel with pip
    python3 tools/make-image-fixtures.py --wheel path/to/scikit_image-0.26.0-*.whl

The real photographs come from scikit-image's bundled sample data, read straight out of its
wheel (a zip file) without installing scikit-image: the script runs
`python3 -m pip download --no-deps scikit-image==0.26.0` into a temporary folder unless
`--wheel` names a wheel already downloaded. Each sample is checked against its SHA-256 (the same
digests as the wheel's skimage/data/_registry.py), so the inputs are always the same.

Everything else is drawn here or written by hand (the 16-bit PNG, the bombs and the PDFs), with
fixed seeds and no timestamps, so that a rerun with the same Pillow gives byte-identical files
(another Pillow may bundle another zlib or libjpeg-turbo and so other bytes, with the same
facts). At the end the script reopens every file and checks the facts the README states; it
exits non-zero if one does not hold.
"""
import argparse
import glob
import hashlib
import io
import math
import random
import struct
import subprocess
import sys
import tempfile
import zipfile
import zlib
from pathlib import Path

from PIL import (Image, ImageChops, ImageDraw, ImageFilter, ImageFont, ImageOps,
                 JpegImagePlugin)

OUT = Path(__file__).resolve().parent.parent / "tests" / "e2e" / "images"
SKIMAGE = "scikit-image==0.26.0"
# skimage/data/<name> in the wheel, and its SHA-256.
SAMPLES = {
    "astronaut.png": "88431cd9653ccd539741b555fb0a46b61558b301d4110412b5bc28b5e3ea6cb5",
    "chelsea.png": "596aa1e7cb875eb79f437e310381d26b338a81c2da23439704a73c4651e8c4bb",
    "coffee.png": "cc02f8ca188b167c775a7101b5d767d1e71792cf762c33d6fa15a4599b5a8de7",
    "rocket.jpg": "c2dd0de7c538df8d111e479619b129464d0269d0ae5fd18ca91d33a7fdfea95c",
    "motorcycle_left.png": "db18e9c4157617403c3537a6ba355dfeafe9a7eabb6b9b94cb33f6525dd49179",
    "camera.png": "b0793d2adda0fa6ae899c03989482bff9a42d3d5690fc7e3648f2795d730c23a",
    "moon.png": "78739619d11f7eb9c165bb5d2efd4772cee557812ec847532dbb1d92ef71f577",
    "horse.png": "c7fb60789fe394c485f842291ea3b21e50d140f39d6dcb5fb9917cc178225455",
    "page.png": "341a6f0a61557662b02734a9b6e56ec33a915b2c41886b97509dedf2a43b47a3",
}
# (sample, fixture name, Pillow mode): the photographs, long side PHOTO_SIDE px, JPEG quality 90.
PHOTOS = [
    ("astronaut.png", "photo-astronaut.jpg", "RGB"),
    ("chelsea.png", "photo-chelsea.jpg", "RGB"),
    ("coffee.png", "photo-coffee.jpg", "RGB"),
    ("rocket.jpg", "photo-rocket.jpg", "RGB"),
    ("motorcycle_left.png", "photo-motorcycle_left.jpg", "RGB"),
    ("camera.png", "photo-camera.jpg", "L"),
    ("moon.png", "photo-moon.jpg", "L"),
]
PHOTO_SIDE = 480
W, H = 1200, 800  # the size of every "accepted" raster kind (3:2, landscape)
BORDER = 40  # the transparent border of the transparent PNGs
MARKER = 240  # the side of the corner markers of jpeg-exif-rotated.jpg
RED, BLUE, GREEN = (255, 0, 0), (0, 0, 255), (0, 170, 0)
MM = 72 / 25.4  # PDF points per millimetre
BOMB_SIDE, BOMB_UNDER_SIDE = 30000, 12000
TEXT = (
    "This is not an image.\n"
    "It is a few lines of plain text, named .txt in one fixture and .png in another:\n"
    "the server decides the type from the content, not from the name,\n"
    "and refuses both as an unsupported image type.\n"
)


# --- inputs -------------------------------------------------------------------------------


def open_wheel(path):
    """The scikit-image wheel as a zip file, read into memory (no temporary file is left)."""
    if path is None:
        with tempfile.TemporaryDirectory(prefix="skimage-wheel-") as tmp:
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                 "--dest", tmp, SKIMAGE],
                check=True,
            )
            (path,) = glob.glob(f"{tmp}/scikit_image-*.whl")
            return zipfile.ZipFile(io.BytesIO(Path(path).read_bytes()))
    return zipfile.ZipFile(path)


def sample(wheel, name):
    data = wheel.read(f"skimage/data/{name}")
    digest = hashlib.sha256(data).hexdigest()
    if digest != SAMPLES[name]:
        sys.exit(f"skimage/data/{name}: sha256 {digest}, expected {SAMPLES[name]}")
    image = Image.open(io.BytesIO(data))
    image.load()
    image.info.clear()  # carry over no metadata (ICC profiles, XMP, comments, dpi)
    return image


# --- drawing ------------------------------------------------------------------------------


def vertical_gradient(size, top, bottom):
    """An RGB image fading from colour `top` (first row) to `bottom` (last row)."""
    ramp = Image.linear_gradient("L").resize(size, Image.Resampling.BILINEAR)
    return Image.merge("RGB", [
        ramp.point(lambda v, a=a, b=b: round(a + (b - a) * v / 255)) for a, b in zip(top, bottom)
    ])


def scene():
    """A smooth, photo-like 1200x800 landscape: a graded sky, a glowing sun, three soft-edged
    hills. No per-pixel noise: noise makes lossless files large, and these fixtures test the
    formats, not the pictures."""
    image = vertical_gradient((W, H), (40, 90, 170), (200, 215, 230))
    glow = Image.radial_gradient("L").resize((700, 700), Image.Resampling.BILINEAR)
    glow_mask = Image.new("L", (W, H), 0)
    glow_mask.paste(glow.point(lambda v: max(0, 255 - 2 * v) * 8 // 10), (900 - 350, 180 - 350))
    image = Image.composite(Image.new("RGB", (W, H), (255, 240, 200)), image, glow_mask)
    sun = Image.new("L", (W, H), 0)
    ImageDraw.Draw(sun).ellipse((840, 120, 960, 240), fill=255)
    image = Image.composite(
        Image.new("RGB", (W, H), (255, 250, 230)), image, sun.filter(ImageFilter.GaussianBlur(3))
    )
    hills = [
        (470, (40, 25, 10), (90, 120, 140), (150, 160, 150)),
        (560, (50, 20, 8), (60, 110, 50), (120, 150, 60)),
        (660, (30, 15, 6), (70, 100, 30), (30, 60, 20)),
    ]
    for seed, (y0, amplitudes, top, bottom) in enumerate(hills, 1):
        rng = random.Random(seed)
        phases = [rng.random() * 2 * math.pi for _ in amplitudes]
        ridge = [
            (x, y0 + sum(a * math.sin(x / (120 * (i + 1)) + phases[i])
                         for i, a in enumerate(amplitudes)))
            for x in range(0, W + 1, 4)
        ]
        mask = Image.new("L", (W, H), 0)
        ImageDraw.Draw(mask).polygon(ridge + [(W, H), (0, H)], fill=255)
        image = Image.composite(
            vertical_gradient((W, H), top, bottom), image, mask.filter(ImageFilter.GaussianBlur(2))
        )
    return image


def logo():
    """Flat shapes and text on white, as a small company's logo."""
    image = Image.new("RGB", (600, 300), "white")
    draw = ImageDraw.Draw(image)
    draw.ellipse((40, 60, 220, 240), fill=(230, 80, 30))
    draw.rectangle((110, 100, 260, 200), fill=(30, 60, 140))
    draw.polygon([(150, 230), (200, 130), (250, 230)], fill=(250, 190, 20))
    font = ImageFont.load_default(size=56)
    draw.text((290, 95), "Presspack", font=font, fill=(30, 60, 140))
    draw.text((292, 165), "PRINT & PACK", font=ImageFont.load_default(size=28), fill=(230, 80, 30))
    draw.line((290, 160, 560, 160), fill=(30, 60, 140), width=4)
    return image


def text_page():
    """Black text on white in Pillow's bitmap default font, drawn at 200x100, scaled up 4x."""
    image = Image.new("L", (200, 100), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default_imagefont()
    lines = [
        "Presspack test fixture",
        "Line art: black text on",
        "white, drawn with the",
        "default bitmap font and",
        "scaled up four times.",
        "0123456789 ABCDEFGHIJ",
    ]
    for i, line in enumerate(lines):
        draw.text((8, 6 + 15 * i), line, font=font, fill=0)
    return image.resize((800, 400), Image.Resampling.NEAREST).convert("RGB")


def chart():
    """A bar chart: axes with ticks, five flat bars with value labels, a title."""
    image = Image.new("RGB", (600, 400), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=18)
    small = ImageFont.load_default(size=14)
    left, bottom, top, right = 70, 340, 50, 570
    draw.text((left, 12), "Orders per month", font=font, fill="black")
    for value in range(0, 101, 20):
        y = bottom - (bottom - top) * value // 100
        draw.line((left - 6, y, left, y), fill="black", width=2)
        draw.line((left + 1, y, right, y), fill=(220, 220, 220), width=1)
        draw.text((left - 12, y), str(value), font=small, fill="black", anchor="rm")
    colours = [(52, 101, 164), (78, 154, 6), (204, 0, 0), (237, 212, 0), (117, 80, 123)]
    for i, (month, value, colour) in enumerate(zip(["Jan", "Feb", "Mar", "Apr", "May"],
                                                   [45, 70, 30, 90, 60], colours)):
        x = left + 25 + i * 98
        y = bottom - (bottom - top) * value // 100
        draw.rectangle((x, y, x + 60, bottom - 1), fill=colour)
        draw.text((x + 30, y - 4), str(value), font=small, fill="black", anchor="md")
        draw.text((x + 30, bottom + 10), month, font=font, fill="black", anchor="mt")
    draw.line((left, top - 10, left, bottom), fill="black", width=2)
    draw.line((left, bottom, right, bottom), fill="black", width=2)
    return image


def fit_long_side(image, side):
    w, h = image.size
    scale = side / max(w, h)
    return image.resize((round(w * scale), round(h * scale)), Image.Resampling.LANCZOS)


def with_corner_markers(image):
    """Red square top-left, blue top-right, green bottom-left (stored pixels)."""
    image = image.copy()
    draw = ImageDraw.Draw(image)
    w, h = image.size
    draw.rectangle((0, 0, MARKER - 1, MARKER - 1), fill=RED)
    draw.rectangle((w - MARKER, 0, w - 1, MARKER - 1), fill=BLUE)
    draw.rectangle((0, h - MARKER, MARKER - 1, h - 1), fill=GREEN)
    return image


def to_cmyk(rgb):
    """RGB to CMYK the way decoders turn it back (R = (255 - C) * (255 - K) / 255, and so on):
    K = 255 - max(R, G, B), and C, M, Y whatever is left, so that decoding gives the scene
    back within rounding."""
    data = rgb.tobytes()
    out = bytearray(len(data) // 3 * 4)
    for i in range(len(data) // 3):
        r, g, b = data[3 * i:3 * i + 3]
        top = max(r, g, b)
        if top:
            out[4 * i:4 * i + 4] = bytes((255 - (255 * r + top // 2) // top,
                                          255 - (255 * g + top // 2) // top,
                                          255 - (255 * b + top // 2) // top, 255 - top))
        else:
            out[4 * i:4 * i + 4] = b"\x00\x00\x00\xff"
    return Image.frombytes("CMYK", rgb.size, bytes(out))


def palette_with_transparent_entry(image):
    """`image` quantised to 255 colours (indices 0-254) plus a 256th entry, index 255, magenta,
    to be marked fully transparent by tRNS."""
    quantised = image.quantize(255, dither=Image.Dither.NONE)
    palette = quantised.getpalette()[: 255 * 3]
    palette += [0, 0, 0] * (255 - len(palette) // 3)
    quantised.putpalette(palette + [255, 0, 255])
    return quantised


# --- hand-written formats -----------------------------------------------------------------


def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_file(width, height, bit_depth, colour_type, idat):
    ihdr = struct.pack(">IIBBBBB", width, height, bit_depth, colour_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + png_chunk(b"IDAT", idat)
            + png_chunk(b"IEND", b""))


def png_16bit(rgb):
    """`rgb` as a 16-bit-per-channel RGB PNG (colour type 2, bit depth 16): each 8-bit sample v
    becomes v * 257 (0 -> 0, 255 -> 65535), big-endian. Every row uses filter 2 (Up: each byte
    minus the byte above it), which keeps the file small; the byte differences are computed by
    Pillow and doubled (high and low byte of v * 257 are both v) by a 2x nearest resize."""
    width, height = rgb.size
    above = Image.new("RGB", rgb.size, (0, 0, 0))
    above.paste(rgb.crop((0, 0, width, height - 1)), (0, 1))
    up = ImageChops.subtract_modulo(rgb, above).tobytes()
    doubled = (Image.frombytes("L", (3 * width, height), up)
               .resize((6 * width, height), Image.Resampling.NEAREST).tobytes())
    row = 6 * width
    raw = b"".join(b"\x02" + doubled[y * row:(y + 1) * row] for y in range(height))
    return png_file(width, height, 16, 2, zlib.compress(raw, 9))


def png_bomb(side):
    """A valid 8-bit greyscale PNG of side x side black pixels: every row is filter byte 0 and
    `side` zero bytes, compressed at zlib level 9 one row at a time (the raw data is never held)."""
    compressor = zlib.compressobj(9)
    row = bytes(side + 1)
    parts = [compressor.compress(row) for _ in range(side)]
    parts.append(compressor.flush())
    return png_file(side, side, 8, 0, b"".join(parts))


def pdf_file(page_size, content, extgstate=False):
    """A one-page PDF 1.4 with the content stream `content`, font /F1 = Helvetica (standard
    Type1, not embedded), optionally /GS1 = an ExtGState with fill opacity 0.5; no Info
    dictionary, so no dates. The xref table holds the real byte offsets."""
    width, height = page_size
    resources = b"/Font << /F1 5 0 R >>"
    if extgstate:
        resources += b" /ExtGState << /GS1 6 0 R >>"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %.3f %.3f] /Resources << %s >> "
        b"/Contents 4 0 R >>" % (width, height, resources),
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    if extgstate:
        objects.append(b"<< /Type /ExtGState /ca 0.5 /CA 0.5 >>")
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, xref)
    return bytes(out)


def pdf_vector():
    width, height = 85 * MM, 55 * MM
    content = b"\n".join([
        b"0.96 0.94 0.88 rg 0 0 %.3f %.3f re f" % (width, height),
        b"0.12 0.24 0.55 rg 0 0 %.3f 28.346 re f" % width,  # a 10 mm band at the bottom
        b"0.90 0.31 0.12 rg 14.173 70.866 42.520 42.520 re f",  # a 15 mm square
        b"0.98 0.75 0.08 rg 35.433 56.693 28.346 28.346 re f",
        b"0.12 0.24 0.55 RG 2 w 70.866 99.213 m 226.772 99.213 l S",
        b"BT /F1 16 Tf 0 g 70.866 106.299 Td (Presspack fixture) Tj ET",
        b"BT /F1 8 Tf 1 g 14.173 11.339 Td (85 x 55 mm, vector, Helvetica) Tj ET",
    ])
    return pdf_file((width, height), content)


def pdf_transparent():
    side = 50 * MM
    content = b"\n".join([
        b"1 1 1 rg 0 0 %.3f %.3f re f" % (side, side),
        b"0.12 0.24 0.55 rg 14.173 14.173 70.866 70.866 re f",  # opaque blue, 25 mm
        b"q /GS1 gs 0.90 0.10 0.10 rg 56.693 56.693 70.866 70.866 re f Q",  # red at 50 %
        b"BT /F1 9 Tf 0 g 14.173 130.394 Td (50% fill opacity) Tj ET",
    ])
    return pdf_file((side, side), content, extgstate=True)


def pdf_broken():
    garbage = random.Random(20).randbytes(2000)
    for word in (b"obj", b"xref", b"trailer", b"startxref", b"EOF", b"stream"):
        assert word not in garbage.lower()
    return b"%PDF-1.4\n" + garbage


# --- writing ------------------------------------------------------------------------------


def save(image, name, **options):
    path = OUT / name
    image.save(path, **options)
    return path


def write(name, data):
    (OUT / name).write_bytes(data)


def make(wheel):
    OUT.mkdir(parents=True, exist_ok=True)
    for sample_name, name, mode in PHOTOS:
        photo = sample(wheel, sample_name).convert(mode)
        save(fit_long_side(photo, PHOTO_SIDE), name, format="JPEG", quality=90)

    horse = sample(wheel, "horse.png").convert("RGBA")
    flat = Image.alpha_composite(Image.new("RGBA", horse.size, "white"), horse).convert("L")
    save(flat.point(lambda v: 255 if v >= 128 else 0).convert("1"), "lineart-horse.png")
    save(sample(wheel, "page.png").convert("L"), "scan-page.png")
    save(logo(), "lineart-logo.png")
    save(text_page(), "lineart-text.png")
    save(chart(), "lineart-chart.png")

    base = scene()
    save(base, "png-rgb.png")
    save(base.convert("RGBA"), "png-rgba-opaque.png")
    transparent = base.convert("RGBA")
    hole = Image.new("L", (W, H), 0)
    hole.paste(255, (BORDER, BORDER, W - BORDER, H - BORDER))
    transparent.putalpha(hole)
    save(transparent, "png-rgba-transparent.png")

    palette = base.quantize(256, dither=Image.Dither.NONE)
    save(palette, "png8-palette.png")
    save(palette, "gif.gif", format="GIF")
    unused = palette_with_transparent_entry(base)
    save(unused, "png8-trns-unused.png", transparency=255)
    used = unused.copy()
    ImageDraw.Draw(used).rectangle((0, 0, W - 1, H - 1), outline=255, width=BORDER)
    save(used, "png8-trns-used.png", transparency=255)
    write("png-16bit.png", png_16bit(base))

    save(base, "jpeg-q95.jpg", quality=95)
    save(base, "jpeg-q30.jpg", quality=30)
    save(to_cmyk(base), "jpeg-cmyk.jpg", quality=90)
    exif = Image.Exif()
    exif[0x0112] = 6
    save(with_corner_markers(base), "jpeg-exif-rotated.jpg", quality=90, exif=exif.tobytes())
    small = base.crop(((W - H * 4 // 3) // 2, 0, (W + H * 4 // 3) // 2, H))  # 4:3 centre
    save(small.resize((200, 150), Image.Resampling.LANCZOS), "jpeg-small.jpg", quality=90)

    write("pdf-vector.pdf", pdf_vector())
    write("pdf-transparent.pdf", pdf_transparent())
    write("pdf-broken.pdf", pdf_broken())

    for source, name in (("jpeg-q95.jpg", "truncated.jpg"), ("png-rgb.png", "truncated.png")):
        data = (OUT / source).read_bytes()
        write(name, data[: len(data) * 40 // 100])
    write("bomb.png", png_bomb(BOMB_SIDE))
    write("bomb-under-side-limit.png", png_bomb(BOMB_UNDER_SIDE))
    write("not-an-image.txt", TEXT.encode())
    write("not-an-image.png", TEXT.encode())


# --- checking -----------------------------------------------------------------------------


def png_chunks(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    at, chunks = 8, []
    while at < len(data):
        (length,) = struct.unpack(">I", data[at:at + 4])
        kind, body = data[at + 4:at + 8], data[at + 8:at + 8 + length]
        (crc,) = struct.unpack(">I", data[at + 8 + length:at + 12 + length])
        assert crc == zlib.crc32(kind + body)
        chunks.append((kind, body))
        at += 12 + length
    return chunks


def jpeg_segments(data):
    """The marker segments before the scan: [(marker, payload)]."""
    assert data[:2] == b"\xff\xd8"
    at, segments = 2, []
    while True:
        marker = data[at + 1]
        (length,) = struct.unpack(">H", data[at + 2:at + 4])
        segments.append((marker, data[at + 4:at + 2 + length]))
        at += 2 + length
        if marker == 0xDA:
            return segments


def pdf_check(data):
    """Every xref entry points at 'N 0 obj'; startxref points at 'xref'."""
    start = int(data.rsplit(b"startxref\n", 1)[1].split(b"\n")[0])
    assert data[start:start + 5] == b"xref\n"
    lines = data[start:].split(b"\n")
    count = int(lines[1].split()[1])
    for number in range(1, count):
        entry = lines[2 + number] + b"\n"
        assert len(entry) == 20, entry
        offset = int(entry[:10])
        assert data[offset:].startswith(b"%d 0 obj\n" % number), number
    length = int(data.split(b"/Length ")[1].split(b" ")[0])
    stream = data.index(b"stream\n") + len(b"stream\n")
    assert data[stream + length:stream + length + 10] == b"\nendstream"
    return count - 1


# The example tables of the JPEG standard (ITU T.81 Annex K), natural (row-major) order, which
# libjpeg scales for a quality: scale = 5000 / q below 50, else 200 - 2 q.
IJG_LUMA = [
    16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55,
    14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62,
    18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
    49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
]
IJG_CHROMA = [
    17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99,
    24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99, 99, 99, 99, 99, 99,
] + [99] * 32


def ijg_table(table, quality):
    scale = 5000 // quality if quality < 50 else 200 - 2 * quality
    return [min(max((v * scale + 50) // 100, 1), 255) for v in table]


def check():
    facts = []

    def fact(name, text):
        facts.append(f"{name}: {text}")

    def opened(name):
        image = Image.open(OUT / name)
        image.load()
        return image

    for _, name, mode in PHOTOS:
        image = opened(name)
        assert image.format == "JPEG" and image.mode == mode and max(image.size) == PHOTO_SIDE
        fact(name, f"JPEG {image.mode} {image.size[0]}x{image.size[1]}")
    for name in ("lineart-horse.png", "scan-page.png", "lineart-logo.png", "lineart-text.png",
                 "lineart-chart.png"):
        image = opened(name)
        assert "transparency" not in image.info and image.mode in ("1", "L", "RGB")
        fact(name, f"PNG {image.mode} {image.size[0]}x{image.size[1]}, opaque")

    image = opened("png-rgb.png")
    assert (image.mode, image.size) == ("RGB", (W, H))
    assert (OUT / "png-rgb.png").stat().st_size > 40_000  # the upload-size limit test needs it
    fact("png-rgb.png", "RGB 8-bit, > 40000 bytes")
    image = opened("png-rgba-opaque.png")
    assert (image.mode, image.size) == ("RGBA", (W, H))
    assert image.getchannel("A").getextrema() == (255, 255)
    fact("png-rgba-opaque.png", "RGBA, alpha extrema (255, 255)")
    image = opened("png-rgba-transparent.png")
    alpha = image.getchannel("A")
    assert image.mode == "RGBA" and alpha.getextrema() == (0, 255)
    zero = alpha.histogram()[0]
    assert zero == W * H - (W - 2 * BORDER) * (H - 2 * BORDER)
    fact("png-rgba-transparent.png", f"RGBA, {zero} pixels alpha 0 (a {BORDER} px border)")

    image = opened("png8-palette.png")
    kinds = [k for k, _ in png_chunks((OUT / "png8-palette.png").read_bytes())]
    assert image.mode == "P" and b"tRNS" not in kinds and b"PLTE" in kinds
    fact("png8-palette.png", f"P, {len(image.getpalette()) // 3} palette entries, no tRNS")
    for name, used in (("png8-trns-unused.png", False), ("png8-trns-used.png", True)):
        chunks = dict(png_chunks((OUT / name).read_bytes()))
        trns = chunks[b"tRNS"]
        assert len(trns) == 256 and trns[255] == 0 and set(trns[:255]) == {255}
        image = opened(name)
        count = image.histogram()[255]
        assert image.mode == "P" and image.info["transparency"] == 255
        assert (count > 0) == used
        rgba = image.convert("RGBA").getchannel("A").getextrema()
        assert rgba == ((0, 255) if used else (255, 255))
        fact(name, f"P + tRNS (entry 255 alpha 0, others 255); {count} pixels use entry 255; "
                   f"alpha extrema after conversion {rgba}")

    data = (OUT / "png-16bit.png").read_bytes()
    chunks = png_chunks(data)
    width, height, depth, colour = struct.unpack(">IIBB", chunks[0][1][:10])
    assert (width, height, depth, colour) == (W, H, 16, 2)
    raw = zlib.decompress(b"".join(body for kind, body in chunks if kind == b"IDAT"))
    row, previous, samples = 6 * W, bytes(6 * W), []
    for y in range(H):
        line = raw[y * (row + 1):(y + 1) * (row + 1)]
        assert line[0] == 2
        previous = bytes((a + b) & 0xFF for a, b in zip(line[1:], previous))
        if y in (0, H // 2, H - 1):
            samples.append(previous)
    assert all(s[0::2] == s[1::2] for s in samples)  # each 16-bit sample is v * 257
    base = opened("png-rgb.png").tobytes()
    assert samples[1][0::2] == base[H // 2 * 3 * W:(H // 2 + 1) * 3 * W]
    image = opened("png-16bit.png")
    assert image.size == (W, H) and "transparency" not in image.info
    fact("png-16bit.png", "IHDR bit depth 16, colour type 2 (RGB), no tRNS; samples = the "
                          "png-rgb.png pixels x 257; Pillow reads it")

    image = opened("gif.gif")
    assert (image.format, image.mode, image.size) == ("GIF", "P", (W, H))
    assert "transparency" not in image.info
    fact("gif.gif", "GIF P 1200x800, no transparency")

    tables = {}
    for name, quality in (("jpeg-q95.jpg", 95), ("jpeg-q30.jpg", 30)):
        image = opened(name)
        assert (image.mode, image.size) == ("RGB", (W, H))
        tables[name] = image.quantization
        assert image.quantization == {0: ijg_table(IJG_LUMA, quality),
                                      1: ijg_table(IJG_CHROMA, quality)}
        assert JpegImagePlugin.get_sampling(image) == 2
        fact(name, f"RGB 4:2:0, DQT = the IJG standard tables at quality {quality} "
                   f"(luma starts {list(image.quantization[0][:4])})")
    assert tables["jpeg-q95.jpg"] != tables["jpeg-q30.jpg"]
    image = opened("jpeg-cmyk.jpg")
    markers = dict(jpeg_segments((OUT / "jpeg-cmyk.jpg").read_bytes()))
    assert (image.mode, image.size) == ("CMYK", (W, H)) and markers[0xEE].startswith(b"Adobe")
    sof = markers[0xC0]
    assert sof[5] == 4  # four components
    back = image.convert("RGB")
    diff = max(high for _, high in ImageChops.difference(back, opened("png-rgb.png")).getextrema())
    k = image.getchannel("K").getextrema()
    assert diff < 24 and k[1] > 150, (diff, k)
    fact("jpeg-cmyk.jpg", f"CMYK, 4 components, Adobe APP14 marker; K channel range {k}; "
                          f"as RGB within {diff} levels of png-rgb.png")

    image = opened("jpeg-exif-rotated.jpg")
    assert image.size == (W, H) and image.getexif()[0x0112] == 6
    shown = ImageOps.exif_transpose(image)
    assert shown.size == (H, W)
    inset = MARKER // 2

    def colour_at(x, y):
        return shown.getpixel((x, y))

    top_right = colour_at(H - inset, inset)
    bottom_right = colour_at(H - inset, W - inset)
    top_left = colour_at(inset, inset)
    assert top_right[0] > 200 and max(top_right[1:]) < 60, top_right
    assert bottom_right[2] > 200 and max(bottom_right[:2]) < 60, bottom_right
    assert top_left[1] > 130 and top_left[0] < 60 and top_left[2] < 60, top_left
    fact("jpeg-exif-rotated.jpg", "stored 1200x800, EXIF Orientation 6, shown 800x1200 with "
                                  "red top-right, blue bottom-right, green top-left")
    image = opened("jpeg-small.jpg")
    assert image.size == (200, 150)
    fact("jpeg-small.jpg", "RGB 200x150")

    for name in ("pdf-vector.pdf", "pdf-transparent.pdf"):
        data = (OUT / name).read_bytes()
        objects = pdf_check(data)
        assert b"/CreationDate" not in data and b"/ModDate" not in data
        fact(name, f"{objects} objects, xref offsets and stream /Length right, no dates")
    data = (OUT / "pdf-broken.pdf").read_bytes()
    assert data.startswith(b"%PDF-1.4\n") and b"obj" not in data and b"xref" not in data

    for name, source in (("truncated.jpg", "jpeg-q95.jpg"), ("truncated.png", "png-rgb.png")):
        whole = (OUT / source).read_bytes()
        part = (OUT / name).read_bytes()
        assert whole.startswith(part) and len(part) == len(whole) * 40 // 100
        try:
            opened(name)
            raise AssertionError(f"{name} decoded")
        except OSError:
            pass
        fact(name, f"the first {len(part)} of {len(whole)} bytes of {source}; Pillow fails on it")

    for name, side in (("bomb.png", BOMB_SIDE), ("bomb-under-side-limit.png", BOMB_UNDER_SIDE)):
        chunks = png_chunks((OUT / name).read_bytes())
        assert struct.unpack(">IIBB", chunks[0][1][:10]) == (side, side, 8, 0)
        stream = zlib.decompressobj()
        idat = b"".join(body for kind, body in chunks if kind == b"IDAT")
        total, at = 0, 0
        while at < len(idat) or stream.unconsumed_tail:
            piece = stream.decompress(stream.unconsumed_tail or idat[at:at + 65536], 1 << 24)
            if not stream.unconsumed_tail:
                at += 65536
            assert not piece.strip(b"\x00")
            total += len(piece)
        assert stream.eof and total == side * (side + 1)
        fact(name, f"IHDR {side}x{side} 8-bit grey; IDAT inflates to {total} zero bytes")
    assert (OUT / "not-an-image.txt").read_bytes() == (OUT / "not-an-image.png").read_bytes()
    return facts


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--wheel", help="a downloaded scikit-image 0.26.0 wheel")
    args = parser.parse_args()
    make(open_wheel(args.wheel))
    for line in check():
        print(line)


if __name__ == "__main__":
    main()
