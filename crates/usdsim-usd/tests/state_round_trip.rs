//! The written state round-trips: a scene simulated through the solver and baked, then
//! imported from the bake at its last frame, has the topology, positions, rest shape and
//! rest angles the solver ended with (issue 5's proof), for a torn cloth, a plastic tet
//! bar and a creased (plastic) cloth.

mod common;

use common::testdata;
use glam::Vec3;
use std::path::Path;
use usdsim_core::BodyId;
use usdsim_core::{Plasticity, Settings, Solver};
use usdsim_usd::{import, import_at, Baker, Imported};

/// Simulates `imported` for `frames` frames as `usdsim run` does (animated frames
/// followed), baking every frame to `output`. Returns the solver at the end.
fn simulate_and_bake(imported: &Imported, frames: u32, output: &Path) -> Solver {
    let info = &imported.stage;
    let settings = Settings { frame_dt: (1.0 / info.time_codes_per_second) as f32, ..Settings::default() };
    let solver = Solver::new(imported.scene.clone(), settings).unwrap();
    // The run's own driver: animation applied, stepped, recorded, written.
    let mut baker = Baker::new(imported, solver, output, frames, None).unwrap();
    while baker.frame() < frames {
        assert!(baker.step().unwrap().is_none(), "diverged");
    }
    baker.finish().unwrap().solver
}

/// Each element's rest corners, world space: the rest shape as the solver sees it,
/// whatever the point numbering.
fn rest_corners(points: &[Vec3], elements: &[[u32; 4]], corners: usize) -> Vec<Vec3> {
    elements.iter().flat_map(|e| e[..corners].iter().map(|&i| points[i as usize]).collect::<Vec<_>>()).collect()
}

fn max_distance(a: &[Vec3], b: &[Vec3]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(p, q)| p.distance(*q)).fold(0.0, f32::max)
}

/// Imports `output` at its last frame and compares body 0 with `solver`'s.
fn check_round_trip(solver: &Solver, output: &Path, frames: u32, start: f64, corners: usize) {
    let back = import_at(output, Some(start + f64::from(frames))).unwrap();
    let body = &back.scene.bodies[0];
    if corners == 3 {
        assert_eq!(body.triangles, solver.triangles(BodyId(0)), "topology");
    } else {
        assert_eq!(body.tets, solver.tets(BodyId(0)), "topology");
    }
    let moved = max_distance(&body.positions, &solver.positions(BodyId(0)));
    assert!(moved < 1e-5, "positions differ by {moved}");
    let rest = solver.rest_shape(BodyId(0));
    let (ours, theirs) = (
        rest_corners(&rest.points, &rest.elements, corners),
        rest_corners(&body.rest_points, &body.rest_elements, corners),
    );
    let d = max_distance(&ours, &theirs);
    assert!(d < 1e-5, "rest shape differs by {d}");
}

#[test]
fn a_torn_cloth_reads_back_with_its_torn_topology() {
    let imported = import(&testdata("tearing_cloth.usda")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("torn.sim.usda");
    let solver = simulate_and_bake(&imported, 48, &output);
    assert!(solver.topology_version(BodyId(0)) > 0, "the cloth did not tear");
    check_round_trip(&solver, &output, 48, imported.stage.start_time_code, 3);
}

#[test]
fn a_plastic_bar_reads_back_with_its_flowed_rest_shape() {
    let imported = import(&testdata("plastic_bar.usda")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("bar.sim.usda");
    let solver = simulate_and_bake(&imported, 30, &output);
    // The rest shape did flow: it is no longer the authored one.
    let authored = &imported.scene.bodies[0];
    let rest = solver.rest_shape(BodyId(0));
    let flowed = max_distance(
        &rest_corners(&rest.points, &rest.elements, 4),
        &rest_corners(&authored.rest_points, &authored.rest_elements, 4),
    );
    assert!(flowed > 1e-3, "no plastic flow to round-trip ({flowed})");
    check_round_trip(&solver, &output, 30, imported.stage.start_time_code, 4);
}

#[test]
fn a_creased_cloth_reads_back_with_its_rest_angles() {
    // The tearing strip made plastic instead of tearable: its hinges crease.
    let mut imported = import(&testdata("tearing_cloth.usda")).unwrap();
    let body = &mut imported.scene.bodies[0];
    body.set_tear_ratio(None);
    body.set_plasticity(Some(Plasticity { yield_ratio: 1.001, rate: 0.5, max_strain: None }));
    imported.scene.gravity = Vec3::new(0.0, 0.0, -9.81);
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("creased.sim.usda");
    let solver = simulate_and_bake(&imported, 24, &output);
    let angles = solver.rest_bend_angles(BodyId(0));
    assert!(angles.iter().any(|&(_, a)| a.abs() > 1e-3), "no crease to round-trip");
    check_round_trip(&solver, &output, 24, imported.stage.start_time_code, 3);
    let back = import_at(&output, Some(imported.stage.start_time_code + 24.0)).unwrap();
    let read: std::collections::HashMap<[u32; 2], f32> = back.scene.bodies[0].bend_overrides.iter().copied().collect();
    for (pair, angle) in angles {
        let got = read.get(&pair).copied().unwrap_or(f32::NAN);
        assert!((got - angle).abs() < 1e-5, "hinge {pair:?}: wrote {angle}, read {got}");
    }
}
