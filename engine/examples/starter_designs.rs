//! Writes Presspack's starter designs: `assets/designs/starters.json` (each design's code,
//! label, product and pack) and their artwork, `assets/designs/art/*.png`, drawn here with
//! tiny-skia from shapes and the designs' palettes (no stock images). The host registers them
//! on its first start (`host/src/domain/designs.rs`, `starter_designs` in the configuration).
//!
//! Run from the repository root after changing a design:
//! `cargo run -p presspack-engine --example starter_designs`. The output is the same for the
//! same source, so a change shows in `git diff` as the files it touched.
//!
//! Every picture is drawn at 320 dpi for the slot it fills (the slot's shape exactly), so it
//! passes the press's resolution check with room to spare.

use std::f32::consts::{PI, TAU};
use std::path::Path;

use presspack_engine::model::{Catalogue, ItemKind, Pack, Template};
use presspack_engine::render::Engine;
use presspack_engine::text::FontBook;
use serde_json::{Value, json};
use tiny_skia::{
    Color, FillRule, GradientStop, LinearGradient, Paint, PathBuilder, Pixmap, Point, Rect,
    SpreadMode, Stroke, Transform,
};

const DPI: f64 = 320.0;
/// Millimetres per typographic point: the packs' `pointSize` is in millimetres.
const MM_PER_PT: f64 = 25.4 / 72.0;

type Rgb = (u8, u8, u8);

/// A palette: paper, three accents, and ink for text.
#[derive(Clone, Copy)]
struct Palette {
    paper: Rgb,
    accents: [Rgb; 3],
    ink: Rgb,
}

const fn hex(v: u32) -> Rgb {
    ((v >> 16) as u8, (v >> 8) as u8, v as u8)
}

const CORAL: Palette = Palette {
    paper: hex(0xFDF1E7),
    accents: [hex(0xF26B5B), hex(0xF9A03F), hex(0xFFD6A5)],
    ink: hex(0x2E4057),
};
const SEA: Palette = Palette {
    paper: hex(0xE8F4F2),
    accents: [hex(0x2A9D8F), hex(0x8AB17D), hex(0x264653)],
    ink: hex(0x1D3557),
};
const NIGHT: Palette = Palette {
    paper: hex(0x14213D),
    accents: [hex(0xFCA311), hex(0xE5E5E5), hex(0x3A506B)],
    ink: hex(0xF5F5F5),
};
const FOREST: Palette = Palette {
    paper: hex(0xF1F5EE),
    accents: [hex(0x2D6A4F), hex(0x95D5B2), hex(0x52B788)],
    ink: hex(0x1B4332),
};
const BERRY: Palette = Palette {
    paper: hex(0xFFF1F5),
    accents: [hex(0xB5179E), hex(0x7209B7), hex(0xF72585)],
    ink: hex(0x3A0CA3),
};
const SAND: Palette = Palette {
    paper: hex(0xF4EBD9),
    accents: [hex(0xC57B57), hex(0xA3B18A), hex(0xE9C46A)],
    ink: hex(0x3D405B),
};
const CITRUS: Palette = Palette {
    paper: hex(0xFFFBEA),
    accents: [hex(0xFFB703), hex(0xFB8500), hex(0x8ECAE6)],
    ink: hex(0x023047),
};
const SLATE: Palette = Palette {
    paper: hex(0xEEF1F5),
    accents: [hex(0x5C6B7A), hex(0xA7B4C2), hex(0xD64545)],
    ink: hex(0x1F2933),
};
const LAVENDER: Palette = Palette {
    paper: hex(0xF3F0FA),
    accents: [hex(0x9D8CD6), hex(0xC8B6FF), hex(0x5E548E)],
    ink: hex(0x2E294E),
};
const MONO: Palette = Palette {
    paper: hex(0xFFFFFF),
    accents: [hex(0x111111), hex(0xE63946), hex(0xBDBDBD)],
    ink: hex(0x111111),
};

/// The artwork's shapes.
#[derive(Clone, Copy)]
enum Motif {
    /// A sun over rolling hills.
    Sunrise,
    /// Bands of waves rising from the bottom.
    Waves,
    /// Scattered dots, squares and triangles.
    Confetti,
    /// Diagonal stripes.
    Stripes,
    /// Tiles of circles and quarter circles.
    Bauhaus,
    /// Ridges of mountains under a sky.
    Mountains,
    /// A halftone of dots growing across.
    Halftone,
    /// Leafy stems.
    Leaves,
    /// Nested arches.
    Arches,
    /// Blocks between black rules.
    Blocks,
    /// Stars and a crescent moon.
    Night,
    /// A flower of petals.
    Petals,
}

/// A starter design: the product's sides, what fills them, and its look.
struct Starter {
    code: &'static str,
    label: &'static str,
    product: &'static str,
    motif: Motif,
    palette: Palette,
    /// The face of every line.
    family: &'static str,
    /// The background box's colour on text sides: the palette's paper, or its ink.
    dark: bool,
    /// (side type, template code) for each side, front first.
    sides: &'static [(&'static str, &'static str)],
    /// The sample lines, top to bottom, in the first side with text lines; the first is the
    /// name, larger and bold.
    lines: &'static [&'static str],
    centred: bool,
}

