// The editor: a side on the stage (drawn by the engine in the page, the server's pixels),
// its slots clickable on the card, the fields beside it, the layouts and sides as
// thumbnails, the designs to start from, the warnings with their fixes, undo and saving. The
// pieces it uses are in this directory: dom (elements), history, geometry, fixes, images
// (pictures, fonts, uploads), designs (the chooser) and stage (the card and its slots).

import { h } from "./dom.js";
import { History } from "./history.js";
import { carriedText, pictureSize, placeCovering, setZoom, turn, zoomOf, moveBy } from "./geometry.js";
import { Resources, upload } from "./images.js";
import { Stage } from "./stage.js";
import { boxControls, field, imageControls, textControls } from "./fields.js";
import { showWarnings } from "./warnings.js";
import { save } from "./save.js";
import { designChooser, withCustomerText } from "./designs.js";

const THUMBNAIL_SIDE = 120;
const THUMBNAIL_PAUSE_MS = 400;

const sideLabel = (side) =>
  `${side.type === "details" ? "Back" : "Front"}${side.sideNum > 1 ? ` ${side.sideNum}` : ""}`;

export class Designer {
  constructor(root, design, engine, families, familyAliases = {}) {
    this.root = root;
    this.design = design;
    this.pack = structuredClone(design.pack);
    this.pack.sides ??= [];
    this.pack.imageBasket ??= { items: [], type: null, name: null, immutable: false };
    this.pack.imageBasket.items ??= [];
    // Per use of `draw` ("stage", "thumbnail"), its last pixels, drawn into again: a new
    // array per draw costs the browser more than the drawing at 2048 px.
    this.pixelArrays = new Map();
    this.engine = engine;
    this.families = families;
    this.familyAliases = familyAliases; // client name -> catalogue family
    this.csrf = root.dataset.csrf ?? "";
    this.sideIndex = 0;
    this.selected = null; // linkId of the picture being moved
    this.history = new History();
    this.resources = new Resources(engine, () => this.render(), (message) => this.announce(message));
    this.outlines = new Map(); // template code -> describeTemplate()
    this.timings = []; // milliseconds from an input event to its preview
    this.report = { overflows: [], fontSubstituted: [] };
    this.saved = JSON.stringify(this.pack);
    this.build();
    this.showSide(0);
  }

  // ----- structure -----

  get side() {
    return this.pack.sides[this.sideIndex];
  }

  outlineOf(code) {
    if (!this.outlines.has(code)) this.outlines.set(code, this.engine.describeTemplate(code));
    return this.outlines.get(code);
  }

  get outline() {
    return this.side ? this.outlineOf(this.side.templateCode) : null;
  }

  /** The side's datum for a template item, or a new one that `attach` adds on first edit
   * (opening the editor must not change the side: an absent datum draws the default). */
  datum(item) {
    const found = this.side.data?.find((d) => d.linkId === item.linkId);
    if (found) return found;
    const type = { Text: "textData", MultiLineText: "multiLineTextData", Image: "imageData", Box: "boxData" }[item.kind];
    return { type, linkId: item.linkId, ...(item.text ? { text: item.text.defaultText } : {}) };
  }

  attach(datum) {
    this.side.data ??= [];
    if (!this.side.data.includes(datum)) this.side.data.push(datum);
  }

  font(datum, t) {
    return { fontFamily: t.fontFamily, bold: t.bold, italic: t.italic, ...(datum.font ?? {}) };
  }

  // ----- history -----

  /** Records the pack before a change; `key` joins a run of edits of one field. */
  remember(key = null) {
    this.history.remember({ pack: this.pack, sideIndex: this.sideIndex }, key, performance.now());
  }

  undo() {
    this.#restore(this.history.undo({ pack: this.pack, sideIndex: this.sideIndex }), "Undone");
  }

  redo() {
    this.#restore(this.history.redo({ pack: this.pack, sideIndex: this.sideIndex }), "Redone");
  }

