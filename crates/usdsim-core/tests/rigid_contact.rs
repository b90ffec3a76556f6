//! Deformable bodies colliding with rigid bodies, both ways: a jelly cube lands on a
//! dynamic box resting on the ground, a thrown box hits a floating cube (momentum), a
//! cloth drapes over a kinematic sphere; filters, waking and thread-count independence.

use glam::{Quat, UVec3, Vec3};
use usdsim_core::{
    grid, Body, Collider, ColliderShape, CollisionObject, Material, RigidBody, RigidShape, Scene, Settings, Solver,
};
use usdsim_core::{BodyId, RigidId};

const G: f32 = 9.81;
const OFFSET: f32 = 0.005;

fn material(youngs: f32, density: f32) -> Material {
    Material { damping: 0.01, ..Material::elastic(youngs, 0.3, density) }
}

/// A tet-meshed cube of `cells`³ cells from `min`, edge `size`.
fn cube(min: Vec3, size: f32, cells: u32, density: f32) -> Body {
    grid::tet_body("/cube", min, min + Vec3::splat(size), UVec3::splat(cells), material(5e4, density))
}

fn cloth(origin: Vec3, size: f32, verts: u32) -> Body {
    grid::cloth_body("/cloth", origin, Vec3::X, Vec3::Y, (size, size), (verts, verts), material(1e5, 200.0))
}

fn ground() -> Collider {
    Collider {
        name: "/ground".into(),
        shape: ColliderShape::Plane { normal: Vec3::Z },
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        friction: 0.5,
    }
}

fn rigid(name: &str, at: Vec3, shape: ColliderShape) -> RigidBody {
    RigidBody::new(name, at, vec![RigidShape { shape, translation: Vec3::ZERO, rotation: Quat::IDENTITY }], 1000.0)
}

fn box_shape(half: f32) -> ColliderShape {
    ColliderShape::Cuboid { half_extents: Vec3::splat(half) }
}

fn settings() -> Settings {
    Settings { contact_offset: OFFSET, ..Settings::default() }
}

/// Signed distance from `p` to the box of half extent `half` at pose `(pos, rot)`.
fn box_distance(p: Vec3, (pos, rot): (Vec3, Quat), half: f32) -> f32 {
    let d = (rot.inverse() * (p - pos)).abs() - Vec3::splat(half);
    d.max(Vec3::ZERO).length() + d.max_element().min(0.0)
}

/// Total linear momentum: rigid bodies' `m·v` plus every vertex's `m·v`.
fn momentum(s: &Solver) -> Vec3 {
    let mut p: Vec3 = (0..s.rigid_count()).map(|r| s.rigid_mass(RigidId(r)) * s.rigid_velocity(RigidId(r)).0).sum();
    for b in 0..s.body_count() {
        p += s.masses(BodyId(b)).iter().zip(s.velocities(BodyId(b))).map(|(&m, &v)| m * v).sum::<Vec3>();
    }
    p
}

fn centre_velocity(s: &Solver, b: usize) -> Vec3 {
    s.masses(BodyId(b)).iter().zip(s.velocities(BodyId(b))).map(|(&m, &v)| m * v).sum::<Vec3>() / s.body_mass(BodyId(b))
}

const BOX_HALF: f32 = 0.1;

/// Scene (1): a 0.16 m jelly cube (1 kg) 5 cm above a dynamic 8 kg box (0.2 m) resting
/// on the ground.
fn cube_on_box() -> Scene {
    let top = 2.0 * BOX_HALF;
    Scene {
        gravity: Vec3::new(0.0, 0.0, -G),
        bodies: vec![cube(Vec3::new(-0.08, -0.08, top + 0.05), 0.16, 2, 250.0)],
        colliders: vec![ground()],
        rigid_bodies: vec![rigid("/box", Vec3::new(0.0, 0.0, BOX_HALF), box_shape(BOX_HALF))],
        ..Default::default()
    }
}

