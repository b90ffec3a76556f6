//! Pixar's own validators (`UsdValidation`, every validator usd-core registers) must find
//! nothing in a bake that they do not already find in its input: a bake that declares
//! an attribute with another type than the input (`AttributeTypeMismatch`), breaks
//! composition or drops required stage metadata fails here. Every scene of `testdata/`
//! is baked for a few frames. Skipped with a note without usd-core, except under CI.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{bake, temp_dir};

/// `(validator, sites)` of each finding, per stage; the message is kept for the report
/// but not compared, since it names the layer that holds the opinion.
type Findings = BTreeMap<String, Vec<(String, Vec<String>, String)>>;

fn validate(python: &Path, paths: &[PathBuf]) -> Findings {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pxr_validators.py");
    let out = Command::new(python).arg(script).args(paths).output().expect("cannot run python3");
    assert!(out.status.success(), "pxr_validators.py failed:\n{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("pxr_validators.py printed no JSON")
}

#[test]
fn bakes_of_every_testdata_scene_add_no_pixar_validator_findings() {
    let Some(python) = common::pxr::python("Pixar's validators") else { return };
    let testdata = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(&testdata)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "usda") && !p.to_string_lossy().contains(".sim."))
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 10, "expected the testdata scenes, found {inputs:?}");
    let dir = temp_dir();
    let mut bakes = Vec::new();
    for input in &inputs {
        let output = dir.path().join(input.file_name().unwrap()).with_extension("bake.usda");
        bake(input, &output, &["--frames", "2", "--substeps", "2"]);
        bakes.push(output);
    }
    let all: Vec<PathBuf> = inputs.iter().chain(&bakes).cloned().collect();
    let findings = validate(&python, &all);
    let key = |p: &Path| p.to_string_lossy().into_owned();
    let mut new = Vec::new();
    for (input, bake) in inputs.iter().zip(&bakes) {
        let before: Vec<_> = findings[&key(input)].iter().map(|(name, sites, _)| (name, sites)).collect();
        for (name, sites, message) in &findings[&key(bake)] {
            if !before.contains(&(name, sites)) {
                new.push(format!("{}: {name} at {sites:?}: {message}", bake.display()));
            }
        }
    }
    assert!(new.is_empty(), "the bakes add findings of Pixar's validators:\n{}", new.join("\n"));
    common::pxr::note(&format!("checked: Pixar's validators find nothing new in the bakes of {} scenes", inputs.len()));
}
