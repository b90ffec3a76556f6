//! `-o` never overwrites a file the input loads, through any composition arc: the
//! bake would destroy the user's asset and, since it sublayers the input, form a cycle.
//! Each case builds a shot over a copy of a testdata asset, asks for the bake to be
//! written over a file the shot loads, and checks the refusal: exit 1, the layer named,
//! every file byte-identical, nothing simulated. A control case shows the same shot
//! bakes fine to a free path.

mod common;

use std::path::{Path, PathBuf};

use common::{temp_dir, testdata, usdsim};

/// The body every shot composes: one free-falling tet whose root prim is `/World`.
const ASSET: &str = "free_fall_z_up_meters.usda";

/// A shot layer's text, with `header` in its layer metadata and `body` as its prims.
fn shot(header: &str, body: &str) -> String {
    format!(
        "#usda 1.0\n(\n    defaultPrim = \"World\"\n    metersPerUnit = 1\n    upAxis = \"Z\"\n{header}\n)\n\n{body}\n"
    )
}

/// A small layer that is not a body: something to clip, reference in a variant, ...
const PLAIN: &str = "#usda 1.0\n\ndef Xform \"Thing\"\n{\n}\n";

/// Writes the asset and `files` (name, text) into a fresh folder; returns it and the
/// shot's path (`shot.usda`, which must be among `files`).
fn scene(files: &[(&str, String)]) -> (tempfile::TempDir, PathBuf) {
    let dir = temp_dir();
    std::fs::copy(testdata(ASSET), dir.path().join("asset.usda")).unwrap();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let shot = dir.path().join("shot.usda");
    (dir, shot)
}

/// Every file under `dir`, with its bytes.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    common::files_under(dir).into_iter().map(|path| (path.clone(), std::fs::read(&path).unwrap())).collect()
}

/// Runs `usdsim shot.usda -f 2 -o <output>` from `dir` and asserts it refused to write
/// `layer` (a file name relative to `dir`), changing nothing.
fn assert_refused(dir: &Path, shot: &Path, output: &str, layer: &str) {
    let before = snapshot(dir);
    let outcome = std::process::Command::new(env!("CARGO_BIN_EXE_usdsim"))
        .current_dir(dir)
        .args([shot.to_str().unwrap(), "-f", "2", "-o", output])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&outcome.stderr);
    assert_eq!(outcome.status.code(), Some(4), "-o {output} must be refused:\n{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let named = dir.canonicalize().unwrap().join(layer);
    assert!(
        stderr.contains(&format!("refusing to overwrite {}", named.display())),
        "the error names the layer {}:\n{stderr}",
        named.display()
    );
    assert!(!stderr.contains("simulating"), "refused before simulating:\n{stderr}");
    assert_eq!(snapshot(dir), before, "-o {output}: every file is unchanged and nothing was added");
}

#[test]
fn a_sublayer_of_the_input_is_refused_however_the_path_is_spelled() {
    let (dir, shot_path) =
        scene(&[("shot.usda", shot("    subLayers = [@./asset.usda@]", "")), ("sub/keep", String::new())]);
    assert_refused(dir.path(), &shot_path, "asset.usda", "asset.usda");
    assert_refused(dir.path(), &shot_path, "./sub/../asset.usda", "asset.usda");
    let absolute = dir.path().join("asset.usda");
    assert_refused(dir.path(), &shot_path, absolute.to_str().unwrap(), "asset.usda");
}

#[test]
fn a_nested_sublayer_is_refused() {
    // shot -> mid -> asset: the asset is two sublayer arcs away.
    let mid = "#usda 1.0\n(\n    subLayers = [@./asset.usda@]\n)\n".to_string();
    let (dir, shot_path) = scene(&[("shot.usda", shot("    subLayers = [@./mid.usda@]", "")), ("mid.usda", mid)]);
    assert_refused(dir.path(), &shot_path, "asset.usda", "asset.usda");
    assert_refused(dir.path(), &shot_path, "mid.usda", "mid.usda");
}

