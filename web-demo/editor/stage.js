// The card on the stage: the engine's preview, the cut and safe guides, and a button over
// each slot (the template's boxes, from describeTemplate) that opens its editor in place.
// Tab moves between the slots; on a picture, dragging moves it, the wheel or a pinch zooms,
// arrow keys nudge and + and - zoom; Esc leaves.

import { h } from "./dom.js";
import { imageControls, textControls } from "./fields.js";
import { pictureSize, printDpi, slotPlace } from "./geometry.js";
import { shrinkToFit } from "./warnings.js";

/** Where the card's editor is a sheet along the bottom of the screen (canvas.css). */
const BOTTOM_SHEET = "(max-width: 40rem)";

const MAX_PREVIEW_SIDE = 2048;
const DRAG_THRESHOLD_PX = 3;

export class Stage {
  constructor(designer) {
    this.designer = designer;
    this.preview = h("canvas", { class: "designer-preview", role: "img" });
    this.guides = h("canvas", { class: "designer-guides", "aria-hidden": "true" });
    this.slots = h("div", { class: "designer-slots", role: "group", "aria-label": "Parts of the card" });
    this.popover = h("div", { class: "designer-inplace", hidden: true, role: "dialog", "aria-label": "Edit" });
    this.element = h("div", { class: "designer-stage" }, this.preview, this.guides, this.slots, this.popover);
    this.slotsOf = null; // the template and side the slot buttons are for
    this.editing = null; // linkId whose editor is open
    this.warningsOf = new Map(); // linkId -> the customer's words of its warnings
    this.pointers = new Map(); // pointerId -> {x, y}: two of them pinch
    this.element.addEventListener("pointerdown", (e) => this.#trackPointer(e), { capture: true });
    this.element.addEventListener("pointermove", (e) => this.#pinch(e));
    for (const end of ["pointerup", "pointercancel"]) this.element.addEventListener(end, (e) => this.pointers.delete(e.pointerId));
    document.addEventListener("pointerdown", (e) => {
      if (this.editing && !this.popover.contains(e.target) && !this.slots.contains(e.target)) this.closeEditor(false);
    });
    // Esc leaves the slot's editor wherever the focus is (a button that hid itself drops it).
    document.addEventListener("keydown", (e) => {
      if (e.key === "Escape" && this.editing) {
        e.preventDefault();
        this.closeEditor(true);
      }
    });
  }

  get outline() {
    return this.designer.outline;
  }

  clear() {
    this.slots.replaceChildren();
    this.slotsOf = null;
    this.preview.width = 0;
  }

  /** Draws the side as large as the column allows with the whole card on the screen. */
  render() {
    const d = this.designer;
    const outline = this.outline;
    const aspect = outline.bleed.width / outline.bleed.height;
    const cssWidth = Math.floor(Math.min(d.column.clientWidth, Math.max(240, window.innerHeight * 0.7) * aspect));
    if (!cssWidth) return null;
    this.preview.style.width = `${cssWidth}px`;
    const ratio = window.devicePixelRatio || 1;
    const longest = Math.max(outline.bleed.width, outline.bleed.height);
    const maxSide = Math.round(Math.min(MAX_PREVIEW_SIDE, Math.max(16, (cssWidth * ratio * longest) / outline.bleed.width)));
    const drawn = d.draw(d.side, maxSide, "stage");
    if (!drawn) {
      d.announce("Loading pictures and fonts…");
      return null;
    }
    const { pixels, width, height } = drawn;
    if (this.preview.width !== width || this.preview.height !== height) {
      this.preview.width = width;
      this.preview.height = height;
    }
    const context = this.preview.getContext("2d");
    context.putImageData(new ImageData(new Uint8ClampedArray(pixels.buffer, pixels.byteOffset, pixels.byteLength), width), 0, 0);
    this.preview.dataset.maxSide = String(maxSide);
    this.preview.setAttribute("aria-label", `Preview of the ${d.side.type === "details" ? "back" : "front"}`);
    this.#buildSlots();
    this.drawGuides();
    this.#placePopover();
    return drawn;
  }

  // ----- slots -----

  #buildSlots() {
    const d = this.designer;
    const key = `${d.sideIndex}:${d.side.templateCode}`;
    if (this.slotsOf === key) return;
    this.slotsOf = key;
    const outline = this.outline;
    // Pictures under texts: a line over a full-bleed photo is clicked, not the photo.
    const items = [...outline.items.filter((i) => i.kind === "Image"), ...outline.items.filter((i) => i.text)];
    this.slots.replaceChildren(
      ...items.map((item) => {
        const picture = item.kind === "Image";
        const slot = h(
          "button",
          {
            type: "button",
            class: `designer-slot ${picture ? "picture" : "text"}`,
            "data-slot": item.linkId,
            "data-label": picture ? item.label : `Text: ${item.label}`,
            onclick: () => (picture ? null : this.openEditor(item)),
            onkeydown: (e) => this.#slotKey(e, item),
            onpointerdown: picture ? (e) => this.#pictureDown(e, item, slot) : undefined,
            onwheel: picture ? (e) => this.#wheel(e, item) : undefined,
          },
          h("span", { class: "designer-badge", hidden: true }),
          // Over the card only, never in a render: where a photo goes while the slot is empty.
          picture ? h("span", { class: "designer-placeholder", hidden: true }, "Add a photo") : null,
        );
        slot.setAttribute("aria-label", slot.dataset.label);
        Object.assign(slot.style, slotPlace(outline.bleed, item.area));
        return slot;
      }),
    );
  }

  slot(linkId) {
    return this.slots.querySelector(`[data-slot="${CSS.escape(linkId)}"]`);
  }

  /** Marks each slot with its warnings: overflowing text outlined, a low resolution badged
   * with the dpi it prints at, the warning's words as the slot's description. */
  markSlots(warnings) {
    const d = this.designer;
    if (!d.side) return;
    for (const slot of this.slots.children) {
      const linkId = slot.dataset.slot;
      const mine = warnings.filter((w) => w.linkId === linkId && w.side?.type === d.side.type && w.side?.sideNum === d.side.sideNum);
      slot.classList.toggle("overflow", mine.some((w) => w.code === "PVT001"));
      slot.classList.toggle("warned", mine.length > 0);
      slot.setAttribute("aria-label", [slot.dataset.label, ...mine.map((w) => w.text)].join(". "));
      slot.title = mine.map((w) => w.text).join("\n");
      this.warningsOf.set(linkId, mine.map((w) => w.text));
      const badge = slot.querySelector(".designer-badge");
      const datum = d.side.data?.find((x) => x.linkId === linkId);
      const dpi = datum?.resourceUri ? printDpi(pictureSize(d.pack.imageBasket, datum.resourceUri), datum.imageBox) : null;
      // The resolution a picture prints at when the engine warns of it (by the server's
      // limits); "!" by any other warning.
      const resolution = mine.find((w) => w.code === "PVI003" || w.code === "PVI004");
      const low = dpi !== null && resolution !== undefined;
      const empty = slot.querySelector(".designer-placeholder");
      if (empty) empty.hidden = Boolean(datum?.resourceUri);
      // An empty slot shows its placeholder rather than a "!".
      badge.hidden = !low && !mine.some((w) => w.code !== "PVI005");
      badge.textContent = low ? `${Math.round(dpi)} dpi` : badge.hidden ? "" : "!";
      badge.classList.toggle("poor", resolution?.code === "PVI004");
    }
    if (this.editing) this.#showNotes();
  }

  // ----- the editor in place -----

  openEditor(item) {
    const d = this.designer;
    this.closeEditor(false);
    this.editing = item.linkId;
    const picture = item.kind === "Image";
    if (picture) d.selected = item.linkId;
    const controls = picture ? imageControls(d, item, "inplace") : textControls(d, item, "inplace");
    this.shrink = picture ? null : h("button", { type: "button", class: "secondary", hidden: true, onclick: () => shrinkToFit(d, item) }, "Shrink to fit");
    this.notes = h("ul", { class: "designer-slot-notes", "aria-live": "polite" });
    const remove = picture && d.datum(item).resourceUri
      ? h("button", { type: "button", class: "secondary", onclick: () => { d.placeImage(item, ""); this.closeEditor(true); } }, "Remove picture")
      : null;
    this.popover.replaceChildren(
      h("p", { class: "designer-inplace-title" }, item.label),
      this.notes,
      ...controls,
      h("div", { class: "designer-row" }, this.shrink, remove, h("button", { type: "button", onclick: () => this.closeEditor(true) }, "Done")),
    );
    this.popover.setAttribute("aria-label", `Edit ${item.label}`);
    this.popover.hidden = false;
    this.popover.onkeydown = (e) => {
      if (e.key === "Enter" && e.target.matches("input:not([type])")) {
        e.preventDefault();
        this.closeEditor(true);
      }
    };
    this.#placePopover();
    this.#showNotes();
    this.slot(item.linkId)?.classList.add("editing");
    this.drawGuides();
    (this.popover.querySelector(`#inplace-${CSS.escape(item.linkId)}-text`) ?? this.popover.querySelector("input, select, button"))?.focus();
  }

  closeEditor(refocus) {
    if (!this.editing) return;
    const linkId = this.editing;
    this.editing = null;
    this.popover.hidden = true;
    this.popover.replaceChildren();
    const slot = this.slot(linkId);
    slot?.classList.remove("editing");
    // The panel's fields show what was typed on the card.
    this.designer.buildFields();
    if (refocus) slot?.focus();
  }

  /** The open slot's warnings in words, beside it, and "Shrink to fit" while it overflows. */
  #showNotes() {
    const texts = this.warningsOf.get(this.editing) ?? [];
    this.notes.replaceChildren(...texts.map((text) => h("li", {}, text)));
    this.notes.hidden = texts.length === 0;
    if (!this.shrink) return;
    const hidden = !this.slot(this.editing)?.classList.contains("overflow");
    if (hidden && document.activeElement === this.shrink) {
      this.popover.querySelector(`#inplace-${CSS.escape(this.editing)}-text`)?.focus();
    }
    this.shrink.hidden = hidden;
  }

