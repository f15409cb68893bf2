//! The font catalogue (families, styles, aliases, fallback order; `fonts/catalogue.json`) and
//! the [`FontBook`] built from it: the faces with the metrics layout needs, read once.
//!
//! Metrics (character map, advances, `kern` pairs, vertical metrics) are read with
//! ttf-parser into plain tables when a face is added, so measuring never re-parses a font.
//! The fontdue rasteriser for a face is built the first time a glyph of it is drawn: a
//! measurement-only caller never pays for it.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

use serde::{Deserialize, Serialize};

use super::words::{Dictionary, WordScript};
use rustc_hash::FxHashMap;

/// The catalogue shipped in `fonts/catalogue.json`.
pub const BUILTIN_CATALOGUE: &str = presspack_assets::FONT_CATALOGUE;

/// A font file larger than this is refused (the largest DejaVu face is 750 KB).
pub const MAX_FACE_BYTES: usize = 32 * 1024 * 1024;

/// Index of a face in its [`FontBook`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FaceId(pub(crate) u16);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Style {
    Regular,
    Bold,
    Italic,
    BoldItalic,
}

impl Style {
    pub fn new(bold: bool, italic: bool) -> Style {
        match (bold, italic) {
            (false, false) => Style::Regular,
            (true, false) => Style::Bold,
            (false, true) => Style::Italic,
            (true, true) => Style::BoldItalic,
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// Families, their faces by style, client aliases and the fallback order, as data.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FontCatalogue {
    #[serde(default, rename = "comment", skip_serializing)]
    _comment: Option<String>,
    pub families: BTreeMap<String, FamilyFaces>,
    #[serde(default)]
    pub aliases: BTreeMap<String, String>,
    #[serde(default)]
    pub fallback: Vec<String>,
    /// The word lists that lines of Thai, Lao, Khmer and Myanmar break with, by script
    /// ([`WordScript::named`]): files named as faces are ([`super::words`]).
    #[serde(
        default,
        rename = "wordBreak",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub word_break: BTreeMap<String, String>,
}

/// The face (by name) of each style of a family; a missing style uses the regular face,
/// never a synthetic one.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FamilyFaces {
    /// What the family is for people choosing one; editors group their font pickers by it.
    #[serde(default)]
    pub kind: FamilyKind,
    /// The name people know the family by ("Liberation Sans" for `sans`), for font pickers;
    /// packs and templates use the catalogue's key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    pub regular: String,
    pub bold: Option<String>,
    pub italic: Option<String>,
    pub bold_italic: Option<String>,
    /// Line metrics for the family's faces in place of their own (see [`LineMetrics`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_metrics: Option<LineMetrics>,
}

/// What a family is for, as a font picker groups families.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FamilyKind {
    #[default]
    Sans,
    Serif,
    Slab,
    Rounded,
    Condensed,
    Display,
    Script,
    Mono,
    /// Kept for characters other faces lack (other scripts, emoji), not offered as a choice.
    Fallback,
}

/// Ascender, descender and line gap as fractions of the em, in place of a face's own: a clone
/// made to measure as another font (Gelasio for Georgia) matches its widths but not always
/// its lines, and a line taller than the original's would not fit where the original fits.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LineMetrics {
    pub ascender: f64,
    /// Below the baseline: negative.
    pub descender: f64,
    pub line_gap: f64,
}

impl FamilyFaces {
    fn names(&self) -> [Option<&String>; 4] {
        [
            Some(&self.regular),
            self.bold.as_ref(),
            self.italic.as_ref(),
            self.bold_italic.as_ref(),
        ]
    }
}

impl FontCatalogue {
    pub fn parse(json: &str) -> Result<FontCatalogue, FontError> {
        serde_json::from_str(json).map_err(|e| FontError(format!("font catalogue: {e}")))
    }

    pub fn builtin() -> FontCatalogue {
        FontCatalogue::parse(BUILTIN_CATALOGUE).expect("fonts/catalogue.json is valid")
    }

