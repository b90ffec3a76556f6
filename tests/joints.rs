//! UsdPhysics joints from a USD file, simulated and baked: a revolute pendulum swings
//! with the compound pendulum's period about its world pivot, and what usdsim does not
//! simulate of a joint is named.

mod common;

use std::path::Path;

use common::{bake, temp_dir, testdata, usdsim, LayerFile};
use glam::DVec3;
use openusd::sdf;

const BOB: &str = "/World/Bob";

/// The baked `xformOp:translate` samples of `prim`.
fn translates(path: &Path, prim: &str) -> Vec<(f64, DVec3)> {
    LayerFile::open(path)
        .raw_samples(prim, "xformOp:translate")
        .into_iter()
        .map(|(t, v)| match v {
            sdf::Value::Vec3d(v) => (t, DVec3::new(v.x, v.y, v.z)),
            other => panic!("xformOp:translate at {t}: expected a double3, found {other:?}"),
        })
        .collect()
}

#[test]
fn a_revolute_pendulum_from_usd_swings_with_its_period_about_its_pivot() {
    let dir = temp_dir();
    let out = dir.path().join("pendulum.usdc");
    let run = bake(&testdata("revolute_pendulum.usda"), &out, &["--frames", "96"]);
    assert!(!run.stderr.contains("IM084"), "the joint is simulated, not named as skipped: {}", run.stderr);
    assert_swings_as_the_compound_pendulum(&out);
}

/// The same hinge as a generic `PhysicsJoint` that `PhysicsLimitAPI` locks in all but
/// rotY (low above high locks, as UsdPhysics says) swings with the same period.
#[test]
fn a_generic_joint_locked_but_one_rotation_swings_as_the_revolute_hinge() {
    let dir = temp_dir();
    let text = std::fs::read_to_string(testdata("revolute_pendulum.usda")).unwrap();
    let mut locks = String::new();
    for dof in ["transX", "transY", "transZ", "rotX", "rotZ"] {
        locks += &format!("        float limit:{dof}:physics:high = -1\n        float limit:{dof}:physics:low = 1\n");
    }
    let apis = ["transX", "transY", "transZ", "rotX", "rotZ"].map(|d| format!("\"PhysicsLimitAPI:{d}\"")).join(", ");
    let generic = text.replace(
        "def PhysicsRevoluteJoint \"Hinge\"\n    {\n        uniform token physics:axis = \"Y\"\n",
        &format!("def PhysicsJoint \"Hinge\" (\n        prepend apiSchemas = [{apis}]\n    )\n    {{\n{locks}"),
    );
    assert_ne!(generic, text, "the scene has the hinge this test rewrites");
    let file = dir.path().join("generic.usda");
    std::fs::write(&file, generic).unwrap();
    let out = dir.path().join("generic.usdc");
    let run = bake(&file, &out, &["--frames", "96"]);
    assert!(!run.stderr.contains("IM084"), "the generic joint is simulated: {}", run.stderr);
    assert_swings_as_the_compound_pendulum(&out);
    let check = usdsim(["validate".as_ref(), file.as_os_str()]);
    assert_eq!(check.code, Some(0), "{}{}", check.stdout, check.stderr);
}

/// The pendulum on a `PhysicsSphericalJoint` about Z with `coneAngle0Limit` 2° (toward
/// X, the axis after Z): released 4° out, it swings back only until its line has turned
/// 2° from where it started, then rests against the limit; unlimited toward Y.
#[test]
fn a_spherical_joints_cone_limit_from_usd_stops_the_pendulum() {
    let dir = temp_dir();
    let text = std::fs::read_to_string(testdata("revolute_pendulum.usda")).unwrap();
    let ball = text.replace(
        "def PhysicsRevoluteJoint \"Hinge\"\n    {\n        uniform token physics:axis = \"Y\"\n",
        "def PhysicsSphericalJoint \"Hinge\"\n    {\n        uniform token physics:axis = \"Z\"\n        float physics:coneAngle0Limit = 2\n",
    );
    assert_ne!(ball, text, "the scene has the hinge this test rewrites");
    let file = dir.path().join("ball.usda");
    std::fs::write(&file, ball).unwrap();
    let out = dir.path().join("ball.usdc");
    let run = bake(&file, &out, &["--frames", "48"]);
    assert!(!run.stderr.contains("IM084"), "the cone is simulated: {}", run.stderr);
    let pivot = DVec3::new(0.0, 0.0, 1.0);
    let start = 4f64.to_radians();
    let mut least = f64::INFINITY;
    for (t, p) in translates(&out, BOB) {
        let line = p - pivot;
        assert!((line.length() - 0.5).abs() < 1e-3, "at {t}: the bob left its sphere");
        least = least.min(line.x.atan2(-line.z));
    }
    let stop = start - 2f64.to_radians();
    assert!((least - stop).abs() < 0.3f64.to_radians(), "it swung to {}°, the cone stops it at 2°", least.to_degrees());
}

