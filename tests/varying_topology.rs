//! Varying topology and rest state in the bake (issue 5): a `Bake` fed hand-made frames
//! in which a body tears (more points, re-indexed elements) and a rest shape moves,
//! written and read back with openusd, with our own importer at a late time code, and
//! with Pixar's USD when usd-core is installed.
//!
//! The solver's tearing is exercised elsewhere; these tests pin down what the exporter
//! writes for any tear, so they fake one: frame `TEAR` splits the mesh.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{temp_dir, LayerFile};
use glam::Vec3;
use openusd::sdf;
use usdsim_core::RestShape;
use usdsim_usd::{import, import_at, Bake, Imported, Topology};

const FRAMES: u32 = 4;
const TEAR: u32 = 2;

/// Two triangles sharing the edge 1-2, under a transform, with a graphics mesh (one
/// point above the centre of triangle 1) embedded in it.
const CLOTH: &str = r#"#usda 1.0
(
    defaultPrim = "World"
    metersPerUnit = 1
    startTimeCode = 0
    upAxis = "Z"
)

def Xform "World"
{
    def Xform "Body" (
        prepend apiSchemas = ["OmniPhysicsDeformableBodyAPI"]
    )
    {
        double3 xformOp:translate = (0, 0, 2)
        uniform token[] xformOpOrder = ["xformOp:translate"]

        def Mesh "Cloth" (
            prepend apiSchemas = ["OmniPhysicsSurfaceDeformableSimAPI"]
        )
        {
            point3f[] points = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)]
            int[] faceVertexCounts = [3, 3]
            int[] faceVertexIndices = [0, 1, 2, 1, 3, 2]
        }

        def Points "Marker"
        {
            point3f[] points = [(0.67, 0.67, 0)]
        }
    }
}
"#;

/// Two tets sharing the face 1-2-3.
const TETS: &str = r#"#usda 1.0
(
    defaultPrim = "World"
    metersPerUnit = 1
    upAxis = "Z"
)

def Xform "World"
{
    def TetMesh "Block" (
        prepend apiSchemas = ["PhysicsDeformableBodyAPI", "PhysicsVolumeDeformableSimAPI"]
    )
    {
        point3f[] points = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 1)]
        int4[] tetVertexIndices = [(0, 1, 2, 3), (1, 4, 2, 3)]
    }
}
"#;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Frame k: every point moved by `k * 0.1` along x; after the tear, the listed
/// vertices are duplicated at the end (the torn-off copies drift along y).
fn positions(base: &[Vec3], k: u32, split: &[u32]) -> Vec<Vec3> {
    let mut p: Vec<Vec3> = base.iter().map(|p| *p + Vec3::X * (0.1 * k as f32)).collect();
    if k >= TEAR {
        for &i in split {
            p.push(p[i as usize] + Vec3::Y * (0.05 * k as f32));
        }
    }
    p
}

/// Bakes the cloth with triangle 1 torn off at frame `TEAR` (vertices 1 and 2 split
/// into 4 and 5: triangle 1 becomes [4, 3, 5]).
fn bake_torn_cloth(imported: &Imported, output: &Path) {
    let base = imported.scene.bodies[0].positions.clone();
    let mut bake = Bake::new(imported, FRAMES);
    for k in 0..=FRAMES {
        if k == TEAR {
            bake.push_topology(k, 0, Topology::Triangles(vec![[0, 1, 2], [4, 3, 5]]));
        }
        let p = positions(&base, k, &[1, 2]);
        let v = vec![Vec3::X; p.len()];
        bake.push_frame(k, &[(&p, &v)]);
    }
    bake.write(output).unwrap();
}

fn ints(value: &sdf::Value) -> Vec<i64> {
    match value {
        sdf::Value::IntVec(v) => v.iter().map(|&i| i64::from(i)).collect(),
        sdf::Value::Vec4iVec(v) => v.iter().flat_map(|t| [t.x, t.y, t.z, t.w]).map(i64::from).collect(),
        sdf::Value::Vec3iVec(v) => v.iter().flat_map(|t| [t.x, t.y, t.z]).map(i64::from).collect(),
        other => panic!("expected an int array, got {other:?}"),
    }
}