    /// Adds an operator's families, aliases and word lists; theirs win on a name clash. Their
    /// fallback families are tried after the built-in ones.
    pub fn extend(&mut self, other: FontCatalogue) {
        self.families.extend(other.families);
        self.aliases.extend(other.aliases);
        self.word_break.extend(other.word_break);
        for family in other.fallback {
            if !self.fallback.contains(&family) {
                self.fallback.push(family);
            }
        }
    }

    /// Every face name the catalogue refers to, each once.
    pub fn face_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .families
            .values()
            .flat_map(|f| f.names().into_iter().flatten().cloned())
            .collect();
        names.sort();
        names.dedup();
        names
    }

    /// Every file the catalogue refers to, each once: its faces and its word lists.
    pub fn file_names(&self) -> Vec<String> {
        let mut names = self.face_names();
        names.extend(self.word_break.values().cloned());
        names.sort();
        names.dedup();
        names
    }
}

/// A font problem: an unknown family, a bad catalogue or an unreadable face.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FontError(pub String);

impl fmt::Display for FontError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for FontError {}

/// A face's bytes under its catalogue name.
#[cfg(feature = "builtin-fonts")]
pub type NamedFace = (&'static str, Arc<[u8]>);

/// The bytes of every built-in face and word list, by the names `fonts/catalogue.json` uses:
/// the files of `fonts/`, inflated once, on first use, from what `presspack-assets` embeds.
#[cfg(feature = "builtin-fonts")]
pub fn builtin_face_bytes() -> &'static [NamedFace] {
    static FACES: OnceLock<Vec<NamedFace>> = OnceLock::new();
    FACES.get_or_init(|| {
        presspack_assets::FONT_FACES_DEFLATED
            .iter()
            .map(|&(name, deflated)| {
                let bytes = miniz_oxide::inflate::decompress_to_vec(deflated)
                    .unwrap_or_else(|e| panic!("the built-in face {name} does not inflate: {e:?}"));
                (name, Arc::<[u8]>::from(bytes))
            })
            .collect()
    })
}

/// One face: metrics read up front, rasteriser built on first use.
pub struct Face {
    pub name: String,
    data: Arc<[u8]>,
    pub units_per_em: f64,
    pub ascender: f64,
    pub descender: f64,
    pub line_gap: f64,
    glyphs: FxHashMap<char, u16>,
    /// [`Face::glyphs`] of the ASCII characters, by code: most text is ASCII, and an array
    /// read is no hash, no probe loop (which under wasmtime also pays time-limit checks).
    ascii_glyphs: [Option<u16>; 128],
    advances: Vec<u16>,
    /// The face as the shaper reads it (its layout tables parsed once, on first use).
    shaping: harfrust::Font,
    /// Shape plans made for this face, one per script and direction used so far.
    plans: Mutex<Vec<Arc<harfrust::ShapePlan>>>,
    rasteriser: OnceLock<Result<fontdue::Font, String>>,
}

/// A face's bytes as the shaper's font data holds them (shared, not copied).
struct FaceBytes(Arc<[u8]>);

impl AsRef<[u8]> for FaceBytes {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl fmt::Debug for Face {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Face").field("name", &self.name).finish()
    }
}

impl Face {
    pub fn parse(name: &str, data: Arc<[u8]>) -> Result<Face, FontError> {
        let bad = |why: String| FontError(format!("font face {name:?}: {why}"));
        if data.len() > MAX_FACE_BYTES {
            return Err(bad(format!("larger than {MAX_FACE_BYTES} bytes")));
        }
        let face = ttf_parser::Face::parse(&data, 0).map_err(|e| bad(e.to_string()))?;
        let mut glyphs = FxHashMap::default();
        if let Some(cmap) = face.tables().cmap {
            for subtable in cmap.subtables {
                if subtable.is_unicode() {
                    subtable.codepoints(|cp| {
                        if let (Some(c), Some(g)) = (char::from_u32(cp), subtable.glyph_index(cp)) {
                            glyphs.entry(c).or_insert(g.0);
                        }
                    });
                }
            }
        }
        if glyphs.is_empty() {
            return Err(bad("no Unicode character map".into()));
        }
        let advances = (0..face.number_of_glyphs())
            .map(|g| face.glyph_hor_advance(ttf_parser::GlyphId(g)).unwrap_or(0))
            .collect();
        let bytes: Arc<dyn AsRef<[u8]> + Send + Sync> = Arc::new(FaceBytes(Arc::clone(&data)));
        let shaping =
            harfrust::Font::new(bytes, 0).ok_or_else(|| bad("the shaper cannot read it".into()))?;
        Ok(Face {
            name: name.to_owned(),
            units_per_em: f64::from(face.units_per_em()),
            ascender: f64::from(face.ascender()),
            descender: f64::from(face.descender()),
            line_gap: f64::from(face.line_gap()),
            ascii_glyphs: std::array::from_fn(|code| glyphs.get(&char::from(code as u8)).copied()),
            glyphs,
            advances,
            shaping,
            plans: Mutex::new(Vec::new()),
            data,
            rasteriser: OnceLock::new(),
        })
    }

