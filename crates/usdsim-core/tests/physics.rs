//! Physics checked against physics: analytic solutions, conservation and invariants.

use glam::{UVec3, Vec3};
use usdsim_core::BodyId;
use usdsim_core::{
    grid, BendDefault, Body, BodyKind, Collider, ColliderShape, Material, Pin, Scene, Settings, Solver, TimeScheme,
};

const G: f32 = 9.81;

fn material(youngs: f32, poisson: f32, density: f32) -> Material {
    Material::elastic(youngs, poisson, density)
}

fn volume_body(min: Vec3, max: Vec3, cells: UVec3, mat: Material) -> Body {
    let (points, tets) = grid::tet_box(min, max, cells);
    Body {
        velocities: vec![Vec3::ZERO; points.len()],
        rest_points: points.clone(),
        rest_elements: tets.clone(),
        positions: points,
        tets,
        ..Body::new("/box", BodyKind::Volume, Vec::new(), mat)
    }
}

fn cloth_body(origin: Vec3, size: f32, verts: u32, mat: Material) -> Body {
    let (points, tris) = grid::cloth(origin, Vec3::X, Vec3::Y, (size, size), (verts, verts));
    Body {
        velocities: vec![Vec3::ZERO; points.len()],
        rest_points: points.clone(),
        rest_elements: tris.iter().map(|t| [t[0], t[1], t[2], 0]).collect(),
        positions: points,
        triangles: tris,
        ..Body::new("/cloth", BodyKind::Surface, Vec::new(), mat)
    }
}

fn ground() -> Collider {
    Collider {
        name: "/ground".into(),
        shape: ColliderShape::Plane { normal: Vec3::Z },
        translation: Vec3::ZERO,
        rotation: glam::Quat::IDENTITY,
        friction: 0.5,
    }
}

fn settings(fps: f32) -> Settings {
    Settings { frame_dt: 1.0 / fps, ..Settings::default() }
}

#[test]
fn free_fall_matches_half_g_t_squared() {
    for gravity in [Vec3::new(0.0, 0.0, -G), Vec3::new(0.0, -981.0, 0.0), Vec3::new(3.0, -4.0, 0.0)] {
        let body = volume_body(Vec3::ZERO, Vec3::splat(0.2), UVec3::splat(2), material(1e5, 0.3, 1000.0));
        let start = body.positions.clone();
        let scene = Scene { gravity, bodies: vec![body], ..Default::default() };
        for scheme in [TimeScheme::Bdf2, TimeScheme::ImplicitEuler] {
            let s = Settings { time_scheme: scheme, ..settings(24.0) };
            let mut solver = Solver::new(scene.clone(), s).unwrap();
            let c0 = solver.centre_of_mass(BodyId(0));
            let frames = 24;
            for _ in 0..frames {
                solver.step_frame();
            }
            let t = frames as f32 * s.frame_dt;
            let dt = s.frame_dt / s.substeps as f32;
            let fall = solver.centre_of_mass(BodyId(0)) - c0;
            let exact = 0.5 * gravity * t * t;
            let err = (fall - exact).length();
            assert!(err <= gravity.length() * t * dt, "gravity {gravity}: fell {fall}, expected {exact}, error {err}");
            // Implicit Euler's displacement is ½g·t·(t + dt), first order in dt. BDF2 is exact
            // for a constant acceleration after its implicit Euler first substep, whose
            // ½g·dt² error the later steps carry as ¾g·dt² (the root 1/3 has died out).
            let discrete = match scheme {
                TimeScheme::ImplicitEuler => 0.5 * gravity * t * (t + dt),
                TimeScheme::Bdf2 => gravity * (0.5 * t * t + 0.75 * dt * dt),
            };
            assert!((fall - discrete).length() < 1e-4 * gravity.length(), "{scheme:?} drift: {fall} vs {discrete}");
            // A free-falling body does not deform.
            for (p, q) in solver.positions(BodyId(0)).iter().zip(&start) {
                assert!((*p - *q - fall).length() < 1e-4 * gravity.length().max(1.0), "body deformed in free fall");
            }
        }
    }
}

