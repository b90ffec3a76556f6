//! Attachments of every kind, against static, animated, deformable and rigid targets,
//! checked against closed-form physics: hard sites coincide, soft ones sag by `F/k`.

use glam::{Mat4, Quat, Vec3};
use usdsim_core::{
    Attachment, Body, BodyKind, ColliderShape, Frame, Material, RigidBody, RigidShape, Scene, Settings, Site, Solver,
};
use usdsim_core::{BodyId, FrameId, RigidId};

const G: f32 = 9.81;

fn material() -> Material {
    Material {
        youngs_modulus: 1e6,
        poissons_ratio: 0.3,
        density: 1000.0,
        thickness: 0.001,
        stretch_stiffness: 0.0,
        shear_stiffness: 0.0,
        bend_stiffness: 0.0,
        dynamic_friction: 0.5,
        static_friction: 0.5,
        damping: 0.0,
        bend_damping: 0.0,
    }
}

/// A single vertex of mass `m` (a body without elements).
fn point_mass(p: Vec3, m: f32) -> Body {
    let mut b = Body::new("point", BodyKind::Surface, vec![p], material());
    b.point_masses = vec![m];
    b
}

/// An immovable (kinematic) triangle in the z = 0 plane.
fn fixed_triangle() -> Body {
    let mut b = Body::new(
        "triangle",
        BodyKind::Surface,
        vec![Vec3::ZERO, Vec3::new(1.0, 0.0, 0.0), Vec3::new(0.0, 1.0, 0.0)],
        material(),
    );
    b.triangles = vec![[0, 1, 2]];
    b.rest_elements = vec![[0, 1, 2, 0]];
    b.kinematic = true;
    b
}

/// An immovable (kinematic) unit corner tetrahedron.
fn fixed_tet() -> Body {
    let mut b = Body::new("tet", BodyKind::Volume, vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z], material());
    b.tets = vec![[0, 1, 2, 3]];
    b.rest_elements = vec![[0, 1, 2, 3]];
    b.kinematic = true;
    b
}

fn settings() -> Settings {
    // Deformable contact is another file's business; here the attached pieces overlap.
    Settings {
        substeps: 20,
        iterations: 10,
        frame_dt: 1.0 / 24.0,
        deformable_contact: false,
        self_contact: Some(false),
        ..Settings::default()
    }
}

fn scene(bodies: Vec<Body>, attachments: Vec<Attachment>) -> Scene {
    Scene {
        gravity: Vec3::new(0.0, 0.0, -G),
        bodies,
        attachments,
        frames: vec![Frame { name: "world".into(), world_from_local: Mat4::IDENTITY }],
        ..Default::default()
    }
}

/// Runs `frames` frames and returns the solver.
fn run(scene: Scene, frames: u32) -> Solver {
    let mut solver = Solver::new(scene, settings()).unwrap();
    for _ in 0..frames {
        solver.step_frame();
    }
    solver
}

/// Where a point mass hanging from `site` (body 0 holds whatever `site` refers to,
/// the point mass is the last body) ends, for the given stiffness. Damped to rest.
fn hang_point_mass(mut bodies: Vec<Body>, site: Site, start: Vec3, stiffness: f32) -> Vec3 {
    let m = 0.1;
    let b = bodies.len();
    bodies.push(point_mass(start, m));
    let damping = if stiffness.is_finite() { 2.0 * (stiffness * m).sqrt() } else { 0.0 };
    let att = Attachment { a: Site::Vertex { body: BodyId(b), vertex: 0 }, b: site, stiffness, damping };
    let solver = run(scene(bodies, vec![att]), 72);
    solver.positions(BodyId(b))[0]
}