    /// The face with `metrics` (fractions of the em) as its line metrics.
    fn with_line_metrics(mut self, metrics: Option<LineMetrics>) -> Face {
        if let Some(metrics) = metrics {
            self.ascender = metrics.ascender * self.units_per_em;
            self.descender = metrics.descender * self.units_per_em;
            self.line_gap = metrics.line_gap * self.units_per_em;
        }
        self
    }

    /// The font file (a press file embeds a subset of it).
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    /// The glyph for a character, if the face has one.
    pub fn glyph(&self, c: char) -> Option<u16> {
        match self.ascii_glyphs.get(c as usize) {
            Some(&glyph) => glyph,
            None => self.glyphs.get(&c).copied(),
        }
    }

    /// Advance of a glyph in font units.
    pub fn advance(&self, glyph: u16) -> f64 {
        f64::from(self.advances.get(usize::from(glyph)).copied().unwrap_or(0))
    }

    /// The face as the shaper reads it.
    pub(crate) fn shaping_font(&self) -> &harfrust::Font {
        &self.shaping
    }

    /// The shape plan of this face for `script` and `direction`, made the first time they are
    /// asked for (a plan is the lookups to apply, worked out from the face's layout tables).
    pub(crate) fn plan(
        &self,
        script: harfrust::Script,
        direction: harfrust::Direction,
    ) -> Arc<harfrust::ShapePlan> {
        let mut plans = self.plans.lock().unwrap_or_else(|e| e.into_inner());
        let key = harfrust::ShapePlanKey::new(&self.shaping, Some(script), direction);
        if let Some(plan) = plans.iter().find(|plan| key.matches(plan)) {
            return Arc::clone(plan);
        }
        let plan = Arc::new(harfrust::ShapePlan::new(
            &self.shaping,
            direction,
            Some(script),
            None,
            &[],
        ));
        plans.push(Arc::clone(&plan));
        plan
    }

    /// Height of one line as a multiple of the em size.
    pub fn line_height(&self) -> f64 {
        (self.ascender - self.descender + self.line_gap) / self.units_per_em
    }

    /// Rasterises a glyph at `px` pixels per em: its placement and coverage bitmap.
    pub fn rasterise(&self, glyph: u16, px: f32) -> Result<(fontdue::Metrics, Vec<u8>), FontError> {
        let font = self
            .rasteriser
            .get_or_init(|| {
                // Fixed settings: the glyph outlines must not depend on which size came first.
                fontdue::Font::from_bytes(&*self.data, fontdue::FontSettings::default())
                    .map_err(|e| e.to_string())
            })
            .as_ref()
            .map_err(|e| FontError(format!("font face {:?}: {e}", self.name)))?;
        Ok(font.rasterize_indexed(glyph, px))
    }
}

/// A face of the catalogue: its metrics, or (in a browser that loads faces as a side needs
/// them) only its name until its bytes are added.
#[derive(Debug)]
enum FaceSlot {
    Loaded(Box<Face>),
    NotLoaded(String),
}

/// A word list of the catalogue, by its file name; none until added (see [`FaceSlot`]).
#[derive(Debug)]
struct WordList {
    script: WordScript,
    name: String,
    dictionary: Option<Dictionary>,
}

