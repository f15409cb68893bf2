// @presspack/engine: Presspack's render and text-measure engine in the browser and in Node.
// The same wasm engine as the server's renderSide and text.measure: same pixels, same numbers.
import init, { WebEngine } from "./presspack_engine.js";
import { catalogueUrl, faceUrls, templateUrls, wasmUrl } from "./assets.js";

export { WebEngine };

/** The bytes at `url`: read from disk for file: URLs (Node), fetched otherwise. */
async function load(url) {
  if (url.protocol === "file:") {
    const { readFile } = await import("node:fs/promises");
    return new Uint8Array(await readFile(url));
  }
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

const text = async (url) => new TextDecoder().decode(await load(url));

let initialised;

/** Loads and instantiates the wasm module once. */
export function initEngine() {
  initialised ??= load(wasmUrl).then((bytes) => init({ module_or_path: bytes }));
  return initialised;
}

/** The built-in fonts: the catalogue and the bytes of every face it names. */
export async function loadFonts() {
  const catalogue = JSON.parse(await text(catalogueUrl));
  const faces = await Promise.all(
    Object.entries(faceUrls).map(async ([name, url]) => ({ name, bytes: await load(url) })),
  );
  return { catalogue, faces };
}

/** The bytes of one built-in face or word list, by its catalogue name: `{name, bytes}`. */
export async function loadFace(name) {
  const url = faceUrls[name];
  if (!url) throw new Error(`font face ${name}: not a built-in face`);
  return { name, bytes: await load(url) };
}

/**
 * Runs `call` (a render or measurement of `engine`), loading and adding each face (or word
 * list) it turns out to need: an engine made with `fonts: "on-demand"` holds no faces until a
 * text needs one, and no word list until it wraps a line of Thai, Lao, Khmer or Myanmar.
 */
export async function withFaces(engine, call) {
  for (;;) {
    try {
      return call();
    } catch (error) {
      if (error?.code !== "font_not_loaded") throw error;
      const { name, bytes } = await loadFace(error.face);
      engine.addFace(name, bytes);
    }
  }
}

/** The built-in templates' XML, by template code (all, or those of `codes`). */
export async function loadTemplates(codes = Object.keys(templateUrls)) {
  const entries = await Promise.all(
    codes.map(async (code) => {
      const url = templateUrls[code];
      if (!url) throw new Error(`template ${code}: not a built-in template`);
      return [code, await text(url)];
    }),
  );
  return Object.fromEntries(entries);
}

/** The codes of the built-in templates. */
export const templateCodes = Object.keys(templateUrls);

/**
 * An engine with the built-in fonts and templates, or with those given. Extra templates (XML
 * strings) may be added later with `engine.addTemplate(xml)`. `fonts: "on-demand"` loads the
 * catalogue alone: a call that needs a face throws `font_not_loaded` naming it (see
 * `withFaces`), so a page downloads only the faces its sides use.
 */
export async function createEngine({ fonts, templates } = {}) {
  await initEngine();
  const { catalogue, faces } =
    fonts === "on-demand"
      ? { catalogue: JSON.parse(await text(catalogueUrl)), faces: [] }
      : (fonts ?? (await loadFonts()));
  const engine = new WebEngine(catalogue, faces);
  for (const xml of templates ?? Object.values(await loadTemplates())) {
    engine.addTemplate(xml);
  }
  return engine;
}
