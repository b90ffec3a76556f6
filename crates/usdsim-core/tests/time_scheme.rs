//! The time schemes (`model/time_scheme.rs`) against their order of accuracy, and the
//! solver's positions against the origin they are measured from.

use glam::{DVec3, Vec3};
use usdsim_core::{
    grid, Body, BodyId, BodyKind, LinkKinds, Material, Model, Pin, Scene, Settings, Solver, Springs, TimeScheme,
};

/// A 9 × 9 cloth, 0.5 m square, hung by two corners at `origin`, swinging down from
/// horizontal: stiff stretch, soft bending, a motion with many frequencies.
fn swinging_cloth(origin: Vec3) -> Scene {
    let body =
        grid::cloth_body("/cloth", origin, Vec3::X, Vec3::Y, (0.5, 0.5), (9, 9), Material::elastic(1e5, 0.3, 200.0));
    let pins = [0u32, 8].map(|v| Pin {
        body: BodyId(0),
        vertex: v,
        target: body.positions[v as usize],
        stiffness: f32::INFINITY,
        damping: 0.0,
    });
    Scene { bodies: vec![body], pins: pins.to_vec(), gravity: Vec3::new(0.0, 0.0, -9.81), ..Scene::default() }
}

fn settings(scheme: TimeScheme, substeps: u32) -> Settings {
    Settings { time_scheme: scheme, substeps, iterations: 20, frame_dt: 1.0 / 60.0, ..Settings::default() }
}

/// Positions after `frames` frames, as the solver keeps them.
fn run(scene: Scene, settings: Settings, frames: u32) -> Vec<DVec3> {
    let mut solver = Solver::new(scene, settings).unwrap();
    for _ in 0..frames {
        solver.step_frame();
    }
    solver.positions_f64(BodyId(0)).to_vec()
}

fn rms(a: &[DVec3], b: &[DVec3]) -> f64 {
    (a.iter().zip(b).map(|(p, q)| p.distance_squared(*q)).sum::<f64>() / a.len() as f64).sqrt()
}

/// The damped oscillator of `springs.rs`: a 0.5 kg bob hung between two pins by two
/// XPBD springs at 45°, displaced 5 cm (ω ≈ 14 rad/s), under gravity.
fn oscillator() -> Scene {
    let points = vec![Vec3::new(-0.5, 0.0, 0.0), Vec3::new(0.5, 0.0, 0.0), Vec3::new(0.0, -0.55, 0.0)];
    let mut body = Body::new("/bob", BodyKind::Surface, points.clone(), Material::elastic(1e5, 0.3, 200.0));
    body.rest_points = vec![Vec3::new(-0.5, 0.0, 0.0), Vec3::new(0.5, 0.0, 0.0), Vec3::new(0.0, -0.5, 0.0)];
    body.triangles = vec![[0, 2, 1]];
    body.rest_elements = vec![[0, 2, 1, 0]];
    body.point_masses = vec![1.0, 1.0, 0.5];
    let links = LinkKinds { structural: true, shear: false, bend: false };
    body.model = Model::Springs(Springs { stiffness: 100.0, damping: 0.5, links });
    let pins = (0..2).map(|v| Pin {
        body: BodyId(0),
        vertex: v,
        target: points[v as usize],
        stiffness: f32::INFINITY,
        damping: 0.0,
    });
    Scene { bodies: vec![body], pins: pins.collect(), gravity: Vec3::new(0.0, -9.81, 0.0), ..Scene::default() }
}

