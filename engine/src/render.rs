//! The engine's typed entry points: render a side (with overlays) to PNG, and measure text.
//! [`crate::wire`] carries the same calls as bytes for the wasm builds.

use std::collections::HashMap;
use std::fmt;
use std::hash::BuildHasher;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::failure::FailureCode;
use crate::ingest::IngestError;
use crate::layout::{LayoutError, LayoutReport, layout_side};
use crate::model::{ModelError, Side, Template, TemplateError};
use crate::raster::{
    Canvas, DecodedImage, GlyphCache, ImageError, RasterError, ViewArea, decode_image,
};
use crate::text::{FontBook, FontError, TextError, TextRequest, layout_text};

/// At most this many overlay sides drawn on top of a side.
pub const MAX_OVERLAYS: usize = 8;
/// At most this many templates in one engine.
pub const MAX_TEMPLATES: usize = 1024;

/// The area of the print sheet a render shows (renderSide's `boxType`, `print` unless named).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BoxType {
    Bleed,
    #[default]
    Print,
    Cut,
    Safe,
}

impl BoxType {
    pub fn parse(value: &str) -> Option<BoxType> {
        match value {
            "bleed" => Some(BoxType::Bleed),
            "print" => Some(BoxType::Print),
            "cut" => Some(BoxType::Cut),
            "safe" => Some(BoxType::Safe),
            _ => None,
        }
    }

    /// The rectangle of the template this box type draws.
    pub fn area(self, template: &Template) -> ViewArea {
        match self {
            BoxType::Print => ViewArea {
                left: 0.0,
                top: 0.0,
                width: template.print_area.width,
                height: template.print_area.height,
            },
            BoxType::Bleed => ViewArea::of_box(&template.bleed_box),
            BoxType::Cut => ViewArea::of_box(&template.cut_box),
            BoxType::Safe => ViewArea::of_box(&template.safe_area_box),
        }
    }
}

/// One side to draw, with sides drawn on top of it (overlays draw only their own data).
#[derive(Debug, Clone)]
pub struct RenderRequest {
    pub side: Side,
    pub overlays: Vec<Side>,
    pub box_type: BoxType,
    /// Pixels of the output's longest side.
    pub max_side: u32,
    /// Draw only the supplied data, no template defaults.
    pub partial: bool,
}

/// A text to measure (`svc.text.measure`), sizes in millimetres.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MeasureRequest {
    pub text: String,
    pub font_family: String,
    pub bold: bool,
    pub italic: bool,
    pub size: f64,
    pub wrapping_width: Option<f64>,
    /// Line pitch as a multiple of the line height (1 when not wrapping).
    pub leading: Option<f64>,
}

/// The text measurement result of the spec; lengths in millimetres.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Measurement {
    pub text_width: f64,
    pub text_height: f64,
    pub number_of_lines: u32,
    pub font_substituted: bool,
}

/// Why the engine could not do what it was asked; [`EngineError::code`] is stable.
#[derive(Debug, Clone, PartialEq)]
pub enum EngineError {
    UnknownTemplate(String),
    Template(TemplateError),
    TooManyTemplates,
    Side {
        path: String,
        error: ModelError,
    },
    Layout(LayoutError),
    Raster(RasterError),
    Image {
        resource_uri: String,
        error: ImageError,
    },
    Font(FontError),
    Text(TextError),
    TooManyOverlays(usize),
    /// An uploaded image refused by the upload rules.
    Ingest(IngestError),
    /// A wire request that is not what the ABI describes.
    Request(String),
}