/// The bob of `revolute_pendulum.usda`'s bake at `out` stays on its circle about the
/// pivot, in the hinge's plane, and swings with the compound pendulum's period.
fn assert_swings_as_the_compound_pendulum(out: &Path) {
    let samples = translates(out, BOB);
    assert_eq!(samples.len(), 97);
    let pivot = DVec3::new(0.0, 0.0, 1.0);
    let (l, r) = (0.5, 0.05);
    for (t, p) in &samples {
        assert!(
            ((*p - pivot).length() - l).abs() < 1e-3,
            "at {t}: the bob is {} from the pivot",
            (*p - pivot).length()
        );
        assert!(p.y.abs() < 1e-6, "at {t}: it left the hinge's plane ({})", p.y);
    }
    let ups: Vec<f64> = samples
        .windows(2)
        .filter(|w| w[0].1.x < 0.0 && w[1].1.x >= 0.0)
        .map(|w| (w[0].0 + (w[1].0 - w[0].0) * (-w[0].1.x / (w[1].1.x - w[0].1.x))) / 24.0)
        .collect();
    assert!(ups.len() >= 2, "it did not swing: {ups:?}");
    let period = (ups[ups.len() - 1] - ups[0]) / (ups.len() - 1) as f64;
    let expected = std::f64::consts::TAU * ((l * l + 0.4 * r * r) / (9.81 * l)).sqrt();
    assert!((period - expected).abs() < 0.01 * expected, "period {period} s, expected {expected} s");
}

#[test]
fn a_joint_past_its_break_force_breaks_and_what_usdsim_does_not_simulate_is_named() {
    let dir = temp_dir();
    let text = std::fs::read_to_string(testdata("revolute_pendulum.usda")).unwrap();
    // The bob weighs 5.1 N; a hinge that holds 1 N lets it go at once.
    let text = text.replace(
        "        uniform token physics:axis = \"Y\"\n",
        "        uniform token physics:axis = \"Y\"\n        float physics:breakForce = 1\n",
    );
    let text = text.replace(
        "def PhysicsRevoluteJoint \"Hinge\"\n",
        "def PhysicsRevoluteJoint \"Hinge\" (\n        prepend apiSchemas = [\"PhysicsDriveAPI:rotX\"]\n    )\n",
    );
    let file = dir.path().join("breakable.usda");
    std::fs::write(&file, &text).unwrap();
    let out = dir.path().join("o.usdc");
    let run = usdsim([file.as_os_str(), "--frames=24".as_ref(), "-o".as_ref(), out.as_os_str()]);
    run.assert_success();
    assert!(run.stderr.contains("IM084") && run.stderr.contains("PhysicsDriveAPI:rotX"), "{}", run.stderr);
    let (t, last) = *translates(&out, BOB).last().unwrap();
    let pivot = DVec3::new(0.0, 0.0, 1.0);
    assert!(
        (last - pivot).length() > 4.0,
        "at {t} the bob is {} from the pivot: the hinge held",
        (last - pivot).length()
    );
    // The baked state says so: unbroken at frame 0, broken from then on.
    let broken = LayerFile::open(&out).raw_samples("/World/Hinge", "usdsim:jointBroken");
    assert_eq!(broken.len(), 25, "one sample per frame: {broken:?}");
    assert_eq!(broken[0].1, sdf::Value::Bool(false));
    assert!(broken[1..].iter().all(|(_, b)| *b == sdf::Value::Bool(true)), "{broken:?}");

    let bad = text.replace("physics:axis = \"Y\"", "physics:axis = \"W\"");
    std::fs::write(&file, bad).unwrap();
    let run = usdsim([file.as_os_str(), "--frames=1".as_ref(), "-o".as_ref(), dir.path().join("p.usda").as_os_str()]);
    run.assert_no_panic();
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(run.stderr.contains("/World/Hinge.physics:axis"), "{}", run.stderr);
}

