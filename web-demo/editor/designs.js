// Starting from a design: the product's designs (the shop's and the starter set) as
// thumbnails above the card (the server's drawings of their fronts), open while the pack was
// not started from one. Choosing one takes
// its layouts, colours, type and pictures, and keeps the customer's text: their lines, in
// reading order, replace the design's sample lines in order.

import { h } from "./dom.js";

const hasText = (d) => typeof d?.text === "string" && d.text.trim() !== "";

/** The text data of `side` in its layout's order (top to bottom as templates list them). */
function textData(side, outlineOf) {
  return outlineOf(side.templateCode)
    .items.filter((item) => item.text)
    .map((item) => ({ item, datum: side.data?.find((d) => d.linkId === item.linkId) }));
}

/**
 * The pack `designPack` makes, with the lines typed in `pack` in place of its sample lines,
 * and with both baskets' pictures (the customer's stay at hand). `left` counts the lines that
 * found no slot.
 */
export function withCustomerText(pack, designPack, outlineOf) {
  const lines = pack.sides.flatMap((side) => textData(side, outlineOf).map(({ datum }) => datum).filter(hasText).map((d) => d.text));
  const sides = structuredClone(designPack.sides);
  const slots = sides.flatMap((side) => textData(side, outlineOf).map((slot) => ({ side, ...slot })));
  let last = -1;
  slots.forEach((slot, index) => {
    if (lines.length && hasText(slot.datum)) {
      slot.datum.text = lines.shift();
      last = index;
    }
  });
  // More lines than the design has: the empty slots after its last line take them, in the
  // look of that line.
  const style = slots[last]?.datum;
  for (const { side, item, datum } of slots.slice(last + 1)) {
    if (!lines.length) break;
    const looks = {};
    if (style && side === slots[last].side) {
      if (style.font) looks.font = { ...style.font, bold: false };
      if (style.colour) looks.colour = style.colour;
      if (style.alignment) looks.alignment = style.alignment;
    }
    const line = { type: item.kind === "MultiLineText" ? "multiLineTextData" : "textData", linkId: item.linkId, ...structuredClone(looks), text: lines.shift() };
    if (datum) Object.assign(datum, line);
    else (side.data ??= []).push(line);
  }
  const items = [...(designPack.imageBasket?.items ?? [])];
  for (const item of pack.imageBasket?.items ?? []) {
    if (!items.some((i) => i.resourceUri === item.resourceUri)) items.push(item);
  }
  return { pack: { ...pack, sides, imageBasket: { ...pack.imageBasket, items } }, left: lines.length };
}

/** The chooser: a `details` element with a thumbnail button per design. */
export function designChooser(d) {
  const buttons = d.design.designs.map((choice) =>
    h(
      "button",
      { type: "button", class: "secondary designer-thumb", "data-design": choice.code, "aria-pressed": "false", onclick: () => d.chooseDesign(choice) },
      // Drawn by the server, once per design: drawing them here would fetch every
      // design's faces on a first visit.
      h("img", { class: "thumb", alt: "", loading: "lazy", src: `/designs/${encodeURIComponent(choice.code)}/thumbnail.png` }),
      h("span", {}, choice.label),
    ),
  );
  const chooser = h(
    "details",
    { class: "designer-designs", ...(d.design.chooseDesign ? { open: true } : {}) },
    h("summary", {}, "Start from a design"),
    h("p", { class: "hint" }, "Pick a design to start from. Your text stays: it takes the place of the design's sample lines."),
    h("div", { class: "designer-design-list", role: "group", "aria-label": "Designs" }, ...buttons),
  );
  return chooser;
}
