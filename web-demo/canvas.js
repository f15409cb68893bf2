// Presspack design canvas: edits a pack's sides in the browser and previews every change with
// the wasm engine (@presspack/engine, served by the host), the same engine and fonts as the
// server's renderSide, so the preview is the print. Mounted on `#designer`, whose
// `data-source` is the design's URL (GET: {product, name, pack, templates, saveUrl,
// warnings}); saving POSTs the pack back with the page's CSRF token.
import { createEngine } from "/web-demo/engine/index.js";

const root = document.getElementById("designer");
const PT = 25.4 / 72; // millimetres per point
const MAX_PREVIEW_SIDE = 2048;
const TYPING_PAUSE_MS = 1000; // keystrokes closer than this are undone together
const MAX_HISTORY = 200;

/** Elements: `h("button", {class: "x", onclick}, "text", child)`. */
function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "value") continue; // set below, once the options are in place
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (name === "class") element.className = value;
    else if (name in element && typeof value !== "string") element[name] = value;
    else element.setAttribute(name, value === true ? "" : value);
  }
  element.append(...children.filter((c) => c !== null && c !== undefined && c !== false));
  if (attributes.value !== undefined) element.value = attributes.value;
  return element;
}

const humanise = (linkId) =>
  linkId.replace(/^(back|front)_/, "").replace(/_/g, " ").replace(/^\w/, (c) => c.toUpperCase());

const sideLabel = (side) =>
  `${side.type === "details" ? "Back" : "Front"}${side.sideNum > 1 ? ` ${side.sideNum}` : ""}`;

const hexToColour = (hex) => ({
  type: "RGB",
  r: parseInt(hex.slice(1, 3), 16),
  g: parseInt(hex.slice(3, 5), 16),
  b: parseInt(hex.slice(5, 7), 16),
});