/// The faces and families the engine lays out and draws with.
#[derive(Debug)]
pub struct FontBook {
    faces: Vec<FaceSlot>,
    /// Family name -> face of each [`Style`] (regular stands in for a missing style).
    families: HashMap<String, [FaceId; 4]>,
    aliases: HashMap<String, String>,
    /// The fallback families' faces by style, in order.
    fallback: Vec<[FaceId; 4]>,
    /// [`FontBook::fallback_faces`] of each face, by face id: worked out once, not per text.
    fallback_order: Vec<Vec<FaceId>>,
    /// The line metrics a family sets for its faces, by face name.
    line_metrics: HashMap<String, LineMetrics>,
    /// The word lists of the catalogue's `wordBreak`.
    words: Vec<WordList>,
}

impl FontBook {
    /// Builds the book for `catalogue` from face bytes by name. Every face the catalogue
    /// names must be given, and every alias and fallback entry must name a family.
    pub fn new(
        catalogue: &FontCatalogue,
        faces: impl IntoIterator<Item = (String, Arc<[u8]>)>,
    ) -> Result<FontBook, FontError> {
        Self::build(catalogue, faces, false)
    }

    /// Like [`FontBook::new`], but faces not given are known by name only: laying out text
    /// that needs one fails with [`TextError::FaceNotLoaded`](super::TextError) until
    /// [`FontBook::add_face`] supplies it. A browser loads only the faces a side uses.
    pub fn partial(
        catalogue: &FontCatalogue,
        faces: impl IntoIterator<Item = (String, Arc<[u8]>)>,
    ) -> Result<FontBook, FontError> {
        Self::build(catalogue, faces, true)
    }

    fn build(
        catalogue: &FontCatalogue,
        faces: impl IntoIterator<Item = (String, Arc<[u8]>)>,
        partial: bool,
    ) -> Result<FontBook, FontError> {
        let mut by_name: HashMap<String, Arc<[u8]>> = faces.into_iter().collect();
        let mut book = FontBook {
            faces: Vec::new(),
            families: HashMap::new(),
            aliases: HashMap::new(),
            fallback: Vec::new(),
            fallback_order: Vec::new(),
            line_metrics: HashMap::new(),
            words: Vec::new(),
        };
        for (script, name) in &catalogue.word_break {
            let script = WordScript::named(script)?;
            let dictionary = match by_name.remove(name) {
                Some(data) => Some(Dictionary::new(name, data)?),
                None if partial => None,
                None => {
                    return Err(FontError(format!(
                        "word-break dictionary {name:?} is named in the catalogue but not supplied"
                    )));
                }
            };
            book.words.push(WordList {
                script,
                name: name.clone(),
                dictionary,
            });
        }
        for faces in catalogue.families.values() {
            if let Some(metrics) = faces.line_metrics {
                for name in faces.names().into_iter().flatten() {
                    book.line_metrics.insert(name.clone(), metrics);
                }
            }
        }
        let mut face_ids: HashMap<String, FaceId> = HashMap::new();
        for name in catalogue.face_names() {
            let slot = match by_name.remove(&name) {
                Some(data) => FaceSlot::Loaded(Box::new(book.parse_face(&name, data)?)),
                None if partial => FaceSlot::NotLoaded(name.clone()),
                None => {
                    return Err(FontError(format!(
                        "font face {name:?} is named in the catalogue but not supplied"
                    )));
                }
            };
            let id = FaceId(
                u16::try_from(book.faces.len())
                    .map_err(|_| FontError("more than 65535 font faces".into()))?,
            );
            book.faces.push(slot);
            face_ids.insert(name, id);
        }
        for (family, faces) in &catalogue.families {
            let regular = face_ids[&faces.regular];
            let id = |name: &Option<String>| name.as_ref().map_or(regular, |n| face_ids[n]);
            book.families.insert(
                family.to_lowercase(),
                [
                    regular,
                    id(&faces.bold),
                    id(&faces.italic),
                    id(&faces.bold_italic),
                ],
            );
        }
        for (alias, family) in &catalogue.aliases {
            let family = family.to_lowercase();
            if !book.families.contains_key(&family) {
                return Err(FontError(format!(
                    "font alias {alias:?} names the unknown family {family:?}"
                )));
            }
            book.aliases.insert(alias.to_lowercase(), family);
        }
        for family in &catalogue.fallback {
            let family = family.to_lowercase();
            let Some(&faces) = book.families.get(&family) else {
                return Err(FontError(format!(
                    "fallback entry {family:?} is not a font family"
                )));
            };
            book.fallback.push(faces);
        }
        // A face's style is its place in the first family, in the catalogue's order, that
        // has it (a family without a bold face has its regular one in that place too).
        let style_of = |face: FaceId| {
            catalogue
                .families
                .keys()
                .filter_map(|family| book.families.get(&family.to_lowercase()))
                .find_map(|faces| faces.iter().position(|&f| f == face))
                .unwrap_or(0)
        };
        book.fallback_order = (0..book.faces.len())
            .map(|index| {
                let primary = FaceId(index as u16); // fewer than 65536: checked above
                let style = style_of(primary);
                let mut order = Vec::new();
                for index in [style, 0] {
                    for faces in &book.fallback {
                        let face = faces[index];
                        if face != primary && !order.contains(&face) {
                            order.push(face);
                        }
                    }
                }
                order
            })
            .collect();
        Ok(book)
    }

