//! Contact between deformable bodies and of a body with itself: vertex–triangle
//! proximity with a thickness, found through a spatial hash and resolved as XPBD
//! inequality constraints inside the solver iterations, with Coulomb friction.
//!
//! Following Bridson, Fedkiw & Anderson 2002, "Robust Treatment of Collisions, Contact
//! and Friction for Cloth Animation", every surface vertex keeps a distance `d` (the
//! *thickness*: the sum of the vertex's and the triangle's contact radii, or, within one
//! body, no more than half its small triangle altitude: [`Surfaces::thickness`]) from
//! every surface triangle it does not belong to:
//!
//! * **Detection, every substep.** Each triangle's box swept over the substep (start and
//!   predicted positions) is grown by its radius plus a margin, and so is each vertex's.
//!   A (vertex, triangle) pair whose boxes overlap becomes a contact when the predicted
//!   vertex lies within `d` + margin + the substep displacement of the vertex *relative
//!   to* the triangle's vertices (the largest `|Δp − Δtₖ|`, which bounds its motion
//!   relative to any point of the triangle) of the predicted triangle. Counting the
//!   relative displacement is what keeps a fast vertex from stepping through a triangle
//!   in one substep: one that crossed it is now at most that far from it. (Absolute
//!   displacements, used before, made every neighbour of a fast but smoothly moving cloth
//!   a contact: 15–25 thousand contacts a substep on a swinging 64² cloth, all projected
//!   on one thread.) The pairs tested are not searched for every substep: candidate
//!   lists, built from each vertex's predicted path, serve up to four substeps while
//!   every vertex stays near its path ([`candidates`]); they hold every pair the test
//!   could keep, so the contacts are those of a search from scratch. The lists are
//!   searched through a bounding-volume hierarchy with normal cones ([`cone_tree`]),
//!   which skips the smooth parts of a surface against themselves. Detection runs
//!   in parallel over the pairs in fixed chunks and its output is in (vertex, triangle)
//!   order, so the contact list is the same for any thread count.
//! * **Side.** A cloth triangle is two-sided: the side a vertex must stay on is the one
//!   it was on at the start of the substep (assumed intersection-free). A volume body's
//!   surface triangles face outwards, so the side is always "outside": a vertex that did
//!   get in is pushed out again.
//! * **Projection.** `C = n·(p − q) − d ≥ 0` with `q` the closest point of the triangle
//!   (barycentric weights `b`), `n` the side's face normal when `q` is inside the face
//!   and `(p − q)/|p − q|` on an edge or corner (only while the vertex is on its side of
//!   the plane; behind it, the neighbouring triangle's face holds it). The gradient is `n` for the vertex and
//!   `−bₖ n` for the triangle's vertices; zero compliance (Macklin et al. 2016). Contacts
//!   couple four vertices of possibly different bodies, so they are projected on one
//!   thread in list order after the coloured constraints of each iteration: results are
//!   bit-identical for any thread count.
//! * **Existing overlap.** A pair already closer than `d` at the start of the substep
//!   (authored interpenetration, or a vertex that got deep inside a solid) is held at
//!   its start distance by the iterations and moved apart afterwards by at most
//!   `max_depenetration_velocity · dt`, positions only ([`Surfaces::depenetrate`]): the
//!   iterations would resolve it within one substep and the velocity update would turn
//!   it into a pop (PhysX bounds it by `maxDepenetrationVelocity`).
//! * **Immovable sides.** A pair whose vertices are all immovable (kinematic, pinned or
//!   driven, asleep) is skipped, except when exactly one of its two bodies is asleep: a
//!   kinematic body moving into a sleeping one must be seen to wake it
//!   ([`Surfaces::woken_by`]; the projection itself does nothing with such a pair until
//!   the sleeper wakes). A kinematic body against a dynamic one needs nothing special:
//!   its zero inverse mass puts the whole correction on the dynamic side, from either
//!   direction (its vertices on the other's triangles, or the other's vertices on its
//!   triangles).
//! * **Friction** once per substep from each contact's accumulated normal push, on the
//!   relative tangential displacement of vertex and triangle point, distributed by
//!   inverse mass (Macklin et al. 2014, "Unified Particle Physics for Real-Time
//!   Applications", §6.1): static friction removes it entirely below `μs·push`, dynamic
//!   friction removes at most `μd·push`. Two bodies' coefficients combine as their
//!   average, as against static colliders (`contact/collider.rs`).
//!
//! * **Edge–edge proximity** (Bridson et al. §7.2), for surface bodies (cloth) only: two
//!   edges that share no vertex keep the thickness between their closest points
//!   `pa = (1 − s)·a₀ + s·a₁`, `pb = (1 − t)·b₀ + t·b₁`. Edges have swept boxes like the
//!   triangles and candidate lists of their own (each edge keeps candidates of higher
//!   index, so the pairs come out sorted). The reach counts
//!   the edges' relative displacement (the largest `|Δaᵢ − Δbⱼ|` over their ends), as for
//!   vertex–triangle pairs. The direction is
//!   `(pa − pb)/|pa − pb|` while on the side of the start of the substep (its `pa − pb`
//!   is stored: a cross product flips sign when edges turn through parallel); behind it,
//!   with both closest points inside their edges, the edges crossed and the direction is
//!   `(a₁ − a₀)×(b₁ − b₀)` turned to that side; otherwise none (the vertex–triangle
//!   contacts hold the rest). Gradients are `(1 − s, s)·n` and `−(1 − t, t)·n`; the contacts share
//!   the list, projection and friction of the vertex–triangle contacts. Element filters:
//!   an edge belongs to its triangles; a pair is skipped when an end of either edge is
//!   filtered against a triangle of the other ([`FilterTable::vertex_triangle`]), the
//!   vertices' rule, so a filtered region passes its counterpart edges and all.
//!   Volume boundaries have no edge contacts (a coarse tet mesh passing an edge through
//!   another edge is caught by its vertices against the faces far more often than not).

mod candidates;
mod cone_tree;

use crate::constraint::relative;
use crate::contact::filter_table::FilterTable;
use crate::mesh::closest::{closest_point, closest_segment_params, point};
use crate::mesh::spatial_hash::SpatialHash;
use crate::mesh::surface::surface_triangles;
use crate::parallel::colouring::Shared;
use crate::scene::{Body, BodyKind, Scene};
use candidates::Candidates;
use cone_tree::ConeTree;
use glam::{DVec3, Vec3};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::ops::Range;

/// Spatial hash cell edge (the filter pose's search), in mean edge lengths of the
/// colliding surfaces.
const CELL_EDGES: f32 = 3.0;

/// The largest self-contact thickness of a body, in its small triangle altitudes
/// ([`self_radius`]).
const SELF_THICKNESS_PER_ALTITUDE: f32 = 0.5;

/// Which of a body's triangle altitudes is its "small" one: this fraction up the sorted
/// list, so that a few slivers do not thin a whole garment's self contact.
const SMALL_ALTITUDE_RANK: f32 = 0.1;

