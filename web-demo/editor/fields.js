// The controls of a slot: a text's (text, font, size, colour, alignment, style), a
// picture's (choose, upload with progress, zoom, turn, move by keyboard) and a filled box's
// colour. The same functions build the panel beside the card (ids `f-...`) and the editor
// that opens on the card (`inplace-...`); a change in one shows in the other.

import { h } from "./dom.js";
import { MAX_ZOOM, pictureSize, setZoom, zoomOf } from "./geometry.js";
import { pickerFamily } from "./images.js";

export const PT = 25.4 / 72; // millimetres per point

const hexToColour = (hex) => ({
  type: "RGB",
  r: parseInt(hex.slice(1, 3), 16),
  g: parseInt(hex.slice(3, 5), 16),
  b: parseInt(hex.slice(5, 7), 16),
});

/** A change from a control of `item`: remembered for undo, applied to the slot's datum
 * (`apply(control, datum)`), drawn. */
export function edit(d, item, what, apply) {
  return (event) => {
    const started = event.timeStamp;
    d.remember(`${item.linkId}.${what}`);
    const datum = d.datum(item);
    apply(event.target, datum);
    d.attach(datum);
    syncTwin(event.target);
    d.render(started);
  };
}

/** Shows a control's new value in its twin: the same control of the slot on the card
 * (`inplace-...`) or in the panel (`f-...`). */
function syncTwin(source) {
  const [, prefix, rest] = /^(f|inplace)-(.*)$/.exec(source.id) ?? [];
  const twin = prefix && /** @type {HTMLInputElement | null} */ (document.getElementById(`${prefix === "f" ? "inplace" : "f"}-${rest}`));
  if (!twin) return;
  if (twin.type === "checkbox") twin.checked = source.checked;
  else twin.value = source.value;
}

/** The font picker's groups, by the catalogue's kinds. */
const KIND_LABELS = {
  sans: "Sans serif",
  serif: "Serif",
  slab: "Slab serif",
  rounded: "Rounded",
  condensed: "Condensed",
  display: "Display",
  script: "Script",
  mono: "Monospaced",
};

/** A family in the font picker, its name in its own face (once [`Resources.familyFaces`]). */
function familyOption(family, chosen) {
  const option = h("option", { value: family.name, selected: family.name === chosen }, family.label);
  // Set through the style object: the page's CSP refuses style attributes.
  option.style.fontFamily = `"${pickerFamily(family.name)}", system-ui`;
  return option;
}

/** A text slot's controls, `prefix` naming their ids (the panel: f, the card: inplace). */
export function textControls(d, item, prefix) {
  const datum = d.datum(item);
  const t = item.text;
  const id = (what) => `${prefix}-${item.linkId}-${what}`;
  const multi = item.kind === "MultiLineText";
  const text = h(multi ? "textarea" : "input", {
    id: id("text"),
    // Right-to-left text (Arabic, Hebrew) is typed and shown right to left.
    dir: "auto",
    value: datum.text ?? "",
    placeholder: t.defaultText,
    maxlength: "1000",
    rows: multi ? "3" : undefined,
    oninput: edit(d, item, "text", (el, changed) => (changed.text = el.value)),
  });
  const font = d.font(datum, t);
  // A client name (Helvetica) shows as the family it prints in (Liberation Sans).
  const chosen = d.familyAliases[font.fontFamily.toLowerCase()] ?? font.fontFamily.toLowerCase();
  // Kinds in the order of KIND_LABELS, then any other an operator's catalogue adds.
  const kinds = [...new Set([...Object.keys(KIND_LABELS), ...d.families.map((f) => f.kind)])].filter((kind) =>
    d.families.some((f) => f.kind === kind),
  );
  const family = h(
    "select",
    {
      id: id("font"),
      disabled: t.fontFixed,
      onchange: edit(d, item, "font", (el, changed) => (changed.font = { ...d.font(changed, t), fontFamily: el.value })),
      // The names in their own faces, fetched as the customer reaches for the list.
      onpointerdown: () => d.resources.familyFaces(d.families),
      onfocus: () => d.resources.familyFaces(d.families),
    },
    ...kinds.map((kind) =>
      h(
        "optgroup",
        { label: KIND_LABELS[kind] ?? kind },
        ...d.families.filter((f) => f.kind === kind).map((f) => familyOption(f, chosen)),
      ),
    ),
  );
  if (!d.families.some((f) => f.name === chosen)) {
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
        onchange: edit(d, item, what, (el, changed) => (changed.font = { ...d.font(changed, t), [what]: el.checked })),
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
    oninput: edit(d, item, "size", (el, changed) => {
      const points = Number(el.value);
      if (points >= 4 && points <= 72) changed.pointSize = Number((points * PT).toFixed(4));
    }),
  });
  const { picker: colour, swatches } = colourControls(d, item, id("colour"), datum.colour ?? t.colour ?? { type: "RGB", r: 0, g: 0, b: 0 }, t.colourFixed);
  const alignment = h(
    "select",
    { id: id("align"), disabled: t.alignmentFixed, onchange: edit(d, item, "align", (el, changed) => (changed.alignment = el.value)) },
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
    ...swatches,
    h("div", { class: "designer-row" }, style("bold", "Bold"), style("italic", "Italic")),
  ];
}

