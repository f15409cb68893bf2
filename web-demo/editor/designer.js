// The editor: a side on the stage (drawn by the engine in the page, the server's pixels),
// its slots clickable on the card, the fields beside it, the layouts and sides as
// thumbnails, the warnings with their fixes, undo and saving. The pieces it uses are in
// this directory: dom (elements), history, geometry, fixes, images (pictures, fonts,
// uploads) and stage (the card and its slots).

import { h, slotLabel } from "./dom.js";
import { History } from "./history.js";
import { carriedText, pictureSize, placeCovering, setZoom, turn, zoomOf, moveBy, MAX_ZOOM } from "./geometry.js";
import { applyFix } from "./fixes.js";
import { Resources, upload } from "./images.js";
import { Stage } from "./stage.js";

const PT = 25.4 / 72; // millimetres per point
const THUMBNAIL_SIDE = 120;
const THUMBNAIL_PAUSE_MS = 400;

const sideLabel = (side) =>
  `${side.type === "details" ? "Back" : "Front"}${side.sideNum > 1 ? ` ${side.sideNum}` : ""}`;

const layoutLabel = (code) => slotLabel(code.replace(/^[a-z]+_/, ""));

const hexToColour = (hex) => ({
  type: "RGB",
  r: parseInt(hex.slice(1, 3), 16),
  g: parseInt(hex.slice(3, 5), 16),
  b: parseInt(hex.slice(5, 7), 16),
});

