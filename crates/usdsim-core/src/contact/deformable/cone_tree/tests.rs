//! Tests of the cone tree: the batched leaf bounds against one-at-a-time ones, and
//! searches with and without the cone test on folding and creased sheets.

use super::refit::{leaf_bounds, Leaves};
use crate::contact::deformable::bounds::{altitude, Bound};
use crate::contact::deformable::fixtures::{cloth_sheet, same};
use crate::contact::deformable::path::{Path, WINDOW};
use crate::contact::deformable::surfaces::{SelfContact, Surfaces};
use crate::scene::Scene;
use glam::Vec3;

/// One vertex's samples over the window, taken from its path as the leaf bounds take
/// them: the predicted ends of the first, middle and last substeps, the
/// step and acceleration, and how far the path may pass from the samples' chords
/// (its curve, `|a|·L²/8` for samples `L` substeps apart, and `stray`).
struct Sampled {
    samples: [Vec3; 3],
    step: Vec3,
    acceleration: Vec3,
    stray: f32,
}

fn sampled(p: &Path, stray: f32, window: u32) -> Sampled {
    let (middle, last) = (0.5 * (window - 1) as f32, (window - 1) as f32);
    Sampled {
        samples: [p.end(0.0), p.end(middle), p.end(last)],
        step: p.step,
        acceleration: p.acceleration,
        stray: p.acceleration.length() * middle * middle / 8.0 + stray,
    }
}

/// One leaf's bound, computed alone (the reference for [`leaf_bounds`]) from its
/// triangles `tris` (one or two), each in its own winding: the box of their corners,
/// the normal cone of both at the samples widened by how far their corners may stray
/// between them, the smallest altitude, the body's `keep`, and the boxes of the
/// corners' steps and accelerations. Also each triangle's own box.
fn leaf_bound_alone(
    s: &Surfaces,
    vertex: &[Sampled],
    boxes: &[(Vec3, Vec3)],
    keep: &[f32],
    tris: &[u32],
) -> (Bound, Vec<(Vec3, Vec3)>) {
    let body = s.tri_body[tris[0] as usize] as usize;
    let corners: Vec<u32> = tris.iter().flat_map(|&t| s.triangles[t as usize]).collect();
    let own: Vec<(Vec3, Vec3)> = (tris.iter())
        .map(|&t| {
            let [b0, b1, b2] = s.triangles[t as usize].map(|i| boxes[i as usize]);
            (b0.0.min(b1.0).min(b2.0), b0.1.max(b1.1).max(b2.1))
        })
        .collect();
    let span = |f: &dyn Fn(&Sampled) -> Vec3| {
        let all = corners.iter().map(|&i| f(&vertex[i as usize]));
        let (lo, hi) = all.fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
        (glam::Vec3A::from(lo), glam::Vec3A::from(hi))
    };
    let mut bound = Bound {
        lo: own.iter().fold(Vec3::INFINITY, |m: Vec3, b| m.min(b.0)).into(),
        hi: own.iter().fold(Vec3::NEG_INFINITY, |m: Vec3, b| m.max(b.1)).into(),
        steps: span(&|v| v.step),
        accelerations: span(&|v| v.acceleration),
        ..Default::default()
    };
    let mut normals = Vec::new();
    let mut h = f32::INFINITY;
    for &t in tris {
        let tri = s.triangles[t as usize].map(|i| &vertex[i as usize]);
        for k in 0..3 {
            let [a, b, c] = tri.map(|v| v.samples[k]);
            normals.push((b - a).cross(c - a).normalize_or_zero());
            h = h.min(altitude(a, b, c));
        }
    }
    if normals.contains(&Vec3::ZERO) {
        return (bound, own);
    }
    let axis = normals.iter().sum::<Vec3>().normalize_or_zero();
    if axis == Vec3::ZERO {
        return (bound, own);
    }
    let cos = normals.iter().map(|m| m.dot(axis)).fold(1.0f32, f32::min).clamp(-1.0, 1.0);
    let sin = (1.0 - cos * cos).sqrt();
    // Between samples a vertex strays from the chords by `stray`; moving one
    // corner by `ε` turns the normal by at most `ε / h` (twice, for safety's
    // sake, and a little for the normal's own curve between samples).
    let stray = corners.iter().map(|&i| vertex[i as usize].stray).fold(0.0f32, f32::max);
    // (Widening by `τ` through `sin τ ≤ τ`, `cos τ ≥ √(1 − τ²)`.)
    let tolerance = (2.0 * stray / h.max(1e-12) + 0.05).min(1.0);
    let (ct, st) = ((1.0 - tolerance * tolerance).sqrt(), tolerance);
    bound.axis = axis.into();
    bound.cos = cos * ct - sin * st;
    bound.sin = sin * ct + cos * st;
    bound.altitude = h;
    bound.keep = keep[body];
    (bound, own)
}