impl EngineError {
    pub fn code(&self) -> FailureCode {
        match self {
            EngineError::UnknownTemplate(_) => FailureCode::UnknownTemplate,
            EngineError::Template(_) => FailureCode::InvalidTemplate,
            EngineError::TooManyTemplates => FailureCode::TooManyTemplates,
            EngineError::Side { .. } => FailureCode::InvalidSide,
            EngineError::Layout(LayoutError::DatumMismatch { .. }) => FailureCode::DatumMismatch,
            EngineError::Layout(LayoutError::TooManyData(_)) => FailureCode::TooManyData,
            EngineError::Layout(LayoutError::Font { .. }) | EngineError::Font(_) => {
                FailureCode::UnknownFont
            }
            EngineError::Layout(LayoutError::Text {
                error: TextError::FaceNotLoaded(_),
                ..
            })
            | EngineError::Text(TextError::FaceNotLoaded(_)) => FailureCode::FontNotLoaded,
            EngineError::Layout(LayoutError::Text { .. }) | EngineError::Text(_) => {
                FailureCode::InvalidText
            }
            EngineError::Raster(RasterError::MissingImage(_)) => FailureCode::MissingImage,
            EngineError::Raster(RasterError::MaxSide(_)) => FailureCode::InvalidMaxSide,
            EngineError::Raster(_) => FailureCode::RenderFailed,
            EngineError::Image {
                error: ImageError::TooLarge { .. },
                ..
            } => FailureCode::ImageTooLarge,
            EngineError::Image { .. } => FailureCode::UndecodableImage,
            EngineError::TooManyOverlays(_) => FailureCode::TooManyOverlays,
            EngineError::Ingest(refused) => refused.code(),
            EngineError::Request(_) => FailureCode::InvalidRequest,
        }
    }
}

impl EngineError {
    /// The face to load before trying again, for [`FailureCode::FontNotLoaded`].
    pub fn face_not_loaded(&self) -> Option<&str> {
        match self {
            EngineError::Layout(LayoutError::Text {
                error: TextError::FaceNotLoaded(name),
                ..
            })
            | EngineError::Text(TextError::FaceNotLoaded(name)) => Some(name),
            _ => None,
        }
    }
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::UnknownTemplate(code) => write!(f, "unknown template code {code:?}"),
            EngineError::Template(e) => write!(f, "template: {e}"),
            EngineError::TooManyTemplates => write!(f, "more than {MAX_TEMPLATES} templates"),
            EngineError::Side { error, .. } => write!(f, "{error}"),
            EngineError::Layout(e) => write!(f, "{e}"),
            EngineError::Raster(e) => write!(f, "{e}"),
            EngineError::Image {
                resource_uri,
                error,
            } => write!(f, "image {resource_uri:?}: {error}"),
            EngineError::Font(e) => write!(f, "{e}"),
            EngineError::Text(e) => write!(f, "{e}"),
            EngineError::TooManyOverlays(n) => {
                write!(f, "{n} overlays, more than {MAX_OVERLAYS}")
            }
            EngineError::Ingest(refused) => write!(f, "{refused}"),
            EngineError::Request(why) => write!(f, "malformed engine request: {why}"),
        }
    }
}

impl std::error::Error for EngineError {}

/// Fonts and templates, loaded once; renders and measures are then pure functions of them.
pub struct Engine {
    book: FontBook,
    templates: HashMap<String, Template>,
    glyph_cache: std::sync::Mutex<GlyphCache>,
    image_cache: std::sync::Mutex<ImageCache>,
}

/// Decoded images kept across renders, by their encoded bytes (a hash finds the entry, the
/// bytes themselves confirm it, so two images can never be confused). Cleared when it
/// holds more than [`MAX_CACHED_PIXELS`].
#[derive(Default)]
struct ImageCache {
    /// Hash of the encoded bytes -> (encoded bytes, decoded image) with that hash. The map
    /// itself keeps std's keyed hash: the hashes are the uploader's to choose.
    entries: HashMap<u64, Vec<CachedImage>>,
    pixels: u64,
}

/// (encoded bytes, enhanced, decoded image).
type CachedImage = (Vec<u8>, bool, Arc<DecodedImage>);

/// An encoded image a render may draw.
#[derive(Debug, Clone, Copy)]
pub struct ImageInput<'a> {
    pub bytes: &'a [u8],
    /// Draw it with the photo enhancement (see [`DecodedImage::enhanced`]).
    pub enhance: bool,
}

/// Decoded pixels an engine keeps between renders (4 bytes each).
pub const MAX_CACHED_PIXELS: u64 = 16_000_000;

/// Images kept under one hash. Different images share one only when made to (the hash is
/// not keyed), so two is plenty; the bound keeps a crafted set of colliding uploads from
/// turning every lookup into a long scan.
const MAX_IMAGES_PER_HASH: usize = 2;

impl ImageCache {
    fn decode(&mut self, input: ImageInput<'_>) -> Result<Arc<DecodedImage>, ImageError> {
        // (rustc-hash: the bytes are confirmed on a hit, so a keyed hash buys nothing)
        let key = rustc_hash::FxBuildHasher.hash_one(input.bytes);
        self.decode_under(key, input)
    }

