//! Kinematic deformable bodies pushing dynamic ones, and `startsAsleep` bodies that stay
//! exactly still until something touches them or something they are attached to moves.
//! Judged by exact geometry (no vertex of one volume body inside another's tetrahedra,
//! in f64) and bitwise comparisons of the frozen state.

use glam::{DVec3, Mat4, Quat, UVec3, Vec3};
use usdsim_core::{grid, Attachment, Body, Collider, ColliderShape, Frame, Material, Scene, Settings, Site, Solver};
use usdsim_core::{BodyId, FrameId};

const G: f32 = 9.81;

fn material(youngs: f32, density: f32, thickness: f32) -> Material {
    Material { thickness, dynamic_friction: 0.4, damping: 0.01, ..Material::elastic(youngs, 0.3, density) }
}

fn tet_box(name: &str, min: Vec3, max: Vec3, cells: UVec3, youngs: f32) -> Body {
    grid::tet_body(name, min, max, cells, material(youngs, 1000.0, 0.0))
}

fn cloth(name: &str, origin: Vec3, u: Vec3, v: Vec3, size: (f32, f32), verts: (u32, u32)) -> Body {
    grid::cloth_body(name, origin, u, v, size, verts, material(1e5, 200.0, 1e-3))
}

fn ground() -> Collider {
    Collider {
        name: "/ground".into(),
        shape: ColliderShape::Plane { normal: Vec3::Z },
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        friction: 0.5,
    }
}

fn scene(bodies: Vec<Body>) -> Scene {
    Scene { gravity: Vec3::new(0.0, 0.0, -G), bodies, colliders: vec![ground()], ..Default::default() }
}

fn settings() -> Settings {
    Settings { substeps: 10, iterations: 10, frame_dt: 1.0 / 24.0, contact_offset: 0.002, ..Settings::default() }
}

fn centre(s: &Solver, body: usize) -> Vec3 {
    let p = s.positions(BodyId(body));
    p.iter().copied().sum::<Vec3>() / p.len() as f32
}

fn max_speed(s: &Solver, body: usize) -> f32 {
    s.velocities(BodyId(body)).iter().map(|v| v.length()).fold(0.0, f32::max)
}

/// Vertices of body `a` strictly inside a tetrahedron of volume body `b` (every
/// barycentric coordinate above `1e-3`), computed in f64.
fn vertices_inside(s: &Solver, a: usize, b: usize) -> usize {
    let tets = s.tets(BodyId(b));
    let q: Vec<DVec3> = s.positions(BodyId(b)).iter().map(|p| p.as_dvec3()).collect();
    s.positions(BodyId(a))
        .iter()
        .filter(|p| {
            let p = p.as_dvec3();
            tets.iter().any(|t| {
                let [v0, v1, v2, v3] = t.map(|i| q[i as usize]);
                let m = glam::DMat3::from_cols(v1 - v0, v2 - v0, v3 - v0);
                let det = m.determinant();
                if det.abs() < 1e-18 {
                    return false;
                }
                let l = m.inverse() * (p - v0);
                l.min_element() > 1e-3 && 1.0 - l.x - l.y - l.z > 1e-3
            })
        })
        .count()
}

fn no_interpenetration(s: &Solver, a: usize, b: usize) {
    assert_eq!(vertices_inside(s, a, b), 0, "vertices of body {a} inside body {b}");
    assert_eq!(vertices_inside(s, b, a), 0, "vertices of body {b} inside body {a}");
}

/// Moves kinematic body `k` by `step` every frame for `frames` frames.
fn push(s: &mut Solver, k: usize, step: Vec3, frames: usize, mut each: impl FnMut(&Solver)) {
    for _ in 0..frames {
        let target: Vec<Vec3> = s.positions(BodyId(k)).iter().map(|&p| p + step).collect();
        s.set_kinematic_targets(BodyId(k), &target).unwrap();
        s.step_frame();
        each(s);
    }
}

