#!/usr/bin/env python3
"""Writes assets/templates/<code>.xml for every template code of wire-formats section 8.

The templates are data: this script is how they were made, kept so that a change of
geometry is one edit here and a rerun (`python3 tools/generate-templates.py`), not 37 hand
edits. Coordinates are millimetres from the top-left of the print area.
"""
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "assets" / "templates"
EDGES = ["TopEdge", "LeftEdge", "BottomEdge", "RightEdge"]
BLACK = ("RGB", 0, 0, 0)
WHITE = ("RGB", 255, 255, 255)

# product: (print w, h), (cut w, h), (safe w, h) -- landscape; portrait swaps.
PRODUCTS = {
    "businesscard": ((88, 59), (84, 55), (80, 51)),
    "minicard": ((74, 32), (70, 28), (66, 24)),
    "postcard": ((152, 109), (148, 105), (144, 101)),
    "sticker": ((24, 24), (22, 22), (20, 20)),
}


def num(v):
    return f"{v:g}" if isinstance(v, (int, float)) else v


def bounding_box(tag, left, top, width, height):
    return (f'<{tag}><Centre x="{num(left + width / 2)}" y="{num(top + height / 2)}"/>'
            f"<Width>{num(width)}</Width><Height>{num(height)}</Height><Angle>0</Angle></{tag}>")


def colour(c):
    if c[0] == "RGB":
        return f'<Colour type="RGB"><Red>{c[1]}</Red><Green>{c[2]}</Green><Blue>{c[3]}</Blue></Colour>'
    return (f'<Colour type="CMYK"><Cyan>{c[1]}</Cyan><Magenta>{c[2]}</Magenta>'
            f"<Yellow>{c[3]}</Yellow><Black>{c[4]}</Black></Colour>")


def box_item(link, rect, z, fill=WHITE):
    return f"""    <Box>
      <LinkId>{link}</LinkId>
      {bounding_box("ClippingBox", *rect)}
      <Layout><zIndex>{z}</zIndex></Layout>
      {colour(fill)}
      <Filled>true</Filled>
    </Box>"""


def image_item(link, rect, z):
    edges = "".join(f'<{e} outside="true" betweenBleedAndCut="true" betweenCutAndSafe="true" insideSafe="true"/>' for e in EDGES)
    return f"""    <Image>
      <LinkId>{link}</LinkId>
      {bounding_box("ClippingBox", *rect)}
      <Layout><zIndex>{z}</zIndex></Layout>
      <Constraints>{edges}</Constraints>
    </Image>"""


def text_item(link, rect, z, size):
    return f"""    <Text>
      <LinkId>{link}</LinkId>
      {bounding_box("ClippingBox", *rect)}
      <Layout><zIndex>{z}</zIndex></Layout>
      <Font><Family>Helvetica</Family><Bold>false</Bold><Italic>false</Italic></Font>
      <PointSize>{num(size)}</PointSize>
      <Alignment>left</Alignment>
      <Constraints fontFixed="false" colourFixed="false" pointSizeFixed="false" alignmentFixed="false"/>
      {colour(BLACK)}
      <Text></Text>
    </Text>"""


def mask_item(link, rect, z, radius):
    return f"""    <FixedImage>
      <LinkId>{link}</LinkId>
      {bounding_box("ClippingBox", *rect)}
      <Layout><zIndex>{z}</zIndex></Layout>
      {bounding_box("ImageBox", *rect)}
      <ResourceURI>mask:rounded-corners?radius={num(radius)}</ResourceURI>
    </FixedImage>"""


def template(code, product, portrait, rotation, items):
    (pw, ph), (cw, ch), (sw, sh) = PRODUCTS[product]
    if portrait:
        pw, ph, cw, ch, sw, sh = ph, pw, ch, cw, sh, sw
    centred = lambda w, h: ((pw - w) / 2, (ph - h) / 2, w, h)
    body = "\n".join(items)
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<Template xmlns="http://www.moo.com/xsd/template-1.0">
  <Code>{code}</Code>
  <Version>1</Version>
  <Settings>
    <Units type="millimetres"/>
    <Origin orientation="top-left" offsetX="0" offsetY="0"/>
    <PrintArea><Width>{num(pw)}</Width><Height>{num(ph)}</Height></PrintArea>
    {bounding_box("BleedBox", *centred(pw, ph))}
    {bounding_box("CutBox", *centred(cw, ch))}
    {bounding_box("SafeAreaBox", *centred(sw, sh))}
    <RotationAngle>{rotation}</RotationAngle>
    <FontSubstitutionStrategy>allLinesIfAnyNeeded</FontSubstitutionStrategy>
  </Settings>
  <Items>
{body}
  </Items>