#[test]
fn a_torn_surface_writes_time_sampled_face_indices_from_the_first_frame() {
    let dir = temp_dir();
    let input = write(dir.path(), "cloth.usda", CLOTH);
    let output = dir.path().join("cloth.sim.usda");
    let imported = import(&input).unwrap();
    bake_torn_cloth(&imported, &output);

    let layer = LayerFile::open(&output);
    let indices = layer.raw_samples("/World/Body/Cloth", "faceVertexIndices");
    let times: Vec<f64> = indices.iter().map(|(t, _)| *t).collect();
    assert_eq!(times, vec![0.0, f64::from(TEAR)], "original topology at the start, the torn one where it changed");
    assert_eq!(ints(&indices[0].1), vec![0, 1, 2, 1, 3, 2]);
    assert_eq!(ints(&indices[1].1), vec![0, 1, 2, 4, 3, 5]);
    let counts = layer.raw_samples("/World/Body/Cloth", "faceVertexCounts");
    assert_eq!(counts.len(), 2);
    assert!(counts.iter().all(|(_, c)| ints(c) == vec![3, 3]));
    // Points change length with the topology, frame by frame.
    let lens: Vec<usize> = layer.samples("/World/Body/Cloth", "points").iter().map(|(_, p)| p.len()).collect();
    assert_eq!(lens, vec![4, 4, 6, 6, 6]);
    let vel: Vec<usize> = layer.samples("/World/Body/Cloth", "velocities").iter().map(|(_, p)| p.len()).collect();
    assert_eq!(vel, lens);
}

#[test]
fn an_untorn_body_writes_no_topology() {
    let dir = temp_dir();
    let input = write(dir.path(), "cloth.usda", CLOTH);
    let output = dir.path().join("cloth.sim.usda");
    let imported = import(&input).unwrap();
    let mut bake = Bake::new(&imported, 1);
    let p = imported.scene.bodies[0].positions.clone();
    let v = vec![Vec3::ZERO; p.len()];
    bake.push_frame(0, &[(&p, &v)]);
    bake.push_frame(1, &[(&p, &v)]);
    bake.write(&output).unwrap();
    let text = std::fs::read_to_string(&output).unwrap();
    assert!(!text.contains("faceVertex"), "{text}");
}

#[test]
fn the_importer_reads_the_torn_topology_at_a_late_time_and_the_original_at_the_start() {
    let dir = temp_dir();
    let input = write(dir.path(), "cloth.usda", CLOTH);
    let output = dir.path().join("cloth.sim.usda");
    let imported = import(&input).unwrap();
    bake_torn_cloth(&imported, &output);

    let late = import_at(&output, Some(f64::from(FRAMES))).unwrap();
    let body = &late.scene.bodies[0];
    assert_eq!(body.triangles, vec![[0, 1, 2], [4, 3, 5]]);
    assert_eq!(body.positions.len(), 6);
    assert_eq!(late.stage.start_time_code, f64::from(FRAMES));
    // World space again: the body's translate (0, 0, 2) is applied once.
    let expected = positions(&imported.scene.bodies[0].positions, FRAMES, &[1, 2]);
    for (a, b) in body.positions.iter().zip(&expected) {
        assert!((*a - *b).abs().max_element() < 1e-5, "{a} vs {b}");
    }
    let early = import(&output).unwrap();
    assert_eq!(early.scene.bodies[0].triangles, vec![[0, 1, 2], [1, 3, 2]]);
    assert_eq!(early.scene.bodies[0].positions.len(), 4);
}

#[test]
fn an_embedded_mesh_follows_the_torn_off_piece() {
    let dir = temp_dir();
    let input = write(dir.path(), "cloth.usda", CLOTH);
    let output = dir.path().join("cloth.sim.usda");
    let imported = import(&input).unwrap();
    assert_eq!(imported.binding.embedded.len(), 1, "the marker is embedded in the cloth");
    bake_torn_cloth(&imported, &output);

    let layer = LayerFile::open(&output);
    let marker = layer.samples("/World/Body/Marker", "points");
    // The marker sits in triangle 1; after the tear that triangle's vertices 1 and 2 are
    // the copies 4 and 5, which drift along +y by 0.05 k. The marker's barycentric
    // weights on them sum to 0.67 + 0.67 - 1 ... so it moves along +y too.
    let before = marker[(TEAR - 1) as usize].1[0];
    let after = marker[FRAMES as usize].1[0];
    let x_shift = 0.1 * (FRAMES - TEAR + 1) as f32;
    assert!((after.x - before.x - x_shift).abs() < 1e-4, "{before} -> {after}");
    assert!(after.y - before.y > 0.05, "the marker must ride on the torn-off copies: {before} -> {after}");
}

