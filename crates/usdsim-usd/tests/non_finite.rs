//! A run stops at the first frame holding a value that is not finite: the bake names the
//! prim, the attribute and the frame of every kind of written value, and a bake ended
//! before that frame writes every frame before it and nothing after.

mod common;

use common::testdata;
use glam::{Quat, Vec3};
use openusd::usd;
use usdsim_core::RestShape;
use usdsim_usd::{import, Bake, Imported, NonFinite};

const FRAMES: u32 = 4;

/// The rigid box scene (a tet body and a rigid body), frames 0..=FRAMES recorded with
/// finite values: the initial state, rest shape, no bend angles, the initial pose.
fn finite_bake(imported: &Imported) -> Bake {
    let mut bake = Bake::new(imported, FRAMES);
    let body = &imported.scene.bodies[0];
    let rest = RestShape { points: body.rest_points.clone(), elements: body.rest_elements.clone() };
    for k in 0..=FRAMES {
        bake.push_frame(k, &[(&body.positions, &body.velocities)]);
        bake.push_rest_shape(k, 0, &rest, &[([0, 1], 0.5)]);
        bake.push_rigid_frame(k, &[(Vec3::new(0.0, 0.0, 2.5), Quat::IDENTITY)]);
    }
    bake
}

#[test]
fn every_written_value_is_checked_and_named() {
    let imported = import(&testdata("rigid_box_fall.usda")).unwrap();
    let body = &imported.scene.bodies[0];
    let (prim, rigid) = (imported.binding.bodies[0].prim_path.clone(), imported.binding.rigid[0].prim_path.clone());
    let mut nan_points = body.positions.clone();
    nan_points[1].y = f32::NAN;
    let mut inf_velocities = body.velocities.clone();
    inf_velocities[2].x = f32::INFINITY;
    let rest = RestShape { points: body.rest_points.clone(), elements: body.rest_elements.clone() };
    let mut nan_rest = rest.clone();
    nan_rest.points[0].z = f32::NAN;
    type Inject<'a> = Box<dyn Fn(&mut Bake) + 'a>;
    let cases: Vec<(Inject<'_>, &str, &str)> = vec![
        (Box::new(|b: &mut Bake| b.push_frame(3, &[(&nan_points, &body.velocities)])), prim.as_str(), "points"),
        (Box::new(|b: &mut Bake| b.push_frame(3, &[(&body.positions, &inf_velocities)])), prim.as_str(), "velocities"),
        (
            Box::new(|b: &mut Bake| b.push_rest_shape(3, 0, &nan_rest, &[])),
            prim.as_str(),
            "omniphysics:restShapePoints",
        ),
        (
            Box::new(|b: &mut Bake| b.push_rest_shape(3, 0, &rest, &[([0, 1], f32::NAN)])),
            prim.as_str(),
            "restBendAngles",
        ),
        (
            Box::new(|b: &mut Bake| b.push_rigid_frame(3, &[(Vec3::new(0.0, f32::NAN, 0.0), Quat::IDENTITY)])),
            rigid.as_str(),
            "xformOp:translate",
        ),
        (
            Box::new(|b: &mut Bake| b.push_rigid_frame(3, &[(Vec3::ZERO, Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0))])),
            rigid.as_str(),
            // A NaN rotation makes the whole parent-space pose NaN; the translation is
            // checked first.
            "xformOp:",
        ),
    ];
    for (inject, prim, attribute) in cases {
        let mut bake = finite_bake(&imported);
        for k in 0..=FRAMES {
            assert_eq!(bake.first_non_finite(k), None, "frame {k} before injecting {attribute}");
        }
        inject(&mut bake);
        let bad: NonFinite = bake.first_non_finite(3).unwrap_or_else(|| panic!("{attribute} not caught"));
        assert_eq!((bad.prim.as_str(), bad.frame), (prim, 3), "{bad}");
        assert!(bad.attribute.starts_with(attribute), "{bad} for {attribute}");
        assert!(bad.to_string().contains(prim) && bad.to_string().contains("frame 3"), "{bad}");
        assert_eq!(bake.first_non_finite(2), None);
    }
}

#[test]
fn a_bake_ended_before_a_frame_keeps_every_frame_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("scene.usda");
    std::fs::copy(testdata("rigid_box_fall.usda"), &input).unwrap();
    let imported = import(&input).unwrap();
    let mut bake = finite_bake(&imported);
    let mut nan = imported.scene.bodies[0].positions.clone();
    nan[0].x = f32::NAN;
    bake.push_frame(3, &[(&nan, &imported.scene.bodies[0].velocities)]);
    bake.end_before(3);
    assert_eq!(bake.first_non_finite(3), None, "frame 3 dropped");
    let output = dir.path().join("out.usda");
    bake.write(&output).unwrap();
    let stage = usd::Stage::open(output.to_str().unwrap()).unwrap();
    assert_eq!(stage.end_time_code(), stage.start_time_code() + 2.0, "the end time is the last good frame");
    let start = stage.start_time_code();
    let prim = stage.prim(imported.binding.bodies[0].prim_path.as_str()).unwrap();
    for name in ["points", "velocities", "omniphysics:restShapePoints"] {
        let times = prim.attribute(name).time_sample_times().unwrap();
        assert_eq!(times, vec![start, start + 1.0, start + 2.0], "{name}: frames 0–2 kept, 3 and 4 dropped");
    }
    let text = std::fs::read_to_string(&output).unwrap();
    assert!(!text.to_ascii_lowercase().contains("nan"), "no NaN written");
}
