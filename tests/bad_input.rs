//! Bad input on purpose. Each case checks the exact exit code (1 for input, simulation
//! and output errors, 2 for usage errors), that stderr names the file (and the prim and
//! attribute where there is one), that nothing panicked, that the input is
//! byte-identical afterwards and that no output appeared.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use common::{copy_scene, temp_dir, testdata, usdsim, Outcome};

/// Files in `dir`, to check that a failed run left nothing behind.
fn listing(dir: &Path) -> BTreeSet<PathBuf> {
    std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect()
}

/// Runs usdsim with `args` in a directory holding `input`, and checks the common
/// contract of a failed run. Returns the outcome for case-specific checks.
fn fails(code: i32, input: &Path, args: &[&str], mentions: &[&str]) -> Outcome {
    let dir = input.parent().unwrap();
    let before = std::fs::read(input).ok();
    let files_before = listing(dir);
    let mut all: Vec<&std::ffi::OsStr> = vec![input.as_os_str()];
    all.extend(args.iter().map(std::ffi::OsStr::new));
    let outcome = usdsim(all);
    assert_eq!(outcome.code, Some(code), "exit code for {input:?} {args:?}; stderr:\n{}", outcome.stderr);
    outcome.assert_no_panic();
    for needle in mentions {
        assert!(outcome.stderr.contains(needle), "stderr should mention {needle:?}:\n{}", outcome.stderr);
    }
    assert_eq!(std::fs::read(input).ok(), before, "the input changed");
    assert_eq!(listing(dir), files_before, "a failed run must not leave files behind");
    assert!(outcome.stdout.is_empty(), "errors go to stderr, stdout stays clean:\n{}", outcome.stdout);
    outcome
}

/// A copy of `scene` in a fresh temp dir with `from` replaced by `to`.
fn edited_scene(dir: &Path, scene: &str, name: &str, from: &str, to: &str) -> PathBuf {
    let text = std::fs::read_to_string(testdata(scene)).unwrap();
    assert!(text.contains(from), "{scene} no longer contains {from:?}; update this test");
    let path = dir.join(name);
    std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
    path
}

#[test]
fn missing_input_file_is_exit_1_naming_the_file() {
    let dir = temp_dir();
    let missing = dir.path().join("no_such_scene.usda");
    let outcome = usdsim([missing.as_os_str()]);
    assert_eq!(outcome.code, Some(1), "{}", outcome.stderr);
    outcome.assert_no_panic();
    assert!(outcome.stderr.contains("no_such_scene.usda"), "{}", outcome.stderr);
    assert!(listing(dir.path()).is_empty(), "nothing written");
}

#[test]
fn unparsable_file_is_exit_1_naming_the_file_and_line() {
    let dir = temp_dir();
    let input = dir.path().join("broken.usda");
    std::fs::write(&input, "#usda 1.0\ndef Xform \"World\" {\n    bogus bogus =\n").unwrap();
    fails(1, &input, &["--frames", "2"], &["broken.usda", "cannot open as a USD stage", ":3:"]);
}

#[test]
fn not_a_usd_file_is_exit_1_naming_the_file() {
    let dir = temp_dir();
    let input = dir.path().join("notes.usda");
    std::fs::write(&input, "these are not the droids\n").unwrap();
    fails(1, &input, &["--frames", "2"], &["notes.usda", "cannot open as a USD stage"]);
}

#[test]
fn stage_with_nothing_to_simulate_is_exit_1_with_db011() {
    let dir = temp_dir();
    let input = dir.path().join("static.usda");
    std::fs::write(
        &input,
        "#usda 1.0\n(\n    upAxis = \"Z\"\n)\n\ndef Xform \"World\"\n{\n    def Sphere \"Ball\" (\n        prepend apiSchemas = [\"PhysicsCollisionAPI\"]\n    )\n    {\n    }\n}\n",
    )
    .unwrap();
    let outcome = fails(1, &input, &["--frames", "2"], &["static.usda", "error[DB011]", "nothing to simulate"]);
    // Both schema spellings are named, and the fact is stated once (then one count line).
    assert!(
        outcome.stderr.contains("OmniPhysicsDeformableBodyAPI") && outcome.stderr.contains("PhysicsDeformableBodyAPI")
    );
    assert_eq!(outcome.stderr.matches("nothing to simulate").count(), 1, "{}", outcome.stderr);
}

#[test]
fn out_of_range_index_names_file_prim_and_attribute() {
    let dir = temp_dir();
    let input =
        edited_scene(dir.path(), "free_fall_z_up_meters.usda", "bad_index.usda", "(0, 1, 2, 3)", "(0, 1, 2, 7)");
    fails(1, &input, &["--frames", "2"], &["bad_index.usda", "/World/Tet.tetVertexIndices", "index 7"]);
}

#[test]
fn invalid_material_value_names_the_material_attribute() {
    let dir = temp_dir();
    let input = edited_scene(
        dir.path(),
        "free_fall_z_up_meters.usda",
        "bad_material.usda",
        "omniphysics:youngsModulus = 10000",
        "omniphysics:youngsModulus = -5",
    );
    fails(
        1,
        &input,
        &["--frames", "2"],
        &["bad_material.usda", "/World/Materials/Jelly.omniphysics:youngsModulus", "-5"],
    );
}

#[test]
fn output_onto_the_input_is_refused_and_the_input_survives() {
    let dir = temp_dir();
    let input = copy_scene("free_fall_z_up_meters.usda", dir.path());
    let same = input.to_str().unwrap();
    fails(4, &input, &["--frames", "2", "-o", same], &["free_fall_z_up_meters.usda", "overwrite the input"]);
    // The same file spelled differently is still the input.
    let dir_name = dir.path().file_name().unwrap().to_str().unwrap();
    let detour = dir.path().join(format!("../{dir_name}/./free_fall_z_up_meters.usda"));
    fails(4, &input, &["--frames", "2", "-o", detour.to_str().unwrap()], &["overwrite the input"]);
}

#[test]
fn unsupported_output_extension_is_exit_1_naming_the_output() {
    let dir = temp_dir();
    let input = copy_scene("free_fall_z_up_meters.usda", dir.path());
    let obj = dir.path().join("mesh.obj");
    fails(4, &input, &["--frames", "2", "-o", obj.to_str().unwrap()], &["mesh.obj", "unsupported output format"]);
}

#[test]
fn zero_frames_is_a_usage_error_exit_2() {
    let dir = temp_dir();
    let input = copy_scene("free_fall_z_up_meters.usda", dir.path());
    fails(2, &input, &["--frames", "0"], &["--frames"]);
}

#[test]
fn unknown_flag_is_a_usage_error_exit_2() {
    let dir = temp_dir();
    let input = copy_scene("free_fall_z_up_meters.usda", dir.path());
    fails(2, &input, &["--frame-count", "3"], &["--frame-count"]);
}

/// The output path is checked before simulating: a 240-frame run with a typo in `-o`
/// must not waste all of it.
#[test]
fn bad_output_path_is_refused_before_simulating() {
    let dir = temp_dir();
    let input = copy_scene("free_fall_z_up_meters.usda", dir.path());
    let obj = dir.path().join("mesh.obj");
    let outcome = fails(4, &input, &["--frames", "2", "-o", obj.to_str().unwrap()], &["mesh.obj"]);
    assert!(!outcome.stderr.contains("simulating"), "simulated before refusing the output:\n{}", outcome.stderr);
}
