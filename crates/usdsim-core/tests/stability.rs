//! The stable Neo-Hookean split's step limit: a stiff tet box at rest must stay at rest at
//! the default settings (the solver raises its substeps to the bound and says so), and a
//! soft one must run at the settings it was given.

use glam::{UVec3, Vec3};
use usdsim_core::BodyId;
use usdsim_core::{grid, Body, BodyKind, Material, Scene, Settings, Solver, STABLE_OMEGA_DT};

fn box_at_rest(youngs: f32, cells: u32) -> Scene {
    let (points, tets) = grid::tet_box(Vec3::ZERO, Vec3::splat(0.1), UVec3::splat(cells));
    let mut body = Body::new("/box", BodyKind::Volume, points, Material::elastic(youngs, 0.3, 1000.0));
    body.rest_elements = tets.clone();
    body.tets = tets;
    Scene { bodies: vec![body], ..Scene::default() }
}

fn fastest_vertex(solver: &Solver) -> f32 {
    solver.velocities(BodyId(0)).iter().map(|v| v.length()).fold(0.0, f32::max)
}

#[test]
fn a_stiff_box_at_rest_stays_at_rest_at_default_settings() {
    // E = 1e6 … 1e7 Pa rubber in 0.1 m and 0.05 m cells: at 10 substeps these shook
    // themselves apart at several m/s within a second, at rest, without gravity.
    for (youngs, cells) in [(1e6, 1), (1e7, 1), (1e6, 2)] {
        let mut solver = Solver::new(box_at_rest(youngs, cells), Settings::default()).unwrap();
        assert!(solver.settings().substeps > 10, "E {youngs}: not raised");
        assert!(solver.warnings()[0].contains("/box"), "{:?}", solver.warnings());
        // The bound it raised to is the one the constant states.
        let dt = solver.settings().frame_dt / solver.settings().substeps as f32;
        assert!(solver.max_tet_frequency() * dt <= STABLE_OMEGA_DT);
        for _ in 0..24 {
            solver.step_frame();
        }
        assert!(fastest_vertex(&solver) < 1e-3, "E {youngs}, {cells}³ cells: {} m/s", fastest_vertex(&solver));
    }
}

#[test]
fn below_the_bound_a_box_runs_with_the_settings_it_was_given() {
    let mut solver = Solver::new(box_at_rest(5e4, 1), Settings::default()).unwrap();
    assert_eq!(solver.settings().substeps, 10);
    assert!(solver.warnings().is_empty(), "{:?}", solver.warnings());
    for _ in 0..24 {
        solver.step_frame();
    }
    assert!(fastest_vertex(&solver) < 1e-3);
}

#[test]
fn an_asleep_stiff_box_is_already_counted() {
    // Asleep bodies are immovable until woken, but must be stable once they wake.
    let mut scene = box_at_rest(1e6, 1);
    scene.bodies[0].starts_asleep = true;
    let mut solver = Solver::new(scene, Settings::default()).unwrap();
    assert!(solver.settings().substeps > 10);
    solver.wake(BodyId(0));
    for _ in 0..24 {
        solver.step_frame();
    }
    assert!(fastest_vertex(&solver) < 1e-3, "{} m/s", fastest_vertex(&solver));
}
