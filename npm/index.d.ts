// Types of @presspack/engine. Sides, packs and images are the Print Product Pack API's JSON;
// their types (model.d.ts) are generated from the engine's Rust model.

import type { Colour, ImageBasket, Pack, Side } from "./model.js";
export type {
  Alignment, BoundingBox, BoxDatum, Card, CardSide, Colour, Datum, Extra, FixedImageDatum, Font,
  ImageBasket, ImageBasketItem, ImageDatum, ImageItem, Pack, Point, Side, SideType, TextDatum,
} from "./model.js";

export interface RenderRequest {
  side: Side;
  /** Sides drawn on top (watermarks); they draw only their own data. */
  overlays?: Side[];
  /** The area drawn: "bleed", "print", "cut" or "safe". */
  boxType?: "bleed" | "print" | "cut" | "safe";
  /** Pixels of the longest side of the output. */
  maxSide?: number;
  /** Draw only the side's data, no template defaults. */
  partial?: boolean;
}

/** An image a side draws: its resourceUri and the bytes of a rendition (PNG or JPEG). */
export interface ImageInput {
  resourceUri: string;
  bytes: Uint8Array;
  enhance?: boolean;
}

export interface TextOverflow {
  linkId: string;
  /** Millimetres too wide and too tall (0 when it fits that way). */
  width: number;
  height: number;
}

/** What a side's layout reports. */
export interface LayoutReport {
  overflows: TextOverflow[];
  /** linkIds of texts with a character drawn in a fallback font. */
  fontSubstituted: string[];
  ignoredFixed: unknown[];
  /** resourceUris of the images drawn. */
  images: string[];
}

export interface RenderResult {
  png: Uint8Array;
  width: number;
  height: number;
  report: LayoutReport;
}

export interface PixelsResult {
  /** Straight-alpha RGBA rows, width x height x 4 bytes: `new ImageData(new Uint8ClampedArray(pixels.buffer), width)`. */
  pixels: Uint8Array;
  width: number;
  height: number;
  report: LayoutReport;
}

export interface MeasureRequest {
  text: string;
  fontFamily: string;
  bold: boolean;
  italic: boolean;
  /** Font size in millimetres. */
  size: number;
  wrappingWidth?: number | null;
  leading?: number | null;
}

export interface Measurement {
  textWidth: number;
  textHeight: number;
  numberOfLines: number;
  fontSubstituted: boolean;
}

/** A pack warning, as the server reports it (codes such as PV001, PVI003). */
export interface Warning {
  element: string;
  code: string;
  message: string;
}

/** A rendition a render draws: pass its bytes under `resourceUri`. */
export interface PlannedImage {
  /** The URI the side names (an image basket item or one of its renditions). */
  resourceUri: string;
  /** The stored rendition to fetch: the smallest with enough pixels, as the server picks. */
  renditionUri: string;
  enhance: boolean;
}