/// One vertex–triangle or edge–edge contact of the current substep.
#[derive(Clone, Copy, Debug)]
pub struct Contact {
    /// Global vertex index; for an edge–edge contact the first edge (index into the
    /// surfaces' edges).
    pub vertex: u32,
    /// Index into [`Surfaces::triangles`]; for an edge–edge contact the second edge.
    pub triangle: u32,
    /// Whether this is an edge–edge contact.
    pub edge: bool,
    /// +1 or −1: which side of the triangle's normal the vertex must stay on.
    pub side: f32,
    /// Edge–edge: direction from the second edge's closest point to the first's at the
    /// start of the substep, the side the first edge must stay on (zero otherwise).
    pub normal: Vec3,
    /// Thickness: distance to keep.
    pub distance: f32,
    /// Combined (static, dynamic) friction.
    pub friction: [f32; 2],
    /// Normal push accumulated this substep (position units).
    pub push: f32,
    /// How far inside `distance` the pair started the substep (0 when apart): the
    /// iterations hold `distance` reduced by it, [`Surfaces::depenetrate`] resolves it
    /// without adding velocity.
    pub overlap: f32,
}

/// Everything the contact search knows about the scene's surfaces, built once.
pub struct Surfaces {
    /// Per body, its surface triangles in local indices ([`surface_triangles`]).
    pub local: Vec<Vec<[u32; 3]>>,
    /// Colliding triangles, global vertex indices.
    pub triangles: Vec<[u32; 3]>,
    tri_body: Vec<u32>,
    tri_local: Vec<u32>,
    /// Colliding vertices (global, ascending).
    vertices: Vec<u32>,
    /// Body of every global vertex.
    pub vertex_body: Vec<u32>,
    body_start: Vec<u32>,
    radius: Vec<f32>,
    /// Per body, the contact radius of its pairs with itself: [`Surfaces::radius`]
    /// capped by the body's mesh ([`self_radius`]).
    self_radius: Vec<f32>,
    two_sided: Vec<bool>,
    friction: Vec<[f32; 2]>,
    self_contact: Vec<bool>,
    /// Per body: asleep (`startsAsleep`, not woken yet). A pair of immovable vertices
    /// and triangle (or edges) is still a contact when exactly one side sleeps: a
    /// kinematic or driven body touching a sleeping one must wake it.
    asleep: Vec<bool>,
    /// (global vertex, triangle) pairs exempt from self contact (close in the
    /// self-collision filter pose), sorted.
    pose_exempt: Vec<(u32, u32)>,
    cell: f32,
    margin: f32,
    /// Edges of the colliding surface bodies (global vertex indices, lower first), in
    /// body order and sorted within a body.
    edges: Vec<[u32; 2]>,
    edge_body: Vec<u32>,
    /// `edge_tri_start[e]..edge_tri_start[e + 1]` indexes `edge_tri`: the edge's
    /// triangles, local numbering.
    edge_tri_start: Vec<u32>,
    edge_tri: Vec<u32>,
    /// (edge, edge) pairs exempt from self contact (close in the filter pose), sorted.
    edge_pose_exempt: Vec<(u32, u32)>,
    /// The pairs each substep tests, kept over several substeps ([`candidates`]).
    candidates: Candidates,
    /// The hierarchy their builds search ([`cone_tree`]).
    tree: ConeTree,
}

/// Which bodies collide with themselves.
#[derive(Clone, Copy, Debug)]
pub struct SelfContact {
    /// Surface bodies (cloth, shells): all (`Some(true)`), none (`Some(false)`), or those
    /// whose asset asks (`None`, [`crate::Body::self_collision`]).
    pub surfaces: Option<bool>,
    /// Every volume body's boundary (unless `surfaces` is `Some(false)`, which turns self
    /// contact off for every body); otherwise those whose asset asks.
    pub volumes: bool,
}

impl SelfContact {
    /// Whether `body` collides with itself under these settings.
    pub fn wanted(&self, body: &Body) -> bool {
        match (self.surfaces, body.kind) {
            (Some(false), _) => false,
            (Some(true), BodyKind::Surface) => true,
            (None, BodyKind::Surface) => body.self_collision,
            (_, BodyKind::Volume) => self.volumes || body.self_collision,
        }
    }
}

impl Surfaces {
    /// Whether body `b` collides with itself.
    pub fn collides_with_itself(&self, b: usize) -> bool {
        self.self_contact[b]
    }

