//! Rigid-body motion in the baked layer (`xformOp:translate` / `xformOp:orient` in the
//! parent's space), and vertices attached to an animated Xform following it through the
//! whole USD path (import, solve, bake, re-read).

mod common;

use common::{bake, composed_points, open_stage, temp_dir, testdata, LayerFile};
use glam::{DMat4, DQuat, DVec3, Vec3};
use openusd::{gf, sdf, usd};
use usdsim_core::RigidId;

const BOX: &str = "/World/Rig/Box";
const RIG: &str = "/World/Rig";

fn composed<T>(stage: &usd::Stage, prim: &str, name: &str, time: f64) -> T
where
    T: sdf::FromValue,
    T::Error: Into<openusd::Error>,
{
    stage
        .prim(sdf::Path::new(prim).expect("a valid prim path"))
        .expect("the prim resolves")
        .attribute(name)
        .get_at::<T>(usd::TimeCode::new(time))
        .unwrap_or_else(|e| panic!("{prim}.{name} at {time}: {e}"))
        .unwrap_or_else(|| panic!("{prim}.{name} has no value at {time}"))
}

fn dvec(v: gf::Vec3d) -> DVec3 {
    DVec3::new(v.x, v.y, v.z)
}

/// A float3 value widened, for comparing with the double-precision ops.
trait ToDVec {
    fn to_dvec(self) -> DVec3;
}

impl ToDVec for gf::Vec3f {
    fn to_dvec(self) -> DVec3 {
        DVec3::new(self.x.into(), self.y.into(), self.z.into())
    }
}

