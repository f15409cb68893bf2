// The npm package in Node: built by `npm run build` into pkg/, tested by `npm test`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile, readdir } from "node:fs/promises";

import { createEngine, loadTemplates, templateCodes, withFaces } from "../../pkg/index.js";
import { decodePng } from "./png.js";

const scenes = new URL("../../engine/tests/scenes/", import.meta.url);
const engine = await createEngine();

test("the built-in templates are all there", async () => {
  const hostTemplates = (await readdir(new URL("../../assets/templates/", import.meta.url)))
    .filter((name) => name.endsWith(".xml"));
  assert.equal(templateCodes.length, hostTemplates.length);
  assert.ok(templateCodes.includes("businesscard_full_text_landscape"));
  const xml = (await loadTemplates(["minicard_full_image_landscape"])).minicard_full_image_landscape;
  assert.match(xml, /<Code>minicard_full_image_landscape<\/Code>/);
});

// The engine's reference scenes, rendered natively to reference/*.png: the package's pixels
// are the native ones (at most 1 apart per channel, as the native test allows), and its PNG
// holds exactly its pixels.
test("renderPixels gives the reference scenes' pixels and render their PNG", async () => {
  const { scenes: list } = JSON.parse(await readFile(new URL("scenes.json", scenes), "utf8"));
  for (const name of await readdir(new URL("templates/", scenes))) {
    engine.addTemplate(await readFile(new URL(`templates/${name}`, scenes), "utf8"));
  }
  for (const scene of list) {
    const images = await Promise.all(
      Object.entries(scene.images ?? {}).map(async ([resourceUri, file]) => ({
        resourceUri,
        bytes: new Uint8Array(await readFile(new URL(`images/${file}`, scenes))),
      })),
    );
    const request = {
      side: scene.side,
      overlays: scene.overlays ?? [],
      boxType: scene.boxType,
      maxSide: scene.maxSide,
      partial: scene.partial ?? false,
    };
    const drawn = engine.renderPixels(request, images);
    const reference = decodePng(await readFile(new URL(`reference/${scene.name}.png`, scenes)));
    assert.equal(drawn.width, reference.width, scene.name);
    assert.equal(drawn.height, reference.height, scene.name);
    assert.equal(drawn.pixels.length, drawn.width * drawn.height * 4, scene.name);
    let worst = 0;
    for (let i = 0; i < drawn.pixels.length; i++) {
      worst = Math.max(worst, Math.abs(drawn.pixels[i] - reference.rgba[i]));
    }
    assert.ok(worst <= 1, `${scene.name}: a channel is ${worst} from the reference`);
    const png = engine.render(request, images);
    assert.deepEqual(decodePng(png.png).rgba, drawn.pixels, `${scene.name}: PNG and pixels`);
  }
});

test("measure gives the server's text measurements", () => {
  const one = engine.measure({ text: "Presspack", fontFamily: "helvetica", bold: false,
    italic: false, size: 3.5278, wrappingWidth: null, leading: null });
  assert.equal(one.numberOfLines, 1);
  assert.ok(one.textWidth > 10 && one.textWidth < 25, `${one.textWidth} mm`);
  const wrapped = engine.measure({ text: "Presspack prints packs of cards", fontFamily: "times",
    bold: true, italic: false, size: 3.5278, wrappingWidth: 20, leading: 1.2 });
  assert.ok(wrapped.numberOfLines > 1);
  assert.throws(() => engine.measure({ text: "x", fontFamily: "comic", bold: false,
    italic: false, size: 3, wrappingWidth: null, leading: null }), /comic/);
});

test("boxType and maxSide default to renderSide's: print, 1024 px", () => {
  const side = { type: "details", sideNum: 1, templateCode: "businesscard_full_text_landscape",
    data: [{ type: "textData", linkId: "back_line_1", text: "Ann Example" }] };
  const plain = engine.renderPixels({ side }, []);
  const named = engine.renderPixels({ side, boxType: "print", maxSide: 1024 }, []);
  assert.equal(Math.max(plain.width, plain.height), 1024);
  assert.deepEqual([plain.width, plain.height], [named.width, named.height]);
  assert.deepEqual(plain.pixels, named.pixels);
});

