//! The command line of issue 5: `usdsim:` overrides (`--tear-ratio`, `--plastic-*`,
//! `--model`, `--spring-*`, `--integrator`), their validation, warnings in the JSON
//! summary, `inspect` showing the schema extension, and the showcase scenes.

mod common;

use std::ffi::OsStr;

use common::{temp_dir, testdata, usdsim, LayerFile};
use serde_json::Value;

fn run_json(scene: &str, extra: &[&str]) -> Value {
    let dir = temp_dir();
    let out = dir.path().join("out.sim.usda");
    let input = testdata(scene);
    let mut args: Vec<&OsStr> = vec![input.as_os_str(), OsStr::new("-o"), out.as_os_str(), OsStr::new("--json")];
    args.extend(extra.iter().map(OsStr::new));
    let outcome = usdsim(args);
    outcome.assert_success();
    serde_json::from_str(&outcome.stdout).unwrap_or_else(|e| panic!("{e}: {}", outcome.stdout))
}

#[test]
fn bad_override_values_are_usage_errors() {
    for (flag, value) in [
        ("--tear-ratio", "0.5"),
        ("--tear-ratio", "1"),
        ("--tear-ratio", "-2"),
        ("--plastic-yield", "0.9"),
        ("--plastic-rate", "1.5"),
        ("--plastic-max-strain", "-1"),
        ("--spring-stiffness", "-3"),
        ("--spring-damping", "nan"),
        ("--model", "mpm"),
        ("--integrator", "verlet"),
    ] {
        let outcome = usdsim([testdata("hanging_bar.usda").as_os_str(), flag.as_ref(), value.as_ref()]);
        assert_eq!(outcome.code, Some(2), "{flag} {value}: {}", outcome.stderr);
        assert!(outcome.stderr.contains(flag), "{flag} {value}: {}", outcome.stderr);
        outcome.assert_no_panic();
    }
}

#[test]
fn overrides_that_change_nothing_are_warnings_in_the_json_summary() {
    let v = run_json("hanging_bar.usda", &["--frames", "1", "--spring-stiffness", "5", "--integrator", "rk4"]);
    let warnings = v["warnings"].as_array().unwrap();
    let with = |text: &str| warnings.iter().find(|w| w["message"].as_str().unwrap().contains(text));
    let spring = with("no body uses the spring model").unwrap_or_else(|| panic!("{warnings:?}"));
    assert_eq!(spring["code"], "CLI001");
    assert_eq!(spring["severity"], "warning");
    assert!(warnings.iter().any(|w| w["attribute"] == "--integrator"), "{warnings:?}");
    let v = run_json("hanging_bar.usda", &["--frames", "1", "--plastic-rate", "0.5"]);
    assert!(v["warnings"].to_string().contains("no material of the scene is plastic"), "{}", v["warnings"]);
}

#[test]
fn inspect_shows_model_tearing_and_plasticity() {
    let json = |scene: &str| -> Value {
        let outcome = usdsim(["inspect".as_ref(), "--json".as_ref(), testdata(scene).as_os_str()]);
        assert_eq!(outcome.code, Some(0), "{}", outcome.stderr);
        serde_json::from_str(&outcome.stdout).unwrap()
    };
    let tearing = json("tearing_cloth.usda");
    assert_eq!(tearing["bodies"][0]["tear_ratio"], 1.5);
    assert_eq!(tearing["bodies"][0]["model"]["kind"], "fem");
    assert!(tearing["bodies"][0]["plasticity"].is_null());
    let plastic = json("plastic_bar.usda");
    let p = &plastic["bodies"][0]["plasticity"];
    assert_eq!(
        (p["yield_ratio"].as_f64(), p["rate"].as_f64(), p["max_strain"].as_f64()),
        (Some(1.1), Some(0.5), Some(0.5))
    );
    let springs = json("springs_cloth.usda");
    let m = &springs["bodies"][0]["model"];
    assert_eq!(m["kind"], "springs");
    assert_eq!(m["stiffness"], 50.0);
    assert_eq!(m["links"], serde_json::json!(["structural", "shear", "bend"]));

    let outcome = usdsim(["inspect".as_ref(), testdata("plastic_bar.usda").as_os_str()]);
    assert!(outcome.stdout.contains("plastic beyond 1.1 x rest length at rate 0.5, cap 0.5"), "{}", outcome.stdout);
}

#[test]
fn showcase_scenes_validate_clean() {
    for scene in ["tearing_cloth.usda", "plastic_bar.usda", "springs_cloth.usda"] {
        let outcome = usdsim(["validate".as_ref(), "--strict".as_ref(), testdata(scene).as_os_str()]);
        assert_eq!(outcome.code, Some(0), "{scene}: {}{}", outcome.stdout, outcome.stderr);
    }
}

/// The strip tears (the solver splits vertices) and the bake holds varying topology
/// starting with the input's faces; `--tear-ratio 0` turns tearing off for the scene.
#[test]
fn the_tearing_cloth_tears_unless_the_command_line_disables_it() {
    let dir = temp_dir();
    let input = testdata("tearing_cloth.usda");
    let torn = dir.path().join("torn.sim.usdc");
    let whole = dir.path().join("whole.sim.usdc");
    common::bake(&input, &torn, &["--frames", "36"]);
    common::bake(&input, &whole, &["--frames", "36", "--tear-ratio", "0"]);

    let layer = LayerFile::open(&whole);
    let lens: Vec<usize> = layer.samples("/World/Strip", "points").iter().map(|(_, p)| p.len()).collect();
    assert!(lens.iter().all(|&n| n == 225), "no tear with --tear-ratio 0: {lens:?}");

    let layer = LayerFile::open(&torn);
    let points = layer.samples("/World/Strip", "points");
    let last = points.last().unwrap().1.len();
    assert!(last > 225, "the strip must tear: {last} points");
    let indices = layer.raw_samples("/World/Strip", "faceVertexIndices");
    assert_eq!(indices[0].0, 0.0, "the original topology is written at the first frame");
    let max_index = |v: &openusd::sdf::Value| match v {
        openusd::sdf::Value::IntVec(v) => *v.iter().max().unwrap() as usize,
        other => panic!("{other:?}"),
    };
    assert_eq!(max_index(&indices[0].1), 224);
    assert_eq!(max_index(&indices.last().unwrap().1), last - 1);
}
