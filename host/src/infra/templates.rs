//! Templates: the XML files of `assets/templates/` (embedded in the binary) plus an operator's
//! `PRESSPACK_TEMPLATES_DIR`, each parsed by the engine's template parser at start-up: a
//! broken file stops start-up with a message naming it.

use std::collections::BTreeMap;
use std::path::Path;

use presspack_engine::model::{MAX_TEMPLATE_BYTES, Template};

/// `(file name, XML)` of every built-in template.
const BUILTIN: &[(&str, &str)] = presspack_assets::TEMPLATES;

/// One template: its XML as served, and the parsed form.
pub struct TemplateEntry {
    pub xml: String,
    pub template: Template,
}

pub struct Templates {
    by_code: BTreeMap<String, TemplateEntry>,
}

#[derive(Debug, thiserror::Error)]
#[error("template {file}: {message}")]
pub struct TemplatesError {
    file: String,
    message: String,
}

impl Templates {
    /// The built-in templates, then those of `dir` (which may replace a built-in one).
    pub fn load(dir: Option<&Path>) -> Result<Templates, TemplatesError> {
        let mut templates = Templates {
            by_code: BTreeMap::new(),
        };
        for (name, xml) in BUILTIN {
            templates.add(&format!("assets/templates/{name}"), name, xml.to_string())?;
        }
        if let Some(dir) = dir {
            let error = |message: String| TemplatesError {
                file: dir.display().to_string(),
                message,
            };
            let mut paths: Vec<_> = std::fs::read_dir(dir)
                .map_err(|e| error(e.to_string()))?
                .filter_map(|entry| entry.ok().map(|e| e.path()))
                .filter(|path| path.extension().is_some_and(|ext| ext == "xml"))
                .collect();
            paths.sort();
            for path in paths {
                let file = path.display().to_string();
                let bad = |message: String| TemplatesError {
                    file: file.clone(),
                    message,
                };
                let size = std::fs::metadata(&path)
                    .map_err(|e| bad(e.to_string()))?
                    .len();
                if size > MAX_TEMPLATE_BYTES as u64 {
                    return Err(bad(format!(
                        "{size} bytes is more than {MAX_TEMPLATE_BYTES}"
                    )));
                }
                let xml = std::fs::read_to_string(&path).map_err(|e| bad(e.to_string()))?;
                let name = path.file_name().unwrap_or_default().to_string_lossy();
                templates.add(&file, &name, xml)?;
            }
        }
        Ok(templates)
    }

    fn add(&mut self, file: &str, name: &str, xml: String) -> Result<(), TemplatesError> {
        let bad = |message: String| TemplatesError {
            file: file.to_owned(),
            message,
        };
        let template = Template::parse(&xml).map_err(|e| bad(e.to_string()))?;
        if name.strip_suffix(".xml") != Some(template.code.as_str()) {
            return Err(bad(format!(
                "the file of template {:?} must be named {:?}",
                template.code,
                format!("{}.xml", template.code)
            )));
        }
        self.by_code
            .insert(template.code.clone(), TemplateEntry { xml, template });
        Ok(())
    }

    pub fn get(&self, code: &str) -> Option<&TemplateEntry> {
        self.by_code.get(code)
    }

    pub fn codes(&self) -> impl Iterator<Item = &str> {
        self.by_code.keys().map(String::as_str)
    }

    /// Every template's XML, for the engine instances.
    pub fn documents(&self) -> Vec<String> {
        self.by_code.values().map(|t| t.xml.clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BUILT_IN: &str = "minicard_full_image_landscape";

    #[test]
    fn an_operators_directory_adds_and_replaces_templates() {
        let dir = tempfile::tempdir().unwrap();
        let original = &Templates::load(None)
            .unwrap()
            .get(BUILT_IN)
            .unwrap()
            .xml
            .clone();
        let added = original.replace(BUILT_IN, "house_style");
        std::fs::write(dir.path().join("house_style.xml"), &added).unwrap();
        let replaced = original.replace("<Red>255</Red>", "<Red>250</Red>");
        std::fs::write(dir.path().join(format!("{BUILT_IN}.xml")), &replaced).unwrap();
        std::fs::write(dir.path().join("notes.txt"), "not a template").unwrap();
        let templates = Templates::load(Some(dir.path())).unwrap();
        assert_eq!(templates.get("house_style").unwrap().xml, added);
        assert_eq!(templates.get(BUILT_IN).unwrap().xml, replaced);
        assert_eq!(templates.codes().count(), 31);
    }

    #[test]
    fn a_broken_template_stops_loading_naming_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let xml = Templates::load(None)
            .unwrap()
            .get(BUILT_IN)
            .unwrap()
            .xml
            .clone();
        let broken = dir.path().join("broken.xml");
        std::fs::write(
            &broken,
            xml.replace(BUILT_IN, "broken")
                .replace("<Width>74</Width>", "<Width>-1</Width>"),
        )
        .unwrap();
        let error = Templates::load(Some(dir.path())).err().unwrap().to_string();
        assert!(
            error.contains("broken.xml") && error.contains("Width"),
            "{error}"
        );
        // A file must be named after its code.
        std::fs::write(&broken, &xml).unwrap();
        let error = Templates::load(Some(dir.path())).err().unwrap().to_string();
        assert!(error.contains("must be named"), "{error}");
    }
}