export class Designer {
  constructor(root, design, engine, families) {
    this.root = root;
    this.design = design;
    this.pack = structuredClone(design.pack);
    this.pack.sides ??= [];
    this.pack.imageBasket ??= { items: [], type: null, name: null, immutable: false };
    this.pack.imageBasket.items ??= [];
    this.engine = engine;
    this.families = families;
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
    this.saveButton = h("button", { type: "button", onclick: () => this.save() }, this.design.saveUrl ? "Save" : "Saving is off in the demo");
    this.saveButton.disabled = !this.design.saveUrl;
    this.stage = new Stage(this);
    this.layouts = h("div", { class: "designer-layouts", role: "group", "aria-label": "Layouts" });
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
      ),
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
      else if (key === "s") this.save();
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
      this.showWarnings();
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
    this.announce(`Layout: ${layoutLabel(code)}`);
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
          h("span", {}, layoutLabel(code)),
        ),
      ),
    );
  }

  // ----- fields -----

  buildFields() {
    this.fields.replaceChildren();
    for (const item of this.outline.items) {
      if (item.text) this.fields.append(this.field(item, this.textControls(item, "f")));
      else if (item.kind === "Image") this.fields.append(this.field(item, this.imageControls(item, "f")));
      else if (item.kind === "Box" && item.colour) this.fields.append(this.field(item, this.boxControls(item, "f")));
    }
    if (!this.fields.children.length) this.fields.append(h("p", { class: "hint" }, "This layout has nothing to fill in."));
  }

  field(item, controls) {
    return h("fieldset", { class: "designer-field", "data-slot": item.linkId }, h("legend", {}, slotLabel(item.linkId)), ...controls);
  }

  /** A change from a control: remembered for undo, applied, drawn. */
  edit(item, what, apply) {
    return (event) => {
      const started = event.timeStamp;
      this.remember(`${item.linkId}.${what}`);
      const datum = this.datum(item);
      apply(event.target, datum);
      this.attach(datum);
      this.syncControls(item, event.target);
      this.render(started);
    };
  }

  /** Keeps the panel's and the card's controls of one slot showing the same values. */
  syncControls(item, source) {
    for (const prefix of ["f", "inplace"]) {
      for (const what of ["text", "size", "colour", "font", "align", "bold", "italic", "zoom"]) {
        const control = document.getElementById(`${prefix}-${item.linkId}-${what}`);
        const twin = source.id.replace(/^(f|inplace)-/, `${prefix}-`);
        if (!control || control === source || control.id !== twin) continue;
        if (control.type === "checkbox") control.checked = source.checked;
        else control.value = source.value;
      }
    }
  }

  /** A text slot's controls, `prefix` naming their ids (the panel: f, the card: inplace). */
  textControls(item, prefix) {
    const datum = this.datum(item);
    const t = item.text;
    const id = (what) => `${prefix}-${item.linkId}-${what}`;
    const multi = item.kind === "MultiLineText";
    const text = h(multi ? "textarea" : "input", {
      id: id("text"),
      value: datum.text ?? "",
      placeholder: t.defaultText,
      maxlength: "1000",
      rows: multi ? "3" : undefined,
      oninput: this.edit(item, "text", (el, d) => (d.text = el.value)),
    });
    const font = this.font(datum, t);
    const family = h(
      "select",
      { id: id("font"), disabled: t.fontFixed, onchange: this.edit(item, "font", (el, d) => (d.font = { ...this.font(d, t), fontFamily: el.value })) },
      ...this.families.map((f) => h("option", { value: f, selected: f === font.fontFamily.toLowerCase() }, f)),
    );
    if (!this.families.includes(font.fontFamily.toLowerCase())) {
      family.prepend(h("option", { value: font.fontFamily, selected: true }, font.fontFamily));
    }
    const style = (what, label) =>
      h(
        "label",
        { class: "inline" },
        h("input", {
          type: "checkbox",
          id: id(what),
          checked: font[what],
          disabled: t.fontFixed,
          onchange: this.edit(item, what, (el, d) => (d.font = { ...this.font(d, t), [what]: el.checked })),
        }),
        ` ${label}`,
      );
    const size = h("input", {
      id: id("size"),
      type: "number",
      min: "4",
      max: "72",
      step: "0.5",
      value: String(Math.round(((datum.pointSize ?? t.pointSize) / PT) * 2) / 2),
      disabled: t.pointSizeFixed,
      oninput: this.edit(item, "size", (el, d) => {
        const points = Number(el.value);
        if (points >= 4 && points <= 72) d.pointSize = Number((points * PT).toFixed(4));
      }),
    });
    const colour = h("input", {
      id: id("colour"),
      type: "color",
      value: this.engine.displayColour(datum.colour ?? t.colour ?? { type: "RGB", r: 0, g: 0, b: 0 }),
      disabled: t.colourFixed,
      oninput: this.edit(item, "colour", (el, d) => (d.colour = hexToColour(el.value))),
    });
    const alignment = h(
      "select",
      { id: id("align"), disabled: t.alignmentFixed, onchange: this.edit(item, "align", (el, d) => (d.alignment = el.value)) },
      ...["left", "center", "right"].map((a) => h("option", { value: a, selected: a === (datum.alignment ?? t.alignment) }, a)),
    );
    const labelled = (what, label, control) => h("span", {}, h("label", { for: id(what) }, label), control);
    return [
      h("label", { for: id("text") }, "Text"),
      text,
      h(
        "div",
        { class: "designer-row" },
        labelled("font", "Font", family),
        labelled("size", "Size (pt)", size),
        labelled("colour", "Colour", colour),
        labelled("align", "Align", alignment),
      ),
      h("div", { class: "designer-row" }, style("bold", "Bold"), style("italic", "Italic")),
    ];
  }

  /** A picture slot's controls (see `textControls`). */
  imageControls(item, prefix) {
    const datum = this.datum(item);
    const id = (what) => `${prefix}-${item.linkId}-${what}`;
    const choose = h(
      "select",
      { id: id("image"), onchange: (e) => this.placeImage(item, e.target.value) },
      h("option", { value: "" }, "No picture"),
      ...this.pack.imageBasket.items.map((basketItem, i) =>
        h("option", { value: basketItem.resourceUri, selected: basketItem.resourceUri === datum.resourceUri }, basketItem.name || `Picture ${i + 1}`),
      ),
    );
    const progress = h("progress", { id: id("progress"), max: "1", value: "0", hidden: true, "aria-label": "Upload progress" });
    const file = h("input", {
      id: id("upload"),
      type: "file",
      accept: "image/png,image/jpeg,image/gif,application/pdf",
      onchange: (e) => this.upload(item, e.target, progress),
    });
    const size = datum.resourceUri ? pictureSize(this.pack.imageBasket, datum.resourceUri) : null;
    const zoom = h("input", {
      id: id("zoom"),
      type: "range",
      min: "1",
      max: String(MAX_ZOOM),
      step: "0.05",
      value: String(zoomOf(item.area, size, datum.imageBox)),
      disabled: !datum.imageBox,
      oninput: this.edit(item, "zoom", (el, d) => setZoom(item.area, pictureSize(this.pack.imageBasket, d.resourceUri), d.imageBox, Number(el.value))),
    });
    const placed = Boolean(datum.resourceUri && datum.imageBox);
    return [
      h("label", { for: id("image") }, "Picture"),
      choose,
      h("label", { for: id("upload") }, datum.resourceUri ? "Replace with a picture from your device" : "Upload a picture"),
      file,
      progress,
      h("label", { for: id("zoom") }, "Zoom"),
      zoom,
      h(
        "div",
        { class: "designer-row" },
        h("button", { type: "button", class: "secondary", disabled: !placed, onclick: () => this.turnImage(item) }, "Turn 90°"),
        h("button", { type: "button", class: "secondary", disabled: !placed, onclick: () => this.stage.select(item.linkId, true) }, "Move with the keyboard"),
      ),
    ];
  }

  /** A filled box's colour (a background). */
  boxControls(item, prefix) {
    const datum = this.datum(item);
    const id = `${prefix}-${item.linkId}-colour`;
    return [
      h("label", { for: id }, "Background colour"),
      h("input", {
        id,
        type: "color",
        value: this.engine.displayColour(datum.colour ?? item.colour),
        oninput: this.edit(item, "colour", (el, d) => (d.colour = hexToColour(el.value))),
      }),
    ];
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
      const zoom = document.getElementById(`${prefix}-${item.linkId}-zoom`);
      if (zoom) zoom.value = String(zoomOf(item.area, size, datum.imageBox));
    }
    this.render(started);
  }

  async upload(item, input, progress) {
    const file = input.files?.[0];
    if (!file) return;
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
      input.value = "";
      progress.hidden = true;
    }
  }

  // ----- drawing -----

  request(side, maxSide) {
    return { side, overlays: [], boxType: "bleed", maxSide, partial: false };
  }

  /** Draws `side` at `maxSide`: `{pixels, width, height, report}`, or null while a picture
   * or a font is loading (it draws again when they arrive). */
  draw(side, maxSide) {
    const request = this.request(side, maxSide);
    const images = this.resources.imagesFor(request, this.pack.imageBasket);
    if (!images) return null;
    return this.resources.draw(() => this.engine.renderPixels(request, images));
  }

  /** Draws the side on the stage; `started` is the timeStamp of the input event that asked. */
  render(started) {
    if (!this.side) return;
    let drawn;
    try {
      drawn = this.stage.render(started);
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
    this.showWarnings();
    this.undoButton.disabled = !this.history.canUndo;
    this.redoButton.disabled = !this.history.canRedo;
    this.root.dataset.renders = String(Number(this.root.dataset.renders ?? 0) + 1);
    this.refreshThumbnails(false);
  }

  /** Redraws the side and layout thumbnails, at once or after a pause in the editing. */
  refreshThumbnails(now) {
    clearTimeout(this.thumbnailTimer);
    const draw = () => {
      for (const canvas of this.sideTabs.querySelectorAll("canvas[data-side]")) {
        const side = this.pack.sides[Number(canvas.dataset.side)];
        if (side) this.thumbnail(canvas, side);
      }
      for (const button of this.layouts.querySelectorAll("button[data-template]")) {
        const code = button.dataset.template;
        const data = [...(this.side.data ?? [])];
        if (code !== this.side.templateCode) data.push(...carriedText(this.outline, this.outlineOf(code), data));
        this.thumbnail(button.querySelector("canvas"), { ...this.side, templateCode: code, data });
      }
    };
    this.thumbnailTimer = setTimeout(draw, now ? 0 : THUMBNAIL_PAUSE_MS);
  }

  thumbnail(canvas, side) {
    let drawn;
    try {
      drawn = this.draw(side, THUMBNAIL_SIDE);
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

  /** The side's and the pack's warnings in the customer's words, each with its fix. */
  explained() {
    const extra = [];
    if (this.side) {
      const element = `pack.sides.${this.side.type}.${this.side.sideNum}`;
      for (const overflow of this.report.overflows) extra.push({ element: `${element}.${overflow.linkId}`, code: "PVT001", message: "" });
      for (const linkId of this.report.fontSubstituted) extra.push({ element: `${element}.${linkId}`, code: "PVT002", message: "" });
    }
    const all = this.engine.explainWarnings(this.design.product, this.pack, extra);
    // This side's and the pack's, and anything that blocks ordering wherever it is.
    const here = (w) => !w.side || (w.side.type === this.side?.type && w.side.sideNum === this.side?.sideNum);
    return all.filter((w) => here(w) || w.blocksOrdering);
  }

  showWarnings() {
    let warnings = [];
    try {
      warnings = this.explained();
    } catch (error) {
      this.warnings.replaceChildren(h("li", {}, error.message ?? String(error)));
      return;
    }
    this.stage.markSlots(warnings);
    const fixLabels = {
      "pack-size": "Fix the pack size",
      "card-split": "Share the cards evenly",
      "number-sides": "Number the sides again",
      "add-front": "Add a front",
      "remove-image": "Take the picture out",
      "place-image": "Place the picture again",
      "choose-layout": "Choose a layout",
    };
    this.checks.classList.toggle("blocking", warnings.some((w) => w.blocksOrdering));
    this.warnings.replaceChildren(
      ...(warnings.length
        ? warnings.map((w) =>
            h(
              "li",
              { class: w.blocksOrdering ? "blocks" : "", "data-code": w.code },
              w.blocksOrdering ? h("strong", {}, "Needed before ordering: ") : null,
              w.text,
              w.fix ? " " : null,
              w.fix ? h("button", { type: "button", class: "secondary small", onclick: () => this.fix(w) }, fixLabels[w.fix] ?? "Fix it") : null,
            ),
          )
        : [h("li", { class: "ok" }, "Nothing to check on this side.")]),
    );
  }

  fix(warning) {
    this.remember();
    const context = { numCards: this.design.numCards, templates: this.design.templates, outline: (code) => this.outlineOf(code) };
    const result = applyFix(this.pack, warning, context);
    if (!result) {
      this.announce("That cannot be fixed here.");
      return;
    }
    this.buildSideTabs();
    this.showSide(result.sideIndex ?? this.sideIndex);
    if (result.chooseLayout) this.layouts.querySelector("button")?.focus();
    this.announce(result.done);
  }

  /** Makes the text of `item` just fit its slot: the largest size (in half points, at
   * least 4 pt) at which the engine's own layout reports no overflow. */
  shrinkToFit(item) {
    this.remember();
    const datum = this.datum(item);
    this.attach(datum);
    const original = datum.pointSize;
    const fits = (halfPoints) => {
      datum.pointSize = Number(((halfPoints / 2) * PT).toFixed(4));
      const report = this.resources.draw(() => this.engine.report(this.side));
      return Boolean(report) && !report.overflows.some((o) => o.linkId === item.linkId);
    };
    let low = 8;
    let high = Math.floor(((original ?? item.text.pointSize) / PT) * 2);
    if (!fits(low)) {
      if (original === undefined) delete datum.pointSize;
      else datum.pointSize = original;
      this.announce("The text does not fit even at 4 pt: shorten it.");
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
    this.render();
    this.announce(`${slotLabel(item.linkId)} is now ${low / 2} pt and fits.`);
  }

  announce(message) {
    this.status.textContent = message;
  }

  // ----- saving -----

  async save() {
    if (!this.design.saveUrl) return;
    this.saveButton.disabled = true;
    this.announce("Saving…");
    const body = JSON.stringify(this.pack);
    try {
      const response = await fetch(this.design.saveUrl, {
        method: "POST",
        headers: { "content-type": "application/json", "x-csrf-token": this.csrf },
        body,
      });
      const reply = await response.json();
      if (!response.ok) throw new Error(reply.error?.message ?? `HTTP ${response.status}`);
      this.saved = body;
      this.announce(`Saved.${reply.warnings.length ? ` ${reply.warnings.length} thing(s) to check.` : ""}`);
    } catch (error) {
      this.announce(`Not saved: ${error.message}`);
    } finally {
      this.saveButton.disabled = false;
    }
  }
}
