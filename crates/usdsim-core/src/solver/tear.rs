//! Tearing inside the solver: after each substep the most over-stretched edge of a
//! tearable body breaks, its ends are separated with [`crate::mesh::split::split_vertex`],
//! and every constraint that touched the split vertex moves onto the copy its element now
//! uses. Surface bodies open along their triangles, volume bodies between tetrahedra.
//!
//! The article's criterion (`seeds/ammojs-tearing-plasticity.txt`): an edge longer than
//! `ratio × rest length` breaks. A body that can tear gets spare vertex slots after its
//! own when the solver is built (one per element corner, enough for every element to come
//! apart), so a split never moves another body's vertices and nothing else re-indexes.
//! Splitting a vertex only removes sharing between elements, so the constraint colouring
//! stays valid. A split vertex's mass is shared among its copies in proportion to the
//! element mass each copy carries, with the original's velocity: mass and momentum are
//! conserved.

use super::Solver;
use crate::contact::deformable::{SelfContact, Surfaces};
use crate::mesh::split;
use crate::scene::{Body, BodyId, BodyKind};
use glam::{DVec3, Vec3};
use std::collections::HashSet;

/// A tearable body's tearing data.
#[derive(Clone, Debug)]
pub(super) struct Tearing {
    /// Corners per element: 3 (triangles) or 4 (tets).
    corners: usize,
    /// Per element: the rest length of each edge, in [`edges`] order.
    rest: Vec<[f32; 6]>,
    /// Per element: its material's tear ratio (`INFINITY` never tears).
    ratio: Vec<f32>,
    /// One past the body's last vertex slot (spare slots included).
    pub(super) slots_end: usize,
    /// Index of the body's first element among the membranes or tets (scene order).
    pub(super) element_start: usize,
    /// Edges broken so far (local indices at the time, lower first); an edge whose ends
    /// could not be separated stays here and is not tried again.
    pub(super) broken: HashSet<(u32, u32)>,
    /// Per vertex: whether it lies on the rim (a free edge of a surface, the boundary of
    /// a volume; original or torn).
    pub(super) rim: Vec<bool>,
}

/// The corner pairs of an element's edges: three for a triangle, six for a tet.
fn edges(corners: usize) -> &'static [(usize, usize)] {
    const TRI: [(usize, usize); 3] = [(0, 1), (1, 2), (2, 0)];
    const TET: [(usize, usize); 6] = [(0, 1), (1, 2), (2, 0), (0, 3), (1, 3), (2, 3)];
    if corners == 3 {
        &TRI
    } else {
        &TET
    }
}

/// A body's elements with four slots (a triangle repeats its first corner, which every
/// use below tolerates: a split substitutes both, a centroid uses the first three).
pub(super) fn elements(body: &Body) -> Vec<[u32; 4]> {
    match body.kind {
        BodyKind::Volume => body.tets.clone(),
        BodyKind::Surface => body.triangles.iter().map(|t| [t[0], t[1], t[2], t[0]]).collect(),
    }
}

/// Which vertices lie on the rim: on a surface's free edges (used by one triangle) or on
/// a volume's boundary faces.
pub(super) fn rim_vertices(body: &Body, vertex_count: usize) -> Vec<bool> {
    let mut rim = vec![false; vertex_count];
    let boundary: Vec<[u32; 3]> = match body.kind {
        BodyKind::Volume => crate::mesh::surface::surface_triangles(body),
        BodyKind::Surface => {
            let mut users: std::collections::HashMap<(u32, u32), u32> = std::collections::HashMap::new();
            for tri in &body.triangles {
                for k in 0..3 {
                    *users.entry(split::edge_key(tri[k], tri[(k + 1) % 3])).or_default() += 1;
                }
            }
            users.iter().filter(|(_, &n)| n == 1).map(|(&(a, b), _)| [a, b, b]).collect()
        }
    };
    for f in boundary {
        for v in f {
            rim[v as usize] = true;
        }
    }
    rim
}

impl Tearing {
    /// Tearing data for `body` if any of its elements has a tear ratio.
    /// `element_start` and `slots_end` are filled in by the solver.
    pub(super) fn new(body: &Body) -> Option<Tearing> {
        // Spring-model bodies tear link by link instead (`springs.rs`).
        if body.kinematic || body.model != crate::Model::Fem {
            return None;
        }
        let corners = if body.kind == BodyKind::Volume { 4 } else { 3 };
        let count = body.element_count();
        let ratio: Vec<f32> = (0..count).map(|t| body.element_tear_ratio(t).unwrap_or(f32::INFINITY)).collect();
        if ratio.iter().all(|r| !r.is_finite()) {
            return None;
        }
        let rest = body
            .rest_elements
            .iter()
            .map(|e| {
                let mut lengths = [0.0; 6];
                for (k, &(i, j)) in edges(corners).iter().enumerate() {
                    lengths[k] = body.rest_points[e[i] as usize].distance(body.rest_points[e[j] as usize]);
                }
                lengths
            })
            .collect();
        let rim = rim_vertices(body, body.positions.len());
        Some(Tearing { corners, rest, ratio, slots_end: 0, element_start: 0, broken: HashSet::new(), rim })
    }