    /// [`ImageCache::decode`] with the image's hash `key`.
    fn decode_under(
        &mut self,
        key: u64,
        input: ImageInput<'_>,
    ) -> Result<Arc<DecodedImage>, ImageError> {
        if let Some((_, _, image)) = self.entries.get(&key).and_then(|list| {
            list.iter()
                .find(|(b, enhance, _)| *enhance == input.enhance && same_bytes(b, input.bytes))
        }) {
            return Ok(Arc::clone(image));
        }
        let decoded = decode_image(input.bytes)?;
        let image = Arc::new(if input.enhance {
            decoded.enhanced()
        } else {
            decoded
        });
        let pixels = |image: &DecodedImage| u64::from(image.width()) * u64::from(image.height());
        let added = pixels(&image);
        if self.pixels + added > MAX_CACHED_PIXELS {
            self.entries.clear();
            self.pixels = 0;
        }
        if added <= MAX_CACHED_PIXELS {
            let list = self.entries.entry(key).or_default();
            if list.len() >= MAX_IMAGES_PER_HASH {
                let (_, _, oldest) = list.remove(0);
                self.pixels -= pixels(&oldest);
            }
            self.pixels += added;
            list.push((input.bytes.to_vec(), input.enhance, Arc::clone(&image)));
        }
        Ok(image)
    }
}

impl Engine {
    pub fn new(book: FontBook) -> Engine {
        Engine {
            book,
            templates: HashMap::new(),
            glyph_cache: std::sync::Mutex::new(GlyphCache::default()),
            image_cache: std::sync::Mutex::new(ImageCache::default()),
        }
    }

    pub fn fonts(&self) -> &FontBook {
        &self.book
    }

    /// Supplies a face a partial font book lacks (see [`FontBook::partial`]).
    pub fn add_face(&mut self, name: &str, data: std::sync::Arc<[u8]>) -> Result<(), EngineError> {
        self.book.add_face(name, data).map_err(EngineError::Font)
    }

    /// Adds (or replaces) a template; returns its code.
    pub fn add_template(&mut self, template: Template) -> Result<String, EngineError> {
        if self.templates.len() >= MAX_TEMPLATES && !self.templates.contains_key(&template.code) {
            return Err(EngineError::TooManyTemplates);
        }
        let code = template.code.clone();
        self.templates.insert(code.clone(), template);
        Ok(code)
    }

    pub fn template(&self, code: &str) -> Result<&Template, EngineError> {
        self.templates
            .get(code)
            .ok_or_else(|| EngineError::UnknownTemplate(code.to_owned()))
    }

    /// Draws a side and its overlays; what their layout reported. `images` holds every
    /// image the sides draw, by resource URI; only those drawn are decoded. The canvas's
    /// [`Canvas::pixels`] give the image: encoded as PNG, or as RGBA rows for a browser.
    pub fn draw(
        &self,
        request: &RenderRequest,
        images: &HashMap<String, ImageInput<'_>>,
    ) -> Result<(Canvas, LayoutReport), EngineError> {
        if request.overlays.len() > MAX_OVERLAYS {
            return Err(EngineError::TooManyOverlays(request.overlays.len()));
        }
        let template = self.template(&request.side.template_code)?;
        let mut canvas = Canvas::new(request.box_type.area(template), request.max_side)
            .map_err(EngineError::Raster)?;
        let mut report = LayoutReport::default();
        let mut decoded: HashMap<&str, Arc<DecodedImage>> = HashMap::new();
        // Overlays (watermarks, proofs) draw only their own data: their templates' defaults,
        // a white background box first of all, would hide the side beneath.
        let sides = std::iter::once((&request.side, request.partial))
            .chain(request.overlays.iter().map(|overlay| (overlay, true)));
        for (side, partial) in sides {
            let template = self.template(&side.template_code)?;
            let scene = layout_side(&self.book, template, side, partial, &mut report)
                .map_err(EngineError::Layout)?;
            for uri in &report.images {
                if decoded.contains_key(uri.as_str()) {
                    continue;
                }
                let (uri, input) = images
                    .get_key_value(uri.as_str())
                    .ok_or_else(|| EngineError::Raster(RasterError::MissingImage(uri.clone())))?;
                let image = self
                    .image_cache
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .decode(*input)
                    .map_err(|error| EngineError::Image {
                        resource_uri: uri.clone(),
                        error,
                    })?;
                decoded.insert(uri.as_str(), image);
            }
            // A poisoned cache only means a render panicked mid-way; its glyphs are whole.
            let mut glyph_cache = self.glyph_cache.lock().unwrap_or_else(|e| e.into_inner());
            canvas
                .draw(&scene, &self.book, &mut glyph_cache, &|uri| {
                    decoded.get(uri).map(|image| &**image)
                })
                .map_err(EngineError::Raster)?;
        }
        Ok((canvas, report))
    }

