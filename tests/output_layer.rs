//! The baked layer as a file: where it goes, what it holds, that it re-opens and
//! composes over the input, that `.usdc` and `.usda` agree, that results do not depend
//! on the thread count, and the `--json` summary.

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use common::{bake, composed_points, copy_scene, open_stage, same_points, temp_dir, testdata, usdsim, LayerFile};
use glam::Vec3;
use openusd::sdf;

const CUBE: &str = "/World/Cube";

fn file_names(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .expect("readable dir")
        .map(|e| e.expect("dir entry").file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn baked_layer_reopens_with_a_sample_per_frame_and_sublayers_the_input() {
    let dir = temp_dir();
    let input = copy_scene("tet_cube_on_ground.usda", dir.path());
    let before = std::fs::read(&input).unwrap();
    // An output in a subdirectory makes the sublayer path climb out of it.
    std::fs::create_dir(dir.path().join("baked")).unwrap();
    let output = dir.path().join("baked/cube.usda");
    let frames = 5;
    bake(&input, &output, &["--frames", "5"]);

    assert_eq!(std::fs::read(&input).unwrap(), before, "the input must never change");
    assert_eq!(file_names(&dir.path().join("baked")), BTreeSet::from(["cube.usda".to_string()]), "no temp files left");

    let baked = LayerFile::open(&output);
    assert_eq!(baked.sublayers(), vec!["../tet_cube_on_ground.usda".to_string()], "relative sublayer path");
    assert_eq!(baked.time_range(), (Some(0.0), Some(frames as f64), Some(24.0)), "start, end, timeCodesPerSecond");
    assert_eq!(baked.metadata("upAxis"), Some(sdf::Value::Token("Z".into())), "upAxis copied from the input");
    assert_eq!(baked.metadata("metersPerUnit"), Some(sdf::Value::Double(1.0)), "metersPerUnit copied");

    let input_layer = LayerFile::open(&input);
    let input_points = input_layer.default_points(CUBE, "points");
    let expected_times: Vec<f64> = (0..=frames).map(f64::from).collect();
    let points = baked.samples(CUBE, "points");
    for name in ["points", "velocities", "extent"] {
        let samples = baked.samples(CUBE, name);
        let times: Vec<f64> = samples.iter().map(|(t, _)| *t).collect();
        assert_eq!(times, expected_times, "{name}: one sample at startTimeCode + k for k = 0..=frames");
        let expected_len = if name == "extent" { 2 } else { input_points.len() };
        assert!(samples.iter().all(|(_, v)| v.len() == expected_len), "{name}: {expected_len} values per sample");
        assert!(!baked.is_custom(CUBE, name), "{name} is a schema attribute, not custom");
    }
    // The cube's coordinates and translate are exact in binary, so the world-space round
    // trip (local → world → local) must give back the input's numbers exactly.
    assert!(same_points(&points[0].1, &input_points), "frame 0 is the input state");
    assert!(baked.samples(CUBE, "velocities")[0].1.iter().all(|v| *v == Vec3::ZERO), "frame 0 is at rest");
    assert!(!same_points(&points[frames as usize].1, &input_points), "the cube moved");
    for ((t, pts), (_, extent)) in points.iter().zip(baked.samples(CUBE, "extent")) {
        let lo = pts.iter().fold(Vec3::INFINITY, |a, p| a.min(*p));
        let hi = pts.iter().fold(Vec3::NEG_INFINITY, |a, p| a.max(*p));
        assert_eq!(extent, vec![lo, hi], "extent at {t} bounds the points");
    }

    // Composed, the layer shows the input's whole scene with the baked points on top.
    let stage = open_stage(&output);
    let mut prims = Vec::new();
    stage.traverse(openusd::usd::PrimPredicate::DEFAULT, |p| prims.push(p.to_string())).unwrap();
    for expected in ["/World", "/World/Cube", "/World/Ground", "/World/Materials/Jelly", "/World/PhysicsScene"] {
        assert!(prims.iter().any(|p| p == expected), "{expected} composes through the sublayer; found {prims:?}");
    }
    let cube = stage.prim(sdf::Path::new(CUBE).unwrap()).unwrap();
    assert_eq!(cube.type_name().unwrap().map(|t| t.as_str().to_string()), Some("TetMesh".to_string()));
    assert!(
        cube.attribute("tetVertexIndices").has_value().unwrap(),
        "the topology comes from the input through the sublayer"
    );
    assert!(same_points(&composed_points(&stage, CUBE, "points", 3.0), &points[3].1), "composed value at frame 3");
}

#[test]
fn default_output_is_stem_dot_sim_dot_usda_beside_the_input() {
    let dir = temp_dir();
    let input = copy_scene("free_fall_z_up_meters.usda", dir.path());
    let outcome = usdsim([input.as_os_str(), "--frames".as_ref(), "2".as_ref()]);
    outcome.assert_success();
    let expected = dir.path().join("free_fall_z_up_meters.sim.usda");
    assert_eq!(
        file_names(dir.path()),
        BTreeSet::from(["free_fall_z_up_meters.usda".to_string(), "free_fall_z_up_meters.sim.usda".to_string()]),
        "exactly the input and its bake, no temp files"
    );
    assert!(outcome.stderr.contains(&*expected.to_string_lossy()), "the summary names the output: {}", outcome.stderr);
    assert_eq!(LayerFile::open(&expected).sublayers(), vec!["./free_fall_z_up_meters.usda".to_string()]);
    assert_eq!(std::fs::read(&input).unwrap(), std::fs::read(testdata("free_fall_z_up_meters.usda")).unwrap());
}

#[test]
fn usdc_output_is_a_crate_file_with_the_same_samples_as_usda() {
    let dir = temp_dir();
    let input = testdata("tet_cube_on_ground.usda");
    let text = dir.path().join("cube.usda");
    let binary = dir.path().join("cube.usdc");
    bake(&input, &text, &["--frames", "4"]);
    bake(&input, &binary, &["--frames", "4"]);

    let bytes = std::fs::read(&binary).unwrap();
    assert!(bytes.starts_with(b"PXR-USDC"), "a .usdc output is a binary crate file");
    assert!(std::fs::read(&text).unwrap().starts_with(b"#usda 1.0"), "a .usda output is text");

    let (a, b) = (LayerFile::open(&text), LayerFile::open(&binary));
    assert_eq!(a.sublayers(), b.sublayers());
    assert_eq!(a.time_range(), b.time_range());
    for name in ["points", "velocities", "extent"] {
        let (sa, sb) = (a.samples(CUBE, name), b.samples(CUBE, name));
        assert_eq!(sa.len(), 5);
        assert_eq!(sa.len(), sb.len());
        for ((ta, va), (tb, vb)) in sa.iter().zip(&sb) {
            assert_eq!(ta, tb);
            assert!(same_points(va, vb), "{name} at {ta} differs between .usda and .usdc");
        }
    }
}

#[test]
fn results_are_identical_for_one_and_two_threads() {
    // parallel_mix is large enough that the solver's rayon loops really split the work
    // (thousands of vertices, hundreds of elements per colour); few substeps keep it fast.
    let dir = temp_dir();
    let input = testdata("parallel_mix.usda");
    let outputs: Vec<_> = ["1", "2"]
        .iter()
        .map(|threads| {
            let output = dir.path().join(format!("threads{threads}.usdc"));
            bake(&input, &output, &["--frames", "3", "--substeps", "3", "--iterations", "3", "--threads", threads]);
            LayerFile::open(&output)
        })
        .collect();
    for prim in ["/World/Cloth", "/World/Block"] {
        for name in ["points", "velocities"] {
            let (one, two) = (outputs[0].samples(prim, name), outputs[1].samples(prim, name));
            assert_eq!(one.len(), 4);
            assert!(!same_points(&one[0].1, &one[3].1), "{prim} moved");
            for ((t, a), (_, b)) in one.iter().zip(&two) {
                let bits = |v: &[Vec3]| v.iter().flat_map(|p| p.to_array().map(f32::to_bits)).collect::<Vec<_>>();
                assert_eq!(bits(a), bits(b), "{prim}.{name} at {t}: --threads 1 and --threads 2 disagree");
            }
        }
    }
}

#[test]
fn json_summary_is_the_only_thing_on_stdout() {
    let dir = temp_dir();
    let output = dir.path().join("cube.usdc");
    let input = testdata("tet_cube_on_ground.usda");
    let outcome = usdsim([
        input.as_os_str(),
        "-o".as_ref(),
        output.as_os_str(),
        "--frames".as_ref(),
        "3".as_ref(),
        "--json".as_ref(),
    ]);
    outcome.assert_success();
    // from_str rejects trailing non-whitespace: the whole of stdout must be one document.
    let summary: serde_json::Value = serde_json::from_str(&outcome.stdout)
        .unwrap_or_else(|e| panic!("stdout is not one JSON document ({e}):\n{}", outcome.stdout));
    assert_eq!(summary["bodies"], 1);
    assert_eq!(summary["vertices"], 125);
    assert_eq!(summary["tetrahedra"], 384);
    assert_eq!(summary["frames"], 3);
    assert!(summary["ms_per_frame"].as_f64().is_some_and(|ms| ms >= 0.0), "ms_per_frame: {}", summary["ms_per_frame"]);
    assert_eq!(summary["output"].as_str(), output.to_str());
    assert!(!outcome.stderr.contains("frame 3/3"), "--json sends no progress anywhere: {}", outcome.stderr);
}
