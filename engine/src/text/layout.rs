//! Text layout: paragraphs shaped ([`super::shape`]), broken into lines at Unicode line break
//! opportunities (UAX #14, with dictionary word breaks for Thai, Lao, Khmer and Myanmar:
//! [`super::words`]) in logical order with greedy filling, never inside a cluster, then
//! each line put in display order (UAX #9) and its glyphs placed, all in millimetres.
//! Measuring and drawing both use [`layout_text`], so a measured text and a drawn text always
//! agree.

use unicode_bidi::Level;
use unicode_linebreak::{BreakOpportunity, linebreaks};

use super::error::{MAX_TEXT_CHARS, TextError};
use super::fonts::{FaceId, FontBook};
use super::shape::{Paragraph, covering_face, loaded, shape_paragraph};
use super::words::word_breaks;
use crate::model::FontSubstitution;

/// What to lay out.
#[derive(Debug, Clone, Copy)]
pub struct TextRequest<'a> {
    pub text: &'a str,
    pub face: FaceId,
    /// Em size in millimetres.
    pub size: f64,
    /// Wrap lines longer than this many millimetres (hard line breaks always apply).
    pub wrap_width: Option<f64>,
    pub substitution: FontSubstitution,
}

/// Laid-out text in millimetres; x from the start of each line.
#[derive(Debug, Clone, PartialEq)]
pub struct TextLayout {
    pub lines: Vec<Line>,
    /// Em size in millimetres.
    pub size: f64,
    /// Height of one line (ascender to descender plus line gap) of the requested face.
    pub line_height: f64,
    /// Baseline distance below the top of a line.
    pub ascent: f64,
    /// A character was set in a face other than the requested one.
    pub font_substituted: bool,
    /// Characters no face has, in order of first use (drawn as a missing-glyph box).
    pub missing: Vec<char>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// In display order, left to right.
    pub glyphs: Vec<PlacedGlyph>,
    /// Advance width without trailing white space.
    pub width: f64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlacedGlyph {
    pub face: FaceId,
    pub glyph: u16,
    /// From the start of the line, mm.
    pub x: f64,
    /// How far the glyph is raised above the baseline (mark positioning), mm.
    pub rise: f64,
    /// The text the glyph shows, as a byte range of the request's text: its cluster's bytes on
    /// the cluster's first glyph, an empty range on the others (a press file's text must copy
    /// and search as the text it shows).
    pub text: (u32, u32),
}

impl TextLayout {
    /// Width of the widest line.
    pub fn width(&self) -> f64 {
        self.lines.iter().map(|l| l.width).fold(0.0, f64::max)
    }

