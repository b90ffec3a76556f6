//! Solver cost per frame over scenes of growing size: the bench-scene shapes
//! (`../shared/bench-scenes/`) built in memory so the solver is measured alone.
//!
//! Cloth: N×N vertices, 1 m square, two corners pinned, E = 1e5 Pa, ν = 0.3,
//! ρ = 200 kg/m³, h = 1 mm. Jelly: 0.5 m cube of K³ cells (6 tets each), 0.5 m above a
//! ground plane, E = 1e5 Pa, ν = 0.35, ρ = 1000 kg/m³. 60 fps, 10 substeps × 10
//! iterations, as in the benchmark README. Each sample steps one frame from a state
//! already 30 frames in, so contact and deformation are representative.
//!
//! Contact-heavy scenes (issue 4), all with the command line's 2 mm contact offset:
//! `cloth_on_sphere/N` drops an unpinned N×N cloth (as above) from 5 cm onto a 0.25 m
//! sphere collider above the ground with self contact on and times it once draped (60
//! frames in); `cloth_on_sphere_no_self/N` is the same without self contact;
//! `two_cloths_on_sphere/N` adds a second N×N cloth, turned 0.3 rad, 5 cm above the
//! first (32² only: two 64² cloths cost over a second a frame). `jelly_pile/K` drops K
//! jelly cubes of 0.2 m and 4³ cells (1: one cube; 8: a 2×2×2 pile with 2 cm gaps, the
//! upper layer shifted 5 cm) onto the ground plane and times them in contact (30 frames
//! in). The solver keeps stepping while it is measured, so these states move on over the
//! samples (see `docs/performance.md`).
//!
//! Run: `cargo bench --ignore-rust-version -p usdsim-core --bench step` (a few minutes;
//! add a filter such as `-- jelly_pile` for one group).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use glam::{Quat, UVec3, Vec3};
use std::time::Duration;
use usdsim_core::BodyId;
use usdsim_core::{grid, Body, BodyKind, Collider, ColliderShape, Material, Pin, Scene, Settings, Solver};

fn material(youngs: f32, poisson: f32, density: f32) -> Material {
    Material::elastic(youngs, poisson, density)
}

fn body(kind: BodyKind, points: Vec<Vec3>, tets: Vec<[u32; 4]>, tris: Vec<[u32; 3]>, mat: Material) -> Body {
    let rest_elements = match kind {
        BodyKind::Volume => tets.clone(),
        BodyKind::Surface => tris.iter().map(|t| [t[0], t[1], t[2], 0]).collect(),
    };
    Body {
        velocities: vec![Vec3::ZERO; points.len()],
        rest_points: points.clone(),
        rest_elements,
        positions: points,
        tets,
        triangles: tris,
        ..Body::new("bench", kind, Vec::new(), mat)
    }
}

/// The `cloth_N` bench scene.
pub fn cloth(n: u32) -> Scene {
    let (points, tris) = grid::cloth(Vec3::new(-0.5, -0.5, 1.0), Vec3::X, Vec3::Y, (1.0, 1.0), (n, n));
    let pins = [0, n - 1]
        .iter()
        .map(|&v| Pin {
            body: BodyId(0),
            vertex: v,
            target: points[v as usize],
            stiffness: f32::INFINITY,
            damping: 0.0,
        })
        .collect();
    Scene {
        gravity: Vec3::new(0.0, 0.0, -9.81),
        bodies: vec![body(BodyKind::Surface, points, vec![], tris, material(1e5, 0.3, 200.0))],
        colliders: vec![],
        pins,
        embedded: vec![],
        ..Default::default()
    }
}

/// The `jelly_K` bench scene.
pub fn jelly(k: u32) -> Scene {
    let (points, tets) = grid::tet_box(Vec3::new(-0.25, -0.25, 0.5), Vec3::new(0.25, 0.25, 1.0), UVec3::splat(k));
    Scene {
        gravity: Vec3::new(0.0, 0.0, -9.81),
        bodies: vec![body(BodyKind::Volume, points, tets, vec![], material(1e5, 0.35, 1000.0))],
        colliders: vec![ground()],
        pins: vec![],
        embedded: vec![],
        ..Default::default()
    }
}

fn ground() -> Collider {
    Collider {
        name: "ground".into(),
        shape: ColliderShape::Plane { normal: Vec3::Z },
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        friction: 0.5,
    }
}

