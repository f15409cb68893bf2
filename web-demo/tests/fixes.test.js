// The editor's fixes for warnings that block ordering, under Node's test runner.
import { test } from "node:test";
import assert from "node:assert/strict";
import { applyFix, frontLayout } from "../editor/fixes.js";

const context = {
  numCards: 50,
  templates: ["businesscard_full_text_landscape", "businesscard_full_image_landscape"],
  outline: () => ({ items: [{ linkId: "photo", kind: "Image", area: { left: 0, top: 0, width: 40, height: 20 } }] }),
};
const back = { type: "details", sideNum: 1 };

test("each fix changes the pack so that its warning goes", () => {
  const pack = { numCards: 20, cards: [{ cardNum: 1 }], sides: [{ ...back, templateCode: "t", data: [
    { type: "imageData", linkId: "photo", resourceUri: "store://a" },
    { type: "imageData", linkId: "gone", resourceUri: "store://b", imageBox: {} }] },
    { ...back, templateCode: "t" }],
    imageBasket: { items: [{ resourceUri: "store://a", imageItems: [{ width: 800, height: 400 }] }] } };
  assert.ok(applyFix(pack, { fix: "pack-size" }, context));
  assert.equal(pack.numCards, 50);
  applyFix(pack, { fix: "card-split" }, context);
  assert.equal(pack.cards, undefined);
  applyFix(pack, { fix: "number-sides" }, context);
  assert.deepEqual(pack.sides.map((s) => s.sideNum), [1, 2]);
  const placed = applyFix(pack, { fix: "place-image", side: back, linkId: "photo" }, context);
  assert.ok(placed);
  assert.deepEqual(pack.sides[0].data[0].imageBox, { center: { x: 20, y: 10 }, width: 40, height: 20, angle: 0 });
  applyFix(pack, { fix: "remove-image", side: back, linkId: "gone" }, context);
  assert.deepEqual(pack.sides[0].data[1], { type: "imageData", linkId: "gone" });
  const added = applyFix(pack, { fix: "add-front" }, context);
  assert.equal(added.sideIndex, 0);
  assert.deepEqual(pack.sides[0], { type: "image", sideNum: 1, templateCode: "businesscard_full_image_landscape", data: [] });
});

test("zooming out leaves the picture just covering its slot, where it was", () => {
  const box = { center: { x: 20, y: 10 }, width: 80, height: 40, angle: 0 };
  const pack = { sides: [{ ...back, templateCode: "t", data: [{ type: "imageData", linkId: "photo", resourceUri: "store://a", imageBox: box }] }],
    imageBasket: { items: [{ resourceUri: "store://a", imageItems: [{ width: 800, height: 400 }] }] } };
  assert.ok(applyFix(pack, { fix: "zoom-out", side: back, linkId: "photo" }, context));
  assert.deepEqual(pack.sides[0].data[0].imageBox, { center: { x: 20, y: 10 }, width: 40, height: 20, angle: 0 });
  assert.equal(applyFix(pack, { fix: "zoom-out", side: back, linkId: "none" }, context), null);
});

test("a fix that does not apply says so and changes nothing", () => {
  const pack = { sides: [] };
  assert.equal(applyFix(pack, { fix: "remove-image", side: back, linkId: "x" }, context), null);
  assert.equal(applyFix(pack, { fix: "something-new" }, context), null);
  assert.deepEqual(pack, { sides: [] });
  assert.equal(frontLayout(["a_text", "b_text"]), "a_text");
});