/// A drive whose target is time-sampled in USD (0° at frame 0, 45° at frame 24) turns
/// the hinged bar after it, frame by frame, and holds it at 45°; the hinge stays put.
#[test]
fn a_time_sampled_drive_turns_a_hinge_to_its_target() {
    let dir = temp_dir();
    let out = dir.path().join("hinge.usdc");
    let run = bake(&testdata("driven_hinge.usda"), &out, &["--frames", "72"]);
    assert!(!run.stderr.contains("IM084"), "{}", run.stderr);
    let layer = LayerFile::open(&out);
    let angle = |t: f64| -> f64 {
        let sample = layer.raw_samples("/World/Bar", "xformOp:orient").into_iter().find(|(s, _)| *s == t);
        match sample {
            Some((_, sdf::Value::Quatd(q))) => {
                let q = glam::DQuat::from_xyzw(q.x, q.y, q.z, q.w);
                let (axis, a) = q.to_axis_angle();
                a.to_degrees() * axis.z.signum()
            }
            other => panic!("xformOp:orient at {t}: {other:?}"),
        }
    };
    let translate = translates(&out, "/World/Bar");
    for (t, p) in &translate {
        let a = angle(*t).to_radians();
        let hinge = *p - DVec3::new(0.25 * a.cos(), 0.25 * a.sin(), 0.0);
        assert!((hinge - DVec3::new(0.0, 0.0, 1.0)).length() < 1e-3, "at {t}: the hinge moved to {hinge}");
    }
    // Following the ramp (45° over 24 frames), a little behind it, then held.
    let ramp = angle(12.0);
    assert!(ramp > 10.0 && ramp < 22.5, "at frame 12 the bar is at {ramp}°, the target 22.5°");
    for t in [48.0, 72.0] {
        assert!((angle(t) - 45.0).abs() < 0.5, "at frame {t} the bar is at {}°, the target 45°", angle(t));
    }
    // The joint's own baked coordinate is the bar's angle, in degrees as UsdPhysics'.
    let position = layer.raw_samples("/World/Hinge", "usdsim:jointPosition");
    assert_eq!(position.len(), 73);
    for (t, q) in position {
        let sdf::Value::Float(q) = q else { panic!("usdsim:jointPosition at {t}: {q:?}") };
        assert!((q as f64 - angle(t)).abs() < 1e-3, "at {t}: the joint says {q}°, the bar is at {}°", angle(t));
    }
}

