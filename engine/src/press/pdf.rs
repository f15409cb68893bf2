//! Laid-out pages -> a PDF/X-4 press file, with `pdf-writer`. Like the rasteriser, this sees
//! only scenes: every position, size, colour and glyph was decided by layout.
//!
//! Coordinates: a page's content is drawn in the scene's own frame (millimetres, y down,
//! origin at the print area's top-left), set up by one matrix; text flips its y back.

use std::collections::{BTreeMap, HashMap};

use pdf_writer::types::{
    CidFontType, ColorSpaceOperand, FontFlags, LineCapStyle, OutputIntentSubtype, SystemInfo,
    TrappingStatus,
};
use pdf_writer::writers::ColorSpace;
use pdf_writer::{Content, Date, Filter, Finish, Name, Pdf, Rect, Ref, Str, TextStr};

use crate::layout::{PathStep, Scene, SceneGlyph, SceneItem};
use crate::model::BoundingBox;
use crate::raster::ViewArea;
use crate::text::{FaceId, FontBook};

use super::colour::PressInks;
use super::icc;
use super::sheet::{self, MARK_WIDTH, MARKS_ROOM, SLUG_SIZE};

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

/// The glyphs a face draws in the document: original glyph id -> the text it shows wherever
/// it is the one glyph of its cluster, or `None` when it shows different texts in different
/// places or only ever part of a cluster (its clusters then carry their text as ActualText).
type UsedGlyphs = BTreeMap<u16, Option<String>>;

/// The text of each cluster of `glyphs` (a run whose `text` ranges are of `text`): per glyph,
/// its cluster's text and how many glyphs the cluster has, on the cluster's first glyph.
fn clusters<'t>(text: &'t str, glyphs: &[SceneGlyph]) -> Vec<Option<(&'t str, usize)>> {
    let mut out: Vec<Option<(&str, usize)>> = vec![None; glyphs.len()];
    let mut first = None;
    for (index, glyph) in glyphs.iter().enumerate() {
        if glyph.text.0 < glyph.text.1 || first.is_none() {
            let shown = text
                .get(glyph.text.0 as usize..glyph.text.1 as usize)
                .unwrap_or_default();
            out[index] = Some((shown, 1));
            first = Some(index);
        } else if let Some(Some((_, count))) = first.map(|f| &mut out[f]) {
            *count += 1;
        }
    }
    out
}

