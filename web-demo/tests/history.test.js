// The editor's undo history, under Node's test runner (`npm test`).
import { test } from "node:test";
import assert from "node:assert/strict";
import { History } from "../editor/history.js";

test("undo and redo walk back and forth through the states", () => {
  const history = new History();
  history.remember({ n: 1 }, null, 0);
  history.remember({ n: 2 }, null, 10);
  assert.deepEqual(history.undo({ n: 3 }), { n: 2 });
  assert.deepEqual(history.undo({ n: 2 }), { n: 1 });
  assert.equal(history.undo({ n: 1 }), null);
  assert.deepEqual(history.redo({ n: 1 }), { n: 2 });
  assert.deepEqual(history.redo({ n: 2 }), { n: 3 });
  assert.equal(history.canRedo, false);
});

test("edits of one field within the typing pause are one step; another field starts one", () => {
  const history = new History({ pause: 1000 });
  history.remember({ text: "" }, "line1", 0);
  history.remember({ text: "A" }, "line1", 500);
  history.remember({ text: "Ad" }, "line1", 1400);
  assert.equal(history.undoStack.length, 1, "three keystrokes, each within a second of the last");
  history.remember({ text: "Ada" }, "line1", 2500);
  history.remember({ text: "Ada", size: 9 }, "size", 2600);
  assert.equal(history.undoStack.length, 3);
});

test("a new change clears what could be redone, and the history is bounded", () => {
  const history = new History({ limit: 3 });
  for (let n = 0; n < 5; n++) history.remember({ n }, null, n);
  assert.equal(history.undoStack.length, 3);
  history.undo({ n: 5 });
  assert.equal(history.canRedo, true);
  history.remember({ n: 4 }, null, 10);
  assert.equal(history.canRedo, false);
  // the saved states are copies: changing the object later does not change them
  const state = { n: 1 };
  history.remember(state, null, 20);
  state.n = 99;
  assert.deepEqual(history.undo({ n: 2 }), { n: 1 });
});
