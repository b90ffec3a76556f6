//! Bake fake frames, write `.usda` and `.usdc`, and read them back with openusd.

mod common;

use std::path::Path;

use common::{assert_close, write_scene};
use glam::{Mat4, Vec3};
use openusd::{sdf, usd};
use usdsim_usd::{default_output_path, import, Bake, ExportError, Imported};

const INPUT: &str = r#"#usda 1.0
(
    defaultPrim = "World"
    kilogramsPerUnit = 2
    metersPerUnit = 0.5
    startTimeCode = 5
    timeCodesPerSecond = 30
    upAxis = "Z"
)

def Xform "World"
{
    def TetMesh "Body" (
        prepend apiSchemas = ["OmniPhysicsDeformableBodyAPI", "OmniPhysicsVolumeDeformableSimAPI"]
    )
    {
        point3f[] points = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]
        int4[] tetVertexIndices = [(0, 1, 2, 3)]
        double3 xformOp:translate = (0, 0, 1)
        float xformOp:rotateZ = 90
        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:rotateZ"]
    }
}
"#;

const FRAMES: u32 = 3;

/// Frame k: the initial world positions dropped by 0.1 k, velocity (1, 0, 0) world.
fn frame(imported: &Imported, k: u32) -> (Vec<Vec3>, Vec<Vec3>) {
    let body = &imported.scene.bodies[0];
    let positions = body.positions.iter().map(|p| *p - Vec3::Z * (0.1 * k as f32)).collect();
    let velocities = vec![Vec3::X; body.positions.len()];
    (positions, velocities)
}

fn bake(imported: &Imported) -> Bake {
    let mut bake = Bake::new(imported, FRAMES);
    for k in 0..=FRAMES {
        let (p, v) = frame(imported, k);
        bake.push_frame(k, &[(&p, &v)]);
    }
    bake
}

fn vec3s(value: Option<sdf::Value>) -> Vec<Vec3> {
    match value {
        Some(sdf::Value::Vec3fVec(v)) => v.iter().map(|p| Vec3::new(p.x, p.y, p.z)).collect(),
        other => panic!("expected float3 array, got {other:?}"),
    }
}

fn check_output(input: &Path, output: &Path, imported: &Imported) {
    let stage = usd::Stage::open(output.to_str().unwrap()).unwrap();
    // Metadata copied or derived from the input.
    assert_eq!(stage.start_time_code(), 5.0);
    assert_eq!(stage.end_time_code(), 8.0);
    assert_eq!(stage.time_codes_per_second(), 30.0);
    assert_eq!(stage.frames_per_second(), 30.0);
    assert_eq!(stage.default_prim().map(|t| t.as_str().to_string()).as_deref(), Some("World"));
    assert_eq!(stage.stage_metadata("upAxis").unwrap(), Some(sdf::Value::Token("Z".into())));
    assert_eq!(stage.stage_metadata("metersPerUnit").unwrap(), Some(sdf::Value::Double(0.5)));
    assert_eq!(stage.stage_metadata("kilogramsPerUnit").unwrap(), Some(sdf::Value::Double(2.0)));
    // The input is sublayered by a relative path.
    let sublayers = stage.root_layer().pseudo_root().and_then(|r| r.sublayers());
    let expected = format!("./{}", input.file_name().unwrap().to_string_lossy());
    assert_eq!(sublayers, Some(vec![expected]));
    // The over composes with the input's definition: topology still there.
    let prim = stage.prim("/World/Body").unwrap();
    assert_eq!(prim.type_name().unwrap().map(|t| t.as_str().to_string()).as_deref(), Some("TetMesh"));

    let world_from_local = imported.binding.bodies[0].world_from_local.as_mat4();
    let local_from_world: Mat4 = world_from_local.inverse();
    for (name, count) in [("points", 4), ("velocities", 4), ("extent", 2)] {
        let attr = prim.attribute(name);
        assert_eq!(attr.time_sample_times().unwrap(), vec![5.0, 6.0, 7.0, 8.0], "{name}");
        let value = vec3s(attr.get_at::<sdf::Value>(usd::TimeCode::new(7.0)).unwrap());
        assert_eq!(value.len(), count, "{name}");
    }
    for k in 0..=FRAMES {
        let t = usd::TimeCode::new(5.0 + f64::from(k));
        let (world, _) = frame(imported, k);
        let points = vec3s(prim.attribute("points").get_at::<sdf::Value>(t).unwrap());
        for (p, w) in points.iter().zip(&world) {
            assert_close(*p, local_from_world.transform_point3(*w), 1e-6);
        }
        // Local frame is rotated 90° about Z: world +X is local -Y.
        let velocities = vec3s(prim.attribute("velocities").get_at::<sdf::Value>(t).unwrap());
        assert!(velocities.iter().all(|v| (*v - Vec3::new(0.0, -1.0, 0.0)).length() < 1e-6));
        let extent = vec3s(prim.attribute("extent").get_at::<sdf::Value>(t).unwrap());
        let lo = points.iter().fold(Vec3::MAX, |a, p| a.min(*p));
        let hi = points.iter().fold(Vec3::MIN, |a, p| a.max(*p));
        assert_eq!(extent, vec![lo, hi]);
    }
    // Frame 0 is the initial state: local points equal the authored ones.
    let first = vec3s(prim.attribute("points").get_at::<sdf::Value>(usd::TimeCode::new(5.0)).unwrap());
    assert_close(first[1], Vec3::new(1.0, 0.0, 0.0), 1e-6);
}

