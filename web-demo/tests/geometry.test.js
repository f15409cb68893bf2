// The editor's slot and picture geometry, under Node's test runner.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  carriedText, coverBox, extent, keepCovering, moveBy, pictureSize, placeCovering, printDpi, setZoom,
  slotPlace, turn, zoomOf,
} from "../editor/geometry.js";

const area = { left: 0, top: 0, width: 40, height: 20 };
const size = { width: 1200, height: 800 };

test("a placed picture covers its slot, centred, and its largest rendition sizes it", () => {
  const basket = { items: [{ resourceUri: "store://a", imageItems: [
    { type: "preview", resourceUri: "store://a/preview", width: 300, height: 200 },
    { type: "print", resourceUri: "store://a/print", width: 1200, height: 800 }] }] };
  assert.deepEqual(pictureSize(basket, "store://a/preview"), size);
  const box = placeCovering(area, size);
  assert.deepEqual(box, { center: { x: 20, y: 10 }, width: 40, height: 26.667, angle: 0 });
  assert.equal(zoomOf(area, size, box), 1);
});

test("moving never leaves a gap; zoom is kept between 1 and 4", () => {
  const box = placeCovering(area, size);
  moveBy(area, box, 0, 100);
  assert.ok(Math.abs(box.center.y - box.height / 2) < 0.001, "the picture's top edge stops at the slot's top");
  moveBy(area, box, -5, 0);
  assert.equal(box.center.x, 20, "as wide as the slot: it cannot move sideways");
  setZoom(area, size, box, 2);
  assert.equal(box.width, 80);
  moveBy(area, box, -100, 0);
  assert.equal(box.center.x, 0 + 80 / 2 - 40, "right edge stops at the slot's right edge");
  setZoom(area, size, box, 10);
  assert.equal(zoomOf(area, size, box), 4);
  setZoom(area, size, box, 0.1);
  assert.equal(zoomOf(area, size, box), 1);
});

test("a quarter turn covers the slot with the picture's sides swapped, keeping its zoom", () => {
  const box = placeCovering(area, size);
  setZoom(area, size, box, 1.5);
  turn(area, size, box);
  assert.equal(box.angle, 90);
  const upright = extent(box);
  assert.ok(upright.width >= area.width && upright.height >= area.height, JSON.stringify(upright));
  assert.ok(Math.abs(zoomOf(area, size, box) - 1.5) < 1e-3);
  const cover = coverBox(area, size, 90);
  assert.ok(Math.abs(cover.height - 40) < 1e-9, "turned, the picture's height spans the slot's width");
  for (let i = 0; i < 3; i++) turn(area, size, box);
  assert.equal(box.angle, 0);
  keepCovering(area, box);
});

test("print resolution is the engine's: pixels over inches, the lesser direction", () => {
  const box = { center: { x: 0, y: 0 }, width: 101.6, height: 50.8, angle: 0 };
  assert.equal(printDpi({ width: 400, height: 400 }, box), 100);
  assert.equal(printDpi(null, box), null);
});

test("a slot's place on the preview is in percent of the bleed box", () => {
  const bleed = { left: -2, top: -2, width: 100, height: 50 };
  assert.deepEqual(slotPlace(bleed, { left: 8, top: 3, width: 50, height: 10 }),
    { left: "10%", top: "10%", width: "50%", height: "20%" });
});

test("switching layout carries text into the new layout's empty slots, in order", () => {
  const text = (linkId, kind = "Text") => ({ linkId, kind, text: { defaultText: "" }, area });
  const from = { items: [text("name"), text("title"), { linkId: "photo", kind: "Image", area }] };
  const to = { items: [text("back_line_1"), text("back_line_2", "MultiLineText"), text("title")] };
  const data = [
    { type: "textData", linkId: "name", text: "Ada Lovelace" },
    { type: "textData", linkId: "title", text: "Analyst" },
  ];
  assert.deepEqual(carriedText(from, to, data), [
    { type: "textData", linkId: "back_line_1", text: "Ada Lovelace" },
  ]);
  const empty = [{ type: "textData", linkId: "name", text: "  " }];
  assert.deepEqual(carriedText(from, to, empty), []);
});