#[test]
fn total_mass_is_density_times_rest_volume() {
    let body = volume_body(Vec3::ZERO, Vec3::new(1.0, 0.5, 0.2), UVec3::new(4, 3, 2), material(1e5, 0.3, 800.0));
    let solver = Solver::new(Scene { bodies: vec![body.clone()], ..Default::default() }, Settings::default()).unwrap();
    assert!((solver.body_mass(BodyId(0)) - 80.0).abs() < 1e-3, "mass {}", solver.body_mass(BodyId(0)));

    let mut heavy = body;
    heavy.mass_override = Some(5.0);
    let solver = Solver::new(Scene { bodies: vec![heavy], ..Default::default() }, Settings::default()).unwrap();
    assert!((solver.body_mass(BodyId(0)) - 5.0).abs() < 1e-4);

    let mut mat = material(1e5, 0.3, 200.0);
    mat.thickness = 0.002;
    let cloth = cloth_body(Vec3::ZERO, 2.0, 9, mat);
    let solver = Solver::new(Scene { bodies: vec![cloth], ..Default::default() }, Settings::default()).unwrap();
    // 2 m × 2 m × 2 mm × 200 kg/m³ = 1.6 kg
    assert!((solver.body_mass(BodyId(0)) - 1.6).abs() < 1e-4, "cloth mass {}", solver.body_mass(BodyId(0)));
}

#[test]
fn cube_dropped_on_ground_comes_to_rest_without_penetrating() {
    let body = volume_body(
        Vec3::new(-0.25, -0.25, 0.2),
        Vec3::new(0.25, 0.25, 0.7),
        UVec3::splat(4),
        material(1e5, 0.3, 1000.0),
    );
    let scene = Scene {
        gravity: Vec3::new(0.0, 0.0, -G),
        bodies: vec![body],
        colliders: vec![ground()],
        pins: vec![],
        embedded: vec![],
        ..Default::default()
    };
    let mut solver = Solver::new(scene, settings(24.0)).unwrap();
    let mut lowest = f32::MAX;
    for _ in 0..96 {
        solver.step_frame();
        let min_z = solver.positions(BodyId(0)).iter().map(|p| p.z).fold(f32::MAX, f32::min);
        lowest = lowest.min(min_z);
    }
    assert!(lowest > -2e-3, "penetrated the ground by {}", -lowest);
    let max_speed = solver.velocities(BodyId(0)).iter().map(|v| v.length()).fold(0.0, f32::max);
    assert!(max_speed < 0.05, "still moving at {max_speed} m/s after 4 s");
    let com = solver.centre_of_mass(BodyId(0));
    // At rest the centre sits near half the height, lowered by self-weight compression
    // ρgL²/(2E)/2 ≈ 3 mm.
    assert!((com.z - 0.25).abs() < 0.01, "centre of mass at {com}");
    // Gauss-Seidel's colour order is not symmetric, so the bounce is not perfectly
    // vertical; friction must keep the slide to millimetres.
    assert!(com.x.abs() < 0.01 && com.y.abs() < 0.01, "cube slid sideways: {com}");
}

#[test]
fn cloth_draped_on_sphere_never_enters_it() {
    let radius = 0.4;
    let cloth = cloth_body(Vec3::new(-0.6, -0.6, 0.6), 1.2, 24, material(1e5, 0.3, 200.0));
    let sphere = Collider {
        name: "/sphere".into(),
        shape: ColliderShape::Sphere { radius },
        translation: Vec3::ZERO,
        rotation: glam::Quat::IDENTITY,
        friction: 0.5,
    };
    let scene = Scene {
        gravity: Vec3::new(0.0, 0.0, -G),
        bodies: vec![cloth],
        colliders: vec![sphere],
        pins: vec![],
        embedded: vec![],
        ..Default::default()
    };
    let mut solver = Solver::new(scene, Settings { contact_offset: 0.005, ..settings(24.0) }).unwrap();
    for frame in 0..48 {
        solver.step_frame();
        let closest = solver.positions(BodyId(0)).iter().map(|p| p.length()).fold(f32::MAX, f32::min);
        assert!(closest >= radius, "frame {frame}: a vertex is {} inside the sphere", radius - closest);
    }
    // It did drape: the centre rests on top of the sphere and the corners hang below it.
    let p = solver.positions(BodyId(0));
    let centre = p[12 * 24 + 12];
    assert!((centre.z - radius).abs() < 0.03, "centre at {centre}");
    assert!(p[0].z < 0.2, "corner did not fall: {}", p[0]);
}

