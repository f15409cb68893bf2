//! The host's layers, checked from its source: `app`, `cli` and `config` may use everything;
//! `http` uses `domain` and `infra`; `domain` uses `infra`; `infra` uses neither. And no two
//! files import each other, however indirectly (no import circle).
//!
//! An import is any `crate::` or `super::` path in a file (in `use` lines or in code), and a
//! child module named in its parent; each resolves to the file of the longest module path it
//! names. Comments are left out, so doc links do not count.
//!
//! And docs/architecture.md, where the next engineer looks a file up, names every source file
//! of the host and the engine, and says why each file over 600 lines is one file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Module = Vec<String>;

/// Every `.rs` file under `dir`, as (path relative to `host/src`, text).
fn sources(root: &Path, dir: &Path, out: &mut Vec<(PathBuf, String)>) {
    for entry in std::fs::read_dir(dir).expect("host/src is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            sources(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).expect("a source file is UTF-8");
            out.push((path.strip_prefix(root).unwrap().to_owned(), text));
        }
    }
}

/// The module a file defines: `domain/images/mod.rs` is `domain::images`.
fn module_of(file: &Path) -> Module {
    let mut parts: Module = file
        .with_extension("")
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

fn without_comments(text: &str) -> String {
    text.lines()
        .map(|line| line.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The paths a `use` tree names: `a::{b, c::{d, e}}` is `a::b`, `a::c::d`, `a::c::e`.
fn expand(prefix: &[String], tree: &str, out: &mut Vec<Module>) {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        let mut path = prefix.to_vec();
        path.extend(tree.split("::").map(|s| s.trim().to_owned()));
        out.push(path);
        return;
    };
    let mut head = prefix.to_vec();
    head.extend(
        tree[..open]
            .split("::")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned),
    );
    let body = &tree[open + 1..tree.rfind('}').expect("a closed use group")];
    let (mut depth, mut start) = (0, 0);
    for (i, c) in body.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                expand(&head, &body[start..i], out);
                start = i + 1;
            }
            _ => {}
        }
    }
    if !body[start..].trim().is_empty() {
        expand(&head, &body[start..], out);
    }
}

/// The paths after `keyword::` in code: `crate::domain::packs::load(` gives `domain::packs::load`.
fn inline_paths(text: &str, keyword: &str) -> Vec<Module> {
    let mut paths = Vec::new();
    let pattern = format!("{keyword}::");
    for (at, _) in text.match_indices(&pattern) {
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let rest = &text[at + pattern.len()..];
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(rest.len());
        let path: Module = rest[..end]
            .split("::")
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
        if !path.is_empty() {
            paths.push(path);
        }
    }
    paths
}

/// Every file each file imports.
fn imports() -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &root, &mut files);
    let by_module: BTreeMap<Module, PathBuf> = files
        .iter()
        .filter(|(file, _)| file != Path::new("main.rs"))
        .map(|(file, _)| (module_of(file), file.clone()))
        .collect();
    let resolve = |path: &[String]| {
        (1..=path.len())
            .rev()
            .find_map(|n| by_module.get(&path[..n]).cloned())
    };
    let mut graph = BTreeMap::new();
    for (file, text) in &files {
        let module = module_of(file);
        let parent = &module[..module.len().saturating_sub(1)];
        // A test module's `use super::*` is the file itself.
        let text = without_comments(text).replace("use super::*;", "");
        let mut paths = Vec::new();
        for (keyword, base) in [("use crate::", &[][..]), ("use super::", parent)] {
            for (at, _) in text.match_indices(keyword) {
                let before = text[..at].chars().next_back();
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                    continue;
                }
                let rest = &text[at + keyword.len()..];
                expand(
                    base,
                    &rest[..rest.find(';').unwrap_or(rest.len())],
                    &mut paths,
                );
            }
        }
        paths.extend(inline_paths(&text, "crate"));
        for path in inline_paths(&text, "super") {
            paths.push([parent, &path[..]].concat());
        }
        for line in text.lines() {
            let line = line.trim().strip_prefix("pub ").unwrap_or(line.trim());
            if let Some(child) = line.strip_prefix("mod ").and_then(|r| r.strip_suffix(';'))
                && text.contains(&format!("{child}::"))
            {
                paths.push([&module[..], &[child.to_owned()]].concat());
            }
        }
        let targets = paths
            .iter()
            .map(|p| {
                p.iter()
                    .filter(|s| *s != "self")
                    .cloned()
                    .collect::<Module>()
            })
            .filter_map(|p| resolve(&p))
            .filter(|target| target != file)
            .collect();
        graph.insert(file.clone(), targets);
    }
    graph
}

fn layer(file: &Path) -> (u8, &'static str) {
    match file.iter().next().and_then(|p| p.to_str()) {
        Some("infra") => (0, "infra"),
        Some("domain") => (1, "domain"),
        Some("http") => (2, "http"),
        _ => (3, "app"),
    }
}

