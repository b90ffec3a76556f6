//! Tearing in the solver: a cloth strip pulled between two moving attachments tears at the
//! configured ratio and not below it, opens into pieces that share no vertex, and keeps
//! its mass.

use glam::{Mat4, Vec3};
use std::collections::HashSet;
use usdsim_core::{grid, Attachment, Body, BodyKind, Frame, Material, Scene, Settings, Site, Solver};
use usdsim_core::{BodyId, FrameId};

const NX: u32 = 17;
const NY: u32 = 5;
const LENGTH: f32 = 1.0;

/// A 1 m × 0.25 m strip along X whose end columns are fixed in frames 0 (left) and 1
/// (right), no gravity.
fn strip(tear_ratio: Option<f32>) -> Scene {
    let (points, tris) = grid::cloth(Vec3::ZERO, Vec3::X, Vec3::Y, (LENGTH, 0.25), (NX, NY));
    let mut body = Body::new("/strip", BodyKind::Surface, points.clone(), Material::elastic(1e5, 0.3, 200.0));
    body.rest_elements = tris.iter().map(|t| [t[0], t[1], t[2], 0]).collect();
    body.triangles = tris;
    body.tear_ratio = tear_ratio;
    let mut attachments = Vec::new();
    for j in 0..NY {
        for (frame, i) in [(0, 0), (1, NX - 1)] {
            let v = j * NX + i;
            attachments.push(Attachment {
                a: Site::Vertex { body: BodyId(0), vertex: v },
                b: Site::Frame { frame: FrameId(frame), local: points[v as usize] },
                stiffness: f32::INFINITY,
                damping: 0.0,
            });
        }
    }
    Scene {
        bodies: vec![body],
        attachments,
        frames: ["/left", "/right"].map(|n| Frame { name: n.into(), world_from_local: Mat4::IDENTITY }).to_vec(),
        ..Scene::default()
    }
}

fn settings() -> Settings {
    Settings { frame_dt: 1.0 / 24.0, ..Settings::default() }
}

/// The largest ratio of current to rest length over every triangle edge.
fn max_stretch(solver: &Solver, rest: &[Vec3]) -> f32 {
    let p = solver.positions(BodyId(0));
    let mut worst = 0.0f32;
    for tri in solver.triangles(BodyId(0)) {
        for k in 0..3 {
            let (a, b) = (tri[k] as usize, tri[(k + 1) % 3] as usize);
            // Rest positions by triangle corner: copies sit at their original's rest place.
            let rest_len = rest[origin(solver, a)].distance(rest[origin(solver, b)]);
            worst = worst.max(p[a].distance(p[b]) / rest_len);
        }
    }
    worst
}

/// The original vertex a (possibly split) vertex descends from, found through the
/// triangles: corner k of triangle t always descends from the same original vertex.
fn origin(solver: &Solver, v: usize) -> usize {
    let original = grid::cloth(Vec3::ZERO, Vec3::X, Vec3::Y, (LENGTH, 0.25), (NX, NY)).1;
    for (t, tri) in solver.triangles(BodyId(0)).iter().enumerate() {
        if let Some(k) = tri.iter().position(|&q| q as usize == v) {
            return original[t][k] as usize;
        }
    }
    v
}

/// What a pull did.
struct Pulled {
    solver: Solver,
    /// The largest edge stretch at any frame end before the first edge broke.
    before: f32,
    /// The largest edge stretch at the end of the frame the first edge broke in.
    at_break: Option<f32>,
    /// The frame the mesh first opened in.
    opened: Option<u32>,
}

/// Pulls the right frame to `LENGTH + pull` over `frames` frames, then holds it for
/// `hold` frames, checking the strip's mass after every frame.
fn pull(tear_ratio: f32, pull: f32, frames: u32, hold: u32) -> Pulled {
    pull_with(settings(), tear_ratio, pull, frames, hold)
}

/// [`pull`] with other settings.
fn pull_with(settings: Settings, tear_ratio: f32, pull: f32, frames: u32, hold: u32) -> Pulled {
    let scene = strip(Some(tear_ratio));
    let rest = scene.bodies[0].positions.clone();
    let mut solver = Solver::new(scene, settings).unwrap();
    let total = solver.body_mass(BodyId(0));
    let (mut before, mut at_break, mut opened) = (0.0f32, None, None);
    for f in 1..=frames + hold {
        let d = pull * (f.min(frames) as f32 / frames as f32);
        solver.set_frame_target(FrameId(1), Mat4::from_translation(Vec3::new(d, 0.0, 0.0))).unwrap();
        solver.step_frame();
        if solver.topology_version(BodyId(0)) > 0 {
            opened.get_or_insert(f);
        }
        if solver.broken_edges(BodyId(0)) == 0 {
            before = before.max(max_stretch(&solver, &rest));
        } else if at_break.is_none() {
            at_break = Some(max_stretch(&solver, &rest));
        }
        let m = solver.body_mass(BodyId(0));
        assert!((m - total).abs() <= 1e-5 * total, "frame {f}: mass {m} vs {total}");
    }
    Pulled { solver, before, at_break, opened }
}

