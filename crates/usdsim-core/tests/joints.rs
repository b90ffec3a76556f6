//! UsdPhysics joints on rapier3d's joints, against mechanics: a revolute pendulum's
//! small-angle period, a prismatic slider that moves along its axis only, limits that
//! stop the motion, a fixed-jointed frame that stays rigid, a rope's length.

use glam::{Quat, Vec3};
use usdsim_core::{
    ColliderShape, Drive, Joint, JointAxis, JointKind, RigidBody, RigidId, RigidShape, Scene, Settings, Solver,
};

const G: f32 = 9.81;

fn ball(name: &str, at: Vec3, radius: f32) -> RigidBody {
    let shape =
        RigidShape { shape: ColliderShape::Sphere { radius }, translation: Vec3::ZERO, rotation: Quat::IDENTITY };
    RigidBody::new(name, at, vec![shape], 1000.0)
}

fn boxed(name: &str, at: Vec3, half: Vec3) -> RigidBody {
    let shape = RigidShape {
        shape: ColliderShape::Cuboid { half_extents: half },
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
    };
    RigidBody::new(name, at, vec![shape], 1000.0)
}

/// A joint from the world at `anchor` (world frame, axis rotation `rot`) to `body`,
/// whose frame sits at `at` with identity orientation.
fn to_world(kind: JointKind, anchor: Vec3, rot: Quat, at: Vec3) -> Joint {
    Joint {
        name: "/joint".into(),
        bodies: [None, Some(RigidId(0))],
        frames: [(anchor, rot), (anchor - at, rot)],
        kind,
        collision_enabled: false,
        drive: None,
        break_at: [f32::INFINITY; 2],
        articulated: false,
    }
}

fn solver(rigid_bodies: Vec<RigidBody>, joints: Vec<Joint>) -> Solver {
    let scene = Scene { gravity: Vec3::new(0.0, 0.0, -G), rigid_bodies, joints, ..Default::default() };
    Solver::new(scene, Settings::default()).unwrap()
}

/// Times of the upward zero crossings of `x`, linearly interpolated.
fn crossings(samples: &[(f32, f32)]) -> Vec<f32> {
    samples
        .windows(2)
        .filter(|w| w[0].1 < 0.0 && w[1].1 >= 0.0)
        .map(|w| w[0].0 + (w[1].0 - w[0].0) * (-w[0].1 / (w[1].1 - w[0].1)))
        .collect()
}

#[test]
fn a_revolute_pendulum_swings_with_the_compound_pendulum_period() {
    let (l, r, theta) = (0.5f32, 0.05f32, 4f32.to_radians());
    let at = Vec3::new(l * theta.sin(), 0.0, -l * theta.cos());
    let mut s = solver(
        vec![ball("/bob", at, r)],
        vec![to_world(JointKind::Revolute { axis: JointAxis::Y, limit: None }, Vec3::ZERO, Quat::IDENTITY, at)],
    );
    let dt = s.settings().frame_dt;
    let mut samples = Vec::new();
    for k in 1..=240 {
        s.step_frame();
        samples.push((k as f32 * dt, s.rigid_pose(RigidId(0)).0.x));
    }
    // I about the pivot = m L² + 2/5 m r²: T = 2π √(I / (m g L)).
    let expected = std::f32::consts::TAU * ((l * l + 0.4 * r * r) / (G * l)).sqrt();
    let ups = crossings(&samples);
    assert!(ups.len() >= 5, "it did not swing: {ups:?}");
    let period = (ups[ups.len() - 1] - ups[0]) / (ups.len() - 1) as f32;
    assert!((period - expected).abs() < 0.01 * expected, "period {period} s, expected {expected} s");
    // The pivot holds: the bob stays L from it.
    let d = s.rigid_pose(RigidId(0)).0.length();
    assert!((d - l).abs() < 1e-3 * l, "the bob is {d} from the pivot");
}