#[test]
fn bdf2_converges_at_second_order_and_implicit_euler_at_first() {
    // Each scheme against its own run at 1280 substeps a frame, after one second:
    // halving the step divides the error by about 2^order. (Much finer than 8 substeps
    // the f32 velocities' rounding, about 10⁻⁶ m here, starts to show.)
    let error = |scheme, substeps| {
        let s = |n| Settings { spring_step_fraction: None, ..settings(scheme, n) };
        rms(&run(oscillator(), s(substeps), 60), &run(oscillator(), s(1280), 60))
    };
    let bdf2: Vec<f64> = [1, 2, 4].map(|n| error(TimeScheme::Bdf2, n)).to_vec();
    for k in 0..2 {
        let ratio = bdf2[k] / bdf2[k + 1];
        assert!(ratio > 3.5, "BDF2 errors {bdf2:?}: halving the step gained only {ratio:.2}×");
    }
    let euler: Vec<f64> = [4, 8, 16].map(|n| error(TimeScheme::ImplicitEuler, n)).to_vec();
    for k in 0..2 {
        let ratio = euler[k] / euler[k + 1];
        assert!((1.6..2.4).contains(&ratio), "implicit Euler errors {euler:?}: halving the step gained {ratio:.2}×");
    }
    assert!(bdf2[2] < 0.1 * euler[0], "at 4 substeps BDF2 {} against implicit Euler {}", bdf2[2], euler[0]);
}

#[test]
fn bdf2_follows_a_swinging_cloth_closer_than_implicit_euler() {
    let scene = swinging_cloth(Vec3::new(-0.25, -0.25, 1.0));
    let error = |scheme| {
        let reference = run(scene.clone(), settings(scheme, 640), 12);
        rms(&run(scene.clone(), settings(scheme, 20), 12), &reference)
    };
    let (bdf2, euler) = (error(TimeScheme::Bdf2), error(TimeScheme::ImplicitEuler));
    assert!(bdf2 < 0.25 * euler, "at 20 substeps BDF2 is {bdf2} m from its converged run, implicit Euler {euler} m");
}

#[test]
fn the_motion_does_not_depend_on_the_distance_from_the_origin() {
    // The same cloth at the origin and 1 km away (both grids exact in f32, so the two
    // scenes are the same up to the shift). The solver's f64 positions and its
    // element shapes taken as differences keep the motion identical to rounding; with
    // f32 positions (ulp 6·10⁻⁵ m at 1 km) the shifted cloth's constraint corrections
    // would turn that rounding into velocity noise of ulp/dt.
    let shift = Vec3::new(1024.0, -2048.0, 512.0);
    let near = run(swinging_cloth(Vec3::new(-0.25, -0.25, 1.0)), settings(TimeScheme::Bdf2, 20), 30);
    let far = run(swinging_cloth(Vec3::new(-0.25, -0.25, 1.0) + shift), settings(TimeScheme::Bdf2, 20), 30);
    let back: Vec<DVec3> = far.iter().map(|p| *p - shift.as_dvec3()).collect();
    let moved = near[80].distance(DVec3::new(0.25, 0.25, 1.0));
    assert!(moved > 0.1, "the free corner should have swung down, moved {moved}");
    let diff = rms(&near, &back);
    assert!(diff < 1e-6, "1 km from the origin the cloth ended {diff} m from its twin");
}

/// A contact holds its body on implicit Euler until a frame's substeps pass without one
/// (`solver/history.rs`). The swinging cloth touches nothing, so its state is restored
/// with the substeps since a contact set by hand: the frame after differs from an
/// untouched body's exactly while the count is under the frame's substeps.
#[test]
fn a_contact_holds_implicit_euler_for_a_frame_of_substeps() {
    let substeps = 8;
    let settings = Settings { iterations: 2, ..settings(TimeScheme::Bdf2, substeps) };
    let mut solver = Solver::new(swinging_cloth(Vec3::ZERO), settings).unwrap();
    for _ in 0..3 {
        solver.step_frame();
    }
    let state = solver.resume_state();
    let after = |since_contact: u32| {
        let mut state = state.clone();
        state.bodies[0].since_contact = since_contact;
        let mut solver = Solver::new(swinging_cloth(Vec3::ZERO), settings).unwrap();
        solver.restore(&state).unwrap();
        solver.settle_targets();
        solver.step_frame();
        solver.positions_f64(BodyId(0)).to_vec()
    };
    let untouched = after(u32::MAX);
    assert_eq!(after(substeps), untouched, "a frame after its contact the body is back on BDF2");
    // The hold's last substep: one substep of implicit Euler, then BDF2.
    let last_held = after(substeps - 1);
    assert!(rms(&last_held, &untouched) > 1e-9, "the hold ended before a frame's substeps");
    assert!(rms(&after(0), &last_held) > 1e-9, "a fresh contact holds the whole frame");
}
