// What to check, in the customer's words (the engine's explainWarnings: the pack's warnings
// and the side's overflow, fallback fonts and missing characters from the last draw), above the card and on its
// slots, each that blocks ordering with its fix; and shrinking a line to fit.

import { h } from "./dom.js";
import { applyFix } from "./fixes.js";
import { PT } from "./fields.js";

const FIX_LABELS = {
  "pack-size": "Fix the pack size",
  "card-split": "Share the cards evenly",
  "number-sides": "Number the sides again",
  "add-front": "Add a front",
  "remove-image": "Take the picture out",
  "place-image": "Place the picture again",
  "choose-layout": "Choose a layout",
  "zoom-out": "Zoom out",
  "add-photo": "Add a photo",
};

/** The side's and the pack's warnings in the customer's words, each with its fix. */
function explained(d) {
  const extra = [];
  if (d.side) {
    const element = `pack.sides.${d.side.type}.${d.side.sideNum}`;
    for (const overflow of d.report.overflows) extra.push({ element: `${element}.${overflow.linkId}`, code: "PVT001", message: "" });
    for (const linkId of d.report.fontSubstituted) extra.push({ element: `${element}.${linkId}`, code: "PVT002", message: "" });
    // A picture slot without a picture, as preflight reports it (EMPTY_IMAGE_SLOT).
    for (const item of d.outline.items.filter((i) => i.kind === "Image")) {
      if (!d.side.data?.some((x) => x.linkId === item.linkId && x.resourceUri)) {
        extra.push({ element: `${element}.${item.linkId}`, code: "PVI005", message: "" });
      }
    }
    // The engine's own PVT003 message form, which its explanation reads the characters from.
    for (const missing of d.report.missingCharacters ?? []) {
      extra.push({ element: `${element}.${missing.linkId}`, code: "PVT003", message: `no font has these characters, which would print as boxes: ${missing.characters}` });
    }
  }
  const all = d.engine.explainWarnings(d.design.product, d.pack, extra);
  // This side's and the pack's, and anything that blocks ordering wherever it is.
  const here = (w) => !w.side || (w.side.type === d.side?.type && w.side.sideNum === d.side?.sideNum);
  return all.filter((w) => here(w) || w.blocksOrdering);
}

/** Lists the warnings above the card and marks the slots they concern. */
export function showWarnings(d) {
  let warnings = [];
  try {
    warnings = explained(d);
  } catch (error) {
    d.warnings.replaceChildren(h("li", {}, error.message ?? String(error)));
    return;
  }
  d.stage.markSlots(warnings);
  d.checks.classList.toggle("blocking", warnings.some((w) => w.blocksOrdering));
  d.warnings.replaceChildren(
    ...(warnings.length
      ? warnings.map((w) =>
          h(
            "li",
            { class: w.blocksOrdering ? "blocks" : "", "data-code": w.code },
            w.blocksOrdering ? h("strong", {}, "Needed before ordering: ") : null,
            w.text,
            w.fix ? " " : null,
            w.fix ? h("button", { type: "button", class: "secondary small", onclick: () => fix(d, w) }, FIX_LABELS[w.fix] ?? "Fix it") : null,
          ),
        )
      : [h("li", { class: "ok" }, "Nothing to check on this side.")]),
  );
}

/** Applies a warning's fix (undoable) and shows the side it concerns; "Add a photo" opens
 * the empty slot's editor, which offers the pack's pictures and an upload. */
function fix(d, warning) {
  if (warning.fix === "add-photo") {
    const item = d.outline.items.find((i) => i.linkId === warning.linkId);
    if (item) d.stage.openEditor(item);
    return;
  }
  d.remember();
  const context = { numCards: d.design.numCards, templates: d.design.templates, outline: (code) => d.outlineOf(code) };
  const result = applyFix(d.pack, warning, context);
  if (!result) {
    d.announce("That cannot be fixed here.");
    return;
  }
  d.buildSideTabs();
  d.showSide(result.sideIndex ?? d.sideIndex);
  if (result.chooseLayout) d.layouts.querySelector("button")?.focus();
  d.announce(result.done);
}

/** The smallest size "Shrink to fit" goes to: below 6 pt most printed type is hard to read. */
export const SMALLEST_FIT_PT = 6;

/** Makes the text of `item` just fit its slot: the largest size (in half points, at least
 * SMALLEST_FIT_PT) at which the engine's own layout reports no overflow. Text that fits is
 * left as it is, and text that does not fit even at the smallest size too, with a word on
 * what to do; neither leaves a step to undo. */
export function shrinkToFit(d, item) {
  const label = item.label;
  const datum = d.datum(item);
  const attached = d.side.data?.includes(datum) ?? false;
  const original = datum.pointSize;
  const overflows = () => {
    const report = d.resources.draw(() => d.engine.report(d.side));
    return !report || report.overflows.some((o) => o.linkId === item.linkId);
  };
  // The trials below change the datum in place; this puts it back as it was.
  const restore = () => {
    if (original === undefined) delete datum.pointSize;
    else datum.pointSize = original;
    if (!attached) d.side.data.splice(d.side.data.indexOf(datum), 1);
  };
  const points = (halfPoints) => Number(((halfPoints / 2) * PT).toFixed(4));
  d.attach(datum);
  if (!overflows()) {
    restore();
    d.announce(`${label} already fits.`);
    return;
  }
  const fitsAt = (halfPoints) => {
    datum.pointSize = points(halfPoints);
    return !overflows();
  };
  let low = SMALLEST_FIT_PT * 2;
  let high = Math.floor(((original ?? item.text.pointSize) / PT) * 2);
  const fitting = low < high && fitsAt(low);
  // fitsAt(low) holds; high does not (the text overflows at its size).
  while (fitting && high - low > 1) {
    const middle = (low + high) >> 1;
    if (fitsAt(middle)) low = middle;
    else high = middle;
  }
  restore();
  if (!fitting) {
    d.announce(`${label} does not fit even at ${SMALLEST_FIT_PT} pt, the smallest size that reads well in print: shorten it or choose a layout with more room.`);
    return;
  }
  d.remember();
  d.attach(datum);
  datum.pointSize = points(low);
  for (const prefix of ["f", "inplace"]) {
    const size = /** @type {HTMLInputElement | null} */ (document.getElementById(`${prefix}-${item.linkId}-size`));
    if (size) size.value = String(low / 2);
  }
  d.render();
  d.announce(`${label} is now ${low / 2} pt and fits.`);
}