/// The driven hinge as a generic `PhysicsJoint`: `PhysicsLimitAPI` locks all but rotZ
/// and `PhysicsDriveAPI:rotZ` (acceleration, time-sampled target 0° → 45°) turns it:
/// the bar follows the ramp and holds at 45°, and its hinge stays put.
#[test]
fn a_generic_joints_drive_turns_its_free_rotation_to_a_time_sampled_target() {
    let dir = temp_dir();
    let text = std::fs::read_to_string(testdata("driven_hinge.usda")).unwrap();
    let locked = ["transX", "transY", "transZ", "rotX", "rotY"];
    let apis: Vec<String> = locked.iter().map(|d| format!("\"PhysicsLimitAPI:{d}\"")).collect();
    let limits: String = locked
        .iter()
        .map(|d| format!("        float limit:{d}:physics:high = -1\n        float limit:{d}:physics:low = 1\n"))
        .collect();
    let generic = text
        .replace(
            "def PhysicsRevoluteJoint \"Hinge\" (\n        prepend apiSchemas = [\"PhysicsDriveAPI:angular\"]\n    )\n    {\n        uniform token physics:axis = \"Z\"\n",
            &format!(
                "def PhysicsJoint \"Hinge\" (\n        prepend apiSchemas = [\"PhysicsDriveAPI:rotZ\", {}]\n    )\n    {{\n{limits}",
                apis.join(", ")
            ),
        )
        .replace("drive:angular:", "drive:rotZ:");
    assert!(
        generic.contains("PhysicsJoint \"Hinge\"")
            && !generic.contains("drive:angular:")
            && !generic.contains("DriveAPI:angular\""),
        "{generic}"
    );
    let file = dir.path().join("generic.usda");
    std::fs::write(&file, generic).unwrap();
    let out = dir.path().join("generic.usdc");
    let run = bake(&file, &out, &["--frames", "72"]);
    assert!(!run.stderr.contains("IM084"), "the generic joint and its drive are simulated: {}", run.stderr);
    let layer = LayerFile::open(&out);
    let angle = |t: f64| -> f64 {
        let sample = layer.raw_samples("/World/Bar", "xformOp:orient").into_iter().find(|(s, _)| *s == t);
        let Some((_, sdf::Value::Quatd(q))) = sample else { panic!("xformOp:orient at {t}: {sample:?}") };
        let (axis, a) = glam::DQuat::from_xyzw(q.x, q.y, q.z, q.w).to_axis_angle();
        a.to_degrees() * axis.z.signum()
    };
    let ramp = angle(12.0);
    assert!(ramp > 10.0 && ramp < 22.5, "at frame 12 the bar is at {ramp}°, the target 22.5°");
    for t in [48.0, 72.0] {
        assert!((angle(t) - 45.0).abs() < 0.5, "at frame {t} the bar is at {}°, the target 45°", angle(t));
    }
    for (t, p) in translates(&out, "/World/Bar") {
        let a = angle(t).to_radians();
        let hinge = p - DVec3::new(0.25 * a.cos(), 0.25 * a.sin(), 0.0);
        assert!((hinge - DVec3::new(0.0, 0.0, 1.0)).length() < 1e-3, "at {t}: the hinge moved to {hinge}");
    }
    let shown = usdsim(["inspect".as_ref(), file.as_os_str()]);
    assert!(shown.stdout.contains("RotZ acceleration drive"), "{}", shown.stdout);
}

#[test]
fn a_joint_to_a_deformable_body_is_refused_by_validate_and_the_run() {
    let dir = temp_dir();
    let text = std::fs::read_to_string(testdata("tet_cube_on_ground.usda")).unwrap();
    let at = text.rfind('}').unwrap();
    let joint = "    def PhysicsFixedJoint \"Weld\"\n    {\n        rel physics:body1 = </World/Cube>\n    }\n";
    let file = dir.path().join("welded.usda");
    std::fs::write(&file, format!("{}{joint}{}", &text[..at], &text[at..])).unwrap();
    let check = usdsim(["validate".as_ref(), file.as_os_str()]);
    assert_eq!(check.code, Some(1), "{}{}", check.stdout, check.stderr);
    let text = format!("{}{}", check.stdout, check.stderr);
    assert!(
        text.contains("DB901") && text.contains("/World/Weld.physics:body1") && text.contains("deformable"),
        "{text}"
    );
}

/// A cloth hung from a driven door (`testdata/door_with_cloth.usda`) swings with it: the
/// door turns to its 90° target, the cloth's held row stays in the door's frame, and the
/// cloth hangs from it the whole way rather than falling or lagging behind.
#[test]
fn a_cloth_attached_to_a_revolute_door_swings_with_it() {
    let dir = temp_dir();
    let out = dir.path().join("door.usdc");
    bake(&testdata("door_with_cloth.usda"), &out, &["--frames", "48"]);
    assert_cloth_swings_with_the_door(&out);
}