// ---- (1) kinematic bodies push dynamic ones ----------------------------------------

/// The dynamic body's vertices against the kinematic body's triangles: a wide, coarse
/// kinematic plate (its corners far outside the box) sweeps a small box along the ground.
#[test]
fn kinematic_plate_pushes_a_box_through_its_triangles() {
    let plate = {
        let mut b = tet_box("/plate", Vec3::new(-0.1, -0.5, 0.0), Vec3::new(0.0, 0.5, 0.6), UVec3::ONE, 1e6);
        b.kinematic = true;
        b
    };
    let cube = tet_box("/box", Vec3::new(0.01, -0.1, 0.0), Vec3::new(0.21, 0.1, 0.2), UVec3::splat(2), 1e5);
    let mut s = Solver::new(scene(vec![plate, cube]), settings()).unwrap();
    let c0 = centre(&s, 1);
    // 0.6 m/s for half a second: 0.3 m, the first 0.01 m of it closing the gap.
    push(&mut s, 0, Vec3::new(0.025, 0.0, 0.0), 12, |s| {
        let face = s.positions(BodyId(0)).iter().map(|p| p.x).fold(f32::MIN, f32::max);
        let back = s.positions(BodyId(1)).iter().map(|p| p.x).fold(f32::MAX, f32::min);
        assert!(back >= face - 1e-3, "box vertex {back} behind the plate's face {face}");
        no_interpenetration(s, 0, 1);
    });
    let moved = centre(&s, 1) - c0;
    assert!((moved.x - 0.29).abs() < 0.02, "box moved {moved}, expected ~0.29 along x");
    assert!(moved.y.abs() < 0.01 && moved.z.abs() < 0.01, "box moved {moved}");
}

/// The kinematic body's vertices against the dynamic body's triangles: a small
/// kinematic block (its corners inside the face of a coarse box, the box's corners
/// outside the block) pushes the middle of the box's face.
#[test]
fn kinematic_block_pushes_a_box_through_its_vertices() {
    let block = {
        let mut b = tet_box("/block", Vec3::new(-0.1, -0.05, 0.15), Vec3::new(-0.01, 0.05, 0.25), UVec3::ONE, 1e6);
        b.kinematic = true;
        b
    };
    let cube = tet_box("/box", Vec3::new(0.0, -0.2, 0.0), Vec3::new(0.4, 0.2, 0.4), UVec3::ONE, 1e5);
    let mut s = Solver::new(scene(vec![block, cube]), settings()).unwrap();
    let c0 = centre(&s, 1);
    push(&mut s, 0, Vec3::new(0.02, 0.0, 0.0), 12, |s| {
        no_interpenetration(s, 0, 1);
        // The block's front corners stay in front of the box's face plane.
        let p = s.positions(BodyId(1));
        let face = (p[0] + p[2] + p[4] + p[6]) / 4.0; // corners with i = 0
        let front = s.positions(BodyId(0)).iter().map(|p| p.x).fold(f32::MIN, f32::max);
        assert!(front <= face.x + 1e-3, "block front {front} past the box face {}", face.x);
    });
    let moved = centre(&s, 1) - c0;
    assert!((moved.x - 0.23).abs() < 0.03, "box moved {moved}, expected ~0.23 along x");
    assert!(moved.y.abs() < 0.01, "box moved {moved}");
}