/// Hard: the mass sits on `target`; soft: `m·g/k` below it, for two stiffnesses.
fn check_hard_and_soft(bodies: Vec<Body>, site: Site, target: Vec3) {
    let hard = hang_point_mass(bodies.clone(), site, target, f32::INFINITY);
    assert!(hard.distance(target) < 1e-4, "hard attachment: {hard} vs {target}");
    for k in [50.0f32, 100.0] {
        let p = hang_point_mass(bodies.clone(), site, target, k);
        let sag = target.z - p.z;
        let expected = 0.1 * G / k;
        assert!((sag / expected - 1.0).abs() < 0.02, "k = {k}: sag {sag}, expected m·g/k = {expected}");
        assert!(Vec3::new(p.x - target.x, p.y - target.y, 0.0).length() < 1e-4);
    }
}

#[test]
fn vertex_to_static_frame_hard_and_soft() {
    let target = Vec3::new(0.3, -0.2, 1.0);
    check_hard_and_soft(vec![], Site::Frame { frame: FrameId(0), local: target }, target);
}

#[test]
fn vertex_to_vertex_hard_and_soft() {
    check_hard_and_soft(vec![fixed_triangle()], Site::Vertex { body: BodyId(0), vertex: 1 }, Vec3::X);
}

#[test]
fn vertex_to_triangle_with_normal_offset() {
    // u·v0 + v·v1 + (1−u−v)·v2 = (0.5, 0.3, 0) on this triangle, lifted 0.2 along +z.
    let site = Site::Triangle { body: BodyId(0), triangle: 0, uv: [0.2, 0.5], normal_offset: 0.2 };
    check_hard_and_soft(vec![fixed_triangle()], site, Vec3::new(0.5, 0.3, 0.2));
}

#[test]
fn vertex_to_tetrahedron() {
    // 0.1·v0 + 0.2·v1 + 0.3·v2 + 0.4·v3.
    let site = Site::Tet { body: BodyId(0), tet: 0, coords: [0.1, 0.2, 0.3] };
    check_hard_and_soft(vec![fixed_tet()], site, Vec3::new(0.2, 0.3, 0.4));
}

/// A free triangle of three point masses (total `3m`), held at its centroid.
fn free_triangle(z: f32) -> Body {
    let mut b = Body::new(
        "free",
        BodyKind::Surface,
        vec![Vec3::new(0.0, 0.0, z), Vec3::new(0.1, 0.0, z), Vec3::new(0.0, 0.1, z)],
        material(),
    );
    b.triangles = vec![[0, 1, 2]];
    b.rest_elements = vec![[0, 1, 2, 0]];
    b.point_masses = vec![0.1; 3];
    b
}

fn centroid(p: &[Vec3]) -> Vec3 {
    p.iter().copied().sum::<Vec3>() / p.len() as f32
}

#[test]
fn triangle_to_triangle_and_tet_to_frame() {
    let third = 1.0 / 3.0;
    let target = Vec3::new(0.4, 0.3, 0.0);
    for stiffness in [f32::INFINITY, 100.0] {
        // TriTri: the free triangle's centroid on the fixed triangle's point (0.4, 0.3, 0).
        let a = Site::Triangle { body: BodyId(1), triangle: 0, uv: [third, third], normal_offset: 0.0 };
        let b = Site::Triangle { body: BodyId(0), triangle: 0, uv: [0.3, 0.4], normal_offset: 0.0 };
        let damping = if stiffness.is_finite() { 2.0 * (stiffness * 0.3f32).sqrt() } else { 0.0 };
        let att = Attachment { a, b, stiffness, damping };
        let solver = run(scene(vec![fixed_triangle(), free_triangle(0.0)], vec![att]), 72);
        let c = centroid(&solver.positions(BodyId(1)));
        let expected = if stiffness.is_finite() { 0.3 * G / stiffness } else { 0.0 };
        assert!((target.z - c.z - expected).abs() < 0.02 * expected + 1e-4, "TriTri k={stiffness}: {c}");

        // TetXform: a free tet's centroid held at a point of a static frame.
        let mut tet = fixed_tet();
        tet.kinematic = false;
        tet.point_masses = vec![0.075; 4];
        tet.positions.iter_mut().for_each(|p| *p = *p * 0.1 + target);
        tet.rest_points = tet.positions.clone();
        let frame_point = target + Vec3::splat(0.025);
        let a = Site::Tet { body: BodyId(0), tet: 0, coords: [0.25; 3] };
        let att = Attachment { a, b: Site::Frame { frame: FrameId(0), local: frame_point }, stiffness, damping };
        let solver = run(scene(vec![tet], vec![att]), 72);
        let c = centroid(&solver.positions(BodyId(0)));
        assert!((frame_point.z - c.z - expected).abs() < 0.02 * expected + 1e-4, "TetXform k={stiffness}: {c}");
        assert!(Vec3::new(c.x - frame_point.x, c.y - frame_point.y, 0.0).length() < 1e-3);
    }
}