/// A bar of length L hanging from its top face stretches by ρgL²/(2E) (linear elasticity,
/// ν = 0 so the clamped top face imposes no lateral stress).
#[test]
fn hanging_bar_stretches_like_linear_elasticity() {
    let (l, e, rho) = (1.0f32, 1e5f32, 1000.0f32);
    let mut mat = material(e, 0.0, rho);
    mat.damping = 0.01;
    let body = volume_body(Vec3::new(-0.05, -0.05, -l), Vec3::new(0.05, 0.05, 0.0), UVec3::new(2, 2, 16), mat);
    let pins: Vec<Pin> = body
        .positions
        .iter()
        .enumerate()
        .filter(|(_, p)| p.z > -1e-6)
        .map(|(i, p)| Pin { body: BodyId(0), vertex: i as u32, target: *p, stiffness: f32::INFINITY, damping: 0.0 })
        .collect();
    assert_eq!(pins.len(), 9);
    let bottom: Vec<usize> = (0..body.positions.len()).filter(|&i| body.positions[i].z < -l + 1e-6).collect();
    let scene = Scene {
        gravity: Vec3::new(0.0, 0.0, -G),
        bodies: vec![body],
        colliders: vec![],
        pins: pins.clone(),
        embedded: vec![],
        ..Default::default()
    };
    let mut solver = Solver::new(scene, Settings { substeps: 20, ..settings(24.0) }).unwrap();
    for _ in 0..120 {
        solver.step_frame();
    }
    let p = solver.positions(BodyId(0));
    for pin in &pins {
        assert_eq!(p[pin.vertex as usize], pin.target, "a hard pin moved");
    }
    let stretch = -l - bottom.iter().map(|&i| p[i].z).sum::<f32>() / bottom.len() as f32;
    let expected = rho * G * l * l / (2.0 * e);
    let rel = (stretch - expected).abs() / expected;
    assert!(rel < 0.1, "bar stretched {stretch} m, linear elasticity says {expected} m ({:.1}% off)", rel * 100.0);
}

/// A bar standing on the ground shortens by ρgL²/(2E) under its own weight. (Short and
/// thick enough not to buckle: the self-weight buckling length 1.986·(EI/ρgA)^⅓ is 0.84 m.)
#[test]
fn standing_bar_compresses_like_linear_elasticity() {
    let (l, e, rho) = (0.5f32, 1e5f32, 1000.0f32);
    let mut mat = material(e, 0.0, rho);
    mat.damping = 0.01;
    let body = volume_body(Vec3::new(-0.15, -0.15, 0.0), Vec3::new(0.15, 0.15, l), UVec3::new(3, 3, 10), mat);
    let top: Vec<usize> = (0..body.positions.len()).filter(|&i| body.positions[i].z > l - 1e-6).collect();
    let scene = Scene {
        gravity: Vec3::new(0.0, 0.0, -G),
        bodies: vec![body],
        colliders: vec![ground()],
        pins: vec![],
        embedded: vec![],
        ..Default::default()
    };
    let mut solver = Solver::new(scene, Settings { substeps: 20, ..settings(24.0) }).unwrap();
    for _ in 0..120 {
        solver.step_frame();
    }
    let p = solver.positions(BodyId(0));
    let shortening = l - top.iter().map(|&i| p[i].z).sum::<f32>() / top.len() as f32;
    let expected = rho * G * l * l / (2.0 * e);
    let rel = (shortening - expected).abs() / expected;
    assert!(rel < 0.1, "bar shortened {shortening} m, linear elasticity says {expected} m ({:.1}% off)", rel * 100.0);
}

#[test]
fn results_do_not_depend_on_thread_count() {
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let cloth = cloth_body(Vec3::new(-0.6, -0.6, 0.6), 1.2, 64, material(1e5, 0.3, 200.0));
            let jelly = volume_body(
                Vec3::new(1.0, 0.0, 0.1),
                Vec3::new(1.5, 0.5, 0.6),
                UVec3::splat(8),
                material(1e5, 0.3, 1000.0),
            );
            let sphere = Collider {
                name: "/sphere".into(),
                shape: ColliderShape::Sphere { radius: 0.4 },
                translation: Vec3::ZERO,
                rotation: glam::Quat::IDENTITY,
                friction: 0.5,
            };
            let scene = Scene {
                gravity: Vec3::new(0.0, 0.0, -G),
                bodies: vec![cloth, jelly],
                colliders: vec![sphere, ground()],
                pins: vec![],
                embedded: vec![],
                ..Default::default()
            };
            let mut solver = Solver::new(scene, settings(24.0)).unwrap();
            for _ in 0..12 {
                solver.step_frame();
            }
            (
                solver.positions(BodyId(0)).to_vec(),
                solver.positions(BodyId(1)).to_vec(),
                solver.velocities(BodyId(0)).to_vec(),
            )
        })
    };
    let one = run(1);
    let two = run(2);
    assert!(one == two, "1 and 2 threads gave different states");
}

