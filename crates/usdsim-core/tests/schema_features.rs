//! Per-element materials, authored masses, kinematic and sleeping bodies, per-body
//! gravity and embedded meshes, checked against physics and exact expectations.

use glam::{UVec3, Vec3};
use usdsim_core::BodyId;
use usdsim_core::{grid, Body, BodyKind, Collider, ColliderShape, Embedding, Material, Pin, Scene, Settings, Solver};

const G: f32 = 9.81;

fn material(youngs: f32, poisson: f32, density: f32) -> Material {
    Material::elastic(youngs, poisson, density)
}

fn tet_box(min: Vec3, max: Vec3, cells: UVec3, mat: Material) -> Body {
    let (points, tets) = grid::tet_box(min, max, cells);
    let mut body = Body::new("/box", BodyKind::Volume, points, mat);
    body.rest_elements = tets.clone();
    body.tets = tets;
    body
}

fn centroid_z(body: &Body, tet: usize) -> f32 {
    body.tets[tet].iter().map(|&i| body.positions[i as usize].z).sum::<f32>() / 4.0
}

fn settings(substeps: u32) -> Settings {
    Settings { substeps, frame_dt: 1.0 / 24.0, ..Settings::default() }
}

fn scene(bodies: Vec<Body>) -> Scene {
    Scene { gravity: Vec3::new(0.0, 0.0, -G), bodies, ..Default::default() }
}

/// A bar hanging under its own weight whose upper half is 10× stiffer: each half
/// stretches like a linear spring loaded by the weight below each section,
/// `δ_top = ρg·3L²/(8·E_top)`, `δ_bottom = ρg·L²/(8·E_bottom)` (ν = 0).
#[test]
fn two_material_bar_stretches_like_two_springs_in_series() {
    let (l, e, rho) = (1.0f32, 1e5f32, 1000.0f32);
    let mut soft = material(e, 0.0, rho);
    soft.damping = 0.01;
    let mut stiff = soft;
    stiff.youngs_modulus = 10.0 * e;
    let mut body = tet_box(Vec3::new(-0.05, -0.05, -l), Vec3::new(0.05, 0.05, 0.0), UVec3::new(2, 2, 16), soft);
    body.materials = vec![stiff.into()];
    body.element_materials =
        (0..body.tets.len()).map(|t| if centroid_z(&body, t) > -l / 2.0 { 0 } else { u32::MAX }).collect();
    let pins: Vec<Pin> = (0..body.positions.len())
        .filter(|&i| body.positions[i].z > -1e-6)
        .map(|i| Pin {
            body: BodyId(0),
            vertex: i as u32,
            target: body.positions[i],
            stiffness: f32::INFINITY,
            damping: 0.0,
        })
        .collect();
    let layer = |z: f32| -> Vec<usize> {
        (0..body.positions.len()).filter(|&i| (body.positions[i].z - z).abs() < 1e-6).collect()
    };
    let (middle, bottom) = (layer(-l / 2.0), layer(-l));
    let mut sc = scene(vec![body]);
    sc.pins = pins;
    let mut solver = Solver::new(sc, Settings { iterations: 10, ..settings(60) }).unwrap();
    for _ in 0..72 {
        solver.step_frame();
    }
    let p = solver.positions(BodyId(0));
    let mean_z = |ids: &[usize]| ids.iter().map(|&i| p[i].z).sum::<f32>() / ids.len() as f32;
    let top_stretch = -l / 2.0 - mean_z(&middle);
    let bottom_stretch = (mean_z(&middle) - mean_z(&bottom)) - l / 2.0;
    let expect_top = rho * G * 3.0 * l * l / (8.0 * 10.0 * e);
    let expect_bottom = rho * G * l * l / (8.0 * e);
    let rel = |a: f32, b: f32| (a - b).abs() / b;
    assert!(rel(bottom_stretch, expect_bottom) < 0.1, "soft half: {bottom_stretch} vs {expect_bottom}");
    assert!(rel(top_stretch, expect_top) < 0.25, "stiff half: {top_stretch} vs {expect_top}");
    let total = top_stretch + bottom_stretch;
    assert!(rel(total, expect_top + expect_bottom) < 0.1, "total {total}");
    // (Stiff halves need small substeps: at 20 substeps XPBD leaves a 10x stiffer
    // half ~1.7x too soft.) Far less than the homogeneous soft bar's ρgL²/(2E).
    assert!(total < 0.5 * rho * G * l * l / (2.0 * e));
}

