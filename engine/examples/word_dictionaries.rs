//! Writes `fonts/words/*.dict`: the word lists the engine breaks Thai, Lao, Khmer and Myanmar
//! lines with, as ICU's tries (UCharsTrie, little-endian 16-bit units), taken unchanged from
//! ICU4X's compiled data (`icu_segmenter_data` 1.5, the "extended" word and line
//! dictionaries, built from ICU's own; Unicode License v3, `fonts/words/LICENSE`).
//!
//! `cargo run -p presspack-engine --example word_dictionaries`; the output is the same on
//! every run.

use icu_locid::{LanguageIdentifier, langid};
use icu_provider::{DataProvider, DataRequest};
use icu_segmenter::provider::{Baked, DictionaryForWordLineExtendedV1Marker};
use std::path::Path;

fn main() {
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fonts/words");
    std::fs::create_dir_all(&out).expect("fonts/words");
    let languages: [(&str, LanguageIdentifier); 4] = [
        ("thai", langid!("th")),
        ("lao", langid!("lo")),
        ("khmer", langid!("km")),
        ("myanmar", langid!("my")),
    ];
    for (script, language) in languages {
        let response = DataProvider::<DictionaryForWordLineExtendedV1Marker>::load(
            &Baked,
            DataRequest {
                locale: &language.into(),
                metadata: Default::default(),
            },
        )
        .unwrap_or_else(|e| panic!("{script}: {e}"));
        let payload = response.take_payload().expect("a dictionary");
        let bytes = payload.get().trie_data.as_bytes();
        let path = out.join(format!("{script}.dict"));
        std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        println!("{}: {} bytes", path.display(), bytes.len());
    }
}