    /// The catalogue of `fonts/catalogue.json` with the DejaVu faces of the `dejavu` crate.
    #[cfg(feature = "builtin-fonts")]
    pub fn builtin() -> FontBook {
        let faces = builtin_face_bytes()
            .iter()
            .map(|(name, bytes)| ((*name).to_owned(), Arc::clone(bytes)));
        FontBook::new(&FontCatalogue::builtin(), faces).expect("the built-in fonts load")
    }

    /// A face that text was laid out in (layout fails on a face not loaded, so every face
    /// of a layout's glyphs is loaded).
    pub fn face(&self, id: FaceId) -> &Face {
        match &self.faces[usize::from(id.0)] {
            FaceSlot::Loaded(face) => face,
            FaceSlot::NotLoaded(name) => panic!("font face {name:?} is used before it is loaded"),
        }
    }

    /// The face, or the name of the face to load first.
    pub fn loaded(&self, id: FaceId) -> Result<&Face, String> {
        match &self.faces[usize::from(id.0)] {
            FaceSlot::Loaded(face) => Ok(face),
            FaceSlot::NotLoaded(name) => Err(name.clone()),
        }
    }

    /// The word list lines of `script` break with, if the catalogue has one, or the name of
    /// the file to add first.
    pub(crate) fn dictionary(&self, script: WordScript) -> Result<Option<&Dictionary>, String> {
        match self.words.iter().find(|list| list.script == script) {
            None => Ok(None),
            Some(list) => list.dictionary.as_ref().map(Some).ok_or(list.name.clone()),
        }
    }

    /// Supplies the bytes of a face or word list the catalogue names (see
    /// [`FontBook::partial`]); one already loaded is kept as it is.
    pub fn add_face(&mut self, name: &str, data: Arc<[u8]>) -> Result<(), FontError> {
        if let Some(list) = self.words.iter_mut().find(|list| list.name == name) {
            if list.dictionary.is_none() {
                list.dictionary = Some(Dictionary::new(name, data)?);
            }
            return Ok(());
        }
        let index = self
            .faces
            .iter()
            .position(|slot| match slot {
                FaceSlot::Loaded(face) => face.name == name,
                FaceSlot::NotLoaded(missing) => missing == name,
            })
            .ok_or_else(|| FontError(format!("font face {name:?} is not in the catalogue")))?;
        if matches!(self.faces[index], FaceSlot::NotLoaded(_)) {
            self.faces[index] = FaceSlot::Loaded(Box::new(self.parse_face(name, data)?));
        }
        Ok(())
    }

    /// Reads face `name` with the line metrics its family sets, if any.
    fn parse_face(&self, name: &str, data: Arc<[u8]>) -> Result<Face, FontError> {
        Ok(Face::parse(name, data)?.with_line_metrics(self.line_metrics.get(name).copied()))
    }