#[test]
fn a_jelly_cube_comes_to_rest_on_a_dynamic_box() {
    let mut s = Solver::new(cube_on_box(), settings()).unwrap();
    // Let the box settle on the ground alone while the cube falls.
    s.step_frame();
    let (settled, _) = s.rigid_pose(RigidId(0));
    let mut worst = f32::INFINITY;
    let mut lowest_box = settled.z;
    for frame in 0..48 {
        s.step_frame();
        let pose = s.rigid_pose(RigidId(0));
        for (i, &p) in s.positions(BodyId(0)).iter().enumerate() {
            let d = box_distance(p, pose, BOX_HALF);
            assert!(d > -0.5 * OFFSET, "frame {frame}: vertex {i} is {d} m inside the box");
            worst = worst.min(d);
        }
        lowest_box = lowest_box.min(pose.0.z);
    }
    let (p, q) = s.rigid_pose(RigidId(0));
    let centre = s.centre_of_mass(BodyId(0));
    let speed = s.velocities(BodyId(0)).iter().map(|v| v.length()).fold(0.0, f32::max);
    let bottom = s.positions(BodyId(0)).iter().map(|p| p.z).fold(f32::INFINITY, f32::min);
    println!(
        "closest vertex {worst:.5} m from the box; box settled at z = {:.5}, lowest {:.5}, now {p}; \
         cube bottom at {bottom:.5}, centre {centre}, fastest vertex {speed:.4} m/s",
        settled.z, lowest_box
    );
    // The cube rests on the box, kept at the contact offset.
    assert!(speed < 0.05, "the cube is still moving ({speed} m/s)");
    assert!((bottom - (p.z + BOX_HALF + OFFSET)).abs() < 0.01, "cube bottom {bottom}, box top {}", p.z + BOX_HALF);
    assert!(centre.truncate().length() < 0.01, "the cube slid off centre: {centre}");
    // The cube's weight pushes the box into its ground contact, never sideways.
    assert!(lowest_box <= settled.z, "the box was not pushed down at all");
    assert!(p.z > BOX_HALF - 0.01 && p.z < BOX_HALF + 0.002, "box centre at {p}");
    assert!(p.truncate().length() < 1e-3, "the box moved sideways: {p}");
    assert!(q.angle_between(Quat::IDENTITY) < 0.01, "the box turned: {q}");
}

#[test]
fn a_thrown_box_hits_a_floating_cube_and_momentum_is_conserved() {
    // No gravity: a 4 kg box at 2 m/s hits a free 1 kg cube. Contacts exchange equal and
    // opposite impulses, so total momentum changes by f32 rounding only (measured: at
    // most 1.5e-5 of it; the free cube's own elastic solve drifts by about that much).
    let mut b = rigid("/box", Vec3::new(-0.5, 0.1, 0.1), box_shape(BOX_HALF));
    b.mass = Some(4.0);
    b.linear_velocity = Vec3::new(2.0, 0.0, 0.0);
    let scene = Scene {
        gravity: Vec3::ZERO,
        bodies: vec![cube(Vec3::ZERO, 0.2, 2, 125.0)],
        rigid_bodies: vec![b],
        ..Default::default()
    };
    let mut s = Solver::new(scene, settings()).unwrap();
    // Rapier fills in the box's mass on its first step; the box is 0.3 m from the cube.
    s.step_frame();
    let p0 = momentum(&s);
    assert!((p0 - Vec3::new(8.0, 0.0, 0.0)).length() < 1e-4, "{p0}");
    let mut worst = 0.0f32;
    let mut touched = false;
    for frame in 1..24 {
        s.step_frame();
        let p = momentum(&s);
        worst = worst.max((p - p0).length() / p0.length());
        assert!((p - p0).length() < 1e-4 * p0.length(), "frame {frame}: momentum {p}, started {p0}");
        let pose = s.rigid_pose(RigidId(0));
        for &x in &s.positions(BodyId(0)) {
            assert!(box_distance(x, pose, BOX_HALF) > -0.5 * OFFSET, "frame {frame}: a vertex is inside the box");
        }
        touched |= centre_velocity(&s, 0).x > 0.1;
    }
    let (vb, wb) = s.rigid_velocity(RigidId(0));
    let vc = centre_velocity(&s, 0);
    println!("largest relative momentum error {worst:e}; box {vb} (spin {wb}), cube {vc}");
    assert!(touched);
    assert!(vb.x > 0.5 && vb.x < 2.0, "the box should go on, slower: {vb}");
    assert!(vc.x > vb.x, "the cube should move ahead of the box: cube {vc}, box {vb}");
    // The tet mesh is not symmetric, so the cube tumbles a little and so does the box.
    assert!(vb.y.abs() < 0.05 * vb.x && vb.z.abs() < 0.05 * vb.x, "{vb}");
}

