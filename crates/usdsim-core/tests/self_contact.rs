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
