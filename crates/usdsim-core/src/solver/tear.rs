//! Tearing inside the solver: after each substep the most over-stretched edge of a
//! tearable body breaks, its ends are separated with [`crate::tearing::split_vertex`],
//! and every constraint that touched the split vertex moves onto the copy its element now
//! uses.
//!
//! The article's criterion (`seeds/ammojs-tearing-plasticity.txt`): an edge longer than
//! `ratio × rest length` breaks. A body that can tear gets spare vertex slots after its
//! own when the solver is built (three per triangle, enough for every triangle to come
//! apart), so a split never moves another body's vertices and nothing else re-indexes.
//! Splitting a vertex only removes sharing between elements, so the constraint colouring
//! stays valid. A split vertex's mass is shared among its copies in proportion to the
//! element mass each copy carries, with the original's velocity: mass and momentum are
//! conserved.

use super::Solver;
use crate::deformable_contact::{SelfContact, Surfaces};
use crate::scene::Body;
use crate::tearing;
use glam::Vec3;
use std::collections::HashSet;

/// A tearable surface body's tearing data.
#[derive(Clone, Debug)]
pub(super) struct Tearing {
    /// Per triangle: the rest length of each edge (corner k to k + 1).
    rest: Vec<[f32; 3]>,
    /// Per triangle: its material's tear ratio (`INFINITY` never tears).
    ratio: Vec<f32>,
    /// One past the body's last vertex slot (spare slots included).
    pub(super) slots_end: usize,
    /// Index of the body's first triangle among the membranes (scene order), if it has
    /// membranes (the springs model has none).
    pub(super) tri_start: Option<usize>,
    /// The body's hinges: which set, their input index there and their two triangles.
    pub(super) hinges: Vec<HingeRef>,
    /// Edges broken so far (local indices at the time, lower first); an edge whose ends
    /// could not be separated stays here and is not tried again.
    broken: HashSet<(u32, u32)>,
    /// Per vertex: whether it lies on the rim (a free edge, original or torn).
    rim: Vec<bool>,
}

/// Which vertices of `triangles` lie on the rim: on an edge used by one triangle only.
fn rim_vertices(triangles: &[[u32; 3]], vertex_count: usize) -> Vec<bool> {
    let mut users: std::collections::HashMap<(u32, u32), u32> = std::collections::HashMap::new();
    for tri in triangles {
        for k in 0..3 {
            *users.entry(tearing::edge_key(tri[k], tri[(k + 1) % 3])).or_default() += 1;
        }
    }
    let mut rim = vec![false; vertex_count];
    for (&(a, b), &n) in &users {
        if n == 1 {
            rim[a as usize] = true;
            rim[b as usize] = true;
        }
    }
    rim
}

/// Where one of a tearable body's hinges lives.
#[derive(Clone, Copy, Debug)]
pub(super) struct HingeRef {
    /// In the soft (once per substep) set rather than the stiff one.
    pub(super) soft: bool,
    /// Input index within that set.
    pub(super) index: u32,
    /// The hinge's two triangles (body-local).
    pub(super) triangles: [u32; 2],
}

impl Tearing {
    /// Tearing data for `body` if any of its elements has a tear ratio (surface bodies;
    /// volume bodies do not tear yet). `slots_end` and the constraint references are
    /// filled in by the solver.
    pub(super) fn new(body: &Body) -> Option<Tearing> {
        // Spring-model bodies tear link by link instead (`springs.rs`).
        if body.kind != crate::BodyKind::Surface || body.kinematic || body.model != crate::Model::Fem {
            return None;
        }
        let ratio: Vec<f32> =
            (0..body.triangles.len()).map(|t| body.element_tear_ratio(t).unwrap_or(f32::INFINITY)).collect();
        if ratio.iter().all(|r| !r.is_finite()) {
            return None;
        }
        let rest = body
            .rest_elements
            .iter()
            .map(|e| {
                let p = [0, 1, 2].map(|k| body.rest_points[e[k] as usize]);
                [0, 1, 2].map(|k| p[k].distance(p[(k + 1) % 3]))
            })
            .collect();
        let rim = rim_vertices(&body.triangles, body.positions.len());
        Some(Tearing { rest, ratio, slots_end: 0, tri_start: None, hinges: Vec::new(), broken: HashSet::new(), rim })
    }

