//! The validator against its example files: every file in `testdata/invalid/`
//! reports exactly the rule its name starts with (snapshots of the text report), every
//! rule has such a file, and the valid test scenes report no errors.

use std::path::{Path, PathBuf};

use usdsim_usd::validate::{validate, Severity, RULES};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn usda_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "usda") && !p.to_string_lossy().ends_with(".sim.usda"))
        .collect();
    files.sort();
    files
}

/// The report as text, with the machine-specific path replaced by a stable one.
fn normalised_report(path: &Path) -> String {
    let report = validate(path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    let name = path.file_name().unwrap().to_str().unwrap();
    report.text().replace(&path.display().to_string(), &format!("testdata/invalid/{name}"))
}

#[test]
fn every_invalid_file_matches_its_snapshot() {
    let files = usda_files(&repo().join("testdata/invalid"));
    assert!(!files.is_empty());
    for file in &files {
        let stem = file.file_stem().unwrap().to_str().unwrap();
        insta::assert_snapshot!(stem, normalised_report(file));
    }
}

#[test]
fn every_rule_has_an_example_file_that_reports_it_and_nothing_else() {
    let files = usda_files(&repo().join("testdata/invalid"));
    for rule in RULES {
        let file = files
            .iter()
            .find(|f| f.file_name().unwrap().to_str().unwrap().starts_with(rule.code))
            .unwrap_or_else(|| panic!("no example file for {} in testdata/invalid/", rule.code));
        let report = validate(file).unwrap();
        let codes: Vec<&str> = report.diagnostics.iter().map(|d| d.code).collect();
        assert!(codes.contains(&rule.code), "{} does not report {}: {codes:?}", file.display(), rule.code);
        assert!(codes.iter().all(|c| *c == rule.code), "{} reports other rules too: {codes:?}", file.display());
        let expected_pass = rule.severity == Severity::Warning;
        assert_eq!(report.passes(false), expected_pass, "{}", file.display());
    }
    assert_eq!(files.len(), RULES.len(), "one example file per rule, no strays");
}

#[test]
fn valid_test_scenes_have_no_errors() {
    for file in usda_files(&repo().join("testdata")) {
        let report = validate(&file).unwrap();
        assert_eq!(report.errors(), 0, "{}", report.text());
    }
}

#[test]
fn rule_codes_are_unique_and_sorted() {
    for pair in RULES.windows(2) {
        assert!(pair[0].code < pair[1].code, "{} then {}", pair[0].code, pair[1].code);
    }
}

#[test]
fn unreadable_and_unparsable_files_are_errors_not_reports() {
    let dir = tempfile::tempdir().unwrap();
    assert!(validate(&dir.path().join("missing.usda")).is_err());
    let broken = dir.path().join("broken.usda");
    std::fs::write(&broken, "#usda 1.0\ndef Xform \"World\" {\n    bogus bogus =\n").unwrap();
    assert!(validate(&broken).is_err());
}
