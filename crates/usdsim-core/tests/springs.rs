//! The spring-mass-damper model inside the solver, against the damped oscillator: a mass
//! hung between two fixed points by two springs at 45°, displaced vertically. For small
//! motion its vertical stiffness is `2·ks·sin²θ = ks` and its damping `2·kd·sin²θ = kd`,
//! so `ω = √(ks/m)` and the energy decays as `exp(−kd·t/m)`.

use glam::Vec3;
use usdsim_core::BodyId;
use usdsim_core::{
    Body, BodyKind, Integrator, LinkKinds, Material, Model, Pin, Scene, Settings, Solver, Springs, TimeScheme,
};

const KS: f32 = 100.0;
const MASS: f32 = 0.5;

fn oscillator(kd: f32, displacement: f32, tear_ratio: Option<f32>) -> Scene {
    let points = vec![Vec3::new(-0.5, 0.0, 0.0), Vec3::new(0.5, 0.0, 0.0), Vec3::new(0.0, -0.5 - displacement, 0.0)];
    let mut body = Body::new("/bob", BodyKind::Surface, points.clone(), Material::elastic(1e5, 0.3, 200.0));
    body.rest_points = vec![Vec3::new(-0.5, 0.0, 0.0), Vec3::new(0.5, 0.0, 0.0), Vec3::new(0.0, -0.5, 0.0)];
    body.triangles = vec![[0, 2, 1]];
    body.rest_elements = vec![[0, 2, 1, 0]];
    body.point_masses = vec![1.0, 1.0, MASS];
    body.model = Model::Springs(Springs {
        stiffness: KS,
        damping: kd,
        links: LinkKinds { structural: true, shear: false, bend: false },
    });
    body.tear_ratio = tear_ratio;
    let pins = (0..2).map(|v| Pin {
        body: BodyId(0),
        vertex: v,
        target: points[v as usize],
        stiffness: f32::INFINITY,
        damping: 0.0,
    });
    Scene { bodies: vec![body], pins: pins.collect(), ..Scene::default() }
}

/// Ten substeps, kept as given (as an explicit `--substeps` is): the checks below are
/// against the integrators' behaviour at that step.
fn settings(integrator: Integrator) -> Settings {
    Settings {
        integrator,
        frame_dt: 1.0 / 24.0,
        substeps: 10,
        iterations: 10,
        spring_step_fraction: None,
        ..Settings::default()
    }
}

/// Runs `frames` frames and returns (times, displacement from equilibrium, energy) at
/// every frame end, energy being `½mv² + ½·ks·y²`.
fn run(integrator: Integrator, scheme: TimeScheme, kd: f32, frames: u32) -> (Solver, Vec<(f32, f32, f32)>) {
    let settings = Settings { time_scheme: scheme, ..settings(integrator) };
    let mut solver = Solver::new(oscillator(kd, 0.01, None), settings).unwrap();
    let mut out = Vec::new();
    for f in 1..=frames {
        solver.step_frame();
        let y = solver.positions(BodyId(0))[2].y + 0.5;
        let v = solver.velocities(BodyId(0))[2];
        let e = 0.5 * MASS * v.length_squared() + 0.5 * KS * y * y;
        out.push((f as f32 / 24.0, y, e));
    }
    (solver, out)
}

