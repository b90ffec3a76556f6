//! The broad phase of the candidate lists: a bounding-volume hierarchy over every
//! colliding surface whose nodes also carry a *normal cone*, so that smooth parts of a
//! cloth are never searched against themselves (Volino & Magnenat-Thalmann 1994,
//! "Efficient self-collision detection on smoothly discretized surface animations using
//! geometrical shape regularity"; Provot 1997, "Collision and self-collision handling in
//! cloth model dedicated to design garments").
//!
//! **The tree.** Built once per body from its rest positions by median splits of the
//! triangles' centroids along the longest axis, down to leaves of one triangle or of two
//! that share an edge (on a grid cloth, most leaves are its quads: a refit gathers four
//! corners for two triangles instead of six, and merges half as many nodes). Every
//! vertex and every edge is *owned* by one of its triangles (the first), so that a
//! (vertex, triangle) or (edge, edge) pair comes from exactly one pair of triangles: the
//! owner and the other. Each list build refits the boxes (each vertex's box along its
//! predicted path, as [`super::candidates`] grows it) and the cones bottom up.
//!
//! **Why a smooth region can be skipped.** Take a region `R` of one body whose triangles
//! are connected through shared edges, whose normals stay within a cone of half-angle
//! `θ < 90°` all window long, and whose triangles' altitudes stay at least `h`. Seen along
//! the cone's axis, `R` is a height field: its projection onto the plane across the axis
//! overlaps nowhere, and it shortens lengths by at most `cos θ`. A vertex `v` of `R` and a
//! triangle of `R` it does not belong to are then at least `h·cos θ` apart: the triangle
//! lies outside `v`'s star, whose projection reaches `v`'s opposite edges no closer than
//! `h·cos θ`. Two edges of `R` sharing no vertex are as far (their closest points include
//! an end, which is outside the other edge's triangles). So when `h·cos θ` exceeds what a
//! substep keeps (the thickness, margin, the skin, and the relative substep motion of a
//! pair, which the spread of the region's steps and accelerations bounds), no pair inside
//! `R` can become a contact in the window, and the search skips `R` against itself; pairs
//! between `R` and the rest are still searched.
//!
//! The argument needs the projection not to fold over itself across a gap in `R`, which a
//! connected, near-isometric cloth patch cannot do without tearing; and it fails at rest
//! for meshes with slits or split seams, whose sides touch though they share no edge. So
//! a node may be skipped only when its triangles are connected and when, at rest, no pair
//! inside it is closer than the body's smallest altitude (checked once, when the tree is
//! built). The cones are taken from the normals at three points of the window (the
//! predicted ends of the first, middle and last substeps) and widened by what the paths can
//! curve between them and by the skin. The substeps' starts need no sample: a substep keeps
//! a pair by its distance at the predicted end and its motion, never by where it started.

use super::candidates::{path_lanes, Path, WINDOW};
use super::Surfaces;
use crate::constraint::lanes::{Vec3x8, LANES};
use crate::contact::filter_table::FilterTable;
use crate::mesh::closest::{closest_point, closest_segment_params, point};
use glam::{Vec3, Vec3A};
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU32, Ordering};
use wide::f32x8;

/// No child, owner or feature.
pub(super) const NONE: u32 = u32::MAX;

/// Two nodes whose triangle counts multiply to at most this are searched leaf by leaf,
/// without the visits of the levels between (of 4, 8, 16, 32 and 64, 16 took the fewest
/// instructions on the 64² bench cloth with leaves of two triangles).
const BRUTE_PAIRS: u32 = 16;

/// Leaves whose bounds one task of a refit computes (a multiple of the lanes).
const LEAF_CHUNK: usize = 256;

/// Below this many triangles a subtree is searched (and refitted) on one thread.
const SPLIT_LEAVES: u32 = 512;

/// One node of a body's tree: the triangles `first..first + count` of [`ConeTree::order`].
/// A leaf holds one triangle, or two that share an edge (a quad of a grid cloth).
#[derive(Clone, Copy, Debug)]
struct Node {
    left: u32,
    right: u32,
    first: u32,
    count: u32,
    /// Nodes in its subtree (itself included), which follows it in [`ConeTree::nodes`].
    size: u32,
    /// Its index among the leaves ([`ConeTree::leaf_corners`]), [`NONE`] for an inner node.
    leaf: u32,
    /// Connected through shared edges, and no pair inside closer at rest than the
    /// body's smallest altitude: the cone test may skip it.
    prunable: bool,
    /// Some pair under it is closer at rest than the body's smallest altitude: no two
    /// of its parts are skipped against each other.
    close: bool,
    parent: u32,
}

/// What a refit knows of a node over the window.
/// Its vectors are 16-byte lanes (`Vec3A`), so that a merge or an overlap test is one
/// instruction an axis triple.
#[derive(Clone, Copy, Debug)]
struct Bound {
    lo: Vec3A,
    hi: Vec3A,
    /// Normal cone: axis and the cosine and sine of its half-angle (widened by the
    /// path's tolerance); a cosine of zero or less holds every direction.
    axis: Vec3A,
    cos: f32,
    sin: f32,
    /// Smallest triangle altitude at the samples.
    altitude: f32,
    /// The distance beyond which no substep of the window keeps a pair (the thickness,
    /// margin and three skins; the largest of the node's triangles').
    keep: f32,
    /// Boxes (low, high) of the inertial steps `δ` and of the accelerations `a` of the
    /// node's vertices: their diagonals bound `|Δδ|` and `|Δa|` for any two of them.
    steps: (Vec3A, Vec3A),
    accelerations: (Vec3A, Vec3A),
}

impl Default for Bound {
    fn default() -> Self {
        Bound {
            lo: Vec3A::ZERO,
            hi: Vec3A::ZERO,
            axis: Vec3A::Z,
            cos: 0.0,
            sin: 1.0,
            altitude: 0.0,
            keep: 0.0,
            steps: (Vec3A::ZERO, Vec3A::ZERO),
            accelerations: (Vec3A::ZERO, Vec3A::ZERO),
        }
    }
}

/// A cone holding cones `a` and `b` (axis, cosine and sine of the half-angle), or a
/// wide one: the bisector of the axes, opened by half the angle between them beyond
/// the wider cone (no more than 1.5 times the smallest such cone's angle, and free of
/// trigonometry: a refit merges every node).
fn merge_cones(a: (Vec3A, f32, f32), b: (Vec3A, f32, f32)) -> (Vec3A, f32, f32) {
    const WIDE: (Vec3A, f32, f32) = (Vec3A::Z, 0.0, 1.0);
    if a.1 <= 0.0 || b.1 <= 0.0 {
        return WIDE;
    }
    let c = a.0.dot(b.0).clamp(-1.0, 1.0);
    let s = (1.0 - c * c).sqrt();
    // One inside the other: the angle between the axes plus the inner one's half-angle
    // is within the outer one's (compared through cosines).
    if c * b.1 - s * b.2 >= a.1 {
        return a;
    }
    if c * a.1 - s * a.2 >= b.1 {
        return b;
    }
    let Some(axis) = (a.0 + b.0).try_normalize() else { return WIDE };
    let (ch, sh) = ((0.5 * (1.0 + c)).sqrt(), (0.5 * (1.0 - c)).sqrt());
    let (cm, sm) = if a.1 < b.1 { (a.1, a.2) } else { (b.1, b.2) };
    let cos = ch * cm - sh * sm;
    if cos <= 0.0 {
        return WIDE;
    }
    (axis, cos, sh * cm + ch * sm)
}

fn merge(a: &Bound, b: &Bound) -> Bound {
    let (axis, cos, sin) = merge_cones((a.axis, a.cos, a.sin), (b.axis, b.cos, b.sin));
    Bound {
        lo: a.lo.min(b.lo),
        hi: a.hi.max(b.hi),
        axis,
        cos,
        sin,
        altitude: a.altitude.min(b.altitude),
        keep: a.keep.max(b.keep),
        steps: (a.steps.0.min(b.steps.0), a.steps.1.max(b.steps.1)),
        accelerations: (a.accelerations.0.min(b.accelerations.0), a.accelerations.1.max(b.accelerations.1)),
    }
}

