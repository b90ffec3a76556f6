//! Cloth self contact: the search's results do not depend on the thread count, and a
//! cloth moving fast but smoothly makes no contacts with itself (the contact reach counts
//! motion relative to the partner, not absolute motion; see `deformable_contact.rs`).

use glam::Vec3;
use usdsim_core::BodyId;
use usdsim_core::{grid, Body, BodyKind, Collider, ColliderShape, Material, Scene, Settings, Solver};

fn cloth(origin: Vec3, u: Vec3, v: Vec3, verts: u32) -> Body {
    let (points, tris) = grid::cloth(origin, u, v, (0.8, 0.8), (verts, verts));
    let material =
        Material { thickness: 1e-3, dynamic_friction: 0.4, static_friction: 0.5, ..Material::elastic(1e5, 0.3, 200.0) };
    let mut b = Body::new("/sheet", BodyKind::Surface, points, material);
    b.rest_elements = tris.iter().map(|t| [t[0], t[1], t[2], 0]).collect();
    b.triangles = tris;
    b
}

fn settings() -> Settings {
    Settings { frame_dt: 1.0 / 24.0, contact_offset: 0.006, self_contact: Some(true), ..Settings::default() }
}

/// A vertical sheet dropped on the ground: it crumples into folds lying on each other.
fn crumpling_sheet() -> Scene {
    let mut sheet = cloth(Vec3::new(-0.4, 0.0, 0.01), Vec3::X, Vec3::Z, 20);
    for p in &mut sheet.positions {
        p.y += 0.01 * (p.z * 12.0).sin();
    }
    let ground = Collider {
        name: "/ground".into(),
        shape: ColliderShape::Plane { normal: Vec3::Z },
        translation: Vec3::ZERO,
        rotation: glam::Quat::IDENTITY,
        friction: 0.5,
    };
    Scene { gravity: Vec3::new(0.0, 0.0, -9.81), bodies: vec![sheet], colliders: vec![ground], ..Default::default() }
}

#[test]
fn self_contact_is_bit_identical_for_any_thread_count() {
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let mut solver = Solver::new(crumpling_sheet(), settings()).unwrap();
            let mut contacts = 0;
            for _ in 0..20 {
                solver.step_frame();
                contacts += solver.deformable_contact_count();
            }
            (solver.positions(BodyId(0)).to_vec(), contacts)
        })
    };
    let (one, contacts) = run(1);
    assert!(contacts > 0, "the sheet never touched itself: the test proves nothing");
    for threads in [2, 3] {
        let (other, c) = run(threads);
        assert_eq!(c, contacts, "{threads} threads");
        assert!(one.iter().zip(&other).all(|(a, b)| a.to_array() == b.to_array()), "{threads} threads differ");
    }
}

#[test]
fn a_fast_flat_cloth_makes_no_self_contacts() {
    // A horizontal sheet in free fall reaches 3 m/s, 12 mm a substep: with the absolute
    // motion counted, every neighbour of every vertex was within reach.
    let sheet = cloth(Vec3::new(-0.4, -0.4, 2.0), Vec3::X, Vec3::Y, 32);
    let scene = Scene { gravity: Vec3::new(0.0, 0.0, -9.81), bodies: vec![sheet], ..Default::default() };
    let mut solver = Solver::new(scene, settings()).unwrap();
    for frame in 1..=8 {
        solver.step_frame();
        assert_eq!(solver.deformable_contact_count(), 0, "frame {frame}");
    }
    let speed = solver.velocities(BodyId(0))[0].length();
    assert!(speed > 3.0, "{speed} m/s");
}