    /// Collects the colliding surfaces of `scene` (vertex ranges `ranges` in the global
    /// arrays). `contact_offset` is every vertex's base radius; surface bodies add half
    /// their thickness. With `enabled` false nothing collides (filters are still
    /// compiled for static contacts).
    pub fn new(
        scene: &Scene,
        ranges: &[Range<usize>],
        contact_offset: f32,
        enabled: bool,
        self_contact: SelfContact,
    ) -> (Surfaces, FilterTable) {
        let local: Vec<Vec<[u32; 3]>> = scene.bodies.iter().map(surface_triangles).collect();
        let counts: Vec<usize> = ranges.iter().map(|r| r.len()).collect();
        let filter = FilterTable::new(&scene.collision, &counts, &local, scene.colliders.len());
        let vertex_count = ranges.last().map_or(0, |r| r.end);
        let mut vertex_body = vec![0u32; vertex_count];
        for (b, r) in ranges.iter().enumerate() {
            vertex_body[r.clone()].fill(b as u32);
        }
        let radius: Vec<f32> = scene
            .bodies
            .iter()
            .map(|b| contact_offset + if b.kind == BodyKind::Surface { 0.5 * b.material.thickness } else { 0.0 })
            .collect();
        let self_on: Vec<bool> = scene
            .bodies
            .iter()
            .enumerate()
            .map(|(i, b)| self_contact.wanted(b) && filter.bodies_collide(i, i))
            .collect();
        let n = scene.bodies.len();
        let mut s = Surfaces {
            triangles: Vec::new(),
            tri_body: Vec::new(),
            tri_local: Vec::new(),
            vertices: Vec::new(),
            vertex_body,
            body_start: ranges.iter().map(|r| r.start as u32).collect(),
            self_radius: radius.clone(),
            radius,
            two_sided: scene.bodies.iter().map(|b| b.kind == BodyKind::Surface).collect(),
            friction: scene.bodies.iter().map(|b| [b.material.static_friction, b.material.dynamic_friction]).collect(),
            self_contact: self_on,
            asleep: scene.bodies.iter().map(|b| b.starts_asleep && !b.kinematic).collect(),
            pose_exempt: Vec::new(),
            cell: 0.0,
            margin: 0.0,
            edges: Vec::new(),
            edge_body: Vec::new(),
            edge_tri_start: vec![0],
            edge_tri: Vec::new(),
            edge_pose_exempt: Vec::new(),
            candidates: Candidates::default(),
            tree: ConeTree::default(),
            local: Vec::new(),
        };
        if enabled {
            let (mut edge_sum, mut edges) = (0.0f64, 0usize);
            for (b, body) in scene.bodies.iter().enumerate() {
                // A body takes part when it can touch itself or some other body.
                let partners = (0..n).any(|o| if o == b { s.self_contact[b] } else { filter.bodies_collide(b, o) });
                if !partners || local[b].is_empty() {
                    continue;
                }
                let base = ranges[b].start as u32;
                let mut used = vec![false; ranges[b].len()];
                for (k, t) in local[b].iter().enumerate() {
                    s.triangles.push(t.map(|i| i + base));
                    s.tri_body.push(b as u32);
                    s.tri_local.push(k as u32);
                    for j in 0..3 {
                        used[t[j] as usize] = true;
                        edge_sum +=
                            body.positions[t[j] as usize].distance(body.positions[t[(j + 1) % 3] as usize]) as f64;
                        edges += 1;
                    }
                }
                s.vertices.extend(used.iter().enumerate().filter(|(_, &u)| u).map(|(i, _)| i as u32 + base));
                // Edges of every colliding surface: a cloth's, and a volume's boundary
                // (so that a cloth edge cannot slip through a solid's edge between their
                // vertices); volume–volume edge pairs are skipped in the search.
                {
                    let mut edge_tris: BTreeMap<[u32; 2], Vec<u32>> = BTreeMap::new();
                    for (k, t) in local[b].iter().enumerate() {
                        for j in 0..3 {
                            let (p, q) = (t[j], t[(j + 1) % 3]);
                            if p != q {
                                edge_tris.entry([p.min(q) + base, p.max(q) + base]).or_default().push(k as u32);
                            }
                        }
                    }
                    for (e, ts) in edge_tris {
                        s.edges.push(e);
                        s.edge_body.push(b as u32);
                        s.edge_tri.extend_from_slice(&ts);
                        s.edge_tri_start.push(s.edge_tri.len() as u32);
                    }
                }
            }
            // Each body's colliding triangles are one run of `triangles`, in body order.
            let mut first = 0;
            while first < s.triangles.len() {
                let b = s.tri_body[first] as usize;
                let count = s.tri_body[first..].iter().take_while(|&&tb| tb as usize == b).count();
                let at = |i: u32| scene.bodies[b].positions[(i - ranges[b].start as u32) as usize];
                let altitudes: Vec<f32> = (s.triangles[first..first + count].iter())
                    .map(|t| {
                        let [a, bb, c] = t.map(at);
                        cone_tree::altitude(a, bb, c)
                    })
                    .collect();
                s.self_radius[b] = self_radius(s.radius[b], &altitudes);
                first += count;
            }
            let mean_edge = if edges > 0 { (edge_sum / edges as f64) as f32 } else { 1.0 };
            let max_radius = s.radius.iter().copied().fold(0.0f32, f32::max);
            // Cells of three mean edges: an item covers one or two cells per axis instead
            // of two or three, so building and querying the hash touch far fewer entries
            // (cloth 64² with self contact: 175 → 110 ms a frame against one mean edge;
            // four mean edges measured the same as three).
            s.cell = (CELL_EDGES * mean_edge).max(4.0 * max_radius).max(1e-6);
            s.margin = 0.05 * mean_edge;
            s.pose_exempt = pose_exemptions(&s, scene, ranges);
            // Edge pairs need a surface body on one side (two volumes' edges are never a
            // pair): with none taking part, volume piles skip the edge search.
            if !s.tri_body.iter().any(|&b| s.two_sided[b as usize]) {
                s.edges.clear();
                s.edge_body.clear();
                s.edge_tri.clear();
                s.edge_tri_start.truncate(1);
            }
            s.edge_pose_exempt = edge_pose_exemptions(&s, scene, ranges);
            let mut rest = vec![Vec3::ZERO; vertex_count];
            for (b, r) in ranges.iter().enumerate() {
                rest[r.clone()].copy_from_slice(&scene.bodies[b].positions[..r.len()]);
            }
            s.tree = ConeTree::new(&s, &rest);
        }
        s.local = local;
        (s, filter)
    }

    /// Marks body `body` awake (see [`crate::Solver::wake`]): from the next detection on,
    /// its pairs with immovable partners are skipped like any other immovable pair.
    pub fn set_awake(&mut self, body: usize) {
        if let Some(a) = self.asleep.get_mut(body) {
            *a = false;
        }
    }

    /// The sleeping body contact `c` wakes, if any: exactly one side's body is asleep,
    /// the other side's vertices moved this substep (`x` against `x_prev`: a dynamic body
    /// in motion, a kinematic or driven body following its targets) and the pair touches
    /// at the predicted positions `x` (its constraint is violated, so it would push).
    pub fn woken_by(&self, c: &Contact, x: &[Vec3], x_prev: &[Vec3]) -> Option<usize> {
        let (ids, split, bodies) = if c.edge {
            let bodies = [self.edge_body[c.vertex as usize], self.edge_body[c.triangle as usize]];
            (self.edge_vertices(c), 2, bodies)
        } else {
            let tri = self.triangles[c.triangle as usize];
            let bodies = [self.vertex_body[c.vertex as usize], self.tri_body[c.triangle as usize]];
            ([c.vertex, tri[0], tri[1], tri[2]], 1, bodies)
        };
        let [a, b] = bodies.map(|b| b as usize);
        let (sleeper, mover) = match (self.asleep[a], self.asleep[b]) {
            (true, false) => (a, &ids[split..]),
            (false, true) => (b, &ids[..split]),
            _ => return None,
        };
        if mover.iter().all(|&i| x[i as usize] == x_prev[i as usize]) {
            return None;
        }
        let value = if c.edge {
            Self::evaluate_edge(c, ids.map(|i| x[i as usize]))?.3
        } else {
            self.evaluate(c, x[ids[0] as usize], [ids[1], ids[2], ids[3]].map(|i| x[i as usize]))?.2
        };
        (value < 0.0).then_some(sleeper)
    }

    /// The two bodies contact `c` joins: the vertex's (first edge's) and the triangle's
    /// (second edge's).
    pub fn bodies_of(&self, c: &Contact) -> [usize; 2] {
        if c.edge {
            [self.edge_body[c.vertex as usize], self.edge_body[c.triangle as usize]].map(|b| b as usize)
        } else {
            [self.vertex_body[c.vertex as usize], self.tri_body[c.triangle as usize]].map(|b| b as usize)
        }
    }

    /// Finds this substep's contacts into `out`: `x` predicted positions, `x_prev` the
    /// start of the substep, `w` inverse masses.
    ///
    /// The pairs tested come from the candidate lists ([`candidates`]), refreshed only
    /// when the motion since their last build leaves their skin; the tests themselves
    /// are those of a search from scratch, so the contacts are the same either way.
    pub fn detect(&mut self, x: &[Vec3], x_prev: &[Vec3], w: &[f32], filter: &FilterTable, out: &mut Vec<Contact>) {
        out.clear();
        if self.triangles.is_empty() {
            return;
        }
        self.refresh_candidates(x, x_prev, filter);
        let this = &*self;
        let pairs = &this.candidates.vertex_triangle;
        collect_in_order(pairs.len(), out, |k, _, local| {
            let (v, t) = pairs[k];
            this.vertex_contact(v, t, x, x_prev, w, local)
        });
        let pairs = &this.candidates.edge_edge;
        collect_in_order(pairs.len(), out, |k, _, local| {
            let (ea, eb) = pairs[k];
            this.edge_contact(ea, eb, x, x_prev, w, local)
        });
    }