#[test]
fn a_prismatic_slider_falls_along_its_axis_only_and_its_limit_stops_it() {
    // A slide axis 45° down in the XZ plane: gravity's component along it drives it.
    let axis = Vec3::new(1.0, 0.0, -1.0).normalize();
    let rot = Quat::from_rotation_arc(Vec3::X, axis);
    let start = Vec3::new(0.0, 0.0, 1.0);
    let travel = 0.3;
    let mut s = solver(
        vec![boxed("/slider", start, Vec3::splat(0.05))],
        vec![to_world(JointKind::Prismatic { axis: JointAxis::X, limit: Some([-1.0, travel]) }, start, rot, start)],
    );
    let dt = s.settings().frame_dt;
    let mut stopped = false;
    for k in 1..=48 {
        s.step_frame();
        let (p, q) = s.rigid_pose(RigidId(0));
        let along = (p - start).dot(axis);
        let off = (p - start - axis * along).length();
        assert!(off < 1e-4, "frame {k}: {off} m off the axis");
        assert!(q.angle_between(Quat::IDENTITY) < 1e-3, "frame {k}: the slider turned");
        assert!(along < travel + 2e-3, "frame {k}: slid {along} past its limit {travel}");
        let t = k as f32 * dt;
        let free = 0.5 * G * axis.dot(-Vec3::Z) * t * t;
        // From frame 4 on, symplectic Euler's (n+1)/n lead over ½gt² is under 1 %.
        if k >= 4 && free < travel * 0.9 {
            assert!((along - free).abs() < 0.02 * free.max(1e-3), "frame {k}: slid {along}, frictionless {free}");
        } else if free > travel * 1.5 {
            stopped = true;
            assert!((along - travel).abs() < 2e-3, "frame {k}: not held at the limit: {along}");
        }
    }
    assert!(stopped, "the slider never reached its limit");
}

#[test]
fn a_fixed_jointed_frame_stays_rigid_for_ten_seconds() {
    // Three bars: the first welded to the world, the others welded to it in an L.
    let bars = vec![
        boxed("/a", Vec3::new(0.0, 0.0, 1.0), Vec3::new(0.25, 0.02, 0.02)),
        boxed("/b", Vec3::new(0.27, 0.0, 0.75), Vec3::new(0.02, 0.02, 0.25)),
        boxed("/c", Vec3::new(0.52, 0.0, 0.52), Vec3::new(0.25, 0.02, 0.02)),
    ];
    let weld = |a: Option<usize>, b: usize, at: Vec3, poses: &[Vec3]| Joint {
        name: format!("/weld{b}"),
        bodies: [a.map(RigidId), Some(RigidId(b))],
        frames: [(a.map_or(at, |a| at - poses[a]), Quat::IDENTITY), (at - poses[b], Quat::IDENTITY)],
        kind: JointKind::Fixed,
        collision_enabled: false,
        drive: None,
        break_at: [f32::INFINITY; 2],
        articulated: false,
    };
    let poses: Vec<Vec3> = bars.iter().map(|b| b.translation).collect();
    let joints = vec![
        weld(None, 0, Vec3::new(-0.25, 0.0, 1.0), &poses),
        weld(Some(0), 1, Vec3::new(0.27, 0.0, 1.0), &poses),
        weld(Some(1), 2, Vec3::new(0.27, 0.0, 0.52), &poses),
    ];
    let mut s = solver(bars, joints);
    for _ in 0..240 {
        s.step_frame();
    }
    for (i, start) in poses.iter().enumerate() {
        let (p, q) = s.rigid_pose(RigidId(i));
        // A cantilevered frame of rigid bars sags only by the joints' own compliance.
        assert!(p.distance(*start) < 5e-3, "bar {i} moved {} m", p.distance(*start));
        assert!(q.angle_between(Quat::IDENTITY) < 1e-2, "bar {i} turned {} rad", q.angle_between(Quat::IDENTITY));
    }
}

#[test]
fn a_revolute_limit_stops_the_swing_and_a_rope_holds_its_length() {
    // A bar hinged at one end, level, allowed down 30° only.
    let at = Vec3::new(0.25, 0.0, 1.0);
    let limit = 30f32.to_radians();
    let hinge = to_world(
        JointKind::Revolute { axis: JointAxis::Y, limit: Some([-limit, limit]) },
        Vec3::new(0.0, 0.0, 1.0),
        Quat::IDENTITY,
        at,
    );
    let mut s = solver(vec![boxed("/bar", at, Vec3::new(0.25, 0.02, 0.02))], vec![hinge]);
    for _ in 0..48 {
        s.step_frame();
    }
    let (_, q) = s.rigid_pose(RigidId(0));
    let (axis, angle) = q.to_axis_angle();
    assert!(axis.y.abs() > 0.99, "it turned about {axis}");
    assert!((angle - limit).abs() < 0.02, "held at {} deg, the limit is 30", angle.to_degrees());

    // A ball on a 0.4 m rope from a point 0.3 m above it: it falls until taut.
    let at = Vec3::new(0.0, 0.0, 0.7);
    let rope = to_world(JointKind::Distance { max: 0.4 }, Vec3::new(0.0, 0.0, 1.0), Quat::IDENTITY, at);
    let rope = Joint { frames: [(Vec3::new(0.0, 0.0, 1.0), Quat::IDENTITY), (Vec3::ZERO, Quat::IDENTITY)], ..rope };
    let mut s = solver(vec![ball("/ball", at, 0.03)], vec![rope]);
    for _ in 0..48 {
        s.step_frame();
    }
    let d = s.rigid_pose(RigidId(0)).0.distance(Vec3::new(0.0, 0.0, 1.0));
    assert!((d - 0.4).abs() < 5e-3, "the rope is {d} m long");
}