  #restore(state, what) {
    if (!state) return;
    this.pack = state.pack;
    this.stage.closeEditor(false);
    this.buildSideTabs();
    this.showSide(state.sideIndex);
    this.announce(what);
  }

  // ----- page -----

  build() {
    this.status = h("p", { class: "designer-status", role: "status", "aria-live": "polite" });
    this.sideTabs = h("div", { class: "designer-sides", role: "group", "aria-label": "Sides" });
    this.guidesToggle = h("input", { type: "checkbox", id: "designer-guides", checked: true, onchange: () => this.stage.drawGuides() });
    this.undoButton = h("button", { type: "button", class: "secondary", onclick: () => this.undo(), title: "Ctrl+Z", "aria-keyshortcuts": "Control+Z" }, "Undo");
    this.redoButton = h("button", { type: "button", class: "secondary", onclick: () => this.redo(), title: "Ctrl+Y", "aria-keyshortcuts": "Control+Y" }, "Redo");
    const saves = Boolean(this.design.saveUrl ?? this.design.startUrl);
    this.saveButton = h("button", { type: "button", onclick: () => save(this) }, saves ? "Save" : "Saving is off in the demo");
    this.saveButton.disabled = !saves;
    this.saveState = h("span", { class: "designer-save-state", "aria-live": "polite" });
    // A guest's way into an account: save first, so nothing typed is lost on the way.
    const account = (label, url) =>
      h("button", { type: "button", class: "secondary", "data-goes-to": url, onclick: async () => (await save(this)) && location.assign(url) }, label);
    this.guestButtons = this.design.guest
      ? [account("Save and create an account", this.design.guest.signUp), account("Save and sign in", this.design.guest.signIn)]
      : [];
    this.stage = new Stage(this);
    this.layouts = h("div", { class: "designer-layouts", role: "group", "aria-label": "Layouts" });
    this.chooser = this.design.designs?.length ? designChooser(this) : null;
    this.column = h(
      "div",
      { class: "designer-canvas" },
      this.stage.element,
      h("p", { class: "hint" }, "Click a line or a picture on the card to change it. Red: where the card is cut. Green dashes: keep text inside."),
      h("h2", { class: "designer-heading" }, "Layout"),
      this.layouts,
    );
    this.fields = h("div", { class: "designer-fields" });
    this.warnings = h("ul", { class: "designer-warnings" });
    this.checks = h("section", { class: "designer-checks", "aria-label": "Things to check" }, h("h2", {}, "Things to check"), this.warnings);
    this.root.replaceChildren(
      h("link", { rel: "stylesheet", href: this.root.dataset.stylesheet ?? "/web-demo/canvas.css" }),
      h(
        "div",
        { class: "designer-toolbar" },
        this.sideTabs,
        h("label", { class: "inline" }, this.guidesToggle, " Cut and safe lines"),
        this.undoButton,
        this.redoButton,
        this.saveButton,
        this.saveState,
        ...this.guestButtons,
      ),
      ...(this.chooser ? [this.chooser] : []),
      this.checks,
      h("div", { class: "designer-body" }, this.column, h("div", { class: "designer-panel" }, this.fields)),
      this.status,
    );
    this.buildSideTabs();
    document.addEventListener("keydown", (e) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey) return;
      const key = e.key.toLowerCase();
      if (key === "z" && !e.shiftKey) this.undo();
      else if ((key === "z" && e.shiftKey) || key === "y") this.redo();
      else if (key === "s") save(this);
      else return;
      e.preventDefault();
    });
    window.addEventListener("beforeunload", (e) => {
      if (this.design.saveUrl && JSON.stringify(this.pack) !== this.saved) e.preventDefault();
    });
    new ResizeObserver(() => this.render()).observe(this.column);
  }

  buildSideTabs() {
    this.sideTabs.replaceChildren(
      ...this.pack.sides.map((side, index) =>
        h(
          "button",
          { type: "button", class: "secondary designer-thumb", onclick: () => this.showSide(index), "aria-pressed": String(index === this.sideIndex) },
          h("canvas", { class: "thumb", "aria-hidden": "true", "data-side": String(index) }),
          h("span", {}, sideLabel(side)),
        ),
      ),
    );
  }

  showSide(index) {
    this.sideIndex = Math.max(0, Math.min(index, this.pack.sides.length - 1));
    for (const [i, tab] of [...this.sideTabs.children].entries()) {
      tab.setAttribute("aria-pressed", String(i === this.sideIndex));
    }
    this.selected = null;
    this.stage.closeEditor(false);
    if (!this.side) {
      this.fields.replaceChildren(h("p", { class: "hint" }, "This pack has no sides yet."));
      this.layouts.replaceChildren();
      this.stage.clear();
      showWarnings(this);
      return;
    }
    this.buildFields();
    this.buildLayouts();
    this.render();
    this.refreshThumbnails(true);
  }

  changeTemplate(code) {
    if (code === this.side.templateCode) return;
    this.remember();
    // Data of slots the new layout lacks are kept (wire-formats 2): switching back restores them.
    const from = this.outline;
    this.side.data ??= [];
    this.side.data.push(...carriedText(from, this.outlineOf(code), this.side.data));
    this.side.templateCode = code;
    this.selected = null;
    this.stage.closeEditor(false);
    this.buildFields();
    this.buildLayouts();
    this.render();
    this.refreshThumbnails(true);
    this.announce(`Layout: ${this.outlineOf(code).label}`);
  }

  /** Starts the pack from `choice` (a design), the customer's text kept; a save records it. */
  chooseDesign(choice) {
    this.remember();
    const { pack, left } = withCustomerText(this.pack, choice.pack, (code) => this.outlineOf(code));
    this.pack = pack;
    this.designCode = choice.code;
    for (const button of this.chooser.querySelectorAll("button[data-design]")) {
      button.setAttribute("aria-pressed", String(button.dataset.design === choice.code));
    }
    this.chooser.open = false;
    this.stage.closeEditor(false);
    this.buildSideTabs();
    this.showSide(0);
    const kept = left ? ` ${left} of your lines did not fit: add them in the fields or pick another design.` : " Your text is kept.";
    this.announce(`Design: ${choice.label}.${kept}`);
  }

  buildLayouts() {
    const codes = [...this.design.templates];
    if (!codes.includes(this.side.templateCode)) codes.unshift(this.side.templateCode);
    this.layouts.replaceChildren(
      ...codes.map((code) =>
        h(
          "button",
          {
            type: "button",
            class: "secondary designer-thumb",
            "aria-pressed": String(code === this.side.templateCode),
            "data-template": code,
            onclick: () => this.changeTemplate(code),
          },
          h("canvas", { class: "thumb", "aria-hidden": "true" }),
          h("span", {}, this.outlineOf(code).label),
        ),
      ),
    );
  }

  // ----- fields -----

  buildFields() {
    this.fields.replaceChildren();
    for (const item of this.outline.items) {
      if (item.text) this.fields.append(field(item, textControls(this, item, "f")));
      else if (item.kind === "Image") this.fields.append(field(item, imageControls(this, item, "f")));
      else if (item.kind === "Box" && item.colour) this.fields.append(field(item, boxControls(this, item, "f")));
    }
    if (!this.fields.children.length) this.fields.append(h("p", { class: "hint" }, "This layout has nothing to fill in."));
  }

  // ----- pictures -----

  placeImage(item, uri) {
    this.remember();
    const datum = this.datum(item);
    this.attach(datum);
    if (!uri) {
      delete datum.resourceUri;
      delete datum.imageBox;
      this.selected = null;
    } else {
      datum.resourceUri = uri;
      datum.imageBox = placeCovering(item.area, pictureSize(this.pack.imageBasket, uri));
      this.selected = item.linkId;
    }
    this.buildFields();
    // The card's editor shows the new picture's controls too.
    if (this.stage.editing === item.linkId) this.stage.openEditor(item);
    this.render();
  }

  turnImage(item) {
    const datum = this.datum(item);
    if (!datum.imageBox) return;
    this.remember();
    turn(item.area, pictureSize(this.pack.imageBasket, datum.resourceUri), datum.imageBox);
    this.render();
  }

  /** Moves (mm) or zooms (a factor) the picture in `item`'s slot; `key` joins a gesture. */
  adjustImage(item, { dx = 0, dy = 0, zoomBy = 1 }, key, started) {
    const datum = this.datum(item);
    if (!datum.imageBox) return;
    this.remember(key);
    const size = pictureSize(this.pack.imageBasket, datum.resourceUri);
    if (zoomBy !== 1) setZoom(item.area, size, datum.imageBox, zoomOf(item.area, size, datum.imageBox) * zoomBy);
    if (dx || dy) moveBy(item.area, datum.imageBox, dx, dy);
    for (const prefix of ["f", "inplace"]) {
      const zoom = /** @type {HTMLInputElement | null} */ (document.getElementById(`${prefix}-${item.linkId}-zoom`));
      if (zoom) zoom.value = String(zoomOf(item.area, size, datum.imageBox));
    }
    this.render(started);
  }

  async upload(item, input, progress) {
    const file = input.files?.[0];
    if (!file) return;
    await this.uploadFile(item, file, progress);
    input.value = "";
  }

  /** Uploads `file` (a File) and places it in `item`'s slot. */
  async uploadFile(item, file, progress) {
    this.announce(`Uploading ${file.name}…`);
    progress.hidden = false;
    progress.value = 0;
    try {
      const { item: basketItem, warnings } = await upload(file, (done) => (progress.value = done));
      if (!this.pack.imageBasket.items.some((i) => i.resourceUri === basketItem.resourceUri)) {
        this.pack.imageBasket.items.push(basketItem);
      }
      this.placeImage(item, basketItem.resourceUri);
      this.announce(`Uploaded ${file.name}. ${warnings.map((w) => w.message).join(" ")}`.trim());
    } catch (error) {
      this.announce(`Could not upload ${file.name}: ${error.message}`);
    } finally {
      progress.hidden = true;
    }
  }

  // ----- drawing -----

  request(side, maxSide) {
    return { side, overlays: [], boxType: "bleed", maxSide, partial: false };
  }

  /** Draws `side` at `maxSide`: `{pixels, width, height, report}`, or null while a picture
   * or a font is loading (it draws again when they arrive). The pixels are `use`'s array,
   * filled again (see `renderPixels`'s `into`): a caller copies them out before its next
   * draw. */
  draw(side, maxSide, use) {
    const request = this.request(side, maxSide);
    const images = this.resources.imagesFor(request, this.pack.imageBasket);
    if (!images) return null;
    const into = this.pixelArrays.get(use);
    const drawn = this.resources.draw(() => this.engine.renderPixels(request, images, into));
    if (drawn) this.pixelArrays.set(use, drawn.pixels);
    return drawn;
  }

  /** Draws the side on the stage; `started` is the timeStamp of the input event that asked. */
  render(started) {
    if (!this.side) return;
    let drawn;
    try {
      drawn = this.stage.render();
    } catch (error) {
      this.announce(`The preview failed: ${error.message ?? error}`);
      return;
    }
    if (!drawn) return;
    if (started !== undefined) {
      this.timings.push(performance.now() - started);
      if (this.timings.length > 1000) this.timings.shift();
    }
    this.report = drawn.report;
    showWarnings(this);
    this.undoButton.disabled = !this.history.canUndo;
    this.redoButton.disabled = !this.history.canRedo;
    this.root.dataset.renders = String(Number(this.root.dataset.renders ?? 0) + 1);
    this.showSaveState();
    this.refreshThumbnails(false);
  }

  /** Redraws the side and layout thumbnails, at once or after a pause in the editing: one
   * thumbnail per task, so typing that resumes is never kept waiting for all of them. */
  refreshThumbnails(now) {
    clearTimeout(this.thumbnailTimer);
    const jobs = [];
    for (const canvas of this.sideTabs.querySelectorAll("canvas[data-side]")) {
      const side = this.pack.sides[Number(canvas.dataset.side)];
      if (side) jobs.push(() => this.thumbnail(canvas, side));
    }
    for (const button of this.layouts.querySelectorAll("button[data-template]")) {
      jobs.push(() => {
        const code = button.dataset.template;
        const data = [...(this.side.data ?? [])];
        if (code !== this.side.templateCode) data.push(...carriedText(this.outline, this.outlineOf(code), data));
        this.thumbnail(button.querySelector("canvas"), { ...this.side, templateCode: code, data });
      });
    }
    const next = () => {
      jobs.shift()?.();
      if (jobs.length) this.thumbnailTimer = setTimeout(next, 0);
    };
    this.thumbnailTimer = setTimeout(next, now ? 0 : THUMBNAIL_PAUSE_MS);
  }

  thumbnail(canvas, side) {
    let drawn;
    try {
      // Thumbnails are drawn one at a time and each is copied into its canvas at once.
      drawn = this.draw(side, THUMBNAIL_SIDE, "thumbnail");
    } catch {
      return; // a side the engine refuses shows its warning on the stage
    }
    if (!drawn) return;
    canvas.width = drawn.width;
    canvas.height = drawn.height;
    const { pixels, width } = drawn;
    canvas.getContext("2d").putImageData(new ImageData(new Uint8ClampedArray(pixels.buffer, pixels.byteOffset, pixels.byteLength), width), 0, 0);
  }

  // ----- warnings -----

  /** Beside the Save button: whether the card as shown is saved, or `saving`'s word. */
  showSaveState(saving = null) {
    if (!this.design.saveUrl) return;
    const saved = JSON.stringify(this.pack) === this.saved;
    this.saveState.textContent = saving ?? (saved ? "All changes saved" : "Not saved yet");
    this.saveState.classList.toggle("unsaved", saving === null && !saved);
  }

  announce(message) {
    this.status.textContent = message;
  }

  // ----- saving -----

}