    /// Vertex slots `body` may need: every element corner its own.
    pub(super) fn slots(body: &Body) -> usize {
        body.element_count() * if body.kind == BodyKind::Volume { 4 } else { 3 }
    }
}

impl Solver {
    /// How many of body `body`'s edges have broken so far.
    pub fn broken_edges(&self, body: BodyId) -> usize {
        self.tearing.get(body.0).and_then(Option::as_ref).map_or(0, |t| t.broken.len())
    }

    /// Breaks the most over-stretched edge of every tearable body, if one is beyond its
    /// ratio. Called after each substep.
    ///
    /// One edge per body and substep: a uniformly stretched sheet has many edges cross
    /// the ratio within a substep, and breaking them all at once shatters it. Breaking the
    /// worst lets the stress concentrate at the crack tip, as in a real tear, so the crack
    /// runs on from there.
    pub(super) fn tear(&mut self) {
        for b in 0..self.tearing.len() {
            if self.tearing[b].is_none() || self.is_asleep(BodyId(b)) {
                continue;
            }
            if let Some(edge) = self.worst_edge(b) {
                self.break_edge(b, edge);
            }
        }
    }

    /// Body `b`'s most over-stretched edge beyond its ratio and not broken before.
    fn worst_edge(&self, b: usize) -> Option<(u32, u32)> {
        let base = self.bodies[b].start;
        let t = self.tearing[b].as_ref()?;
        let mut worst: Option<(f32, (u32, u32))> = None;
        let body = &self.input.bodies[b];
        let element = |e: usize| -> [u32; 4] {
            match body.kind {
                BodyKind::Volume => body.tets[e],
                BodyKind::Surface => {
                    let t = body.triangles[e];
                    [t[0], t[1], t[2], t[0]]
                }
            }
        };
        for (e, (rest, &ratio)) in t.rest.iter().zip(&t.ratio).enumerate() {
            if !ratio.is_finite() {
                continue;
            }
            let el = element(e);
            for (k, &(i, j)) in edges(t.corners).iter().enumerate() {
                let (p, q) = (el[i], el[j]);
                let excess = self.x[base + p as usize].distance(self.x[base + q as usize]) as f32 / (ratio * rest[k]);
                if excess > 1.0 && worst.is_none_or(|(w, _)| excess > w) {
                    let key = split::edge_key(p, q);
                    if !t.broken.contains(&key) {
                        worst = Some((excess, key));
                    }
                }
            }
        }
        worst.map(|(_, key)| key)
    }

    /// Separates the ends of body `b`'s edge `(p, q)`: one end (a rim vertex first) is
    /// split by the plane through it perpendicular to the edge
    /// ([`split::split_vertex`]), then constraints, masses and contact surfaces follow.
    fn break_edge(&mut self, b: usize, (p, q): (u32, u32)) {
        let base = self.bodies[b].start;
        let n = self.bodies[b].len();
        let Some(t) = self.tearing[b].as_mut() else { return };
        t.broken.insert((p, q));
        if base + n >= t.slots_end {
            return; // every corner already has its own vertex
        }
        let ends = if t.rim[q as usize] && !t.rim[p as usize] { [(q, p), (p, q)] } else { [(p, q), (q, p)] };
        let corners = t.corners;
        let old = elements(&self.input.bodies[b]);
        let x = &self.x;
        let split = ends.iter().find_map(|&(a, other)| {
            let (xa, xo) = (x[base + a as usize], x[base + other as usize]);
            let towards = xo - xa;
            split::split_vertex(&old, n, a, |k| {
                let c = old[k][..corners].iter().map(|&i| x[base + i as usize]).sum::<DVec3>() / corners as f64;
                (c - xa).dot(towards) > 0.0
            })
        });
        let Some(split) = split else { return };
        let new_n = split.origin.len();
        for v in n..new_n {
            let o = base + split.origin[v] as usize;
            let i = base + v;
            self.x[i] = self.x[o];
            self.x_prev[i] = self.x_prev[o];
            self.v[i] = self.v[o];
            self.history.copy_vertex(o, i);
            self.contact_params[i] = self.contact_params[o];
        }
        self.share_masses(b, &split, n);
        self.bodies[b] = base..base + new_n;
        self.move_constraints(b, &old, &split.elements);
        let body = &mut self.input.bodies[b];
        for v in n..new_n {
            let o = split.origin[v] as usize;
            let copy = |list: &mut Vec<Vec3>| {
                if list.len() == v {
                    let p = list[o];
                    list.push(p);
                }
            };
            copy(&mut body.positions);
            copy(&mut body.velocities);
            copy(&mut body.bind_pose);
            copy(&mut body.self_collision_filter_pose);
        }
        match body.kind {
            BodyKind::Volume => body.tets = split.elements,
            BodyKind::Surface => body.triangles = split.elements.iter().map(|e| [e[0], e[1], e[2]]).collect(),
        }
        if let Some(t) = self.tearing[b].as_mut() {
            t.rim = rim_vertices(body, new_n);
        }
        self.rebuild_surfaces();
        self.topology_version[b] += 1;
    }

