//! Thai, Lao, Khmer and Myanmar lines break where ICU4X's dictionary line segmenter breaks
//! them (the independent reference: ICU's algorithm and data, not the engine's), in natural
//! sentences and in strings made to be hard: random letters, and sentences cut and joined.

use icu_segmenter::LineSegmenter;
use presspack_engine::model::FontSubstitution;
use presspack_engine::text::{
    FontBook, FontCatalogue, TextError, TextRequest, builtin_face_bytes, layout_text, word_breaks,
};
use std::sync::{Arc, LazyLock};
use unicode_linebreak::{BreakClass, break_property};

static BOOK: LazyLock<FontBook> = LazyLock::new(FontBook::builtin);

const SENTENCES: &[&str] = &[
    // Thai
    "ภาษาไทยเป็นภาษาราชการของประเทศไทย",
    "สวัสดีครับยินดีต้อนรับสู่ร้านพิมพ์ของเรา",
    "นามบัตรของคุณพร้อมพิมพ์แล้วกรุณาตรวจสอบชื่อและเบอร์โทรศัพท์",
    "กรุงเทพมหานครเป็นเมืองหลวงของประเทศไทย",
    // Lao
    "ພາສາລາວເປັນພາສາທາງການຂອງປະເທດລາວ",
    "ສະບາຍດີຍິນດີຕ້ອນຮັບ",
    // Khmer
    "ភាសាខ្មែរគឺជាភាសាផ្លូវការរបស់ប្រទេសកម្ពុជា",
    "សួស្តីសូមស្វាគមន៍មកកាន់ហាងរបស់យើង",
    // Myanmar
    "မြန်မာဘာသာစကားသည်မြန်မာနိုင်ငံ၏ရုံးသုံးဘာသာစကားဖြစ်သည်",
    "မင်္ဂလာပါကြိုဆိုပါတယ်",
    "မြန်မာစာမြန်မာစာမြန်မာစာ",
];

/// ICU4X's break positions strictly inside `text` that lie inside a run of SA characters
/// (where UAX #14 leaves breaking to a dictionary): the ones the engine's `word_breaks` finds.
fn icu_word_breaks(text: &str) -> Vec<usize> {
    LineSegmenter::new_dictionary()
        .segment_str(text)
        .filter(|&i| {
            i > 0
                && i < text.len()
                && text[..i].chars().next_back().is_some_and(is_sa)
                && text[i..].chars().next().is_some_and(is_sa)
        })
        .collect()
}

/// Line break class SA: the characters UAX #14 leaves to a dictionary.
fn is_sa(c: char) -> bool {
    break_property(u32::from(c)) == BreakClass::ComplexContext
}

fn assert_same(text: &str) {
    let ours = word_breaks(&BOOK, text).unwrap();
    assert_eq!(ours, icu_word_breaks(text), "{text:?}");
}

#[test]
fn sentences_break_between_the_words_icu_finds() {
    for sentence in SENTENCES {
        let breaks = word_breaks(&BOOK, sentence).unwrap();
        assert!(breaks.len() >= 2, "{sentence:?} has words: {breaks:?}");
        assert_same(sentence);
    }
}

/// A small deterministic generator, so a failure can be run again.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n
    }
}

#[test]
fn random_letters_and_spliced_sentences_break_as_icu_breaks_them() {
    let mut random = Lcg(54);
    let scripts: [(u32, u32); 4] = [
        (0x0E01, 0x0E3A),
        (0x0E81, 0x0EBC),
        (0x1780, 0x17D2),
        (0x1000, 0x103E),
    ];
    let mut cases = 0;
    for _ in 0..400 {
        let (low, high) = scripts[random.below(4)];
        let text: String = (0..1 + random.below(30))
            .filter_map(|_| char::from_u32(low + random.below((high - low + 1) as usize) as u32))
            .filter(|&c| is_sa(c))
            .collect();
        assert_same(&text);
        cases += 1;
    }
    // Sentences of one script cut at a random character and joined to another's tail, and
    // runs of several scripts side by side.
    for _ in 0..400 {
        let a: Vec<char> = SENTENCES[random.below(SENTENCES.len())].chars().collect();
        let b: Vec<char> = SENTENCES[random.below(SENTENCES.len())].chars().collect();
        let text: String = a[random.below(a.len())..]
            .iter()
            .chain(&b[..random.below(b.len())])
            .collect();
        assert_same(&text);
        cases += 1;
    }
    assert_eq!(cases, 800);
}