    /// Height of all lines at a line pitch of `leading` line heights.
    pub fn height(&self, leading: f64) -> f64 {
        self.lines.len() as f64 * self.line_height * leading
    }
}

pub fn layout_text(book: &FontBook, request: &TextRequest) -> Result<TextLayout, TextError> {
    let chars = request.text.chars().count();
    if chars > MAX_TEXT_CHARS {
        return Err(TextError::TooLong { chars });
    }
    if !(request.size.is_finite() && request.size > 0.0 && request.size <= 1000.0) {
        return Err(TextError::BadSize(format!(
            "font size must be more than 0 and at most 1000 mm, got {}",
            request.size
        )));
    }
    if let Some(width) = request.wrap_width
        && !(width.is_finite() && width > 0.0)
    {
        return Err(TextError::BadSize(format!(
            "wrapping width must be a positive number of millimetres, got {width}"
        )));
    }
    let primary = loaded(book, request.face)?;
    let scale = request.size / primary.units_per_em;
    let mut layout = TextLayout {
        lines: Vec::new(),
        size: request.size,
        line_height: primary.line_height() * request.size,
        ascent: primary.ascender * scale,
        font_substituted: false,
        missing: Vec::new(),
    };
    if request.text.is_empty() {
        return Ok(layout);
    }
    let fallbacks = book.fallback_faces(request.face);
    let whole_text_face = match request.substitution {
        FontSubstitution::AllLinesIfAnyNeeded => {
            Some(unit_face(book, request.face, fallbacks, request.text)?)
        }
        FontSubstitution::LineByLine => None,
    };
    let mut offset = 0;
    for paragraph in request.text.split('\n') {
        let start = offset;
        offset += paragraph.len() + 1;
        let paragraph = paragraph.strip_suffix('\r').unwrap_or(paragraph);
        let face = match whole_text_face {
            Some(face) => face,
            None => unit_face(book, request.face, fallbacks, paragraph)?,
        };
        let shaped = shape_paragraph(book, paragraph, face, fallbacks, request.size)?;
        layout.font_substituted |= shaped.substituted || face != request.face;
        for &c in &shaped.missing {
            if !layout.missing.contains(&c) {
                layout.missing.push(c);
            }
        }
        let clusters = 0..shaped.clusters.len();
        match request.wrap_width {
            None => layout.lines.push(make_line(&shaped, clusters, start)),
            Some(width) => {
                let words = word_breaks(book, paragraph)?;
                wrap(&shaped, &words, width, start, &mut layout.lines);
            }
        }
    }
    Ok(layout)
}

/// The face a unit of text is set in: the requested one if it has every character, else the
/// first fallback face that has them all, else the requested one (characters then fall back
/// cluster by cluster).
fn unit_face(
    book: &FontBook,
    primary: FaceId,
    fallbacks: &[FaceId],
    text: &str,
) -> Result<FaceId, TextError> {
    Ok(covering_face(book, text, primary, fallbacks)?.unwrap_or(primary))
}

/// Places clusters `range` of a paragraph (which starts at byte `offset` of the request's
/// text) as one line: trailing white space dropped, the rest in display order.
fn make_line(paragraph: &Paragraph, range: std::ops::Range<usize>, offset: usize) -> Line {
    let clusters = &paragraph.clusters;
    let end = clusters[range.clone()]
        .iter()
        .rposition(|c| !c.white_space)
        .map_or(range.start, |i| range.start + i + 1);
    let shown = range.start..end;
    let mut glyphs = Vec::with_capacity(shown.len());
    let mut x = 0.0;
    for index in display_order(paragraph, shown) {
        let cluster = &clusters[index];
        let text = (
            (offset + cluster.text.start) as u32,
            (offset + cluster.text.end) as u32,
        );
        for (n, glyph) in paragraph.glyphs[cluster.glyphs.clone()].iter().enumerate() {
            if !cluster.white_space {
                glyphs.push(PlacedGlyph {
                    face: glyph.face,
                    glyph: glyph.glyph,
                    x: x + glyph.dx,
                    rise: glyph.dy,
                    text: if n == 0 { text } else { (text.1, text.1) },
                });
            }
            x += glyph.advance;
        }
    }
    Line { glyphs, width: x }
}

/// The clusters of `range` in display order (left to right): each level run of the line (UAX
/// #9, rule L2) in order, a right-to-left one backwards.
fn display_order(paragraph: &Paragraph, range: std::ops::Range<usize>) -> Vec<usize> {
    let Some(bidi) = &paragraph.bidi else {
        return range.collect();
    };
    if range.is_empty() {
        return Vec::new();
    }
    let clusters = &paragraph.clusters;
    let bytes = clusters[range.start].text.start..clusters[range.end - 1].text.end;
    let (levels, runs) = bidi.visual_runs(bytes);
    let mut order = Vec::with_capacity(range.len());
    for run in runs {
        let level: Level = levels[run.start];
        let first =
            range.start + clusters[range.clone()].partition_point(|c| c.text.start < run.start);
        let last =
            range.start + clusters[range.clone()].partition_point(|c| c.text.start < run.end);
        if level.is_rtl() {
            order.extend((first..last).rev());
        } else {
            order.extend(first..last);
        }
    }
    order
}

/// Width of clusters `start..end` as one line (trailing white space excluded).
fn run_width(paragraph: &Paragraph, start: usize, end: usize) -> f64 {
    let clusters = &paragraph.clusters[start..end];
    let Some(last) = clusters.iter().rposition(|c| !c.white_space) else {
        return 0.0;
    };
    clusters[..=last].iter().map(|c| c.advance).sum()
}

/// Greedy line filling at UAX #14 break opportunities and the word breaks of `words` (byte
/// offsets, ascending: see [`word_breaks`]), in logical order; a segment wider than the line
/// is split between clusters.
fn wrap(paragraph: &Paragraph, words: &[usize], width: f64, offset: usize, lines: &mut Vec<Line>) {
    let clusters = &paragraph.clusters;
    // Break opportunities as cluster indices (linebreaks gives byte offsets); one inside a
    // cluster is none.
    let uax14 = linebreaks(paragraph.text)
        .filter(|&(_, kind)| {
            matches!(
                kind,
                BreakOpportunity::Allowed | BreakOpportunity::Mandatory
            )
        })
        .map(|(byte, _)| byte);
    let breaks: Vec<usize> = merged(uax14, words)
        .filter_map(|byte| {
            if byte >= paragraph.text.len() {
                return Some(clusters.len());
            }
            clusters.binary_search_by_key(&byte, |c| c.text.start).ok()
        })
        .collect();
    let mut start = 0;
    let mut fitted: Option<usize> = None;
    let mut next = 0;
    // A tolerance so that a text measured at width w wraps identically when laid out at w.
    let width = width + 1e-9;
    while next < breaks.len() {
        let end = breaks[next];
        if end <= start {
            next += 1;
            continue;
        }
        if run_width(paragraph, start, end) <= width {
            fitted = Some(end);
            next += 1;
            continue;
        }
        match fitted.take() {
            Some(fit) => {
                lines.push(make_line(paragraph, start..fit, offset));
                start = fit;
            }
            None => {
                // One segment wider than the line: as many clusters as fit, at least one.
                let mut fit = start + 1;
                while fit < end && run_width(paragraph, start, fit + 1) <= width {
                    fit += 1;
                }
                lines.push(make_line(paragraph, start..fit, offset));
                start = fit;
            }
        }
    }
    if start < clusters.len() || clusters.is_empty() {
        lines.push(make_line(paragraph, start..clusters.len(), offset));
    }
}

/// Two ascending sequences of offsets as one, each offset once.
fn merged<'a>(
    uax14: impl Iterator<Item = usize> + 'a,
    words: &'a [usize],
) -> impl Iterator<Item = usize> + 'a {
    let mut uax14 = uax14.peekable();
    let mut words = words.iter().copied().peekable();
    std::iter::from_fn(move || match (uax14.peek(), words.peek()) {
        (Some(&next), Some(&word)) if word < next => words.next(),
        (Some(&next), Some(&word)) if word == next => {
            words.next();
            uax14.next()
        }
        (Some(_), _) => uax14.next(),
        (None, _) => words.next(),
    })
}