/// A square cloth in the z = 0 plane, `n × n` quads of side `size`.
fn cloth(n: u32, size: f32, origin: Vec3) -> Body {
    let mut positions = Vec::new();
    for j in 0..=n {
        for i in 0..=n {
            positions.push(origin + Vec3::new(i as f32, j as f32, 0.0) * (size / n as f32));
        }
    }
    let mut b = Body::new("cloth", BodyKind::Surface, positions, Material { youngs_modulus: 1e7, ..material() });
    let id = |i: u32, j: u32| j * (n + 1) + i;
    for j in 0..n {
        for i in 0..n {
            b.triangles.push([id(i, j), id(i + 1, j), id(i + 1, j + 1)]);
            b.triangles.push([id(i, j), id(i + 1, j + 1), id(i, j + 1)]);
        }
    }
    b.rest_elements = b.triangles.iter().map(|t| [t[0], t[1], t[2], t[0]]).collect();
    b
}

#[test]
fn cloth_pinned_at_two_corners_keeps_them_exactly_on_target() {
    let n = 8;
    let body = cloth(n, 1.0, Vec3::ZERO);
    let corners = [0u32, n];
    let targets: Vec<Vec3> = corners.iter().map(|&v| body.positions[v as usize]).collect();
    let attachments = corners
        .iter()
        .zip(&targets)
        .map(|(&v, &t)| Attachment {
            a: Site::Vertex { body: BodyId(0), vertex: v },
            b: Site::Frame { frame: FrameId(0), local: t },
            stiffness: f32::INFINITY,
            damping: 0.0,
        })
        .collect();
    let mut solver = Solver::new(scene(vec![body], attachments), settings()).unwrap();
    let mut lowest = f32::MAX;
    for _ in 0..48 {
        solver.step_frame();
        let p = solver.positions(BodyId(0));
        for (&v, &t) in corners.iter().zip(&targets) {
            assert_eq!(p[v as usize], t, "pinned corner {v} moved");
        }
        lowest = lowest.min(p.iter().map(|p| p.z).fold(f32::MAX, f32::min));
    }
    // And the cloth swings down below its pins.
    assert!(lowest < -0.8, "lowest point {lowest}");
}

#[test]
fn vertices_follow_an_animated_frame() {
    let n = 4;
    let body = cloth(n, 0.5, Vec3::ZERO);
    let attachments = (0..=n)
        .map(|v| Attachment {
            a: Site::Vertex { body: BodyId(0), vertex: v },
            b: Site::Frame { frame: FrameId(0), local: Vec3::new(v as f32 * 0.125, 0.0, 0.0) },
            stiffness: f32::INFINITY,
            damping: 0.0,
        })
        .collect();
    let mut solver = Solver::new(scene(vec![body], attachments), settings()).unwrap();
    for frame in 1..=24 {
        let t = frame as f32 / 24.0;
        let m = Mat4::from_rotation_translation(Quat::from_rotation_z(t), Vec3::new(t, 0.5 * t, 0.2 * t));
        solver.set_frame_target(FrameId(0), m).unwrap();
        solver.step_frame();
        for v in 0..=n {
            let expected = m.transform_point3(Vec3::new(v as f32 * 0.125, 0.0, 0.0));
            assert!(solver.positions(BodyId(0))[v as usize].distance(expected) < 1e-5, "frame {frame}, vertex {v}");
        }
    }
}

