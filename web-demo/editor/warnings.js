// What to check, in the customer's words (the engine's explainWarnings: the pack's warnings
// and the side's overflow, fallback fonts and missing characters from the last draw), above the card and on its
// slots, each that blocks ordering with its fix; and shrinking a line to fit.

import { h, slotLabel } from "./dom.js";
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
};

/** The side's and the pack's warnings in the customer's words, each with its fix. */
/** The side's and the pack's warnings in the customer's words, each with its fix. */
function explained(d) {
  const extra = [];
  if (d.side) {
    const element = `pack.sides.${d.side.type}.${d.side.sideNum}`;
    for (const overflow of d.report.overflows) extra.push({ element: `${element}.${overflow.linkId}`, code: "PVT001", message: "" });
    for (const linkId of d.report.fontSubstituted) extra.push({ element: `${element}.${linkId}`, code: "PVT002", message: "" });
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

/** Applies a warning's fix (undoable) and shows the side it concerns. */
function fix(d, warning) {
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

/** Makes the text of `item` just fit its slot: the largest size (in half points, at
 * least 4 pt) at which the engine's own layout reports no overflow. */
export function shrinkToFit(d, item) {
  d.remember();
  const datum = d.datum(item);
  d.attach(datum);
  const original = datum.pointSize;
  const fits = (halfPoints) => {
    datum.pointSize = Number(((halfPoints / 2) * PT).toFixed(4));
    const report = d.resources.draw(() => d.engine.report(d.side));
    return Boolean(report) && !report.overflows.some((o) => o.linkId === item.linkId);
  };
  let low = 8;
  let high = Math.floor(((original ?? item.text.pointSize) / PT) * 2);
  if (!fits(low)) {
    if (original === undefined) delete datum.pointSize;
    else datum.pointSize = original;
    d.announce("The text does not fit even at 4 pt: shorten it.");
    return;
  }
  // fits(low) holds; high does not (the text overflows at its size).
  while (high - low > 1) {
    const middle = (low + high) >> 1;
    if (fits(middle)) low = middle;
    else high = middle;
  }
  fits(low);
  for (const prefix of ["f", "inplace"]) {
    const size = document.getElementById(`${prefix}-${item.linkId}-size`);
    if (size) size.value = String(low / 2);
  }
  d.render();
  d.announce(`${slotLabel(item.linkId)} is now ${low / 2} pt and fits.`);
}