#[test]
fn a_referenced_layer_is_refused() {
    let body = "def Xform \"World\" (\n    prepend references = @./asset.usda@</World>\n)\n{\n}";
    let (dir, shot_path) = scene(&[("shot.usda", shot("", body))]);
    assert_refused(dir.path(), &shot_path, "asset.usda", "asset.usda");
}

#[test]
fn a_payload_is_refused() {
    let body = "def Xform \"World\" (\n    prepend payload = @./asset.usda@</World>\n)\n{\n}";
    let (dir, shot_path) = scene(&[("shot.usda", shot("", body))]);
    assert_refused(dir.path(), &shot_path, "asset.usda", "asset.usda");
}

#[test]
fn a_layer_of_an_unselected_variant_is_refused() {
    // Writing it would change what the other variant shows.
    let body = "def Xform \"World\" (\n    variants = {\n        string look = \"sim\"\n    }\n    prepend variantSets = \"look\"\n)\n{\n    variantSet \"look\" = {\n        \"sim\" (\n            prepend references = @./asset.usda@</World>\n        ) {\n        }\n        \"other\" (\n            prepend references = @./other.usda@</Thing>\n        ) {\n        }\n    }\n}";
    let (dir, shot_path) = scene(&[("shot.usda", shot("", body)), ("other.usda", PLAIN.to_string())]);
    assert_refused(dir.path(), &shot_path, "other.usda", "other.usda");
    assert_refused(dir.path(), &shot_path, "asset.usda", "asset.usda");
}

#[test]
fn value_clips_and_their_manifest_are_refused() {
    let body = "def Xform \"Clipped\" (\n    clips = {\n        dictionary default = {\n            asset[] assetPaths = [@./clips/a.usda@]\n            asset manifestAssetPath = @./clips/manifest.usda@\n            string primPath = \"/Thing\"\n            double2[] active = [(0, 0)]\n        }\n    }\n)\n{\n}";
    let (dir, shot_path) = scene(&[
        ("shot.usda", shot("    subLayers = [@./asset.usda@]", body)),
        ("clips/a.usda", PLAIN.to_string()),
        ("clips/manifest.usda", PLAIN.to_string()),
    ]);
    assert_refused(dir.path(), &shot_path, "clips/a.usda", "clips/a.usda");
    assert_refused(dir.path(), &shot_path, "clips/manifest.usda", "clips/manifest.usda");
}

#[test]
fn a_sublayer_that_does_not_exist_yet_is_refused() {
    // The input names it, so a bake written there would be loaded by its own input.
    let (dir, shot_path) = scene(&[("shot.usda", shot("    subLayers = [@./asset.usda@, @./later.usda@]", ""))]);
    assert_refused(dir.path(), &shot_path, "later.usda", "later.usda");
}

#[test]
fn the_same_shot_bakes_to_a_path_it_does_not_load() {
    let (dir, shot_path) = scene(&[("shot.usda", shot("    subLayers = [@./asset.usda@]", ""))]);
    let asset = std::fs::read(dir.path().join("asset.usda")).unwrap();
    let output = dir.path().join("shot.sim.usda");
    let outcome = usdsim([shot_path.as_os_str(), "-f".as_ref(), "2".as_ref(), "-o".as_ref(), output.as_os_str()]);
    outcome.assert_success();
    assert!(output.is_file());
    assert_eq!(std::fs::read(dir.path().join("asset.usda")).unwrap(), asset);
}

#[test]
fn clips_named_by_a_template_are_refused() {
    let body = "def Xform \"Clipped\" (\n    clips = {\n        dictionary default = {\n            string templateAssetPath = \"./clips/c.#.usda\"\n            double templateStartTime = 0\n            double templateEndTime = 1\n            double templateStride = 1\n            string primPath = \"/Thing\"\n        }\n    }\n)\n{\n}";
    let (dir, shot_path) = scene(&[
        ("shot.usda", shot("    subLayers = [@./asset.usda@]", body)),
        ("clips/c.0.usda", PLAIN.to_string()),
        ("clips/c.1.usda", PLAIN.to_string()),
    ]);
    assert_refused(dir.path(), &shot_path, "clips/c.1.usda", "clips/c.1.usda");
    assert_refused(dir.path(), &shot_path, "asset.usda", "asset.usda");
}