    /// [`Surfaces::detect`] again in the same substep, after its predictions `x` changed
    /// (a body switched to implicit Euler at a contact, `solver/history.rs`): the
    /// candidate lists are checked against the new predictions as the substep's first
    /// detection checked them against the old ones, and repaired or rebuilt as needed.
    pub fn detect_again(
        &mut self,
        x: &[Vec3],
        x_prev: &[Vec3],
        w: &[f32],
        filter: &FilterTable,
        out: &mut Vec<Contact>,
    ) {
        self.candidates.forget_substep();
        self.detect(x, x_prev, w, filter, out);
    }

    /// Every pair the filters allow, each tested as a substep tests a listed pair: what
    /// the lists (the boxes, the cone test, the moving frame, the bound) must never lose,
    /// found without any of them (for tests: it tests every pair).
    #[cfg(test)]
    pub(crate) fn every_contact(&self, filter: &FilterTable, x: &[Vec3], x_prev: &[Vec3], w: &[f32]) -> Vec<Contact> {
        let mut out = Vec::new();
        for &v in &self.vertices {
            for t in 0..self.triangles.len() as u32 {
                if self.vertex_pair_allowed(filter, v, t) {
                    self.vertex_contact(v, t, x, x_prev, w, &mut out);
                }
            }
        }
        let edges = self.edges.len() as u32;
        for ea in 0..edges {
            for eb in ea + 1..edges {
                if self.edge_pair_allowed(filter, ea, eb) {
                    self.edge_contact(ea, eb, x, x_prev, w, &mut out);
                }
            }
        }
        out
    }

    /// Triangle `t`'s box over the substep (start and predicted positions), grown by its
    /// radius and the margin: the first test of every pair it is in.
    fn triangle_box(&self, t: usize, x: &[Vec3], x_prev: &[Vec3]) -> (Vec3, Vec3) {
        let tri = self.triangles[t];
        let (mut lo, mut hi) = (x[tri[0] as usize], x[tri[0] as usize]);
        for &i in &tri {
            for p in [x[i as usize], x_prev[i as usize]] {
                lo = lo.min(p);
                hi = hi.max(p);
            }
        }
        let grow = Vec3::splat(self.radius[self.tri_body[t] as usize] + self.margin);
        (lo - grow, hi + grow)
    }

    /// Edge `e`'s box over the substep, as [`Self::triangle_box`].
    fn edge_box(&self, e: usize, x: &[Vec3], x_prev: &[Vec3]) -> (Vec3, Vec3) {
        let [i, j] = self.edges[e].map(|k| k as usize);
        let lo = x[i].min(x[j]).min(x_prev[i]).min(x_prev[j]);
        let hi = x[i].max(x[j]).max(x_prev[i]).max(x_prev[j]);
        let grow = Vec3::splat(self.radius[self.edge_body[e] as usize] + self.margin);
        (lo - grow, hi + grow)
    }

    fn edge_triangles(&self, e: usize) -> &[u32] {
        &self.edge_tri[self.edge_tri_start[e] as usize..self.edge_tri_start[e + 1] as usize]
    }

    /// Whether no end of edge `ea` is filtered against a triangle of edge `eb`.
    fn edge_ends_collide(&self, filter: &FilterTable, ea: usize, eb: usize) -> bool {
        let (ba, bb) = (self.edge_body[ea] as usize, self.edge_body[eb] as usize);
        if !filter.element_filtered(ba, bb) {
            return true;
        }
        let start = self.body_start[ba];
        self.edges[ea]
            .iter()
            .all(|&v| self.edge_triangles(eb).iter().all(|&t| filter.vertex_triangle(ba, v - start, bb, t)))
    }

    /// Whether edges `ea < eb` may ever touch: the parts of the test that do not change
    /// while the bodies move (which bodies collide, shared vertices, element filters,
    /// the filter pose).
    fn edge_pair_allowed(&self, filter: &FilterTable, ea: u32, eb: u32) -> bool {
        let (ia, ib) = (ea as usize, eb as usize);
        let (ba, bb) = (self.edge_body[ia] as usize, self.edge_body[ib] as usize);
        if ba == bb {
            if !self.self_contact[ba] {
                return false;
            }
        } else if !filter.bodies_collide(ba, bb) {
            return false;
        }
        // Two volume surfaces: their vertices against each other's faces already
        // hold them apart (a tet's edges are short against its faces), and edge pairs
        // between two resting solids only add sideways pushes. Volume edges are here
        // for cloth draped over a solid's edges.
        if !self.two_sided[ba] && !self.two_sided[bb] {
            return false;
        }
        let (a, b) = (self.edges[ia], self.edges[ib]);
        if a.iter().any(|v| b.contains(v)) {
            return false;
        }
        if !(self.edge_ends_collide(filter, ia, ib) && self.edge_ends_collide(filter, ib, ia)) {
            return false;
        }
        !(ba == bb && self.edge_pose_exempt.binary_search(&(ea, eb)).is_ok())
    }

    /// Appends the contact of edges `ea < eb` (a pair [`Self::edge_pair_allowed`]
    /// admits) to `out` if they are within reach this substep.
    fn edge_contact(&self, ea: u32, eb: u32, x: &[Vec3], x_prev: &[Vec3], w: &[f32], out: &mut Vec<Contact>) {
        let (ia, ib) = (ea as usize, eb as usize);
        let (ba, bb) = (self.edge_body[ia] as usize, self.edge_body[ib] as usize);
        let (a, b) = (self.edges[ia], self.edges[ib]);
        let ((lo, hi), (blo, bhi)) = (self.edge_box(ia, x, x_prev), self.edge_box(ib, x, x_prev));
        if !(lo.cmple(bhi).all() && blo.cmple(hi).all()) {
            return;
        }
        if a.iter().chain(&b).all(|&i| w[i as usize] == 0.0) && self.asleep[ba] == self.asleep[bb] {
            return;
        }
        // Motion of the edges relative to each other (the largest relative motion of an
        // end of one against an end of the other bounds that of their closest points),
        // as for vertex–triangle pairs.
        let moved = {
            let mut m = 0.0f32;
            for &i in &a {
                let da = x[i as usize] - x_prev[i as usize];
                for &j in &b {
                    m = m.max((da - (x[j as usize] - x_prev[j as usize])).length());
                }
            }
            m
        };
        let [a0, a1] = a.map(|i| x[i as usize]);
        let [b0, b1] = b.map(|i| x[i as usize]);
        let (s, t) = closest_segment_params(a0, a1, b0, b1);
        let delta = a0.lerp(a1, s) - b0.lerp(b1, t);
        let d = self.thickness(ba, bb);
        if delta.length() > d + moved + self.margin {
            return;
        }
        let normal = {
            let [p0, p1] = a.map(|i| x_prev[i as usize]);
            let [q0, q1] = b.map(|i| x_prev[i as usize]);
            let (s0, t0) = closest_segment_params(p0, p1, q0, q1);
            let n0 = (p0.lerp(p1, s0) - q0.lerp(q1, t0)).normalize_or_zero();
            if n0 != Vec3::ZERO {
                n0
            } else {
                delta.normalize_or_zero()
            }
        };
        if normal == Vec3::ZERO {
            return;
        }
        let (fa, fb) = (self.friction[ba], self.friction[bb]);
        let mut contact = Contact {
            vertex: ea,
            triangle: eb,
            edge: true,
            side: 1.0,
            normal,
            distance: d,
            friction: [0.5 * (fa[0] + fb[0]), 0.5 * (fa[1] + fb[1])],
            push: 0.0,
            overlap: 0.0,
        };
        let start = [a[0], a[1], b[0], b[1]].map(|i| x_prev[i as usize]);
        if let Some((_, _, _, value)) = Self::evaluate_edge(&contact, start) {
            hold_start(&mut contact, value);
        }
        out.push(contact);
    }