#[cfg(all(test, feature = "builtin-fonts"))]
mod tests {
    use super::*;
    use crate::text::fonts::FontBook;
    use std::sync::LazyLock;

    static BOOK: LazyLock<FontBook> = LazyLock::new(FontBook::builtin);

    fn lay_out(text: &str, family: &str, size: f64, wrap: Option<f64>) -> TextLayout {
        let face = BOOK.resolve(family, false, false).unwrap();
        layout_text(
            &BOOK,
            &TextRequest {
                text,
                face,
                size,
                wrap_width: wrap,
                substitution: FontSubstitution::AllLinesIfAnyNeeded,
            },
        )
        .unwrap()
    }

    fn line_texts(text: &str, layout: &TextLayout) -> Vec<usize> {
        let _ = text;
        layout.lines.iter().map(|l| l.glyphs.len()).collect()
    }

    #[test]
    fn width_is_the_shaped_advances_scaled_to_the_size() {
        let sans = BOOK.face(BOOK.resolve("sans", false, false).unwrap());
        let a = sans.advance(sans.glyph('A').unwrap());
        let v = sans.advance(sans.glyph('V').unwrap());
        let layout = lay_out("AV", "sans", 10.0, None);
        // Kerned by the face's own tables: narrower than the two advances.
        assert!(layout.width() < (a + v) / sans.units_per_em * 10.0 - 1e-6);
        assert_eq!(layout.lines.len(), 1);
        assert!(!layout.font_substituted);
        // Doubling the size doubles the width.
        let double = lay_out("AV", "sans", 20.0, None);
        assert!((double.width() - 2.0 * layout.width()).abs() < 1e-9);
    }