/// Connected pieces of the current mesh, as sets of vertices.
fn pieces(solver: &Solver) -> Vec<HashSet<u32>> {
    let tris = solver.triangles(BodyId(0));
    let mut parent: Vec<usize> = (0..solver.positions(BodyId(0)).len()).collect();
    fn find(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    for t in tris {
        for k in 1..3 {
            let (a, b) = (find(&mut parent, t[0] as usize), find(&mut parent, t[k] as usize));
            parent[a.max(b)] = a.min(b);
        }
    }
    let mut by_root: std::collections::BTreeMap<usize, HashSet<u32>> = Default::default();
    for t in tris {
        for &v in t {
            let r = find(&mut parent, v as usize);
            by_root.entry(r).or_default().insert(v);
        }
    }
    by_root.into_values().collect()
}

#[test]
fn a_strip_pulled_below_its_tear_ratio_holds() {
    // 25 % elongation against a tear ratio of 1.5: no edge reaches 150 %.
    let Pulled { solver, before, at_break, opened } = pull(1.5, 0.25, 24, 24);
    assert_eq!((at_break, opened), (None, None), "tore although the largest stretch was {before}");
    assert!(before > 1.15 && before < 1.5, "largest stretch {before}");
    assert_eq!(pieces(&solver).len(), 1);
    assert_eq!(solver.positions(BodyId(0)).len(), (NX * NY) as usize);
}

#[test]
fn a_strip_pulled_past_its_tear_ratio_tears_into_two_pieces() {
    let Pulled { solver, before, at_break, opened } = pull(1.5, 1.0, 48, 24);
    let at_break = at_break.expect("no edge ever broke");
    assert!(opened.is_some(), "edges broke but the mesh never opened");
    assert!(before <= 1.5, "an edge was stretched to {before} without breaking");
    assert!(before > 1.4, "the last frame before the break peaked at {before}");
    assert!(at_break > 1.5, "the first break came at a stretch of {at_break}");
    let parts = pieces(&solver);
    assert_eq!(parts.len(), 2, "pieces: {:?}", parts.iter().map(HashSet::len).collect::<Vec<_>>());
    assert!(parts[0].is_disjoint(&parts[1]));
    // Each piece hangs from its own frame: one holds the left column, the other the
    // right, and the held vertices sit exactly on their frames.
    let p = solver.positions(BodyId(0));
    let left: Vec<u32> = (0..NY).map(|j| j * NX).collect();
    let right: Vec<u32> = (0..NY).map(|j| j * NX + NX - 1).collect();
    let holds = |part: &HashSet<u32>, column: &[u32]| column.iter().all(|v| part.contains(v));
    assert!(
        (holds(&parts[0], &left) && holds(&parts[1], &right)) || (holds(&parts[1], &left) && holds(&parts[0], &right)),
        "the pieces do not each hold one end"
    );
    for &v in &left {
        assert_eq!(p[v as usize].x, 0.0);
    }
    for &v in &right {
        assert!((p[v as usize].x - 2.0).abs() < 1e-5, "{}", p[v as usize].x);
    }
    // No triangle has collapsed (the snapped-back pieces crumple, so no orientation check).
    let rest_area = 0.5 * (LENGTH / (NX - 1) as f32) * (0.25 / (NY - 1) as f32);
    for t in solver.triangles(BodyId(0)) {
        let n = (p[t[1] as usize] - p[t[0] as usize]).cross(p[t[2] as usize] - p[t[0] as usize]);
        assert!(0.5 * n.length() > 0.05 * rest_area, "triangle {t:?} collapsed: area {}", 0.5 * n.length());
    }
}

#[test]
fn a_strip_with_self_contact_tears_into_two_pieces() {
    // A tearing body's spare vertex slots lie past every body's vertices; the self
    // contact search once indexed them as a body's and panicked on its first substep.
    let settings = Settings { self_contact: Some(true), ..settings() };
    let Pulled { solver, at_break, .. } = pull_with(settings, 1.5, 1.0, 48, 24);
    assert!(at_break.is_some(), "no edge ever broke");
    assert_eq!(pieces(&solver).len(), 2);
}

#[test]
fn a_spinning_sheet_tears_without_creating_momentum_or_energy() {
    // A free 0.5 m square spun about its centre at 40 rad/s, no gravity: the centrifugal
    // load tears it. Internal forces and vertex splitting must leave the total momentum
    // at zero and the centre of mass in place, and no tear may add kinetic energy (the
    // sheet starts unstrained, so its kinetic energy bounds the total).
    let n = 13;
    let (points, tris) = grid::cloth(Vec3::new(-0.25, -0.25, 0.0), Vec3::X, Vec3::Y, (0.5, 0.5), (n, n));
    let mut body = Body::new("/sheet", BodyKind::Surface, points.clone(), Material::elastic(2e4, 0.3, 200.0));
    body.rest_elements = tris.iter().map(|t| [t[0], t[1], t[2], 0]).collect();
    body.triangles = tris;
    body.tear_ratio = Some(1.3);
    let omega = 40.0;
    body.velocities = points.iter().map(|p| Vec3::Z.cross(*p) * omega).collect();
    let mut solver = Solver::new(Scene { bodies: vec![body], ..Scene::default() }, settings()).unwrap();
    let kinetic = |s: &Solver| -> f32 {
        s.velocities(BodyId(0)).iter().zip(s.masses(BodyId(0))).map(|(v, m)| 0.5 * m * v.length_squared()).sum()
    };
    let momentum =
        |s: &Solver| -> Vec3 { s.velocities(BodyId(0)).iter().zip(s.masses(BodyId(0))).map(|(v, m)| *v * *m).sum() };
    let (k0, mass) = (kinetic(&solver), solver.body_mass(BodyId(0)));
    let scale = mass * omega * 0.25; // momentum of the whole mass at the rim speed
    for f in 0..24 {
        solver.step_frame();
        let p = momentum(&solver);
        assert!(p.length() < 1e-3 * scale, "frame {f}: momentum {p} (scale {scale})");
        assert!(
            solver.centre_of_mass(BodyId(0)).length() < 1e-4,
            "frame {f}: centre {}",
            solver.centre_of_mass(BodyId(0))
        );
        assert!(kinetic(&solver) <= k0 * 1.001, "frame {f}: kinetic {} > initial {k0}", kinetic(&solver));
        assert!((solver.body_mass(BodyId(0)) - mass).abs() < 1e-5 * mass);
    }
    assert!(solver.topology_version(BodyId(0)) > 0, "the sheet never tore");
}

#[test]
fn a_tet_bar_pulled_apart_tears_into_two_solid_pieces() {
    // A 1 m × 0.2 m × 0.2 m bar of 10 × 2 × 2 cells, its end faces fixed in two frames
    // that move apart by 0.8 m: it separates between tetrahedra into two pieces that
    // share no vertex, each held by its own frame, and keeps its mass.
    let (points, tets) = grid::tet_box(Vec3::ZERO, Vec3::new(1.0, 0.2, 0.2), glam::UVec3::new(10, 2, 2));
    let mut body = Body::new("/bar", BodyKind::Volume, points.clone(), Material::elastic(1e5, 0.3, 200.0));
    body.rest_elements = tets.clone();
    body.tets = tets;
    body.tear_ratio = Some(1.4);
    let ends: Vec<(usize, u32)> = points
        .iter()
        .enumerate()
        .filter_map(|(v, p)| {
            if p.x < 1e-6 {
                Some((0, v as u32))
            } else if p.x > 1.0 - 1e-6 {
                Some((1, v as u32))
            } else {
                None
            }
        })
        .collect();
    let attachments = ends
        .iter()
        .map(|&(frame, v)| Attachment {
            a: Site::Vertex { body: BodyId(0), vertex: v },
            b: Site::Frame { frame: FrameId(frame), local: points[v as usize] },
            stiffness: f32::INFINITY,
            damping: 0.0,
        })
        .collect();
    let scene = Scene {
        bodies: vec![body],
        attachments,
        frames: ["/left", "/right"].map(|n| Frame { name: n.into(), world_from_local: Mat4::IDENTITY }).to_vec(),
        ..Scene::default()
    };
    let mut solver = Solver::new(scene, settings()).unwrap();
    let mass = solver.body_mass(BodyId(0));
    for f in 1..=72u32 {
        let d = 0.8 * (f.min(48) as f32 / 48.0);
        solver.set_frame_target(FrameId(1), Mat4::from_translation(Vec3::new(d, 0.0, 0.0))).unwrap();
        solver.step_frame();
        assert!((solver.body_mass(BodyId(0)) - mass).abs() < 1e-5 * mass, "frame {f}");
    }
    assert!(solver.topology_version(BodyId(0)) > 0, "the bar never tore");
    // Pieces: tets joined through shared vertices.
    let tets = solver.tets(BodyId(0));
    let mut parent: Vec<usize> = (0..solver.positions(BodyId(0)).len()).collect();
    fn find(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    for t in tets {
        for k in 1..4 {
            let (a, b) = (find(&mut parent, t[0] as usize), find(&mut parent, t[k] as usize));
            parent[a.max(b)] = a.min(b);
        }
    }
    let left = find(&mut parent, ends.iter().find(|e| e.0 == 0).unwrap().1 as usize);
    let right = find(&mut parent, ends.iter().find(|e| e.0 == 1).unwrap().1 as usize);
    assert_ne!(left, right, "the two ends are still joined");
    for &(frame, v) in &ends {
        let root = find(&mut parent, v as usize);
        assert_eq!(root, if frame == 0 { left } else { right }, "end vertex {v} is not with its frame's piece");
    }
    // Every tet keeps a positive volume: nothing inverted or collapsed by the splits.
    let p = solver.positions(BodyId(0));
    for t in tets {
        let [a, b, c, d] = t.map(|i| p[i as usize]);
        let vol = (b - a).cross(c - a).dot(d - a) / 6.0;
        assert!(vol > 0.0, "tet {t:?} has volume {vol}");
    }
}