#[test]
fn a_cloth_drapes_over_a_kinematic_sphere() {
    let radius = 0.15;
    let mut sphere = rigid("/sphere", Vec3::ZERO, ColliderShape::Sphere { radius });
    sphere.kinematic = true;
    let scene = Scene {
        gravity: Vec3::new(0.0, 0.0, -G),
        bodies: vec![cloth(Vec3::new(-0.3, -0.3, 0.25), 0.6, 21)],
        rigid_bodies: vec![sphere],
        ..Default::default()
    };
    let mut s = Solver::new(scene, settings()).unwrap();
    let mut worst = f32::INFINITY;
    for frame in 0..36 {
        s.step_frame();
        for (i, p) in s.positions(BodyId(0)).iter().enumerate() {
            let d = p.length() - radius;
            assert!(d > 0.0, "frame {frame}: cloth vertex {i} is {d} m inside the sphere");
            worst = worst.min(d);
        }
    }
    let lowest = s.positions(BodyId(0)).iter().map(|p| p.z).fold(f32::INFINITY, f32::min);
    let top = s.positions(BodyId(0))[10 * 21 + 10];
    println!("closest vertex {worst:.5} m from the sphere; lowest z {lowest:.3}; top vertex {top}");
    assert!(lowest < -0.05, "the cloth does not hang over the sphere (lowest z {lowest})");
    assert!((top - Vec3::new(0.0, 0.0, radius + OFFSET + 5e-4)).length() < 0.01, "top vertex {top}");
    assert_eq!(s.rigid_pose(RigidId(0)), (Vec3::ZERO, Quat::IDENTITY), "a kinematic body is never pushed");
}

#[test]
fn a_filtered_pair_passes_through() {
    let mut scene = cube_on_box();
    scene.collision.pairs.push([CollisionObject::Body(BodyId(0)), CollisionObject::Rigid(RigidId(0))]);
    let mut s = Solver::new(scene, settings()).unwrap();
    for _ in 0..12 {
        s.step_frame();
    }
    let bottom = s.positions(BodyId(0)).iter().map(|p| p.z).fold(f32::INFINITY, f32::min);
    assert!(bottom < 2.0 * BOX_HALF - 0.05, "the filtered cube did not fall into the box (bottom at {bottom})");
}

#[test]
fn a_falling_box_wakes_a_sleeping_cube() {
    let mut body = cube(Vec3::new(-0.1, -0.1, OFFSET), 0.2, 2, 250.0);
    body.starts_asleep = true;
    let scene = Scene {
        gravity: Vec3::new(0.0, 0.0, -G),
        bodies: vec![body],
        colliders: vec![ground()],
        rigid_bodies: vec![rigid("/box", Vec3::new(0.0, 0.0, 0.2 + OFFSET + 0.15), box_shape(0.05))],
        ..Default::default()
    };
    let mut s = Solver::new(scene, settings()).unwrap();
    s.step_frame();
    assert!(s.is_asleep(BodyId(0)), "nothing touched the cube yet");
    for _ in 0..12 {
        s.step_frame();
    }
    assert!(!s.is_asleep(BodyId(0)), "the box landed on the cube without waking it");
    let pose = s.rigid_pose(RigidId(0));
    let closest = s.positions(BodyId(0)).iter().map(|&x| box_distance(x, pose, 0.05)).fold(f32::INFINITY, f32::min);
    assert!(closest > 0.0, "the box sank into the cube ({closest} m)");
    assert!(pose.0.z < 0.2 + OFFSET + 0.15 - 0.05, "the box did not fall onto the cube: {}", pose.0);
}

#[test]
fn rigid_contact_is_the_same_for_any_thread_count() {
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let mut s = Solver::new(cube_on_box(), settings()).unwrap();
            for _ in 0..24 {
                s.step_frame();
            }
            (
                s.positions(BodyId(0)).to_vec(),
                s.velocities(BodyId(0)).to_vec(),
                s.rigid_pose(RigidId(0)),
                s.rigid_velocity(RigidId(0)),
            )
        })
    };
    assert_eq!(run(1), run(2));
}