/// Whether a region with bound `b` can hold no pair a substep keeps (module
/// documentation): its smallest altitude seen along the cone's axis, a lower bound on the
/// distance of its pairs, beats what a substep keeps plus the relative motion of a pair,
/// bounded by the spread of the region's steps and accelerations (`|Δδ| + N·|Δa|` for
/// any two of its vertices, module documentation of `candidates`).
fn smooth(b: &Bound, window: u32) -> bool {
    let last = (window - 1) as f32;
    let spread = (b.steps.1 - b.steps.0).length() + last * (b.accelerations.1 - b.accelerations.0).length();
    b.cos > 0.0 && b.altitude * b.cos > b.keep + spread
}

/// Whether boxes `a` and `b` (low, high) overlap.
pub(super) fn boxes_overlap(a: (Vec3, Vec3), b: (Vec3, Vec3)) -> bool {
    a.0.cmple(b.1).all() && b.0.cmple(a.1).all()
}

/// Whether node bounds `a` and `b` overlap.
fn overlap(a: &Bound, b: &Bound) -> bool {
    lanes_overlap((a.lo, a.hi), (b.lo, b.hi))
}

/// [`boxes_overlap`] for boxes in 16-byte lanes.
fn lanes_overlap(a: (Vec3A, Vec3A), b: (Vec3A, Vec3A)) -> bool {
    a.0.cmple(b.1).all() && b.0.cmple(a.1).all()
}

/// Pairs found by one search.
#[derive(Default)]
pub(super) struct Found {
    /// (vertex, triangle) pairs.
    pub(super) vertex_triangle: Vec<(u32, u32)>,
    /// (edge, edge) pairs, lower edge first.
    pub(super) edge_edge: Vec<(u32, u32)>,
}

impl Found {
    fn append(&mut self, mut other: Found) {
        self.vertex_triangle.append(&mut other.vertex_triangle);
        self.edge_edge.append(&mut other.edge_edge);
    }
}

/// Regions of a few leaves around each vertex that the cone test may skip as a whole
/// ([`ConeTree::skips_around`]): each vertex's leaves (indices into
/// [`ConeTree::leaves`], sorted) when they form such a region, else none.
#[derive(Clone, Debug, Default)]
struct VertexRegions {
    start: Vec<u32>,
    leaves: Vec<u32>,
    /// Per vertex, whether its region passed the cone test at the current refit,
    /// computed when first asked.
    smooth: RegionMemo,
}

impl VertexRegions {
    /// Vertex `v`'s region's leaves (none when it may not be skipped).
    fn of(&self, v: u32) -> &[u32] {
        // None while the tree is being built (its search at rest skips nothing).
        match (self.start.get(v as usize), self.start.get(v as usize + 1)) {
            (Some(&first), Some(&end)) => &self.leaves[first as usize..end as usize],
            _ => &[],
        }
    }

    /// Whether vertex `v`'s region passes the cone test over the window of the refit
    /// that left `bounds` (per leaf).
    fn smooth(&self, v: u32, bounds: &[Bound], window: u32) -> bool {
        // None while the tree is being built (its search at rest skips nothing).
        let Some(slot) = self.smooth.slots.get(v as usize) else { return false };
        let known = slot.load(Ordering::Relaxed);
        if known >> 2 == self.smooth.generation {
            return known & 3 == REGION_SMOOTH;
        }
        let smooth = match self.of(v).split_first() {
            Some((&first, rest)) => {
                let mut bound = bounds[first as usize];
                for &l in rest {
                    bound = merge(&bound, &bounds[l as usize]);
                }
                smooth(&bound, window)
            }
            None => false,
        };
        let state = if smooth { REGION_SMOOTH } else { REGION_ROUGH };
        slot.store(self.smooth.generation << 2 | state, Ordering::Relaxed);
        smooth
    }
}

/// Per vertex, what [`VertexRegions::smooth`] found at the current refit: the refit's
/// generation times four plus [`REGION_SMOOTH`] or [`REGION_ROUGH`] (an older
/// generation: not asked yet). Atomic, because both halves of a parallel search may
/// ask; each writes the same answer.
#[derive(Debug, Default)]
struct RegionMemo {
    slots: Vec<AtomicU32>,
    generation: u32,
}

impl Clone for RegionMemo {
    fn clone(&self) -> Self {
        let slots = self.slots.iter().map(|x| AtomicU32::new(x.load(Ordering::Relaxed))).collect();
        RegionMemo { slots, generation: self.generation }
    }
}

const REGION_SMOOTH: u32 = 1;
const REGION_ROUGH: u32 = 2;

/// The hierarchy of every colliding body, built once with the surfaces.
#[derive(Clone, Debug, Default)]
pub(super) struct ConeTree {
    nodes: Vec<Node>,
    /// Triangles (global) in leaf order; a node's are a contiguous run.
    order: Vec<u32>,
    /// Every triangle's leaf node.
    leaf_of: Vec<u32>,
    /// Per leaf (in node order), the vertices of its triangles: `[c0, c1, c2, c3]` with the
    /// first triangle `(c0, c1, c2)` and the second `(c1, c0, c3)`, both in the
    /// triangles' own winding, or that second one reversed (see `leaf_flipped`). A
    /// leaf of one triangle repeats `c2` as `c3` and reverses it.
    leaf_corners: Vec<[u32; 4]>,
    /// Per leaf, whether its second triangle is `(c0, c1, c3)` in its own winding (a mesh
    /// whose two triangles disagree on their winding), or a leaf of one triangle.
    leaf_flipped: Vec<bool>,
    /// (body, root node) for every body with colliding triangles.
    roots: Vec<(u32, u32)>,
    /// Per triangle, the vertices and edges it owns (NONE-padded).
    owned_vertices: Vec<[u32; 3]>,
    owned_edges: Vec<[u32; 3]>,
    /// Per node, refitted at every list build.
    bounds: Vec<Bound>,
    /// Scratch: per leaf, its bound at the last refit.
    leaves: Vec<Bound>,
    /// Per leaf, at the last refit, the boxes of its triangles along the window grown by
    /// their radius (the leaf's box holds both; a leaf of one has it twice).
    triangle_boxes: Vec<[(Vec3, Vec3); 2]>,
    /// Pairs of disjoint nodes of comparable size (within a factor of two, as the
    /// search pairs them) that share an edge: `adjacent[adjacent_start[a]..
    /// adjacent_start[a + 1]]` lists the higher nodes paired with node `a`.
    adjacent_start: Vec<u32>,
    adjacent: Vec<u32>,
    /// Every vertex's triangles: `star[star_start[v]..star_start[v + 1]]`.
    star_start: Vec<u32>,
    star: Vec<u32>,
    /// Per vertex, the region of the leaves holding its triangles ([`ConeTree::skips_around`]).
    stars: VertexRegions,
    /// Whether smooth regions are skipped (off: a plain BVH, for tests).
    pub(super) cones: bool,
    /// Substeps of the window of the last refit.
    window: u32,
}

/// Each triangle's neighbours through shared edges (NONE-padded).
fn edge_neighbours(triangles: &[[u32; 3]]) -> Vec<[u32; 3]> {
    let mut by_edge: HashMap<(u32, u32), Vec<u32>> = HashMap::new();
    for (t, tri) in triangles.iter().enumerate() {
        for j in 0..3 {
            let (a, b) = (tri[j], tri[(j + 1) % 3]);
            by_edge.entry((a.min(b), a.max(b))).or_default().push(t as u32);
        }
    }
    let mut out = vec![[NONE; 3]; triangles.len()];
    for (t, tri) in triangles.iter().enumerate() {
        for j in 0..3 {
            let (a, b) = (tri[j], tri[(j + 1) % 3]);
            let other = by_edge[&(a.min(b), a.max(b))].iter().copied().find(|&o| o != t as u32);
            out[t][j] = other.unwrap_or(NONE);
        }
    }
    out
}

