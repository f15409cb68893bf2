//! The faces a press file embeds: the glyphs each draws anywhere in the document, subset
//! once, with ToUnicode entries so that the text extracts as it reads.

use std::collections::{BTreeMap, HashMap};

use pdf_writer::types::{CidFontType, FontFlags, SystemInfo};
use pdf_writer::{Filter, Finish, Name, Pdf, Rect, Ref, Str};

use crate::layout::{SceneGlyph, SceneItem};
use crate::text::{FaceId, FontBook};

use super::{PdfPage, Refs, deflate, fnv1a};

/// The glyphs a face draws in the document: original glyph id -> the text it shows wherever
/// it is the one glyph of its cluster, or `None` when it shows different texts in different
/// places or only ever part of a cluster (its clusters then carry their text as ActualText).
pub(super) type UsedGlyphs = BTreeMap<u16, Option<String>>;

/// The text of each cluster of `glyphs` (a run whose `text` ranges are of `text`): per glyph,
/// its cluster's text and how many glyphs the cluster has, on the cluster's first glyph.
pub(super) fn clusters<'t>(text: &'t str, glyphs: &[SceneGlyph]) -> Vec<Option<(&'t str, usize)>> {
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
pub(super) fn needs_actual_text(
    used: &UsedGlyphs,
    glyph: &SceneGlyph,
    cluster: (&str, usize),
) -> bool {
    let (text, count) = cluster;
    count > 1
        || used
            .get(&glyph.glyph)
            .is_none_or(|mapped| mapped.as_deref() != Some(text))
}

/// The glyphs each face draws anywhere in `pages` (their texts and slugs), and the text each
/// one-glyph cluster shows, for ToUnicode.
pub(super) fn used_glyphs(pages: &[PdfPage<'_>]) -> BTreeMap<FaceId, UsedGlyphs> {
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
    used
}

pub(super) struct EmbeddedFont {
    pub(super) id: Ref,
    pub(super) name: String,
    /// Original glyph id -> CID in the subset.
    pub(super) cids: HashMap<u16, u16>,
    /// Original glyph id -> the text its ToUnicode entry gives, if it has one.
    pub(super) mapped: UsedGlyphs,
    pub(super) units_per_em: f64,
}

pub(super) fn embed_font(
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