    /// An edge–edge contact's current direction, closest-point parameters `(s, t)` and
    /// constraint value.
    #[inline]
    fn evaluate_edge(c: &Contact, [a0, a1, b0, b1]: [Vec3; 4]) -> Option<(Vec3, f32, f32, f32)> {
        let (s, t) = closest_segment_params(a0, a1, b0, b1);
        let delta = a0.lerp(a1, s) - b0.lerp(b1, t);
        let len = delta.length();
        // On the start's side: apart along `pa − pb`. Behind it with both closest points
        // inside their edges, the edges have crossed: back along the cross product
        // (which `pa − pb` then follows, up to rounding; nearly parallel edges, whose
        // cross product is noise, fail the test) turned to the start's side.
        let n = if len > 1e-12 && delta.dot(c.normal) >= 0.0 {
            delta / len
        } else {
            let cross = (a1 - a0).cross(b1 - b0).normalize_or_zero();
            let cross = if cross.dot(c.normal) < 0.0 { -cross } else { cross };
            let interior = s > 0.0 && s < 1.0 && t > 0.0 && t < 1.0;
            if cross != Vec3::ZERO && interior && cross.dot(delta).abs() >= 0.9 * len {
                cross
            } else {
                return None;
            }
        };
        Some((n, s, t, n.dot(delta) - c.distance))
    }

    /// The four vertices contact `c` moves: the vertex and the triangle's corners, or
    /// both edges' ends.
    pub fn vertices(&self, c: &Contact) -> [u32; 4] {
        if c.edge {
            self.edge_vertices(c)
        } else {
            let [a, b, d] = self.triangles[c.triangle as usize];
            [c.vertex, a, b, d]
        }
    }

    /// The four vertices of an edge–edge contact.
    #[inline]
    fn edge_vertices(&self, c: &Contact) -> [u32; 4] {
        let [a0, a1] = self.edges[c.vertex as usize];
        let [b0, b1] = self.edges[c.triangle as usize];
        [a0, a1, b0, b1]
    }

    /// The distance a feature of body `a` keeps from one of body `b`: the sum of their
    /// contact radii, or twice the self-contact radius for a body with itself
    /// ([`self_radius`]: its radius, capped by its mesh).
    fn thickness(&self, a: usize, b: usize) -> f32 {
        if a == b {
            2.0 * self.self_radius[a]
        } else {
            self.radius[a] + self.radius[b]
        }
    }

    /// Whether vertex `v` and triangle `t` may ever touch: the parts of the test that do
    /// not change while the bodies move (which bodies collide, the vertex's own
    /// triangles, element filters, the filter pose).
    fn vertex_pair_allowed(&self, filter: &FilterTable, v: u32, t: u32) -> bool {
        let (vi, ti) = (v as usize, t as usize);
        let (vb, tb) = (self.vertex_body[vi] as usize, self.tri_body[ti] as usize);
        if tb == vb {
            if !self.self_contact[vb] {
                return false;
            }
        } else if !filter.bodies_collide(vb, tb) {
            return false;
        }
        if self.triangles[ti].contains(&v) {
            return false;
        }
        if !filter.vertex_triangle(vb, v - self.body_start[vb], tb, self.tri_local[ti]) {
            return false;
        }
        !(tb == vb && self.pose_exempt.binary_search(&(v, t)).is_ok())
    }

    /// Appends the contact of vertex `v` with triangle `t` (a pair
    /// [`Self::vertex_pair_allowed`] admits) to `out` if they are within reach this
    /// substep.
    fn vertex_contact(&self, v: u32, t: u32, x: &[Vec3], x_prev: &[Vec3], w: &[f32], out: &mut Vec<Contact>) {
        let (vi, ti) = (v as usize, t as usize);
        let (vb, tb) = (self.vertex_body[vi] as usize, self.tri_body[ti] as usize);
        let (p0, p1) = (x_prev[vi], x[vi]);
        let rv = self.radius[vb];
        let grow = Vec3::splat(rv + self.margin);
        let (lo, hi) = (p0.min(p1) - grow, p0.max(p1) + grow);
        let tri = self.triangles[ti];
        let (blo, bhi) = self.triangle_box(ti, x, x_prev);
        if !(lo.cmple(bhi).all() && blo.cmple(hi).all()) {
            return;
        }
        if w[vi] == 0.0 && tri.iter().all(|&i| w[i as usize] == 0.0) && self.asleep[vb] == self.asleep[tb] {
            return;
        }
        let [a, b, c] = tri.map(|i| x[i as usize]);
        let (bary, _) = closest_point(p1, a, b, c);
        let dist = p1.distance(point(bary, a, b, c));
        let d = self.thickness(vb, tb);
        // The reach counts the motion of the vertex relative to the triangle's
        // vertices (which bounds its motion relative to any point of the triangle):
        // a vertex that crossed the triangle during the substep is now at most that
        // far from it. Absolute motion would make every neighbour of a fast but
        // smoothly moving cloth a contact.
        let dp = p1 - p0;
        let moved = tri.iter().map(|&i| (dp - (x[i as usize] - x_prev[i as usize])).length()).fold(0.0f32, f32::max);
        if dist > d + moved + self.margin {
            return;
        }
        let side = if self.two_sided[tb] {
            let [a0, b0, c0] = tri.map(|i| x_prev[i as usize]);
            let (bary0, _) = closest_point(p0, a0, b0, c0);
            let n0 = (b0 - a0).cross(c0 - a0);
            let s = n0.dot(p0 - point(bary0, a0, b0, c0));
            if s != 0.0 {
                s.signum()
            } else {
                let s = (b - a).cross(c - a).dot(p1 - point(bary, a, b, c));
                if s < 0.0 {
                    -1.0
                } else {
                    1.0
                }
            }
        } else {
            1.0
        };
        let (fa, fb) = (self.friction[vb], self.friction[tb]);
        let mut contact = Contact {
            vertex: v,
            triangle: t,
            edge: false,
            normal: Vec3::ZERO,
            side,
            distance: d,
            friction: [0.5 * (fa[0] + fb[0]), 0.5 * (fa[1] + fb[1])],
            push: 0.0,
            overlap: 0.0,
        };
        if let Some((_, _, value)) = self.evaluate(&contact, p0, tri.map(|i| x_prev[i as usize])) {
            hold_start(&mut contact, value);
        }
        out.push(contact);
    }