/// Whether the triangles `run` are connected through shared edges (`neighbours`): a
/// union-find over the run. `label` (one entry per triangle) and `parent` are scratch.
fn connected_through_edges(run: &[u32], neighbours: &[[u32; 3]], label: &mut [u32], parent: &mut Vec<u32>) -> bool {
    for (k, &t) in run.iter().enumerate() {
        label[t as usize] = k as u32;
    }
    parent.clear();
    parent.extend(0..run.len() as u32);
    fn find(parent: &mut [u32], mut k: u32) -> u32 {
        while parent[k as usize] != k {
            parent[k as usize] = parent[parent[k as usize] as usize];
            k = parent[k as usize];
        }
        k
    }
    let mut groups = run.len();
    for (k, &t) in run.iter().enumerate() {
        for &o in &neighbours[t as usize] {
            let inside = o != NONE && (label[o as usize] as usize) < run.len() && run[label[o as usize] as usize] == o;
            if inside {
                let (a, b) = (find(parent, k as u32), find(parent, label[o as usize]));
                if a != b {
                    parent[a as usize] = b;
                    groups -= 1;
                }
            }
        }
    }
    groups == 1
}
/// What the tree's build reads of the triangles: their corners, rest positions and
/// neighbours through shared edges.
struct Mesh<'a> {
    triangles: &'a [[u32; 3]],
    rest: &'a [Vec3],
    neighbours: &'a [[u32; 3]],
}

/// Moves pieces of the split `run[..half]` | `run[half..]` across it so that, when the
/// run's triangles are connected through shared edges, so is each side; returns the new
/// split. A median split of a mesh's centroids often strands a triangle, or a strip,
/// that touches its side only at vertices, and a node whose triangles are not connected
/// may never be skipped (module documentation): measured on the 64² bench cloth, about
/// 700 of its 15,875 nodes, among them one of 992 triangles. Each side keeps its largest
/// piece and hands the others to the other side, which they touch through an edge (the
/// run is connected); handing pieces over only joins the receiving side's pieces, so
/// after the left side and then the right have done so both are connected. A run that
/// is not connected, or a repair that would empty a side, keeps the median split.
/// `side` is scratch, one entry per triangle, left [`NONE`] everywhere on return.
fn connected_halves(run: &mut [u32], half: usize, neighbours: &[[u32; 3]], side: &mut [u32]) -> usize {
    for (k, &t) in run.iter().enumerate() {
        side[t as usize] = u32::from(k >= half);
    }
    // The pieces of side `s` (or of the whole run, for `s` = 2) in run order, as
    // (piece start, length) into `order`, which lists their triangles piece by piece.
    let pieces = |s: u32, side: &mut [u32], order: &mut Vec<u32>| {
        const SEEN: u32 = 4;
        let inside = |x: u32| x != NONE && x < SEEN && (s == 2 || x == s);
        order.clear();
        let mut out = Vec::new();
        for &t in run.iter() {
            if !inside(side[t as usize]) {
                continue;
            }
            let start = order.len();
            side[t as usize] += SEEN;
            order.push(t);
            let mut k = start;
            while k < order.len() {
                for &o in &neighbours[order[k] as usize] {
                    if o != NONE && inside(side[o as usize]) {
                        side[o as usize] += SEEN;
                        order.push(o);
                    }
                }
                k += 1;
            }
            out.push((start, order.len() - start));
        }
        for &t in order.iter() {
            side[t as usize] -= SEEN;
        }
        out
    };
    let mut order = Vec::with_capacity(run.len());
    let whole = pieces(2, side, &mut order);
    let mut split = half;
    if whole.len() == 1 {
        for s in 0..2 {
            let found = pieces(s, side, &mut order);
            // The largest piece stays (the first of equal ones, for determinism).
            let largest = found.iter().enumerate().max_by_key(|&(i, p)| (p.1, std::cmp::Reverse(i))).map(|(i, _)| i);
            for (i, &(start, len)) in found.iter().enumerate() {
                if Some(i) != largest {
                    for &t in &order[start..start + len] {
                        side[t as usize] = 1 - s;
                    }
                }
            }
        }
        let left: Vec<u32> = run.iter().copied().filter(|&t| side[t as usize] == 0).collect();
        if !left.is_empty() && left.len() < run.len() {
            let right: Vec<u32> = run.iter().copied().filter(|&t| side[t as usize] == 1).collect();
            split = left.len();
            run[..split].copy_from_slice(&left);
            run[split..].copy_from_slice(&right);
        }
    }
    for &t in run.iter() {
        side[t as usize] = NONE;
    }
    split
}

/// A leaf's corners and whether its second triangle is reversed ([`ConeTree::leaf_corners`])
/// for one triangle.
fn single_corners([a, b, c]: [u32; 3]) -> ([u32; 4], bool) {
    ([a, b, c, c], true)
}

/// The same for two triangles that share exactly one edge (each with three distinct
/// vertices), or `None` (a duplicated or degenerate triangle: the two become leaves of
/// one). Rotating a triangle's vertices keeps its winding, so the first is rotated to
/// start at the shared edge.
fn pair_corners(first: [u32; 3], second: [u32; 3]) -> Option<([u32; 4], bool)> {
    let distinct = |t: [u32; 3]| t[0] != t[1] && t[1] != t[2] && t[2] != t[0];
    let mut outside = second.into_iter().filter(|v| !first.contains(v));
    let (Some(c3), None) = (outside.next(), outside.next()) else { return None };
    if !(distinct(first) && distinct(second)) {
        return None;
    }
    let k = (0..3).find(|&k| second.contains(&first[k]) && second.contains(&first[(k + 1) % 3]))?;
    let [c0, c1, c2] = [first[k], first[(k + 1) % 3], first[(k + 2) % 3]];
    // The second holds the edge as `c1 → c0` when both triangles agree on their winding.
    let agrees = (0..3).any(|j| second[j] == c1 && second[(j + 1) % 3] == c0);
    Some(([c0, c1, c2, c3], !agrees))
}

/// Smallest altitude of triangle `[a, b, c]`: twice its area over its longest edge.
pub(super) fn altitude(a: Vec3, b: Vec3, c: Vec3) -> f32 {
    let longest = (b - a).length_squared().max((c - b).length_squared()).max((a - c).length_squared()).sqrt();
    let area2 = (b - a).cross(c - a).length();
    if longest > 0.0 {
        area2 / longest
    } else {
        0.0
    }
}