</Template>
"""


def geometry(product, portrait):
    (pw, ph), _, (sw, sh) = PRODUCTS[product]
    if portrait:
        pw, ph, sw, sh = ph, pw, sh, sw
    return pw, ph, (pw - sw) / 2, (ph - sh) / 2, sw, sh


def line_sizes(product, count):
    """(point size, box height) of each text line."""
    if product == "businesscard":
        return [(3.5278, 5)] + [(2.8222, 3.5)] * (count - 1)
    if product == "minicard":
        return [(2.4694, 3.6)] * count
    return [(5.2917, 7)] + [(3.5278, 5)] * (count - 1)  # postcard


def lines(product, first, count, left, top, width, z=2):
    items, y = [], top
    for number, (size, height) in enumerate(line_sizes(product, first + count - 1)[first - 1:], start=first):
        items.append(text_item(f"back_line_{number}", (left, y, width, height), z, size))
        y += height
    return items


def full_image(product, portrait, details):
    pw, ph, *_ = geometry(product, portrait)
    link = "variable_image_back" if details else "variable_image_front"
    return [box_item("background_box", (0, 0, pw, ph), 0), image_item(link, (0, 0, pw, ph), 1)]


def full_text(product, portrait, count):
    pw, ph, sl, st, sw, sh = geometry(product, portrait)
    return [box_item("background_box", (0, 0, pw, ph), 0)] + lines(product, 1, count, sl, st, sw)


def side_strip(product, side, strip, count):
    pw, ph, sl, st, sw, sh = geometry(product, False)
    gap = 3
    items = [box_item("background_box", (0, 0, pw, ph), 0)]
    if side == "left":
        items.append(image_item("variable_image_back", (0, 0, strip, ph), 1))
        left = strip + gap
        width = sl + sw - left
    else:
        items.append(image_item("variable_image_back", (pw - strip, 0, strip, ph), 1))
        left, width = sl, pw - strip - gap - sl
    return items + lines(product, 1, count, left, st, width)


def band_strip(product, portrait, where, strip, count, columns=1):
    pw, ph, sl, st, sw, sh = geometry(product, portrait)
    gap = 2
    items = [box_item("background_box", (0, 0, pw, ph), 0)]
    if where == "top":
        items.append(image_item("variable_image_back", (0, 0, pw, strip), 1))
        top = strip + gap
    else:
        items.append(image_item("variable_image_back", (0, ph - strip, pw, strip), 1))
        top = st
    if columns == 1:
        return items + lines(product, 1, count, sl, top, sw)
    # Line 1 across the card, then two columns of (count - 1) / 2 lines.
    items += lines(product, 1, 1, sl, top, sw)
    per_column = (count - 1) // 2
    below = top + line_sizes(product, 1)[0][1]
    column = (sw - gap) / 2
    items += lines(product, 2, per_column, sl, below, column)
    items += lines(product, 2 + per_column, per_column, sl + column + gap, below, column)
    return items


def sticker():
    pw, ph, *_ = geometry("sticker", False)
    (_, _), (cw, ch), _ = PRODUCTS["sticker"]
    cut = ((pw - cw) / 2, (ph - ch) / 2, cw, ch)
    return [box_item("background_box", (0, 0, pw, ph), 0),
            image_item("variable_image_front", (0, 0, pw, ph), 1),
            mask_item("rounded_corners", cut, 10, 2.5)]


def all_templates():
    out = {}
    for product, text_lines in [("businesscard", 11), ("minicard", 6), ("postcard", 11)]:
        for orientation, portrait in [("landscape", False), ("portrait", True)]:
            out[f"{product}_full_image_{orientation}"] = (product, portrait, 90 if portrait else 0, full_image(product, portrait, False))
            out[f"{product}_full_details_image_{orientation}"] = (product, portrait, 270 if portrait else 0, full_image(product, portrait, True))
            if product != "minicard" or not portrait:
                out[f"{product}_full_text_{orientation}"] = (product, portrait, 270 if portrait else 0, full_text(product, portrait, text_lines))
    for side in ["left", "right"]:
        out[f"businesscard_{side}_image_landscape"] = ("businesscard", False, 0, side_strip("businesscard", side, 32, 11))
        out[f"minicard_{side}_image_landscape"] = ("minicard", False, 0, side_strip("minicard", side, 21, 6))
    for where in ["top", "bottom"]:
        out[f"businesscard_{where}_image_single_column_text_landscape"] = ("businesscard", False, 0, band_strip("businesscard", False, where, 23, 6))
        out[f"businesscard_{where}_image_dual_column_text_landscape"] = ("businesscard", False, 0, band_strip("businesscard", False, where, 23, 11, columns=2))
        out[f"businesscard_{where}_image_single_column_text_portrait"] = ("businesscard", True, 270, band_strip("businesscard", True, where, 23, 6))
        out[f"minicard_{where}_image_landscape"] = ("minicard", False, 0, band_strip("minicard", False, where, 13.7, 3))
    out["sticker_image"] = ("sticker", False, 0, sticker())
    return out


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*.xml"):
        old.unlink()
    for code, (product, portrait, rotation, items) in sorted(all_templates().items()):
        (OUT / f"{code}.xml").write_text(template(code, product, portrait, rotation, items))
    print(f"wrote {len(all_templates())} templates to {OUT}")