    /// Lays a side out without drawing it: what its texts and images would do.
    pub fn report(&self, side: &Side) -> Result<LayoutReport, EngineError> {
        let template = self.template(&side.template_code)?;
        let mut report = LayoutReport::default();
        layout_side(&self.book, template, side, false, &mut report).map_err(EngineError::Layout)?;
        Ok(report)
    }

    /// Measures a text as layout would set it (whole-text font substitution).
    pub fn measure(&self, request: &MeasureRequest) -> Result<Measurement, EngineError> {
        let face = self
            .book
            .resolve(&request.font_family, request.bold, request.italic)
            .map_err(EngineError::Font)?;
        let layout = layout_text(
            &self.book,
            &TextRequest {
                text: &request.text,
                face,
                size: request.size,
                wrap_width: request.wrapping_width,
                substitution: crate::model::FontSubstitution::AllLinesIfAnyNeeded,
            },
        )
        .map_err(EngineError::Text)?;
        let leading = request.leading.unwrap_or(1.0);
        if !(leading.is_finite() && leading > 0.0 && leading <= 100.0) {
            return Err(EngineError::Text(TextError::BadSize(format!(
                "leading must be more than 0 and at most 100, got {leading}"
            ))));
        }
        Ok(Measurement {
            text_width: layout.width(),
            text_height: layout.height(leading),
            number_of_lines: layout.lines.len() as u32,
            font_substituted: layout.font_substituted,
        })
    }
}

/// Whether two byte strings are equal, compared 16 bytes a step: the wasm builds' `memcmp`
/// compares a byte a step (and under wasmtime checks the time limit at each), which made
/// confirming a cached image's bytes a few per cent of a photo render.
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let (a_blocks, b_blocks) = (a.chunks_exact(16), b.chunks_exact(16));
    let (a_rest, b_rest) = (a_blocks.remainder(), b_blocks.remainder());
    let block = |bytes: &[u8]| u128::from_le_bytes(bytes.try_into().expect("16 bytes"));
    a_blocks.zip(b_blocks).all(|(x, y)| block(x) == block(y)) && a_rest == b_rest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_bytes_finds_any_difference() {
        let a: Vec<u8> = (0..100u8).collect();
        for at in 0..a.len() {
            let mut b = a.clone();
            b[at] ^= 1;
            assert!(!same_bytes(&a, &b), "a difference at {at}");
        }
        assert!(same_bytes(&a, &a.clone()));
        assert!(!same_bytes(&a, &a[..99]));
    }

    #[test]
    fn images_made_to_share_a_hash_keep_only_a_few_entries() {
        let mut cache = ImageCache::default();
        let pngs: Vec<Vec<u8>> = (0..10u8)
            .map(|shade| crate::raster::encode_png(2, 2, png::ColorType::Rgb, &[shade; 12]))
            .collect::<Result<_, _>>()
            .unwrap();
        fn input(png: &[u8]) -> ImageInput<'_> {
            ImageInput {
                bytes: png,
                enhance: false,
            }
        }
        // As if every upload had been crafted to the same hash.
        for png in &pngs {
            cache.decode_under(7, input(png)).unwrap();
        }
        assert_eq!(cache.entries[&7].len(), MAX_IMAGES_PER_HASH);
        assert_eq!(cache.pixels, 4 * MAX_IMAGES_PER_HASH as u64);
        // The newest are the ones kept: found again, not decoded again.
        let kept = Arc::clone(&cache.entries[&7][MAX_IMAGES_PER_HASH - 1].2);
        let found = cache.decode_under(7, input(&pngs[9])).unwrap();
        assert!(Arc::ptr_eq(&kept, &found));
        assert_eq!(cache.entries[&7].len(), MAX_IMAGES_PER_HASH);
    }
}