const BC_FULL: &[(&str, &str)] = &[
    ("image", "businesscard_full_image_landscape"),
    ("details", "businesscard_full_text_landscape"),
];
const BC_LEFT: &[(&str, &str)] = &[
    ("image", "businesscard_left_image_landscape"),
    ("details", "businesscard_full_details_image_landscape"),
];
const BC_RIGHT: &[(&str, &str)] = &[
    ("image", "businesscard_right_image_landscape"),
    ("details", "businesscard_full_details_image_landscape"),
];
const BC_TOP: &[(&str, &str)] = &[
    (
        "image",
        "businesscard_top_image_single_column_text_landscape",
    ),
    ("details", "businesscard_full_details_image_landscape"),
];
const BC_BOTTOM: &[(&str, &str)] = &[
    (
        "image",
        "businesscard_bottom_image_single_column_text_landscape",
    ),
    ("details", "businesscard_full_details_image_landscape"),
];
const BC_PORTRAIT: &[(&str, &str)] = &[
    ("image", "businesscard_full_image_portrait"),
    ("details", "businesscard_full_text_portrait"),
];
const MC_FULL: &[(&str, &str)] = &[
    ("image", "minicard_full_image_landscape"),
    ("details", "minicard_full_text_landscape"),
];
const MC_LEFT: &[(&str, &str)] = &[
    ("image", "minicard_left_image_landscape"),
    ("details", "minicard_full_details_image_landscape"),
];
const PC_FULL: &[(&str, &str)] = &[
    ("image", "postcard_full_image_landscape"),
    ("details", "postcard_full_text_landscape"),
];
const PC_PORTRAIT: &[(&str, &str)] = &[
    ("image", "postcard_full_image_portrait"),
    ("details", "postcard_full_text_portrait"),
];
const STICKER: &[(&str, &str)] = &[("image", "sticker_image")];