    #[test]
    fn wraps_at_word_boundaries_and_drops_trailing_spaces() {
        let one_line = lay_out("alpha beta gamma", "sans", 4.0, None);
        let alpha_beta = lay_out("alpha beta", "sans", 4.0, None).width();
        let wrapped = lay_out("alpha beta gamma", "sans", 4.0, Some(alpha_beta + 0.01));
        assert_eq!(wrapped.lines.len(), 2);
        assert_eq!(line_texts("", &wrapped), [9, 5]);
        assert!((wrapped.lines[0].width - alpha_beta).abs() < 1e-9);
        assert!(wrapped.width() < one_line.width());
        // Exactly the measured width still fits.
        let exact = lay_out("alpha beta gamma", "sans", 4.0, Some(one_line.width()));
        assert_eq!(exact.lines.len(), 1);
        assert!((wrapped.height(1.5) - 2.0 * wrapped.line_height * 1.5).abs() < 1e-9);
    }

    #[test]
    fn a_word_longer_than_the_line_is_split_between_characters() {
        let layout = lay_out("incomprehensibilities", "sans", 4.0, Some(10.0));
        assert!(layout.lines.len() > 1);
        assert!(layout.lines.iter().all(|l| l.width <= 10.0 + 1e-9));
        let glyphs: usize = layout.lines.iter().map(|l| l.glyphs.len()).sum();
        assert_eq!(glyphs, "incomprehensibilities".len());
        // Even a line narrower than one character makes progress.
        let tiny = lay_out("abc", "sans", 4.0, Some(0.1));
        assert_eq!(tiny.lines.len(), 3);
    }

    #[test]
    fn hard_breaks_always_apply() {
        let layout = lay_out("one\ntwo\r\nthree", "serif", 3.0, None);
        assert_eq!(line_texts("", &layout), [3, 3, 5]);
        let empty_line = lay_out("a\n\nb", "serif", 3.0, Some(50.0));
        assert_eq!(empty_line.lines.len(), 3);
        assert_eq!(lay_out("", "serif", 3.0, None).lines.len(), 0);
    }

    #[test]
    fn a_missing_character_comes_from_a_fallback_face_and_is_reported() {
        // U+2620 (skull and crossbones) is in DejaVu Sans but not in Liberation Serif.
        let serif = BOOK.face(BOOK.resolve("serif", false, false).unwrap());
        assert!(serif.glyph('\u{2620}').is_none());
        let layout = lay_out("Ahoy \u{2620}", "serif", 4.0, None);
        assert!(layout.font_substituted);
        let sans = BOOK.resolve("dejavu sans", false, false).unwrap();
        // allLinesIfAnyNeeded: the whole text moves to the face that has every character.
        assert!(layout.lines[0].glyphs.iter().all(|g| g.face == sans));
        assert!(!lay_out("Ahoy", "serif", 4.0, None).font_substituted);
    }

