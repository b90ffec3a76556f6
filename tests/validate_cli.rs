//! `usdsim validate` and validation before `usdsim run`: exit codes, text and JSON.

mod common;

use common::{temp_dir, testdata, usdsim};

fn invalid(name: &str) -> std::path::PathBuf {
    testdata(&format!("invalid/{name}"))
}

#[test]
fn clean_files_exit_0() {
    let outcome = usdsim([
        "validate".as_ref(),
        testdata("hanging_bar.usda").as_os_str(),
        testdata("cloth_on_sphere.usda").as_os_str(),
    ]);
    assert_eq!(outcome.code, Some(0), "{}{}", outcome.stdout, outcome.stderr);
    outcome.assert_no_panic();
    assert!(outcome.stdout.contains("hanging_bar.usda: ok"), "{}", outcome.stdout);
    assert!(outcome.stdout.contains("cloth_on_sphere.usda: ok"), "{}", outcome.stdout);
}

#[test]
fn errors_exit_1_naming_file_prim_attribute_and_expectation() {
    let file = invalid("DB102_index_out_of_range.usda");
    let outcome = usdsim(["validate".as_ref(), file.as_os_str()]);
    assert_eq!(outcome.code, Some(1), "{}", outcome.stdout);
    for needle in
        ["error[DB102]", "DB102_index_out_of_range.usda", "/World/Tet.tetVertexIndices", "index 7", "expected 0..=3"]
    {
        assert!(outcome.stdout.contains(needle), "missing {needle:?} in:\n{}", outcome.stdout);
    }
}

#[test]
fn warnings_pass_unless_strict() {
    let file = invalid("DB501_attribute_typo.usda");
    let outcome = usdsim(["validate".as_ref(), file.as_os_str()]);
    assert_eq!(outcome.code, Some(0), "{}", outcome.stdout);
    assert!(outcome.stdout.contains("did you mean omniphysics:youngsModulus?"), "{}", outcome.stdout);
    let strict = usdsim(["validate".as_ref(), "--strict".as_ref(), file.as_os_str()]);
    assert_eq!(strict.code, Some(1), "{}", strict.stdout);
}

#[test]
fn unreadable_file_exits_2_even_beside_failing_ones() {
    let dir = temp_dir();
    let missing = dir.path().join("nope.usda");
    let bad = invalid("DB301_zero_youngs_modulus.usda");
    let outcome = usdsim(["validate".as_ref(), bad.as_os_str(), missing.as_os_str()]);
    assert_eq!(outcome.code, Some(2), "{}{}", outcome.stdout, outcome.stderr);
    assert!(outcome.stderr.contains("nope.usda"), "{}", outcome.stderr);
    assert!(outcome.stdout.contains("DB301"), "the readable file is still reported:\n{}", outcome.stdout);
}

#[test]
fn json_report_lists_every_diagnostic() {
    let file = invalid("DB403_attachment_lengths.usda");
    let outcome =
        usdsim(["validate".as_ref(), "--json".as_ref(), file.as_os_str(), testdata("hanging_bar.usda").as_os_str()]);
    assert_eq!(outcome.code, Some(1));
    let value: serde_json::Value = serde_json::from_str(&outcome.stdout).expect("stdout is one JSON object");
    assert_eq!(value["status"], 1);
    let files = value["files"].as_array().unwrap();
    assert_eq!(files.len(), 2);
    assert_eq!(files[0]["errors"], 1);
    let d = &files[0]["diagnostics"][0];
    assert_eq!(d["code"], "DB403");
    assert_eq!(d["severity"], "error");
    assert_eq!(d["prim"], "/World/Pin");
    assert_eq!(d["property"], "omniphysics:localPositionsSrc1");
    assert_eq!(files[1]["errors"], 0);
}

#[test]
fn no_files_is_a_usage_error() {
    let outcome = usdsim(["validate"]);
    assert_eq!(outcome.code, Some(2));
}