impl ConeTree {
    /// Builds the trees of `s`'s colliding bodies from the rest positions `rest`
    /// (global vertex indices).
    pub(super) fn new(s: &Surfaces, rest: &[Vec3]) -> ConeTree {
        let mut tree = ConeTree { cones: true, window: WINDOW, ..Default::default() };
        let tris = &s.triangles;
        // Owners: a vertex's first triangle, an edge's first triangle.
        let mut vertex_owner = vec![NONE; rest.len()];
        tree.owned_vertices = vec![[NONE; 3]; tris.len()];
        for (t, tri) in tris.iter().enumerate() {
            for (j, &v) in tri.iter().enumerate() {
                if vertex_owner[v as usize] == NONE {
                    vertex_owner[v as usize] = t as u32;
                    tree.owned_vertices[t][j] = v;
                }
            }
        }
        tree.star_start = vec![0; rest.len() + 1];
        for &v in tris.iter().flatten() {
            tree.star_start[v as usize + 1] += 1;
        }
        for v in 0..rest.len() {
            tree.star_start[v + 1] += tree.star_start[v];
        }
        let mut fill = tree.star_start.clone();
        tree.star = vec![0; tris.len() * 3];
        for (t, tri) in tris.iter().enumerate() {
            for &v in tri {
                tree.star[fill[v as usize] as usize] = t as u32;
                fill[v as usize] += 1;
            }
        }
        tree.owned_edges = vec![[NONE; 3]; tris.len()];
        let mut tri_start = vec![NONE; s.radius.len()];
        for (t, &b) in s.tri_body.iter().enumerate().rev() {
            tri_start[b as usize] = t as u32;
        }
        for e in 0..s.edges.len() {
            let b = s.edge_body[e] as usize;
            let t = (tri_start[b] + s.edge_triangles(e)[0]) as usize;
            let slot = tree.owned_edges[t].iter().position(|&x| x == NONE).expect("a triangle has three edges");
            tree.owned_edges[t][slot] = e as u32;
        }
        let neighbours = edge_neighbours(tris);
        let mut label = vec![NONE; tris.len()];
        let mut t = 0;
        while t < tris.len() {
            let b = s.tri_body[t];
            let end = (t..tris.len()).find(|&k| s.tri_body[k] != b).unwrap_or(tris.len());
            tree.order.extend(t as u32..end as u32);
            let mesh = Mesh { triangles: tris, rest, neighbours: &neighbours };
            let root = tree.build(t as u32, (end - t) as u32, &mesh, &mut label);
            tree.roots.push((b, root));
            t = end;
        }
        // Whether each node's triangles are connected through shared edges: a union-find
        // over the node's run (every level holds each triangle once, so this costs the
        // triangle count times the tree's depth).
        let mut connected = vec![true; tree.nodes.len()];
        let mut parent: Vec<u32> = Vec::new();
        for (n, node) in tree.nodes.iter().enumerate() {
            if node.left == NONE {
                continue;
            }
            connected[n] = connected_through_edges(tree.run(node), &neighbours, &mut label, &mut parent);
        }
        // Adjacent node pairs: the ancestors of two triangles sharing an edge, below
        // where their branches meet.
        tree.leaf_of = vec![NONE; tris.len()];
        for (n, node) in tree.nodes.iter().enumerate() {
            if node.left == NONE {
                for &t in &tree.order[node.first as usize..(node.first + node.count) as usize] {
                    tree.leaf_of[t as usize] = n as u32;
                }
            }
        }
        let chain = |mut n: u32| {
            let mut out = Vec::new();
            while n != NONE {
                out.push(n);
                n = tree.nodes[n as usize].parent;
            }
            out
        };
        let mut adjacent = HashSet::new();
        for (t, ns) in neighbours.iter().enumerate() {
            for &o in ns.iter().filter(|&&o| o != NONE && o > t as u32) {
                let (ca, cb) = (chain(tree.leaf_of[t]), chain(tree.leaf_of[o as usize]));
                let common = ca.iter().rev().zip(cb.iter().rev()).take_while(|(x, y)| x == y).count();
                for &x in &ca[..ca.len() - common] {
                    for &y in &cb[..cb.len() - common] {
                        let (cx, cy) = (tree.nodes[x as usize].count, tree.nodes[y as usize].count);
                        if cx <= 2 * cy && cy <= 2 * cx {
                            adjacent.insert((x.min(y), x.max(y)));
                        }
                    }
                }
            }
        }
        let mut adjacent: Vec<(u32, u32)> = adjacent.into_iter().collect();
        adjacent.sort_unstable();
        tree.adjacent_start = vec![0; tree.nodes.len() + 1];
        for &(a, _) in &adjacent {
            tree.adjacent_start[a as usize + 1] += 1;
        }
        for n in 0..tree.nodes.len() {
            tree.adjacent_start[n + 1] += tree.adjacent_start[n];
        }
        tree.adjacent = adjacent.iter().map(|&(_, b)| b).collect();
        // Pairs closer at rest than the body's smallest altitude (slits, split seams,
        // folded rest shapes) keep the nodes holding them from being skipped.
        let mut smallest = vec![f32::INFINITY; s.radius.len()];
        for (t, tri) in tris.iter().enumerate() {
            let [a, b, c] = tri.map(|i| rest[i as usize]);
            let h = &mut smallest[s.tri_body[t] as usize];
            *h = h.min(altitude(a, b, c));
        }
        tree.bounds = vec![Bound::default(); tree.nodes.len()];
        tree.triangle_boxes = (tree.leaf_corners.iter())
            .map(|corners| {
                let [a, b, c, d] = corners.map(|i| rest[i as usize]);
                let grow = Vec3::splat(0.5 * smallest[s.vertex_body[corners[0] as usize] as usize]);
                [c, d].map(|p| (a.min(b).min(p) - grow, a.max(b).max(p) + grow))
            })
            .collect();
        for n in (0..tree.nodes.len()).rev() {
            let node = tree.nodes[n];
            tree.bounds[n] = if node.left == NONE {
                let [a, b] = tree.triangle_boxes[node.leaf as usize];
                Bound { lo: a.0.min(b.0).into(), hi: a.1.max(b.1).into(), ..Default::default() }
            } else {
                merge(&tree.bounds[node.left as usize], &tree.bounds[node.right as usize])
            };
        }
        let mut close = vec![false; tree.nodes.len()];
        // The corners of both triangles of every close pair, so that a region holding a
        // close pair's features holds a marked vertex (a pair is found through the
        // triangle owning its feature, which need not lie in the region).
        let mut close_vertices = vec![false; rest.len()];
        for &(b, root) in &tree.roots {
            let h = 0.999 * smallest[b as usize];
            tree.self_search(root, &mut |origin, t1, t2| {
                if tree.close_at_rest(s, rest, t1, t2, h) {
                    close[origin as usize] = true;
                    for v in tris[t1 as usize].into_iter().chain(tris[t2 as usize]) {
                        close_vertices[v as usize] = true;
                    }
                }
            });
        }
        for n in (0..tree.nodes.len()).rev() {
            let node = tree.nodes[n];
            if node.left != NONE {
                close[n] |= close[node.left as usize] || close[node.right as usize];
            }
            tree.nodes[n].prunable = connected[n] && !close[n];
            tree.nodes[n].close = close[n];
        }
        let mut stars = VertexRegions { start: Vec::with_capacity(rest.len() + 1), ..Default::default() };
        stars.start.push(0);
        for v in 0..rest.len() as u32 {
            stars.leaves.extend(
                tree.region(tree.star(v), tris, &neighbours, &close_vertices, (&mut label, &mut parent))
                    .unwrap_or_default(),
            );
            stars.start.push(stars.leaves.len() as u32);
        }
        stars.smooth.slots = (0..rest.len()).map(|_| AtomicU32::new(0)).collect();
        tree.stars = stars;
        tree
    }

    /// The leaves holding triangles `seeds`, when the triangles of those leaves form a
    /// region the cone test may skip: connected through shared edges, a disk (Euler
    /// characteristic 1: no hole whose rim could fold over it), and with none of its
    /// vertices in a pair closer at rest than the body's smallest altitude
    /// (`close_vertices`). Else none.
    fn region(
        &self,
        seeds: &[u32],
        triangles: &[[u32; 3]],
        neighbours: &[[u32; 3]],
        close_vertices: &[bool],
        (label, parent): (&mut [u32], &mut Vec<u32>),
    ) -> Option<Vec<u32>> {
        if seeds.is_empty() {
            return None;
        }
        let mut leaves: Vec<u32> = seeds.iter().map(|&t| self.leaf_of[t as usize]).collect();
        leaves.sort_unstable();
        leaves.dedup();
        let mut region: Vec<u32> =
            leaves.iter().flat_map(|&n| self.run(&self.nodes[n as usize]).iter().copied()).collect();
        region.sort_unstable();
        if !connected_through_edges(&region, neighbours, label, parent) {
            return None;
        }
        let triangles = |t: u32| triangles[t as usize];
        let mut vertices: Vec<u32> = region.iter().flat_map(|&t| triangles(t)).collect();
        vertices.sort_unstable();
        vertices.dedup();
        let mut edges: Vec<(u32, u32)> = (region.iter())
            .flat_map(|&t| {
                let [a, b, c] = triangles(t);
                [(a.min(b), a.max(b)), (b.min(c), b.max(c)), (c.min(a), c.max(a))]
            })
            .collect();
        edges.sort_unstable();
        edges.dedup();
        if vertices.len() + region.len() != edges.len() + 1 || vertices.iter().any(|&v| close_vertices[v as usize]) {
            return None;
        }
        let mut leaves: Vec<u32> = leaves.iter().map(|&n| self.nodes[n as usize].leaf).collect();
        leaves.sort_unstable();
        Some(leaves)
    }

    fn run(&self, node: &Node) -> &[u32] {
        &self.order[node.first as usize..(node.first + node.count) as usize]
    }