#[test]
fn no_layer_imports_a_layer_above_it() {
    let mut upward = Vec::new();
    for (file, targets) in imports() {
        for target in targets {
            if layer(&target).0 > layer(&file).0 {
                upward.push(format!(
                    "{} ({}) imports {} ({})",
                    file.display(),
                    layer(&file).1,
                    target.display(),
                    layer(&target).1
                ));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "imports that run up the layers (infra < domain < http < app):\n{}",
        upward.join("\n")
    );
}

#[test]
fn no_files_import_each_other() {
    let graph = imports();
    // Tarjan's strongly connected components: any of more than one file is a circle.
    struct Search<'g> {
        graph: &'g BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        index: BTreeMap<&'g Path, usize>,
        low: BTreeMap<&'g Path, usize>,
        stack: Vec<&'g Path>,
        circles: Vec<Vec<&'g Path>>,
    }
    impl<'g> Search<'g> {
        fn visit(&mut self, file: &'g Path) {
            let number = self.index.len();
            self.index.insert(file, number);
            self.low.insert(file, number);
            self.stack.push(file);
            for target in &self.graph[file] {
                let target = target.as_path();
                if !self.index.contains_key(target) {
                    self.visit(target);
                    let low = self.low[file].min(self.low[target]);
                    self.low.insert(file, low);
                } else if self.stack.contains(&target) {
                    let low = self.low[file].min(self.index[target]);
                    self.low.insert(file, low);
                }
            }
            if self.low[file] == self.index[file] {
                let at = self.stack.iter().rposition(|f| *f == file).unwrap();
                let component = self.stack.split_off(at);
                if component.len() > 1 {
                    self.circles.push(component);
                }
            }
        }
    }
    let mut search = Search {
        graph: &graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        circles: Vec::new(),
    };
    for file in graph.keys() {
        if !search.index.contains_key(file.as_path()) {
            search.visit(file);
        }
    }
    let described: Vec<String> = search
        .circles
        .iter()
        .map(|circle| {
            let names: BTreeSet<&Path> = circle.iter().copied().collect();
            circle
                .iter()
                .map(|file| {
                    let into: Vec<String> = graph[*file]
                        .iter()
                        .filter(|t| names.contains(t.as_path()))
                        .map(|t| t.display().to_string())
                        .collect();
                    format!("  {} imports {}", file.display(), into.join(", "))
                })
                .collect::<Vec<_>>()
                .join("\n")
        })
        .collect();
    assert!(
        described.is_empty(),
        "import circles in host/src:\n{}",
        described.join("\n\n")
    );
}

#[test]
fn the_check_sees_imports_in_use_lines_code_and_child_modules() {
    let graph = imports();
    let imports_of = |file: &str| &graph[Path::new(file)];
    // A `use` group, an inline path and a child module named in its parent.
    assert!(imports_of("http/router.rs").contains(Path::new("http/pages/account.rs")));
    assert!(imports_of("http/rpc/mod.rs").contains(Path::new("http/rpc/packs.rs")));
    assert!(imports_of("domain/packs.rs").contains(Path::new("domain/images/retention.rs")));
    assert!(imports_of("domain/packs.rs").contains(Path::new("infra/store/mod.rs")));
}

/// Whether `doc` holds `name` as a word of its own (not the end of a longer name).
fn names(doc: &str, name: &str) -> bool {
    doc.match_indices(name).any(|(at, _)| {
        let before = doc[..at].chars().next_back();
        let after = doc[at + name.len()..].chars().next();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
            && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

/// The workspace and every `.rs` file of the host and the engine, as (path from the
/// workspace, path relative to its crate's `src`, text).
fn documented_sources() -> (PathBuf, Vec<(String, PathBuf, String)>) {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut all = Vec::new();
    for crate_src in ["host/src", "engine/src"] {
        let root = workspace.join(crate_src);
        let mut files = Vec::new();
        sources(&root, &root, &mut files);
        all.extend(
            files
                .into_iter()
                .map(|(file, text)| (format!("{crate_src}/{}", file.display()), file, text)),
        );
    }
    (workspace, all)
}

/// Every `.rs` file under `host/src` and `engine/src` is named in docs/architecture.md: a
/// `mod.rs` by its directory (`store/`), any other by its file name (`sqlite.rs`). A file added
/// without a word there fails here.
#[test]
fn the_architecture_doc_names_every_source_file() {
    let (workspace, files) = documented_sources();
    let doc = std::fs::read_to_string(workspace.join("docs/architecture.md")).unwrap();
    let mut unnamed = Vec::new();
    for (path, file, _) in files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let named = if name == "mod.rs" {
            let dir = file
                .parent()
                .unwrap()
                .file_name()
                .unwrap()
                .to_string_lossy();
            names(&doc, &format!("{dir}/"))
        } else {
            names(&doc, &name)
        };
        if !named {
            unnamed.push(path);
        }
    }
    assert!(
        unnamed.is_empty(),
        "not in docs/architecture.md: {unnamed:?}"
    );
    assert!(!names("contexts.rs", "text.rs") && names("(text.rs)", "text.rs"));
}

/// A source file over [`LONG_FILE_LINES`] lines is listed, with its reason, under "Files
/// over 600 lines" in docs/architecture.md, and every file listed there is still that long
/// (so the list says what is true today).
#[test]
fn every_long_source_file_has_its_reason_in_the_architecture_doc() {
    const LONG_FILE_LINES: usize = 600;
    let (workspace, files) = documented_sources();
    let doc = std::fs::read_to_string(workspace.join("docs/architecture.md")).unwrap();
    let section = doc
        .split("\n## Files over 600 lines\n")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("docs/architecture.md has a section \"Files over 600 lines\"");
    let listed: BTreeSet<String> = section
        .lines()
        .filter_map(|line| line.strip_prefix("| `")?.split('`').next())
        .map(str::to_owned)
        .collect();
    let long: BTreeSet<String> = files
        .into_iter()
        .filter(|(_, _, text)| text.lines().count() > LONG_FILE_LINES)
        .map(|(path, _, _)| path)
        .collect();
    let unexplained: Vec<_> = long.difference(&listed).collect();
    let no_longer_long: Vec<_> = listed.difference(&long).collect();
    assert!(
        unexplained.is_empty() && no_longer_long.is_empty(),
        "over {LONG_FILE_LINES} lines without a reason in docs/architecture.md: \
         {unexplained:?}; listed there but no longer that long: {no_longer_long:?}"
    );
    assert!(listed.len() >= 10, "the list is read: {listed:?}");
}