/** A rectangle in millimetres, in the template's coordinates (top left of the print area). */
export interface Area {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** A template as an editor sees it. */
export interface TemplateOutline {
  code: string;
  /** What a customer calls the layout: its `<Label>`, else its code in words. */
  label: string;
  /** The print area in millimetres. */
  width: number;
  height: number;
  bleed: Area;
  cut: Area;
  safe: Area;
  items: {
    linkId: string;
    /** What a customer calls the slot: its `<Label>` ("Your name"), else "Photo", "Line 2"... */
    label: string;
    kind: "Box" | "Image" | "Text" | "MultiLineText" | "FixedImage";
    /** The clipping box, upright. */
    area: Area;
    /** Text items: the defaults and which of them a datum may not change. */
    text?: {
      fontFamily: string;
      bold: boolean;
      italic: boolean;
      /** Millimetres. */
      pointSize: number;
      alignment: "left" | "center" | "right";
      colour: Colour;
      defaultText: string;
      fontFixed: boolean;
      colourFixed: boolean;
      pointSizeFixed: boolean;
      alignmentFixed: boolean;
    };
    /** Filled box items: the colour a `boxData` datum replaces. */
    colour?: Colour;
  }[];
}

/** A warning in a customer's words, with the editor's fix for it. */
export interface ExplainedWarning {
  element: string;
  code: string;
  blocksOrdering: boolean;
  side: { type: "image" | "details"; sideNum: number } | null;
  linkId: string | null;
  /** The sentence a customer reads (names the slot and the uploaded file). */
  text: string;
  fix: "pack-size" | "card-split" | "number-sides" | "add-front" | "remove-image" | "place-image" | "choose-layout" | "zoom-out" | null;
}

export interface Engine {
  /**
   * Gives the bytes of a face or word list (`words/….dict`, for wrapping Thai, Lao, Khmer and
   * Myanmar) the catalogue names (see `createEngine`'s `fonts: "on-demand"`).
   */
  addFace(name: string, bytes: Uint8Array): void;
  /** Adds a template (XML); returns its code. */
  addTemplate(xml: string): string;
  render(request: RenderRequest, images: ImageInput[]): RenderResult;
  /**
   * Straight-alpha RGBA rows. `into` (an earlier answer's `pixels`) is filled and handed back
   * when it has this render's size, so a page that redraws reuses one array.
   */
  renderPixels(request: RenderRequest, images: ImageInput[], into?: Uint8Array): PixelsResult;
  measure(request: MeasureRequest): Measurement;
  /** A side's layout report (text overflow, fallback fonts) without drawing. */
  report(side: Side): LayoutReport;
  /** The renditions of `basket` that rendering `request` draws, as the server chooses them. */
  imagesToFetch(request: RenderRequest, basket: ImageBasket): PlannedImage[];
  /** A template's geometry, items and text constraints. */
  describeTemplate(code: string): TemplateOutline;
  /** The server's pack warnings for a pack of `product` (structure, basket, low resolution). */
  packWarnings(product: string, pack: Pack): Warning[];
  /**
   * The image resolutions (dots per inch at the printed size) the server's preflight warns
   * and blocks at, as its editor page gives them: PVI003 below `warnDpi`, PVI004 (which
   * blocks ordering) below `blockDpi`. Until set, 300 and 150.
   */
  setLimits(limits: { warnDpi: number; blockDpi: number }): void;
  /** packWarnings and `extra` (e.g. a side's overflow as `{element, code: "PVT001", message}`) in a customer's words. */
  explainWarnings(product: string, pack: Pack, extra: Warning[]): ExplainedWarning[];
  /** A colour (`{type: "RGB", r, g, b}` or `{type: "CMYK", c, m, y, k}`) as the `#rrggbb` it is drawn with. */
  displayColour(colour: Colour): string;
  /**
   * A QR code (error correction M) of a link or of contact details (a vCard 3.0): its
   * modules row by row (1 dark), quiet zone excluded, and the text encoded. Refuses
   * (`invalid_request`), naming the field, a link that is not http(s), more than 2,000
   * characters of link or 200 of a contact field, control characters, or more than one
   * code holds.
   */
  qrCode(
    content:
      | { kind: "link"; url: string }
      | {
          kind: "contact";
          name: string;
          jobTitle?: string;
          organisation?: string;
          phone?: string;
          email?: string;
          website?: string;
        },
  ): { size: number; modules: Uint8Array; payload: string };
  free(): void;
}

/**
 * What every engine call throws when it refuses: an `Error` named `PresspackError` whose
 * `code` is the engine's failure code, the same one the server's engine reports.
 */
export interface PresspackError extends Error {
  name: "PresspackError";
  code:
    | "unknown_template"
    | "invalid_template"
    | "too_many_templates"
    | "invalid_side"
    | "datum_mismatch"
    | "too_many_data"
    | "unknown_font"
    | "font_not_loaded"
    | "invalid_text"
    | "missing_image"
    | "invalid_max_side"
    | "render_failed"
    | "image_too_large"
    | "undecodable_image"
    | "too_many_overlays"
    | "invalid_request"
    | "unsupported_image_type"
    | "transparent_png"
    | "image_too_many_pixels"
    | "image_side_too_long"
    | "image_too_large_to_decode"
    | "unreadable_pdf"
    | "engine_error";
  /** For `font_not_loaded`: the catalogue name of the face or word list to add. */
  face?: string;
}

export interface Fonts {
  catalogue: unknown;
  faces: { name: string; bytes: Uint8Array }[];
}

export function initEngine(): Promise<unknown>;
export function loadFonts(): Promise<Fonts>;
export function loadTemplates(codes?: string[]): Promise<Record<string, string>>;
export const templateCodes: string[];
export function loadFace(name: string): Promise<{ name: string; bytes: Uint8Array }>;
/** Runs `call`, loading and adding each face and word list it needs; for engines made with `fonts: "on-demand"`. */
export function withFaces<T>(engine: Engine, call: () => T): Promise<T>;
export function createEngine(options?: { fonts?: Fonts | "on-demand"; templates?: string[] }): Promise<Engine>;
export { WebEngine } from "./presspack_engine.js";
