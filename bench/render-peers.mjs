// Render speed of the engine's browser build (the npm package, under Node's V8) beside Skia
// (@napi-rs/canvas) and libvips (sharp), in one process, and the engine's scaling tables
// (docs/benchmarks.md, "Render speed"). Run by bench/render-peers.sh, which builds pkg/ and
// installs the peers; `--quick` runs each case for a fifth of the time.
//
// Every figure is the median of repeated calls after a warm-up, in milliseconds. The engine's
// figures are what a page pays: `renderPixels` (lay out, decode or reuse the image, draw, hand
// back straight-alpha RGBA) and `render` (the same to a PNG).
import { createRequire } from "node:module";
import { readFile } from "node:fs/promises";
import { deflateSync } from "node:zlib";

// PRESSPACK_BENCH_PKG names another build of the package (e.g. one built from an earlier
// commit) to compare against, in its own run.
const { createEngine } = await import(
  process.env.PRESSPACK_BENCH_PKG
    ? new URL(`file://${process.env.PRESSPACK_BENCH_PKG}/index.js`)
    : new URL("../pkg/index.js", import.meta.url)
);

const peers = createRequire(new URL("../target/bench-peers/package.json", import.meta.url));
const { createCanvas, loadImage } = peers("@napi-rs/canvas");
const sharp = peers("sharp");

const quick = process.argv.includes("--quick");
const CASE_MS = quick ? 300 : 1500;