/// Mean period from the upward zero crossings (linear interpolation between frames).
fn period(samples: &[(f32, f32, f32)]) -> f32 {
    let crossings: Vec<f32> = samples
        .windows(2)
        .filter(|w| w[0].1 < 0.0 && w[1].1 >= 0.0)
        .map(|w| w[0].0 + (w[1].0 - w[0].0) * (-w[0].1) / (w[1].1 - w[0].1))
        .collect();
    assert!(crossings.len() >= 4, "only {} crossings", crossings.len());
    (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f32
}

/// `|z|²` for the larger root `z` of BDF2's characteristic polynomial
/// `(3/2 − λdt)z² − 2z + ½` on the damped oscillator, `λ = −rate/2 + i·√(ω² − rate²/4)`:
/// the factor its energy changes by per step.
fn bdf2_energy_factor(rate: f32, w2: f32, dt: f32) -> f32 {
    let (rate, w2, dt) = (rate as f64, w2 as f64, dt as f64);
    // Complex numbers as (re, im).
    let mul = |a: (f64, f64), b: (f64, f64)| (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0);
    let div = |a: (f64, f64), b: (f64, f64)| {
        let d = b.0 * b.0 + b.1 * b.1;
        ((a.0 * b.0 + a.1 * b.1) / d, (a.1 * b.0 - a.0 * b.1) / d)
    };
    let sqrt = |a: (f64, f64)| {
        let r = (a.0 * a.0 + a.1 * a.1).sqrt();
        (((r + a.0) / 2.0).sqrt(), ((r - a.0) / 2.0).sqrt().copysign(a.1))
    };
    let a = (1.5 + 0.5 * rate * dt, -(w2 - 0.25 * rate * rate).sqrt() * dt);
    // z = (2 ± √(4 − 2a)) / (2a)
    let root = sqrt((4.0 - 2.0 * a.0, -2.0 * a.1));
    let two_a = (2.0 * a.0, 2.0 * a.1);
    let z = [div((2.0 + root.0, root.1), two_a), div((2.0 - root.0, -root.1), two_a)];
    let m = z.map(|z| mul(z, (z.0, -z.1)).0);
    m[0].max(m[1]) as f32
}

#[test]
fn every_integrator_matches_the_damped_oscillator() {
    let omega0 = (KS / MASS).sqrt();
    let kd = 0.5;
    let zeta = kd / (2.0 * MASS * omega0);
    let expected_period = std::f32::consts::TAU / (omega0 * (1.0 - zeta * zeta).sqrt());
    let cases = [
        (Integrator::Xpbd, TimeScheme::Bdf2),
        (Integrator::Xpbd, TimeScheme::ImplicitEuler),
        (Integrator::SymplecticEuler, TimeScheme::Bdf2),
        (Integrator::Rk4, TimeScheme::Bdf2),
        (Integrator::ExplicitEuler, TimeScheme::Bdf2),
    ];
    for (integrator, scheme) in cases {
        let (solver, samples) = run(integrator, scheme, kd, 72);
        let t = period(&samples);
        assert!(
            (t - expected_period).abs() < 0.02 * expected_period,
            "{integrator:?}: period {t} vs {expected_period}"
        );
        // Energy decays as exp(−kd·t/m) in the exact solution (up to the ripple of a
        // lightly damped oscillation). Each integrator changes it per step by the modulus²
        // of its amplification factor for the linear oscillator, which tells them apart:
        // explicit Euler |1 + λdt|² = 1 − (kd/m)dt + ω²dt² (adds ω²dt²), XPBD with
        // implicit Euler 1 / |1 − λdt|² = 1 / (1 + (kd/m)dt + ω²dt²) (removes it), XPBD
        // with BDF2 the squared modulus of the larger root of (3/2 − λdt)z² − 2z + ½
        // (removes only O(dt⁴)), symplectic Euler and RK4 the exact exp(−(kd/m)dt) to
        // within this tolerance. (The time scheme only drives XPBD bodies.)
        let e0 = 0.5 * KS * 0.01f32.powi(2);
        let (time, _, e) = samples[47];
        let (dt, rate, w2) = (1.0f32 / 240.0, kd / MASS, omega0 * omega0);
        let per_step = match (integrator, scheme) {
            (Integrator::ExplicitEuler, _) => 1.0 - rate * dt + w2 * dt * dt,
            (Integrator::Xpbd, TimeScheme::ImplicitEuler) => 1.0 / (1.0 + rate * dt + w2 * dt * dt),
            (Integrator::Xpbd, TimeScheme::Bdf2) => bdf2_energy_factor(rate, w2, dt),
            _ => (-rate * dt).exp(),
        };
        let expected = e0 * per_step.powf(time / dt);
        assert!((e / expected - 1.0).abs() < 0.15, "{integrator:?}/{scheme:?}: energy {e} vs {expected} at t = {time}");
        // The step is well inside every integrator's stable range (kd/ks = 5 ms for
        // explicit Euler against a 4.2 ms substep).
        assert!(solver.warnings().is_empty(), "{integrator:?}: {:?}", solver.warnings());
    }
}

#[test]
fn a_step_beyond_the_stable_limit_is_reported() {
    // ω = √(ks/m) ≈ 14.1 rad/s for the bob, but the stiffest link's ω counts the pinned
    // end as immovable, so ω·dt at one substep of 1/24 s is ≈ 0.6 — stable; a link 100×
    // stiffer makes it ≈ 5.9, beyond symplectic Euler's 2 and RK4's 2√2.
    for integrator in [Integrator::SymplecticEuler, Integrator::Rk4] {
        let mut scene = oscillator(0.0, 0.01, None);
        if let Model::Springs(s) = &mut scene.bodies[0].model {
            s.stiffness = 100.0 * KS;
        }
        let coarse = Settings { substeps: 1, ..settings(integrator) };
        let solver = Solver::new(scene.clone(), coarse).unwrap();
        assert_eq!(solver.warnings().len(), 1, "{integrator:?}");
        assert!(
            solver.warnings()[0].contains("/bob") && solver.warnings()[0].contains("--substeps"),
            "{:?}",
            solver.warnings()
        );
        let fine = Settings { substeps: 20, ..settings(integrator) };
        assert!(Solver::new(scene, fine).unwrap().warnings().is_empty(), "{integrator:?} at 20 substeps");
    }
    // Explicit Euler is unstable for any step without damping.
    let solver = Solver::new(oscillator(0.0, 0.01, None), settings(Integrator::ExplicitEuler)).unwrap();
    assert!(solver.warnings()[0].contains("damping"), "{:?}", solver.warnings());
    // XPBD is unconditionally stable: no warning even for a very stiff link.
    assert!(Solver::new(oscillator(0.0, 0.01, None), settings(Integrator::Xpbd)).unwrap().warnings().is_empty());
}

#[test]
fn links_tear_beyond_their_ratio_and_not_below() {
    // The bob released 0.3 m below equilibrium stretches each link to 1.33 times its
    // rest length at the start, the most it ever gets: links with a tear ratio of 1.4
    // hold, links with 1.25 break.
    for integrator in [Integrator::Xpbd, Integrator::SymplecticEuler] {
        let hold = |ratio: f32| {
            let mut solver = Solver::new(oscillator(0.0, 0.3, Some(ratio)), settings(integrator)).unwrap();
            for _ in 0..12 {
                solver.step_frame();
            }
            solver.broken_links()
        };
        assert_eq!(hold(1.4), 0, "{integrator:?}");
        assert!(hold(1.25) > 0, "{integrator:?}");
    }
}

#[test]
fn links_stretched_past_their_yield_stay_longer() {
    // The damped bob released 0.01 m below equilibrium (links at 1.007× rest) comes
    // back to it; released 0.3 m below (1.33×) with a yield of 1.1, its links flow
    // longer and it settles lower. Both integrator families.
    for integrator in [Integrator::Xpbd, Integrator::SymplecticEuler] {
        let rest_height = |displacement: f32| {
            let mut scene = oscillator(2.0, displacement, None);
            scene.bodies[0].plastic = Some(usdsim_core::Plasticity { yield_ratio: 1.1, rate: 0.5, max_strain: None });
            let mut solver = Solver::new(scene, settings(integrator)).unwrap();
            for _ in 0..96 {
                solver.step_frame();
            }
            solver.positions(BodyId(0))[2].y
        };
        let small = rest_height(0.01);
        assert!((small + 0.5).abs() < 1e-3, "{integrator:?}: came back to {small}, not -0.5");
        let large = rest_height(0.3);
        assert!(large < -0.55, "{integrator:?}: settled at {large}, expected well below -0.5");
    }
}

#[test]
fn force_integrators_raise_the_substeps_to_the_stiffest_springs_stable_step() {
    // The bob on springs 100× stiffer: ω ≤ √(2·ks/m) = 200 rad/s (Gershgorin: two links
    // at the free vertex), so symplectic Euler needs h < 2/ω = 10 ms and RK4 h < 14 ms;
    // at SPRING_STEP_FRACTION of that a 1/24 s frame takes 6 and 4 substeps, and the
    // bob then stays within three times its 1 cm start for 10 s (symplectic Euler's
    // energy ripples by a factor of up to ~3 at ω·h ≈ 1, an unstable step grows without
    // bound).
    for (integrator, limit) in [(Integrator::SymplecticEuler, 2.0f32), (Integrator::Rk4, 2.0 * 2f32.sqrt())] {
        let mut scene = oscillator(0.0, 0.01, None);
        if let Model::Springs(s) = &mut scene.bodies[0].model {
            s.stiffness = 100.0 * KS;
        }
        let auto = Settings {
            substeps: 1,
            spring_step_fraction: Some(usdsim_core::SPRING_STEP_FRACTION),
            ..settings(integrator)
        };
        let mut solver = Solver::new(scene, auto).unwrap();
        let omega = (2.0 * 100.0 * KS / MASS).sqrt();
        let expected = (omega / 24.0 / (usdsim_core::SPRING_STEP_FRACTION * limit)).ceil() as u32;
        assert_eq!(solver.settings().substeps, expected, "{integrator:?}");
        assert_eq!(solver.warnings().len(), 1, "{integrator:?}: {:?}", solver.warnings());
        assert!(solver.warnings()[0].contains("running with"), "{:?}", solver.warnings());
        for _ in 0..240 {
            solver.step_frame();
            let y = solver.positions(BodyId(0))[2].y + 0.5;
            assert!(y.abs() < 0.03, "{integrator:?}: displacement {y} from 0.01");
        }
    }
}