/// The same door in an articulation (`PhysicsArticulationRootAPI` on the scene's root):
/// its hinge is a rapier multibody link in reduced coordinates, which takes the cloth's
/// pull as a force, and the cloth still swings with it.
#[test]
fn a_cloth_attached_to_an_articulated_door_swings_with_it() {
    let dir = temp_dir();
    let text = std::fs::read_to_string(testdata("door_with_cloth.usda")).unwrap();
    let articulated = text.replacen(
        "def Xform \"World\"\n",
        "def Xform \"World\" (\n    prepend apiSchemas = [\"PhysicsArticulationRootAPI\"]\n)\n",
        1,
    );
    assert_ne!(articulated, text);
    let file = dir.path().join("door.usda");
    std::fs::write(&file, articulated).unwrap();
    let out = dir.path().join("door.usdc");
    bake(&file, &out, &["--frames", "48"]);
    assert_cloth_swings_with_the_door(&out);
    let shown = usdsim(["inspect".as_ref(), file.as_os_str()]);
    assert!(shown.stdout.contains("articulated"), "{}", shown.stdout);
}

/// The door of `door_with_cloth.usda`'s bake at `out` turns to its 90° target and the
/// cloth's held row stays in its frame, the rest hanging from it.
fn assert_cloth_swings_with_the_door(out: &Path) {
    let layer = LayerFile::open(out);
    let stage = common::open_stage(out);
    let orient = layer.raw_samples("/World/Door", "xformOp:orient");
    for (t, q) in orient {
        let sdf::Value::Quatd(q) = q else { panic!("xformOp:orient at {t}: {q:?}") };
        let door = glam::DQuat::from_xyzw(q.x, q.y, q.z, q.w);
        let (axis, angle) = door.to_axis_angle();
        let angle = angle * axis.z.signum();
        let cloth = common::composed_points(&stage, "/World/Cloth", "points", t);
        // The held top row: where the door's frame carries it (hinge at the origin's Z line).
        for (i, p) in cloth.iter().take(9).enumerate() {
            let start = DVec3::new(0.1 + 0.05 * i as f64, -0.05, 1.0);
            let held = door * start;
            assert!(
                (p.as_dvec3() - held).length() < 2e-3,
                "at {t}: held vertex {i} is {} off the door",
                (p.as_dvec3() - held).length()
            );
        }
        // The rest of the cloth hangs from it on the same side of the hinge.
        let c = common::centroid(&cloth);
        let azimuth = c.y.atan2(c.x) - (-0.05f64).atan2(0.3);
        assert!(
            (azimuth - angle).abs() < 10f64.to_radians(),
            "at {t}: the cloth is at {azimuth} rad, the door at {angle}"
        );
        let lowest = cloth.iter().map(|p| p.z).fold(f32::INFINITY, f32::min);
        assert!((lowest - 0.6).abs() < 0.03, "at {t}: the cloth's hem is at z = {lowest}");
        if t >= 40.0 {
            assert!((angle.to_degrees() - 90.0).abs() < 1.0, "at {t}: the door is at {}°", angle.to_degrees());
        }
    }
}

#[test]
fn inspect_lists_the_joints_it_will_simulate() {
    let out = usdsim(["inspect".as_ref(), testdata("driven_hinge.usda").as_os_str()]);
    out.assert_success();
    assert!(
        out.stdout.contains("/World/Hinge")
            && out.stdout.contains("revolute about Z: world to /World/Bar, acceleration drive"),
        "{}",
        out.stdout
    );
}

/// The baked pose (translation, orientation) of rigid body `prim` per time code.
fn poses(path: &Path, prim: &str) -> Vec<(f64, DVec3, glam::DQuat)> {
    let orient = LayerFile::open(path).raw_samples(prim, "xformOp:orient");
    translates(path, prim)
        .into_iter()
        .zip(orient)
        .map(|((t, p), (u, q))| {
            assert_eq!(t, u, "{prim}: translate and orient are sampled at the same times");
            let sdf::Value::Quatd(q) = q else { panic!("{prim}: xformOp:orient at {t}: {q:?}") };
            (t, p, glam::DQuat::from_xyzw(q.x, q.y, q.z, q.w))
        })
        .collect()
}

/// Signed distance from `p` to a box of half extents `half` at `pose`.
fn box_distance(p: DVec3, (at, rot): (DVec3, glam::DQuat), half: DVec3) -> f64 {
    let q = (rot.inverse() * (p - at)).abs() - half;
    let outside = q.max(DVec3::ZERO).length();
    if outside > 0.0 {
        outside
    } else {
        q.max_element()
    }
}