    /// Builds the subtree over `order[first..first + count]`; returns its node. `side`
    /// is scratch, one entry per triangle, [`NONE`] outside a split in progress.
    fn build(&mut self, first: u32, count: u32, mesh: &Mesh, side: &mut [u32]) -> u32 {
        let n = self.nodes.len() as u32;
        let node = Node {
            left: NONE,
            right: NONE,
            first,
            count,
            size: 1,
            leaf: NONE,
            prunable: false,
            close: false,
            parent: NONE,
        };
        self.nodes.push(node);
        let (tris, rest) = (mesh.triangles, mesh.rest);
        let leaf = match count {
            1 => Some(single_corners(tris[self.order[first as usize] as usize])),
            2 => {
                let (a, b) = (self.order[first as usize], self.order[first as usize + 1]);
                let neighbours = mesh.neighbours[a as usize].contains(&b);
                neighbours.then(|| pair_corners(tris[a as usize], tris[b as usize])).flatten()
            }
            _ => None,
        };
        if let Some((corners, flipped)) = leaf {
            self.nodes[n as usize].leaf = self.leaf_corners.len() as u32;
            self.leaf_corners.push(corners);
            self.leaf_flipped.push(flipped);
            return n;
        }
        let centre = |t: u32| tris[t as usize].iter().map(|&i| rest[i as usize]).sum::<Vec3>() / 3.0;
        let run = &mut self.order[first as usize..(first + count) as usize];
        let (mut lo, mut hi) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
        for &t in run.iter() {
            lo = lo.min(centre(t));
            hi = hi.max(centre(t));
        }
        let axis = (hi - lo).max_position();
        let half = count / 2;
        // Ties broken by index, so the tree does not depend on the sort's internals.
        run.select_nth_unstable_by(half as usize, |&a, &b| centre(a)[axis].total_cmp(&centre(b)[axis]).then(a.cmp(&b)));
        let half = connected_halves(run, half as usize, mesh.neighbours, side) as u32;
        let left = self.build(first, half, mesh, side);
        let right = self.build(first + half, count - half, mesh, side);
        self.nodes[n as usize].left = left;
        self.nodes[n as usize].right = right;
        self.nodes[n as usize].size = 1 + self.nodes[left as usize].size + self.nodes[right as usize].size;
        self.nodes[left as usize].parent = n;
        self.nodes[right as usize].parent = n;
        n
    }

    /// Whether leaves `t1`, `t2` hold a pair (owned feature of one against the other) closer than `h` at rest.
    fn close_at_rest(&self, s: &Surfaces, rest: &[Vec3], t1: u32, t2: u32, h: f32) -> bool {
        let at = |i: u32| rest[i as usize];
        let vt = |t: u32, u: u32| {
            let tri = s.triangles[u as usize];
            self.owned_vertices[t as usize].iter().filter(|&&v| v != NONE && !tri.contains(&v)).any(|&v| {
                let [a, b, c] = tri.map(at);
                let (bary, _) = closest_point(at(v), a, b, c);
                at(v).distance(point(bary, a, b, c)) < h
            })
        };
        let ee = || {
            self.owned_edges[t1 as usize].iter().filter(|&&e| e != NONE).any(|&e| {
                self.owned_edges[t2 as usize].iter().filter(|&&f| f != NONE).any(|&f| {
                    let (a, b) = (s.edges[e as usize], s.edges[f as usize]);
                    if a.iter().any(|v| b.contains(v)) {
                        return false;
                    }
                    let ([a0, a1], [b0, b1]) = (a.map(at), b.map(at));
                    let (u, w) = closest_segment_params(a0, a1, b0, b1);
                    a0.lerp(a1, u).distance(b0.lerp(b1, w)) < h
                })
            })
        };
        vt(t1, t2) || vt(t2, t1) || ee()
    }

    /// Calls `leaf_pair(origin, t1, t2)` for every pair of distinct triangles under `root`
    /// whose leaves' boxes overlap and that no skipped node holds, `origin` the node where
    /// their branches part (their leaf, for the two triangles of one). On one thread.
    fn self_search(&self, root: u32, leaf_pair: &mut impl FnMut(u32, u32, u32)) {
        let node = self.nodes[root as usize];
        if (node.left == NONE && node.count == 1) || self.skips(root) {
            return;
        }
        if node.left == NONE {
            // A leaf of two triangles: the one pair inside it.
            leaf_pair(root, self.order[node.first as usize], self.order[node.first as usize + 1]);
            return;
        }
        self.self_search(node.left, leaf_pair);
        self.self_search(node.right, leaf_pair);
        self.cross_search(root, node.left, node.right, leaf_pair);
    }

    fn cross_search(&self, origin: u32, a: u32, b: u32, leaf_pair: &mut impl FnMut(u32, u32, u32)) {
        if !overlap(&self.bounds[a as usize], &self.bounds[b as usize]) || self.skips_together(origin, a, b) {
            return;
        }
        let (na, nb) = (self.nodes[a as usize], self.nodes[b as usize]);
        if na.count * nb.count <= BRUTE_PAIRS && na.count + nb.count > 2 {
            // Small nodes: their leaves pairwise, without the visits of the levels between.
            for pa in na.first..na.first + na.count {
                let la = self.leaf_of[self.order[pa as usize] as usize];
                if self.nodes[la as usize].first != pa {
                    continue;
                }
                for pb in nb.first..nb.first + nb.count {
                    let lb = self.leaf_of[self.order[pb as usize] as usize];
                    if self.nodes[lb as usize].first == pb
                        && overlap(&self.bounds[la as usize], &self.bounds[lb as usize])
                        && !self.skips_together(origin, la, lb)
                    {
                        self.triangle_pairs(origin, la, lb, leaf_pair);
                    }
                }
            }
            return;
        }
        match (na.left == NONE, nb.left == NONE) {
            (true, true) => self.triangle_pairs(origin, a, b, leaf_pair),
            (false, true) => {
                self.cross_search(origin, na.left, b, leaf_pair);
                self.cross_search(origin, na.right, b, leaf_pair);
            }
            (true, false) => {
                self.cross_search(origin, a, nb.left, leaf_pair);
                self.cross_search(origin, a, nb.right, leaf_pair);
            }
            (false, false) => {
                // Split the larger, so that the boxes tested shrink fastest.
                if na.count >= nb.count {
                    self.cross_search(origin, na.left, b, leaf_pair);
                    self.cross_search(origin, na.right, b, leaf_pair);
                } else {
                    self.cross_search(origin, a, nb.left, leaf_pair);
                    self.cross_search(origin, a, nb.right, leaf_pair);
                }
            }
        }
    }

    /// Whether node `n`'s cone and altitude rule out any pair inside it (module
    /// documentation, [`smooth`]).
    fn skips(&self, n: u32) -> bool {
        if !self.cones || !self.nodes[n as usize].prunable {
            return false;
        }
        smooth(&self.bounds[n as usize], self.window)
    }

    /// Calls `leaf_pair(origin, ta, tb)` for the triangles of leaves `a` and `b` (whose
    /// boxes overlap and which are not skipped together) whose own boxes overlap.
    fn triangle_pairs(&self, origin: u32, a: u32, b: u32, leaf_pair: &mut impl FnMut(u32, u32, u32)) {
        let (na, nb) = (&self.nodes[a as usize], &self.nodes[b as usize]);
        if self.skips_around(na.leaf, nb.leaf) {
            return;
        }
        let (boxes_a, boxes_b) = (&self.triangle_boxes[na.leaf as usize], &self.triangle_boxes[nb.leaf as usize]);
        for (&ta, ba) in self.run(na).iter().zip(boxes_a) {
            for (&tb, bb) in self.run(nb).iter().zip(boxes_b) {
                if boxes_overlap(*ba, *bb) {
                    leaf_pair(origin, ta, tb);
                }
            }
        }
    }

