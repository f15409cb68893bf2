//! Laid-out pages -> a PDF/X-4 press file, with `pdf-writer`. Like the rasteriser, this sees
//! only scenes: every position, size, colour and glyph was decided by layout.
//!
//! Coordinates: a page's content is drawn in the scene's own frame (millimetres, y down,
//! origin at the print area's top-left), set up by one matrix; text flips its y back.

use std::collections::HashMap;

use pdf_writer::writers::ColorSpace;
use pdf_writer::{Filter, Finish, Name, Pdf, Rect, Ref};

mod content;
mod document;
mod fonts;

use content::page_content;
use fonts::{EmbeddedFont, embed_font};

use crate::layout::{Scene, SceneGlyph, SceneItem};
use crate::model::BoundingBox;
use crate::raster::ViewArea;
use crate::text::{FaceId, FontBook};

use super::colour::PressInks;
use super::icc;
use super::sheet::MARKS_ROOM;

/// Points per millimetre.
const PT: f64 = 72.0 / 25.4;
/// The registration colour's separation name: the PDF name every device prints on all plates.
const REGISTRATION: &[u8] = b"All";
/// The layer of a proof's cut line and safe area: shown, and named for what it is.
pub const GUIDES_LAYER: &str = "Cut line (red) and safe area (green dashes): not printed";
/// The die line's spot colour, on a layer that is off (not printed) unless a press asks.
pub const DIE_LINE_SPOT: &str = "Dieline";

/// One page: the side's scene and the boxes of its template, with what is drawn besides.
pub struct PdfPage<'a> {
    pub scene: &'a Scene,
    pub trim: ViewArea,
    pub bleed: ViewArea,
    /// Where text is safe from the cut: a proof shows it (dashed), a press file does not.
    pub safe: ViewArea,
    /// Rounded rectangles (area, corner radius) the card is cut along.
    pub die_lines: Vec<(BoundingBox, f64)>,
    /// The slug line's text and its glyphs, placed on the page ([`sheet::slug`]), when marks
    /// are drawn.
    pub slug: Option<(String, Vec<SceneGlyph>)>,
}

/// An image as the PDF embeds it.
pub struct PdfImage<'a> {
    pub width: u32,
    pub height: u32,
    pub data: PdfImageData<'a>,
    /// The ICC profile of its pixels (a picture's own: Adobe RGB, Display P3, a CMYK
    /// photo's press); none for sRGB or, for CMYK, the output intent's. Grey JPEGs have none.
    pub profile: Option<Vec<u8>>,
}

impl PdfImageData<'_> {
    /// The bytes the file holds for it.
    fn len(&self) -> usize {
        match self {
            PdfImageData::Jpeg { bytes, .. } => bytes.len(),
            PdfImageData::Flate { rgb, alpha } => rgb.len() + alpha.as_ref().map_or(0, Vec::len),
        }
    }
}

/// The colours of a JPEG's components.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JpegSpace {
    Grey,
    Rgb,
    /// Four inks; `inverted` for Adobe's files, which store 255 for no ink.
    Cmyk {
        inverted: bool,
    },
}

pub enum PdfImageData<'a> {
    /// A JPEG file as it is (the customer's own bytes, borrowed: a photo may be megabytes):
    /// grey, RGB, or CMYK (the press's inks, the output intent's).
    Jpeg {
        bytes: std::borrow::Cow<'a, [u8]>,
        space: JpegSpace,
    },
    /// Deflated RGB rows and, for transparent images, deflated alpha rows.
    Flate {
        rgb: Vec<u8>,
        alpha: Option<Vec<u8>>,
    },
}

/// The document's identity and dates.
pub struct DocumentInfo<'a> {
    pub title: &'a str,
    /// Seconds since 1970-01-01 UTC.
    pub created: i64,
    /// Whether crop marks (and the slug) are drawn.
    pub marks: bool,
    /// Whether a proof's cut and safe lines are drawn (on their layer).
    pub guides: bool,
    /// The printing condition (the output intent) and the inks each colour is written in.
    pub inks: &'a PressInks<'a>,
}

/// Hands out object numbers.
struct Refs(i32);

impl Refs {
    fn next(&mut self) -> Ref {
        self.0 += 1;
        Ref::new(self.0)
    }
}

/// The objects every press file has, numbered first in this order.
struct DocumentRefs {
    catalog: Ref,
    page_tree: Ref,
    resources: Ref,
    srgb: Ref,
    srgb_space: Ref,
    output_profile: Ref,
    info: Ref,
    metadata: Ref,
    die_layer: Ref,
    guides_layer: Ref,
    overprint: Ref,
}

impl DocumentRefs {
    fn new(refs: &mut Refs) -> Self {
        DocumentRefs {
            catalog: refs.next(),
            page_tree: refs.next(),
            resources: refs.next(),
            srgb: refs.next(),
            srgb_space: refs.next(),
            output_profile: refs.next(),
            info: refs.next(),
            metadata: refs.next(),
            die_layer: refs.next(),
            guides_layer: refs.next(),
            overprint: refs.next(),
        }
    }
}