/// A kinematic cloth paddle (both contact directions, two-sided triangles) sweeps a box.
#[test]
fn kinematic_cloth_pushes_a_box() {
    let paddle = {
        let mut b = cloth("/paddle", Vec3::new(-0.02, -0.2, 0.0), Vec3::Y, Vec3::Z, (0.4, 0.3), (9, 7));
        b.kinematic = true;
        b
    };
    let cube = tet_box("/box", Vec3::new(0.0, -0.1, 0.0), Vec3::new(0.2, 0.1, 0.2), UVec3::splat(2), 1e5);
    let mut s = Solver::new(scene(vec![paddle, cube]), settings()).unwrap();
    let c0 = centre(&s, 1);
    push(&mut s, 0, Vec3::new(0.025, 0.0, 0.0), 12, |s| {
        let sheet = s.positions(BodyId(0))[0].x;
        let back = s.positions(BodyId(1)).iter().map(|p| p.x).fold(f32::MAX, f32::min);
        assert!(back >= sheet - 1e-3, "box vertex {back} behind the paddle {sheet}");
    });
    let moved = centre(&s, 1) - c0;
    assert!((moved.x - 0.28).abs() < 0.02, "box moved {moved}, expected ~0.28 along x");
}

// ---- (2) sleeping bodies -----------------------------------------------------------

fn asleep_box() -> Body {
    let mut b = tet_box("/asleep", Vec3::new(-0.1, -0.1, 0.0), Vec3::new(0.1, 0.1, 0.2), UVec3::splat(2), 1e5);
    b.starts_asleep = true;
    b
}

/// Nothing touches it: gravity, a dynamic box settling 8 mm beside it (about
/// the contact search's reach, beyond the 4 mm contact thickness) and a kinematic body holding still against
/// it leave every position bitwise unchanged.
#[test]
fn asleep_box_on_a_plane_stays_exactly_still() {
    let neighbour = tet_box("/near", Vec3::new(0.108, -0.1, 0.002), Vec3::new(0.208, 0.1, 0.102), UVec3::ONE, 1e5);
    let resting = {
        let mut b = tet_box("/still", Vec3::new(-0.2, -0.1, 0.0), Vec3::new(-0.1, 0.1, 0.1), UVec3::ONE, 1e5);
        b.kinematic = true;
        b
    };
    let body = asleep_box();
    let start = body.positions.clone();
    let mut s = Solver::new(scene(vec![body, neighbour, resting]), settings()).unwrap();
    for _ in 0..48 {
        s.step_frame();
        assert!(s.is_asleep(BodyId(0)));
        assert_eq!(s.positions(BodyId(0)), &start[..]);
        assert!(s.velocities(BodyId(0)).iter().all(|v| *v == Vec3::ZERO));
    }
    // The neighbour settled on the ground beside it.
    assert!(max_speed(&s, 1) < 0.02, "neighbour still moving at {}", max_speed(&s, 1));
}

/// A box dropped onto a sleeping one wakes it on contact (not before); both come to rest
/// stacked, without interpenetration.
#[test]
fn box_dropped_onto_an_asleep_box_wakes_it() {
    let falling = tet_box("/falling", Vec3::new(-0.05, -0.05, 0.35), Vec3::new(0.05, 0.05, 0.45), UVec3::ONE, 1e5);
    let mut s = Solver::new(scene(vec![asleep_box(), falling]), settings()).unwrap();
    let start = s.positions(BodyId(0)).to_vec();
    // Free fall to the top (0.2) takes sqrt(2·0.15/g) = 0.175 s = 4.2 frames.
    for _ in 0..4 {
        s.step_frame();
        assert!(s.is_asleep(BodyId(0)));
        assert_eq!(s.positions(BodyId(0)), &start[..]);
    }
    let mut woke = None;
    for frame in 4..72 {
        s.step_frame();
        if woke.is_none() && !s.is_asleep(BodyId(0)) {
            woke = Some(frame);
        }
        no_interpenetration(&s, 0, 1);
    }
    assert!(matches!(woke, Some(4..=6)), "woke at frame {woke:?}");
    assert!(max_speed(&s, 0) < 0.05 && max_speed(&s, 1) < 0.05, "{} {}", max_speed(&s, 0), max_speed(&s, 1));
    let top = s.positions(BodyId(0)).iter().map(|p| p.z).fold(f32::MIN, f32::max);
    let bottom = s.positions(BodyId(1)).iter().map(|p| p.z).fold(f32::MAX, f32::min);
    assert!(bottom > top - 1e-3 && bottom < top + 0.01, "falling box bottom {bottom}, asleep box top {top}");
    let low = s.positions(BodyId(0)).iter().map(|p| p.z).fold(f32::MAX, f32::min);
    assert!(low > -0.001, "woken box sank into the ground: {low}");
}