    /// Shares each split vertex's mass among its copies by the element mass around each.
    fn share_masses(&mut self, b: usize, split: &split::Split<4>, n: usize) {
        let base = self.bodies[b].start;
        let corners = self.tearing[b].as_ref().map_or(3, |t| t.corners);
        let corner = crate::model::mass::element_corner_masses(&self.input.bodies[b]);
        let mut carried = vec![0.0f32; split.origin.len()];
        for (e, &m) in split.elements.iter().zip(&corner) {
            for &v in &e[..corners] {
                carried[v as usize] += m;
            }
        }
        let mut total = vec![0.0f32; n];
        let mut was_split = vec![false; n];
        for (v, &o) in split.origin.iter().enumerate() {
            total[o as usize] += carried[v];
            if v >= n {
                was_split[o as usize] = true;
            }
        }
        // The originals' masses and pins before any copy is written.
        let before: Vec<(f32, bool)> = (0..n).map(|o| (self.mass[base + o], self.w[base + o] == 0.0)).collect();
        for (v, &o) in split.origin.iter().enumerate() {
            let o = o as usize;
            if !was_split[o] {
                continue;
            }
            let (m, pinned) = before[o];
            let mass = if total[o] > 0.0 { m * carried[v] / total[o] } else { 0.0 };
            // The first copy keeps any pin or attachment; the others come free.
            let w = if (v == o && pinned) || mass <= 0.0 { 0.0 } else { 1.0 / mass };
            self.mass[base + v] = mass;
            self.w[base + v] = w;
        }
    }

    /// Re-indexes body `b`'s elements (membranes or tets) and hinges from `old` to `new`
    /// (same element order, corners substituted); hinges across an opened edge are
    /// switched off.
    pub(super) fn move_constraints(&mut self, b: usize, old: &[[u32; 4]], new: &[[u32; 4]]) {
        let base = self.bodies[b].start as u32;
        let Some(t) = self.tearing[b].as_ref() else { return };
        let start = t.element_start;
        for (k, e) in new.iter().enumerate() {
            if *e == old[k] {
                continue;
            }
            if t.corners == 4 {
                let slot = self.elements.tets.slot[start + k] as usize;
                self.elements.tets.items_mut()[slot].v = e.map(|i| i + base);
            } else {
                let slot = self.elements.membranes.slot[start + k] as usize;
                self.elements.membranes.items_mut()[slot].v = [e[0], e[1], e[2]].map(|i| i + base);
            }
        }
        for h in &self.hinge_refs[b] {
            let set = if h.soft { &mut self.elements.soft_hinges } else { &mut self.elements.hinges };
            let slot = set.slot[h.index as usize] as usize;
            let hinge = &mut set.items_mut()[slot];
            let [t1, t2] = h.triangles.map(|t| t as usize);
            let moved = |v: u32, tri: usize| -> Option<u32> {
                let c = old[tri].iter().position(|&q| q + base == v)?;
                Some(new[tri][c] + base)
            };
            let (Some(a1), Some(b1), Some(c1), Some(d2)) =
                (moved(hinge.v[0], t1), moved(hinge.v[1], t1), moved(hinge.v[2], t1), moved(hinge.v[3], t2))
            else {
                continue;
            };
            let (a2, b2) = (moved(hinge.v[0], t2), moved(hinge.v[1], t2));
            if a2 != Some(a1) || b2 != Some(b1) {
                // The shared edge has opened: nothing left to bend.
                hinge.compliance = f32::INFINITY;
            }
            hinge.v = [a1, b1, c1, d2];
        }
    }

    /// Rebuilds the deformable contact surfaces (and filters) after a topology change.
    pub(super) fn rebuild_surfaces(&mut self) {
        let s = &self.settings;
        let self_contact = SelfContact { surfaces: s.self_contact, volumes: s.volume_self_contact };
        let (surfaces, filter) =
            Surfaces::new(&self.input, &self.bodies, s.contact_offset, s.deformable_contact, self_contact);
        self.surfaces = surfaces;
        self.filter = filter;
        // A fresh build marks every startsAsleep body asleep again.
        for b in 0..self.bodies.len() {
            if !self.is_asleep(BodyId(b)) {
                self.surfaces.set_awake(b);
            }
        }
    }
}