#[test]
fn a_joint_to_nothing_is_refused() {
    let j = Joint {
        name: "/loose".into(),
        bodies: [None, None],
        frames: [(Vec3::ZERO, Quat::IDENTITY); 2],
        kind: JointKind::Fixed,
        collision_enabled: false,
        drive: None,
        break_at: [f32::INFINITY; 2],
        articulated: false,
    };
    let scene = Scene { rigid_bodies: vec![ball("/b", Vec3::ZERO, 0.1)], joints: vec![j], ..Default::default() };
    let err = Solver::new(scene, Settings::default()).err().expect("refused");
    assert!(err.to_string().contains("/loose"), "{err}");
}

/// An angular drive turns a hinged bar (no gravity) to its target with the response of
/// the damped oscillator its stiffness and damping make: I θ'' = k (θt − θ) − c θ' for a
/// force drive, θ'' = k (θt − θ) − c θ' for an acceleration drive.
#[test]
fn an_angular_drive_reaches_its_target_as_its_damped_oscillator_predicts() {
    let half = Vec3::new(0.25, 0.02, 0.02);
    let mass = 1000.0 * 8.0 * half.x * half.y * half.z;
    // About the hinge at the bar's end: the centre's m (a² + b²)/3 plus m d².
    let inertia = mass * (half.x * half.x + half.y * half.y) / 3.0 + mass * half.x * half.x;
    let (omega, zeta, target) = (std::f32::consts::TAU, 0.2f32, 30f32.to_radians());
    for acceleration in [false, true] {
        let scale = if acceleration { 1.0 } else { inertia };
        let drive = Drive {
            target_position: target,
            target_velocity: 0.0,
            stiffness: scale * omega * omega,
            damping: scale * 2.0 * zeta * omega,
            max_force: f32::INFINITY,
            acceleration,
        };
        let at = Vec3::new(half.x, 0.0, 0.0);
        let hinge = Joint {
            drive: Some(drive),
            ..to_world(JointKind::Revolute { axis: JointAxis::Z, limit: None }, Vec3::ZERO, Quat::IDENTITY, at)
        };
        let scene = Scene { rigid_bodies: vec![boxed("/bar", at, half)], joints: vec![hinge], ..Default::default() };
        let mut s = Solver::new(scene, Settings::default()).unwrap();
        let dt = s.settings().frame_dt;
        let wd = omega * (1.0 - zeta * zeta).sqrt();
        let mut worst = 0.0f32;
        // 4 s: the envelope e^(−ζωt) is down to 0.7 %.
        for k in 1..=96 {
            s.step_frame();
            let t = k as f32 * dt;
            let expected = target
                * (1.0
                    - (-zeta * omega * t).exp()
                        * ((wd * t).cos() + zeta / (1.0 - zeta * zeta).sqrt() * (wd * t).sin()));
            let angle = s.joint_coordinate(0).unwrap();
            worst = worst.max((angle - expected).abs());
            // The bar turns about the hinge, which stays put.
            let (p, q) = s.rigid_pose(RigidId(0));
            assert!((p - q * at).length() < 1e-3, "frame {k}: the hinge moved");
        }
        assert!(worst < 0.03 * target, "acceleration {acceleration}: {} rad off the oscillator", worst);
        let last = s.joint_coordinate(0).unwrap();
        assert!(
            (last - target).abs() < 0.05 * target,
            "acceleration {acceleration}: settled at {last}, target {target}"
        );
        // A new target moves it on.
        s.set_joint_target(0, -target, 0.0).unwrap();
        for _ in 0..96 {
            s.step_frame();
        }
        let moved = s.joint_coordinate(0).unwrap();
        assert!((moved + target).abs() < 0.05 * target, "acceleration {acceleration}: at {moved} after the new target");
    }
}

