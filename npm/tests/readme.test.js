// The package README's Node examples, run as written (with the package's import pointed at
// pkg/), so the README cannot drift from the engine it documents.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

import { decodePng } from "./png.js";

const run = promisify(execFile);
const readme = await readFile(new URL("../README.md", import.meta.url), "utf8");
const blocks = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
const packageUrl = new URL("../../pkg/index.js", import.meta.url).href;

/** The first js block containing `marker`, importing the built package. */
function example(marker) {
  const block = blocks.find((b) => b.includes(marker));
  assert.ok(block, `the README has a js example with ${marker}`);
  return block.replaceAll('"@presspack/engine"', JSON.stringify(packageUrl));
}

/** Runs `source` as an ES module in a fresh directory holding `files`; its standard output and directory. */
async function runModule(source, files = {}) {
  const dir = await mkdtemp(join(tmpdir(), "presspack-readme-"));
  for (const [name, from] of Object.entries(files)) {
    await copyFile(from, join(dir, name));
  }
  await writeFile(join(dir, "example.mjs"), source);
  const { stdout } = await run(process.execPath, ["example.mjs"], { cwd: dir });
  return { stdout, dir };
}

const setup = `import { createEngine } from ${JSON.stringify(packageUrl)};
const engine = await createEngine();
const side = { type: "details", sideNum: 1, templateCode: "businesscard_full_text_landscape",
  data: [{ type: "textData", linkId: "back_line_1", text: "Ann Example" }] };
`;

test("the README's Node example writes the PNG it says", async () => {
  const photo = new URL("../../engine/tests/scenes/images/photo.jpg", import.meta.url);
  const { stdout, dir } = await runModule(example('writeFile("side.png"'), { "photo.jpg": photo });
  try {
    const [, width, height] = stdout.match(/side\.png: (\d+) x (\d+)/) ?? [];
    assert.ok(width, stdout);
    const png = decodePng(new Uint8Array(await readFile(join(dir, "side.png"))));
    assert.deepEqual([png.width, png.height], [Number(width), Number(height)]);
    assert.equal(Math.max(png.width, png.height), 2048);
    // The photo is drawn: the card holds many colours, not a white background.
    const colours = new Set();
    for (let i = 0; i < png.rgba.length; i += 4 * 97) {
      colours.add((png.rgba[i] << 16) | (png.rgba[i + 1] << 8) | png.rgba[i + 2]);
    }
    assert.ok(colours.size > 200, `the photo is drawn: ${colours.size} colours`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("the README's measuring and error examples run as written", async () => {
  const measure = example("engine.measure(");
  const { stdout } = await runModule(
    `${setup}const measured = ${measure.trim().replace(/;[^;]*$/, "")};
console.log(JSON.stringify(measured));`,
  );
  const measured = JSON.parse(stdout);
  assert.ok(measured.textWidth > 0 && measured.numberOfLines === 1, stdout);

  // The error example's catch block sees the code it branches on.
  const errors = example("catch (error)").replace(
    'error.code === "invalid_max_side") {',
    'error.code === "invalid_max_side") {\n    console.log(`caught ${error.code}: ${error.message}`);',
  );
  const caught = await runModule(`${setup}${errors}`);
  assert.match(caught.stdout, /caught invalid_max_side: maxSide must be from 16 to 4096/);
});

test("the README's on-demand fonts example runs as written", async () => {
  const { stdout } = await runModule(example('fonts: "on-demand"'));
  assert.equal(stdout.trim(), "300");
});