#[test]
fn usda_and_usdc_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let input = write_scene(dir.path(), "in.usda", INPUT);
    let imported = import(&input).unwrap();
    let bake = bake(&imported);
    for name in ["out.usda", "out.usdc"] {
        let output = dir.path().join(name);
        bake.write(&output).unwrap();
        check_output(&input, &output, &imported);
        // Re-importing the bake reads frame 0 at startTimeCode: the same world state.
        let again = import(&output).unwrap();
        assert_eq!(again.scene.bodies[0].positions.len(), 4);
        for (a, b) in again.scene.bodies[0].positions.iter().zip(&imported.scene.bodies[0].positions) {
            assert_close(*a, *b, 1e-6);
        }
    }
    // No temporary files are left behind.
    let mut names: Vec<_> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    assert_eq!(names, ["in.usda", "out.usda", "out.usdc"]);
}

#[test]
fn output_in_another_directory_uses_a_relative_sublayer() {
    let dir = tempfile::tempdir().unwrap();
    let input = write_scene(dir.path(), "in.usda", INPUT);
    std::fs::create_dir(dir.path().join("bakes")).unwrap();
    let imported = import(&input).unwrap();
    let output = dir.path().join("bakes/take1.usdc");
    bake(&imported).write(&output).unwrap();
    let layer = sdf::Layer::open(output.to_str().unwrap()).unwrap();
    let sublayers = layer.pseudo_root().and_then(|r| r.sublayers());
    assert_eq!(sublayers, Some(vec!["../in.usda".to_string()]));
    assert_eq!(import(&output).unwrap().binding.bodies.len(), 1);
}

#[test]
fn default_output_path_is_writable() {
    let dir = tempfile::tempdir().unwrap();
    let input = write_scene(dir.path(), "shot.usda", INPUT);
    let output = default_output_path(&input);
    assert_eq!(output, dir.path().join("shot.sim.usda"));
    bake(&import(&input).unwrap()).write(&output).unwrap();
    assert!(output.exists());
}

#[test]
fn refuses_to_overwrite_the_input() {
    let dir = tempfile::tempdir().unwrap();
    let input = write_scene(dir.path(), "in.usda", INPUT);
    let bake = bake(&import(&input).unwrap());
    for spelling in [input.clone(), dir.path().join(".").join("in.usda")] {
        let err = bake.write(&spelling).unwrap_err();
        assert!(matches!(err, ExportError::WouldOverwriteInput { .. }), "{err}");
        assert!(err.to_string().contains("refusing to overwrite the input"), "{err}");
    }
    assert_eq!(std::fs::read_to_string(&input).unwrap(), INPUT);
}

#[test]
fn rejects_other_extensions_and_missing_directories() {
    let dir = tempfile::tempdir().unwrap();
    let input = write_scene(dir.path(), "in.usda", INPUT);
    let bake = bake(&import(&input).unwrap());
    for name in ["out.usdz", "out.txt", "out"] {
        let err = bake.write(&dir.path().join(name)).unwrap_err();
        assert!(matches!(err, ExportError::UnsupportedExtension { .. }), "{name}: {err}");
    }
    let err = bake.write(&dir.path().join("missing/out.usda")).unwrap_err();
    assert!(matches!(err, ExportError::InvalidPath { .. }), "{err}");
    let err = bake.check_output(dir.path()).unwrap_err();
    assert!(matches!(err, ExportError::IsDirectory { .. }), "{err}");
    // `.usd` is binary, as Pixar's tools write new files.
    let usd = dir.path().join("out.usd");
    bake.check_output(&usd).unwrap();
    bake.write(&usd).unwrap();
    assert_eq!(&std::fs::read(&usd).unwrap()[..8], b"PXR-USDC");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2, "the write probe leaves nothing behind");
}

#[test]
fn class_bodies_are_written_as_overs_on_each_reference() {
    let dir = tempfile::tempdir().unwrap();
    let source = common::testdata("class_template.usda");
    let input = dir.path().join("class_template.usda");
    std::fs::copy(&source, &input).unwrap();
    let imported = import(&input).unwrap();
    let mut bake = Bake::new(&imported, 1);
    let states: Vec<(Vec<Vec3>, Vec<Vec3>)> =
        imported.scene.bodies.iter().map(|b| (b.positions.clone(), b.velocities.clone())).collect();
    let refs: Vec<(&[Vec3], &[Vec3])> = states.iter().map(|(p, v)| (p.as_slice(), v.as_slice())).collect();
    bake.push_frame(0, &refs);
    bake.push_frame(1, &refs);
    let output = dir.path().join("class_template.sim.usda");
    bake.write(&output).unwrap();
    let text = std::fs::read_to_string(&output).unwrap();
    assert!(text.contains("over \"JellyA\""), "{text}");
    assert!(!text.contains("_JellyTemplate"), "the class itself must not be touched");
    let again = import(&output).unwrap();
    assert_eq!(again.binding.bodies.len(), 3);
}