  /** Below its slot (above when the slot is low on the card), inside the stage's width. */
  #placePopover() {
    if (!this.editing || this.popover.hidden) return;
    const slot = this.slot(this.editing);
    if (!slot) return this.closeEditor(false);
    if (matchMedia(BOTTOM_SHEET).matches) {
      // A sheet along the bottom of a phone's screen (canvas.css): the page scrolls so the
      // line being edited stays in sight above it.
      const sheet = this.popover.getBoundingClientRect();
      const hidden = slot.getBoundingClientRect().bottom - (sheet.top - 8);
      if (hidden > 0) window.scrollBy(0, hidden);
      return;
    }
    const stage = this.element.getBoundingClientRect();
    const box = slot.getBoundingClientRect();
    const width = Math.min(stage.width, Math.max(box.width, 288));
    this.popover.style.width = `${width}px`;
    this.popover.style.left = `${Math.max(0, Math.min(box.left - stage.left, stage.width - width))}px`;
    this.popover.style.top = `${box.bottom - stage.top + 6}px`;
  }

  // ----- pictures: select, drag, zoom, keys -----

  select(linkId, focus) {
    this.designer.selected = linkId;
    if (focus) this.slot(linkId)?.focus();
    this.drawGuides();
    const label = this.outline.items.find((i) => i.linkId === linkId)?.label ?? "The picture";
    this.designer.announce(`${label} selected: arrow keys move it, + and - zoom, R turns it.`);
  }

  #slotKey(event, item) {
    const d = this.designer;
    if (item.kind !== "Image") return;
    const step = event.shiftKey ? 5 : 0.5;
    const moves = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
    if (event.key === "Enter" || event.key === " ") {
      this.openEditor(item);
    } else if (event.key === "Escape") {
      d.selected = null;
      this.drawGuides();
    } else if (!d.datum(item).imageBox) {
      return;
    } else if (moves[event.key]) {
      d.selected = item.linkId;
      const [dx, dy] = moves[event.key];
      d.adjustImage(item, { dx, dy }, `${item.linkId}.move`, event.timeStamp);
    } else if (event.key === "+" || event.key === "=" || event.key === "-") {
      d.selected = item.linkId;
      d.adjustImage(item, { zoomBy: event.key === "-" ? 1 / 1.1 : 1.1 }, `${item.linkId}.zoom`, event.timeStamp);
    } else if (event.key === "r" || event.key === "R") {
      d.turnImage(item);
    } else return;
    event.preventDefault();
  }

  #pictureDown(event, item, slot) {
    const d = this.designer;
    if (event.button !== 0) return;
    event.preventDefault();
    slot.focus();
    if (!d.datum(item).imageBox) {
      this.openEditor(item); // an empty slot: its editor offers an upload
      return;
    }
    d.selected = item.linkId;
    this.drawGuides();
    slot.setPointerCapture(event.pointerId);
    const mm = this.outline.bleed.width / this.preview.getBoundingClientRect().width;
    const start = { x: event.clientX, y: event.clientY };
    let last = start;
    let dragging = false;
    const move = (e) => {
      if (this.pointers.size > 1) {
        dragging = true; // a pinch (see #pinch), not a tap
        return;
      }
      if (!dragging && Math.hypot(e.clientX - start.x, e.clientY - start.y) < DRAG_THRESHOLD_PX) return;
      dragging = true;
      d.adjustImage(item, { dx: (e.clientX - last.x) * mm, dy: (e.clientY - last.y) * mm }, `${item.linkId}.drag.${event.pointerId}`, e.timeStamp);
      last = { x: e.clientX, y: e.clientY };
    };
    const up = () => {
      slot.removeEventListener("pointermove", move);
      slot.removeEventListener("pointerup", up);
      slot.removeEventListener("pointercancel", up);
      if (!dragging) this.openEditor(item);
    };
    slot.addEventListener("pointermove", move);
    slot.addEventListener("pointerup", up);
    slot.addEventListener("pointercancel", up);
  }

  #wheel(event, item) {
    if (!this.designer.datum(item).imageBox) return;
    event.preventDefault();
    this.designer.selected = item.linkId;
    this.designer.adjustImage(item, { zoomBy: Math.exp(-event.deltaY / 500) }, `${item.linkId}.wheel`, event.timeStamp);
  }

  #trackPointer(event) {
    this.pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
    if (this.pointers.size === 2) this.pinchFrom = this.#spread();
  }

  #spread() {
    const [a, b] = [...this.pointers.values()];
    return Math.hypot(a.x - b.x, a.y - b.y);
  }

  /** Two fingers on the card zoom the selected picture by how far they spread. */
  #pinch(event) {
    if (!this.pointers.has(event.pointerId)) return;
    this.pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
    const d = this.designer;
    const item = this.outline?.items.find((i) => i.linkId === d.selected);
    if (this.pointers.size !== 2 || !item || !this.pinchFrom) return;
    const spread = this.#spread();
    d.adjustImage(item, { zoomBy: spread / this.pinchFrom }, `${item.linkId}.pinch`, event.timeStamp);
    this.pinchFrom = spread;
  }

  // ----- guides -----

  drawGuides() {
    const d = this.designer;
    const outline = this.outline;
    if (!outline) return;
    const { width, height } = this.preview;
    this.guides.width = width;
    this.guides.height = height;
    const context = this.guides.getContext("2d");
    context.clearRect(0, 0, width, height);
    const scale = width / outline.bleed.width;
    const rect = (a) => [(a.left - outline.bleed.left) * scale, (a.top - outline.bleed.top) * scale, a.width * scale, a.height * scale];
    context.lineWidth = Math.max(1, width / 600);
    if (d.guidesToggle.checked) {
      context.setLineDash([]);
      context.strokeStyle = "rgba(200, 30, 40, 0.9)";
      context.strokeRect(...rect(outline.cut));
      context.setLineDash([6 * context.lineWidth, 4 * context.lineWidth]);
      context.strokeStyle = "rgba(20, 140, 80, 0.9)";
      context.strokeRect(...rect(outline.safe));
    }
    for (const slot of this.slots.children) slot.classList.toggle("selected", slot.dataset.slot === d.selected);
  }
}