const isCmyk = (colour) => String(colour?.type).toUpperCase() === "CMYK";
const sameColour = (a, b) => isCmyk(a) && isCmyk(b) && ["c", "m", "y", "k"].every((ink) => Number(a[ink]) === Number(b[ink]));
const inks = (colour) => ["c", "m", "y", "k"].map((ink) => `${ink.toUpperCase()} ${colour[ink]}`).join(" ");

/** A slot's colour: a free picker (an RGB colour) and the shop's palette (`design.palette`),
 * whose swatch is kept as its inks, CMYK, so that the press prints exactly them. `current`
 * is the colour shown; both stay in step with the slot's other colour controls.
 * `{picker, swatches}`: the swatches as a list of none or one element. */
function colourControls(d, item, id, current, fixed = false) {
  const picker = h("input", {
    id,
    type: "color",
    "data-colour-slot": item.linkId,
    value: d.engine.displayColour(current),
    disabled: fixed,
    oninput: edit(d, item, "colour", (el, changed) => {
      changed.colour = hexToColour(el.value);
      showColour(d, item, changed.colour);
    }),
  });
  const palette = d.design.palette ?? [];
  if (!palette.length || fixed) return { picker, swatches: [] };
  const swatches = h(
    "div",
    { class: "designer-swatches", role: "group", "aria-label": "Shop colours" },
    ...palette.map((swatch, index) => {
      const button = h("button", {
        type: "button",
        class: "designer-swatch",
        "data-colour-slot": item.linkId,
        "data-swatch": String(index),
        "aria-pressed": String(sameColour(current, swatch.colour)),
        "aria-label": swatch.name,
        title: `${swatch.name} (${inks(swatch.colour)})`,
        onclick: edit(d, item, "swatch", (el, changed) => {
          changed.colour = { ...swatch.colour };
          showColour(d, item, changed.colour);
        }),
      });
      // Set through the style object: the page's CSP refuses style attributes.
      button.style.background = d.engine.displayColour(swatch.colour);
      return button;
    }),
  );
  return { picker, swatches: [swatches] };
}

