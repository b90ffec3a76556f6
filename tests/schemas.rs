//! Our schema definitions (`schemas/`) against Pixar's USD and the reference schema in
//! `../shared/corpus/schema-reference/`: registration, property names, types, fallbacks,
//! variability, and the corpus's OmniPhysics scenes resolving through our plugin (see
//! `tests/schema_check.py`). Skipped with a note without usd-core, except under CI.

mod common;

use std::path::Path;
use std::process::Command;

#[test]
fn our_schema_registers_with_pixar_usd_and_matches_the_reference() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let Some(python) = common::pxr::python("the schema check") else { return };
    let corpus = root.join("../shared/corpus");
    let reference = corpus.join("schema-reference/omniUsdPhysicsDeformableSchema/generatedSchema.release-110.0.usda");
    if !reference.exists() {
        eprintln!("note: {} not found; skipping the comparison with the reference schema", reference.display());
        return;
    }
    let scenes: Vec<_> = std::fs::read_dir(corpus.join("physx-ovphysx"))
        .expect("corpus directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "usda"))
        .collect();
    let out = Command::new(&python)
        .arg(root.join("tests/schema_check.py"))
        .arg(root)
        .arg(&reference)
        .args(&scenes)
        .output()
        .expect("run python3");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "schema check failed:\n{text}");
    assert!(text.contains("schema check: 0 failures"), "{text}");
    common::pxr::note("checked: our schema plugins register with Pixar's USD and match the reference schema");
}