    /// The face for a client's family name (case-insensitive, aliases resolved) and style.
    pub fn resolve(&self, family: &str, bold: bool, italic: bool) -> Result<FaceId, FontError> {
        let family = family.trim();
        // Names are kept lower-case; most clients already send them so (no allocation).
        let lowered;
        let wanted = if family.is_ascii() && !family.bytes().any(|b| b.is_ascii_uppercase()) {
            family
        } else {
            lowered = family.to_lowercase();
            &lowered
        };
        let family = self.aliases.get(wanted).map_or(wanted, String::as_str);
        match self.families.get(family) {
            Some(faces) => Ok(faces[Style::new(bold, italic).index()]),
            None => Err(FontError(format!(
                "unknown font family {:?}; known families: {}",
                family.trim(),
                self.known_families()
            ))),
        }
    }

    /// The face of the service's own small print (a press file's slug line): the regular
    /// face of the first fallback family.
    pub fn plain_face(&self) -> FaceId {
        self.fallback.first().map_or(FaceId(0), |faces| faces[0])
    }

    /// The bold face of [`FontBook::plain_face`]'s family (paperwork's headings).
    pub fn plain_bold_face(&self) -> FaceId {
        self.fallback
            .first()
            .map_or(FaceId(0), |faces| faces[Style::new(true, false).index()])
    }

    /// Every family and alias name, sorted, for error messages.
    pub fn known_families(&self) -> String {
        let mut names: Vec<&str> = self
            .families
            .keys()
            .chain(self.aliases.keys())
            .map(String::as_str)
            .collect();
        names.sort_unstable();
        names.join(", ")
    }

    /// The faces to try, in order, for characters `primary` lacks: each fallback family in
    /// the primary's style, then in its regular style.
    pub fn fallback_faces(&self, primary: FaceId) -> &[FaceId] {
        self.fallback_order
            .get(usize::from(primary.0))
            .map_or(&[], Vec::as_slice)
    }
}

#[cfg(all(test, feature = "builtin-fonts"))]
mod tests {
    use super::*;

    #[test]
    fn aliases_and_styles_resolve_to_real_faces() {
        let book = FontBook::builtin();
        let name = |family, bold, italic| {
            book.face(book.resolve(family, bold, italic).unwrap())
                .name
                .clone()
        };
        assert_eq!(
            name("Helvetica", false, false),
            "liberation/LiberationSans-Regular.ttf"
        );
        assert_eq!(
            name("ARIAL", true, false),
            "liberation/LiberationSans-Bold.ttf"
        );
        assert_eq!(
            name("georgia", false, true),
            "gelasio/Gelasio_400Regular_Italic.ttf"
        );
        assert_eq!(
            name("Courier", true, true),
            "liberation/LiberationMono-BoldItalic.ttf"
        );
        assert_eq!(
            name("avantgarde", false, false),
            "texgyre-adventor/texgyreadventor-regular.otf"
        );
        // A family without a bold face gives its regular one, never a synthetic bold.
        assert_eq!(
            name("droid sans fallback", true, false),
            "droid/DroidSansFallback.ttf"
        );
        let err = book.resolve("comic sans", false, false).unwrap_err();
        assert!(
            err.0.contains("unknown font family \"comic sans\""),
            "{err}"
        );
        assert!(err.0.contains("helvetica"), "{err}");
    }

    #[test]
    fn every_alias_of_wire_formats_section_9_is_known() {
        let book = FontBook::builtin();
        for family in [
            "helvetica",
            "helv",
            "arial",
            "georgia",
            "times",
            "courier",
            "meta",
            "radio",
            "vagrounded",
            "bryant",
            "officina",
            "frutigerltpro",
            "avantgarde",
            "router",
            "index",
        ] {
            for (bold, italic) in [(false, false), (true, false), (false, true), (true, true)] {
                book.resolve(family, bold, italic).unwrap();
            }
        }
    }

    #[test]
    fn the_ascii_glyph_table_agrees_with_the_map() {
        let book = FontBook::builtin();
        for slot in &book.faces {
            let FaceSlot::Loaded(face) = slot else {
                panic!("the built-in faces are all loaded");
            };
            for code in 0..512 {
                let c = char::from_u32(code).unwrap();
                assert_eq!(face.glyph(c), face.glyphs.get(&c).copied(), "{c:?}");
            }
        }
    }

