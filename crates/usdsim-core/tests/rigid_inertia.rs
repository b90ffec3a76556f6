//! `physics:diagonalInertia` about `physics:principalAxes`: a body turned about an axis
//! that is not principal resists with the inertia the rotated tensor gives.

use glam::{Quat, Vec3};
use usdsim_core::{
    ColliderShape, Drive, Joint, JointAxis, JointKind, RigidBody, RigidId, RigidShape, Scene, Settings, Solver,
};

/// The time of the first peak of a body on a frictionless revolute hinge about world X
/// through its centre of mass, driven by a unit-stiffness force drive to 0.5 rad: the
/// half period π √(I / k) of the oscillator about that axis.
fn half_period(principal_axes: Quat) -> f32 {
    let shape = RigidShape {
        shape: ColliderShape::Cuboid { half_extents: Vec3::splat(0.1) },
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
    };
    let mut body = RigidBody::new("/body", Vec3::ZERO, vec![shape], 1000.0);
    body.mass = Some(1.0);
    body.center_of_mass = Some(Vec3::ZERO);
    body.diagonal_inertia = Some(Vec3::new(1.0, 3.0, 3.0));
    body.principal_axes = principal_axes;
    let drive = Drive {
        target_position: 0.5,
        target_velocity: 0.0,
        stiffness: 1.0,
        damping: 0.0,
        max_force: f32::INFINITY,
        acceleration: false,
    };
    let hinge = Joint {
        name: "/hinge".into(),
        bodies: [None, Some(RigidId(0))],
        frames: [(Vec3::ZERO, Quat::IDENTITY); 2],
        kind: JointKind::Revolute { axis: JointAxis::X, limit: None },
        collision_enabled: false,
        drive: Some(drive),
        break_at: [f32::INFINITY; 2],
        articulated: false,
    };
    let scene = Scene { rigid_bodies: vec![body], joints: vec![hinge], ..Default::default() };
    let mut s = Solver::new(scene, Settings::default()).unwrap();
    let dt = s.settings().frame_dt;
    let mut last = 0.0f32;
    for k in 1..=240 {
        s.step_frame();
        let angle = s.joint_coordinate(0).unwrap();
        if angle < last {
            return (k - 1) as f32 * dt;
        }
        last = angle;
    }
    panic!("no peak in 10 s");
}

#[test]
fn principal_axes_turn_the_inertia_tensor() {
    // About X: I = 1 along the body's own axes; with them turned 45° about Z, X lies
    // between the 1 and the 3 axes, I = (1 + 3) / 2 = 2.
    let own = half_period(Quat::IDENTITY);
    let turned = half_period(Quat::from_rotation_z(std::f32::consts::FRAC_PI_4));
    let pi = std::f32::consts::PI;
    assert!((own - pi).abs() < 0.03 * pi, "I = 1: half period {own} s, expected {pi}");
    let expected = pi * 2f32.sqrt();
    assert!((turned - expected).abs() < 0.03 * expected, "I = 2: half period {turned} s, expected {expected}");
}
