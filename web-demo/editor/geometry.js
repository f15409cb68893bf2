// The geometry of slots and pictures, in the template's millimetres: where a picture may sit
// in its slot (it always covers the slot), its zoom, quarter turns, the resolution it prints
// at, and where a slot is on the preview. No DOM: tested under Node.

export const MAX_ZOOM = 4;
const round = (value) => Number(value.toFixed(3));

/** The pixel size of a basket item's largest rendition (the one print uses), or null. */
export function pictureSize(basket, uri) {
  const item = basket?.items?.find(
    (i) => i.resourceUri === uri || i.imageItems?.some((r) => r.resourceUri === uri),
  );
  let best = null;
  for (const r of item?.imageItems ?? []) {
    if (!(r.width > 0 && r.height > 0)) continue;
    if (!best || r.width * r.height > best.width * best.height) best = { width: r.width, height: r.height };
  }
  return best;
}

/** Whether a box is turned a quarter (90 or 270 degrees). */
const quarterTurned = (box) => Math.round(((((box?.angle ?? 0) % 360) + 360) % 360) / 90) % 2 === 1;

/** The box's upright extent on the card. */
export function extent(box) {
  return quarterTurned(box) ? { width: box.height, height: box.width } : { width: box.width, height: box.height };
}

/** The smallest picture box of the picture's aspect (turned by `angle`) that covers `area`. */
export function coverBox(area, size, angle = 0) {
  if (!size) return { width: area.width, height: area.height };
  const turned = quarterTurned({ angle });
  const [w, h] = turned ? [size.height, size.width] : [size.width, size.height];
  const scale = Math.max(area.width / w, area.height / h);
  return { width: size.width * scale, height: size.height * scale };
}

/** A picture placed to cover its slot, centred. */
export function placeCovering(area, size) {
  const cover = coverBox(area, size);
  return {
    center: { x: round(area.left + area.width / 2), y: round(area.top + area.height / 2) },
    width: round(cover.width),
    height: round(cover.height),
    angle: 0,
  };
}

/** How far the picture is zoomed beyond covering its slot (1 = just covering). */
export function zoomOf(area, size, box) {
  if (!box) return 1;
  return Math.max(1, box.width / coverBox(area, size, box.angle).width);
}

/** Keeps the picture covering its slot: moved back inside where it would leave a gap. */
export function keepCovering(area, box) {
  const { width, height } = extent(box);
  const clamp = (centre, size, start, length) =>
    Math.min(start + size / 2, Math.max(start + length - size / 2, centre));
  box.center.x = round(clamp(box.center.x, width, area.left, area.width));
  box.center.y = round(clamp(box.center.y, height, area.top, area.height));
  box.width = round(box.width);
  box.height = round(box.height);
  return box;
}

/** Zooms to `zoom` (1 to MAX_ZOOM) about the picture's centre. */
export function setZoom(area, size, box, zoom) {
  const cover = coverBox(area, size, box.angle);
  const z = Math.min(MAX_ZOOM, Math.max(1, zoom));
  box.width = cover.width * z;
  box.height = cover.height * z;
  return keepCovering(area, box);
}

export function moveBy(area, box, dx, dy) {
  box.center.x += dx;
  box.center.y += dy;
  return keepCovering(area, box);
}

/** Turns the picture a quarter clockwise, keeping its zoom. */
export function turn(area, size, box) {
  const zoom = zoomOf(area, size, box);
  box.angle = (((box.angle ?? 0) + 90) % 360 + 360) % 360;
  return setZoom(area, size, box, zoom);
}

/** The resolution the picture prints at in its box (the engine's rule for PVI003/PVI004). */
export function printDpi(size, box) {
  if (!size || !box) return null;
  return Math.min(size.width / (box.width / 25.4), size.height / (box.height / 25.4));
}

/** A slot's place on the preview as percentages of the bleed box, for overlays. */
export function slotPlace(bleed, area) {
  const percent = (value) => `${Number(value.toFixed(4))}%`;
  return {
    left: percent(((area.left - bleed.left) / bleed.width) * 100),
    top: percent(((area.top - bleed.top) / bleed.height) * 100),
    width: percent((area.width / bleed.width) * 100),
    height: percent((area.height / bleed.height) * 100),
  };
}

/**
 * The text data a side gains when its layout changes from `from` to `to`: each text slot of
 * the new layout with nothing of its own takes, in order, the text of a slot of the old
 * layout that the new one does not have. The old data stay (switching back restores them).
 */
export function carriedText(from, to, data) {
  const own = new Set(data.map((d) => d.linkId));
  const toIds = new Set(to.items.map((i) => i.linkId));
  const spare = from.items
    .filter((i) => i.text && !toIds.has(i.linkId))
    .map((i) => data.find((d) => d.linkId === i.linkId && typeof d.text === "string" && d.text.trim()))
    .filter(Boolean);
  const carried = [];
  for (const item of to.items) {
    if (!item.text || own.has(item.linkId)) continue;
    const source = spare.shift();
    if (!source) break;
    const type = item.kind === "MultiLineText" ? "multiLineTextData" : "textData";
    carried.push({ type, linkId: item.linkId, text: source.text });
  }
  return carried;
}