/// A kinematic body moving into a sleeping one wakes it and pushes it.
#[test]
fn kinematic_body_moving_into_an_asleep_box_wakes_it() {
    let plate = {
        let mut b = tet_box("/plate", Vec3::new(-0.3, -0.5, 0.0), Vec3::new(-0.2, 0.5, 0.6), UVec3::ONE, 1e6);
        b.kinematic = true;
        b
    };
    let mut s = Solver::new(scene(vec![asleep_box(), plate]), settings()).unwrap();
    let start = s.positions(BodyId(0)).to_vec();
    // 0.025 per frame: the 0.1 gap closes during frame 4.
    push(&mut s, 1, Vec3::new(0.025, 0.0, 0.0), 3, |s| {
        assert!(s.is_asleep(BodyId(0)));
        assert_eq!(s.positions(BodyId(0)), &start[..]);
    });
    push(&mut s, 1, Vec3::new(0.025, 0.0, 0.0), 9, |s| no_interpenetration(s, 0, 1));
    assert!(!s.is_asleep(BodyId(0)));
    let moved = centre(&s, 0).x - start.iter().map(|p| p.x).sum::<f32>() / start.len() as f32;
    assert!((moved - 0.2).abs() < 0.03, "pushed {moved}, expected ~0.2");
}

/// A sleeping cloth hanging from an animated frame by two hard corner attachments
/// (driven vertices) and one soft one (a link): asleep, bitwise still, while the frame
/// holds (with or without an unchanged target); awake as soon as the frame moves.
#[test]
fn asleep_cloth_wakes_when_its_frame_moves() {
    let mut c = cloth("/cloth", Vec3::new(0.0, 0.0, 1.0), Vec3::X, Vec3::Y, (0.4, 0.4), (5, 5));
    c.starts_asleep = true;
    let p = c.positions.clone();
    let frame = Frame { name: "/hook".into(), world_from_local: Mat4::from_translation(Vec3::new(0.0, 0.0, 1.0)) };
    let local = |v: u32| p[v as usize] - Vec3::new(0.0, 0.0, 1.0);
    let hard = |v: u32| Attachment {
        a: Site::Vertex { body: BodyId(0), vertex: v },
        b: Site::Frame { frame: FrameId(0), local: local(v) },
        stiffness: f32::INFINITY,
        damping: 0.0,
    };
    let soft = Attachment { stiffness: 1e3, ..hard(24) };
    let mut sc = scene(vec![c]);
    sc.frames = vec![frame.clone()];
    sc.attachments = vec![hard(0), hard(4), soft];
    let mut s = Solver::new(sc, settings()).unwrap();
    let p = s.positions(BodyId(0)).to_vec();
    for k in 0..12 {
        if k % 2 == 1 {
            s.set_frame_target(FrameId(0), frame.world_from_local).unwrap();
        }
        s.step_frame();
        assert!(s.is_asleep(BodyId(0)), "woke at frame {k}");
        assert_eq!(s.positions(BodyId(0)), &p[..]);
    }
    let lift = Vec3::new(0.0, 0.0, 0.05);
    s.set_frame_target(FrameId(0), Mat4::from_translation(Vec3::new(0.0, 0.0, 1.0) + lift)).unwrap();
    s.step_frame();
    assert!(!s.is_asleep(BodyId(0)));
    assert!(s.positions(BodyId(0))[0].distance(p[0] + lift) < 1e-5, "driven corner at {}", s.positions(BodyId(0))[0]);
    // The free middle falls.
    assert!(s.positions(BodyId(0))[12].z < p[12].z - 1e-3);
}