/// The press file of `pages`, with `images` by resource URI. Objects are written in one
/// fixed order, so the same input gives the same bytes.
pub fn write_pdf(
    book: &FontBook,
    pages: &[PdfPage<'_>],
    images: &[(&str, PdfImage<'_>)],
    info: &DocumentInfo<'_>,
) -> Result<Vec<u8>, String> {
    let condition = info.inks.condition;
    let mut refs = Refs(0);
    // One buffer for the whole file: the images are most of it (a photo's megabytes), and
    // growing to them doubling at a time copies them again and again.
    let image_bytes: usize = images.iter().map(|(_, image)| image.data.len()).sum();
    let mut pdf = Pdf::with_capacity(image_bytes + (1 << 20));
    pdf.set_version(1, 6);
    let ids = DocumentRefs::new(&mut refs);

    // Fonts: the glyphs each face draws anywhere in the document, subset once.
    let used = fonts::used_glyphs(pages);
    let mut fonts: HashMap<FaceId, EmbeddedFont> = HashMap::new();
    for (index, (face, glyphs)) in used.iter().enumerate() {
        let font = embed_font(&mut pdf, &mut refs, book, *face, glyphs, index)?;
        fonts.insert(*face, font);
    }

    let image_names: HashMap<&str, (String, Ref)> = images
        .iter()
        .enumerate()
        .map(|(index, (uri, image))| {
            let id = write_image(&mut pdf, &mut refs, image, ids.srgb_space);
            (*uri, (format!("Im{index}"), id))
        })
        .collect();

    // One resource dictionary serves every page.
    {
        let mut resources = pdf
            .indirect(ids.resources)
            .start::<pdf_writer::writers::Resources>();
        let mut font_dict = resources.fonts();
        for font in fonts.values() {
            font_dict.pair(Name(font.name.as_bytes()), font.id);
        }
        font_dict.finish();
        let mut x_objects = resources.x_objects();
        for (name, id) in image_names.values() {
            x_objects.pair(Name(name.as_bytes()), *id);
        }
        x_objects.finish();
        let mut spaces = resources.color_spaces();
        spaces.pair(Name(b"sRGB"), ids.srgb_space);
        separation(
            &mut spaces,
            b"Registration",
            REGISTRATION,
            [1.0, 1.0, 1.0, 1.0],
        );
        // Shown in magenta where a viewer turns the layer on.
        separation(
            &mut spaces,
            b"Die",
            DIE_LINE_SPOT.as_bytes(),
            [0.0, 1.0, 0.0, 0.0],
        );
        spaces.finish();
        resources
            .ext_g_states()
            .pair(Name(b"Overprint"), ids.overprint);
        resources
            .insert(Name(b"Properties"))
            .dict()
            .pair(Name(b"DieLayer"), ids.die_layer)
            .pair(Name(b"Guides"), ids.guides_layer);
    }
    pdf.ext_graphics(ids.overprint)
        .overprint(true)
        .overprint_fill(true)
        .overprint_mode(pdf_writer::types::OverprintMode::IgnoreZeroChannel);

    let mut page_ids = Vec::with_capacity(pages.len());
    for page in pages {
        let page_id = refs.next();
        let content_id = refs.next();
        page_ids.push(page_id);
        let room = if info.marks { MARKS_ROOM } else { 0.0 };
        let media = ViewArea {
            left: page.bleed.left - room,
            top: page.bleed.top - room,
            width: page.bleed.width + 2.0 * room,
            height: page.bleed.height + 2.0 * room,
        };
        let to_points = |area: &ViewArea| {
            Rect::new(
                ((area.left - media.left) * PT) as f32,
                ((media.top + media.height - area.top - area.height) * PT) as f32,
                ((area.left + area.width - media.left) * PT) as f32,
                ((media.top + media.height - area.top) * PT) as f32,
            )
        };
        let content = page_content(page, &media, &fonts, &image_names, book, info);
        let content = deflate(&content);
        pdf.stream(content_id, &content).filter(Filter::FlateDecode);
        let mut pdf_page = pdf.page(page_id);
        pdf_page
            .parent(ids.page_tree)
            .media_box(to_points(&media))
            .bleed_box(to_points(&page.bleed))
            .trim_box(to_points(&page.trim))
            .contents(content_id)
            .pair(Name(b"Resources"), ids.resources);
        let transparent = page.scene.items.iter().any(|item| match item {
            SceneItem::Image { resource_uri, .. } => images.iter().any(|(uri, image)| {
                uri == resource_uri
                    && matches!(image.data, PdfImageData::Flate { alpha: Some(_), .. })
            }),
            _ => false,
        });
        if transparent {
            // Blending happens in the press's colour space, as PDF/X-4 asks of page groups.
            pdf_page
                .group()
                .transparency()
                .isolated(false)
                .knockout(false)
                .color_space()
                .device_cmyk();
        }
    }
    pdf.pages(ids.page_tree)
        .kids(page_ids.iter().copied())
        .count(page_ids.len() as i32);

    // RGB colours and images: [/ICCBased <sRGB profile>].
    pdf.indirect(ids.srgb_space)
        .start::<ColorSpace>()
        .icc_based(ids.srgb);
    {
        let mut stream = pdf.icc_profile(ids.srgb, deflated_srgb());
        stream.filter(Filter::FlateDecode);
        stream.n(3).alternate_name(Name(b"DeviceRGB"));
    }
    {
        let mut stream = pdf.icc_profile(ids.output_profile, condition.deflated_profile());
        stream.filter(Filter::FlateDecode);
        stream.n(4).alternate_name(Name(b"DeviceCMYK"));
    }

    document::write_document(&mut pdf, &ids, info, pages.len());
    Ok(pdf.finish())
}

/// The sRGB profile, deflated: made once (it is the same in every file).
fn deflated_srgb() -> &'static [u8] {
    static PROFILE: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    PROFILE.get_or_init(|| deflate(&icc::srgb_profile()))
}

/// A `Separation` colour space whose full tint is `cmyk` on devices without the plate.
fn separation(spaces: &mut pdf_writer::Dict<'_>, key: &[u8], name: &[u8], cmyk: [f32; 4]) {
    let mut space = spaces
        .insert(Name(key))
        .start::<ColorSpace>()
        .separation(Name(name));
    space.alternate_color_space().device_cmyk();
    space
        .tint_exponential()
        .domain([0.0, 1.0])
        .c0([0.0; 4])
        .c1(cmyk)
        .n(1.0);
}

fn write_image(pdf: &mut Pdf, refs: &mut Refs, image: &PdfImage<'_>, srgb_space: Ref) -> Ref {
    let id = refs.next();
    let cmyk = matches!(
        image.data,
        PdfImageData::Jpeg {
            space: JpegSpace::Cmyk { .. },
            ..
        }
    );
    // The pixels in their own profile's colour space, else RGB in sRGB and CMYK in the
    // output intent's.
    let own_space = image.profile.as_ref().map(|profile| {
        let (profile_id, space_id) = (refs.next(), refs.next());
        let deflated = deflate(profile);
        let mut stream = pdf.icc_profile(profile_id, &deflated);
        stream.filter(Filter::FlateDecode);
        if cmyk {
            stream.n(4).alternate_name(Name(b"DeviceCMYK"));
        } else {
            stream.n(3).alternate_name(Name(b"DeviceRGB"));
        }
        stream.finish();
        pdf.indirect(space_id)
            .start::<pdf_writer::writers::ColorSpace>()
            .icc_based(profile_id);
        space_id
    });
    let rgb_space = own_space.unwrap_or(srgb_space);
    match &image.data {
        PdfImageData::Jpeg { bytes, space } => {
            let mut xobject = pdf.image_xobject(id, bytes);
            xobject
                .width(image.width as i32)
                .height(image.height as i32)
                .bits_per_component(8);
            xobject.filter(Filter::DctDecode);
            match space {
                JpegSpace::Grey => xobject.color_space().device_gray(),
                JpegSpace::Rgb => {
                    xobject.pair(Name(b"ColorSpace"), rgb_space);
                }
                JpegSpace::Cmyk { inverted } => {
                    match own_space {
                        Some(space) => {
                            xobject.pair(Name(b"ColorSpace"), space);
                        }
                        None => xobject.color_space().device_cmyk(),
                    }
                    if *inverted {
                        xobject.decode([1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0]);
                    }
                }
            }
        }
        PdfImageData::Flate { rgb, alpha } => {
            let mask_id = alpha.as_ref().map(|alpha| {
                let mask_id = refs.next();
                let mut mask = pdf.image_xobject(mask_id, alpha);
                mask.width(image.width as i32)
                    .height(image.height as i32)
                    .bits_per_component(8);
                mask.filter(Filter::FlateDecode);
                mask.color_space().device_gray();
                mask_id
            });
            let mut xobject = pdf.image_xobject(id, rgb);
            xobject
                .width(image.width as i32)
                .height(image.height as i32)
                .bits_per_component(8)
                .pair(Name(b"ColorSpace"), rgb_space);
            xobject.filter(Filter::FlateDecode);
            if let Some(mask_id) = mask_id {
                xobject.s_mask(mask_id);
            }
        }
    }
    id
}

/// FNV-1a: the file identifier and the subset fonts' name tags, the same for the same
/// input on every build.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

pub(crate) fn deflate(bytes: &[u8]) -> Vec<u8> {
    miniz_oxide::deflate::compress_to_vec_zlib(bytes, 6)
}