#[rustfmt::skip]
const STARTERS: &[Starter] = &[
    // Business cards: twelve.
    Starter { code: "sunrise-card", label: "Sunrise", product: "businesscard", motif: Motif::Sunrise, palette: CORAL, family: "Montserrat", dark: false, sides: BC_FULL, centred: false,
        lines: &["Maya Okafor", "Landscape architect", "Okafor Studio", "", "maya@okafor.example", "+44 20 7946 0321", "okafor.example"] },
    Starter { code: "sea-waves-card", label: "Sea waves", product: "businesscard", motif: Motif::Waves, palette: SEA, family: "Nunito", dark: false, sides: BC_LEFT, centred: false,
        lines: &["Tom Reyes", "Sailing instructor", "Harbour Sailing Club", "", "tom@harbour.example", "+44 1752 960 118"] },
    Starter { code: "confetti-card", label: "Confetti", product: "businesscard", motif: Motif::Confetti, palette: BERRY, family: "Rubik", dark: false, sides: BC_TOP, centred: false,
        lines: &["Priya Shah", "Party planner", "priya@confetti.example", "+44 161 496 0712"] },
    Starter { code: "stripes-card", label: "Bold stripes", product: "businesscard", motif: Motif::Stripes, palette: CITRUS, family: "Work Sans", dark: true, sides: BC_FULL, centred: false,
        lines: &["Jonas Berg", "Bicycle mechanic", "Berg Cycles", "", "jonas@bergcycles.example", "+44 117 496 0390", "12 Mill Lane, Bristol"] },
    Starter { code: "bauhaus-card", label: "Bauhaus", product: "businesscard", motif: Motif::Bauhaus, palette: SLATE, family: "IBM Plex Sans", dark: false, sides: BC_RIGHT, centred: false,
        lines: &["Lena Fischer", "Architect", "Fischer & Partner", "", "lena@fischer.example", "+49 30 901820"] },
    Starter { code: "mountains-card", label: "Mountains", product: "businesscard", motif: Motif::Mountains, palette: SEA, family: "Raleway", dark: true, sides: BC_FULL, centred: true,
        lines: &["Ben Carter", "Mountain guide", "Peak Trails", "", "ben@peaktrails.example", "+44 15394 960 201"] },
    Starter { code: "halftone-card", label: "Halftone", product: "businesscard", motif: Motif::Halftone, palette: MONO, family: "Source Sans 3", dark: false, sides: BC_BOTTOM, centred: false,
        lines: &["Kim Nguyen", "Graphic designer", "kim@halftone.example", "+44 20 7946 0987"] },
    Starter { code: "leaves-card", label: "Leaves", product: "businesscard", motif: Motif::Leaves, palette: FOREST, family: "Lora", dark: false, sides: BC_LEFT, centred: false,
        lines: &["Rosa Martín", "Gardener", "Green Thumb Gardens", "", "rosa@greenthumb.example", "+44 1865 960 455"] },
    Starter { code: "arches-card", label: "Arches", product: "businesscard", motif: Motif::Arches, palette: SAND, family: "Playfair Display", dark: false, sides: BC_PORTRAIT, centred: true,
        lines: &["Nadia Haddad", "Yoga teacher", "", "nadia@arches.example", "+44 131 496 0642"] },
    Starter { code: "blocks-card", label: "Colour blocks", product: "businesscard", motif: Motif::Blocks, palette: MONO, family: "Roboto Condensed", dark: true, sides: BC_FULL, centred: false,
        lines: &["Sam Patel", "Art director", "Blocks Agency", "", "sam@blocks.example", "+44 20 7946 0555", "blocks.example"] },
    Starter { code: "night-sky-card", label: "Night sky", product: "businesscard", motif: Motif::Night, palette: NIGHT, family: "Open Sans", dark: false, sides: BC_RIGHT, centred: false,
        lines: &["Ivo Petrov", "Astronomer", "Hilltop Observatory", "", "ivo@hilltop.example", "+44 1223 960 777"] },
    Starter { code: "petals-card", label: "Petals", product: "businesscard", motif: Motif::Petals, palette: LAVENDER, family: "Crimson Pro", dark: false, sides: BC_TOP, centred: false,
        lines: &["Chloé Martin", "Florist", "chloe@petals.example", "+44 1273 960 314"] },
    // Minicards: six.
    Starter { code: "sunrise-mini", label: "Sunrise", product: "minicard", motif: Motif::Sunrise, palette: CITRUS, family: "Montserrat", dark: false, sides: MC_FULL, centred: false,
        lines: &["Maya Okafor", "maya@okafor.example", "okafor.example"] },
    Starter { code: "waves-mini", label: "Sea waves", product: "minicard", motif: Motif::Waves, palette: SEA, family: "Nunito", dark: false, sides: MC_LEFT, centred: false,
        lines: &["Tom Reyes", "Sailing lessons", "tom@harbour.example"] },
    Starter { code: "confetti-mini", label: "Confetti", product: "minicard", motif: Motif::Confetti, palette: CORAL, family: "Rubik", dark: true, sides: MC_FULL, centred: false,
        lines: &["Priya Shah", "Parties and weddings", "priya@confetti.example"] },
    Starter { code: "leaves-mini", label: "Leaves", product: "minicard", motif: Motif::Leaves, palette: FOREST, family: "Lora", dark: false, sides: MC_LEFT, centred: false,
        lines: &["Rosa Martín", "Garden design", "rosa@greenthumb.example"] },
    Starter { code: "halftone-mini", label: "Halftone", product: "minicard", motif: Motif::Halftone, palette: BERRY, family: "Source Sans 3", dark: false, sides: MC_FULL, centred: false,
        lines: &["Kim Nguyen", "Graphic design", "kim@halftone.example"] },
    Starter { code: "night-mini", label: "Night sky", product: "minicard", motif: Motif::Night, palette: NIGHT, family: "Open Sans", dark: false, sides: MC_FULL, centred: false,
        lines: &["Ivo Petrov", "Stargazing nights", "ivo@hilltop.example"] },
    // Postcards: six.
    Starter { code: "sunrise-postcard", label: "Sunrise", product: "postcard", motif: Motif::Sunrise, palette: CORAL, family: "Playfair Display", dark: false, sides: PC_FULL, centred: false,
        lines: &["Greetings from the coast", "The mornings here are golden and the sea is warm.", "Wish you were here.", "", "Love, Maya"] },
    Starter { code: "mountains-postcard", label: "Mountains", product: "postcard", motif: Motif::Mountains, palette: SEA, family: "Raleway", dark: false, sides: PC_FULL, centred: false,
        lines: &["Hello from the hills", "We walked to the top of the ridge today.", "The view went on for ever.", "", "See you soon, Ben"] },
    Starter { code: "confetti-postcard", label: "Confetti", product: "postcard", motif: Motif::Confetti, palette: BERRY, family: "Rubik", dark: false, sides: PC_FULL, centred: true,
        lines: &["You're invited!", "Priya turns thirty", "Saturday 14 June, 7 pm", "The Old Boathouse", "", "Let us know by 1 June"] },
    Starter { code: "arches-postcard", label: "Arches", product: "postcard", motif: Motif::Arches, palette: SAND, family: "Crimson Pro", dark: false, sides: PC_PORTRAIT, centred: true,
        lines: &["Thank you", "for being part of our day.", "", "Nadia and Sami"] },
    Starter { code: "petals-postcard", label: "Petals", product: "postcard", motif: Motif::Petals, palette: LAVENDER, family: "Lora", dark: false, sides: PC_FULL, centred: false,
        lines: &["Happy birthday!", "Wishing you a year full of flowers.", "", "With love, Chloé"] },
    Starter { code: "night-postcard", label: "Night sky", product: "postcard", motif: Motif::Night, palette: NIGHT, family: "Open Sans", dark: false, sides: PC_FULL, centred: false,
        lines: &["Season's greetings", "May your nights be bright and your days be calm.", "", "From all of us at Hilltop"] },
    // Stickers: six.
    Starter { code: "sunrise-sticker", label: "Sunrise", product: "sticker", motif: Motif::Sunrise, palette: CITRUS, family: "Montserrat", dark: false, sides: STICKER, centred: false, lines: &[] },
    Starter { code: "waves-sticker", label: "Sea waves", product: "sticker", motif: Motif::Waves, palette: SEA, family: "Montserrat", dark: false, sides: STICKER, centred: false, lines: &[] },
    Starter { code: "petals-sticker", label: "Petals", product: "sticker", motif: Motif::Petals, palette: BERRY, family: "Montserrat", dark: false, sides: STICKER, centred: false, lines: &[] },
    Starter { code: "night-sticker", label: "Night sky", product: "sticker", motif: Motif::Night, palette: NIGHT, family: "Montserrat", dark: false, sides: STICKER, centred: false, lines: &[] },
    Starter { code: "bauhaus-sticker", label: "Bauhaus", product: "sticker", motif: Motif::Bauhaus, palette: CORAL, family: "Montserrat", dark: false, sides: STICKER, centred: false, lines: &[] },
    Starter { code: "leaves-sticker", label: "Leaves", product: "sticker", motif: Motif::Leaves, palette: FOREST, family: "Montserrat", dark: false, sides: STICKER, centred: false, lines: &[] },
];

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets");
    let art_dir = root.join("designs/art");
    // Pictures of designs since renamed or removed go too.
    for entry in std::fs::read_dir(&art_dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|ext| ext == "png") {
            std::fs::remove_file(path).unwrap();
        }
    }
    let templates: Vec<Template> = presspack_assets::TEMPLATES
        .iter()
        .map(|(_, xml)| Template::parse(xml).unwrap())
        .collect();
    let mut engine = Engine::new(FontBook::builtin());
    for template in &templates {
        engine.add_template(template.clone()).unwrap();
    }
    let template = |code: &str| {
        templates
            .iter()
            .find(|t| t.code == code)
            .unwrap_or_else(|| panic!("no template {code}"))
    };
    let mut designs = Vec::new();
    for (index, starter) in STARTERS.iter().enumerate() {
        let mut lines = starter.lines.iter();
        // Text sides are the paper, or the ink on dark designs; every line reads on it.
        let palette = starter.palette;
        let (ground, ink) = if starter.dark {
            (palette.ink, palette.paper)
        } else {
            (palette.paper, palette.ink)
        };
        let accent = readable(palette.accents[usize::from(starter.dark)], ink, ground);
        let mut sides = Vec::new();
        for (side_index, &(side_type, code)) in starter.sides.iter().enumerate() {
            let template = template(code);
            let mut data = Vec::new();
            let mut first_line = true;
            for item in &template.items {
                let area = item.clipping_box;
                match &item.kind {
                    ItemKind::Image { .. } => {
                        let art = format!("{}-{}.png", starter.code, side_index + 1);
                        let (w, h) = (pixels(area.width), pixels(area.height));
                        let png = draw(starter.motif, starter.palette, w, h, index as u64 + 1);
                        std::fs::write(art_dir.join(&art), png).unwrap();
                        data.push(json!({
                            "type": "imageData", "linkId": item.link_id,
                            "resourceUri": format!("art:{art}"),
                            "imageBox": {"center": {"x": area.center.x, "y": area.center.y},
                                "width": area.width, "height": area.height, "angle": 0},
                            "enhance": false,
                        }));
                    }
                    ItemKind::Box { .. } if item.link_id == "background_box" => {
                        data.push(json!({"type": "boxData", "linkId": item.link_id, "colour": rgb(ground)}));
                    }
                    ItemKind::Text(text) => {
                        let Some(line) = lines.next() else { continue };
                        let (size, bold, colour) = if first_line {
                            (text.point_size.max(11.0 * MM_PER_PT), true, ink)
                        } else if line.contains('@') || line.starts_with('+') {
                            (text.point_size, false, ink)
                        } else {
                            (text.point_size, false, accent)
                        };
                        first_line = false;
                        data.push(json!({
                            "type": "textData", "linkId": item.link_id, "text": line,
                            "font": {"fontFamily": starter.family, "bold": bold, "italic": false},
                            "pointSize": (size * 10_000.0).round() / 10_000.0,
                            "colour": rgb(colour),
                            "alignment": if starter.centred { "center" } else { "left" },
                        }));
                    }
                    _ => {}
                }
            }
            sides
                .push(json!({"type": side_type, "sideNum": 1, "templateCode": code, "data": data}));
        }
        assert!(
            lines.next().is_none(),
            "{}: more lines than slots",
            starter.code
        );
        let mut pack = json!({"productCode": starter.product, "sides": sides,
            "imageBasket": {"items": [], "type": null, "name": null, "immutable": false}});
        fit_text(&engine, starter, &mut pack);
        designs.push(json!({
            "code": starter.code,
            "label": starter.label,
            "product": starter.product,
            "pack": pack,
        }));
    }
    let text = serde_json::to_string_pretty(&json!({ "designs": designs })).unwrap();
    std::fs::write(root.join("designs/starters.json"), text + "\n").unwrap();
    println!("wrote {} designs", designs.len());
}