/// A sleeping box attached by a soft link only (a tet point to a frame point, so no
/// driven vertex) wakes when the frame moves.
#[test]
fn asleep_box_wakes_when_a_linked_frame_moves() {
    let mut b = asleep_box();
    b.starts_asleep = true;
    let corner = b.positions[b.positions.len() - 1];
    let frame = Frame { name: "/hook".into(), world_from_local: Mat4::IDENTITY };
    let mut sc = scene(vec![b]);
    sc.frames = vec![frame];
    sc.attachments = vec![Attachment {
        a: Site::Tet { body: BodyId(0), tet: 0, coords: [0.25, 0.25, 0.25] },
        b: Site::Frame { frame: FrameId(0), local: corner },
        stiffness: 1e4,
        damping: 0.0,
    }];
    let mut s = Solver::new(sc, settings()).unwrap();
    let start = s.positions(BodyId(0)).to_vec();
    for _ in 0..6 {
        s.step_frame();
    }
    assert!(s.is_asleep(BodyId(0)));
    assert_eq!(s.positions(BodyId(0)), &start[..]);
    s.set_frame_target(FrameId(0), Mat4::from_translation(Vec3::new(0.0, 0.0, 0.1))).unwrap();
    s.step_frame();
    assert!(!s.is_asleep(BodyId(0)));
}

/// A sleeping box attached to a kinematic body wakes when that body moves, and to a
/// dynamic body as soon as that one moves (it falls under gravity at once).
#[test]
fn asleep_box_wakes_when_an_attached_body_moves() {
    let attach = |other: usize, vertex: u32| Attachment {
        a: Site::Vertex { body: BodyId(0), vertex: 26 },
        b: Site::Vertex { body: BodyId(other), vertex },
        stiffness: f32::INFINITY,
        damping: 0.0,
    };
    // Vertex 26 is the asleep box's top corner (0.1, 0.1, 0.2); the handle's vertex 0
    // sits on it.
    let handle = |kinematic: bool| {
        let mut h = tet_box("/handle", Vec3::new(0.1, 0.1, 0.2), Vec3::new(0.15, 0.15, 0.25), UVec3::ONE, 1e5);
        h.kinematic = kinematic;
        h
    };
    let mut sc = scene(vec![asleep_box(), handle(true)]);
    sc.attachments = vec![attach(1, 0)];
    let mut s = Solver::new(sc, settings()).unwrap();
    let start = s.positions(BodyId(0)).to_vec();
    assert_eq!(start[26], Vec3::new(0.1, 0.1, 0.2));
    for _ in 0..6 {
        s.step_frame();
    }
    assert!(s.is_asleep(BodyId(0)));
    assert_eq!(s.positions(BodyId(0)), &start[..]);
    push(&mut s, 1, Vec3::new(0.0, 0.0, 0.01), 1, |_| {});
    assert!(!s.is_asleep(BodyId(0)));

    let mut sc = scene(vec![asleep_box(), handle(false)]);
    sc.attachments = vec![attach(1, 0)];
    let mut s = Solver::new(sc, settings()).unwrap();
    s.step_frame();
    assert!(!s.is_asleep(BodyId(0)));
}

/// Waking on contact gives the same bits for any thread count.
#[test]
fn waking_is_deterministic_across_thread_counts() {
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let falling =
                tet_box("/falling", Vec3::new(-0.05, -0.05, 0.25), Vec3::new(0.05, 0.05, 0.35), UVec3::ONE, 1e5);
            let mut s = Solver::new(scene(vec![asleep_box(), falling]), settings()).unwrap();
            for _ in 0..12 {
                s.step_frame();
            }
            assert!(!s.is_asleep(BodyId(0)));
            [s.positions(BodyId(0)).to_vec(), s.positions(BodyId(1)).to_vec()]
        })
    };
    assert_eq!(run(1), run(3));
}