// A page that redraws hands back its last pixels: they are filled again, the same array,
// with the pixels a new array would get; an array of another size is left alone.
test("renderPixels fills the array passed as `into` when it has the render's size", () => {
  const side = (text) => ({ type: "details", sideNum: 1,
    templateCode: "businesscard_full_text_landscape",
    data: [{ type: "textData", linkId: "back_line_1", text }] });
  const request = (text, maxSide = 300) => ({ side: side(text), boxType: "bleed", maxSide });
  const first = engine.renderPixels(request("Ann"), []);
  const again = engine.renderPixels(request("Bob Example"), [], first.pixels);
  assert.equal(again.pixels, first.pixels, "the same array");
  assert.deepEqual(again.pixels, engine.renderPixels(request("Bob Example"), []).pixels);
  assert.notDeepEqual(again.pixels, engine.renderPixels(request("Ann"), []).pixels);

  const other = new Uint8Array(12).fill(9);
  const larger = engine.renderPixels(request("Ann", 400), [], other);
  assert.notEqual(larger.pixels, other);
  assert.equal(larger.pixels.length, larger.width * larger.height * 4);
  assert.deepEqual(other, new Uint8Array(12).fill(9), "left alone");

  assert.throws(() => engine.renderPixels(request("Ann"), [], [1, 2, 3]), (error) => {
    assert.equal(error.code, "invalid_request");
    assert.match(error.message, /^into: /);
    return true;
  });
});

/** What `call` throws. */
const thrown = (call) => {
  try {
    call();
  } catch (error) {
    return error;
  }
  return assert.fail("nothing was thrown");
};

test("refusals are thrown as PresspackError with the engine's failure code", () => {
  const font = thrown(() => engine.measure({ text: "x", fontFamily: "comic", bold: false,
    italic: false, size: 3, wrappingWidth: null, leading: null }));
  assert.ok(font instanceof Error);
  assert.equal(font.name, "PresspackError");
  assert.equal(font.code, "unknown_font");
  assert.match(font.message, /comic/);
  const template = thrown(() => engine.report({ type: "details", sideNum: 1,
    templateCode: "no_such_template", data: [] }));
  assert.equal(template.code, "unknown_template");
  assert.equal(thrown(() => engine.report({ type: "details" })).code, "invalid_side");
  assert.equal(thrown(() => engine.addTemplate("<Template/>")).code, "invalid_template");
  assert.equal(thrown(() => engine.packWarnings("nosuchproduct", {})).code, "invalid_request");
});

test("displayColour converts CMYK as the engine draws it", () => {
  assert.equal(engine.displayColour({ type: "RGB", r: 255, g: 128, b: 0 }), "#ff8000");
  assert.equal(engine.displayColour({ type: "cmyk", c: 0, m: 100, y: 100, k: 0 }), "#ff0000");
  assert.equal(engine.displayColour({ type: "CMYK", c: 0, m: 0, y: 0, k: 50 }), "#808080");
  assert.throws(() => engine.displayColour({ type: "CMYK", c: 0, m: 0, y: 0, k: 101 }), /colour\.k/);
});

test("qrCode encodes a link or a vCard and refuses, naming the field, what a card cannot carry", () => {
  const link = engine.qrCode({ kind: "link", url: "https://print.example/ann" });
  assert.equal(link.size, 25);
  assert.equal(link.modules.length, 25 * 25);
  assert.equal(link.payload, "https://print.example/ann");
  const card = engine.qrCode({ kind: "contact", name: "Ann Example", phone: "+44 20 7946 0018" });
  assert.match(card.payload, /^BEGIN:VCARD\r\nVERSION:3\.0\r\n.*TEL:\+44 20 7946 0018\r\nEND:VCARD$/s);
  assert.match(thrown(() => engine.qrCode({ kind: "link", url: `https://${"a".repeat(10000)}` })).message, /^link: at most 2000/);
  assert.match(thrown(() => engine.qrCode({ kind: "contact", name: "Ann\u0007" })).message, /^name: character 4 is a control character/);
  assert.equal(thrown(() => engine.qrCode({ kind: "link", url: "javascript:alert(1)" })).code, "invalid_request");
});