#[test]
fn run_stops_on_validation_errors_and_writes_nothing() {
    let dir = temp_dir();
    let input = dir.path().join("bad.usda");
    std::fs::copy(invalid("DB106_inverted_tet.usda"), &input).unwrap();
    let outcome = usdsim([input.as_os_str(), "--frames".as_ref(), "1".as_ref()]);
    assert_eq!(outcome.code, Some(1), "{}", outcome.stderr);
    outcome.assert_no_panic();
    assert!(outcome.stderr.contains("error[DB106]"), "{}", outcome.stderr);
    assert!(outcome.stderr.contains("validation error"), "{}", outcome.stderr);
    assert!(!dir.path().join("bad.sim.usda").exists());
}

#[test]
fn run_prints_validation_warnings_and_continues() {
    let dir = temp_dir();
    let input = dir.path().join("typo.usda");
    std::fs::copy(invalid("DB501_attribute_typo.usda"), &input).unwrap();
    let outcome = usdsim([input.as_os_str(), "--frames".as_ref(), "1".as_ref()]);
    assert_eq!(outcome.code, Some(0), "{}", outcome.stderr);
    assert!(outcome.stderr.contains("warning[DB501]"), "{}", outcome.stderr);
    let quiet = usdsim([input.as_os_str(), "--frames".as_ref(), "1".as_ref(), "--quiet".as_ref()]);
    assert_eq!(quiet.code, Some(0));
    assert!(!quiet.stderr.contains("DB501"), "{}", quiet.stderr);
}

#[test]
fn usdsim_extension_values_fail_with_the_importers_wording() {
    let file = invalid("DB601_tear_ratio_one.usda");
    let outcome = usdsim(["validate".as_ref(), file.as_os_str()]);
    assert_eq!(outcome.code, Some(1), "{}", outcome.stdout);
    let sentence = "found 1; tearRatio must be 0 (never tears) or a stretch ratio above 1";
    for needle in ["error[DB601]", "/World/Jelly.usdsim:tearRatio", sentence] {
        assert!(outcome.stdout.contains(needle), "missing {needle:?} in:\n{}", outcome.stdout);
    }
    // The importer refuses the value with the validator's sentence (one range table).
    let dir = temp_dir();
    let input = dir.path().join("jelly.usda");
    std::fs::copy(&file, &input).unwrap();
    let run = usdsim([input.as_os_str(), "--frames".as_ref(), "1".as_ref()]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(run.stderr.contains(sentence), "missing {sentence:?} in:\n{}", run.stderr);
}

#[test]
fn usdsim_typos_get_a_did_you_mean() {
    let dir = temp_dir();
    let input = dir.path().join("typo.usda");
    let text = std::fs::read_to_string(invalid("DB601_tear_ratio_one.usda"))
        .unwrap()
        .replace("usdsim:tearRatio = 1", "usdsim:tearRatoi = 1.8");
    std::fs::write(&input, text).unwrap();
    let outcome = usdsim(["validate".as_ref(), input.as_os_str()]);
    assert_eq!(outcome.code, Some(0), "{}", outcome.stdout);
    assert!(outcome.stdout.contains("warning[DB501]"), "{}", outcome.stdout);
    assert!(outcome.stdout.contains("did you mean usdsim:tearRatio?"), "{}", outcome.stdout);
}

#[test]
fn simulation_owner_and_material_subset_rules_reach_the_cli() {
    let outcome = usdsim([
        "validate".as_ref(),
        "--json".as_ref(),
        invalid("DB009_owner_not_a_scene.usda").as_os_str(),
        invalid("DB308_subsets_overlap.usda").as_os_str(),
    ]);
    assert_eq!(outcome.code, Some(1), "{}", outcome.stdout);
    let value: serde_json::Value = serde_json::from_str(&outcome.stdout).expect("stdout is one JSON object");
    let files = value["files"].as_array().unwrap();
    assert_eq!(files[0]["diagnostics"][0]["code"], "DB009");
    assert_eq!(files[0]["diagnostics"][0]["property"], "omniphysics:simulationOwner");
    assert_eq!(files[1]["errors"], 0);
    assert_eq!(files[1]["diagnostics"][0]["code"], "DB308");
    assert_eq!(files[1]["diagnostics"][0]["prim"], "/World/Tet/Hard");
}