#[test]
fn bad_scenes_are_refused_with_the_body_named() {
    let mut body = volume_body(Vec3::ZERO, Vec3::ONE, UVec3::ONE, material(1e5, 0.3, 1000.0));
    body.tets[0][2] = 99;
    let err = Solver::new(Scene { bodies: vec![body], ..Default::default() }, Settings::default()).err().unwrap();
    assert!(err.to_string().contains("/box") && err.to_string().contains("99"), "{err}");

    let body = volume_body(Vec3::ZERO, Vec3::ONE, UVec3::ONE, material(1e5, 0.5, 1000.0));
    let err = Solver::new(Scene { bodies: vec![body], ..Default::default() }, Settings::default()).err().unwrap();
    assert!(err.to_string().contains("poissonsRatio"), "{err}");

    let mut body = volume_body(Vec3::ZERO, Vec3::ONE, UVec3::ONE, material(1e5, 0.3, 1000.0));
    body.rest_points = vec![Vec3::ZERO; body.rest_points.len()];
    let err = Solver::new(Scene { bodies: vec![body], ..Default::default() }, Settings::default()).err().unwrap();
    assert!(err.to_string().contains("degenerate"), "{err}");
}

/// Angle of the hinge between the two triangles of a 4-vertex "book" (shared edge 0–1).
fn book_angle(p: &[Vec3]) -> f32 {
    let e = (p[1] - p[0]).normalize();
    let a = (p[2] - p[0]) - e * e.dot(p[2] - p[0]);
    let b = (p[3] - p[0]) - e * e.dot(p[3] - p[0]);
    std::f32::consts::PI - a.angle_between(b)
}

fn book(rest: Vec<Vec3>, default: BendDefault, overrides: Vec<([u32; 2], f32)>) -> Solver {
    let flat = vec![Vec3::ZERO, Vec3::X, Vec3::new(0.5, 1.0, 0.0), Vec3::new(0.5, -1.0, 0.0)];
    let mut mat = material(1e5, 0.3, 200.0);
    mat.bend_stiffness = 1.0;
    // Damping ratio ≈ ½·τ·ω ≈ 0.5 for the hinge's ω ≈ 9.5 rad/s, so 4 s settle it.
    mat.damping = 0.1;
    let body = Body {
        velocities: vec![Vec3::ZERO; 4],
        positions: flat.clone(),
        rest_points: rest,
        rest_elements: vec![[0, 1, 2, 0], [1, 0, 3, 0]],
        triangles: vec![[0, 1, 2], [1, 0, 3]],
        bend_default: default,
        bend_overrides: overrides,
        ..Body::new("/book", BodyKind::Surface, Vec::new(), mat)
    };
    let pins = (0..3).map(|v| Pin {
        body: BodyId(0),
        vertex: v,
        target: flat[v as usize],
        stiffness: f32::INFINITY,
        damping: 0.0,
    });
    let scene = Scene {
        gravity: Vec3::ZERO,
        bodies: vec![body],
        colliders: vec![],
        pins: pins.collect(),
        embedded: vec![],
        ..Default::default()
    };
    let mut solver = Solver::new(scene, settings(24.0)).unwrap();
    for _ in 0..96 {
        solver.step_frame();
    }
    solver
}

#[test]
fn bending_settles_at_the_rest_angle() {
    // Flat default: a flat book stays flat.
    let flat = vec![Vec3::ZERO, Vec3::X, Vec3::new(0.5, 1.0, 0.0), Vec3::new(0.5, -1.0, 0.0)];
    let solver = book(flat.clone(), BendDefault::Flat, vec![]);
    assert!(book_angle(&solver.positions(BodyId(0))) < 0.01);

    // Rest-shape default: the rest shape is folded by 60°, the flat start folds to match.
    let fold = 60f32.to_radians();
    let mut folded = flat.clone();
    folded[3] = Vec3::new(0.5, -fold.cos(), fold.sin());
    let solver = book(folded.clone(), BendDefault::RestShape, vec![]);
    let angle = book_angle(&solver.positions(BodyId(0)));
    assert!((angle - fold).abs() < 0.02, "rest shape folded by 60°, simulation settled at {}°", angle.to_degrees());
    // ... towards the same side as the rest shape.
    assert!(solver.positions(BodyId(0))[3].z > 0.5);

    // An explicit rest angle overrides the default and uses the same sign convention as
    // rest shapes: the angle the rest-shape default measured for the fold above.
    let measured = usdsim_core_angle(&folded);
    let solver = book(flat, BendDefault::Flat, vec![([1, 0], measured)]);
    let angle = book_angle(&solver.positions(BodyId(0)));
    assert!((angle - fold).abs() < 0.02, "explicit 60° rest angle settled at {}°", angle.to_degrees());
    assert!(solver.positions(BodyId(0))[3].z > 0.5);
}

