//! The library crates' top-level modules form a stack: a module may use the modules
//! below it and never one above, so a newcomer can tell which module may know which
//! (docs/architecture.md draws both stacks). This test reads every source file of
//! `usdsim-usd` and `usdsim-core` and fails on any path (`crate::m`, or `super::`
//! chains that climb out of a top-level module) naming a module higher in its crate's
//! stack, or one the stack does not list.
//!
//! Comments and doc comments are not code and are not counted; nor are the unit tests
//! at the end of a file (from its `#[cfg(test)]` on), which may drive a whole pipeline.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// `usdsim-usd`, bottom first: errors, findings and the schema's names; the stage read
/// generically (and a bake's layers opened alone); the readers and
/// the validator; the map from the solver back to prims and the import pass; then the
/// outputs, `--resume`, `prepare` and the frame loop that drives them.
const USD_STACK: &[&str] = &[
    "error",
    "diagnostic",
    "schema",
    "stage",
    "read",
    "validate",
    "binding",
    "import",
    "preview_frames",
    "wedge_index",
    "export",
    "resume",
    "prepare",
    "baker",
];

/// `usdsim-core`, bottom first (the order its folders were built in).
const CORE_STACK: &[&str] =
    &["error", "scene", "mesh", "parallel", "rigid", "constraint", "model", "contact", "solver"];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file below `src/` (`export/mod.rs` is `[export]`).
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    if parts == ["lib"] {
        parts.clear();
    }
    parts
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The leading identifier of `s`.
fn ident(s: &str) -> &str {
    let end = s.find(|c: char| !is_ident(c)).unwrap_or(s.len());
    &s[..end]
}

/// The top-level modules one line of code names: `crate::m...`, and `super::` chains
/// resolved against `module` (inline modules of the file deepen it by `inline`).
fn named_modules(code: &str, module: &[String], inline: usize) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = code;
    let mut offset = 0;
    while let Some(at) = rest.find(['c', 's']) {
        let here = &rest[at..];
        let before = code[..offset + at].chars().last();
        let boundary = before.is_none_or(|c| !is_ident(c) && c != ':');
        let step = if boundary && here.starts_with("crate::") {
            found.push(ident(&here["crate::".len()..]).to_string());
            "crate::".len()
        } else if boundary && here.starts_with("super::") {
            let mut supers = 0;
            let mut tail = here;
            while let Some(t) = tail.strip_prefix("super::") {
                supers += 1;
                tail = t;
            }
            // A file d modules deep, inside `inline` inline modules, reaches the crate
            // root after d + inline `super`s; fewer stay inside its top-level module.
            if supers >= module.len() + inline {
                found.push(ident(tail).to_string());
            }
            here.len() - tail.len()
        } else {
            1
        };
        offset += at + step;
        rest = &code[offset..];
    }
    found.retain(|m| !m.is_empty());
    found
}

/// What `lib.rs` re-exports at the crate root, name by name, and from which top-level
/// module (`pub use solver::{Settings, Solver};`), so that `crate::Settings` counts as
/// a use of `solver`.
fn root_exports(src: &Path) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let code: String = text.lines().map(|l| l.split("//").next().unwrap_or_default()).collect::<Vec<_>>().join(" ");
    let mut exports = BTreeMap::new();
    for statement in code.split(';') {
        let Some(path) = statement.trim().strip_prefix("pub use ") else { continue };
        let module = ident(path.trim()).to_string();
        let names = path.rsplit("::").next().unwrap_or_default();
        for name in names.split(['{', '}', ',']) {
            // `a as b` is exported as `b`.
            if let Some(last) = name.split_whitespace().last() {
                exports.insert(last.to_string(), module.clone());
            }
        }
    }
    exports
}

/// Every `file:line: from -> to` that breaks `stack` in the crate at `src`.
fn violations(src: &Path, stack: &[&str]) -> (Vec<String>, BTreeSet<(String, String)>) {
    let exports = root_exports(src);
    let mut files = Vec::new();
    sources(src, &mut files);
    files.sort();
    let level = |m: &str| stack.iter().position(|s| *s == m);
    let mut bad = Vec::new();
    let mut edges = BTreeSet::new();
    for file in &files {
        let module = module_path(src, file);
        let Some(top) = module.first() else { continue };
        let Some(from) = level(top) else {
            bad.push(format!("{}: module `{top}` is not in the stack", file.display()));
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap();
        let mut inline = 0;
        for (n, line) in text.lines().enumerate() {
            if line.starts_with("#[cfg(test)]") {
                break;
            }
            let code = line.split("//").next().unwrap_or_default();
            let trimmed = code.trim_start();
            if (trimmed.starts_with("mod ")
                || trimmed.starts_with("pub mod ")
                || trimmed.starts_with("pub(crate) mod "))
                && trimmed.trim_end().ends_with('{')
            {
                inline += 1;
            }
            for to in named_modules(code, &module, inline) {
                let to = exports.get(&to).cloned().unwrap_or(to);
                if &to == top {
                    continue;
                }
                edges.insert((top.clone(), to.clone()));
                match level(&to) {
                    Some(l) if l < from => {}
                    Some(_) => {
                        bad.push(format!("{}:{}: `{top}` uses `{to}`, which is above it", file.display(), n + 1))
                    }
                    None => bad.push(format!("{}:{}: `{top}` uses `{to}`, not in the stack", file.display(), n + 1)),
                }
            }
        }
    }
    (bad, edges)
}

fn check(krate: &str, stack: &[&str]) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates").join(krate).join("src");
    let (bad, edges) = violations(&src, stack);
    assert!(bad.is_empty(), "{krate}'s modules are not a stack ({stack:?}, bottom first):\n{}", bad.join("\n"));
    // The check saw the crate: its top module uses several below it.
    assert!(edges.len() >= stack.len(), "{krate}: only {} uses between modules found: {edges:?}", edges.len());
}

#[test]
fn the_usd_crate_modules_are_a_stack() {
    check("usdsim-usd", USD_STACK);
}

#[test]
fn the_core_crate_modules_are_a_stack() {
    check("usdsim-core", CORE_STACK);
}

/// The parser finds what it must, so that the two checks above can fail.
#[test]
fn the_check_sees_crate_and_super_paths() {
    let read_body = ["read".to_string(), "body".to_string()];
    assert_eq!(named_modules("use crate::binding::{EmbeddedPrim, FaceTopology};", &read_body, 0), ["binding"]);
    assert_eq!(named_modules("let x = super::super::validate::Diagnostic::new();", &read_body, 0), ["validate"]);
    assert!(named_modules("use super::pose::Pose;", &read_body, 0).is_empty(), "a sibling in read/");
    assert!(named_modules("fn f(my_crate::x: u8)", &read_body, 0).is_empty(), "not a path of ours");
    let top = ["stage".to_string()];
    assert_eq!(named_modules("pub(crate) use super::validate::Severity;", &top, 0), ["validate"]);
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/usdsim-usd/src");
    let (_, edges) = violations(&src, USD_STACK);
    assert!(edges.contains(&("baker".to_string(), "export".to_string())), "{edges:?}");
    let core = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/usdsim-core/src");
    assert_eq!(root_exports(&core).get("Solver").map(String::as_str), Some("solver"));
}