/// Takes a quarter point at a time off each line the engine's layout finds too big for its
/// box (faces differ in height: the templates' sizes suit Helvetica), so no design starts
/// with a warning.
fn fit_text(engine: &Engine, starter: &Starter, pack: &mut Value) {
    let product = Catalogue::builtin().product(starter.product).unwrap();
    for _ in 0..40 {
        let parsed = Pack::parse(&pack.to_string(), "pack", product).unwrap();
        let mut fits = true;
        for (index, side) in parsed.sides.iter().enumerate() {
            for overflow in engine.report(side).unwrap().overflows {
                fits = false;
                let datum = pack["sides"][index]["data"]
                    .as_array_mut()
                    .unwrap()
                    .iter_mut()
                    .find(|d| d["linkId"] == overflow.link_id.as_str())
                    .unwrap();
                let size = datum["pointSize"].as_f64().unwrap() - 0.25 * MM_PER_PT;
                assert!(
                    size > 6.0 * MM_PER_PT,
                    "{}: {} does not fit at 6 pt",
                    starter.code,
                    overflow.link_id
                );
                datum["pointSize"] = json!((size * 10_000.0).round() / 10_000.0);
            }
        }
        if fits {
            return;
        }
    }
    panic!("{}: the text does not fit", starter.code);
}