/// A ball hung by a fixed joint: its weight m·g is the joint's load. A joint that holds
/// 1.25 m·g keeps it for 2 s; one that holds 0.8 m·g breaks at once and lets it fall.
#[test]
fn a_joint_breaks_under_the_load_that_exceeds_it_and_not_before() {
    let at = Vec3::new(0.0, 0.0, 1.0);
    let weight = 1000.0 * 4.0 / 3.0 * std::f32::consts::PI * 0.05f32.powi(3) * G;
    for (factor, breaks) in [(1.25, false), (0.8, true)] {
        let weld =
            Joint { break_at: [factor * weight, f32::INFINITY], ..to_world(JointKind::Fixed, at, Quat::IDENTITY, at) };
        let mut s = solver(vec![ball("/ball", at, 0.05)], vec![weld]);
        for _ in 0..48 {
            s.step_frame();
        }
        let drop = at.z - s.rigid_pose(RigidId(0)).0.z;
        assert_eq!(s.joint_broken(0), breaks, "holding {factor} of its weight");
        if breaks {
            // Free fall for (nearly) 2 s: ½ g t² = 19.6 m.
            assert!(drop > 19.0, "it fell {drop} m");
        } else {
            assert!(drop < 1e-3, "it sagged {drop} m");
        }
    }
}

/// An arm of six revolute links held level by stiff force drives at fixed targets stays
/// within 1 mm of its pose for 2 s: rapier's joints and motors hold the chain against
/// gravity (with the solver iterations a driven scene gets, `rigid.rs`).
#[test]
fn a_six_joint_arm_held_by_drives_stays_within_a_millimetre() {
    let (n, link) = (6usize, 0.2f32);
    let half = Vec3::new(link / 2.0, 0.02, 0.02);
    let bodies: Vec<RigidBody> =
        (0..n).map(|i| boxed(&format!("/link{i}"), Vec3::new(link * (i as f32 + 0.5), 0.0, 1.0), half)).collect();
    let poses: Vec<Vec3> = bodies.iter().map(|b| b.translation).collect();
    let drive = Drive {
        target_position: 0.0,
        target_velocity: 0.0,
        stiffness: 1e6,
        damping: 400.0,
        max_force: f32::INFINITY,
        acceleration: false,
    };
    let joints: Vec<Joint> = (0..n)
        .map(|i| {
            let hinge = Vec3::new(link * i as f32, 0.0, 1.0);
            let parent = i.checked_sub(1);
            Joint {
                name: format!("/joint{i}"),
                bodies: [parent.map(RigidId), Some(RigidId(i))],
                frames: [
                    (parent.map_or(hinge, |p| hinge - poses[p]), Quat::IDENTITY),
                    (hinge - poses[i], Quat::IDENTITY),
                ],
                kind: JointKind::Revolute { axis: JointAxis::Y, limit: None },
                collision_enabled: false,
                drive: Some(drive),
                break_at: [f32::INFINITY; 2],
                articulated: false,
            }
        })
        .collect();
    let mut s = solver(bodies, joints);
    let mut worst = 0.0f32;
    for _ in 0..48 {
        s.step_frame();
        for (i, start) in poses.iter().enumerate() {
            worst = worst.max(s.rigid_pose(RigidId(i)).0.distance(*start));
        }
    }
    assert!(worst < 1e-3, "a link moved {worst} m from its pose");
}

/// The largest angle the ball's hanging line makes with straight down over 2 s, after
/// a kick of `v` at a ball 0.5 m below a ball joint about Z whose `cone` limits its swing.
fn largest_swing(cone: [Option<f32>; 2], v: Vec3) -> f32 {
    let pivot = Vec3::new(0.0, 0.0, 1.0);
    let at = Vec3::new(0.0, 0.0, 0.5);
    let mut bob = ball("/bob", at, 0.05);
    bob.linear_velocity = v;
    let joint = to_world(JointKind::Spherical { axis: JointAxis::Z, cone }, pivot, Quat::IDENTITY, at);
    let mut s = solver(vec![bob], vec![joint]);
    let mut largest = 0.0f32;
    for _ in 0..48 {
        s.step_frame();
        let line = s.rigid_pose(RigidId(0)).0 - pivot;
        largest = largest.max(line.angle_between(-Vec3::Z));
    }
    largest
}

/// A ball joint's cone limits stop its swing: `coneAngle0Limit` toward the next axis
/// (X, after Z), `coneAngle1Limit` toward the third (Y); a kick that swings it 60°
/// freely is stopped at each limit.
#[test]
fn a_spherical_cone_limit_stops_the_swing_toward_each_axis() {
    // 2.2 m/s at 0.5 m lifts the ball to 60°: v² = 2gL(1 − cos θ).
    let (toward_x, toward_y) = (Vec3::new(2.2, 0.0, 0.0), Vec3::new(0.0, 2.2, 0.0));
    let free = largest_swing([None, None], toward_x);
    assert!((free.to_degrees() - 60.0).abs() < 3.0, "free, it swung to {}°", free.to_degrees());
    let cone = [Some(15f32.to_radians()), Some(35f32.to_radians())];
    for (kick, limit) in [(toward_x, 15.0), (toward_y, 35.0)] {
        let swing = largest_swing(cone, kick).to_degrees();
        assert!((swing - limit).abs() < 1.5, "kicked along {kick}, it swung to {swing}°, the cone's limit {limit}°");
    }
}

