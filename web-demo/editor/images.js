// Pictures and fonts the preview needs: stored renditions fetched once, faces loaded as a
// side first needs them, and uploads with their progress.

import { loadFace } from "@presspack/engine";

/** What the engine draws with, loaded on demand; `changed` is called when something arrives. */
export class Resources {
  constructor(engine, changed, failed) {
    this.engine = engine;
    this.changed = changed;
    this.failed = failed;
    this.images = new Map(); // rendition URI -> Uint8Array | Promise
    this.faces = new Map(); // face name -> Promise of the face added to the engine
    this.faceBytes = new Map(); // face name -> Promise of {name, bytes}, shared with the picker
    /** @type {Promise<unknown> | undefined} the picker's faces, once asked for */
    this.pickerFaces = undefined;
  }

  /** The bytes of every image `request` draws, or null while some are still loading. */
  imagesFor(request, basket) {
    const planned = this.engine.imagesToFetch(request, basket);
    const images = [];
    let loading = false;
    for (const image of planned) {
      const cached = this.images.get(image.renditionUri);
      if (cached instanceof Uint8Array) {
        images.push({ resourceUri: image.resourceUri, bytes: cached, enhance: image.enhance });
      } else {
        loading = true;
        if (!cached) this.images.set(image.renditionUri, this.#fetchImage(image.renditionUri));
      }
    }
    return loading ? null : images;
  }

  /**
   * Runs a draw of the engine; a face it lacks is loaded (then `changed` draws again) and
   * null is returned meanwhile.
   */
  draw(call) {
    try {
      return call();
    } catch (error) {
      if (error?.code !== "font_not_loaded") throw error;
      if (!this.faces.has(error.face)) {
        this.faces.set(
          error.face,
          this.#face(error.face).then(
            ({ name, bytes }) => {
              this.engine.addFace(name, bytes);
              this.changed();
            },
            (failure) => this.failed(`Could not load a font: ${failure.message}`),
          ),
        );
      }
      return null;
    }
  }

  /**
   * Each family's regular face under its picker name ([`pickerFamily`]), so the font picker
   * draws every name in its own face. Loaded once, the first time a picker is used, and not
   * on a touch screen, whose own picker does not use the page's fonts; the page does not
   * download a face per family for a list that is never opened.
   */
  familyFaces(families) {
    if (matchMedia("(pointer: coarse)").matches) return Promise.resolve();
    this.pickerFaces ??= Promise.all(
      families.map(async (family) => {
        const { bytes } = await this.#face(family.face);
        document.fonts.add(await new FontFace(pickerFamily(family.name), bytes).load());
      }),
    ).catch(() => {}); // a name whose face did not come stays in the page's face
    return this.pickerFaces;
  }

  /** A face's bytes, fetched once for the engine and the picker alike. */
  #face(name) {
    if (!this.faceBytes.has(name)) this.faceBytes.set(name, loadFace(name));
    return this.faceBytes.get(name);
  }

  async #fetchImage(uri) {
    const match = /^store:\/\/([0-9a-f]{32})(?:\/([a-z-]+))?$/.exec(uri);
    try {
      if (!match) throw new Error(`${uri} is not an image of this shop`);
      const response = await fetch(`/images/${match[1]}/${match[2] ?? "print"}`);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      this.images.set(uri, new Uint8Array(await response.arrayBuffer()));
      this.changed();
    } catch (error) {
      this.failed(`Could not load a picture: ${error.message}`);
    }
  }
}

/** The CSS font family a picker draws a catalogue family's name in. */
export const pickerFamily = (name) => `picker-${name.replace(/[^A-Za-z0-9]+/g, "-")}`;

/**
 * Uploads `file` as the API's uploadImage does; `progress(fraction)` follows the bytes sent.
 * Resolves to the reply's basket item and warnings.
 */
export function upload(file, progress) {
  const body = new FormData();
  body.append("method", "svc.image.uploadImage");
  body.append("imageType", "detect");
  body.append("name", file.name.slice(0, 1024));
  body.append("imageFile", file);
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open("POST", "/api/service/");
    request.responseType = "json";
    request.upload.onprogress = (e) => e.lengthComputable && progress(e.loaded / e.total);
    request.onerror = () => reject(new Error("the connection failed"));
    request.onload = () => {
      const reply = request.response ?? {};
      if (reply.error) return reject(new Error(reply.error.message ?? "the upload failed"));
      if (reply.uploadImageError) {
        return reject(new Error(`${reply.uploadImageError.message} ${reply.uploadImageError.reason ?? ""}`.trim()));
      }
      if (!reply.imageBasketItem) return reject(new Error(`HTTP ${request.status}`));
      resolve({ item: reply.imageBasketItem.items[0], warnings: reply.warnings ?? [] });
    };
    request.send(body);
  });
}