#[test]
fn a_torn_volume_writes_tet_and_surface_indices() {
    let dir = temp_dir();
    let input = write(dir.path(), "tets.usda", TETS);
    let output = dir.path().join("tets.sim.usdc");
    let imported = import(&input).unwrap();
    let base = imported.scene.bodies[0].positions.clone();
    let mut bake = Bake::new(&imported, FRAMES);
    for k in 0..=FRAMES {
        if k == TEAR {
            // Tet 1 loses the shared face: 1, 2, 3 split into 5, 6, 7.
            bake.push_topology(k, 0, Topology::Tets(vec![[0, 1, 2, 3], [5, 4, 6, 7]]));
        }
        let p = positions(&base, k, &[1, 2, 3]);
        let v = vec![Vec3::ZERO; p.len()];
        bake.push_frame(k, &[(&p, &v)]);
    }
    bake.write(&output).unwrap();

    let layer = LayerFile::open(&output);
    let tets = layer.raw_samples("/World/Block", "tetVertexIndices");
    assert_eq!(tets.len(), 2);
    assert_eq!(ints(&tets[0].1), vec![0, 1, 2, 3, 1, 4, 2, 3]);
    assert_eq!(ints(&tets[1].1), vec![0, 1, 2, 3, 5, 4, 6, 7]);
    let surface = layer.raw_samples("/World/Block", "surfaceFaceVertexIndices");
    assert_eq!(surface.iter().map(|(t, _)| *t).collect::<Vec<_>>(), vec![0.0, f64::from(TEAR)]);
    assert_eq!(ints(&surface[0].1).len(), 3 * 6, "two tets glued by one face: 6 boundary faces");
    assert_eq!(ints(&surface[1].1).len(), 3 * 8, "two separate tets: 8 boundary faces");

    let late = import_at(&output, Some(f64::from(FRAMES))).unwrap();
    assert_eq!(late.scene.bodies[0].tets, vec![[0, 1, 2, 3], [5, 4, 6, 7]]);
}

#[test]
fn a_plastic_rest_shape_is_written_in_the_input_dialect_and_read_back() {
    let dir = temp_dir();
    let input = write(dir.path(), "tets.usda", TETS);
    let output = dir.path().join("tets.sim.usda");
    let imported = import(&input).unwrap();
    let body = &imported.scene.bodies[0];
    let mut bake = Bake::new(&imported, FRAMES);
    for k in 0..=FRAMES {
        // The rest shape flows: stretched along z by 10 % per frame.
        let stretch = Vec3::new(1.0, 1.0, 1.0 + 0.1 * k as f32);
        let rest = RestShape {
            points: body.rest_points.iter().map(|p| *p * stretch).collect(),
            elements: body.rest_elements.clone(),
        };
        bake.push_rest_shape(k, 0, &rest, &[]);
        bake.push_frame(k, &[(&body.positions, &body.velocities)]);
    }
    bake.write(&output).unwrap();
    let layer = LayerFile::open(&output);
    // The input spells the schema the AOUSD way.
    assert_eq!(layer.samples("/World/Block", "physics:restShapePoints").len(), FRAMES as usize + 1);
    assert_eq!(layer.raw_samples("/World/Block", "physics:restTetVertexIndices").len(), FRAMES as usize + 1);
    assert!(!std::fs::read_to_string(&output).unwrap().contains("omniphysics:"));

    let late = import_at(&output, Some(f64::from(FRAMES))).unwrap();
    let top = late.scene.bodies[0].rest_points[3];
    assert!((top.z - (1.0 + 0.1 * FRAMES as f32)).abs() < 1e-6, "{top}");
}