#[test]
fn rigid_box_falls_freely_in_parent_space_and_composes_where_the_solver_puts_it() {
    let frames = 24u32;
    let dir = temp_dir();
    let input = testdata("rigid_box_fall.usda");
    let output = dir.path().join("box.usda");
    bake(&input, &output, &["--frames", "24"]);

    let baked = LayerFile::open(&output);
    assert_eq!(
        baked.raw_default(BOX, "xformOpOrder"),
        Some(sdf::Value::TokenVec(vec!["xformOp:translate".into(), "xformOp:orient".into(), "xformOp:scale".into()])),
        "translate, orient, then the authored (constant) scale"
    );
    match baked.raw_default(BOX, "xformOp:scale") {
        // The input declares float3: the bake keeps that type (Pixar's AttributeTypeMismatch).
        Some(sdf::Value::Vec3f(s)) => assert!((s.to_dvec() - DVec3::splat(0.2)).abs().max_element() < 1e-6, "{s:?}"),
        other => panic!("xformOp:scale: expected a float3 as the input declares, found {other:?}"),
    }
    let translate: Vec<(f64, DVec3)> = baked
        .raw_samples(BOX, "xformOp:translate")
        .into_iter()
        .map(|(t, v)| match v {
            sdf::Value::Vec3d(v) => (t, dvec(v)),
            other => panic!("xformOp:translate at {t}: expected a double3, found {other:?}"),
        })
        .collect();
    let orient: Vec<(f64, DQuat)> = baked
        .raw_samples(BOX, "xformOp:orient")
        .into_iter()
        .map(|(t, v)| match v {
            sdf::Value::Quatd(q) => (t, DQuat::from_xyzw(q.x, q.y, q.z, q.w)),
            other => panic!("xformOp:orient at {t}: expected a quatd, found {other:?}"),
        })
        .collect();
    let times: Vec<f64> = (0..=frames).map(f64::from).collect();
    assert_eq!(translate.iter().map(|s| s.0).collect::<Vec<_>>(), times, "one translate per frame");
    assert_eq!(orient.iter().map(|s| s.0).collect::<Vec<_>>(), times, "one orient per frame");

    // Parent space: the parent translates and turns about Z, so the fall is still along
    // its Z, and the box keeps its authored (0, 0, 2.5) start.
    let g = 9.81;
    let start = translate[0].1;
    assert!(
        (start - DVec3::new(0.0, 0.0, 2.5)).abs().max_element() < 1e-5,
        "frame 0 is the authored translate: {start}"
    );
    for (k, ((_, t), (_, q))) in translate.iter().zip(&orient).enumerate() {
        let time = k as f64 / 24.0;
        let drop = start.z - t.z;
        let expected = 0.5 * g * time * time;
        assert!(t.x.abs() < 1e-5 && t.y.abs() < 1e-5, "frame {k}: no sideways motion in parent space: {t}");
        // Semi-implicit Euler over n = 10 k substeps falls (1 + 1/n) x the exact ½gt²:
        // within 2 % from frame 6 on.
        if k >= 6 {
            assert!((drop - expected).abs() <= 0.02 * expected, "frame {k}: fell {drop}, ½gt² = {expected}");
        } else {
            assert!(drop >= 0.0 && drop <= 1.2 * expected + 1e-9, "frame {k}: fell {drop}, ½gt² = {expected}");
        }
        assert!(q.angle_between(DQuat::IDENTITY) < 1e-5, "frame {k}: orient stays identity, got {q}");
    }

    // The composed stage (output over input) puts the box where the solver has it.
    let imported = usdsim_usd::import(&input).expect("the scene imports");
    assert_eq!(imported.binding.rigid.iter().map(|r| r.prim_path.as_str()).collect::<Vec<_>>(), [BOX]);
    let settings = usdsim_core::Settings {
        frame_dt: 1.0 / 24.0,
        contact_offset: 0.002,
        // The CLI's defaults for a scene without cloth.
        substeps: 10,
        iterations: 3,
        ..usdsim_core::Settings::default()
    };
    let mut solver = usdsim_core::Solver::new(imported.scene.clone(), settings).expect("the scene simulates");
    let stage = open_stage(&output);
    for k in 0..=frames {
        if k > 0 {
            solver.step_frame();
        }
        let time = f64::from(k);
        let rig = DMat4::from_translation(dvec(composed(&stage, RIG, "xformOp:translate", time)))
            * DMat4::from_rotation_z(f64::from(composed::<f32>(&stage, RIG, "xformOp:rotateZ", time)).to_radians());
        let q: gf::Quatd = composed(&stage, BOX, "xformOp:orient", time);
        let local = DMat4::from_scale_rotation_translation(
            composed::<gf::Vec3f>(&stage, BOX, "xformOp:scale", time).to_dvec(),
            DQuat::from_xyzw(q.x, q.y, q.z, q.w),
            dvec(composed(&stage, BOX, "xformOp:translate", time)),
        );
        let (scale, rotation, translation) = (rig * local).to_scale_rotation_translation();
        let (t, r) = solver.rigid_pose(RigidId(0));
        assert!(
            (translation - t.as_dvec3()).abs().max_element() < 1e-4,
            "frame {k}: composed box at {translation}, solver at {t}"
        );
        assert!(rotation.angle_between(r.as_dquat()) < 1e-4, "frame {k}: composed {rotation}, solver {r}");
        assert!((scale - DVec3::splat(0.2)).abs().max_element() < 1e-6, "frame {k}: the box keeps its size");
    }
    // And the world fall is along -Z from the parent's (1, 2, 0.5) + 2.5.
    let (t, _) = solver.rigid_pose(RigidId(0));
    assert!((t.x - 1.0).abs() < 1e-4 && (t.y - 2.0).abs() < 1e-4 && t.z < 3.0 - 4.0, "world pose {t}");
}

#[test]
fn vertices_attached_to_an_animated_xform_follow_it_in_the_output() {
    let dir = temp_dir();
    let input = testdata("animated_anchor.usda");
    let output = dir.path().join("anchor.usda");
    bake(&input, &output, &["--frames", "48"]);

    let source = LayerFile::open(&input);
    let pin = "/World/TopPin";
    let Some(sdf::Value::IntVec(indices)) = source.raw_default(pin, "omniphysics:vtxIndicesSrc0") else {
        panic!("the scene's attachment has vertex indices")
    };
    let Some(sdf::Value::Vec3fVec(local)) = source.raw_default(pin, "omniphysics:localPositionsSrc1") else {
        panic!("the scene's attachment has local positions")
    };
    let stage = open_stage(&output);
    let mut moved = 0.0f64;
    for k in 0..=48 {
        let time = f64::from(k);
        let anchor = dvec(composed(&stage, "/World/Anchor", "xformOp:translate", time));
        let points = composed_points(&stage, "/World/Bar", "points", time);
        for (&i, l) in indices.iter().zip(&local) {
            let target = anchor + Vec3::new(l.x, l.y, l.z).as_dvec3();
            let p = points[i as usize].as_dvec3();
            assert!((p - target).abs().max_element() < 1e-4, "time {time}: vertex {i} at {p}, its target at {target}");
        }
        moved = moved.max((anchor - DVec3::new(0.0, 0.0, 2.0)).length());
    }
    assert!(moved > 0.3, "the anchor really moves ({moved})");
}
