// Presspack's design editor: edits a pack's sides in the browser and previews every change
// with the engine (@presspack/engine, the same wasm engine and fonts as the server's
// renderSide, so the preview is the print). Mounted on `#designer`, whose `data-source` is
// the design's URL (GET: {product, numCards, name, pack, templates, saveUrl, warnings,
// preflightLimits});
// saving POSTs the pack back with the page's CSRF token. The editor is in ./editor/.
import { createEngine } from "@presspack/engine";
import { h } from "./editor/dom.js";
import { Designer } from "./editor/designer.js";

const root = document.getElementById("designer");

async function start() {
  try {
    const response = await fetch(root.dataset.source, { credentials: "same-origin" });
    const design = await response.json();
    if (!response.ok) throw new Error(design.error?.message ?? `HTTP ${response.status}`);
    // Faces are fetched as the sides need them (see editor/images.js).
    const engine = await createEngine({ fonts: "on-demand" });
    // Pictures are judged by the server's press limits: what it would block, the editor does.
    engine.setLimits(design.preflightLimits);
    const catalogue = await (await fetch("/web-demo/engine/fonts/catalogue.json")).json();
    // The families a customer may choose (not the faces kept for other scripts), by kind.
    const families = Object.entries(catalogue.families)
      .filter(([, family]) => family.kind !== "fallback")
      .map(([name, family]) => ({
        name,
        kind: family.kind ?? "sans",
        label: family.label ?? name,
        face: family.regular,
      }))
      .sort((a, b) => a.label.localeCompare(b.label));
    /** @type {any} */ (window).presspackDesigner = new Designer(root, design, engine, families, catalogue.aliases ?? {});
    root.dataset.ready = "true";
  } catch (error) {
    root.replaceChildren(h("p", { class: "notice", role: "alert" }, `The design editor could not start: ${error.message}`));
  }
}

start();