/// The batched leaf bounds are the one-at-a-time ones: the same boxes, spreads and
/// altitudes, cones within rounding, and the same degenerate cases, for leaves of two
/// triangles and of one (some of the sheet's triangles reversed, so that two
/// triangles of a leaf may disagree on their winding).
#[test]
fn batched_leaf_bounds_are_the_single_ones() {
    let mut body = cloth_sheet("sheet", Vec3::ZERO, 0.3, 12);
    for tri in body.triangles.iter_mut().step_by(5) {
        tri.swap(1, 2);
    }
    let scene = Scene { bodies: vec![body], ..Default::default() };
    let ranges = [std::ops::Range { start: 0, end: 144 }];
    let self_contact = SelfContact { surfaces: Some(true), volumes: false };
    let (s, _) = Surfaces::new(&scene, &ranges, 0.002, true, self_contact);
    let mut seed = 7u32;
    let mut next = move || {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (seed >> 8) as f32 / (1u32 << 24) as f32 - 0.5
    };
    let rest = &scene.bodies[0].positions;
    let mut paths: Vec<Path> = rest
        .iter()
        .map(|&p| {
            let mut jiggle = || Vec3::new(next(), next(), next()) * 0.004;
            Path { base: p + jiggle(), velocity: jiggle(), step: jiggle(), acceleration: jiggle() * 0.1 }
        })
        .collect();
    // A vertex moving with its neighbour: its triangles with it are degenerate.
    paths[40] = paths[41];
    let stray = 0.0005;
    let boxes: Vec<(Vec3, Vec3)> = rest.iter().map(|&p| (p - Vec3::splat(next().abs()), p + 0.01)).collect();
    // Every window a list may have (a shorter one follows a list rebuilt early).
    for window in 2..=WINDOW {
        leaf_bounds_match(&s, &paths, window, stray, &boxes);
    }
}

/// [`batched_leaf_bounds_are_the_single_ones`] for one window of `window` substeps.
fn leaf_bounds_match(s: &Surfaces, paths: &[Path], window: u32, stray: f32, boxes: &[(Vec3, Vec3)]) {
    let tree = &s.tree;
    let vertex: Vec<Sampled> = paths.iter().map(|p| sampled(p, stray, window)).collect();
    let keep = [0.008];
    let leaves = tree.leaf_corners.len();
    let mut batched = vec![Bound::default(); leaves];
    let mut triangle_boxes = vec![[(Vec3::ZERO, Vec3::ZERO); 2]; leaves];
    let leaf =
        Leaves { corners: &tree.leaf_corners, flipped: &tree.leaf_flipped, paths, window, stray, boxes, keep: &keep };
    leaf_bounds(s, &leaf, 0, &mut batched, &mut triangle_boxes);
    let (mut wide, mut pairs, mut disagree) = (0, 0, 0);
    for node in tree.nodes.iter().filter(|n| n.left == super::NONE) {
        let k = node.leaf as usize;
        let tris = tree.run(node);
        let (a, own) = leaf_bound_alone(s, &vertex, boxes, &keep, tris);
        let b = batched[k];
        assert_eq!((a.lo, a.hi, a.keep), (b.lo, b.hi, b.keep), "window {window}, leaf {k}");
        assert_eq!((a.steps, a.accelerations), (b.steps, b.accelerations), "window {window}, leaf {k}");
        assert_eq!(own[..], triangle_boxes[k][..tris.len()], "window {window}, leaf {k}");
        // (The lanes form the samples in another order of operations: within rounding.)
        assert!((a.altitude - b.altitude).abs() <= 1e-5 * a.altitude, "window {window}, leaf {k}: {a:?} {b:?}");
        if a.cos <= 0.0 {
            // Normals in opposite directions (disagreeing windings): the axis is
            // rounding, but both cones hold every direction.
            assert!(b.cos <= 0.0, "window {window}, leaf {k}: {a:?} {b:?}");
        } else {
            // The half-angle rather than its sine, which is ill-conditioned near 0.
            let angle = |c: &Bound| c.sin.atan2(c.cos);
            let close = a.axis.distance(b.axis) < 1e-5 && (a.cos - b.cos).abs() < 1e-5;
            assert!(close && (angle(&a) - angle(&b)).abs() < 1e-4, "window {window}, leaf {k}: {a:?} {b:?}");
        }
        wide += usize::from(b.cos == 0.0 && b.altitude == 0.0);
        pairs += usize::from(tris.len() == 2);
        disagree += usize::from(tris.len() == 2 && tree.leaf_flipped[k]);
    }
    assert!((1..12).contains(&wide), "window {window}: {wide} degenerate leaves");
    assert!(pairs > leaves / 2 && disagree > 0, "{pairs} of {leaves} leaves hold two triangles, {disagree} disagree");
}

