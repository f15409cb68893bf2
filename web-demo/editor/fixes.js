// The editor's fixes for warnings that block ordering (the engine's `fix` codes): each
// changes the pack so that the warning goes. No DOM: tested under Node.

import { placeCovering, pictureSize, setZoom } from "./geometry.js";

const sideOf = (pack, ref) =>
  ref && pack.sides.find((s) => s.type === ref.type && s.sideNum === ref.sideNum);

const datumOf = (pack, warning) =>
  sideOf(pack, warning.side)?.data?.find((d) => d.linkId === warning.linkId);

/** A front layout of the product: the first whose name says image, else the first. */
export function frontLayout(templates) {
  return templates.find((code) => /image/.test(code)) ?? templates[0];
}

/**
 * Applies `warning.fix` to `pack`. `context`: the product's `numCards`, its `templates` and
 * `outline(code)` (the engine's describeTemplate). Returns what was done, in words, and the
 * index of the side to show; null when the fix does not apply.
 */
export function applyFix(pack, warning, context) {
  switch (warning.fix) {
    case "pack-size":
      pack.numCards = context.numCards;
      return { done: `The pack has ${context.numCards} cards.` };
    case "card-split":
      delete pack.cards;
      return { done: "The cards are shared evenly between your designs." };
    case "number-sides": {
      for (const type of ["image", "details"]) {
        pack.sides.filter((s) => s.type === type).forEach((side, i) => (side.sideNum = i + 1));
      }
      return { done: "The sides are numbered again." };
    }
    case "add-front": {
      const templateCode = frontLayout(context.templates);
      if (!templateCode) return null;
      pack.sides.unshift({ type: "image", sideNum: 1, templateCode, data: [] });
      return { done: "A front was added: fill it in.", sideIndex: 0 };
    }
    case "remove-image": {
      const datum = datumOf(pack, warning);
      if (!datum) return null;
      delete datum.resourceUri;
      delete datum.imageBox;
      return { done: "The picture was taken out." };
    }
    case "place-image": {
      const side = sideOf(pack, warning.side);
      const datum = datumOf(pack, warning);
      const item = side && context.outline(side.templateCode).items.find((i) => i.linkId === warning.linkId);
      if (!datum?.resourceUri || !item) return null;
      datum.imageBox = placeCovering(item.area, pictureSize(pack.imageBasket, datum.resourceUri));
      return { done: "The picture was placed again." };
    }
    case "zoom-out": {
      const side = sideOf(pack, warning.side);
      const datum = datumOf(pack, warning);
      const item = side && context.outline(side.templateCode).items.find((i) => i.linkId === warning.linkId);
      if (!datum?.resourceUri || !datum.imageBox || !item) return null;
      setZoom(item.area, pictureSize(pack.imageBasket, datum.resourceUri), datum.imageBox, 1);
      return { done: "The picture is zoomed out as far as it goes." };
    }
    case "choose-layout": {
      const index = pack.sides.indexOf(sideOf(pack, warning.side));
      return { done: "Choose a layout for this side.", sideIndex: index < 0 ? undefined : index, chooseLayout: true };
    }
    default:
      return null;
  }
}