/** Median milliseconds of `run()` over repeated calls (at least 5, about CASE_MS in all). */
async function time(run) {
  for (let i = 0; i < 2; i++) await run();
  const times = [];
  const until = performance.now() + CASE_MS;
  while (times.length < 5 || (performance.now() < until && times.length < 500)) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

const ms = (value) => value.toFixed(value < 10 ? 2 : 1);
const ratio = (a, b) => `${(a / b).toFixed(2)}x`;
function table(title, header, rows) {
  console.log(`\n${title}\n`);
  console.log(`| ${header.join(" | ")} |`);
  console.log(`|${header.map(() => "---").join("|")}|`);
  for (const row of rows) console.log(`| ${row.join(" | ")} |`);
}

// The photos: the reference scenes' 900 x 600 JPEG, and that photo resampled to other sizes
// (the same picture, so only the size differs).
const photoFile = new URL("../engine/tests/scenes/images/photo.jpg", import.meta.url);
const photo900 = new Uint8Array(await readFile(photoFile));
const resized = async (width) =>
  new Uint8Array(await sharp(photo900).resize(width).jpeg({ quality: 90 }).toBuffer());
const photos = {
  "400 x 267": await resized(400),
  "900 x 600": photo900,
  "3000 x 2000": await resized(3000),
};

const engine = await createEngine();

// A card of N image slots in a grid, for the images table.
function gridTemplate(n) {
  const columns = Math.ceil(Math.sqrt(n));
  const rows = Math.ceil(n / columns);
  const [w, h] = [88 / columns, 59 / rows];
  const items = Array.from({ length: n }, (_, i) => {
    const [x, y] = [(i % columns + 0.5) * w, (Math.floor(i / columns) + 0.5) * h];
    return `<Image><LinkId>image_${i}</LinkId><ClippingBox><Centre x="${x}" y="${y}"/><Width>${w}</Width><Height>${h}</Height><Angle>0</Angle></ClippingBox><Layout><zIndex>${i + 1}</zIndex></Layout></Image>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>
<Template xmlns="http://www.moo.com/xsd/template-1.0"><Code>grid_${n}</Code><Version>1</Version>
<Settings><Units type="millimetres"/><Origin orientation="top-left" offsetX="0" offsetY="0"/>
<PrintArea><Width>88</Width><Height>59</Height></PrintArea>
<BleedBox><Centre x="44" y="29.5"/><Width>88</Width><Height>59</Height><Angle>0</Angle></BleedBox>
<CutBox><Centre x="44" y="29.5"/><Width>84</Width><Height>55</Height><Angle>0</Angle></CutBox>
<SafeAreaBox><Centre x="44" y="29.5"/><Width>80</Width><Height>51</Height><Angle>0</Angle></SafeAreaBox>
<RotationAngle>0</RotationAngle><FontSubstitutionStrategy>allLinesIfAnyNeeded</FontSubstitutionStrategy></Settings>
<Items><Box><LinkId>background_box</LinkId><ClippingBox><Centre x="44" y="29.5"/><Width>88</Width><Height>59</Height><Angle>0</Angle></ClippingBox><Layout><zIndex>0</zIndex></Layout><Colour type="RGB"><Red>255</Red><Green>255</Green><Blue>255</Blue></Colour><Filled>true</Filled></Box>
${items.join("\n")}</Items></Template>`;
}
for (let n = 1; n <= 9; n++) engine.addTemplate(gridTemplate(n));

/** The photo side: the photo filling the bleed box (88 x 59 mm), turned by `angle`. */
const photoSide = (angle = 0) => ({
  type: "image",
  sideNum: 1,
  templateCode: "businesscard_full_image_landscape",
  data: [{
    type: "imageData", linkId: "variable_image_front", resourceUri: "photo",
    imageBox: { center: { x: 44, y: 29.5 }, width: 88.5, height: 59, angle },
  }],
});
/** The text side with its first `lines` lines filled (the native benchmark's card). */
const CARD_LINES = ["Ada Lovelace", "Analytical Engine Programmer", "Difference Engine Ltd",
  "12 Marylebone Street", "London W1 2AB", "United Kingdom", "Tel +44 20 7946 0000",
  "Mob +44 7700 900000", "ada@example.com", "www.example.com", "@ada_lovelace"];
const textSide = (lines = 11) => ({
  type: "details",
  sideNum: 1,
  templateCode: "businesscard_full_text_landscape",
  data: CARD_LINES.slice(0, lines).map((text, i) => ({
    type: "textData", linkId: `back_line_${i + 1}`, text,
  })),
});
/** The grid card with a photo covering each slot (3:2 photos, slots cropped to them). */
function gridSide(n) {
  const columns = Math.ceil(Math.sqrt(n));
  const rows = Math.ceil(n / columns);
  const [w, h] = [88 / columns, 59 / rows];
  const [width, height] = w / h > 1.5 ? [w, w / 1.5] : [h * 1.5, h];
  return {
    type: "image", sideNum: 1, templateCode: `grid_${n}`,
    data: Array.from({ length: n }, (_, i) => ({
      type: "imageData", linkId: `image_${i}`, resourceUri: `photo${i}`,
      imageBox: {
        center: { x: (i % columns + 0.5) * w, y: (Math.floor(i / columns) + 0.5) * h },
        width, height,
      },
    })),
  };
}
const request = (side, maxSide = 1024) => ({ side, boxType: "bleed", maxSide });
const withPhoto = (bytes = photo900) => [{ resourceUri: "photo", bytes }];

const pixels = (side, images, maxSide) => engine.renderPixels(request(side, maxSide), images);
const timePixels = (side, images, maxSide) => time(() => pixels(side, images, maxSide));

// Skia draws the photo side: the decoded photo (decoded once, as a page keeps an Image)
// scaled into the bleed box with its default filter quality, clipped to the card.
async function skiaPhotoSide(bytes, width, height, angle = 0) {
  const image = await loadImage(Buffer.from(bytes));
  const canvas = createCanvas(width, height);
  const context = canvas.getContext("2d");
  const scale = width / 88;
  return () => {
    context.setTransform(1, 0, 0, 1, 0, 0);
    context.fillStyle = "#fff";
    context.fillRect(0, 0, width, height);
    context.save();
    context.beginPath();
    context.rect(0, 0, width, height);
    context.clip();
    context.translate(44 * scale, 29.5 * scale);
    context.rotate((angle * Math.PI) / 180);
    context.drawImage(image, (-88.5 / 2) * scale, (-59 / 2) * scale, 88.5 * scale, 59 * scale);
    context.restore();
    return context.getImageData(0, 0, width, height).data;
  };
}

// 1. The photo side's pixels, against Skia.
{
  const rows = [];
  for (const [name, bytes] of Object.entries(photos)) {
    const { width, height } = pixels(photoSide(), withPhoto(bytes), 1024);
    const ours = await timePixels(photoSide(), withPhoto(bytes), 1024);
    const skia = await time(await skiaPhotoSide(bytes, width, height));
    rows.push([`${name} photo`, `${width} x ${height}`, ms(ours), ms(skia), ratio(ours, skia)]);
  }
  for (const angle of [5, 90]) {
    const { width, height } = pixels(photoSide(angle), withPhoto(), 1024);
    const ours = await timePixels(photoSide(angle), withPhoto(), 1024);
    const skia = await time(await skiaPhotoSide(photo900, width, height, angle));
    rows.push([`900 x 600 photo turned ${angle} degrees`, `${width} x ${height}`, ms(ours), ms(skia), ratio(ours, skia)]);
  }
  table("Photo side to RGBA pixels, maxSide 1024, engine (wasm in V8) against Skia (@napi-rs/canvas), ms",
    ["case", "pixels", "engine", "Skia", "engine/Skia"], rows);
}

// 2. The text side to PNG, against libvips's PNG encoder alone on the same pixels.
{
  const side = textSide();
  const rendered = engine.render(request(side), []);
  const { width, height } = rendered;
  const rgba = Buffer.from(pixels(side, [], 1024).pixels);
  const rgb = Buffer.alloc(width * height * 3);
  for (let i = 0, j = 0; i < rgba.length; i += 4, j += 3) rgba.copy(rgb, j, i, i + 3);
  const vips = (data, channels) =>
    sharp(data, { raw: { width, height, channels } }).png({ compressionLevel: 1, adaptiveFiltering: false }).toBuffer();
  const ours = await time(() => engine.render(request(side), []));
  const vipsRgba = await time(() => vips(rgba, 4));
  const vipsRgbSize = (await vips(rgb, 3)).length;
  // zlib level 1 of the RGB rows with PNG's "none" filter byte per row: the size a plain
  // fast encoder reaches.
  const filtered = Buffer.alloc(height * (width * 3 + 1));
  for (let y = 0; y < height; y++) rgb.copy(filtered, y * (width * 3 + 1) + 1, y * width * 3, (y + 1) * width * 3);
  const zlibRgbSize = deflateSync(filtered, { level: 1 }).length;
  table(`Text side (11 lines) to PNG, ${width} x ${height}: time (ms) and size (bytes)`,
    ["what", "time", "size"], [
      ["engine: render to PNG (lay out, draw, encode)", ms(ours), rendered.png.length],
      ["libvips: PNG level 1 of the same RGBA pixels, encode alone", ms(vipsRgba), ""],
      ["libvips: PNG level 1 of the same pixels as RGB", "", vipsRgbSize],
      ["zlib level 1 of the RGB rows (no filter)", "", zlibRgbSize],
      ["engine time / libvips encode time; engine size / zlib RGB size",
        ratio(ours, vipsRgba), ratio(rendered.png.length, zlibRgbSize)],
    ]);
}

// 3. Scaling: output size, text lines, images, rotations, enlargement.
{
  const rows = [];
  for (const maxSide of [256, 512, 1024, 2048, 4096]) {
    const { width, height } = pixels(photoSide(), withPhoto(), maxSide);
    const photo = await timePixels(photoSide(), withPhoto(), maxSide);
    const text = await timePixels(textSide(), [], maxSide);
    // As the editor redraws: the last answer's array passed back as `into` and filled again.
    const reusing = (side, images) => {
      let last;
      return time(() => (last = engine.renderPixels(request(side, maxSide), images, last?.pixels)));
    };
    const photoReused = await reusing(photoSide(), withPhoto());
    const textReused = await reusing(textSide(), []);
    const ns = (t) => ((t * 1e6) / (width * height)).toFixed(1);
    rows.push([maxSide, `${width} x ${height}`, ms(photo), ns(photo), ms(text), ns(text),
      ns(photoReused), ns(textReused)]);
  }
  table("By output size (900 x 600 photo side; 11-line text side), ms and ns per output pixel; "
    + "the last two with the array reused (`into`)",
    ["maxSide", "pixels", "photo ms", "photo ns/px", "text ms", "text ns/px",
      "photo ns/px, reused", "text ns/px, reused"], rows);
}
{
  const rows = [];
  for (const lines of [0, 1, 3, 6, 11]) rows.push([lines, ms(await timePixels(textSide(lines), [], 1024))]);
  table("By text lines (text side, maxSide 1024), ms", ["lines", "ms"], rows);
}
{
  const rows = [];
  for (const n of [1, 2, 4, 6, 9]) {
    const images = Array.from({ length: n }, (_, i) => ({ resourceUri: `photo${i}`, bytes: photo900 }));
    rows.push([n, ms(await timePixels(gridSide(n), images, 1024))]);
  }
  table("By images on the side (900 x 600 photos in a grid, maxSide 1024), ms", ["images", "ms"], rows);
}
{
  const upright = await timePixels(photoSide(0), withPhoto(), 1024);
  const rows = [];
  for (const angle of [0, 5, 45, 90, 180, 270]) {
    const t = await timePixels(photoSide(angle), withPhoto(), 1024);
    rows.push([angle, ms(t), ratio(t, upright)]);
  }
  table("By rotation of the photo (900 x 600, maxSide 1024), ms and against upright",
    ["degrees", "ms", "/upright"], rows);
}
{
  // The 900 px photo across the 88.5 mm box passes 2x enlargement between maxSide 1789 and
  // 1790 (1790 / 88 * 88.5 / 900 > 2), where drawing leaves the upright fast path.
  const rows = [];
  for (const maxSide of [1700, 1789, 1790, 1800]) {
    const { width, height } = pixels(photoSide(), withPhoto(), maxSide);
    const t = await timePixels(photoSide(), withPhoto(), maxSide);
    rows.push([maxSide, `${width} x ${height}`, ms(t), ((t * 1e6) / (width * height)).toFixed(1)]);
  }
  table("Across 2x enlargement (900 x 600 photo side), ms and ns per output pixel",
    ["maxSide", "pixels", "ms", "ns/px"], rows);
}
