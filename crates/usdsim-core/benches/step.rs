//! Solver cost per frame over scenes of growing size: the bench-scene shapes
//! (`../shared/bench-scenes/`) built in memory so the solver is measured alone.
//!
//! Cloth: N×N vertices, 1 m square, two corners pinned, E = 1e5 Pa, ν = 0.3,
//! ρ = 200 kg/m³, h = 1 mm. Jelly: 0.5 m cube of K³ cells (6 tets each), 0.5 m above a
//! ground plane, E = 1e5 Pa, ν = 0.35, ρ = 1000 kg/m³. 60 fps, 10 substeps × 10
//! iterations, as in the benchmark README. Each sample steps one frame from a state
//! already 30 frames in, so contact and deformation are representative.
//!
//! Run: `cargo bench --ignore-rust-version -p usdsim-core --bench step`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use glam::{Quat, UVec3, Vec3};
use std::time::Duration;
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
        .map(|&v| Pin { body: 0, vertex: v, target: points[v as usize], stiffness: f32::INFINITY, damping: 0.0 })
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
    let ground = Collider {
        name: "ground".into(),
        shape: ColliderShape::Plane { normal: Vec3::Z },
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        friction: 0.5,
    };
    Scene {
        gravity: Vec3::new(0.0, 0.0, -9.81),
        bodies: vec![body(BodyKind::Volume, points, tets, vec![], material(1e5, 0.35, 1000.0))],
        colliders: vec![ground],
        pins: vec![],
        embedded: vec![],
        ..Default::default()
    }
}

fn bench_scene(c: &mut Criterion, group: &str, sizes: &[u32], make: fn(u32) -> Scene) {
    let mut g = c.benchmark_group(group);
    g.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4));
    for &n in sizes {
        let settings = Settings { frame_dt: 1.0 / 60.0, ..Settings::default() };
        let mut solver = Solver::new(make(n), settings).expect("bench scene is valid");
        for _ in 0..30 {
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

criterion_group!(benches, cloth_frames, jelly_frames);
criterion_main!(benches);
