//! Plasticity through the solver: tets keep their rest shape under rigid motion, and a
//! tet bar and a shell bent past their yield stay bent while below it they spring back.
//! Per-tet and per-hinge flow are unit-tested in `src/plasticity.rs`.

use glam::{UVec3, Vec3};
use usdsim_core::BodyId;
use usdsim_core::{grid, Body, BodyKind, Material, Plasticity, Scene, Settings, Solver};

const PLASTIC: Plasticity = Plasticity { yield_ratio: 1.01, rate: 0.5, max_strain: Some(0.05) };

fn body(plastic: Option<Plasticity>) -> Body {
    let (points, tets) = grid::tet_box(Vec3::ZERO, Vec3::ONE, UVec3::ONE);
    let material = Material::elastic(1e5, 0.3, 1000.0);
    let mut body = Body::new("/b", BodyKind::Volume, points, material);
    body.rest_elements = tets.clone();
    body.tets = tets;
    body.plastic = plastic;
    body
}

#[test]
fn invalid_plasticity_is_rejected() {
    for bad in [
        Plasticity { yield_ratio: 1.0, ..PLASTIC },
        Plasticity { rate: 1.5, ..PLASTIC },
        Plasticity { max_strain: Some(-0.1), ..PLASTIC },
    ] {
        let scene = Scene { bodies: vec![body(Some(bad))], ..Scene::default() };
        assert!(Solver::new(scene, Settings::default()).is_err(), "{bad:?} accepted");
    }
}

#[test]
fn a_free_falling_plastic_body_keeps_its_rest_shape() {
    // Rigid motion never yields: rest shapes are bit-for-bit unchanged.
    let scene = Scene { gravity: Vec3::new(0.0, 0.0, -9.81), bodies: vec![body(Some(PLASTIC))], ..Scene::default() };
    let mut solver = Solver::new(scene, Settings::default()).unwrap();
    let before: Vec<_> = (0..6).map(|t| solver.rest_edges(BodyId(0), t)).collect();
    for _ in 0..30 {
        solver.step_frame();
    }
    let after: Vec<_> = (0..6).map(|t| solver.rest_edges(BodyId(0), t)).collect();
    assert_eq!(before, after);
}

/// Index of the tip vertex (last of the first row).
const TIP: u32 = 10;

/// A 0.1 m × 0.02 m, 2 mm shell clamped along its first two columns, sagging under
/// gravity: the bending moment is largest at the clamp, where the surface strain
/// `κh/2` reaches about 1e-3 (thin-plate estimate `κ = ρhgL²/(2D)`).
fn cantilever(plastic: Option<Plasticity>) -> Scene {
    let (nx, ny) = (TIP + 1, 3u32);
    let (points, tris) = grid::cloth(Vec3::ZERO, Vec3::X, Vec3::Y, (0.1, 0.02), (nx, ny));
    let mut material = Material::elastic(1e7, 0.3, 500.0);
    material.thickness = 0.002;
    // Light damping only: XPBD's damping term divides every correction by 1 + τ/dt, so
    // heavy damping makes stiff hinges converge slowly and the shell soft.
    material.damping = 0.002;
    material.bend_damping = 0.01;
    let mut body = Body::new("/shell", BodyKind::Surface, points.clone(), material);
    body.rest_elements = tris.iter().map(|t| [t[0], t[1], t[2], 0]).collect();
    body.triangles = tris;
    body.plastic = plastic;
    let pins = (0..ny)
        .flat_map(|j| [j * nx, j * nx + 1])
        .map(|v| usdsim_core::Pin {
            body: BodyId(0),
            vertex: v,
            target: points[v as usize],
            stiffness: f32::INFINITY,
            damping: 0.0,
        })
        .collect();
    Scene { gravity: Vec3::new(0.0, 0.0, -9.81), bodies: vec![body], pins, ..Scene::default() }
}

/// A stiff shell needs many more constraint passes than the defaults: Gauss-Seidel
/// carries a bend about one hinge per iteration, so at 10 × 10 this shell sags about
/// four times the thin-plate value and whips; at 40 × 40 it sags 19 mm against the
/// thin-plate 11–17 mm (clamped length 0.09–0.1 m) and settles.
fn stiff_settings() -> Settings {
    Settings { substeps: 40, iterations: 40, ..Settings::default() }
}