/// A two-finger gripper (`testdata/gripper_cube.usda`: prismatic joints under a
/// kinematic palm, force drives with time-sampled targets) closes on a soft cube resting
/// on the ground, lifts it 20 cm and holds it for 2 s: the cube rises with the palm, no
/// vertex ever enters a finger, and the cube slips less than 1 cm against the fingers.
#[test]
fn a_gripper_closes_on_a_soft_cube_lifts_it_and_holds_it() {
    let dir = temp_dir();
    let out = dir.path().join("grip.usdc");
    let run = bake(&testdata("gripper_cube.usda"), &out, &["--frames", "96"]);
    assert!(!run.stderr.contains("IM084"), "every joint and drive is simulated: {}", run.stderr);
    let stage = common::open_stage(&out);
    let palm = translates(&out, "/World/Palm");
    let fingers = [poses(&out, "/World/LeftFinger"), poses(&out, "/World/RightFinger")];
    let half = DVec3::new(0.005, 0.02, 0.025);
    let mut nearest = f64::INFINITY;
    let mut height = Vec::new();
    for (frame, &(t, palm_at)) in palm.iter().enumerate() {
        let cube = common::composed_points(&stage, "/World/Cube", "points", t);
        for finger in &fingers {
            let (ft, at, rot) = finger[frame];
            assert_eq!(ft, t);
            for p in &cube {
                nearest = nearest.min(box_distance(p.as_dvec3(), (at, rot), half));
            }
        }
        // The cube's height under the palm.
        height.push((t, common::centroid(&cube).z - palm_at.z, common::centroid(&cube).z));
    }
    assert!(nearest > 0.0, "a cube vertex entered a finger ({nearest} m from its surface)");
    let at = |time: f64| height.iter().find(|h| h.0 == time).copied().expect("the frame is baked");
    let (grasped, lifted, held) = (at(24.0), at(48.0), at(96.0));
    assert!(held.2 - grasped.2 > 0.19, "the cube rose {} m with a palm that rose 0.2 m", held.2 - grasped.2);
    for (what, h) in [("lifting", lifted), ("holding 2 s", held)] {
        let slip = (h.1 - grasped.1).abs();
        assert!(slip < 0.01, "{what}: the cube slipped {slip} m against the fingers");
    }
    let lost = (held.1 - lifted.1).abs();
    assert!(lost < 0.002, "the held cube crept {lost} m in 2 s");
}

/// A six-joint arm from a USD file (`testdata/arm_six_joints.usda`: revolute links
/// under a `PhysicsArticulationRootAPI`, force drives at target 0) holds its level pose
/// against gravity for 2 s: every link within 1 mm of where it started.
#[test]
fn a_six_joint_arm_from_usd_held_by_drives_stays_within_a_millimetre() {
    let dir = temp_dir();
    let out = dir.path().join("arm.usdc");
    let run = bake(&testdata("arm_six_joints.usda"), &out, &["--frames", "48"]);
    assert!(!run.stderr.contains("IM084"), "{}", run.stderr);
    let mut worst = 0.0f64;
    for i in 0..6 {
        let samples = translates(&out, &format!("/World/Arm/Link{i}"));
        assert_eq!(samples.len(), 49, "link {i} is baked every frame");
        let start = DVec3::new(0.2 * (i as f64 + 0.5), 0.0, 1.0);
        for (_, p) in samples {
            worst = worst.max((p - start).length());
        }
    }
    assert!(worst < 1e-3, "a link moved {worst} m from its pose");
    // The joints' own coordinates say the same: each near its target of 0°.
    let layer = LayerFile::open(&out);
    for i in 0..6 {
        for (t, q) in layer.raw_samples(&format!("/World/Arm/Joint{i}"), "usdsim:jointPosition") {
            let sdf::Value::Float(q) = q else { panic!("{q:?}") };
            assert!(q.abs() < 0.05, "at {t}: joint {i} is at {q}°");
        }
    }
}