    /// Whether leaves `a` and `b` (indices into [`ConeTree::leaves`]) share a vertex whose
    /// star region (the leaves holding its triangles) passes the cone test. The region
    /// holds both leaves and is a disk of triangles connected through shared edges, so the
    /// module's argument applies to it as to a node: no pair inside it, those of `a`
    /// against `b` among them, can be kept in the window. This certifies pairs of leaves
    /// that meet at a corner only, which the adjacent-node skip
    /// ([`ConeTree::skips_together`]) cannot, because their union alone is not connected
    /// through edges: on the swinging 64² bench cloth (240 frames) about half the leaf
    /// pairs the search reached met at a corner, and 56 % of those were skipped here.
    fn skips_around(&self, a: u32, b: u32) -> bool {
        if !self.cones {
            return false;
        }
        let (ca, cb) = (self.leaf_corners[a as usize], self.leaf_corners[b as usize]);
        match ca.iter().find(|v| cb.contains(v)) {
            Some(&v) => self.stars.smooth(v, &self.leaves, self.window),
            None => false,
        }
    }

    /// Triangle `t`'s box at the last refit.
    pub(super) fn triangle_box(&self, t: u32) -> (Vec3, Vec3) {
        let leaf = &self.nodes[self.leaf_of[t as usize] as usize];
        self.triangle_boxes[leaf.leaf as usize][usize::from(self.order[leaf.first as usize] != t)]
    }

    /// Vertex `v`'s triangles.
    pub(super) fn star(&self, v: u32) -> &[u32] {
        &self.star[self.star_start[v as usize] as usize..self.star_start[v as usize + 1] as usize]
    }

    /// Appends to `out` every triangle whose box at the last refit overlaps `(lo, hi)`
    /// (boxes only: no cone skips a pair).
    pub(super) fn near_triangles(&self, lo: Vec3, hi: Vec3, out: &mut Vec<u32>) {
        let mut stack: Vec<u32> = self.roots.iter().map(|&(_, root)| root).collect();
        let query = (Vec3A::from(lo), Vec3A::from(hi));
        while let Some(n) = stack.pop() {
            let bound = &self.bounds[n as usize];
            if !lanes_overlap((bound.lo, bound.hi), query) {
                continue;
            }
            let node = &self.nodes[n as usize];
            if node.left != NONE {
                stack.push(node.left);
                stack.push(node.right);
                continue;
            }
            for (&t, &b) in self.run(node).iter().zip(&self.triangle_boxes[node.leaf as usize]) {
                if boxes_overlap(b, (lo, hi)) {
                    out.push(t);
                }
            }
        }
    }

    /// Triangles `t1` and `t2`, with boxes `boxes`, as a pair for the leaf test.
    pub(super) fn pair_of(&self, t1: u32, t2: u32, boxes: [(Vec3, Vec3); 2]) -> LeafPair {
        LeafPair {
            triangles: [t1, t2],
            boxes,
            vertices: [self.owned_vertices[t1 as usize], self.owned_vertices[t2 as usize]],
            edges: [self.owned_edges[t1 as usize], self.owned_edges[t2 as usize]],
        }
    }

    /// Whether nodes `a` and `b` of one body (parts of node `origin`) are skipped against
    /// each other: both may be skipped, they share an edge (so their union is connected),
    /// no pair under `origin` is close at rest, and their union passes the cone test.
    fn skips_together(&self, origin: u32, a: u32, b: u32) -> bool {
        if !self.cones || origin == NONE || self.nodes[origin as usize].close {
            return false;
        }
        let (na, nb) = (&self.nodes[a as usize], &self.nodes[b as usize]);
        let (lo, hi) = (a.min(b) as usize, a.max(b));
        let listed = &self.adjacent[self.adjacent_start[lo] as usize..self.adjacent_start[lo + 1] as usize];
        if !(na.prunable && nb.prunable && listed.contains(&hi)) {
            return false;
        }
        let (x, y) = (&self.bounds[a as usize], &self.bounds[b as usize]);
        // The union's cone is no narrower and its altitude no larger than either's, its
        // keep no smaller: a quick no before the merge.
        if x.altitude.min(y.altitude) * x.cos.min(y.cos) <= x.keep.max(y.keep) {
            return false;
        }
        smooth(&merge(x, y), self.window)
    }

    /// Refits every node to the window: `paths[i]` (every global vertex's predicted
    /// path, which the check lets stray by `stray`) and `boxes[i]` (its box along the
    /// path, grown by its share of the reach and its radius), `keep` per body the
    /// thickness plus margin plus three skins (what the cone test must beat).
    pub(super) fn refit(
        &mut self,
        s: &Surfaces,
        paths: &[Path],
        window: u32,
        stray: f32,
        boxes: &[(Vec3, Vec3)],
        keep: &[f32],
    ) {
        debug_assert!(window >= 1, "a window of {window} substeps");
        self.window = window;
        let memo = &mut self.stars.smooth;
        memo.generation = memo.generation.wrapping_add(1) & (u32::MAX >> 2);
        let mut bounds = std::mem::take(&mut self.bounds);
        let mut leaves = std::mem::take(&mut self.leaves);
        let mut triangle_boxes = std::mem::take(&mut self.triangle_boxes);
        leaves.resize(self.leaf_corners.len(), Bound::default());
        let leaf =
            Leaves { corners: &self.leaf_corners, flipped: &self.leaf_flipped, paths, window, stray, boxes, keep };
        leaves
            .par_chunks_mut(LEAF_CHUNK)
            .zip(triangle_boxes.par_chunks_mut(LEAF_CHUNK))
            .enumerate()
            .for_each(|(c, (out, boxes))| leaf_bounds(s, &leaf, c * LEAF_CHUNK, out, boxes));
        for &(_, root) in &self.roots {
            let size = self.nodes[root as usize].size as usize;
            self.refit_subtree(root as usize, &mut bounds[root as usize..root as usize + size], &leaves);
        }
        self.bounds = bounds;
        self.leaves = leaves;
        self.triangle_boxes = triangle_boxes;
    }

    /// Refits the subtree of node `n`, whose bounds are `bounds`, from the leaves' bounds
    /// `leaves`. A subtree is a contiguous run of nodes (the node, its left
    /// subtree, its right subtree), so every child comes after its parent: a small one is
    /// refitted in one backward sweep, and large ones are split across the thread pool.
    fn refit_subtree(&self, n: usize, bounds: &mut [Bound], leaves: &[Bound]) {
        let node = self.nodes[n];
        if node.count as usize <= 2 * SPLIT_LEAVES as usize {
            for k in (0..bounds.len()).rev() {
                let node = &self.nodes[n + k];
                bounds[k] = if node.left == NONE {
                    leaves[node.leaf as usize]
                } else {
                    merge(&bounds[node.left as usize - n], &bounds[node.right as usize - n])
                };
            }
            return;
        }
        let left_size = self.nodes[node.left as usize].size as usize;
        let (head, rest) = bounds.split_at_mut(1);
        let (l, r) = rest.split_at_mut(left_size);
        let (ln, rn) = (node.left as usize, node.right as usize);
        rayon::join(|| self.refit_subtree(ln, l, leaves), || self.refit_subtree(rn, r, leaves));
        head[0] = merge(&l[0], &r[0]);
    }

    /// Every candidate pair of the window: self pairs of each body that collides with
    /// itself and pairs between bodies that collide, through `test` (which applies the
    /// list's bound and filters), sorted.
    pub(super) fn search<F>(&self, s: &Surfaces, filter: &FilterTable, test: &F) -> Found
    where
        F: Fn(&mut Found, LeafPair) + Sync,
    {
        let mut found = Found::default();
        for (i, &(b, root)) in self.roots.iter().enumerate() {
            if s.self_contact[b as usize] {
                found.append(self.self_parallel(root, test));
            }
            for &(c, other) in &self.roots[i + 1..] {
                if filter.bodies_collide(b as usize, c as usize) {
                    found.append(self.cross_parallel(NONE, root, other, test));
                }
            }
        }
        found.vertex_triangle.sort_unstable();
        found.edge_edge.sort_unstable();
        found
    }

    fn leaf_pair<F: Fn(&mut Found, LeafPair)>(&self, out: &mut Found, t1: u32, t2: u32, test: &F) {
        test(out, self.pair_of(t1, t2, [self.triangle_box(t1), self.triangle_box(t2)]));
    }