/// A 20 × 20 sheet of 0.3 m (edges of 15.8 mm, like the 64² bench cloth's) at
/// substep `k` (1 ms apart): swinging as a whole, and from substep 20 on folding its
/// right part over its left around a hinge whose radius shrinks from 12 to 2.4 mm,
/// so that the two layers come within reach of each other.
fn folding(rest: &[Vec3], k: usize) -> Vec<Vec3> {
    let t = (k as f32 - 20.0).max(0.0) / 100.0;
    let (fold, radius) = (std::f32::consts::PI * t.min(1.0), 0.012 - 0.0096 * t.min(1.0));
    let hinge = 0.14;
    let swing = glam::Quat::from_rotation_x(0.3 * (k as f32 * 0.02).sin());
    rest.iter()
        .map(|&p| {
            let u = p.x - hinge;
            let local = if u <= 0.0 {
                p
            } else {
                // Along the arc while within it, then straight on along its tangent.
                let along = u.min(radius * fold);
                let phi = along / radius;
                let on_arc = Vec3::new(hinge + radius * phi.sin(), p.y, radius * (1.0 - phi.cos()));
                let tangent = Vec3::new(phi.cos(), 0.0, phi.sin());
                on_arc + tangent * (u - along)
            };
            swing * local
        })
        .collect()
}

/// Moves a 20 × 20 sheet of 0.3 m through `pose` (its positions at substep `k`, from
/// the rest ones) with and without the cone test, asserts that every substep finds the
/// same contacts, and returns in how many substeps there were contacts and in how many
/// the cones made the lists shorter.
fn with_and_without_cones(substeps: usize, pose: impl Fn(&[Vec3], usize) -> Vec<Vec3>) -> (usize, usize) {
    let body = cloth_sheet("sheet", Vec3::ZERO, 0.3, 20);
    let scene = Scene { bodies: vec![body], ..Default::default() };
    let ranges = [std::ops::Range { start: 0, end: 400 }];
    let self_contact = SelfContact { surfaces: Some(true), volumes: false };
    let (mut pruned, filter) = Surfaces::new(&scene, &ranges, 0.002, true, self_contact);
    let (mut full, _) = Surfaces::new(&scene, &ranges, 0.002, true, self_contact);
    full.tree.cones = false;
    let rest = scene.bodies[0].positions.clone();
    let w = vec![1.0; rest.len()];
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let (mut touching, mut shorter) = (0, 0);
    for k in 0..substeps {
        let (x_prev, x) = (pose(&rest, k), pose(&rest, k + 1));
        pruned.detect(&x, &x_prev, &w, &filter, &mut a);
        full.detect(&x, &x_prev, &w, &filter, &mut b);
        assert!(same(&a, &b), "substep {k}: {} contacts with smooth regions skipped, {} without", a.len(), b.len());
        touching += usize::from(!a.is_empty());
        let size = |s: &Surfaces| s.candidates.vertex_triangle.len() + s.candidates.edge_edge.len();
        shorter += usize::from(size(&pruned) < size(&full));
    }
    (touching, shorter)
}

#[test]
fn skipping_smooth_regions_loses_no_contact_of_a_folding_sheet() {
    let (touching, shorter) = with_and_without_cones(140, folding);
    assert!(touching > 20, "the layers touch in {touching} substeps only: the test shows nothing");
    assert!(shorter > 70, "the cones shortened the lists in {shorter} of 140 substeps only");
}

