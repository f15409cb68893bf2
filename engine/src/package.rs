//! The file layout of the engine's npm package: `fonts/`, `templates/` and `assets.js`
//! naming them. `tools/npm` writes it into the package and the host serves the same layout
//! for its own pages, so one module loader works with both.

/// The file a face or word list is kept under: its catalogue name, a built-in face's with
/// `.ttf` added (`dejavu:sans-bold` -> `dejavu-sans-bold.ttf`).
pub fn face_file(name: &str) -> String {
    let stem = name.replace(':', "-");
    if [".ttf", ".otf", ".dict"]
        .iter()
        .any(|ext| stem.ends_with(ext))
    {
        stem
    } else {
        format!("{stem}.ttf")
    }
}

/// The engine's wasm module, beside `index.js`.
pub const WASM_FILE: &str = "presspack_engine_bg.wasm";

/// `assets.js`: the URLs of the engine's wasm, of the font catalogue, of every face in
/// `faces` and of every template in `template_codes`, as literal `new URL("./…",
/// import.meta.url)` expressions, which bundlers such as Vite follow and copy. `version`
/// gives a suffix for each relative path (a server's `?v=` content hash, or nothing).
pub fn assets_module<'a>(
    faces: impl IntoIterator<Item = &'a str>,
    template_codes: impl IntoIterator<Item = &'a str>,
    version: impl Fn(&str) -> String,
) -> String {
    let url = |path: String| {
        let versioned = format!("{path}{}", version(&path));
        format!(
            "new URL({}, import.meta.url)",
            serde_json::Value::from(versioned)
        )
    };
    let mut module = format!(
        "// The package's wasm, fonts and templates as URLs a bundler can follow.\n\
         export const wasmUrl = {};\n\
         export const catalogueUrl = {};\n\
         export const faceUrls = {{\n",
        url(format!("./{WASM_FILE}")),
        url("./fonts/catalogue.json".to_owned())
    );
    for name in faces {
        let path = format!("./fonts/{}", face_file(name));
        module.push_str(&format!(
            "  {}: {},\n",
            serde_json::Value::from(name),
            url(path)
        ));
    }
    module.push_str("};\nexport const templateUrls = {\n");
    for code in template_codes {
        let path = format!("./templates/{code}.xml");
        module.push_str(&format!(
            "  {}: {},\n",
            serde_json::Value::from(code),
            url(path)
        ));
    }
    module.push_str("};\n");
    module
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assets_name_every_face_and_template_by_a_literal_url() {
        let module = assets_module(
            ["dejavu:sans", "brand.otf"],
            ["businesscard_full_image_landscape"],
            |_| String::new(),
        );
        assert!(module.contains(
            "  \"dejavu:sans\": new URL(\"./fonts/dejavu-sans.ttf\", import.meta.url),\n"
        ));
        assert!(
            module.contains("  \"brand.otf\": new URL(\"./fonts/brand.otf\", import.meta.url),\n")
        );
        assert!(module.contains(
            "  \"businesscard_full_image_landscape\": \
             new URL(\"./templates/businesscard_full_image_landscape.xml\", import.meta.url),\n"
        ));
        assert!(module.contains(
            "export const wasmUrl = new URL(\"./presspack_engine_bg.wasm\", import.meta.url);\n"
        ));
        let versioned = assets_module(["dejavu:sans"], [], |path| format!("?v={}", path.len()));
        assert!(versioned.contains("new URL(\"./fonts/dejavu-sans.ttf?v=23\", import.meta.url)"));
    }
}