/** Shows `colour` in every colour control of `item` (the panel's and the card's). */
function showColour(d, item, colour) {
  for (const control of /** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll(`[data-colour-slot="${CSS.escape(item.linkId)}"]`))) {
    if (control.type === "color") control.value = d.engine.displayColour(colour);
    else control.setAttribute("aria-pressed", String(sameColour(colour, d.design.palette[Number(control.dataset.swatch)].colour)));
  }
}

/** A picture slot's controls (see `textControls`). */
export function imageControls(d, item, prefix) {
  const datum = d.datum(item);
  const id = (what) => `${prefix}-${item.linkId}-${what}`;
  const choose = h(
    "select",
    { id: id("image"), onchange: (e) => d.placeImage(item, e.target.value) },
    h("option", { value: "" }, "No picture"),
    ...d.pack.imageBasket.items.map((basketItem, i) =>
      h("option", { value: basketItem.resourceUri, selected: basketItem.resourceUri === datum.resourceUri }, basketItem.name || `Picture ${i + 1}`),
    ),
  );
  const progress = h("progress", { id: id("progress"), max: "1", value: "0", hidden: true, "aria-label": "Upload progress" });
  const file = h("input", {
    id: id("upload"),
    type: "file",
    accept: "image/png,image/jpeg,image/gif,application/pdf",
    onchange: (e) => d.upload(item, e.target, progress),
  });
  const size = datum.resourceUri ? pictureSize(d.pack.imageBasket, datum.resourceUri) : null;
  const zoom = h("input", {
    id: id("zoom"),
    type: "range",
    min: "1",
    max: String(MAX_ZOOM),
    step: "0.05",
    value: String(zoomOf(item.area, size, datum.imageBox)),
    disabled: !datum.imageBox,
    oninput: edit(d, item, "zoom", (el, changed) => setZoom(item.area, pictureSize(d.pack.imageBasket, changed.resourceUri), changed.imageBox, Number(el.value))),
  });
  const placed = Boolean(datum.resourceUri && datum.imageBox);
  return [
    h("label", { for: id("image") }, "Picture"),
    choose,
    h("label", { for: id("upload") }, datum.resourceUri ? "Replace with a picture from your device" : "Upload a picture"),
    file,
    progress,
    qrControls(d, item, id, progress),
    h("label", { for: id("zoom") }, "Zoom"),
    zoom,
    h(
      "div",
      { class: "designer-row" },
      h("button", { type: "button", class: "secondary", disabled: !placed, onclick: () => d.turnImage(item) }, "Turn 90°"),
      h("button", { type: "button", class: "secondary", disabled: !placed, onclick: () => d.stage.select(item.linkId, true) }, "Move with the keyboard"),
    ),
  ];
}

/** The QR code's fields: what it carries, by kind. */
const QR_FIELDS = {
  link: [["url", "Web address", "url"]],
  contact: [
    ["name", "Name", "text"],
    ["jobTitle", "Job title", "text"],
    ["organisation", "Organisation", "text"],
    ["phone", "Phone", "tel"],
    ["email", "Email", "email"],
    ["website", "Website", "url"],
  ],
};

/** The narrowest a QR code's module (square) may print: phones read smaller ones poorly. */
export const MIN_QR_MODULE_MM = 0.4;
/** The resolution a QR code's picture is drawn for. */
const QR_DPI = 600;

/** A QR code for a picture slot: a link or contact details, encoded by the engine (which
 * refuses, naming the field, what a card's code cannot carry), drawn with whole pixels per
 * module at print resolution into a picture of the slot's shape, and placed like an upload. */
function qrControls(d, item, id, progress) {
  const kind = h("select", { id: id("qr-kind") }, h("option", { value: "link" }, "A link"), h("option", { value: "contact" }, "Contact details"));
  const groups = Object.fromEntries(
    Object.entries(QR_FIELDS).map(([k, fields]) => [
      k,
      h(
        "div",
        { class: "designer-qr-fields", hidden: k !== "link" },
        ...fields.flatMap(([name, label, type]) => [h("label", { for: id(`qr-${name}`) }, label), h("input", { id: id(`qr-${name}`), type, maxlength: "2000" })]),
      ),
    ]),
  );
  kind.onchange = () => Object.entries(groups).forEach(([k, group]) => (group.hidden = k !== kind.value));
  const status = h("p", { class: "designer-qr-status", role: "status" });
  const place = async () => {
    const content = { kind: kind.value };
    for (const [name] of QR_FIELDS[kind.value]) content[name] = /** @type {HTMLInputElement} */ (document.getElementById(id(`qr-${name}`))).value;
    try {
      const picture = qrPicture(d.engine.qrCode(content), item.area, within(item.area, d.outline.safe));
      if (picture.moduleMm < MIN_QR_MODULE_MM) {
        status.textContent = `Its squares would print ${picture.moduleMm.toFixed(2)} mm wide, too small for phones to read (${MIN_QR_MODULE_MM} mm at least): use less text, or a layout with a larger picture.`;
        return;
      }
      const blob = await new Promise((done) => picture.canvas.toBlob(done, "image/png"));
      status.textContent = "";
      await d.uploadFile(item, new File([blob], "qr-code.png", { type: "image/png" }), progress);
    } catch (error) {
      status.textContent = error.message;
    }
  };
  return h(
    "details",
    { class: "designer-qr" },
    h("summary", {}, "QR code"),
    h("label", { for: id("qr-kind") }, "The code carries"),
    kind,
    groups.link,
    groups.contact,
    h("button", { type: "button", class: "secondary", onclick: place }, "Place the QR code"),
    status,
  );
}

/** The part of `area` inside `safe` (both mm; `area` itself if they do not meet). */
function within(area, safe) {
  const left = Math.max(area.left, safe.left);
  const top = Math.max(area.top, safe.top);
  const width = Math.min(area.left + area.width, safe.left + safe.width) - left;
  const height = Math.min(area.top + area.height, safe.top + safe.height) - top;
  return width > 0 && height > 0 ? { left, top, width, height } : area;
}

/** A QR code `{size, modules}` drawn for a slot of `area` (mm): a white picture of the slot's
 * shape at QR_DPI, the code with its quiet zone centred in `inner` (the slot's part inside
 * the safe area, so no trim cuts into it), each module whole pixels.
 * `{canvas, moduleMm}`: the picture, and how wide a module prints. */
function qrPicture({ size, modules }, area, inner) {
  const quiet = 4;
  const across = size + 2 * quiet;
  const pixels = (mm) => Math.round((mm / 25.4) * QR_DPI);
  const [width, height] = [pixels(area.width), pixels(area.height)];
  const room = Math.min(pixels(inner.width), pixels(inner.height));
  const module = Math.max(1, Math.floor(room / across));
  const canvas = document.createElement("canvas");
  [canvas.width, canvas.height] = [width, height];
  const context = canvas.getContext("2d");
  context.fillStyle = "#fff";
  context.fillRect(0, 0, width, height);
  context.fillStyle = "#000";
  const centre = (start, length) => pixels(start) + Math.floor((pixels(length) - module * across) / 2) + quiet * module;
  const left = centre(inner.left - area.left, inner.width);
  const top = centre(inner.top - area.top, inner.height);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) if (modules[y * size + x]) context.fillRect(left + x * module, top + y * module, module, module);
  }
  return { canvas, moduleMm: (module / QR_DPI) * 25.4 };
}

/** A filled box's colour (a background). */
export function boxControls(d, item, prefix) {
  const datum = d.datum(item);
  const id = `${prefix}-${item.linkId}-colour`;
  const { picker, swatches } = colourControls(d, item, id, datum.colour ?? item.colour);
  return [h("label", { for: id }, "Background colour"), picker, ...swatches];
}

export function field(item, controls) {
  return h("fieldset", { class: "designer-field", "data-slot": item.linkId }, h("legend", {}, item.label), ...controls);
}