    #[test]
    fn line_by_line_substitutes_only_the_lines_that_need_it() {
        let serif = BOOK.resolve("serif", false, false).unwrap();
        let sans = BOOK.resolve("dejavu sans", false, false).unwrap();
        let layout = layout_text(
            &BOOK,
            &TextRequest {
                text: "plain\nskull \u{2620}",
                face: serif,
                size: 4.0,
                wrap_width: None,
                substitution: FontSubstitution::LineByLine,
            },
        )
        .unwrap();
        assert!(layout.font_substituted);
        assert!(layout.lines[0].glyphs.iter().all(|g| g.face == serif));
        assert!(layout.lines[1].glyphs.iter().all(|g| g.face == sans));
    }

    /// The text each line shows, in display order (left to right), from the glyphs' clusters.
    fn shown(text: &str, layout: &TextLayout) -> Vec<String> {
        layout
            .lines
            .iter()
            .map(|line| {
                line.glyphs
                    .iter()
                    .map(|g| &text[g.text.0 as usize..g.text.1 as usize])
                    .collect()
            })
            .collect()
    }

    #[test]
    fn a_right_to_left_paragraph_breaks_in_logical_order_and_shows_right_to_left() {
        let text = "שלום עולם כרטיס ביקור";
        let one = lay_out(text, "sans", 4.0, None);
        // Display order is the logical order reversed (no space shows a glyph).
        let logical: String = text.split(' ').collect::<Vec<_>>().concat();
        let reversed: String = logical.chars().rev().collect();
        assert_eq!(shown(text, &one).concat(), reversed);
        // Wrapped, the first line holds the first words (logically), shown right to left.
        let width = lay_out("שלום עולם", "sans", 4.0, None).width() + 0.01;
        let wrapped = lay_out(text, "sans", 4.0, Some(width));
        let lines = shown(text, &wrapped);
        let reversed = |s: &str| s.chars().rev().collect::<String>();
        assert_eq!(
            lines,
            [reversed("שלוםעולם"), reversed("כרטיס"), reversed("ביקור")]
        );
        assert!(wrapped.lines.iter().all(|l| l.width <= width));
    }

    #[test]
    fn a_mixed_line_keeps_its_numbers_and_its_hebrew_word_in_their_own_order() {
        let text = "Tel +44 20 7946 0018 שלום";
        let layout = lay_out(text, "sans", 4.0, None);
        // A left-to-right paragraph (its first strong character is Latin): the number reads
        // left to right, and the Hebrew word right to left at the end.
        let expected = format!(
            "Tel+4420794600 18{}",
            "שלום".chars().rev().collect::<String>()
        )
        .replace(' ', "");
        assert_eq!(shown(text, &layout).concat(), expected);
        // A paragraph that starts with Hebrew is right to left: the Hebrew word shows at the
        // right, and each number, left to right itself, left of the one before it.
        let text = "שלום 20 7946";
        let layout = lay_out(text, "sans", 4.0, None);
        let shown = shown(text, &layout).concat();
        assert!(shown.starts_with("794620"), "{shown}");
        assert!(
            shown.ends_with(&"שלום".chars().rev().collect::<String>()),
            "{shown}"
        );
    }

    #[test]
    fn no_line_breaks_inside_a_cluster() {
        // A Devanagari word with conjuncts and a vowel sign that shows before its consonant,
        // in a box narrower than one character: every line starts at a cluster, never with a
        // vowel sign or a virama.
        let text = "क्षत्रियकिप्रेम";
        let layout = lay_out(text, "noto sans devanagari", 4.0, Some(0.1));
        assert!(layout.lines.len() > 3);
        let mut seen = String::new();
        for line in &layout.lines {
            let first = line.glyphs.iter().map(|g| g.text.0).min().unwrap() as usize;
            let c = text[first..].chars().next().unwrap();
            assert!(
                !matches!(c, '\u{093E}'..='\u{094D}'),
                "a line starts with {c:?}"
            );
            for glyph in &line.glyphs {
                seen.push_str(&text[glyph.text.0 as usize..glyph.text.1 as usize]);
            }
        }
        // Every character shows once, cluster by cluster.
        let mut sorted: Vec<char> = seen.chars().collect();
        let mut expected: Vec<char> = text.chars().collect();
        sorted.sort_unstable();
        expected.sort_unstable();
        assert_eq!(sorted, expected);
    }