    /// The contact's current direction, closest-point weights and constraint value.
    #[inline]
    fn evaluate(&self, c: &Contact, p: Vec3, t: [Vec3; 3]) -> Option<(Vec3, Vec3, f32)> {
        let [a, b, cc] = t;
        let (bary, inside) = closest_point(p, a, b, cc);
        let q = point(bary, a, b, cc);
        let face = (b - a).cross(cc - a).normalize_or_zero() * c.side;
        let delta = p - q;
        let len = delta.length();
        // On an edge or corner the constraint is the distance to it, and only on the
        // vertex's side: behind the plane, the neighbouring triangle, whose face the
        // vertex is over, is the one to push it (this one would push it sideways).
        let n = if inside {
            face
        } else if face.dot(delta) >= 0.0 && len > 1e-12 {
            delta / len
        } else {
            return None;
        };
        if n == Vec3::ZERO {
            return None;
        }
        Some((n, bary, n.dot(delta) - c.distance))
    }

    /// Projects the first `count` contacts of `contacts` once, in list order.
    ///
    /// # Safety
    /// No other thread may touch `x` or `contacts` meanwhile (the solver calls this on the team's
    /// leader between barriers).
    pub unsafe fn project(&self, contacts: Shared<Contact>, count: usize, x: Shared<DVec3>, w: &[f32]) {
        for k in 0..count {
            // SAFETY: exclusive per the contract; `count` is the list's length.
            let c = unsafe { contacts.get(k) };
            // SAFETY: forwarded contract.
            c.push += unsafe { self.correct(c, x, w, f32::INFINITY) };
        }
    }

    /// Moves every pair of `contacts` that started its substep overlapping (`overlap >
    /// 0`) apart by at most `max_step` towards its full thickness, in list order: the
    /// position-only resolution of an existing overlap, run after the velocity update so
    /// that it adds no velocity (see `Settings::max_depenetration_velocity`).
    pub fn depenetrate(&self, contacts: &[Contact], x: &mut [DVec3], w: &[f32], max_step: f32) {
        let x = Shared::new(x);
        for c in contacts.iter().filter(|c| c.overlap > 0.0) {
            let full = Contact { distance: c.distance + c.overlap, ..*c };
            // SAFETY: `x` is borrowed mutably for this loop, which runs on one thread.
            unsafe { self.correct(&full, x, w, max_step) };
        }
    }

    /// Pushes contact `c`'s vertices apart along its normal until its constraint holds,
    /// by at most `cap` (distance); returns the multiplier applied (mass × distance).
    ///
    /// # Safety
    /// No other thread may touch `x` meanwhile.
    #[inline]
    unsafe fn correct(&self, c: &Contact, x: Shared<DVec3>, w: &[f32], cap: f32) -> f32 {
        // SAFETY (both reads): exclusive per the contract.
        let at = |i: u32| unsafe { *x.get(i as usize) };
        if c.edge {
            let ids = self.edge_vertices(c);
            let p = relative(ids.map(at));
            let Some((n, s, t, value)) = Self::evaluate_edge(c, p) else { return 0.0 };
            if value >= 0.0 {
                return 0.0;
            }
            let coef = [1.0 - s, s, t - 1.0, -t];
            let wi = ids.map(|i| w[i as usize]);
            let denom: f32 = (0..4).map(|j| coef[j] * coef[j] * wi[j]).sum();
            if denom <= f32::EPSILON {
                return 0.0;
            }
            let dl = (-value).min(cap) / denom;
            for j in 0..4 {
                // SAFETY: exclusive per the contract.
                unsafe { *x.get(ids[j] as usize) += (n * (wi[j] * coef[j] * dl)).as_dvec3() };
            }
            return dl;
        }
        let tri = self.triangles[c.triangle as usize];
        let vi = c.vertex as usize;
        let [p, t0, t1, t2] = relative([c.vertex, tri[0], tri[1], tri[2]].map(at));
        let Some((n, bary, value)) = self.evaluate(c, p, [t0, t1, t2]) else { return 0.0 };
        if value >= 0.0 {
            return 0.0;
        }
        let wt = [w[tri[0] as usize], w[tri[1] as usize], w[tri[2] as usize]];
        let denom = w[vi] + bary.x * bary.x * wt[0] + bary.y * bary.y * wt[1] + bary.z * bary.z * wt[2];
        if denom <= f32::EPSILON {
            return 0.0;
        }
        let dl = (-value).min(cap) / denom;
        // SAFETY: exclusive per the contract.
        unsafe {
            *x.get(vi) += (n * (w[vi] * dl)).as_dvec3();
            for k in 0..3 {
                *x.get(tri[k] as usize) -= (n * (wt[k] * bary[k] * dl)).as_dvec3();
            }
        }
        dl
    }

    /// Coulomb friction on the substep's relative tangential motion of every contact
    /// that pushed.
    pub fn apply_friction(&self, contacts: &[Contact], x: &mut [DVec3], x_prev: &[DVec3], w: &[f32]) {
        let moved = |x: &[DVec3], i: u32| (x[i as usize] - x_prev[i as usize]).as_vec3();
        for c in contacts {
            if c.push <= 0.0 {
                continue;
            }
            if c.edge {
                let ids = self.edge_vertices(c);
                let Some((n, s, t, _)) = Self::evaluate_edge(c, relative(ids.map(|i| x[i as usize]))) else { continue };
                let coef = [1.0 - s, s, t - 1.0, -t];
                let rel: Vec3 = (0..4).map(|j| moved(x, ids[j]) * coef[j]).sum();
                let tangential = rel - n * n.dot(rel);
                let slip = tangential.length();
                if slip < 1e-12 {
                    continue;
                }
                let wi = ids.map(|i| w[i as usize]);
                let denom: f32 = (0..4).map(|j| coef[j] * coef[j] * wi[j]).sum();
                if denom <= f32::EPSILON {
                    continue;
                }
                let remove = coulomb(c, slip, denom);
                let dl = tangential * (remove / denom);
                for j in 0..4 {
                    x[ids[j] as usize] -= (dl * (wi[j] * coef[j])).as_dvec3();
                }
                continue;
            }
            let tri = self.triangles[c.triangle as usize];
            let vi = c.vertex as usize;
            let [p, t0, t1, t2] = relative([c.vertex, tri[0], tri[1], tri[2]].map(|i| x[i as usize]));
            let Some((n, bary, _)) = self.evaluate(c, p, [t0, t1, t2]) else { continue };
            let [m0, m1, m2] = tri.map(|i| moved(x, i));
            let rel = moved(x, c.vertex) - point(bary, m0, m1, m2);
            let tangential = rel - n * n.dot(rel);
            let slip = tangential.length();
            if slip < 1e-12 {
                continue;
            }
            let wt = [w[tri[0] as usize], w[tri[1] as usize], w[tri[2] as usize]];
            let denom = w[vi] + bary.x * bary.x * wt[0] + bary.y * bary.y * wt[1] + bary.z * bary.z * wt[2];
            if denom <= f32::EPSILON {
                continue;
            }
            let remove = coulomb(c, slip, denom);
            // Solve for the correction that cancels `remove` of the relative slip.
            let dl = tangential * (remove / denom);
            x[vi] -= (dl * w[vi]).as_dvec3();
            for k in 0..3 {
                x[tri[k] as usize] += (dl * (wt[k] * bary[k])).as_dvec3();
            }
        }
    }
}