/// An unpinned N×N cloth, 1 m square, turned by `angle` about Z, at height `z`.
fn free_cloth(n: u32, angle: f32, z: f32) -> Body {
    let r = Quat::from_rotation_z(angle);
    let (points, tris) =
        grid::cloth(r * Vec3::new(-0.5, -0.5, 0.0) + Vec3::Z * z, r * Vec3::X, r * Vec3::Y, (1.0, 1.0), (n, n));
    body(BodyKind::Surface, points, vec![], tris, material(1e5, 0.3, 200.0))
}

fn sphere_scene(bodies: Vec<Body>) -> Scene {
    let sphere = Collider {
        name: "sphere".into(),
        shape: ColliderShape::Sphere { radius: 0.25 },
        translation: Vec3::new(0.0, 0.0, 0.5),
        rotation: Quat::IDENTITY,
        friction: 0.5,
    };
    Scene { gravity: Vec3::new(0.0, 0.0, -9.81), bodies, colliders: vec![sphere, ground()], ..Default::default() }
}

/// An N×N cloth dropped on a sphere.
pub fn cloth_on_sphere(n: u32) -> Scene {
    sphere_scene(vec![free_cloth(n, 0.0, 0.8)])
}

/// Two N×N cloths dropped on a sphere, the upper one turned so the grids do not line up.
pub fn two_cloths_on_sphere(n: u32) -> Scene {
    sphere_scene(vec![free_cloth(n, 0.0, 0.8), free_cloth(n, 0.3, 0.85)])
}

/// `count` (1 or 8) jelly cubes of 0.2 m and 4³ cells dropped on the ground: one cube, or
/// a 2×2×2 pile with 2 cm gaps, the upper layer shifted by 5 cm so it lands across the
/// lower one's gaps.
pub fn jelly_pile(count: u32) -> Scene {
    let (size, gap) = (0.2, 0.02);
    let bodies = (0..count)
        .map(|k| {
            let (i, j, l) = (k % 2, (k / 2) % 2, k / 4);
            let shift = 0.05 * l as f32;
            let min = Vec3::new(
                (size + gap) * i as f32 + shift - 0.5 * size,
                (size + gap) * j as f32 + shift - 0.5 * size,
                gap + (size + gap) * l as f32,
            );
            let (points, tets) = grid::tet_box(min, min + Vec3::splat(size), UVec3::splat(4));
            body(BodyKind::Volume, points, tets, vec![], material(1e5, 0.35, 1000.0))
        })
        .collect();
    Scene { gravity: Vec3::new(0.0, 0.0, -9.81), bodies, colliders: vec![ground()], ..Default::default() }
}

/// The bench settings: 60 fps, 10 substeps × 10 iterations.
fn bench_settings() -> Settings {
    Settings { frame_dt: 1.0 / 60.0, ..Settings::default() }
}

/// The bench settings with the command line's 2 mm contact offset.
fn contact_settings(self_contact: bool) -> Settings {
    Settings { contact_offset: 0.002, self_contact: Some(self_contact), ..bench_settings() }
}

fn bench_scene(c: &mut Criterion, group: &str, sizes: &[u32], make: fn(u32) -> Scene) {
    bench_scene_with(c, group, sizes, make, bench_settings(), 30);
}

/// Times one frame of `make(n)` for every `n` in `sizes`, after `frames` frames of setup.
fn bench_scene_with(
    c: &mut Criterion,
    group: &str,
    sizes: &[u32],
    make: fn(u32) -> Scene,
    settings: Settings,
    frames: u32,
) {
    let mut g = c.benchmark_group(group);
    g.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4));
    for &n in sizes {
        let mut solver = Solver::new(make(n), settings).expect("bench scene is valid");
        for _ in 0..frames {
            solver.step_frame();
        }
        g.throughput(Throughput::Elements(solver.stats().projections_per_frame));
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| b.iter(|| solver.step_frame()));
    }
    g.finish();
}

fn cloth_frames(c: &mut Criterion) {
    bench_scene(c, "cloth", &[32, 64, 128], cloth);
}

fn jelly_frames(c: &mut Criterion) {
    bench_scene(c, "jelly", &[4, 8, 16], jelly);
}

fn contact_frames(c: &mut Criterion) {
    bench_scene_with(c, "cloth_on_sphere", &[32, 64], cloth_on_sphere, contact_settings(true), 60);
    bench_scene_with(c, "cloth_on_sphere_no_self", &[64], cloth_on_sphere, contact_settings(false), 60);
    bench_scene_with(c, "two_cloths_on_sphere", &[32], two_cloths_on_sphere, contact_settings(true), 60);
    bench_scene_with(c, "jelly_pile", &[1, 8], jelly_pile, contact_settings(false), 30);
}

criterion_group!(benches, cloth_frames, jelly_frames, contact_frames);
criterion_main!(benches);