/// A generic joint (UsdPhysics' `PhysicsJoint` with `PhysicsLimitAPI`) with everything
/// locked but travel along Z, limited to 10 cm down: a box kicked sideways and spun
/// falls 10 cm straight down and stops, without turning.
#[test]
fn a_generic_joint_moves_only_along_its_limited_degree_of_freedom() {
    use usdsim_core::DofLimit::{Limited, Locked};
    let at = Vec3::new(0.0, 0.0, 1.0);
    let mut block = boxed("/block", at, Vec3::splat(0.05));
    block.linear_velocity = Vec3::new(1.0, 0.5, 0.0);
    block.angular_velocity = Vec3::new(0.0, 0.0, 3.0);
    let dofs = [Locked, Locked, Limited([-0.1, 0.0]), Locked, Locked, Locked];
    let joint = to_world(JointKind::Generic { dofs, drives: [None; 6] }, at, Quat::IDENTITY, at);
    let mut s = solver(vec![block], vec![joint]);
    for _ in 0..24 {
        s.step_frame();
    }
    let (p, q) = s.rigid_pose(RigidId(0));
    assert!((p.z - 0.9).abs() < 2e-3, "it stopped at z = {}, the limit 0.9", p.z);
    assert!(p.truncate().length() < 1e-3, "it moved sideways to {p}");
    assert!(q.angle_between(Quat::IDENTITY) < 1e-3, "it turned by {} rad", q.angle_between(Quat::IDENTITY));
}

/// The largest gap that opens at any hinge of a six-link chain released level and
/// swinging freely for 2 s, with its joints `articulated` or not.
fn chain_hinge_gap(articulated: bool) -> f32 {
    let (n, link) = (6usize, 0.2f32);
    let half = Vec3::new(link / 2.0, 0.02, 0.02);
    let bodies: Vec<RigidBody> =
        (0..n).map(|i| boxed(&format!("/link{i}"), Vec3::new(link * (i as f32 + 0.5), 0.0, 1.0), half)).collect();
    let joints: Vec<Joint> = (0..n)
        .map(|i| {
            let hinge = Vec3::new(link * i as f32, 0.0, 1.0);
            let parent = i.checked_sub(1);
            let centre = |k: usize| Vec3::new(link * (k as f32 + 0.5), 0.0, 1.0);
            Joint {
                name: format!("/joint{i}"),
                bodies: [parent.map(RigidId), Some(RigidId(i))],
                frames: [
                    (parent.map_or(hinge, |p| hinge - centre(p)), Quat::IDENTITY),
                    (hinge - centre(i), Quat::IDENTITY),
                ],
                kind: JointKind::Revolute { axis: JointAxis::Y, limit: None },
                collision_enabled: false,
                drive: None,
                break_at: [f32::INFINITY; 2],
                articulated,
            }
        })
        .collect();
    let mut s = solver(bodies, joints);
    let mut gap = 0.0f32;
    for _ in 0..48 {
        s.step_frame();
        for i in 1..n {
            let (a, qa) = s.rigid_pose(RigidId(i - 1));
            let (b, qb) = s.rigid_pose(RigidId(i));
            let hinge_a = a + qa * Vec3::new(link / 2.0, 0.0, 0.0);
            let hinge_b = b + qb * Vec3::new(-link / 2.0, 0.0, 0.0);
            gap = gap.max(hinge_a.distance(hinge_b));
        }
    }
    gap
}

/// An articulation is simulated in reduced coordinates (a rapier multibody): a freely
/// swinging six-link chain's hinges never open, where the same chain of impulse joints
/// (maximal coordinates, solved iteratively) lets them drift apart.
#[test]
fn an_articulated_chain_keeps_its_hinges_closed_exactly() {
    let (reduced, maximal) = (chain_hinge_gap(true), chain_hinge_gap(false));
    assert!(reduced < 1e-5, "the articulated chain's hinges opened by {reduced} m");
    assert!(maximal > 10.0 * reduced, "impulse joints opened by {maximal} m, the articulation by {reduced} m");
}