/// The sheet of [`folding`] at substep `k`, held creased along the grid line of
/// vertex column 10 by `angle` (so that the two sides meet at a sharp hinge, not a
/// round one) and swinging slowly as a whole: the triangles across the crease turn
/// little relative to each other, but the crease's normals span almost `angle`.
fn creased(rest: &[Vec3], k: usize, angle: f32) -> Vec<Vec3> {
    let hinge = Vec3::new(0.3 * 10.0 / 19.0, 0.0, 0.0);
    let swing = glam::Quat::from_rotation_x(0.01 * (k as f32 * 0.02).sin());
    let fold = glam::Quat::from_rotation_y(-angle);
    rest.iter().map(|&p| swing * if p.x <= hinge.x + 1e-6 { p } else { hinge + fold * (p - hinge) }).collect()
}

/// A crease folded by 160° brings the vertices next to it within 5.4 mm of the
/// triangles across it, inside the 5 mm thickness plus the margin. A region holding
/// both sides has a cone of about 80°, so its altitude seen along the axis is about
/// 2 mm: the cone test must not skip it. (It did, while it compared the altitude less
/// the thickness, seen along the axis, with the motion alone: 188 of 924 contacts
/// were lost in every substep.)
#[test]
fn a_sharp_crease_is_not_skipped() {
    for degrees in [150.0f32, 160.0, 170.0] {
        let angle = degrees.to_radians();
        let (touching, _) = with_and_without_cones(40, |rest, k| creased(rest, k, angle));
        // 150° keeps the sides 6.7 mm apart: no contact, and nothing to lose.
        assert_eq!(touching > 0, degrees > 155.0, "{degrees}°: contacts in {touching} substeps");
    }
}

/// The sheet of [`folding`] creased by `angle` along its diagonal `x = y` (the grid
/// vertices `(i, i)`, along the diagonals of the quads it crosses), swinging slowly as
/// a whole: the leaves that meet at a corner on the crease face each other across it.
fn creased_diagonally(rest: &[Vec3], k: usize, angle: f32) -> Vec<Vec3> {
    let swing = glam::Quat::from_rotation_x(0.01 * (k as f32 * 0.02).sin());
    let fold = glam::Quat::from_axis_angle(Vec3::new(1.0, 1.0, 0.0).normalize(), angle);
    rest.iter().map(|&p| swing * if p.x - p.y <= 1e-6 { p } else { fold * p }).collect()
}

/// A diagonal crease folded by 160° or 170° brings each side within reach of the
/// other, and the star regions of the vertices on it span both sides: none of them
/// may be skipped, so every substep finds the contacts of a search without cones.
#[test]
fn a_diagonal_crease_is_not_skipped_around_its_vertices() {
    for degrees in [160.0f32, 170.0] {
        let angle = degrees.to_radians();
        let (touching, _) = with_and_without_cones(40, |rest, k| creased_diagonally(rest, k, angle));
        assert!(touching > 30, "{degrees}°: contacts in {touching} of 40 substeps only: the test shows nothing");
    }
}

/// Leaves that meet at a corner only are skipped by the star region of that corner
/// where it is smooth, and not where it spans a sharp crease: on the diagonally creased
/// sheet every such pair at a vertex two cells or more from the crease is skipped, and
/// none at a vertex on it.
#[test]
fn stars_skip_the_corner_pairs_of_smooth_parts_only() {
    let body = cloth_sheet("sheet", Vec3::ZERO, 0.3, 20);
    let scene = Scene { bodies: vec![body], ..Default::default() };
    let ranges = [std::ops::Range { start: 0, end: 400 }];
    let self_contact = SelfContact { surfaces: Some(true), volumes: false };
    let (mut s, filter) = Surfaces::new(&scene, &ranges, 0.002, true, self_contact);
    let rest = scene.bodies[0].positions.clone();
    let (x_prev, x) = (creased_diagonally(&rest, 0, 2.8), creased_diagonally(&rest, 1, 2.8));
    s.detect(&x, &x_prev, &vec![1.0; rest.len()], &filter, &mut Vec::new());
    let tree = &s.tree;
    let cell = 0.3 / 19.0;
    let (mut skipped, mut kept) = (0, 0);
    for a in 0..tree.leaf_corners.len() {
        for b in a + 1..tree.leaf_corners.len() {
            let (ca, cb) = (tree.leaf_corners[a], tree.leaf_corners[b]);
            let shared: Vec<u32> = ca.iter().copied().filter(|v| cb.contains(v)).collect();
            let mut distinct = shared.clone();
            distinct.dedup();
            if distinct.len() != 1 {
                continue;
            }
            let p = rest[shared[0] as usize];
            let from_crease = (p.x - p.y).abs() / std::f32::consts::SQRT_2;
            let skips = tree.skips_around(a as u32, b as u32);
            if from_crease < 1e-6 {
                assert!(!skips, "leaves {a} and {b} meet on the crease at {p} and were skipped");
                kept += 1;
            } else if from_crease > 2.0 * cell {
                assert!(skips, "leaves {a} and {b} meet at {p}, {from_crease} m from the crease, and were not skipped");
                skipped += 1;
            }
        }
    }
    assert!(skipped > 100 && kept > 5, "{skipped} pairs skipped away from the crease, {kept} kept on it");
}