    fn self_parallel<F: Fn(&mut Found, LeafPair) + Sync>(&self, root: u32, test: &F) -> Found {
        let node = self.nodes[root as usize];
        if node.count <= SPLIT_LEAVES {
            let mut out = Found::default();
            self.self_search(root, &mut |_, t1, t2| self.leaf_pair(&mut out, t1, t2, test));
            return out;
        }
        if self.skips(root) {
            return Found::default();
        }
        let ((mut a, b), c) = rayon::join(
            || rayon::join(|| self.self_parallel(node.left, test), || self.self_parallel(node.right, test)),
            || self.cross_parallel(root, node.left, node.right, test),
        );
        a.append(b);
        a.append(c);
        a
    }

    fn cross_parallel<F>(&self, origin: u32, a: u32, b: u32, test: &F) -> Found
    where
        F: Fn(&mut Found, LeafPair) + Sync,
    {
        let (na, nb) = (self.nodes[a as usize], self.nodes[b as usize]);
        if !overlap(&self.bounds[a as usize], &self.bounds[b as usize]) || self.skips_together(origin, a, b) {
            return Found::default();
        }
        if na.count + nb.count <= SPLIT_LEAVES {
            let mut out = Found::default();
            self.cross_search(origin, a, b, &mut |_, t1, t2| self.leaf_pair(&mut out, t1, t2, test));
            return out;
        }
        let (x, y) = if na.count >= nb.count { ((na.left, b), (na.right, b)) } else { ((a, nb.left), (a, nb.right)) };
        let (mut p, q) =
            rayon::join(|| self.cross_parallel(origin, x.0, x.1, test), || self.cross_parallel(origin, y.0, y.1, test));
        p.append(q);
        p
    }
}

/// What the leaf bounds are taken from: the tree's leaves and the window's paths.
struct Leaves<'a> {
    /// Per leaf, its corners ([`ConeTree::leaf_corners`]).
    corners: &'a [[u32; 4]],
    /// Per leaf, whether its second triangle is reversed ([`ConeTree::leaf_flipped`]).
    flipped: &'a [bool],
    /// Every global vertex's predicted path.
    paths: &'a [Path],
    /// Substeps the window lasts.
    window: u32,
    /// How far the check lets a vertex stray from its path.
    stray: f32,
    /// Every vertex's box along its path, grown by its share of the reach and its radius.
    boxes: &'a [(Vec3, Vec3)],
    /// Per body, what the cone test must beat (the thickness, margin and three skins).
    keep: &'a [f32],
}

/// The bounds of leaves `first..first + out.len()` over the window, eight leaves a batch
/// in lanes (the refit's largest part): each leaf's box, the normal cone of its
/// triangles at three samples of their corners' paths (the predicted ends of the first,
/// middle and last substeps: the positions at which a substep measures distance) widened
/// by how far the corners may pass from the chords between them (the path's curve and
/// `stray`, what the check lets a vertex stray from its path), the smallest altitude at
/// the samples, the body's `keep`, and the boxes of the corners' steps and accelerations.
/// A leaf with a triangle degenerate at a sample gets a cone holding every direction. A
/// leaf of two triangles gathers their four corners once, not six.
// Compiled on its own: inlined into the refit's closure, its code changed with unrelated
// edits elsewhere in the crate (up to 17 % more instructions, measured with callgrind).
#[inline(never)]
fn leaf_bounds(s: &Surfaces, leaf: &Leaves, first: usize, out: &mut [Bound], triangle_boxes: &mut [[(Vec3, Vec3); 2]]) {
    for (chunk, (bounds, triangle_boxes)) in out.chunks_mut(LANES).zip(triangle_boxes.chunks_mut(LANES)).enumerate() {
        let base = first + chunk * LANES;
        // Lane `l` holds leaf `base + l` (the last batch repeats its last leaf);
        // `g[j][f]` is field `f` of corner `j` (`path_lanes`) in every lane.
        let mut sign = [1.0f32; LANES];
        let mut corners = [[0u32; LANES]; 4];
        for (l, sign) in sign.iter_mut().enumerate() {
            let k = base + l.min(bounds.len() - 1);
            for (j, corner) in corners.iter_mut().enumerate() {
                corner[l] = leaf.corners[k][j];
            }
            if leaf.flipped[k] {
                *sign = -1.0;
            }
        }
        // Four calls, not `array::map`: its closure was compiled out of line, each call
        // returning its 48 rows through memory.
        let p = leaf.paths;
        let g = [
            path_lanes(p, corners[0]),
            path_lanes(p, corners[1]),
            path_lanes(p, corners[2]),
            path_lanes(p, corners[3]),
        ];
        let vec = |j: usize, f: usize| Vec3x8 { x: g[j][f], y: g[j][f + 1], z: g[j][f + 2] };
        let length = |v: Vec3x8| v.length_squared().sqrt();
        let steps: [Vec3x8; 4] = std::array::from_fn(|j| vec(j, 6));
        let accelerations: [Vec3x8; 4] = std::array::from_fn(|j| vec(j, 9));
        // The samples, from each corner's path (`Path::end`): `B + δ`, and
        // `B + δ + n·v + (n(n + 1)/2 + n)·a` at the middle and last substeps.
        let (middle, last) = (0.5 * (leaf.window - 1) as f32, (leaf.window - 1) as f32);
        let at = |n: f32| (f32x8::splat(n), f32x8::splat(0.5 * n * (n + 1.0) + n));
        let (mid, fin) = (at(middle), at(last));
        let samples: [[Vec3x8; 3]; 4] = std::array::from_fn(|j| {
            let (b, v, a) = (vec(j, 0), vec(j, 3), accelerations[j]);
            let end = b + steps[j];
            [end, end + v * mid.0 + a * mid.1, end + v * fin.0 + a * fin.1]
        });
        // Normals and altitudes of the triangles `(c0, c1, c2)` and `(c1, c0, c3)` (turned
        // by `sign`) at the three samples: twice the area is the cross product's length,
        // the altitude that over the longest edge.
        let sign = f32x8::from(sign);
        let mut normals = [Vec3x8 { x: f32x8::ZERO, y: f32x8::ZERO, z: f32x8::ZERO }; 6];
        let mut h = f32x8::splat(f32::INFINITY);
        // Every lane valid until a normal or the axis degenerates.
        let mut valid = f32x8::ZERO.simd_eq(f32x8::ZERO);
        for (i, normal) in normals.iter_mut().enumerate() {
            let (k, second) = (i / 2, i % 2 == 1);
            // Indexed, not `array::map`: the compiler does not always inline its closure.
            let (ia, ib, ic) = if second { (1, 0, 3) } else { (0, 1, 2) };
            let (a, b, c) = (samples[ia][k], samples[ib][k], samples[ic][k]);
            let (ab, bc, ca) = (b - a, c - b, a - c);
            let cross = ab.cross(c - a);
            let area2 = length(cross);
            let rcp = f32x8::ONE / area2;
            valid &= rcp.is_finite() & rcp.simd_gt(f32x8::ZERO);
            *normal = cross * if second { rcp * sign } else { rcp };
            let longest = ab.length_squared().max(bc.length_squared()).max(ca.length_squared()).sqrt();
            h = h.min(longest.simd_gt(f32x8::ZERO).bitselect(area2 / longest, f32x8::ZERO));
        }
        let (axis, cos, sin) = lane_cone(&normals, &mut valid);
        // Between samples a vertex strays from the chords by `stray`; moving one corner
        // by `ε` turns the normal by at most `ε / h` (twice, for safety's sake, and a
        // little for the normal's own curve between samples). Widening by `τ` through
        // `sin τ ≤ τ`, `cos τ ≥ √(1 − τ²)`.
        // A path of constant acceleration leaves the chord between samples `L` substeps
        // apart by at most `|a|·L²/8`.
        let bend = f32x8::splat(middle * middle / 8.0);
        let stray = accelerations.iter().fold(f32x8::ZERO, |m, &a| m.max(length(a) * bend)) + f32x8::splat(leaf.stray);
        let tolerance = (f32x8::splat(2.0) * stray / h.max(f32x8::splat(1e-12)) + f32x8::splat(0.05)).min(f32x8::ONE);
        let ct = (f32x8::ONE - tolerance * tolerance).sqrt();
        let (cos, sin) = (cos * ct - sin * tolerance, sin * ct + cos * tolerance);
        let valid = valid.to_bitmask();
        let span = |v: &[Vec3x8; 4]| (v[0].min(v[1]).min(v[2]).min(v[3]), v[0].max(v[1]).max(v[2]).max(v[3]));
        let (steps, accelerations) = (span(&steps), span(&accelerations));
        for (l, bound) in bounds.iter_mut().enumerate() {
            let corners = leaf.corners[base + l];
            let body = s.vertex_body[corners[0] as usize] as usize;
            let corner_box = |j: usize| leaf.boxes[corners[j] as usize];
            let (b0, b1) = (corner_box(0), corner_box(1));
            let shared = (b0.0.min(b1.0), b0.1.max(b1.1));
            let triangle_box = |(lo, hi): (Vec3, Vec3)| (shared.0.min(lo), shared.1.max(hi));
            let (first, second) = (triangle_box(corner_box(2)), triangle_box(corner_box(3)));
            triangle_boxes[l] = [first, second];
            *bound = Bound {
                lo: first.0.min(second.0).into(),
                hi: first.1.max(second.1).into(),
                steps: (steps.0.lane(l).into(), steps.1.lane(l).into()),
                accelerations: (accelerations.0.lane(l).into(), accelerations.1.lane(l).into()),
                ..Default::default()
            };
            if valid & (1 << l) != 0 {
                bound.axis = axis.lane(l).into();
                bound.cos = cos.as_array()[l];
                bound.sin = sin.as_array()[l];
                bound.altitude = h.as_array()[l];
                bound.keep = leaf.keep[body];
            }
        }
    }
}