fn box_body(at: Vec3, half: f32) -> RigidBody {
    let shape = RigidShape {
        shape: ColliderShape::Cuboid { half_extents: Vec3::splat(half) },
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
    };
    RigidBody::new("box", at, vec![shape], 1000.0)
}

#[test]
fn free_falling_rigid_box_matches_half_g_t_squared() {
    let mut s = scene(vec![], vec![]);
    s.rigid_bodies = vec![box_body(Vec3::new(0.0, 0.0, 10.0), 0.1)];
    let solver = run(s, 24);
    let (p, _) = solver.rigid_pose(RigidId(0));
    let fall = 10.0 - p.z;
    let expected = 0.5 * G * 1.0;
    // Semi-implicit Euler at dt = 1/480 s overshoots by about dt/t.
    assert!((fall / expected - 1.0).abs() < 0.01, "fell {fall}, expected {expected}");
    assert!((solver.rigid_mass(RigidId(0)) - 8.0).abs() < 1e-3, "0.2³ m³ · 1000 kg/m³");
}

#[test]
fn rigid_box_rests_on_the_ground() {
    let mut s = scene(vec![], vec![]);
    s.colliders = vec![usdsim_core::Collider {
        name: "ground".into(),
        shape: ColliderShape::Plane { normal: Vec3::Z },
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        friction: 0.5,
    }];
    s.rigid_bodies = vec![box_body(Vec3::new(0.0, 0.0, 0.5), 0.1)];
    let solver = run(s, 48);
    let (p, _) = solver.rigid_pose(RigidId(0));
    assert!((p.z - 0.1).abs() < 0.01, "box centre at {p}");
}

#[test]
fn cloth_attached_to_a_box_pulls_on_the_box() {
    // A cloth pinned at two corners holds a 0.5 kg box hanging from its free edge: the
    // box, alone in free fall for 1 s, would fall 4.9 m.
    let n = 6;
    let body = cloth(n, 0.6, Vec3::new(0.0, 0.0, 1.0));
    let mut attachments: Vec<Attachment> = [0u32, n]
        .iter()
        .map(|&v| Attachment {
            a: Site::Vertex { body: BodyId(0), vertex: v },
            b: Site::Frame { frame: FrameId(0), local: body.positions[v as usize] },
            stiffness: f32::INFINITY,
            damping: 0.0,
        })
        .collect();
    let edge = n * (n + 1);
    let box_at = body.positions[(edge + n / 2) as usize] - Vec3::new(0.0, 0.0, 0.05);
    for v in edge..=edge + n {
        let local = body.positions[v as usize] - box_at;
        attachments.push(Attachment {
            a: Site::Vertex { body: BodyId(0), vertex: v },
            b: Site::Rigid { rigid: RigidId(0), local },
            stiffness: f32::INFINITY,
            damping: 0.0,
        });
    }
    let mut s = scene(vec![body], attachments);
    let mut rb = box_body(box_at, 0.05);
    rb.mass = Some(0.5);
    s.rigid_bodies = vec![rb];
    let solver = run(s, 24);
    let (p, _) = solver.rigid_pose(RigidId(0));
    let fall = box_at.z - p.z;
    assert!(fall < 1.0, "the box fell {fall} m: the cloth did not hold it");
    assert!(fall > 0.05, "the box did not move ({fall} m)");
    // The box hangs below the cloth's pinned edge, pulled towards it (y decreases).
    assert!(p.y < box_at.y - 0.1, "the cloth did not pull the box towards the pins: {p}");
    // The attached vertices sit on the box.
    let (p, q) = solver.rigid_pose(RigidId(0));
    let cloth_edge = solver.positions(BodyId(0))[(edge + n / 2) as usize];
    assert!(cloth_edge.distance(p + q * Vec3::new(0.0, 0.0, 0.05)) < 2e-3);
}