/// Loads the cantilever with gravity for 1.5 s, removes the load, waits 1 s and then
/// watches it for 1.5 s. Returns the solver and the tip's mean height under load (last
/// half second) and after unloading (the last window).
fn load_and_unload(plastic: Option<Plasticity>) -> (Solver, f32, f32) {
    let mut solver = Solver::new(cantilever(plastic), stiff_settings()).unwrap();
    let tip = |s: &Solver| s.positions(BodyId(0))[TIP as usize].z;
    let mut loaded = 0.0;
    for f in 0..36 {
        solver.step_frame();
        if f >= 24 {
            loaded += tip(&solver) / 12.0;
        }
    }
    solver.set_gravity(BodyId(0), Vec3::ZERO);
    let mut unloaded = 0.0;
    for f in 0..60 {
        solver.step_frame();
        if f >= 24 {
            unloaded += tip(&solver) / 36.0;
        }
    }
    (solver, loaded, unloaded)
}

#[test]
fn a_shell_bent_below_its_yield_springs_back_exactly() {
    // Yield strain 20 %: no hinge ever bends that far, so nothing flows.
    let elastic = Plasticity { yield_ratio: 1.2, rate: 0.5, max_strain: None };
    let (solver, loaded, unloaded) = load_and_unload(Some(elastic));
    assert!(loaded < -0.01, "the shell barely sagged: {loaded}");
    assert!(unloaded.abs() < 0.15 * loaded.abs(), "sagged {loaded}, swings about {unloaded} after unloading");
    assert!(solver.rest_bend_angles(BodyId(0)).iter().all(|&(_, a)| a == 0.0), "a rest angle moved");
}

#[test]
fn a_shell_bent_past_its_yield_stays_bent() {
    // Yield strain 0.2 %: the shell yields along its length and keeps its sag.
    let plastic = Plasticity { yield_ratio: 1.002, rate: 0.5, max_strain: None };
    let (solver, loaded, unloaded) = load_and_unload(Some(plastic));
    assert!(loaded < -0.01, "the shell barely sagged: {loaded}");
    assert!(unloaded < 0.7 * loaded, "sagged {loaded}, sprang back to {unloaded}");
    let bent = solver.rest_bend_angles(BodyId(0)).iter().filter(|&&(_, a)| a.abs() > 1e-3).count();
    assert!(bent > 0, "no rest angle changed");

    // The rest angles are the whole plastic state: a solver built from the final
    // positions and those angles (what the bake writes back and a resumed run reads)
    // stays where the original run goes.
    let mut resumed_scene = cantilever(Some(plastic));
    resumed_scene.gravity = Vec3::ZERO;
    let body = &mut resumed_scene.bodies[0];
    body.positions = solver.positions(BodyId(0)).to_vec();
    body.velocities = solver.velocities(BodyId(0)).to_vec();
    body.bend_overrides = solver.rest_bend_angles(BodyId(0));
    let mut resumed = Solver::new(resumed_scene, stiff_settings()).unwrap();
    let mut original = solver;
    for _ in 0..24 {
        original.step_frame();
        resumed.step_frame();
    }
    let worst = original
        .positions(BodyId(0))
        .iter()
        .zip(&resumed.positions(BodyId(0)))
        .map(|(a, b)| a.distance(*b))
        .fold(0.0, f32::max);
    assert!(worst < 1e-4, "resumed run drifted by {worst}");
}