/// The cone of normals `normals`, in lanes: their normalised sum as the axis, opened to
/// the farthest of them (cosine and sine of the half-angle). A lane whose sum vanishes
/// is cleared from `valid`.
fn lane_cone(normals: &[Vec3x8], valid: &mut f32x8) -> (Vec3x8, f32x8, f32x8) {
    let sum = normals[1..].iter().fold(normals[0], |m, &n| m + n);
    let rcp = f32x8::ONE / sum.length_squared().sqrt();
    *valid &= rcp.is_finite() & rcp.simd_gt(f32x8::ZERO);
    let axis = sum * rcp;
    let cos = normals.iter().fold(f32x8::ONE, |m, n| m.min(n.dot(axis))).max(-f32x8::ONE).min(f32x8::ONE);
    (axis, cos, (f32x8::ONE - cos * cos).sqrt())
}

/// Two leaves whose boxes overlap: their triangles and the features each owns.
pub(super) struct LeafPair {
    /// The two triangles (global indices).
    pub(super) triangles: [u32; 2],
    /// Their boxes along the window, grown by their radii.
    pub(super) boxes: [(Vec3, Vec3); 2],
    /// The vertices each owns, [`NONE`]-padded.
    pub(super) vertices: [[u32; 3]; 2],
    /// The edges each owns (indices into the surfaces' edges), [`NONE`]-padded.
    pub(super) edges: [[u32; 3]; 2],
}

#[cfg(test)]
mod tests {
    use super::super::candidates::tests::{cloth_sheet, same};
    use super::super::candidates::{Path, WINDOW};
    use super::super::{SelfContact, Surfaces};
    use super::merge_cones;
    use super::{leaf_bounds, Bound, Leaves};
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

    /// One leaf's bound, computed alone (the reference for [`super::leaf_bounds`]) from its
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
                h = h.min(super::altitude(a, b, c));
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
        let leaf = Leaves {
            corners: &tree.leaf_corners,
            flipped: &tree.leaf_flipped,
            paths,
            window,
            stray,
            boxes,
            keep: &keep,
        };
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
        assert!(
            pairs > leaves / 2 && disagree > 0,
            "{pairs} of {leaves} leaves hold two triangles, {disagree} disagree"
        );
    }

    /// The lane gather puts field `f` of vertex `idx[l]`'s path in lane `l` of row `f`,
    /// for paths anywhere in the slice, repeated indices included.
    #[test]
    fn path_lanes_transposes_the_paths() {
        let v = |i: usize, k: usize| {
            Vec3::new((12 * i + 3 * k) as f32, (12 * i + 3 * k + 1) as f32, (12 * i + 3 * k + 2) as f32)
        };
        let paths: Vec<Path> =
            (0..40).map(|i| Path { base: v(i, 0), velocity: v(i, 1), step: v(i, 2), acceleration: v(i, 3) }).collect();
        for idx in [[0, 1, 2, 3, 4, 5, 6, 7], [39, 3, 17, 17, 0, 38, 22, 9]] {
            let rows = super::super::candidates::path_lanes(&paths, idx);
            let portable = super::super::candidates::path_lanes_portable(&paths, idx);
            assert!(rows.iter().zip(&portable).all(|(a, b)| a.as_array() == b.as_array()), "the two forms differ");
            for (f, row) in rows.iter().enumerate() {
                for (l, &i) in idx.iter().enumerate() {
                    assert_eq!(row.as_array()[l], (12 * i as usize + f) as f32, "field {f}, lane {l}");
                }
            }
        }
    }

    /// Two triangles make a leaf when they share exactly one edge, with the second's
    /// winding told apart; a duplicated or degenerate triangle does not.
    #[test]
    fn a_leaf_pairs_two_triangles_across_one_edge() {
        use super::pair_corners;
        // (0, 1, 2) and (2, 1, 3) share the edge 1-2, which they run in opposite directions.
        assert_eq!(pair_corners([0, 1, 2], [2, 1, 3]), Some(([1, 2, 0, 3], false)));
        assert_eq!(pair_corners([0, 1, 2], [1, 2, 3]), Some(([1, 2, 0, 3], true)));
        assert_eq!(pair_corners([0, 1, 2], [2, 0, 1]), None);
        assert_eq!(pair_corners([0, 1, 2], [1, 1, 3]), None);
        assert_eq!(pair_corners([0, 1, 2], [3, 4, 2]), None);
    }

    /// A unit direction at angle `angle` from `axis`, turned by `turn` around it.
    fn on_cone(axis: Vec3, angle: f32, turn: f32) -> Vec3 {
        let (u, v) = axis.any_orthonormal_pair();
        (axis * angle.cos() + (u * turn.cos() + v * turn.sin()) * angle.sin()).normalize()
    }

    #[test]
    fn a_merged_cone_holds_both_cones() {
        let mut seed = 12345u32;
        let mut next = move || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as f32 / (1u32 << 24) as f32
        };
        let mut narrow = 0;
        for _ in 0..2000 {
            let axis = |r: &mut dyn FnMut() -> f32| {
                let z = 2.0 * r() - 1.0;
                let phi = std::f32::consts::TAU * r();
                let s = (1.0 - z * z).sqrt();
                Vec3::new(s * phi.cos(), s * phi.sin(), z)
            };
            let (a, b) = (axis(&mut next), axis(&mut next));
            let (alpha, beta) = (0.8 * next(), 0.8 * next());
            let (m, cos, sin) = merge_cones((a.into(), alpha.cos(), alpha.sin()), (b.into(), beta.cos(), beta.sin()));
            let m = Vec3::from(m);
            assert!((cos * cos + sin * sin - 1.0).abs() < 1e-4);
            if cos <= 0.0 {
                continue;
            }
            narrow += 1;
            for k in 0..16 {
                let turn = k as f32 * std::f32::consts::TAU / 16.0;
                for (axis, angle) in [(a, alpha), (b, beta)] {
                    let d = on_cone(axis, angle, turn);
                    assert!(d.dot(m) >= cos - 1e-4, "{d} outside the merged cone of {a} ({alpha}) and {b} ({beta})");
                }
            }
        }
        assert!(narrow > 500, "only {narrow} merged cones were narrow: the test shows little");
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
                    assert!(
                        skips,
                        "leaves {a} and {b} meet at {p}, {from_crease} m from the crease, and were not skipped"
                    );
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
}