/// A contact whose constraint value at the start of the substep, `start`, is negative
/// started overlapping: the iterations keep it from sinking deeper (its distance drops to
/// the start's) rather than resolving it, which would turn the overlap into velocity.
fn hold_start(c: &mut Contact, start: f32) {
    if start < 0.0 {
        c.overlap = -start;
        c.distance += start;
    }
}

/// The fraction of a contact's tangential slip that friction removes (Coulomb, as in
/// Macklin et al. 2014, "Unified Particle Physics for Real-Time Applications", §6.1).
/// `c.push` accumulates the normal multipliers `Δλ = −C / Σ wᵢ‖∇ᵢC‖²` (mass × distance);
/// cancelling a slip `s` takes a tangential multiplier `s / denom` with the same
/// generalised inverse mass `denom`, so the two compare as `s / denom ≤ μ_s · push`.
/// (Comparing the slip with `μ · push` directly mixed distance with mass × distance and,
/// for light vertices, left friction almost nothing to work with: a stack of jelly cubes
/// slid off itself.)
fn coulomb(c: &Contact, slip: f32, denom: f32) -> f32 {
    let [mu_s, mu_d] = c.friction;
    let normal = c.push * denom; // the normal correction as a distance
    if slip <= mu_s * normal {
        1.0
    } else {
        (mu_d * normal / slip).min(1.0)
    }
}

/// The contact radius of a body's pairs with itself: its `radius`, but no more than
/// [`SELF_THICKNESS_PER_ALTITUDE`] / 2 of its small triangle altitude (`altitudes`, in
/// any order; the one [`SMALL_ALTITUDE_RANK`] up the sorted non-degenerate ones).
///
/// At rest a vertex lies an altitude or more from every triangle across its neighbours.
/// A self-contact thickness near that makes those neighbours contacts at rest (on the
/// 128² bench cloth, 7.9 mm edges against a 5 mm thickness: every substep pushed
/// neighbours apart, the motion changed and the frame took 30 times as long), so a mesh
/// finer than its thickness keeps half its altitude instead, as cloth tools scale
/// their default self-collision thickness with the edge length. Coarser meshes keep
/// their radius.
fn self_radius(radius: f32, altitudes: &[f32]) -> f32 {
    let mut sizes: Vec<f32> = altitudes.iter().copied().filter(|&h| h > 0.0).collect();
    if sizes.is_empty() {
        return radius;
    }
    sizes.sort_unstable_by(f32::total_cmp);
    let small = sizes[((sizes.len() - 1) as f32 * SMALL_ALTITUDE_RANK) as usize];
    radius.min(0.5 * SELF_THICKNESS_PER_ALTITUDE * small)
}

/// The pose in which body `b` (of `len` vertices) filters its self contact, and the
/// distance under which two of its parts never collide with each other: the schema's
/// `selfCollisionFilterPose` ("overlapping domains of the mesh in this pose are excluded
/// from self collision"; without one, "the default mesh points are used"), and PhysX's
/// `selfCollisionFilterDistance` or else the pair's thickness plus the search margin.
/// `None` when the body does not collide with itself.
fn filter_pose<'a>(s: &Surfaces, body: &'a Body, b: usize, len: usize) -> Option<(&'a [Vec3], f32)> {
    if !s.self_contact[b] {
        return None;
    }
    let authored = &body.self_collision_filter_pose;
    let pose = if authored.len() == len { authored } else { &body.positions };
    let d = body.self_collision_filter_distance.unwrap_or(s.thickness(b, b) + s.margin);
    (pose.len() == len).then_some((&pose[..], d))
}

/// Vertex–triangle pairs of a body closer than its filter distance in its self-collision
/// filter pose ([`filter_pose`]): they never self-collide.
fn pose_exemptions(s: &Surfaces, scene: &Scene, ranges: &[Range<usize>]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for (b, body) in scene.bodies.iter().enumerate() {
        let Some((pose, d)) = filter_pose(s, body, b, ranges[b].len()) else { continue };
        let base = ranges[b].start as u32;
        let tris: Vec<u32> = (0..s.triangles.len() as u32).filter(|&t| s.tri_body[t as usize] == b as u32).collect();
        let at = |i: u32| pose[(i - base) as usize];
        let boxes: Vec<(Vec3, Vec3)> = tris
            .iter()
            .map(|&t| {
                let [a, bb, c] = s.triangles[t as usize].map(at);
                (a.min(bb).min(c) - Vec3::splat(d), a.max(bb).max(c) + Vec3::splat(d))
            })
            .collect();
        let mut hash = SpatialHash::default();
        hash.build(s.cell, &boxes);
        for &v in s.vertices.iter().filter(|&&v| s.vertex_body[v as usize] == b as u32) {
            let p = at(v);
            let mut cands = Vec::new();
            hash.query(p, p, |k| cands.push(k));
            cands.sort_unstable();
            cands.dedup();
            for k in cands {
                let t = tris[k as usize];
                let tri = s.triangles[t as usize];
                if tri.contains(&v) {
                    continue;
                }
                let [a, bb, c] = tri.map(at);
                let (bary, _) = closest_point(p, a, bb, c);
                if p.distance(point(bary, a, bb, c)) <= d {
                    out.push((v, t));
                }
            }
        }
    }
    out.sort_unstable();
    out
}