    /// Vertex slots a body of `triangles` triangles may need: every corner its own.
    pub(super) fn slots(triangles: usize) -> usize {
        3 * triangles
    }
}

impl Solver {
    /// How many of body `body`'s edges have broken so far.
    pub fn broken_edges(&self, body: usize) -> usize {
        self.tearing.get(body).and_then(Option::as_ref).map_or(0, |t| t.broken.len())
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
            if self.tearing[b].is_none() || self.is_asleep(b) {
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
        let tris = &self.input.bodies[b].triangles;
        for (tri, (rest, &ratio)) in tris.iter().zip(t.rest.iter().zip(&t.ratio)) {
            if !ratio.is_finite() {
                continue;
            }
            for k in 0..3 {
                let (p, q) = (tri[k], tri[(k + 1) % 3]);
                let excess = self.x[base + p as usize].distance(self.x[base + q as usize]) / (ratio * rest[k]);
                if excess > 1.0 && worst.is_none_or(|(w, _)| excess > w) {
                    let key = tearing::edge_key(p, q);
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
    /// ([`tearing::split_vertex`]), then constraints, masses and contact surfaces follow.
    fn break_edge(&mut self, b: usize, (p, q): (u32, u32)) {
        let base = self.bodies[b].start;
        let n = self.bodies[b].len();
        let Some(t) = self.tearing[b].as_mut() else { return };
        t.broken.insert((p, q));
        if base + n >= t.slots_end {
            return; // every corner already has its own vertex
        }
        let ends = if t.rim[q as usize] && !t.rim[p as usize] { [(q, p), (p, q)] } else { [(p, q), (q, p)] };
        let old = self.input.bodies[b].triangles.clone();
        let x = &self.x;
        let split = ends.iter().find_map(|&(a, other)| {
            let (xa, xo) = (x[base + a as usize], x[base + other as usize]);
            let towards = xo - xa;
            tearing::split_vertex(&old, n, a, |k| {
                let c = old[k].iter().map(|&i| x[base + i as usize]).sum::<Vec3>() / 3.0;
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
            self.contact_params[i] = self.contact_params[o];
        }
        self.share_masses(b, &split, n);
        self.bodies[b] = base..base + new_n;
        self.move_constraints(b, &old, &split.triangles);
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
        body.triangles = split.triangles;
        if let Some(t) = self.tearing[b].as_mut() {
            t.rim = rim_vertices(&body.triangles, new_n);
        }
        self.rebuild_surfaces();
        self.topology_version[b] += 1;
    }

    /// Shares each split vertex's mass among its copies by the element mass around each.
    fn share_masses(&mut self, b: usize, split: &tearing::Split, n: usize) {
        let base = self.bodies[b].start;
        let corner = crate::mass::element_corner_masses(&self.input.bodies[b]);
        let mut carried = vec![0.0f32; split.origin.len()];
        for (tri, &m) in split.triangles.iter().zip(&corner) {
            for &v in tri {
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

    /// Re-indexes body `b`'s membranes and hinges from triangles `old` to `new` (same
    /// triangle order, corners substituted); hinges across an opened edge are switched
    /// off.
    fn move_constraints(&mut self, b: usize, old: &[[u32; 3]], new: &[[u32; 3]]) {
        let base = self.bodies[b].start as u32;
        let Some(t) = self.tearing[b].as_ref() else { return };
        if let Some(start) = t.tri_start {
            for (k, tri) in new.iter().enumerate() {
                if *tri != old[k] {
                    let slot = self.membranes.slot[start + k] as usize;
                    self.membranes.items[slot].v = tri.map(|i| i + base);
                }
            }
        }
        for h in &t.hinges {
            let set = if h.soft { &mut self.soft_hinges } else { &mut self.hinges };
            let slot = set.slot[h.index as usize] as usize;
            let hinge = &mut set.items[slot];
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
    }
}