#[test]
fn other_text_and_the_edges_of_a_run_are_left_to_uax_14() {
    for text in ["", "Presspack prints cards", "Ünïcödé — 漢字かな", "ไทย."] {
        assert_same(text);
    }
    // Latin around a Thai run: no break at the run's ends from the dictionary.
    let text = "Tel ภาษาไทยเป็นภาษา 42";
    let start = text.find('ภ').unwrap();
    let breaks = word_breaks(&BOOK, text).unwrap();
    assert!(
        breaks.iter().all(|&i| i > start && i < text.len() - 3),
        "{breaks:?}"
    );
    assert_same(text);
}

/// The first byte of each line of `text` laid out at `width` mm.
fn line_starts(book: &FontBook, text: &str, width: f64) -> Result<Vec<u32>, TextError> {
    let layout = layout_text(
        book,
        &TextRequest {
            text,
            face: book.resolve("sans", false, false).unwrap(),
            size: 4.0,
            wrap_width: Some(width),
            substitution: FontSubstitution::LineByLine,
        },
    )?;
    Ok(layout
        .lines
        .iter()
        .map(|line| line.glyphs.iter().map(|g| g.text.0).min().unwrap())
        .collect())
}

#[test]
fn a_wrapped_thai_line_breaks_only_between_words() {
    let text = SENTENCES[2];
    let words = icu_word_breaks(text);
    let starts = line_starts(&BOOK, text, 25.0).unwrap();
    assert!(starts.len() >= 3, "{starts:?}");
    for &start in &starts[1..] {
        assert!(
            words.contains(&(start as usize)),
            "a line starts at {start}, inside a word: {words:?}"
        );
    }
}

/// A browser's engine holds no word list until a wrapped line needs one: it names the file,
/// as it names a face it lacks, and once given it lays out what the full engine does.
#[test]
fn a_partial_book_asks_for_the_word_list_a_wrapped_line_needs() {
    let catalogue = FontCatalogue::builtin();
    let faces: Vec<(String, Arc<[u8]>)> = builtin_face_bytes()
        .iter()
        .filter(|(name, _)| !name.ends_with(".dict"))
        .map(|(name, bytes)| ((*name).to_owned(), Arc::clone(bytes)))
        .collect();
    let mut book = FontBook::partial(&catalogue, faces).unwrap();
    let text = SENTENCES[0];
    // Unwrapped, no word list is needed.
    assert!(word_breaks(&book, "Latin only").unwrap().is_empty());
    assert_eq!(
        line_starts(&book, text, 20.0),
        Err(TextError::FaceNotLoaded("words/thai.dict".into()))
    );
    let (_, thai) = builtin_face_bytes()
        .iter()
        .find(|(name, _)| *name == "words/thai.dict")
        .unwrap();
    // A file that is not a trie is refused, naming it.
    let odd = book
        .add_face("words/thai.dict", Arc::from(&thai[..3]))
        .unwrap_err();
    assert!(odd.0.contains("words/thai.dict"), "{odd}");
    book.add_face("words/thai.dict", Arc::clone(thai)).unwrap();
    assert_eq!(
        line_starts(&book, text, 20.0),
        line_starts(&BOOK, text, 20.0)
    );
}

/// A damaged word list finds fewer words but never panics or loops.
#[test]
fn a_damaged_word_list_is_walked_safely() {
    let mut catalogue = FontCatalogue::builtin();
    catalogue.word_break.retain(|script, _| script == "thai");
    let mut random = Lcg(7);
    for _ in 0..50 {
        let bytes: Vec<u8> = (0..2 * (1 + random.below(500)))
            .map(|_| random.below(256) as u8)
            .collect();
        let faces = builtin_face_bytes()
            .iter()
            .filter(|(name, _)| !name.ends_with(".dict"))
            .map(|(name, bytes)| ((*name).to_owned(), Arc::clone(bytes)))
            .chain([("words/thai.dict".to_owned(), Arc::from(bytes))]);
        let book = FontBook::new(&catalogue, faces).unwrap();
        for sentence in &SENTENCES[..4] {
            let breaks = word_breaks(&book, sentence).unwrap();
            assert!(breaks.windows(2).all(|w| w[0] < w[1]), "{breaks:?}");
        }
    }
}

#[test]
fn a_catalogue_naming_an_unknown_script_is_refused_naming_it() {
    let mut catalogue = FontCatalogue::builtin();
    catalogue
        .word_break
        .insert("klingon".into(), "words/thai.dict".into());
    let faces = builtin_face_bytes()
        .iter()
        .map(|(name, bytes)| ((*name).to_owned(), Arc::clone(bytes)));
    let error = FontBook::new(&catalogue, faces).unwrap_err();
    assert!(error.0.contains("\"klingon\""), "{error}");
}