/// The signed angle the rest-shape default assigns to the book's hinge.
fn usdsim_core_angle(p: &[Vec3]) -> f32 {
    // Hinge [x0, x1, x2, x3] = [0, 1, 2, 3]: the edge 0→1 in the first triangle's winding.
    let e = p[1] - p[0];
    let n1 = e.cross(p[2] - p[0]);
    let n2 = (p[3] - p[0]).cross(e);
    n2.cross(n1).dot(e.normalize()).atan2(n1.dot(n2))
}

/// A cloth strip hanging from its top edge stretches like a bar: ρgL²/(2E) (ν = 0, so the
/// pinned edge does not restrain lateral contraction). Checks the membrane's stiffness
/// mapping from E, ν and h.
#[test]
fn hanging_cloth_strip_stretches_like_linear_elasticity() {
    let (l, e, rho) = (1.0f32, 2e4f32, 200.0f32);
    let mut mat = material(e, 0.0, rho);
    mat.damping = 0.01;
    let (points, tris) = grid::cloth(Vec3::new(-0.05, 0.0, -l), Vec3::X, Vec3::Z, (0.1, l), (3, 21));
    let mut body = cloth_body(Vec3::ZERO, 1.0, 2, mat);
    body.velocities = vec![Vec3::ZERO; points.len()];
    body.rest_points = points.clone();
    body.rest_elements = tris.iter().map(|t| [t[0], t[1], t[2], 0]).collect();
    body.positions = points;
    body.triangles = tris;
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
    let bottom: Vec<usize> = (0..body.positions.len()).filter(|&i| body.positions[i].z < -l + 1e-6).collect();
    let scene = Scene {
        gravity: Vec3::new(0.0, 0.0, -G),
        bodies: vec![body],
        colliders: vec![],
        pins,
        embedded: vec![],
        ..Default::default()
    };
    let mut solver = Solver::new(scene, settings(24.0)).unwrap();
    for _ in 0..120 {
        solver.step_frame();
    }
    let p = solver.positions(BodyId(0));
    let stretch = -l - bottom.iter().map(|&i| p[i].z).sum::<f32>() / bottom.len() as f32;
    let expected = rho * G * l * l / (2.0 * e);
    let rel = (stretch - expected).abs() / expected;
    assert!(rel < 0.1, "strip stretched {stretch} m, linear elasticity says {expected} m ({:.1}% off)", rel * 100.0);
}

/// Signed distance from `p` to each kind of collider used below (analytic, independent
/// of parry3d).
fn signed_distance(shape: &ColliderShape, centre: Vec3, p: Vec3) -> f32 {
    let q = p - centre;
    match shape {
        ColliderShape::Plane { normal } => normal.dot(q),
        ColliderShape::Sphere { radius } => q.length() - radius,
        ColliderShape::Cuboid { half_extents } => {
            let d = q.abs() - *half_extents;
            d.max(Vec3::ZERO).length() + d.max_element().min(0.0)
        }
        ColliderShape::Capsule { radius, half_height, axis } => {
            let t = q.dot(*axis).clamp(-half_height, *half_height);
            (q - *axis * t).length() - radius
        }
        ColliderShape::Cylinder { radius, half_height, axis } => {
            let along = q.dot(*axis);
            let radial = (q - *axis * along).length();
            let d = glam::Vec2::new(radial - radius, along.abs() - half_height);
            d.max(glam::Vec2::ZERO).length() + d.max_element().min(0.0)
        }
        ColliderShape::TriMesh { .. } => q.z, // the flat ground built below
    }
}