/// A 0.5 m × 0.1 m × 0.1 m tet bar (10 × 2 × 2 cells), its end face at x = 0 pinned,
/// sagging under gravity: beam theory gives a tip drop qL⁴/(8EI) ≈ 92 mm and a strain of
/// about 7 % at the clamp; two linear tets through the thickness lock in bending, and it
/// sags about 55 mm (swinging between 0 and 0.11 m when released from straight).
fn tet_cantilever(plastic: Plasticity) -> (Scene, usize) {
    let (points, tets) = grid::tet_box(Vec3::ZERO, Vec3::new(0.5, 0.1, 0.1), UVec3::new(10, 2, 2));
    let mut material = Material::elastic(1e6, 0.3, 1000.0);
    material.damping = 0.002;
    let mut body = Body::new("/bar", BodyKind::Volume, points.clone(), material);
    body.rest_elements = tets.clone();
    body.tets = tets;
    body.plastic = Some(plastic);
    let pins = points
        .iter()
        .enumerate()
        .filter(|(_, p)| p.x < 1e-6)
        .map(|(v, p)| usdsim_core::Pin {
            body: BodyId(0),
            vertex: v as u32,
            target: *p,
            stiffness: f32::INFINITY,
            damping: 0.0,
        })
        .collect();
    let tip = points.iter().position(|p| p.x > 0.5 - 1e-6 && p.z < 1e-6).unwrap();
    (Scene { bodies: vec![body], pins, gravity: Vec3::new(0.0, 0.0, -9.81), ..Scene::default() }, tip)
}

/// Loads the bar for 2 s, removes gravity and watches it 2.5 s more (its tip still
/// swings, lightly damped). Returns the solver, the tip's mean height over the last
/// loaded second and over the unloaded window after a half-second wait.
fn bend_tet_bar(plastic: Plasticity) -> (Solver, f32, f32) {
    let (scene, tip) = tet_cantilever(plastic);
    // The default settings: the solver raises substeps for this stiff bar by itself.
    let mut solver = Solver::new(scene, Settings::default()).unwrap();
    let (mut loaded, mut unloaded) = (0.0, 0.0);
    for f in 0..108 {
        if f == 48 {
            solver.set_gravity(BodyId(0), Vec3::ZERO);
        }
        solver.step_frame();
        let z = solver.positions(BodyId(0))[tip].z;
        if (24..48).contains(&f) {
            loaded += z / 24.0;
        } else if f >= 60 {
            unloaded += z / 48.0;
        }
    }
    (solver, loaded, unloaded)
}

#[test]
fn a_tet_bar_bent_below_its_yield_springs_back_exactly() {
    // Yield 20 %, three times the largest strain.
    let (solver, loaded, unloaded) = bend_tet_bar(Plasticity { yield_ratio: 1.2, rate: 0.2, max_strain: None });
    assert!(loaded < -0.04, "sagged only {loaded}");
    assert!(unloaded.abs() < 0.15 * loaded.abs(), "sagged {loaded}, swings about {unloaded} unloaded");
    let (scene, _) = tet_cantilever(Plasticity { yield_ratio: 1.2, rate: 0.2, max_strain: None });
    let b = &scene.bodies[0];
    for (t, re) in b.rest_elements.iter().enumerate() {
        let r = re.map(|i| b.rest_points[i as usize]);
        let authored = glam::Mat3::from_cols(r[1] - r[0], r[2] - r[0], r[3] - r[0]);
        assert!(solver.rest_edges(BodyId(0), t).abs_diff_eq(authored, 1e-6), "tet {t}'s rest shape moved");
    }
}

#[test]
fn a_tet_bar_bent_past_its_yield_stays_bent() {
    // Yield 5 %: the clamp region yields; unloaded, the bar springs back part way (its
    // elastic part) and keeps the rest as a permanent set. Without a cap the flow
    // hardens (`plasticity::HARDENING`), so the set is smaller than the article's rule
    // alone gives (measured: 22 % of the sag kept, over 30 % before hardening).
    let (_, loaded, unloaded) = bend_tet_bar(Plasticity { yield_ratio: 1.05, rate: 0.2, max_strain: None });
    assert!(loaded < -0.04, "sagged only {loaded}");
    assert!(unloaded < 0.15 * loaded, "sagged {loaded}, sprang back to {unloaded}");
    assert!(unloaded > loaded, "no elastic spring-back at all: {loaded} → {unloaded}");
}