    #[test]
    fn fallback_keeps_the_style_first() {
        let book = FontBook::builtin();
        let serif_bold = book.resolve("serif", true, false).unwrap();
        let order: Vec<String> = book
            .fallback_faces(serif_bold)
            .iter()
            .map(|&f| book.face(f).name.clone())
            .collect();
        // Every fallback family's bold face first (the regular one where a family has no
        // bold), then their regular faces; no face twice.
        assert_eq!(
            order,
            [
                "liberation/LiberationSans-Bold.ttf",
                "noto/NotoSansArabic-Bold.ttf",
                "noto/NotoSansHebrew-Bold.ttf",
                "noto/NotoSansDevanagari-Bold.ttf",
                "noto/NotoSansBengali-Bold.ttf",
                "noto/NotoSansTamil-Bold.ttf",
                "noto/NotoSansThai-Bold.ttf",
                "noto/NotoSansLao-Bold.ttf",
                "noto/NotoSansKhmer-Bold.ttf",
                "noto/NotoSansMyanmar-Bold.ttf",
                "droid/DroidSansFallback.ttf",
                "dejavu:sans-bold",
                "noto/NotoEmoji-Bold.ttf",
                "liberation/LiberationSans-Regular.ttf",
                "noto/NotoSansArabic-Regular.ttf",
                "noto/NotoSansHebrew-Regular.ttf",
                "noto/NotoSansDevanagari-Regular.ttf",
                "noto/NotoSansBengali-Regular.ttf",
                "noto/NotoSansTamil-Regular.ttf",
                "noto/NotoSansThai-Regular.ttf",
                "noto/NotoSansLao-Regular.ttf",
                "noto/NotoSansKhmer-Regular.ttf",
                "noto/NotoSansMyanmar-Regular.ttf",
                "dejavu:sans",
                "noto/NotoEmoji-Regular.ttf",
            ]
        );
    }

    #[test]
    fn a_catalogue_naming_a_missing_face_is_refused() {
        let catalogue = FontCatalogue::builtin();
        let err = FontBook::new(&catalogue, []).unwrap_err();
        assert!(err.0.contains("not supplied"), "{err}");
    }

    /// The browser loads faces as a side needs them: a partial book names each face the text
    /// needs, one at a time (a fallback face only when a character is missing), and once
    /// given them lays the text out exactly as the full book does.
    #[test]
    fn a_partial_book_asks_for_the_faces_a_text_needs_and_then_agrees_with_the_full_book() {
        use crate::model::FontSubstitution;
        use crate::text::{TextError, TextRequest, layout_text};
        let full = FontBook::builtin();
        let mut partial = FontBook::partial(&FontCatalogue::builtin(), []).unwrap();
        for substitution in [
            FontSubstitution::LineByLine,
            FontSubstitution::AllLinesIfAnyNeeded,
        ] {
            let request = |book: &FontBook| TextRequest {
                text: "Ada Lovelace \u{5d0}",
                face: book.resolve("georgia", false, false).unwrap(),
                size: 4.0,
                wrap_width: Some(30.0),
                substitution,
            };
            let mut asked = Vec::new();
            let layout = loop {
                match layout_text(&partial, &request(&partial)) {
                    Ok(layout) => break layout,
                    Err(TextError::FaceNotLoaded(name)) => {
                        assert!(!asked.contains(&name), "{name} asked for twice");
                        let (_, bytes) = builtin_face_bytes()
                            .iter()
                            .find(|(n, _)| *n == name)
                            .unwrap();
                        partial.add_face(&name, Arc::clone(bytes)).unwrap();
                        asked.push(name);
                    }
                    Err(other) => panic!("{other}"),
                }
            };
            assert_eq!(layout, layout_text(&full, &request(&full)).unwrap());
            assert!(layout.font_substituted);
            assert!(asked.len() <= 2, "{asked:?}");
        }
        let unused = partial.resolve("mono", true, true).unwrap();
        assert_eq!(
            partial.loaded(unused).unwrap_err(),
            "liberation/LiberationMono-BoldItalic.ttf"
        );
        let err = partial.add_face("nope", Arc::from(&b""[..])).unwrap_err();
        assert!(err.0.contains("not in the catalogue"), "{err}");
    }
}