#[test]
fn mass_with_two_densities_is_the_sum_of_rho_v() {
    let mut body = tet_box(Vec3::ZERO, Vec3::ONE, UVec3::splat(2), material(1e5, 0.3, 1000.0));
    body.materials = vec![material(1e5, 0.3, 3000.0).into()];
    body.element_materials =
        (0..body.tets.len()).map(|t| if centroid_z(&body, t) > 0.5 { 0 } else { u32::MAX }).collect();
    let solver = Solver::new(scene(vec![body.clone()]), settings(1)).unwrap();
    let expected = 1000.0 * 0.5 + 3000.0 * 0.5;
    assert!((solver.body_mass(BodyId(0)) - expected).abs() < 1e-2 * expected, "{}", solver.body_mass(BodyId(0)));
    // The heavy top half pulls the centre of mass up: (0.25·1 + 0.75·3)/4 = 0.625.
    assert!((solver.centre_of_mass(BodyId(0)).z - 0.625).abs() < 0.02, "{}", solver.centre_of_mass(BodyId(0)));
    // A total-mass override rescales, keeping the distribution.
    body.mass_override = Some(10.0);
    let solver = Solver::new(scene(vec![body.clone()]), settings(1)).unwrap();
    assert!((solver.body_mass(BodyId(0)) - 10.0).abs() < 1e-4);
    assert!((solver.centre_of_mass(BodyId(0)).z - 0.625).abs() < 0.02);
    // Authored per-point masses win over density.
    body.mass_override = None;
    body.point_masses = vec![0.5; body.positions.len()];
    let solver = Solver::new(scene(vec![body.clone()]), settings(1)).unwrap();
    assert_eq!(solver.masses(BodyId(0)), &body.point_masses[..]);
    // Bad per-element data is refused.
    body.element_materials[3] = 7;
    assert!(Solver::new(scene(vec![body]), settings(1)).is_err());
}

#[test]
fn kinematic_body_follows_its_targets_exactly_and_infers_velocity() {
    let body = {
        let mut b = tet_box(Vec3::ZERO, Vec3::ONE, UVec3::ONE, material(1e5, 0.3, 1000.0));
        b.kinematic = true;
        b
    };
    let start = body.positions.clone();
    let mut solver = Solver::new(scene(vec![body]), settings(4)).unwrap();
    // No target: holds still in spite of gravity.
    solver.step_frame();
    assert_eq!(solver.positions(BodyId(0)), &start[..]);
    let frame_dt = 1.0 / 24.0;
    for k in 1..=5 {
        let shift = Vec3::new(0.1 * k as f32, 0.0, 0.05 * k as f32);
        let target: Vec<Vec3> = start.iter().map(|&p| p + shift).collect();
        solver.set_kinematic_targets(BodyId(0), &target).unwrap();
        solver.step_frame();
        for (a, b) in solver.positions(BodyId(0)).iter().zip(&target) {
            assert!(a.distance(*b) < 1e-6, "{a} vs {b}");
        }
        let v = Vec3::new(0.1, 0.0, 0.05) / frame_dt;
        for u in solver.velocities(BodyId(0)) {
            assert!(u.distance(v) < 1e-3 * v.length(), "{u} vs {v}");
        }
    }
    assert!(solver.set_kinematic_targets(BodyId(0), &start[..3]).is_err());
}