#[test]
fn a_surface_rest_state_writes_bend_angles_in_degrees() {
    let dir = temp_dir();
    let input = write(dir.path(), "cloth.usda", CLOTH);
    let output = dir.path().join("cloth.sim.usda");
    let imported = import(&input).unwrap();
    let body = &imported.scene.bodies[0];
    let mut bake = Bake::new(&imported, 1);
    let rest = RestShape { points: body.rest_points.clone(), elements: body.rest_elements.clone() };
    for k in 0..=1 {
        bake.push_rest_shape(k, 0, &rest, &[([0, 1], std::f32::consts::FRAC_PI_4 * k as f32)]);
        bake.push_frame(k, &[(&body.positions, &body.velocities)]);
    }
    bake.write(&output).unwrap();
    let layer = LayerFile::open(&output);
    let angles = layer.raw_samples("/World/Body/Cloth", "omniphysics:restBendAngles");
    assert_eq!(angles.len(), 2);
    match &angles[1].1 {
        sdf::Value::FloatVec(v) => assert!((v[0] - 45.0).abs() < 1e-4, "{v:?}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(layer.raw_samples("/World/Body/Cloth", "omniphysics:restAdjTriPairs").len(), 2);
    assert_eq!(layer.raw_samples("/World/Body/Cloth", "omniphysics:restTriVtxIndices").len(), 2);
    // Read back in radians, local to world: the rest points are in the body's space.
    let late = import_at(&output, Some(1.0)).unwrap();
    assert_eq!(late.scene.bodies[0].bend_overrides.len(), 1);
    assert!((late.scene.bodies[0].bend_overrides[0].1 - std::f32::consts::FRAC_PI_4).abs() < 1e-5);
    assert!((late.scene.bodies[0].rest_points[0].z - 2.0).abs() < 1e-6);
}

/// Pixar's USD opens the torn bake: at the start the original faces, at the end the
/// torn ones, with as many points as they index and no face shared across the cut.
#[test]
fn pixar_usd_reads_the_varying_topology() {
    let Some(python) = common::pxr::python("the Pixar USD check of varying topology") else { return };
    let dir = temp_dir();
    let input = write(dir.path(), "cloth.usda", CLOTH);
    let imported = import(&input).unwrap();
    for name in ["cloth.sim.usda", "cloth.sim.usdc"] {
        let output = dir.path().join(name);
        bake_torn_cloth(&imported, &output);
        let script = r#"
import sys
from pxr import Usd, UsdGeom
stage = Usd.Stage.Open(sys.argv[1])
mesh = UsdGeom.Mesh(stage.GetPrimAtPath("/World/Body/Cloth"))
first = list(mesh.GetFaceVertexIndicesAttr().Get(Usd.TimeCode(0)))
last = list(mesh.GetFaceVertexIndicesAttr().Get(Usd.TimeCode(int(sys.argv[2]))))
points = mesh.GetPointsAttr().Get(Usd.TimeCode(int(sys.argv[2])))
counts = list(mesh.GetFaceVertexCountsAttr().Get(Usd.TimeCode(int(sys.argv[2]))))
assert first == [0, 1, 2, 1, 3, 2], first
assert last == [0, 1, 2, 4, 3, 5], last
assert counts == [3, 3], counts
assert len(points) == 6 and max(last) < len(points), len(points)
assert not set(last[:3]) & set(last[3:]), "a vertex shared across the cut"
for f in range(2):
    a, b, c = (points[i] for i in last[3 * f:3 * f + 3])
    assert ((b - a) ^ (c - a)).GetLength() > 1e-6, "degenerate face"
assert mesh.GetFaceVertexIndicesAttr().ValueMightBeTimeVarying()
print("ok")
"#;
        let out = Command::new(&python)
            .args(["-c", script, output.to_str().unwrap(), &FRAMES.to_string()])
            .output()
            .expect("python3 runs");
        assert!(
            out.status.success() && String::from_utf8_lossy(&out.stdout).contains("ok"),
            "{name}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        common::pxr::note(&format!("checked: Pixar's USD reads the torn topology of {name}"));
    }
}