/// Rest length of a bar of `cells` cells stacked along z, from its rest shape: each
/// cell's height is the mean z-extent of its six tets' rest shapes (every tet of the
/// Kuhn split spans its cell's full height), and the bar's is the sum.
fn rest_length(solver: &Solver, cells: usize) -> f32 {
    let rest = solver.rest_shape(BodyId(0));
    let per_cell = rest.elements.len() / cells;
    rest.elements
        .iter()
        .map(|e| {
            let z = e.map(|i| rest.points[i as usize].z);
            z.iter().copied().fold(f32::MIN, f32::max) - z.iter().copied().fold(f32::MAX, f32::min)
        })
        .sum::<f32>()
        / per_cell as f32
}

/// The smallest rest volume over the bar's tets divided by its original (signed, so an
/// inverted rest element shows as negative).
fn min_volume_ratio(solver: &Solver, original: &[f32]) -> f32 {
    (0..original.len()).map(|t| solver.rest_edges(BodyId(0), t).determinant() / original[t]).fold(f32::MAX, f32::min)
}

#[test]
fn a_creeping_bar_lengthens_monotonically_and_stays_valid() {
    // testdata/creep_bar.usda in plain data: 0.1 × 0.1 × 1 m, E = 2e5 Pa, ν = 0,
    // 1000 kg/m³, top face pinned, yield 1.001 and rate 1 (the CLI's --plastic-yield
    // 1.001 --plastic-rate 1): the gravity stress at the top, ρgL ≈ 9.8 kPa, is a 5 %
    // strain, fifty times the yield, so the bar must flow.
    let cells = 10;
    let material = Material { poissons_ratio: 0.0, ..Material::elastic(2e5, 0.0, 1000.0) };
    let mut body = grid::tet_body(
        "/bar",
        Vec3::new(-0.05, -0.05, 1.0),
        Vec3::new(0.05, 0.05, 2.0),
        UVec3::new(1, 1, cells as u32),
        material,
    );
    body.plastic = Some(Plasticity { yield_ratio: 1.001, rate: 1.0, max_strain: None });
    let pins = (0..body.positions.len() as u32)
        .filter(|&v| body.positions[v as usize].z > 2.0 - 1e-4)
        .map(|v| usdsim_core::Pin {
            body: BodyId(0),
            vertex: v,
            target: body.positions[v as usize],
            stiffness: f32::INFINITY,
            damping: 0.0,
        })
        .collect();
    let scene = Scene { gravity: Vec3::new(0.0, 0.0, -9.81), bodies: vec![body], pins, ..Scene::default() };
    let mut solver = Solver::new(scene, Settings::default()).unwrap();
    let tets = solver.stats().tets;
    let original: Vec<f32> = (0..tets).map(|t| solver.rest_edges(BodyId(0), t).determinant()).collect();
    let mut length = rest_length(&solver, cells);
    assert!((length - 1.0).abs() < 1e-5, "{length}");
    let mut lengths = vec![length];
    for frame in 1..=300 {
        solver.step_frame();
        let now = rest_length(&solver, cells);
        assert!(
            now.is_finite() && solver.positions(BodyId(0)).iter().all(|p| p.is_finite()),
            "frame {frame}: not finite"
        );
        assert!(now >= length - 1e-6, "frame {frame}: rest length fell from {length} to {now}");
        let v = min_volume_ratio(&solver, &original);
        assert!(v > 0.5, "frame {frame}: a rest element's volume fell to {v} of its original");
        length = now;
        lengths.push(now);
    }
    eprintln!("rest lengths, frames 0-24: {:?}", &lengths[..25]);
    // It creeps by several per cent (the top's elastic strain under the weight is 5 %)
    // over several frames as the bar stretches under its weight, then holds: the flow
    // hardens (`model/plasticity.rs`). Measured: 1.000, 1.006, 1.024, 1.046, 1.065,
    // 1.074, 1.078 m over frames 0–6, then 1.078 m to frame 300. No jump: no frame adds
    // more than a third of the total.
    assert!(length > 1.05, "the bar crept only to {length} m");
    let largest = lengths.windows(2).map(|w| w[1] - w[0]).fold(0.0f32, f32::max);
    assert!(largest < (length - 1.0) / 3.0, "a frame lengthened the bar by {largest} of {}", length - 1.0);
}
