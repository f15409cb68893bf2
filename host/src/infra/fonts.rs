//! The fonts the engine gets: the built-in catalogue and DejaVu faces, plus an operator's
//! families from a fonts directory (`catalogue.json` in the format of `fonts/catalogue.json`,
//! whose face names are file names in that directory).

use std::path::Path;
use std::sync::Arc;

use presspack_engine::text::{FontBook, FontCatalogue, MAX_FACE_BYTES, builtin_face_bytes};
use presspack_engine::wire::init_frame;

/// A font catalogue with the bytes of every face it names.
pub struct Fonts {
    pub catalogue: FontCatalogue,
    pub faces: Vec<(String, Arc<[u8]>)>,
}

#[derive(Debug, thiserror::Error)]
#[error("fonts: {0}")]
pub struct FontsError(String);

impl Fonts {
    /// The built-in fonts, plus those of `dir` when given. Every face is checked by building
    /// a font book, so a bad font stops start-up rather than a render.
    pub fn load(dir: Option<&Path>) -> Result<Fonts, FontsError> {
        let mut catalogue = FontCatalogue::builtin();
        let mut faces: Vec<(String, Arc<[u8]>)> = builtin_face_bytes()
            .iter()
            .map(|(name, bytes)| ((*name).to_owned(), Arc::clone(bytes)))
            .collect();
        if let Some(dir) = dir {
            let path = dir.join("catalogue.json");
            let text = std::fs::read_to_string(&path)
                .map_err(|e| FontsError(format!("{}: {e}", path.display())))?;
            let extra = FontCatalogue::parse(&text)
                .map_err(|e| FontsError(format!("{}: {e}", path.display())))?;
            for name in extra.file_names() {
                if name.starts_with("dejavu:") {
                    continue;
                }
                if name.contains(['/', '\\']) || name.starts_with('.') {
                    return Err(FontsError(format!(
                        "{}: face {name:?} must be a plain file name in {}",
                        path.display(),
                        dir.display()
                    )));
                }
                let file = dir.join(&name);
                let size = std::fs::metadata(&file)
                    .map_err(|e| FontsError(format!("{}: {e}", file.display())))?
                    .len();
                if size > MAX_FACE_BYTES as u64 {
                    return Err(FontsError(format!(
                        "{}: {size} bytes is more than {MAX_FACE_BYTES}",
                        file.display()
                    )));
                }
                let bytes = std::fs::read(&file)
                    .map_err(|e| FontsError(format!("{}: {e}", file.display())))?;
                faces.push((name, Arc::from(bytes)));
            }
            catalogue.extend(extra);
        }
        FontBook::new(&catalogue, faces.iter().cloned()).map_err(|e| FontsError(e.0))?;
        Ok(Fonts { catalogue, faces })
    }

    /// The engine's `Init` frame for these fonts.
    pub fn init_frame(&self) -> Vec<u8> {
        init_frame(&self.catalogue, &self.faces)
    }

    /// The most memory an engine instance takes for these fonts: the faces twice, as the
    /// setup frame and as the faces read from it.
    pub fn guest_bytes(&self) -> usize {
        2 * self
            .faces
            .iter()
            .map(|(_, bytes)| bytes.len())
            .sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use presspack_engine::text::FontBook;

    #[test]
    fn an_operators_directory_adds_families_and_aliases() {
        let dir = tempfile::tempdir().unwrap();
        // Any TrueType file will do; a built-in face under a new name stands in for one.
        let (_, bytes) = &builtin_face_bytes()[4];
        std::fs::write(dir.path().join("house.ttf"), bytes).unwrap();
        std::fs::write(
            dir.path().join("catalogue.json"),
            r#"{"families": {"house": {"regular": "house.ttf"}}, "aliases": {"brand": "house"}}"#,
        )
        .unwrap();
        let fonts = Fonts::load(Some(dir.path())).unwrap();
        let book = FontBook::new(&fonts.catalogue, fonts.faces.iter().cloned()).unwrap();
        let face = book.resolve("Brand", true, false).unwrap();
        // No bold face: the regular one, not a synthetic bold.
        assert_eq!(book.face(face).name, "house.ttf");
        assert!(book.resolve("helvetica", false, false).is_ok());
        assert!(!fonts.init_frame().is_empty());
    }

    #[test]
    fn a_missing_or_escaping_face_file_stops_loading() {
        let dir = tempfile::tempdir().unwrap();
        let catalogue = dir.path().join("catalogue.json");
        std::fs::write(
            &catalogue,
            r#"{"families": {"x": {"regular": "missing.ttf"}}}"#,
        )
        .unwrap();
        let err = Fonts::load(Some(dir.path())).err().unwrap();
        assert!(err.to_string().contains("missing.ttf"), "{err}");
        std::fs::write(
            &catalogue,
            r#"{"families": {"x": {"regular": "../etc/passwd"}}}"#,
        )
        .unwrap();
        let err = Fonts::load(Some(dir.path())).err().unwrap();
        assert!(err.to_string().contains("plain file name"), "{err}");
        std::fs::write(dir.path().join("bad.ttf"), b"not a font").unwrap();
        std::fs::write(&catalogue, r#"{"families": {"x": {"regular": "bad.ttf"}}}"#).unwrap();
        assert!(Fonts::load(Some(dir.path())).is_err());
    }

    #[test]
    fn a_family_of_an_unknown_kind_stops_loading_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let (_, bytes) = &builtin_face_bytes()[4];
        std::fs::write(dir.path().join("house.ttf"), bytes).unwrap();
        std::fs::write(
            dir.path().join("catalogue.json"),
            r#"{"families": {"house": {"kind": "fancy", "regular": "house.ttf"}}}"#,
        )
        .unwrap();
        let err = Fonts::load(Some(dir.path())).err().unwrap().to_string();
        assert!(
            err.contains("fancy") && err.contains("catalogue.json"),
            "{err}"
        );
    }

    #[test]
    fn an_operators_word_list_replaces_the_built_in_one_and_a_bad_one_stops_loading() {
        let dir = tempfile::tempdir().unwrap();
        let (_, thai) = builtin_face_bytes()
            .iter()
            .find(|(name, _)| *name == "words/thai.dict")
            .unwrap();
        std::fs::write(dir.path().join("house-thai.dict"), thai).unwrap();
        let catalogue = dir.path().join("catalogue.json");
        std::fs::write(
            &catalogue,
            r#"{"families": {}, "wordBreak": {"thai": "house-thai.dict"}}"#,
        )
        .unwrap();
        let fonts = Fonts::load(Some(dir.path())).unwrap();
        assert_eq!(fonts.catalogue.word_break["thai"], "house-thai.dict");
        assert!(
            fonts
                .faces
                .iter()
                .any(|(name, _)| name == "house-thai.dict")
        );
        // Not a trie of 16-bit units: refused at start-up, naming the file.
        std::fs::write(dir.path().join("house-thai.dict"), b"odd").unwrap();
        let err = Fonts::load(Some(dir.path())).err().unwrap().to_string();
        assert!(err.contains("house-thai.dict"), "{err}");
        // A script without word lists: refused, naming it.
        std::fs::write(
            &catalogue,
            r#"{"families": {}, "wordBreak": {"tamil": "house-thai.dict"}}"#,
        )
        .unwrap();
        let err = Fonts::load(Some(dir.path())).err().unwrap().to_string();
        assert!(err.contains("\"tamil\""), "{err}");
    }
}