test("report gives text overflow and fallback fonts; packWarnings the pack warnings", () => {
  const side = {
    type: "details", sideNum: 1, templateCode: "businesscard_full_text_landscape",
    data: [
      { type: "textData", linkId: "back_line_1", text: "A name far too long to fit on one line of any business card at all" },
      { type: "textData", linkId: "back_line_2", text: "Ahoy \u2620",
        font: { fontFamily: "Georgia", bold: false, italic: false } },
    ],
  };
  const report = engine.report(side);
  assert.deepEqual(report.overflows.map((o) => o.linkId), ["back_line_1"]);
  assert.ok(report.overflows[0].width > 0);
  assert.ok(report.fontSubstituted.includes("back_line_2"), JSON.stringify(report));

  const front = (width) => ({
    type: "image", sideNum: 1, templateCode: "businesscard_full_image_landscape",
    data: [{ type: "imageData", linkId: "variable_image_front", resourceUri: "store://p",
      imageBox: { center: { x: 44, y: 29.5 }, width, height: width } }],
  });
  const basket = { items: [{ resourceUri: "store://p", imageItems: [
    { type: "print", resourceUri: "store://p/print", width: 600, height: 600 }] }] };
  const codes = (pack) => engine.packWarnings("businesscard", pack).map((w) => w.code);
  assert.deepEqual(codes({ sides: [front(25.4), side], imageBasket: basket }), []);
  const low = engine.packWarnings("businesscard", { sides: [front(76.2), side], imageBasket: basket });
  assert.deepEqual(low.map((w) => w.code), ["PVI003"]);
  assert.match(low[0].message, /900x900/);
  assert.deepEqual(codes({ numCards: 7, sides: [front(25.4), side], imageBasket: basket }), ["PV001"]);
  assert.throws(() => engine.packWarnings("nosuchproduct", {}), /nosuchproduct/);
});

// A page loads only the faces its sides use: an on-demand engine names each face it needs
// (font_not_loaded, with `face`), and once given them draws the full engine's pixels.
test("an on-demand engine asks for the faces a side needs and then draws the same", async () => {
  const lazy = await createEngine({ fonts: "on-demand" });
  const side = {
    type: "details", sideNum: 1, templateCode: "businesscard_full_text_landscape",
    data: [{ type: "textData", linkId: "back_line_1", text: "Ada Lovelace",
      font: { fontFamily: "georgia", bold: true, italic: false } }],
  };
  const request = { side, boxType: "bleed", maxSide: 300 };
  assert.throws(() => lazy.renderPixels(request, []), (error) => {
    assert.equal(error.code, "font_not_loaded");
    assert.match(error.face, /^gelasio\//);
    return true;
  });
  const asked = [];
  const drawn = await withFaces(lazy, () => {
    try {
      return lazy.renderPixels(request, []);
    } catch (error) {
      if (error.face) asked.push(error.face);
      throw error;
    }
  });
  // Georgia is Gelasio (docs/api.md "Fonts").
  assert.ok(asked.includes("gelasio/Gelasio_700Bold.ttf"), asked.join());
  assert.ok(asked.length < 12, `${asked.length} faces for one side`);
  assert.deepEqual(drawn.pixels, engine.renderPixels(request, []).pixels);
});

// Thai, Lao, Khmer and Myanmar lines break between words found in word lists, which an
// on-demand engine loads as it loads faces: only when a wrapped line of the script needs one.
test("an on-demand engine loads a script's word list only to wrap a line of it", async () => {
  const lazy = await createEngine({ fonts: "on-demand" });
  const thai = { text: "นามบัตรของคุณพร้อมพิมพ์แล้วกรุณาตรวจสอบชื่อและเบอร์โทรศัพท์",
    fontFamily: "sans", bold: false, italic: false, size: 3.5278, leading: null };
  const asked = [];
  const measure = (request) => withFaces(lazy, () => {
    try {
      return lazy.measure(request);
    } catch (error) {
      if (error.face) asked.push(error.face);
      throw error;
    }
  });
  await measure({ ...thai, wrappingWidth: null });
  assert.ok(!asked.some((name) => name.startsWith("words/")), asked.join());
  const wrapped = await measure({ ...thai, wrappingWidth: 15 });
  assert.deepEqual(asked.filter((name) => name.startsWith("words/")), ["words/thai.dict"]);
  assert.ok(wrapped.numberOfLines > 1);
  assert.deepEqual(wrapped, engine.measure({ ...thai, wrappingWidth: 15 }));
});