#[test]
fn asleep_body_stays_put_until_woken() {
    let mut body = tet_box(Vec3::new(0.0, 0.0, 1.0), Vec3::new(0.2, 0.2, 1.2), UVec3::ONE, material(1e5, 0.3, 1000.0));
    body.starts_asleep = true;
    body.velocities = vec![Vec3::X; body.positions.len()];
    let start = body.positions.clone();
    let mut solver = Solver::new(scene(vec![body]), settings(4)).unwrap();
    for _ in 0..10 {
        solver.step_frame();
    }
    assert!(solver.is_asleep(BodyId(0)));
    assert_eq!(solver.positions(BodyId(0)), &start[..]);
    solver.wake(BodyId(0));
    assert!(!solver.is_asleep(BodyId(0)));
    solver.step_frame();
    assert!(solver.positions(BodyId(0))[0].z < start[0].z - 1e-3);
}

/// Bodies owned by physics scenes with different gravity fall accordingly.
#[test]
fn each_body_falls_with_its_own_gravity() {
    let make =
        |x: f32| tet_box(Vec3::new(x, 0.0, 0.0), Vec3::new(x + 0.1, 0.1, 0.1), UVec3::ONE, material(1e5, 0.3, 1000.0));
    let a = make(0.0);
    let mut b = make(1.0);
    b.gravity = Some(Vec3::new(0.0, -3.0, 0.0));
    let (ca, cb) = (a.positions[0], b.positions[0]);
    let mut solver = Solver::new(scene(vec![a, b]), settings(10)).unwrap();
    for _ in 0..24 {
        solver.step_frame();
    }
    let (da, db) = (solver.positions(BodyId(0))[0] - ca, solver.positions(BodyId(1))[0] - cb);
    // Symplectic Euler with 240 substeps: within 1% of ½gt².
    assert!((da.z + 0.5 * G).abs() < 0.01 * 0.5 * G && da.y.abs() < 1e-5, "{da}");
    assert!((db.y + 1.5).abs() < 0.015 && db.z.abs() < 1e-5, "{db}");
}

/// A fine point cloud embedded in a coarse tet body dropped on the ground: it stays the
/// barycentric image of the simulation mesh and has moved with the body.
#[test]
fn embedded_points_follow_a_dropped_body() {
    let body =
        tet_box(Vec3::new(-0.5, -0.5, 0.5), Vec3::new(0.5, 0.5, 1.5), UVec3::splat(2), material(1e5, 0.3, 1000.0));
    // A sphere of points inside the cube.
    let mut fine = Vec::new();
    for i in 0..20 {
        for j in 0..20 {
            let (th, ph) = (std::f32::consts::PI * (i as f32 + 0.5) / 20.0, std::f32::consts::TAU * j as f32 / 20.0);
            fine.push(Vec3::new(0.0, 0.0, 1.0) + 0.4 * Vec3::new(th.sin() * ph.cos(), th.sin() * ph.sin(), th.cos()));
        }
    }
    let embedding = Embedding::new(&body, &fine);
    let ground = Collider {
        name: "/ground".into(),
        shape: ColliderShape::Plane { normal: Vec3::Z },
        translation: Vec3::ZERO,
        rotation: glam::Quat::IDENTITY,
        friction: 0.5,
    };
    let mut sc = scene(vec![body]);
    sc.colliders.push(ground);
    let mut solver = Solver::new(sc, settings(10)).unwrap();
    for _ in 0..24 {
        solver.step_frame();
    }
    let mut out = Vec::new();
    embedding.apply(&solver.positions(BodyId(0)), &mut out);
    let Embedding::Volume { vertices, weights, .. } = &embedding else { panic!("volume embedding expected") };
    let x = solver.positions(BodyId(0));
    for ((p, v), w) in out.iter().zip(vertices).zip(weights) {
        assert!(w.iter().all(|&b| b >= -1e-5), "inside points have non-negative weights");
        let blended: Vec3 = v.iter().zip(w).map(|(&i, &b)| x[i as usize] * b).sum();
        assert!(p.distance(blended) < 1e-5);
    }
    let centre = out.iter().sum::<Vec3>() / out.len() as f32;
    let com = solver.centre_of_mass(BodyId(0));
    assert!(com.z < 0.6, "the body fell onto the ground: {com}");
    assert!(centre.distance(com) < 0.05, "graphics centre {centre} vs body centre {com}");
    assert!(out.iter().all(|p| p.z > 0.0), "embedded points above the ground");
}