/// Edge pairs of a body closer than its filter distance in its self-collision filter pose
/// (as [`pose_exemptions`] for vertex–triangle pairs), sorted.
fn edge_pose_exemptions(s: &Surfaces, scene: &Scene, ranges: &[Range<usize>]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for (b, body) in scene.bodies.iter().enumerate() {
        let Some((pose, d)) = filter_pose(s, body, b, ranges[b].len()) else { continue };
        let base = ranges[b].start as u32;
        let edges: Vec<u32> = (0..s.edges.len() as u32).filter(|&e| s.edge_body[e as usize] == b as u32).collect();
        let at = |i: u32| pose[(i - base) as usize];
        let boxes: Vec<(Vec3, Vec3)> = edges
            .iter()
            .map(|&e| {
                let [p, q] = s.edges[e as usize].map(at);
                (p.min(q) - Vec3::splat(d), p.max(q) + Vec3::splat(d))
            })
            .collect();
        let mut hash = SpatialHash::default();
        hash.build(s.cell, &boxes);
        let mut cands = Vec::new();
        for (k, &e) in edges.iter().enumerate() {
            let ab = s.edges[e as usize];
            cands.clear();
            hash.query(boxes[k].0, boxes[k].1, |j| cands.push(j));
            cands.sort_unstable();
            cands.dedup();
            for &j in &cands {
                let f = edges[j as usize];
                let cd = s.edges[f as usize];
                if f <= e || ab.iter().any(|v| cd.contains(v)) {
                    continue;
                }
                let [p0, p1] = ab.map(at);
                let [q0, q1] = cd.map(at);
                let (u, v) = closest_segment_params(p0, p1, q0, q1);
                if p0.lerp(p1, u).distance(q0.lerp(q1, v)) <= d {
                    out.push((e, f));
                }
            }
        }
    }
    out.sort_unstable();
    out
}

/// Runs `find(k, scratch, found)` for every `k` in `0..count` on the thread pool, in fixed
/// chunks of 256, and appends what each chunk found to `out` in chunk order: the contact
/// list is the same for any number of threads, which keeps the projection deterministic.
fn collect_in_order<T: Copy + Send, F>(count: usize, out: &mut Vec<T>, find: F)
where
    F: Fn(usize, &mut Vec<u32>, &mut Vec<T>) + Sync,
{
    const CHUNK: usize = 256;
    let found: Vec<Vec<T>> = (0..count.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let (mut candidates, mut local) = (Vec::new(), Vec::new());
            for k in c * CHUNK..((c + 1) * CHUNK).min(count) {
                find(k, &mut candidates, &mut local);
            }
            local
        })
        .collect();
    for f in found {
        out.extend_from_slice(&f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn who_collides_with_itself() {
        let body = |kind, asks| Body {
            self_collision: asks,
            ..Body::new("/b", kind, Vec::new(), crate::scene::Material::elastic(1e5, 0.3, 200.0))
        };
        let (surface, volume) = (BodyKind::Surface, BodyKind::Volume);
        let wanted = |surfaces, volumes, kind, asks| SelfContact { surfaces, volumes }.wanted(&body(kind, asks));
        // By default, the asset decides, for either kind.
        assert!(wanted(None, false, surface, true) && !wanted(None, false, surface, false));
        assert!(wanted(None, false, volume, true) && !wanted(None, false, volume, false));
        // Every cloth: volumes still as asked, or all of them with `volumes`.
        assert!(wanted(Some(true), false, surface, false));
        assert!(!wanted(Some(true), false, volume, false) && wanted(Some(true), true, volume, false));
        // None at all, whatever is asked.
        assert!(!wanted(Some(false), true, surface, true) && !wanted(Some(false), true, volume, true));
    }

    #[test]
    fn self_radius_is_capped_by_a_small_altitude_not_by_slivers() {
        // A coarse mesh keeps its radius; a fine one half its small altitude.
        assert_eq!(self_radius(0.002, &[0.02; 10]), 0.002);
        assert_eq!(self_radius(0.002, &[0.004; 10]), 0.5 * SELF_THICKNESS_PER_ALTITUDE * 0.004);
        // Two slivers in thirty (and a degenerate triangle, left out) do not set it: the
        // altitude a tenth of the way up the sorted list does (index 2 of 30).
        let mut altitudes = vec![0.004; 27];
        altitudes.extend([1e-5, 0.0, 0.003, 1e-5]);
        assert_eq!(self_radius(0.01, &altitudes), 0.5 * SELF_THICKNESS_PER_ALTITUDE * 0.003);
        // Nothing to measure: the radius.
        assert_eq!(self_radius(0.002, &[0.0, 0.0]), 0.002);
    }

    #[test]
    fn closest_point_regions() {
        let (a, b, c) = (Vec3::ZERO, Vec3::X, Vec3::Y);
        let (w, inside) = closest_point(Vec3::new(0.2, 0.2, 1.0), a, b, c);
        assert!(inside && (w - Vec3::new(0.6, 0.2, 0.2)).length() < 1e-6);
        let (w, inside) = closest_point(Vec3::new(-1.0, -1.0, 0.0), a, b, c);
        assert!(!inside && w == Vec3::X);
        let (w, inside) = closest_point(Vec3::new(0.5, -1.0, 0.3), a, b, c);
        assert!(!inside && (w - Vec3::new(0.5, 0.5, 0.0)).length() < 1e-6);
    }

    #[test]
    fn closest_segment_points() {
        let (s, t) = closest_segment_params(Vec3::ZERO, Vec3::X, Vec3::new(0.3, -1.0, 0.5), Vec3::new(0.3, 1.0, 0.5));
        assert!((s - 0.3).abs() < 1e-6 && (t - 0.5).abs() < 1e-6);
        let (s, t) = closest_segment_params(Vec3::ZERO, Vec3::X, Vec3::new(2.0, 0.0, 1.0), Vec3::new(3.0, 0.0, 1.0));
        assert!(s == 1.0 && t == 0.0);
        // Parallel segments.
        let (s, t) = closest_segment_params(Vec3::ZERO, Vec3::X, Vec3::new(0.5, 1.0, 0.0), Vec3::new(1.5, 1.0, 0.0));
        assert!(((Vec3::X * s - Vec3::new(0.5 + t, 1.0, 0.0)).length() - 1.0).abs() < 1e-6);
    }

    #[test]
    fn boundary_of_two_tets_is_six_outward_faces() {
        let points = vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z, Vec3::new(1.0, 1.0, 1.0)];
        let mut body = Body::new(
            "b",
            BodyKind::Volume,
            points.clone(),
            crate::Material {
                youngs_modulus: 1.0,
                poissons_ratio: 0.3,
                density: 1.0,
                thickness: 0.0,
                stretch_stiffness: 0.0,
                shear_stiffness: 0.0,
                bend_stiffness: 0.0,
                dynamic_friction: 0.0,
                static_friction: 0.0,
                damping: 0.0,
                bend_damping: 0.0,
            },
        );
        body.tets = vec![[0, 1, 2, 3], [1, 2, 3, 4]];
        let faces = surface_triangles(&body);
        assert_eq!(faces.len(), 6);
        let centre = points.iter().copied().sum::<Vec3>() / 5.0;
        for f in faces {
            let [a, b, c] = f.map(|i| points[i as usize]);
            assert!((b - a).cross(c - a).dot(a - centre) > 0.0, "face {f:?} faces inwards");
        }
    }
}