/// `colour`, or as little a step towards `ink` as makes it readable on `ground` (a contrast
/// of at least 4.5, WCAG's for small text).
fn readable(colour: Rgb, ink: Rgb, ground: Rgb) -> Rgb {
    fn luminance((r, g, b): Rgb) -> f64 {
        let linear = |c: u8| {
            let c = c as f64 / 255.0;
            if c <= 0.04045 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b)
    }
    let contrast = |a: Rgb| {
        let (x, y) = (luminance(a) + 0.05, luminance(ground) + 0.05);
        x.max(y) / x.min(y)
    };
    (0..=20)
        .map(|step| mix(colour, ink, step as f32 / 20.0))
        .find(|&c| contrast(c) >= 4.5)
        .unwrap_or(ink)
}

fn pixels(mm: f64) -> u32 {
    (mm / 25.4 * DPI).ceil() as u32
}

fn rgb((r, g, b): Rgb) -> Value {
    json!({"type": "RGB", "r": r, "g": g, "b": b})
}

fn colour((r, g, b): Rgb, alpha: u8) -> Color {
    Color::from_rgba8(r, g, b, alpha)
}

fn paint(c: Rgb, alpha: u8) -> Paint<'static> {
    let mut paint = Paint::default();
    paint.set_color(colour(c, alpha));
    paint.anti_alias = true;
    paint
}

fn vertical_gradient(top: Rgb, bottom: Rgb, height: f32) -> Paint<'static> {
    Paint {
        shader: LinearGradient::new(
            Point::from_xy(0.0, 0.0),
            Point::from_xy(0.0, height),
            vec![
                GradientStop::new(0.0, colour(top, 255)),
                GradientStop::new(1.0, colour(bottom, 255)),
            ],
            SpreadMode::Pad,
            Transform::identity(),
        )
        .unwrap(),
        ..Paint::default()
    }
}

/// A small deterministic generator (xorshift), so the artwork is the same on every run.
struct Dice(u64);

impl Dice {
    /// In `0..1`.
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
}

fn mix(a: Rgb, b: Rgb, t: f32) -> Rgb {
    let m = |x: u8, y: u8| (x as f32 + (y as f32 - x as f32) * t).round() as u8;
    (m(a.0, b.0), m(a.1, b.1), m(a.2, b.2))
}

fn circle(pixmap: &mut Pixmap, x: f32, y: f32, r: f32, paint: &Paint) {
    if let Some(path) = PathBuilder::from_circle(x, y, r) {
        pixmap.fill_path(&path, paint, FillRule::Winding, Transform::identity(), None);
    }
}

fn ellipse(pixmap: &mut Pixmap, x: f32, y: f32, rx: f32, ry: f32, degrees: f32, paint: &Paint) {
    if let Some(path) =
        Rect::from_xywh(-rx, -ry, 2.0 * rx, 2.0 * ry).and_then(PathBuilder::from_oval)
    {
        let at = Transform::from_translate(x, y).pre_rotate(degrees);
        pixmap.fill_path(&path, paint, FillRule::Winding, at, None);
    }
}