class Designer {
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
    this.selected = null; // linkId of the image item being moved
    this.undoStack = [];
    this.redoStack = [];
    this.lastEdit = { key: null, at: 0 };
    this.images = new Map(); // rendition URI -> Uint8Array | Promise
    this.outlines = new Map(); // template code -> describeTemplate()
    this.timings = []; // milliseconds from an input event to its preview
    this.saved = JSON.stringify(this.pack);
    this.build();
    this.showSide(0);
  }

  // ----- structure -----

  get side() {
    return this.pack.sides[this.sideIndex];
  }

  get outline() {
    const code = this.side.templateCode;
    if (!this.outlines.has(code)) this.outlines.set(code, this.engine.describeTemplate(code));
    return this.outlines.get(code);
  }

  /** The side's datum for a template item, or a new one that `attach` adds on first edit
   * (opening the canvas must not change the side: an absent datum draws the default). */
  datum(item) {
    const found = this.side.data?.find((d) => d.linkId === item.linkId);
    if (found) return found;
    const type = { Text: "textData", MultiLineText: "multiLineTextData", Image: "imageData" }[item.kind];
    return { type, linkId: item.linkId, ...(item.text ? { text: item.text.defaultText } : {}) };
  }

  attach(datum) {
    this.side.data ??= [];
    if (!this.side.data.includes(datum)) this.side.data.push(datum);
  }

  // ----- history -----

  /** Records the pack before a change; `key` joins a run of edits of one field. */
  remember(key = null) {
    const now = performance.now();
    const joins = key !== null && key === this.lastEdit.key && now - this.lastEdit.at < TYPING_PAUSE_MS;
    this.lastEdit = { key, at: now };
    if (joins) return;
    this.undoStack.push(JSON.stringify({ pack: this.pack, sideIndex: this.sideIndex }));
    if (this.undoStack.length > MAX_HISTORY) this.undoStack.shift();
    this.redoStack = [];
  }

  restore(from, to) {
    const snapshot = from.pop();
    if (!snapshot) return;
    to.push(JSON.stringify({ pack: this.pack, sideIndex: this.sideIndex }));
    const { pack, sideIndex } = JSON.parse(snapshot);
    this.pack = pack;
    this.lastEdit = { key: null, at: 0 };
    this.showSide(sideIndex);
    this.announce(from === this.undoStack ? "Undone" : "Redone");
  }

  undo() {
    this.restore(this.undoStack, this.redoStack);
  }

  redo() {
    this.restore(this.redoStack, this.undoStack);
  }

  // ----- page -----

  build() {
    this.status = h("p", { class: "designer-status", role: "status", "aria-live": "polite" });
    this.sideTabs = h("div", { class: "designer-sides", role: "group", "aria-label": "Sides" });
    this.templateSelect = h("select", { id: "designer-template", onchange: () => this.changeTemplate() });
    this.guidesToggle = h("input", { type: "checkbox", id: "designer-guides", checked: true, onchange: () => this.drawGuides() });
    this.undoButton = h("button", { type: "button", class: "secondary", onclick: () => this.undo(), title: "Ctrl+Z" }, "Undo");
    this.redoButton = h("button", { type: "button", class: "secondary", onclick: () => this.redo(), title: "Ctrl+Shift+Z" }, "Redo");
    this.saveButton = h("button", { type: "button", onclick: () => this.save() }, this.design.saveUrl ? "Save" : "Saving is off in the demo");
    this.saveButton.disabled = !this.design.saveUrl;
    this.preview = h("canvas", { class: "designer-preview", role: "img" });
    this.guides = h("canvas", { class: "designer-guides", "aria-hidden": "true" });
    this.stage = h(
      "div",
      {
        class: "designer-stage",
        tabindex: "0",
        "aria-label": "Design preview. When an image is selected, arrow keys move it and + and - zoom it.",
        onpointerdown: (e) => this.pointerDown(e),
        onkeydown: (e) => this.stageKey(e),
      },
      this.preview,
      this.guides,
    );
    this.column = h(
      "div",
      { class: "designer-canvas" },
      this.stage,
      h("p", { class: "hint" }, "Red: where the card is cut. Green dashes: keep text inside. Everything to the edge is printed."),
    );
    this.fields = h("div", { class: "designer-fields" });
    this.warnings = h("ul", { class: "designer-warnings" });
    this.root.replaceChildren(
      h("link", { rel: "stylesheet", href: "/web-demo/canvas.css" }),
      h(
        "div",
        { class: "designer-toolbar" },
        this.sideTabs,
        h("label", { for: "designer-template" }, "Layout"),
        this.templateSelect,
        h("label", { class: "inline" }, this.guidesToggle, " Show cut and safe lines"),
        this.undoButton,
        this.redoButton,
        this.saveButton,
      ),
      h(
        "div",
        { class: "designer-body" },
        this.column,
        h("div", { class: "designer-panel" }, this.fields, h("section", { "aria-label": "Things to check" }, h("h2", {}, "Things to check"), this.warnings)),
      ),
      this.status,
    );
    for (const [index, side] of this.pack.sides.entries()) {
      this.sideTabs.append(h("button", { type: "button", class: "secondary", onclick: () => this.showSide(index) }, sideLabel(side)));
    }
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

  showSide(index) {
    this.sideIndex = Math.min(index, this.pack.sides.length - 1);
    for (const [i, tab] of [...this.sideTabs.children].entries()) {
      tab.setAttribute("aria-pressed", String(i === this.sideIndex));
    }
    this.templateSelect.replaceChildren(
      ...this.design.templates.map((code) => h("option", { value: code, selected: code === this.side.templateCode }, humanise(code.replace(/^[a-z]+_/, "")))),
    );
    if (!this.design.templates.includes(this.side.templateCode)) {
      this.templateSelect.prepend(h("option", { value: this.side.templateCode, selected: true }, this.side.templateCode));
    }
    this.selected = null;
    this.buildFields();
    this.render();
  }

  changeTemplate() {
    this.remember();
    // Data of items the new layout lacks are kept (wire-formats 2), so switching back restores them.
    this.side.templateCode = this.templateSelect.value;
    this.selected = null;
    this.buildFields();
    this.render();
  }

  // ----- fields -----

  buildFields() {
    const outline = this.outline;
    this.fields.replaceChildren();
    for (const item of outline.items) {
      if (item.text) this.fields.append(this.textField(item));
      else if (item.kind === "Image") this.fields.append(this.imageField(item));
    }
    if (!this.fields.children.length) this.fields.append(h("p", { class: "hint" }, "This layout has nothing to fill in."));
  }

  textField(item) {
    const datum = this.datum(item);
    const t = item.text;
    const id = (what) => `f-${item.linkId}-${what}`;
    const edit = (what, apply) => (event) => {
      const started = event.timeStamp;
      this.remember(`${item.linkId}.${what}`);
      apply(event.target);
      this.attach(datum);
      this.render(started);
    };
    const multi = item.kind === "MultiLineText";
    const text = h(multi ? "textarea" : "input", {
      id: id("text"),
      value: datum.text ?? "",
      placeholder: t.defaultText,
      maxlength: "1000",
      rows: multi ? "3" : undefined,
      oninput: edit("text", (el) => (datum.text = el.value)),
    });
    const family = h(
      "select",
      { id: id("font"), disabled: t.fontFixed, onchange: edit("font", (el) => (datum.font = { ...this.font(datum, t), fontFamily: el.value })) },
      ...this.families.map((f) => h("option", { value: f, selected: f === this.font(datum, t).fontFamily.toLowerCase() }, f)),
    );
    if (!this.families.includes(this.font(datum, t).fontFamily.toLowerCase())) {
      family.prepend(h("option", { value: this.font(datum, t).fontFamily, selected: true }, this.font(datum, t).fontFamily));
    }
    const style = (what, label) =>
      h(
        "label",
        { class: "inline" },
        h("input", {
          type: "checkbox",
          id: id(what),
          checked: this.font(datum, t)[what],
          disabled: t.fontFixed,
          onchange: edit(what, (el) => (datum.font = { ...this.font(datum, t), [what]: el.checked })),
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
      oninput: edit("size", (el) => {
        const points = Number(el.value);
        if (points >= 4 && points <= 72) datum.pointSize = Number((points * PT).toFixed(4));
      }),
    });
    const colour = h("input", {
      id: id("colour"),
      type: "color",
      value: this.engine.displayColour(datum.colour ?? t.colour ?? { type: "RGB", r: 0, g: 0, b: 0 }),
      disabled: t.colourFixed,
      oninput: edit("colour", (el) => (datum.colour = hexToColour(el.value))),
    });
    const alignment = h(
      "select",
      { id: id("align"), disabled: t.alignmentFixed, onchange: edit("align", (el) => (datum.alignment = el.value)) },
      ...["left", "center", "right"].map((a) => h("option", { value: a, selected: a === (datum.alignment ?? t.alignment) }, a)),
    );
    return h(
      "fieldset",
      { class: "designer-field" },
      h("legend", {}, humanise(item.linkId)),
      h("label", { for: id("text") }, "Text"),
      text,
      h(
        "div",
        { class: "designer-row" },
        h("span", {}, h("label", { for: id("font") }, "Font"), family),
        h("span", {}, h("label", { for: id("size") }, "Size (pt)"), size),
        h("span", {}, h("label", { for: id("colour") }, "Colour"), colour),
        h("span", {}, h("label", { for: id("align") }, "Align"), alignment),
      ),
      h("div", { class: "designer-row" }, style("bold", "Bold"), style("italic", "Italic")),
    );
  }

  font(datum, t) {
    return { fontFamily: t.fontFamily, bold: t.bold, italic: t.italic, ...(datum.font ?? {}) };
  }

  imageField(item) {
    const datum = this.datum(item);
    const id = (what) => `f-${item.linkId}-${what}`;
    const items = this.pack.imageBasket.items;
    const choose = h(
      "select",
      { id: id("image"), onchange: (e) => this.placeImage(item, e.target.value) },
      h("option", { value: "" }, "No image"),
      ...items.map((basketItem, i) =>
        h("option", { value: basketItem.resourceUri, selected: basketItem.resourceUri === datum.resourceUri }, basketItem.name || `Image ${i + 1}`),
      ),
    );
    const upload = h("input", { id: id("upload"), type: "file", accept: "image/png,image/jpeg,image/gif,application/pdf", onchange: (e) => this.upload(item, e.target) });
    const zoom = h("input", {
      id: id("zoom"),
      type: "range",
      min: "1",
      max: "4",
      step: "0.05",
      value: String(this.zoomOf(item, datum)),
      disabled: !datum.resourceUri,
      oninput: (e) => {
        const started = e.timeStamp;
        this.remember(`${item.linkId}.zoom`);
        this.setZoom(item, datum, Number(e.target.value));
        this.render(started);
      },
    });
    const select = h("button", { type: "button", class: "secondary", disabled: !datum.resourceUri, onclick: () => this.select(item.linkId) }, "Move with the keyboard");
    return h(
      "fieldset",
      { class: "designer-field" },
      h("legend", {}, humanise(item.linkId)),
      h("label", { for: id("image") }, "Picture"),
      choose,
      h("label", { for: id("upload") }, "Upload a picture"),
      upload,
      h("label", { for: id("zoom") }, "Zoom"),
      zoom,
      h("p", { class: "hint" }, "Drag the picture on the preview to move it, or select it and use the arrow keys."),
      select,
    );
  }

  /** The basket item's print size in pixels. */
  imageSize(uri) {
    const item = this.pack.imageBasket.items.find((i) => i.resourceUri === uri);
    const print = item?.imageItems?.find((r) => r.type === "print") ?? item?.imageItems?.[0];
    return print ? { width: print.width, height: print.height } : null;
  }

  /** The smallest image box of the picture's aspect that covers the item. */
  coverBox(item, uri) {
    const size = this.imageSize(uri);
    const a = item.area;
    const scale = size ? Math.max(a.width / size.width, a.height / size.height) : 1;
    return { width: size ? size.width * scale : a.width, height: size ? size.height * scale : a.height };
  }

  zoomOf(item, datum) {
    if (!datum.resourceUri || !datum.imageBox) return 1;
    return Math.max(1, datum.imageBox.width / this.coverBox(item, datum.resourceUri).width);
  }

  placeImage(item, uri) {
    this.remember();
    const datum = this.datum(item);
    this.attach(datum);
    if (!uri) {
      delete datum.resourceUri;
      delete datum.imageBox;
    } else {
      const cover = this.coverBox(item, uri);
      const a = item.area;
      datum.resourceUri = uri;
      datum.imageBox = { center: { x: a.left + a.width / 2, y: a.top + a.height / 2 }, width: cover.width, height: cover.height, angle: 0 };
      this.selected = item.linkId;
    }
    this.buildFields();
    this.render();
  }

  setZoom(item, datum, zoom) {
    const cover = this.coverBox(item, datum.resourceUri);
    datum.imageBox.width = cover.width * zoom;
    datum.imageBox.height = cover.height * zoom;
    this.keepCovering(item, datum);
  }

  /** Moves the picture by (dx, dy) mm, never leaving part of its box empty. */
  moveImage(item, datum, dx, dy) {
    datum.imageBox.center.x += dx;
    datum.imageBox.center.y += dy;
    this.keepCovering(item, datum);
  }

  keepCovering(item, datum) {
    const box = datum.imageBox;
    const a = item.area;
    const clamp = (centre, size, start, length) =>
      Math.min(start + size / 2, Math.max(start + length - size / 2, centre));
    box.center.x = Number(clamp(box.center.x, box.width, a.left, a.width).toFixed(3));
    box.center.y = Number(clamp(box.center.y, box.height, a.top, a.height).toFixed(3));
    box.width = Number(box.width.toFixed(3));
    box.height = Number(box.height.toFixed(3));
  }

  async upload(item, input) {
    const file = input.files?.[0];
    if (!file) return;
    this.announce(`Uploading ${file.name}…`);
    const body = new FormData();
    body.append("method", "svc.image.uploadImage");
    body.append("imageType", "detect");
    body.append("name", file.name.slice(0, 1024));
    body.append("imageFile", file);
    try {
      const response = await fetch("/api/service/", { method: "POST", body });
      const reply = await response.json();
      if (reply.error) throw new Error(reply.error.message ?? "the upload failed");
      if (reply.uploadImageError) throw new Error(`${reply.uploadImageError.message} ${reply.uploadImageError.reason ?? ""}`);
      const basketItem = reply.imageBasketItem.items[0];
      if (!this.pack.imageBasket.items.some((i) => i.resourceUri === basketItem.resourceUri)) {
        this.pack.imageBasket.items.push(basketItem);
      }
      this.placeImage(item, basketItem.resourceUri);
      const notes = (reply.warnings ?? []).map((w) => w.message).join(" ");
      this.announce(`Uploaded ${file.name}. ${notes}`);
    } catch (error) {
      this.announce(`Could not upload ${file.name}: ${error.message}`);
    } finally {
      input.value = "";
    }
  }

  select(linkId) {
    this.selected = linkId;
    this.stage.focus();
    this.drawGuides();
    this.announce(`${humanise(linkId)} selected: arrow keys move it, + and - zoom.`);
  }

  // ----- pointer and keyboard on the stage -----

  /** Millimetres per CSS pixel of the preview. */
  get mmPerPixel() {
    return this.outline.bleed.width / this.preview.getBoundingClientRect().width;
  }

  imageItemAt(x, y) {
    const items = this.outline.items.filter((i) => i.kind === "Image").reverse();
    return items.find((i) => {
      const a = i.area;
      const d = this.side.data?.find((d) => d.linkId === i.linkId);
      return d?.resourceUri && x >= a.left && x <= a.left + a.width && y >= a.top && y <= a.top + a.height;
    });
  }

  pointerDown(event) {
    const outline = this.outline;
    const rect = this.preview.getBoundingClientRect();
    const mm = this.mmPerPixel;
    const at = (e) => ({ x: outline.bleed.left + (e.clientX - rect.left) * mm, y: outline.bleed.top + (e.clientY - rect.top) * mm });
    const start = at(event);
    const item = this.imageItemAt(start.x, start.y);
    if (!item) return;
    event.preventDefault();
    this.stage.setPointerCapture(event.pointerId);
    this.selected = item.linkId;
    this.remember();
    const datum = this.datum(item);
    let last = start;
    const move = (e) => {
      const now = at(e);
      this.moveImage(item, datum, now.x - last.x, now.y - last.y);
      last = now;
      this.render(e.timeStamp);
    };
    const up = () => {
      this.stage.removeEventListener("pointermove", move);
      this.stage.removeEventListener("pointerup", up);
      this.stage.removeEventListener("pointercancel", up);
    };
    this.stage.addEventListener("pointermove", move);
    this.stage.addEventListener("pointerup", up);
    this.stage.addEventListener("pointercancel", up);
    this.drawGuides();
  }

  stageKey(event) {
    const item = this.outline.items.find((i) => i.linkId === this.selected);
    if (!item) return;
    const datum = this.datum(item);
    if (!datum.resourceUri) return;
    const step = event.shiftKey ? 5 : 0.5;
    const moves = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
    if (moves[event.key]) {
      this.remember(`${item.linkId}.move`);
      this.moveImage(item, datum, ...moves[event.key]);
    } else if (event.key === "+" || event.key === "=" || event.key === "-") {
      this.remember(`${item.linkId}.zoom`);
      const zoom = this.zoomOf(item, datum) * (event.key === "-" ? 1 / 1.1 : 1.1);
      this.setZoom(item, datum, Math.min(4, Math.max(1, zoom)));
    } else if (event.key === "Escape") {
      this.selected = null;
      this.drawGuides();
      return;
    } else return;
    event.preventDefault();
    this.render(event.timeStamp);
  }

  // ----- rendering -----

  request(maxSide) {
    return { side: this.side, overlays: [], boxType: "bleed", maxSide, partial: false };
  }

  /** The bytes of every image the side draws, or null while some are still loading. */
  imagesFor(request) {
    const planned = this.engine.imagesToFetch(request, this.pack.imageBasket);
    const images = [];
    let loading = false;
    for (const image of planned) {
      const cached = this.images.get(image.renditionUri);
      if (cached instanceof Uint8Array) {
        images.push({ resourceUri: image.resourceUri, bytes: cached, enhance: image.enhance });
      } else {
        loading = true;
        if (!cached) this.images.set(image.renditionUri, this.fetchImage(image.renditionUri));
      }
    }
    return loading ? null : images;
  }

  async fetchImage(uri) {
    const match = /^store:\/\/([0-9a-f]{32})(?:\/([a-z-]+))?$/.exec(uri);
    try {
      if (!match) throw new Error(`${uri} is not an image of this shop`);
      const response = await fetch(`/images/${match[1]}/${match[2] ?? "print"}`);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      this.images.set(uri, new Uint8Array(await response.arrayBuffer()));
      this.render();
    } catch (error) {
      this.announce(`Could not load a picture: ${error.message}`);
    }
  }

  /** Draws the side; `started` is the timeStamp of the input event that asked for it. */
  render(started) {
    const outline = this.outline;
    // As large as the column allows while the whole card stays on the screen.
    const aspect = outline.bleed.width / outline.bleed.height;
    const cssWidth = Math.floor(Math.min(this.column.clientWidth, Math.max(240, window.innerHeight * 0.75) * aspect));
    if (!cssWidth) return;
    this.preview.style.width = `${cssWidth}px`;
    const ratio = window.devicePixelRatio || 1;
    const longest = Math.max(outline.bleed.width, outline.bleed.height);
    const maxSide = Math.round(Math.min(MAX_PREVIEW_SIDE, Math.max(16, (cssWidth * ratio * longest) / outline.bleed.width)));
    const request = this.request(maxSide);
    let rendered;
    try {
      const images = this.imagesFor(request);
      if (!images) {
        this.announce("Loading pictures…");
        return;
      }
      rendered = this.engine.renderPixels(request, images);
    } catch (error) {
      this.announce(`The preview failed: ${error.message ?? error}`);
      return;
    }
    const { pixels, width, height, report } = rendered;
    if (this.preview.width !== width || this.preview.height !== height) {
      this.preview.width = width;
      this.preview.height = height;
    }
    const context = this.preview.getContext("2d");
    context.putImageData(new ImageData(new Uint8ClampedArray(pixels.buffer, pixels.byteOffset, pixels.byteLength), width), 0, 0);
    this.preview.dataset.maxSide = String(maxSide);
    this.preview.setAttribute("aria-label", `Preview of the ${sideLabel(this.side).toLowerCase()} side`);
    if (started !== undefined) {
      this.timings.push(performance.now() - started);
      if (this.timings.length > 1000) this.timings.shift();
    }
    this.drawGuides();
    this.showWarnings(report);
    this.undoButton.disabled = !this.undoStack.length;
    this.redoButton.disabled = !this.redoStack.length;
    this.root.dataset.renders = String(Number(this.root.dataset.renders ?? 0) + 1);
  }

  drawGuides() {
    const outline = this.outline;
    const { width, height } = this.preview;
    this.guides.width = width;
    this.guides.height = height;
    const context = this.guides.getContext("2d");
    context.clearRect(0, 0, width, height);
    const scale = width / outline.bleed.width;
    const rect = (a) => [(a.left - outline.bleed.left) * scale, (a.top - outline.bleed.top) * scale, a.width * scale, a.height * scale];
    context.lineWidth = Math.max(1, width / 600);
    if (this.guidesToggle.checked) {
      context.setLineDash([]);
      context.strokeStyle = "rgba(200, 30, 40, 0.9)";
      context.strokeRect(...rect(outline.cut));
      context.setLineDash([6 * context.lineWidth, 4 * context.lineWidth]);
      context.strokeStyle = "rgba(20, 140, 80, 0.9)";
      context.strokeRect(...rect(outline.safe));
    }
    const selected = outline.items.find((i) => i.linkId === this.selected);
    if (selected) {
      context.setLineDash([]);
      context.strokeStyle = "rgba(242, 177, 52, 1)";
      context.lineWidth *= 2;
      context.strokeRect(...rect(selected.area));
    }
  }

  showWarnings(report) {
    const messages = [];
    for (const overflow of report.overflows) {
      const too = [overflow.width > 0 && "wide", overflow.height > 0 && "tall"].filter(Boolean).join(" and ");
      messages.push(`${humanise(overflow.linkId)}: the text is too ${too} for its box; shorten it or make it smaller.`);
    }
    for (const linkId of report.fontSubstituted) {
      messages.push(`${humanise(linkId)}: a character is not in this font and is drawn in another one.`);
    }
    let packWarnings = [];
    try {
      packWarnings = this.engine.packWarnings(this.design.product, this.pack);
    } catch (error) {
      messages.push(error.message ?? String(error));
    }
    const side = `pack.sides.${this.side.type}.${this.side.sideNum}`;
    for (const warning of packWarnings) {
      // This side's own and the pack's; other sides' appear when they are shown.
      const element = warning.element;
      if (element.startsWith("pack.sides.") && element !== side && !element.startsWith(`${side}.`)) continue;
      messages.push(warning.message);
    }
    this.warnings.replaceChildren(...(messages.length ? messages.map((m) => h("li", {}, m)) : [h("li", { class: "ok" }, "Nothing to check on this side.")]));
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

async function start() {
  try {
    const response = await fetch(root.dataset.source, { credentials: "same-origin" });
    const design = await response.json();
    if (!response.ok) throw new Error(design.error?.message ?? `HTTP ${response.status}`);
    const engine = await createEngine();
    const catalogue = await (await fetch("/web-demo/engine/fonts/catalogue.json")).json();
    const families = Object.keys(catalogue.families);
    window.presspackDesigner = new Designer(root, design, engine, families);
    root.dataset.ready = "true";
  } catch (error) {
    root.replaceChildren(h("p", { class: "notice", role: "alert" }, `The design canvas could not start: ${error.message}`));
  }
}

start();