#[test]
fn a_cloth_finer_than_its_thickness_moves_as_without_self_contact() {
    // 81 × 81 vertices on 0.8 m: 10 mm edges and 7.1 mm altitudes, against a contact
    // thickness of 13 mm (the 6 mm offset and half the 1 mm thickness, on each side).
    // At that thickness every vertex would hold off the triangles across its neighbours
    // from the first substep on; capped by the mesh (half its altitude), a gently waving
    // sheet in free fall never comes near itself, and moves exactly as without self
    // contact.
    let run = |self_contact: bool| {
        let mut sheet = cloth(Vec3::new(-0.4, -0.4, 2.0), Vec3::X, Vec3::Y, 81);
        for p in &mut sheet.positions {
            p.z += 0.01 * (p.x * 8.0).sin();
        }
        let scene = Scene { gravity: Vec3::new(0.0, 0.0, -9.81), bodies: vec![sheet], ..Default::default() };
        let mut solver = Solver::new(scene, Settings { self_contact: Some(self_contact), ..settings() }).unwrap();
        for frame in 1..=4 {
            solver.step_frame();
            assert_eq!(solver.deformable_contact_count(), 0, "frame {frame}");
        }
        solver.positions(BodyId(0)).to_vec()
    };
    let (with, without) = (run(true), run(false));
    assert!(with.iter().zip(&without).all(|(a, b)| a.to_array() == b.to_array()));
}

/// One body of two square layers `gap` apart (one mesh in two pieces, as a garment's
/// lining and shell), at rest and without gravity.
fn two_layers(gap: f32) -> Scene {
    let lower = cloth(Vec3::new(-0.4, -0.4, 1.0), Vec3::X, Vec3::Y, 10);
    let upper = cloth(Vec3::new(-0.4, -0.4, 1.0 + gap), Vec3::X, Vec3::Y, 10);
    let n = lower.positions.len() as u32;
    let mut body = lower.clone();
    body.positions.extend(&upper.positions);
    body.rest_points.extend(&upper.rest_points);
    body.velocities.extend(&upper.velocities);
    body.triangles.extend(upper.triangles.iter().map(|t| t.map(|i| i + n)));
    body.rest_elements.extend(upper.rest_elements.iter().map(|e| [e[0] + n, e[1] + n, e[2] + n, 0]));
    Scene { gravity: Vec3::ZERO, bodies: vec![body], ..Default::default() }
}

/// The two layers' distance (mean height of the upper one over the lower one's) after
/// twelve frames.
fn gap_after(scene: Scene) -> f32 {
    let half = scene.bodies[0].positions.len() / 2;
    let mut solver = Solver::new(scene, settings()).unwrap();
    for _ in 0..12 {
        solver.step_frame();
    }
    let mean = |p: &[Vec3]| p.iter().map(|p| p.z).sum::<f32>() / p.len() as f32;
    let p = solver.positions(BodyId(0));
    mean(&p[half..]) - mean(&p[..half])
}

#[test]
fn layers_that_overlap_in_the_filter_pose_never_collide() {
    // 5 mm apart against a 13 mm thickness. Without a filter pose the schema filters in the
    // mesh's own points: the layers overlap there, so they stay where they are.
    let stays = gap_after(two_layers(0.005));
    assert!((stays - 0.005).abs() < 1e-5, "{stays}");
    // A filter pose that holds them apart lets them collide: they are pushed apart.
    let mut apart = two_layers(0.005);
    let body = &mut apart.bodies[0];
    let half = body.positions.len() / 2;
    body.self_collision_filter_pose = body.positions.clone();
    for p in &mut body.self_collision_filter_pose[half..] {
        p.z += 0.1;
    }
    let pushed = gap_after(apart);
    assert!(pushed > 0.012, "{pushed}");
}

#[test]
fn a_filter_distance_below_the_layers_gap_lets_them_collide() {
    let mut scene = two_layers(0.005);
    scene.bodies[0].self_collision_filter_distance = Some(0.004);
    let pushed = gap_after(scene);
    assert!(pushed > 0.012, "{pushed}");
    // At or above their gap they stay filtered.
    let mut scene = two_layers(0.005);
    scene.bodies[0].self_collision_filter_distance = Some(0.006);
    let stays = gap_after(scene);
    assert!((stays - 0.005).abs() < 1e-5, "{stays}");
}
