//! Which cloth collides with itself: the asset's `physxDeformableBody:selfCollision`
//! by default, every cloth with `--self-contact`, none with `--no-self-contact`; the run
//! and `usdsim inspect` say which.

mod common;

use common::{temp_dir, testdata, usdsim};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// `testdata/stiff_cloth.usda` with its cloth asking to collide with itself (with a
/// 4 mm filter distance) or not, written into `dir`.
fn cloth_asking(dir: &Path, asks: bool) -> PathBuf {
    let text = std::fs::read_to_string(testdata("stiff_cloth.usda")).unwrap();
    let opening = "\"MaterialBindingAPI\"]\n    )\n    {\n";
    assert!(text.contains(opening), "stiff_cloth.usda changed: its cloth's opening is not found");
    let mut switch = format!("{opening}        bool physxDeformableBody:selfCollision = {}\n", u8::from(asks));
    if asks {
        switch.push_str("        float physxDeformableBody:selfCollisionFilterDistance = 0.004\n");
    }
    let path = dir.join(if asks { "asks.usda" } else { "declines.usda" });
    std::fs::write(&path, text.replacen(opening, &switch, 1)).unwrap();
    path
}

/// The run's JSON summary of a two-frame bake of `input` with `flags`.
fn run_json(input: &Path, flags: &[&str]) -> serde_json::Value {
    let out = input.with_extension("out.usda");
    let mut args: Vec<&OsStr> = vec![input.as_os_str(), "--frames".as_ref(), "2".as_ref(), "--json".as_ref()];
    args.extend([OsStr::new("-o"), out.as_os_str()]);
    args.extend(flags.iter().map(OsStr::new));
    let outcome = usdsim(args);
    assert_eq!(outcome.code, Some(0), "{}", outcome.stderr);
    serde_json::from_str(&outcome.stdout).unwrap()
}

#[test]
fn the_asset_decides_unless_a_flag_overrides_it() {
    let dir = temp_dir();
    let (asks, declines) = (cloth_asking(dir.path(), true), cloth_asking(dir.path(), false));
    let own = |input: &Path, flags: &[&str]| run_json(input, flags)["final"][0]["self_contact"].clone();
    assert_eq!(own(&asks, &[]), true);
    assert_eq!(own(&declines, &[]), false);
    assert_eq!(own(&asks, &["--no-self-contact"]), false);
    assert_eq!(own(&declines, &["--self-contact"]), true);
}

#[test]
fn the_two_flags_together_are_refused() {
    let dir = temp_dir();
    let input = cloth_asking(dir.path(), true);
    let outcome = usdsim([input.as_os_str(), "--self-contact".as_ref(), "--no-self-contact".as_ref()]);
    assert_eq!(outcome.code, Some(2), "{}", outcome.stderr);
    assert!(outcome.stderr.contains("--no-self-contact"), "{}", outcome.stderr);
    // Nothing was written beside the input.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn the_summary_and_inspect_name_the_bodies_that_collide_with_themselves() {
    let dir = temp_dir();
    let input = cloth_asking(dir.path(), true);
    let out = dir.path().join("out.usda");
    let outcome = usdsim([input.as_os_str(), "--frames".as_ref(), "1".as_ref(), "-o".as_ref(), out.as_os_str()]);
    assert_eq!(outcome.code, Some(0), "{}", outcome.stderr);
    let said = format!("{}{}", outcome.stdout, outcome.stderr);
    assert!(said.contains("self contact: /World/Cloth"), "{said}");

    let inspect = usdsim(["inspect".as_ref(), input.as_os_str()]);
    assert_eq!(inspect.code, Some(0), "{}", inspect.stderr);
    assert!(inspect.stdout.contains("collides with itself (asset)"), "{}", inspect.stdout);
    assert!(inspect.stdout.contains("self-collision filter distance 0.004 (0.004 m)"), "{}", inspect.stdout);
    let json = usdsim(["inspect".as_ref(), "--json".as_ref(), input.as_os_str()]);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["bodies"][0]["self_collision"], true);
    assert_eq!(v["bodies"][0]["self_collision_filter_distance"]["si"], 0.004);
    let declines = usdsim(["inspect".as_ref(), cloth_asking(dir.path(), false).as_os_str()]);
    assert!(!declines.stdout.contains("collides with itself"), "{}", declines.stdout);
}
