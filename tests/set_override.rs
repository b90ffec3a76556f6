//! `--set PRIM.ATTR=VALUE`: an authored value replaced for one run, through a session
//! layer, so every reader sees it; recorded in the bake; bad targets are usage errors.

mod common;

use common::{bake, centroid, testdata, usdsim, LayerFile};
use openusd::sdf;

const FALL: &str = "free_fall_authored_gravity.usda";
const TET: &str = "/World/Frame/Tet";
const GRAVITY: &str = "/World/PhysicsScene.physics:gravityMagnitude";

/// World displacement of the tet's centroid after `frames` frames is g t²-like in
/// the integrator's exact form, so it scales linearly with the gravity magnitude:
/// doubling the magnitude through `--set` must double the displacement.
#[test]
fn set_gravity_scales_the_fall_and_is_recorded() {
    let dir = common::temp_dir();
    let plain = dir.path().join("plain.usda");
    let doubled = dir.path().join("doubled.usda");
    bake(&testdata(FALL), &plain, &["-f", "6"]);
    bake(&testdata(FALL), &doubled, &["-f", "6", "--set", &format!("{GRAVITY}=10")]);
    let drop = |path: &std::path::Path| {
        let samples = LayerFile::open(path).samples(TET, "points");
        let (first, last) = (&samples.first().unwrap().1, &samples.last().unwrap().1);
        (centroid(last) - centroid(first)).length()
    };
    let (d1, d2) = (drop(&plain), drop(&doubled));
    assert!(d1 > 0.0);
    assert!((d2 / d1 - 2.0).abs() < 1e-4, "plain {d1}, doubled {d2}");

    let data = LayerFile::open(&doubled).metadata("customLayerData");
    let Some(sdf::Value::Dictionary(data)) = data else { panic!("no customLayerData: {data:?}") };
    assert_eq!(data.get("usdsimOverrides"), Some(&sdf::Value::StringVec(vec![format!("{GRAVITY}=10")])));
    let plain_data = LayerFile::open(&plain).metadata("customLayerData");
    let Some(sdf::Value::Dictionary(plain_data)) = plain_data else { panic!("no fingerprint: {plain_data:?}") };
    assert!(!plain_data.contains_key("usdsimOverrides"), "a plain bake records no overrides");
    // Pixar's text parser reads the keys back (a namespaced key written unquoted failed).
    let script = "import sys\nfrom pxr import Sdf\nprint(dict(Sdf.Layer.FindOrOpen(sys.argv[1]).customLayerData))";
    let Some(python) = common::pxr::python("Pixar's reading of the recorded overrides") else { return };
    let out = std::process::Command::new(python).args(["-c", script]).arg(&doubled).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.contains("usdsimOverrides"), "{text}{}", String::from_utf8_lossy(&out.stderr));
    common::pxr::note("checked: Pixar's USD reads the overrides a bake records");
}

/// An unauthored attribute of an applied schema takes its type from the schema: the
/// tearing strip with `usdsim:tearRatio` raised far out of reach keeps its topology.
#[test]
fn set_reaches_usdsim_settings_and_the_same_run_is_deterministic() {
    let dir = common::temp_dir();
    let a = dir.path().join("a.usda");
    let b = dir.path().join("b.usda");
    let set = "/World/Materials/Fabric.usdsim:tearRatio=100";
    bake(&testdata("tearing_cloth.usda"), &a, &["-f", "48", "--set", set]);
    bake(&testdata("tearing_cloth.usda"), &b, &["-f", "48", "--tear-ratio", "100"]);
    // The whole-scene flag and the per-prim --set say the same thing: same frames.
    let strip = "/World/Strip";
    let (sa, sb) = (LayerFile::open(&a).samples(strip, "points"), LayerFile::open(&b).samples(strip, "points"));
    assert_eq!(sa, sb);
    // Unset, the strip tears (the scene's purpose); with the override it does not.
    let torn = dir.path().join("torn.usda");
    bake(&testdata("tearing_cloth.usda"), &torn, &["-f", "48"]);
    assert_ne!(LayerFile::open(&torn).samples(strip, "points").last().unwrap().1.len(), sa.last().unwrap().1.len());
}

/// A wrong prim, attribute, type or syntax is a usage error (exit 2) that names it,
/// and nothing is written.
#[test]
fn bad_overrides_are_usage_errors_naming_them() {
    let dir = common::temp_dir();
    let out = dir.path().join("out.usda");
    for (set, expect) in [
        ("/World/Nope.physics:gravityMagnitude=1", "no prim /World/Nope"),
        ("/World/PhysicsScene.physics:gravityMagnitud=1", "did you mean physics:gravityMagnitude"),
        (&format!("{GRAVITY}=fast"), "is not a valid float value"),
        (&format!("{GRAVITY}=(0, 0, 1)"), "is not a valid float value"),
        ("/World/PhysicsScene.physics:gravityDirection=1", "is not a valid vector3f value"),
        ("World.physics:gravityMagnitude=1", "must be absolute"),
        (GRAVITY, "expected PRIM.ATTR=VALUE"),
    ] {
        let outcome = usdsim([testdata(FALL).to_str().unwrap(), "-f", "2", "-o", out.to_str().unwrap(), "--set", set]);
        outcome.assert_no_panic();
        assert_eq!(outcome.code, Some(2), "--set {set}: {}", outcome.stderr);
        assert!(outcome.stderr.contains(expect), "--set {set}: expected {expect:?} in\n{}", outcome.stderr);
        assert!(!out.exists(), "--set {set} wrote an output");
    }
}