/// Whether a cluster's glyphs need its text as ActualText: it has more than one glyph, or its
/// glyph's ToUnicode entry is not its text.
fn needs_actual_text(used: &UsedGlyphs, glyph: &SceneGlyph, cluster: (&str, usize)) -> bool {
    let (text, count) = cluster;
    count > 1
        || used
            .get(&glyph.glyph)
            .is_none_or(|mapped| mapped.as_deref() != Some(text))
}

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
    let catalog_id = refs.next();
    let page_tree_id = refs.next();
    let resources_id = refs.next();
    let srgb_id = refs.next();
    let srgb_space_id = refs.next();
    let output_profile_id = refs.next();
    let info_id = refs.next();
    let metadata_id = refs.next();
    let die_layer_id = refs.next();
    let guides_layer_id = refs.next();
    let overprint_id = refs.next();

    // Fonts: the glyphs each face draws anywhere in the document, subset once, and the text
    // each one-glyph cluster shows, for ToUnicode.
    let mut used: BTreeMap<FaceId, UsedGlyphs> = BTreeMap::new();
    for page in pages {
        let texts = page.scene.items.iter().filter_map(|item| match item {
            SceneItem::Text { text, glyphs, .. } => Some((text.as_str(), glyphs.as_slice())),
            _ => None,
        });
        let slug = page
            .slug
            .as_ref()
            .map(|(text, glyphs)| (text.as_str(), glyphs.as_slice()));
        for (text, glyphs) in texts.chain(slug) {
            for (glyph, cluster) in glyphs.iter().zip(clusters(text, glyphs)) {
                let shown = match cluster {
                    Some((shown, 1)) if !shown.is_empty() => Some(shown.to_owned()),
                    _ => None,
                };
                let face = used.entry(glyph.face).or_default();
                match face.get_mut(&glyph.glyph) {
                    None => {
                        face.insert(glyph.glyph, shown);
                    }
                    Some(mapped) if *mapped != shown || shown.is_none() => *mapped = None,
                    Some(_) => {}
                }
            }
        }
    }
    let mut fonts: HashMap<FaceId, EmbeddedFont> = HashMap::new();
    for (index, (face, glyphs)) in used.iter().enumerate() {
        let font = embed_font(&mut pdf, &mut refs, book, *face, glyphs, index)?;
        fonts.insert(*face, font);
    }

    let image_names: HashMap<&str, (String, Ref)> = images
        .iter()
        .enumerate()
        .map(|(index, (uri, image))| {
            let id = write_image(&mut pdf, &mut refs, image, srgb_space_id);
            (*uri, (format!("Im{index}"), id))
        })
        .collect();

    // One resource dictionary serves every page.
    {
        let mut resources = pdf
            .indirect(resources_id)
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
        spaces.pair(Name(b"sRGB"), srgb_space_id);
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
            .pair(Name(b"Overprint"), overprint_id);
        resources
            .insert(Name(b"Properties"))
            .dict()
            .pair(Name(b"DieLayer"), die_layer_id)
            .pair(Name(b"Guides"), guides_layer_id);
    }
    pdf.ext_graphics(overprint_id)
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
            .parent(page_tree_id)
            .media_box(to_points(&media))
            .bleed_box(to_points(&page.bleed))
            .trim_box(to_points(&page.trim))
            .contents(content_id)
            .pair(Name(b"Resources"), resources_id);
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
    pdf.pages(page_tree_id)
        .kids(page_ids.iter().copied())
        .count(page_ids.len() as i32);

    // RGB colours and images: [/ICCBased <sRGB profile>].
    pdf.indirect(srgb_space_id)
        .start::<ColorSpace>()
        .icc_based(srgb_id);
    {
        let mut stream = pdf.icc_profile(srgb_id, deflated_srgb());
        stream.filter(Filter::FlateDecode);
        stream.n(3).alternate_name(Name(b"DeviceRGB"));
    }
    {
        let mut stream = pdf.icc_profile(output_profile_id, condition.deflated_profile());
        stream.filter(Filter::FlateDecode);
        stream.n(4).alternate_name(Name(b"DeviceCMYK"));
    }

    let date = pdf_date(info.created);
    let document_id = document_id(info, pages.len());
    {
        let mut doc = pdf.document_info(info_id);
        doc.title(TextStr(info.title))
            .creator(TextStr("Presspack"))
            .producer(TextStr("Presspack (pdf-writer)"))
            .creation_date(date)
            .modified_date(date)
            .trapped(TrappingStatus::NotTrapped);
        doc.pair(Name(b"GTS_PDFXVersion"), TextStr("PDF/X-4"));
    }
    let xmp = xmp_metadata(info, &document_id);
    pdf.metadata(metadata_id, xmp.as_bytes());

    {
        let mut layer = pdf.indirect(die_layer_id).dict();
        layer.pair(Name(b"Type"), Name(b"OCG"));
        layer.pair(Name(b"Name"), TextStr("Dieline (not printed)"));
    }
    {
        let mut layer = pdf.indirect(guides_layer_id).dict();
        layer.pair(Name(b"Type"), Name(b"OCG"));
        layer.pair(Name(b"Name"), TextStr(GUIDES_LAYER));
    }

    let mut catalog = pdf.catalog(catalog_id);
    catalog.pages(page_tree_id).metadata(metadata_id);
    {
        let mut intents = catalog.output_intents();
        let mut intent = intents.push();
        intent
            .subtype(OutputIntentSubtype::PDFX)
            .output_condition_identifier(TextStr(&condition.identifier))
            .output_condition(TextStr(&condition.condition))
            .dest_output_profile(output_profile_id);
        if let Some(registry) = condition.registry {
            intent.registry_name(TextStr(registry));
        }
    }
    {
        // The die line's layer: present so a press can turn it on, off by default. A proof's
        // cut and safe lines: on, so the customer sees them as in the editor.
        let mut properties = catalog.insert(Name(b"OCProperties")).dict();
        properties
            .insert(Name(b"OCGs"))
            .array()
            .items([die_layer_id, guides_layer_id]);
        let mut default = properties.insert(Name(b"D")).dict();
        default.pair(
            Name(b"Name"),
            TextStr(if info.guides { "Proof" } else { "Press" }),
        );
        default
            .insert(Name(b"Order"))
            .array()
            .items([die_layer_id, guides_layer_id]);
        default.insert(Name(b"OFF")).array().item(die_layer_id);
    }
    catalog.finish();
    pdf.set_file_id((document_id.to_vec(), document_id.to_vec()));
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