#[test]
fn no_collider_kind_lets_a_falling_body_through() {
    let ground_mesh = ColliderShape::TriMesh {
        vertices: vec![
            Vec3::new(-2.0, -2.0, 0.0),
            Vec3::new(2.0, -2.0, 0.0),
            Vec3::new(2.0, 2.0, 0.0),
            Vec3::new(-2.0, 2.0, 0.0),
        ],
        triangles: vec![[0, 1, 2], [0, 2, 3]],
    };
    // Each shape's top is at z = 0 under the falling cube.
    let cases = [
        (ColliderShape::Plane { normal: Vec3::Z }, Vec3::ZERO),
        (ColliderShape::Cuboid { half_extents: Vec3::new(1.0, 1.0, 0.5) }, Vec3::new(0.0, 0.0, -0.5)),
        (ColliderShape::Sphere { radius: 1.0 }, Vec3::new(0.0, 0.0, -1.0)),
        (ColliderShape::Capsule { radius: 0.3, half_height: 1.0, axis: Vec3::X }, Vec3::new(0.0, 0.0, -0.3)),
        (ColliderShape::Cylinder { radius: 1.0, half_height: 0.25, axis: Vec3::Z }, Vec3::new(0.0, 0.0, -0.25)),
        (ground_mesh, Vec3::ZERO),
    ];
    for (shape, centre) in cases {
        let body = volume_body(
            Vec3::new(-0.1, -0.1, 0.3),
            Vec3::new(0.1, 0.1, 0.5),
            UVec3::splat(2),
            material(1e5, 0.3, 1000.0),
        );
        let translation = if matches!(shape, ColliderShape::TriMesh { .. }) { Vec3::ZERO } else { centre };
        let collider = Collider {
            name: "/c".into(),
            shape: shape.clone(),
            translation,
            rotation: glam::Quat::IDENTITY,
            friction: 0.5,
        };
        let scene = Scene {
            gravity: Vec3::new(0.0, 0.0, -G),
            bodies: vec![body],
            colliders: vec![collider],
            pins: vec![],
            embedded: vec![],
            ..Default::default()
        };
        let mut solver = Solver::new(scene, settings(24.0)).unwrap();
        let mut deepest = f32::MAX;
        for _ in 0..36 {
            solver.step_frame();
            for p in &solver.positions(BodyId(0)) {
                deepest = deepest.min(signed_distance(&shape, centre, *p));
            }
        }
        assert!(deepest > -2e-3, "{shape:?}: a vertex went {} inside", -deepest);
        // It landed: something touched the shape.
        assert!(deepest < 0.01, "{shape:?}: the body never reached the collider (closest {deepest})");
    }
}

/// PhysX's vertex velocity damping is `dv/dt = −c·v`: a body coasting in empty space
/// slows to `v0·e^(−ct)` and travels `v0·(1 − e^(−ct))/c`, in either time scheme; with
/// `c = 0` it coasts at `v0`.
#[test]
fn velocity_damping_decays_velocity_exponentially() {
    let v0 = Vec3::new(2.0, 0.0, 0.0);
    for c in [0.0f32, 0.5, 3.0] {
        for scheme in [TimeScheme::Bdf2, TimeScheme::ImplicitEuler] {
            let mut body = volume_body(Vec3::ZERO, Vec3::splat(0.2), UVec3::splat(2), material(1e5, 0.3, 1000.0));
            body.velocities = vec![v0; body.positions.len()];
            body.velocity_damping = c;
            let scene = Scene { gravity: Vec3::ZERO, bodies: vec![body], ..Default::default() };
            let s = Settings { time_scheme: scheme, ..settings(24.0) };
            let mut solver = Solver::new(scene, s).unwrap();
            let c0 = solver.centre_of_mass(BodyId(0));
            let frames = 48;
            for _ in 0..frames {
                solver.step_frame();
            }
            let t = frames as f32 * s.frame_dt;
            let travelled = (solver.centre_of_mass(BodyId(0)) - c0).x;
            let exact = if c == 0.0 { v0.x * t } else { v0.x * (1.0 - (-c * t).exp()) / c };
            assert!(
                (travelled - exact).abs() < 0.01 * exact,
                "c = {c}, {scheme:?}: travelled {travelled}, expected {exact}"
            );
            let speed: f32 = solver.velocities(BodyId(0)).iter().map(|v| v.x).sum::<f32>()
                / solver.velocities(BodyId(0)).len() as f32;
            let expected = v0.x * (-c * t).exp();
            assert!((speed - expected).abs() < 0.01 * v0.x, "c = {c}, {scheme:?}: speed {speed}, expected {expected}");
        }
    }
}