    #[test]
    fn arabic_is_joined_and_narrower_than_its_letters_alone() {
        let joined = lay_out("سلام", "noto sans arabic", 10.0, None);
        let face = BOOK.face(BOOK.resolve("noto sans arabic", false, false).unwrap());
        let isolated: f64 = "سلام"
            .chars()
            .map(|c| face.advance(face.glyph(c).unwrap()))
            .sum::<f64>()
            / face.units_per_em
            * 10.0;
        assert!(
            joined.width() < isolated * 0.97,
            "{} vs {isolated}",
            joined.width()
        );
        // The joined forms are other glyphs than the isolated ones.
        let glyphs: Vec<u16> = joined.lines[0].glyphs.iter().map(|g| g.glyph).collect();
        assert!(
            glyphs
                .iter()
                .any(|&g| !"سلام".chars().any(|c| face.glyph(c) == Some(g)))
        );
    }

    #[test]
    fn a_character_no_face_has_is_reported_once() {
        let layout = lay_out("a\u{10FFFD}b\u{10FFFD}\u{E000}", "sans", 4.0, None);
        assert_eq!(layout.missing, ['\u{10FFFD}', '\u{E000}']);
        assert!(layout.font_substituted);
        assert!(lay_out("שלום 你好", "sans", 4.0, None).missing.is_empty());
    }

    #[test]
    fn hostile_text_gets_a_bounded_answer() {
        // Ten thousand combining marks on one base: one cluster, laid out, no panic.
        let marks = format!("a{}", "\u{0301}".repeat(MAX_TEXT_CHARS - 1));
        let layout = lay_out(&marks, "sans", 4.0, Some(20.0));
        assert_eq!(layout.lines.len(), 1);
        // Unbalanced and nested bidi controls reorder only within the text.
        for text in [
            "\u{202E}abc",
            "\u{2067}\u{2067}\u{2067}שלום",
            "\u{202B}\u{202D}\u{202A}x\u{202C}",
            "\u{2069}\u{202C}end",
        ] {
            let layout = lay_out(text, "sans", 4.0, Some(10.0));
            assert!(!layout.lines.is_empty(), "{text:?}");
        }
    }

    #[test]
    fn a_metric_clone_sets_lines_as_the_font_it_stands_in_for() {
        // Gelasio's own lines are 1.27 em; Georgia's, which it stands in for, 1.136 em.
        let georgia = lay_out("Georgia", "georgia", 10.0, None);
        assert!((georgia.line_height / 10.0 - (1878.0 + 449.0) / 2048.0).abs() < 1e-4);
        assert!((georgia.ascent / 10.0 - 1878.0 / 2048.0).abs() < 1e-4);
    }

    #[test]
    fn bounds_are_errors() {
        let face = BOOK.resolve("sans", false, false).unwrap();
        let long = "x".repeat(MAX_TEXT_CHARS + 1);
        let request = |text, size, wrap_width| TextRequest {
            text,
            face,
            size,
            wrap_width,
            substitution: FontSubstitution::LineByLine,
        };
        assert!(matches!(
            layout_text(&BOOK, &request(&long, 3.0, None)),
            Err(TextError::TooLong { .. })
        ));
        assert!(layout_text(&BOOK, &request("x", 0.0, None)).is_err());
        assert!(layout_text(&BOOK, &request("x", f64::NAN, None)).is_err());
        assert!(layout_text(&BOOK, &request("x", 3.0, Some(-1.0))).is_err());
    }
}