struct EmbeddedFont {
    id: Ref,
    name: String,
    /// Original glyph id -> CID in the subset.
    cids: HashMap<u16, u16>,
    /// Original glyph id -> the text its ToUnicode entry gives, if it has one.
    mapped: UsedGlyphs,
    units_per_em: f64,
}

fn embed_font(
    pdf: &mut Pdf,
    refs: &mut Refs,
    book: &FontBook,
    face_id: FaceId,
    glyphs: &UsedGlyphs,
    index: usize,
) -> Result<EmbeddedFont, String> {
    let face = book.face(face_id);
    let parsed = ttf_parser::Face::parse(face.data(), 0)
        .map_err(|e| format!("font {:?}: {e}", face.name))?;
    let mut remapper = subsetter::GlyphRemapper::new();
    for &glyph in glyphs.keys() {
        remapper.remap(glyph);
    }
    let subset = subsetter::subset(face.data(), 0, &remapper)
        .map_err(|e| format!("font {:?}: subsetting failed: {e:?}", face.name))?;
    let cids: HashMap<u16, u16> = glyphs
        .keys()
        .map(|&glyph| (glyph, remapper.get(glyph).unwrap_or(0)))
        .collect();

    let postscript = parsed
        .names()
        .into_iter()
        .filter(|name| name.name_id == ttf_parser::name_id::POST_SCRIPT_NAME)
        .find_map(|name| {
            // Unicode records decode as UTF-16; a Macintosh Roman one is ASCII for these.
            name.to_string().or_else(|| {
                name.name
                    .is_ascii()
                    .then(|| String::from_utf8_lossy(name.name).into_owned())
            })
        })
        .unwrap_or_else(|| format!("Face{index}"));
    let postscript: String = postscript
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect();
    // A subset's name starts with six capitals of its own (PDF 9.6.4).
    let tag: String = {
        let mut hash = fnv1a(&subset);
        (0..6)
            .map(|_| {
                let letter = char::from(b'A' + (hash % 26) as u8);
                hash /= 26;
                letter
            })
            .collect()
    };
    let base_font = format!("{tag}+{postscript}");

    let scale = 1000.0 / f64::from(parsed.units_per_em());
    let type0_id = refs.next();
    let cid_font_id = refs.next();
    let descriptor_id = refs.next();
    let file_id = refs.next();
    let unicode_id = refs.next();

    pdf.type0_font(type0_id)
        .base_font(Name(base_font.as_bytes()))
        .encoding_predefined(Name(b"Identity-H"))
        .descendant_font(cid_font_id)
        .to_unicode(unicode_id);

    // TrueType outlines are a CIDFontType2 with the subset as FontFile2; CFF outlines (an
    // OpenType font such as TeX Gyre's) a CIDFontType0 with the subset as an OpenType
    // FontFile3, whose CIDs are its glyph ids (PDF 32000 9.7.4.2).
    let cff = parsed.tables().cff.is_some();
    let mut cid_font = pdf.cid_font(cid_font_id);
    cid_font
        .subtype(if cff {
            CidFontType::Type0
        } else {
            CidFontType::Type2
        })
        .base_font(Name(base_font.as_bytes()))
        .system_info(SystemInfo {
            registry: Str(b"Adobe"),
            ordering: Str(b"Identity"),
            supplement: 0,
        })
        .font_descriptor(descriptor_id)
        .default_width(0.0);
    if !cff {
        cid_font.cid_to_gid_map_predefined(Name(b"Identity"));
    }
    {
        let mut widths = cid_font.widths();
        let mut by_cid: Vec<(u16, f32)> = cids
            .iter()
            .map(|(&glyph, &cid)| (cid, (face.advance(glyph) * scale) as f32))
            .collect();
        by_cid.sort_by_key(|(cid, _)| *cid);
        for (cid, width) in by_cid {
            widths.consecutive(cid, [width]);
        }
    }
    cid_font.finish();

    let bbox = parsed.global_bounding_box();
    let rect = Rect::new(
        (f64::from(bbox.x_min) * scale) as f32,
        (f64::from(bbox.y_min) * scale) as f32,
        (f64::from(bbox.x_max) * scale) as f32,
        (f64::from(bbox.y_max) * scale) as f32,
    );
    let mut flags = FontFlags::SYMBOLIC;
    if parsed.is_italic() {
        flags |= FontFlags::ITALIC;
    }
    if parsed.is_monospaced() {
        flags |= FontFlags::FIXED_PITCH;
    }
    let ascent = face.ascender * scale;
    let cap_height = parsed
        .capital_height()
        .map_or(ascent, |h| f64::from(h) * scale);
    let weight = parsed.weight().to_number();
    let mut descriptor = pdf.font_descriptor(descriptor_id);
    descriptor
        .name(Name(base_font.as_bytes()))
        .flags(flags)
        .bbox(rect)
        .italic_angle(parsed.italic_angle())
        .ascent(ascent as f32)
        .descent((face.descender * scale) as f32)
        .cap_height(cap_height as f32)
        .stem_v(10.0 + 0.244 * (f32::from(weight) - 50.0));
    if cff {
        descriptor.font_file3(file_id);
    } else {
        descriptor.font_file2(file_id);
    }
    descriptor.finish();

    let compressed = deflate(&subset);
    let mut file = pdf.stream(file_id, &compressed);
    file.filter(Filter::FlateDecode);
    if cff {
        file.pair(Name(b"Subtype"), Name(b"OpenType"));
    } else {
        file.pair(Name(b"Length1"), subset.len() as i32);
    }
    file.finish();

    let mut cmap = pdf_writer::types::UnicodeCmap::new(
        Name(b"Custom"),
        SystemInfo {
            registry: Str(b"Adobe"),
            ordering: Str(b"UCS"),
            supplement: 0,
        },
    );
    for (glyph, text) in glyphs {
        if let (Some(&cid), Some(text)) = (cids.get(glyph), text) {
            cmap.pair_with_multiple(cid, text.chars());
        }
    }
    pdf.cmap(unicode_id, &cmap.finish());

    Ok(EmbeddedFont {
        id: type0_id,
        name: format!("F{index}"),
        cids,
        mapped: glyphs.clone(),
        units_per_em: f64::from(parsed.units_per_em()),
    })
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

/// The content stream of one page.
fn page_content(
    page: &PdfPage<'_>,
    media: &ViewArea,
    fonts: &HashMap<FaceId, EmbeddedFont>,
    images: &HashMap<&str, (String, Ref)>,
    book: &FontBook,
    info: &DocumentInfo<'_>,
) -> Vec<u8> {
    let mut content = Content::new();
    // Millimetres, y down, origin at the print area's top-left.
    content.transform([
        PT as f32,
        0.0,
        0.0,
        -PT as f32,
        (-media.left * PT) as f32,
        ((media.top + media.height) * PT) as f32,
    ]);
    content.save_state();
    let bleed = page.bleed;
    content
        .rect(
            bleed.left as f32,
            bleed.top as f32,
            bleed.width as f32,
            bleed.height as f32,
        )
        .clip_nonzero()
        .end_path();
    for item in &page.scene.items {
        match item {
            SceneItem::Fill { area, .. } => {
                set_colour(&mut content, info.inks, item, false);
                box_path(&mut content, area);
                content.fill_nonzero();
            }
            SceneItem::Outline { area, width, .. } => {
                set_colour(&mut content, info.inks, item, true);
                content.set_line_width(*width as f32);
                box_path(&mut content, area);
                content.stroke();
            }
            SceneItem::Image {
                resource_uri,
                placement,
                clip,
                ..
            } => {
                let Some((name, _)) = images.get(resource_uri.as_str()) else {
                    continue;
                };
                content.save_state();
                box_path(&mut content, clip);
                content.clip_nonzero().end_path();
                content.transform(box_frame(placement));
                // The unit square, row 0 at the top, onto the box centred on the origin.
                content.transform([
                    placement.width as f32,
                    0.0,
                    0.0,
                    -placement.height as f32,
                    (-placement.width / 2.0) as f32,
                    (placement.height / 2.0) as f32,
                ]);
                content.x_object(Name(name.as_bytes()));
                content.restore_state();
            }
            SceneItem::Text {
                area,
                size,
                text,
                glyphs,
                ..
            } => {
                content.save_state();
                box_path(&mut content, area);
                content.clip_nonzero().end_path();
                content.transform(box_frame(area));
                content.transform([
                    1.0,
                    0.0,
                    0.0,
                    1.0,
                    (-area.width / 2.0) as f32,
                    (-area.height / 2.0) as f32,
                ]);
                set_colour(&mut content, info.inks, item, false);
                show_glyphs(&mut content, text, glyphs, *size, fonts, book);
                content.restore_state();
            }
            // A press file is not masked: the card is cut along the die line instead.
            SceneItem::RoundedCornerMask { .. } => {}
        }
    }
    content.restore_state();

    if !page.die_lines.is_empty() {
        content
            .begin_marked_content_with_properties(Name(b"OC"))
            .properties_named(Name(b"DieLayer"));
    }
    for (area, radius) in &page.die_lines {
        content.save_state();
        content.set_parameters(Name(b"Overprint"));
        content.set_stroke_color_space(ColorSpaceOperand::Named(Name(b"Die")));
        content.set_stroke_color([1.0]);
        content.set_line_width(MARK_WIDTH as f32);
        content.transform(box_frame(area));
        rounded_rect(&mut content, area.width, area.height, *radius);
        content.stroke();
        content.restore_state();
    }
    if !page.die_lines.is_empty() {
        content.end_marked_content();
    }

    if info.guides {
        guides(&mut content, &page.trim, &page.safe);
    }
    if info.marks {
        crop_marks(&mut content, &page.trim, &bleed);
        if let Some((text, slug)) = &page.slug {
            content.save_state();
            content.set_fill_color_space(ColorSpaceOperand::Named(Name(b"Registration")));
            content.set_fill_color([1.0]);
            show_glyphs(&mut content, text, slug, SLUG_SIZE, fonts, book);
            content.restore_state();
        }
    }
    content.finish().to_vec()
}

/// Glyphs in runs of one face and baseline, each run one `TJ` whose adjustments put every
/// glyph exactly where layout placed it. A cluster whose glyphs do not map one to one onto its
/// text (a conjunct, a reordered vowel, a glyph that shows different text elsewhere) is a span
/// of its own with its text as `ActualText`, so the file's text copies and searches as the
/// text it shows.
fn show_glyphs(
    content: &mut Content,
    text: &str,
    glyphs: &[SceneGlyph],
    size: f64,
    fonts: &HashMap<FaceId, EmbeddedFont>,
    book: &FontBook,
) {
    let clusters = clusters(text, glyphs);
    let actual = |index: usize| {
        clusters[index].filter(|&cluster| {
            needs_actual_text(&fonts[&glyphs[index].face].mapped, &glyphs[index], cluster)
        })
    };
    content.begin_text();
    let mut start = 0;
    while start < glyphs.len() {
        let end = match actual(start) {
            Some((shown, count)) => {
                let end = (start + count).min(glyphs.len());
                content
                    .begin_marked_content_with_properties(Name(b"Span"))
                    .properties()
                    .actual_text(TextStr(shown));
                show_runs(content, &glyphs[start..end], size, fonts, book);
                content.end_marked_content();
                end
            }
            None => {
                let end = (start + 1..glyphs.len())
                    .find(|&index| clusters[index].is_some() && actual(index).is_some())
                    .unwrap_or(glyphs.len());
                show_runs(content, &glyphs[start..end], size, fonts, book);
                end
            }
        };
        start = end;
    }
    content.end_text();
}

/// `glyphs` as runs of one face and baseline, one `TJ` each.
fn show_runs(
    content: &mut Content,
    glyphs: &[SceneGlyph],
    size: f64,
    fonts: &HashMap<FaceId, EmbeddedFont>,
    book: &FontBook,
) {
    let mut start = 0;
    while start < glyphs.len() {
        let first = glyphs[start];
        let end = glyphs[start..]
            .iter()
            .position(|g| g.face != first.face || g.baseline != first.baseline)
            .map_or(glyphs.len(), |n| start + n);
        let font = &fonts[&first.face];
        let face = book.face(first.face);
        content.set_font(Name(font.name.as_bytes()), size as f32);
        content.set_text_matrix([1.0, 0.0, 0.0, -1.0, first.x as f32, first.baseline as f32]);
        let mut shown = content.show_positioned();
        let mut items = shown.items();
        let mut pen = first.x;
        for glyph in &glyphs[start..end] {
            // TJ adjustments are thousandths of the em, positive to the left.
            let gap = glyph.x - pen;
            if gap.abs() > 1e-9 {
                items.adjust((-gap / size * 1000.0) as f32);
            }
            let cid = font.cids.get(&glyph.glyph).copied().unwrap_or(0);
            items.show(Str(&cid.to_be_bytes()));
            pen = glyph.x + face.advance(glyph.glyph) * size / font.units_per_em;
        }
        items.finish();
        shown.finish();
        start = end;
    }
}

/// `item`'s inks as the colour that paints it.
fn set_colour(content: &mut Content, inks: &PressInks<'_>, item: &SceneItem, stroke: bool) {
    let [c, m, y, k] = inks
        .of_item(item)
        .unwrap_or_default()
        .map(|v| (v / 100.0) as f32);
    if stroke {
        content.set_stroke_cmyk(c, m, y, k);
    } else {
        content.set_fill_cmyk(c, m, y, k);
    }
}

/// The matrix from a box's own frame (origin at its centre, turned with it) to the scene.
fn box_frame(area: &BoundingBox) -> [f32; 6] {
    let radians = area.angle.to_radians();
    let (sin, cos) = (libm::sin(radians), libm::cos(radians));
    [
        cos as f32,
        sin as f32,
        -sin as f32,
        cos as f32,
        area.center.x as f32,
        area.center.y as f32,
    ]
}

/// The outline of a (possibly turned) box, in scene coordinates.
fn box_path(content: &mut Content, area: &BoundingBox) {
    let [a, b, c, d, e, f] = box_frame(area).map(f64::from);
    let (w, h) = (area.width / 2.0, area.height / 2.0);
    let corners = [(-w, -h), (w, -h), (w, h), (-w, h)];
    for (i, (x, y)) in corners.into_iter().enumerate() {
        let (px, py) = ((a * x + c * y + e) as f32, (b * x + d * y + f) as f32);
        if i == 0 {
            content.move_to(px, py);
        } else {
            content.line_to(px, py);
        }
    }
    content.close_path();
}

/// A rounded rectangle centred on the origin ([`crate::layout::rounded_rect`]).
fn rounded_rect(content: &mut Content, width: f64, height: f64, radius: f64) {
    for step in crate::layout::rounded_rect(width, height, radius) {
        match step {
            PathStep::MoveTo(x, y) => content.move_to(x, y),
            PathStep::LineTo(x, y) => content.line_to(x, y),
            PathStep::CubicTo([x1, y1, x2, y2, x, y]) => content.cubic_to(x1, y1, x2, y2, x, y),
            PathStep::Close => content.close_path(),
        };
    }
}

/// A proof's cut line (red) and safe area (green dashes), as the editor draws them, on the
/// guides layer.
fn guides(content: &mut Content, trim: &ViewArea, safe: &ViewArea) {
    content
        .begin_marked_content_with_properties(Name(b"OC"))
        .properties_named(Name(b"Guides"));
    content.save_state();
    content.set_line_width(0.2);
    content.set_stroke_cmyk(0.0, 1.0, 1.0, 0.0);
    content.rect(
        trim.left as f32,
        trim.top as f32,
        trim.width as f32,
        trim.height as f32,
    );
    content.stroke();
    content.set_stroke_cmyk(0.8, 0.0, 0.9, 0.2);
    content.set_dash_pattern([1.0, 1.0], 0.0);
    content.rect(
        safe.left as f32,
        safe.top as f32,
        safe.width as f32,
        safe.height as f32,
    );
    content.stroke();
    content.restore_state();
    content.end_marked_content();
}

/// The crop marks, in registration colour.
fn crop_marks(content: &mut Content, trim: &ViewArea, bleed: &ViewArea) {
    content.save_state();
    content.set_stroke_color_space(ColorSpaceOperand::Named(Name(b"Registration")));
    content.set_stroke_color([1.0]);
    content.set_line_width(MARK_WIDTH as f32);
    content.set_line_cap(LineCapStyle::ButtCap);
    for [(x0, y0), (x1, y1)] in sheet::crop_marks(trim, bleed) {
        content.move_to(x0 as f32, y0 as f32);
        content.line_to(x1 as f32, y1 as f32);
    }
    content.stroke();
    content.restore_state();
}

pub(crate) fn deflate(bytes: &[u8]) -> Vec<u8> {
    miniz_oxide::deflate::compress_to_vec_zlib(bytes, 6)
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The file identifier: the same inputs give the same file.
fn document_id(info: &DocumentInfo<'_>, pages: usize) -> [u8; 16] {
    let seed = format!("{}\n{}\n{pages}", info.title, info.created);
    let first = fnv1a(seed.as_bytes());
    let second = fnv1a(&first.to_le_bytes());
    let mut id = [0; 16];
    id[..8].copy_from_slice(&first.to_be_bytes());
    id[8..].copy_from_slice(&second.to_be_bytes());
    id
}

/// (year, month, day, hour, minute, second) of a Unix time, UTC.
fn civil_time(seconds: i64) -> (i64, u8, u8, u8, u8, u8) {
    let days = seconds.div_euclid(86_400);
    let rest = seconds.rem_euclid(86_400);
    // Howard Hinnant's days-to-civil.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u8;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u8;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (
        year,
        month,
        day,
        (rest / 3600) as u8,
        (rest % 3600 / 60) as u8,
        (rest % 60) as u8,
    )
}

fn pdf_date(seconds: i64) -> Date {
    let (year, month, day, hour, minute, second) = civil_time(seconds);
    Date::new(year.clamp(0, 9999) as u16)
        .month(month)
        .day(day)
        .hour(hour)
        .minute(minute)
        .second(second)
        .utc_offset_hour(0)
        .utc_offset_minute(0)
}

/// The XMP packet PDF/X-4 requires: its version, the dates and the document's identity.
fn xmp_metadata(info: &DocumentInfo<'_>, document_id: &[u8; 16]) -> String {
    let (year, month, day, hour, minute, second) = civil_time(info.created);
    let date = format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}Z");
    let uuid: String = document_id.iter().map(|b| format!("{b:02x}")).collect();
    let title = xml_escape(info.title);
    format!(
        r#"<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/">
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about=""
 xmlns:dc="http://purl.org/dc/elements/1.1/"
 xmlns:xmp="http://ns.adobe.com/xap/1.0/"
 xmlns:pdf="http://ns.adobe.com/pdf/1.3/"
 xmlns:xmpMM="http://ns.adobe.com/xap/1.0/mm/"
 xmlns:pdfxid="http://www.npes.org/pdfx/ns/id/">
<dc:format>application/pdf</dc:format>
<dc:title><rdf:Alt><rdf:li xml:lang="x-default">{title}</rdf:li></rdf:Alt></dc:title>
<xmp:CreateDate>{date}</xmp:CreateDate>
<xmp:ModifyDate>{date}</xmp:ModifyDate>
<xmp:MetadataDate>{date}</xmp:MetadataDate>
<xmp:CreatorTool>Presspack</xmp:CreatorTool>
<pdf:Producer>Presspack (pdf-writer)</pdf:Producer>
<pdf:Trapped>False</pdf:Trapped>
<xmpMM:DocumentID>uuid:{uuid}</xmpMM:DocumentID>
<xmpMM:InstanceID>uuid:{uuid}</xmpMM:InstanceID>
<xmpMM:VersionID>1</xmpMM:VersionID>
<xmpMM:RenditionClass>default</xmpMM:RenditionClass>
<pdfxid:GTS_PDFXVersion>PDF/X-4</pdfxid:GTS_PDFXVersion>
</rdf:Description>
</rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>"#
    )
}

fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unix_times_become_calendar_dates() {
        assert_eq!(civil_time(0), (1970, 1, 1, 0, 0, 0));
        // 2026-11-27 03:04:05 UTC
        assert_eq!(civil_time(1_795_748_645), (2026, 11, 27, 3, 4, 5));
        assert_eq!(civil_time(951_782_400), (2000, 2, 29, 0, 0, 0));
    }
}