/// A star region holding a pair closer at rest than the smallest altitude may never be
/// skipped (the cone test's argument does not cover it): a sheet whose rest shape is
/// creased by 170° along its diagonal has no region at the vertices on the crease,
/// while those eight cells or more from it keep theirs.
#[test]
fn stars_folded_at_rest_are_never_skipped() {
    let mut body = cloth_sheet("sheet", Vec3::ZERO, 0.3, 20);
    body.positions = creased_diagonally(&body.positions, 0, 170f32.to_radians());
    let rest = body.positions.clone();
    let scene = Scene { bodies: vec![body], ..Default::default() };
    let self_contact = SelfContact { surfaces: Some(true), volumes: false };
    let (s, _) = Surfaces::new(&scene, &[std::ops::Range { start: 0, end: 400 }], 0.002, true, self_contact);
    let flat = cloth_sheet("sheet", Vec3::ZERO, 0.3, 20).positions;
    for (v, p) in flat.iter().enumerate() {
        let from_crease = (p.x - p.y).abs() / std::f32::consts::SQRT_2;
        let region = s.tree.stars.of(v as u32);
        if from_crease < 1e-6 {
            assert!(region.is_empty(), "vertex {v} on the crease (at {}) has a star region", rest[v]);
        } else if from_crease > 0.3 / 19.0 * 8.0 {
            // Regions near the crease are refused too: at 170° the sides are closer than
            // the smallest altitude up to four cells out, and the check marks the
            // corners of both triangles of a close pair.
            assert!(!region.is_empty(), "vertex {v}, {from_crease} m from the crease, has no star region");
        }
    }
}

/// Every node of a grid cloth's tree may be skipped: the build's splits keep each
/// node's triangles connected through shared edges. Plain median splits leave about
/// 700 of the 64² bench cloth's nodes stranded (one of them of 992 triangles), which
/// the search then descends to their leaves at every list build.
#[test]
fn every_node_of_a_cloth_is_connected() {
    for verts in [9, 20, 64] {
        let body = cloth_sheet("sheet", Vec3::ZERO, 1.0, verts);
        let n = body.positions.len();
        let scene = Scene { bodies: vec![body], ..Default::default() };
        let self_contact = SelfContact { surfaces: Some(true), volumes: false };
        let (s, _) = Surfaces::new(&scene, &[std::ops::Range { start: 0, end: n }], 0.002, true, self_contact);
        let tree = &s.tree;
        let stranded = tree.nodes.iter().filter(|node| !node.prunable).count();
        assert_eq!(stranded, 0, "{verts}²: {stranded} of {} nodes cannot be skipped", tree.nodes.len());
        // Every triangle is still in exactly one leaf, and most leaves hold two.
        let leaves: Vec<&super::Node> = tree.nodes.iter().filter(|node| node.left == super::NONE).collect();
        let mut held: Vec<u32> = leaves.iter().flat_map(|node| tree.run(node).iter().copied()).collect();
        held.sort_unstable();
        assert!(held.iter().copied().eq(0..s.triangles.len() as u32), "{verts}²: leaves are not the triangles");
        let pairs = leaves.iter().filter(|node| node.count == 2).count();
        assert!(pairs > leaves.len() / 2, "{verts}²: {pairs} of {} leaves hold two triangles", leaves.len());
    }
}