/// Draws `motif` at `w` x `h` pixels and returns the PNG (RGB, no alpha).
fn draw(motif: Motif, p: Palette, w: u32, h: u32, seed: u64) -> Vec<u8> {
    let mut pixmap = Pixmap::new(w, h).unwrap();
    let (wf, hf) = (w as f32, h as f32);
    let s = wf.min(hf);
    let mut dice = Dice(0x9E37_79B9_7F4A_7C15 ^ seed.wrapping_mul(0x2545_F491_4F6C_DD1D));
    pixmap.fill(colour(p.paper, 255));
    let [a, b, c] = p.accents;
    match motif {
        Motif::Sunrise => {
            pixmap.fill_rect(
                Rect::from_xywh(0.0, 0.0, wf, hf).unwrap(),
                &vertical_gradient(mix(c, p.paper, 0.3), p.paper, hf),
                Transform::identity(),
                None,
            );
            circle(&mut pixmap, wf * 0.62, hf * 0.48, s * 0.24, &paint(b, 255));
            for (i, hill) in [c, b, a].into_iter().enumerate() {
                let base = hf * (0.62 + 0.12 * i as f32);
                let mut pb = PathBuilder::new();
                pb.move_to(0.0, base);
                pb.cubic_to(
                    wf * 0.3,
                    base - s * 0.22,
                    wf * 0.55,
                    base + s * 0.12,
                    wf,
                    base - s * (0.1 + 0.05 * i as f32),
                );
                pb.line_to(wf, hf);
                pb.line_to(0.0, hf);
                pb.close();
                pixmap.fill_path(
                    &pb.finish().unwrap(),
                    &paint(mix(hill, p.ink, 0.08 * i as f32), 255),
                    FillRule::Winding,
                    Transform::identity(),
                    None,
                );
            }
        }
        Motif::Waves => {
            let bands = 6;
            for i in 0..bands {
                let t = i as f32 / bands as f32;
                let base = hf * (0.2 + 0.8 * t);
                let amplitude = s * 0.05;
                let mut pb = PathBuilder::new();
                pb.move_to(0.0, base);
                let steps = 48;
                for k in 1..=steps {
                    let x = wf * k as f32 / steps as f32;
                    let y = base + amplitude * ((x / wf) * TAU * 1.5 + i as f32 * 0.9).sin();
                    pb.line_to(x, y);
                }
                pb.line_to(wf, hf);
                pb.line_to(0.0, hf);
                pb.close();
                let fill = mix(mix(c, a, t), b, (i % 2) as f32 * 0.35);
                pixmap.fill_path(
                    &pb.finish().unwrap(),
                    &paint(fill, 255),
                    FillRule::Winding,
                    Transform::identity(),
                    None,
                );
            }
        }
        Motif::Confetti => {
            let count = ((wf * hf) / (s * s) * 70.0) as usize;
            for i in 0..count {
                let (x, y) = (dice.next() * wf, dice.next() * hf);
                let size = s * (0.025 + 0.04 * dice.next());
                let fill = paint(p.accents[i % 3], 235);
                match i % 3 {
                    0 => circle(&mut pixmap, x, y, size, &fill),
                    1 => {
                        let rect =
                            Rect::from_xywh(-size, -size * 0.45, 2.0 * size, 0.9 * size).unwrap();
                        let at = Transform::from_translate(x, y).pre_rotate(dice.next() * 180.0);
                        pixmap.fill_rect(rect, &fill, at, None);
                    }
                    _ => {
                        let mut pb = PathBuilder::new();
                        let turn = dice.next() * TAU;
                        for k in 0..3 {
                            let angle = turn + k as f32 * TAU / 3.0;
                            let (px, py) = (x + size * angle.cos(), y + size * angle.sin());
                            if k == 0 {
                                pb.move_to(px, py)
                            } else {
                                pb.line_to(px, py)
                            }
                        }
                        pb.close();
                        pixmap.fill_path(
                            &pb.finish().unwrap(),
                            &fill,
                            FillRule::Winding,
                            Transform::identity(),
                            None,
                        );
                    }
                }
            }
        }
        Motif::Stripes => {
            let width = s * 0.09;
            let span = wf + hf;
            let mut i = 0;
            let mut x = -hf;
            while x < span {
                let mut pb = PathBuilder::new();
                pb.move_to(x, 0.0);
                pb.line_to(x + width, 0.0);
                pb.line_to(x + width + hf, hf);
                pb.line_to(x + hf, hf);
                pb.close();
                pixmap.fill_path(
                    &pb.finish().unwrap(),
                    &paint(p.accents[i % 3], 255),
                    FillRule::Winding,
                    Transform::identity(),
                    None,
                );
                x += width * 1.8;
                i += 1;
            }
        }
        Motif::Bauhaus => {
            let columns = (wf / s * 2.0).round().max(1.0) as u32;
            let rows = (hf / s * 2.0).round().max(1.0) as u32;
            let (tw, th) = (wf / columns as f32, hf / rows as f32);
            for row in 0..rows {
                for column in 0..columns {
                    let (x, y) = (column as f32 * tw, row as f32 * th);
                    let k = (row * columns + column + seed as u32) as usize;
                    let back = if k.is_multiple_of(2) {
                        p.paper
                    } else {
                        mix(p.accents[(k + 1) % 3], p.paper, 0.55)
                    };
                    pixmap.fill_rect(
                        Rect::from_xywh(x, y, tw + 1.0, th + 1.0).unwrap(),
                        &paint(back, 255),
                        Transform::identity(),
                        None,
                    );
                    let r = tw.min(th);
                    let fill = paint(p.accents[k % 3], 255);
                    match k % 4 {
                        0 => circle(&mut pixmap, x + tw / 2.0, y + th / 2.0, r * 0.38, &fill),
                        1 => {
                            let mut pb = PathBuilder::new();
                            pb.push_circle(x, y + th, r * 0.95);
                            pixmap.fill_path(
                                &pb.finish().unwrap(),
                                &fill,
                                FillRule::Winding,
                                Transform::identity(),
                                Some(&tile_mask(w, h, x, y, tw, th)),
                            );
                        }
                        2 => {
                            pixmap.fill_rect(
                                Rect::from_xywh(x, y + th * 0.5, tw, th * 0.5).unwrap(),
                                &fill,
                                Transform::identity(),
                                None,
                            );
                            circle(
                                &mut pixmap,
                                x + tw / 2.0,
                                y + th * 0.5,
                                r * 0.25,
                                &paint(p.paper, 255),
                            );
                        }
                        _ => {
                            let mut pb = PathBuilder::new();
                            pb.move_to(x, y);
                            pb.line_to(x + tw, y);
                            pb.line_to(x, y + th);
                            pb.close();
                            pixmap.fill_path(
                                &pb.finish().unwrap(),
                                &fill,
                                FillRule::Winding,
                                Transform::identity(),
                                None,
                            );
                        }
                    }
                }
            }
        }
        Motif::Mountains => {
            pixmap.fill_rect(
                Rect::from_xywh(0.0, 0.0, wf, hf).unwrap(),
                &vertical_gradient(mix(b, p.paper, 0.5), p.paper, hf),
                Transform::identity(),
                None,
            );
            for layer in 0..3 {
                let base = hf * (0.55 + 0.16 * layer as f32);
                let peaks = 3 + layer;
                let mut pb = PathBuilder::new();
                pb.move_to(0.0, hf);
                pb.line_to(0.0, base);
                for k in 0..peaks {
                    let x0 = wf * k as f32 / peaks as f32;
                    let x1 = wf * (k as f32 + 0.5) / peaks as f32;
                    let height = s * (0.25 + 0.2 * dice.next()) / (1.0 + layer as f32 * 0.5);
                    pb.line_to(x0, base);
                    pb.line_to(x1, base - height);
                }
                pb.line_to(wf, base);
                pb.line_to(wf, hf);
                pb.close();
                let fill = mix(c, a, layer as f32 / 2.0);
                pixmap.fill_path(
                    &pb.finish().unwrap(),
                    &paint(fill, 255),
                    FillRule::Winding,
                    Transform::identity(),
                    None,
                );
            }
            circle(
                &mut pixmap,
                wf * 0.8,
                hf * 0.2,
                s * 0.08,
                &paint(p.paper, 255),
            );
        }
        Motif::Halftone => {
            let step = s * 0.075;
            let mut y = step / 2.0;
            let mut row = 0;
            while y < hf + step {
                let mut x = if row % 2 == 0 { step / 2.0 } else { step };
                while x < wf + step {
                    let t = ((x / wf) * 0.7 + (y / hf) * 0.3).clamp(0.0, 1.0);
                    circle(
                        &mut pixmap,
                        x,
                        y,
                        step * 0.5 * (0.15 + 0.85 * t),
                        &paint(if row % 5 == 2 { b } else { a }, 255),
                    );
                    x += step;
                }
                y += step * 0.87;
                row += 1;
            }
        }
        Motif::Leaves => {
            pixmap.fill(colour(mix(p.paper, b, 0.25), 255));
            let stems = ((wf / s) * 3.0).round().max(2.0) as usize;
            for k in 0..stems {
                let x = wf * (k as f32 + 0.5) / stems as f32 + (dice.next() - 0.5) * s * 0.1;
                let lean = (dice.next() - 0.5) * 20.0;
                let stem_paint = paint(a, 255);
                let mut pb = PathBuilder::new();
                pb.move_to(x, hf);
                pb.line_to(x + lean.to_radians().sin() * hf, hf * 0.1);
                let stroke = Stroke {
                    width: s * 0.012,
                    ..Stroke::default()
                };
                pixmap.stroke_path(
                    &pb.finish().unwrap(),
                    &stem_paint,
                    &stroke,
                    Transform::identity(),
                    None,
                );
                let leaves = 7;
                for j in 0..leaves {
                    let t = 0.15 + 0.8 * j as f32 / leaves as f32;
                    let (px, py) = (x + lean.to_radians().sin() * hf * t, hf - 0.9 * hf * t);
                    let side = if j % 2 == 0 { 1.0 } else { -1.0 };
                    let size = s * (0.09 - 0.04 * t);
                    let fill = paint(p.accents[(j + k) % 3], 240);
                    ellipse(
                        &mut pixmap,
                        px + side * size * 0.9,
                        py,
                        size,
                        size * 0.38,
                        side * -35.0,
                        &fill,
                    );
                }
            }
        }
        Motif::Arches => {
            let (cx, cy) = (wf / 2.0, hf * 1.02);
            let rings = 6;
            let outer = (wf * 0.5).min(hf * 0.8);
            for i in 0..rings {
                let r = outer * (1.0 - i as f32 / rings as f32);
                let colours = [a, c, b, p.paper];
                circle(&mut pixmap, cx, cy, r, &paint(colours[i % 4], 255));
            }
            circle(&mut pixmap, wf * 0.78, hf * 0.2, s * 0.07, &paint(c, 255));
        }
        Motif::Blocks => {
            let rule = s * 0.03;
            let xs = [0.0, 0.28, 0.61, 1.0].map(|t| t * wf);
            let ys = [0.0, 0.45, 0.7, 1.0].map(|t| t * hf);
            for (j, pair) in ys.windows(2).enumerate() {
                for (i, cols) in xs.windows(2).enumerate() {
                    let fill = match (i + 2 * j) % 5 {
                        0 => b,
                        2 => c,
                        4 => mix(b, p.paper, 0.6),
                        _ => p.paper,
                    };
                    pixmap.fill_rect(
                        Rect::from_xywh(cols[0], pair[0], cols[1] - cols[0], pair[1] - pair[0])
                            .unwrap(),
                        &paint(fill, 255),
                        Transform::identity(),
                        None,
                    );
                }
            }
            for x in &xs[1..3] {
                pixmap.fill_rect(
                    Rect::from_xywh(x - rule / 2.0, 0.0, rule, hf).unwrap(),
                    &paint(a, 255),
                    Transform::identity(),
                    None,
                );
            }
            for y in &ys[1..3] {
                pixmap.fill_rect(
                    Rect::from_xywh(0.0, y - rule / 2.0, wf, rule).unwrap(),
                    &paint(a, 255),
                    Transform::identity(),
                    None,
                );
            }
        }
        Motif::Night => {
            pixmap.fill_rect(
                Rect::from_xywh(0.0, 0.0, wf, hf).unwrap(),
                &vertical_gradient(p.paper, mix(p.paper, c, 0.8), hf),
                Transform::identity(),
                None,
            );
            let stars = ((wf * hf) / (s * s) * 90.0) as usize;
            for _ in 0..stars {
                let r = s * (0.003 + 0.008 * dice.next() * dice.next());
                circle(
                    &mut pixmap,
                    dice.next() * wf,
                    dice.next() * hf,
                    r,
                    &paint(b, 230),
                );
            }
            let (mx, my, mr) = (wf * 0.7, hf * 0.38, s * 0.2);
            circle(&mut pixmap, mx, my, mr, &paint(a, 255));
            circle(
                &mut pixmap,
                mx + mr * 0.45,
                my - mr * 0.2,
                mr * 0.85,
                &paint(mix(p.paper, c, 0.25), 255),
            );
        }
        Motif::Petals => {
            let (cx, cy) = (wf / 2.0, hf / 2.0);
            for ring in 0..3 {
                let count = 12 - ring * 2;
                let length = s * (0.4 - 0.1 * ring as f32);
                for k in 0..count {
                    let angle = k as f32 * 360.0 / count as f32 + ring as f32 * 15.0;
                    let rad = angle * PI / 180.0;
                    let (px, py) = (cx + rad.cos() * length * 0.5, cy + rad.sin() * length * 0.5);
                    ellipse(
                        &mut pixmap,
                        px,
                        py,
                        length * 0.5,
                        length * 0.2,
                        angle,
                        &paint(p.accents[ring as usize % 3], 220),
                    );
                }
            }
            circle(
                &mut pixmap,
                cx,
                cy,
                s * 0.07,
                &paint(mix(CITRUS.accents[0], p.paper, 0.1), 255),
            );
        }
    }
    encode(&pixmap)
}

/// A mask that lets only the tile at (x, y, tw, th) be drawn.
fn tile_mask(w: u32, h: u32, x: f32, y: f32, tw: f32, th: f32) -> tiny_skia::Mask {
    let mut mask = tiny_skia::Mask::new(w, h).unwrap();
    let path = PathBuilder::from_rect(Rect::from_xywh(x, y, tw, th).unwrap());
    mask.fill_path(&path, FillRule::Winding, false, Transform::identity());
    mask
}

fn encode(pixmap: &Pixmap) -> Vec<u8> {
    let rgb: Vec<u8> = pixmap
        .data()
        .chunks_exact(4)
        .flat_map(|px| [px[0], px[1], px[2]])
        .collect();
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, pixmap.width(), pixmap.height());
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::High);
    let mut writer = encoder.write_header().unwrap();
    writer.write_image_data(&rgb).unwrap();
    writer.finish().unwrap();
    out
}
