//! Candidate pairs of the deformable contact search, kept over several substeps: a
//! Verlet list (Verlet 1967, "Computer experiments on classical fluids") whose skin is
//! checked against a prediction of the motion, so that the hierarchy
//! ([`super::cone_tree`]) is refitted and searched once every few substeps instead of
//! every substep.
//!
//! **What a list must hold.** A substep keeps the pair (vertex `p`, triangle with
//! vertices `k`), or two edges, when its distance at the predicted positions is within
//! `d + margin + m`, `m` the pair's relative substep motion
//! ([`Surfaces::vertex_contact`], [`Surfaces::edge_contact`]). The distance between a
//! point and a triangle (or two segments) changes by at most the largest relative
//! displacement `|uₚ − uₖ|` of their vertices.
//!
//! **The prediction.** A list is built at the start of a substep, `B = x_prev`. Each vertex
//! gets a path of constant acceleration ([`Path`]): velocity `v` and acceleration `a` from
//! the last three substep starts, and the substep's inertial step `δ = x − x_prev`. Every
//! later substep checks, for both its start and its predicted positions, that every vertex
//! is within half the skin `s` of its path. The list is rebuilt when its window (up to
//! [`WINDOW`] substeps, shorter after a list that did not last: [`MIN_WINDOW`]) has
//! passed or when more than [`REPAIR_STRAYS`] vertices are not; a few strays are
//! *repaired* instead ([`Surfaces::repair`]): they get paths through the current
//! substep, and only the pairs around them are searched again (on the 64² bench cloth,
//! 48 frames: 347 builds instead of 399, most strays being one to eight vertices at a
//! crease).
//!
//! **The bound.** Within a window of `N + 1` substeps, write `Δv`, `Δδ` and `Δa` for
//! the largest differences between the pair's vertices. A pair's predicted relative
//! displacement from `B` is then at most `N·Δv + (N(N + 1)/2 + N)·Δa + Δδ`, and the actual one
//! at most that plus `s`. Its relative substep motion is at most `Δδ + N·Δa + 2s`. So a pair
//! whose distance at `B` exceeds `d + margin` plus `N·Δv + 2Δδ + (N(N + 1)/2 + 2N)·Δa + 3s`
//! cannot be kept by any substep of the window, and the list holds every other pair. The
//! bound counts *relative* motion, so a cloth that swings or falls smoothly has no
//! candidates beyond its real close pairs. The hierarchy that finds them is refitted to
//! each vertex's box along its path, grown by its share of the same bound; two boxes
//! apart means the pair stays out of reach. The boxes are taken in a frame that moves
//! with the surfaces' mean motion (their mean `v`, `δ` and `a`): a translating frame
//! changes no distance and no relative motion, and a falling or swinging cloth's boxes
//! then no longer stretch along its common motion, so fewer neighbours' boxes overlap
//! (on the 64² bench cloth, 48 frames: 0.70 M leaf pairs tested instead of 1.06 M). It
//! also skips smooth regions against themselves, whose pairs no substep of the window
//! can keep (see its documentation), so a list may lack pairs the bound alone would
//! keep, never a pair a substep keeps.
//!
//! **Same contacts.** Every substep applies to the listed pairs exactly the tests of a
//! search from scratch (swept boxes, reach, side), in the same (vertex, triangle) and
//! (edge, edge) order. The list is a superset of what the search would keep, so the
//! contacts, and the bake, are the same whenever the list was built; a resumed bake
//! (which starts with no list) stays byte-identical to an uninterrupted one.

use super::cone_tree::{boxes_overlap, Found, LeafPair, NONE};
use super::Surfaces;
use crate::constraint::lanes::{Vec3x8, LANES};
use crate::contact::filter_table::FilterTable;
use crate::mesh::closest::{closest_point, closest_segment_params, point};
use glam::Vec3;
use rayon::prelude::*;
use wide::f32x8;

/// Substeps one list may serve at most. A longer window grows the bound, and with it the
/// list and the boxes the build searches; it also grows the motion the cone test must
/// beat (`cone_tree`), so fewer smooth regions are skipped. 4 (with a skin of half a
/// margin) took the fewest instructions on the 64² bench cloth, of windows 2-8 and skins
/// of 0.25-1 margin (docs/performance.md, eleventh step).
pub(super) const WINDOW: u32 = 4;

/// Substeps a list serves at least. A list that had to be rebuilt after serving `k`
/// substeps (its vertices left their paths) is followed by one of `k + 1`, no fewer
/// than this: where motion is jerky lists are rebuilt that soon anyway, and a shorter
/// window is searched with a tighter bound. A list that lasts its window is followed
/// by one of [`WINDOW`] (on the 64² bench cloth, 48 frames: 7.250 G instructions in the
/// frames with fixed windows of 4, 7.098 G with windows of 2-4, 7.114 G with 2-8 and
/// 7.270 G with 4-8; docs/performance.md, seventeenth step).
const MIN_WINDOW: u32 = 2;

/// Vertices off their paths that a list repairs instead of being rebuilt (more: a
/// build). A repair re-tests every triangle around them by boxes alone.
const REPAIR_STRAYS: usize = 8;

/// The skin `s`, in contact margins: how far a vertex may stray from its predicted path
/// before the list is rebuilt. Three skins are part of what the cone test must beat.
const SKIN_MARGINS: f32 = 0.5;

/// One vertex's predicted motion from the build: constant acceleration. Laid out as
/// twelve f32 in field order, which the lane gather ([`path_lanes`]) reads directly.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub(super) struct Path {
    /// Start of the substep of the build, `B`.
    pub(super) base: Vec3,
    /// Displacement of the substep before it (its velocity × dt), `v`.
    pub(super) velocity: Vec3,
    /// Inertial step of the build's substep (predicted minus start), `δ`.
    pub(super) step: Vec3,
    /// Second difference of the last three substep starts, `a`.
    pub(super) acceleration: Vec3,
}

impl Path {
    /// The path of a vertex that starts this substep at `base` and is predicted to end it
    /// at `end`, having started the last two at `h1` and `h2` (of which `known` are
    /// remembered: with two, constant acceleration; with one, constant velocity; with
    /// none, the inertial step as the velocity).
    fn through(base: Vec3, end: Vec3, h1: Vec3, h2: Vec3, known: usize) -> Path {
        let step = end - base;
        let velocity = if known >= 1 { base - h1 } else { step };
        let acceleration = if known >= 2 { velocity - (h1 - h2) } else { Vec3::ZERO };
        Path { base, velocity, step, acceleration }
    }

    /// Predicted start of the `n`-th substep after the build:
    /// `B + n·v + n(n + 1)/2·a` (exact for constant acceleration). The reference form of
    /// what the lanes compute ([`strays_of`], the vertex boxes, the leaf bounds).
    #[cfg(test)]
    fn start(&self, n: f32) -> Vec3 {
        self.base + self.velocity * n + self.acceleration * (0.5 * n * (n + 1.0))
    }

    /// The mean motion of vertices `of` (from a base at the origin): a frame moving with
    /// the surfaces, in which the boxes are taken (see [`Surfaces::refresh_candidates`]).
    /// Summed in order, so that the lists do not depend on the thread count.
    fn mean(paths: &[Path], of: &[u32]) -> Path {
        if of.is_empty() {
            return Path::default();
        }
        let mut sum = Path::default();
        for &i in of {
            let p = &paths[i as usize];
            sum.velocity += p.velocity;
            sum.step += p.step;
            sum.acceleration += p.acceleration;
        }
        let k = 1.0 / of.len() as f32;
        Path { base: Vec3::ZERO, velocity: sum.velocity * k, step: sum.step * k, acceleration: sum.acceleration * k }
    }

    /// The path through `now` (a path started `k` substeps after the build: start,
    /// velocity, step and acceleration of that substep), written from the build's time
    /// origin: its `start(k)` is `now.base` and its `end(k)` is `now.base + now.step`, so
    /// that the window's bound and boxes apply to it unchanged from substep `k` on.
    fn from_substep(k: f32, now: Path) -> Path {
        let a = now.acceleration;
        let velocity = now.velocity - a * k;
        Path {
            base: now.base - velocity * k - a * (0.5 * k * (k + 1.0)),
            velocity,
            step: now.step - a * k,
            acceleration: a,
        }
    }

    /// Predicted end (before the constraints) of that substep: its start plus the build's
    /// inertial step, advanced by the acceleration.
    #[cfg(test)]
    pub(super) fn end(&self, n: f32) -> Vec3 {
        self.start(n) + self.step + self.acceleration * n
    }

    /// Whether a vertex that starts substep `n` at `start` and is predicted to end it at
    /// `end` is within `half` (half the skin) of this path at both (the lists' check,
    /// which runs it in lanes: [`strays_of`]). Written so that a NaN anywhere fails it.
    #[cfg(test)]
    fn holds(&self, n: f32, start: Vec3, end: Vec3, half: f32) -> bool {
        (start - self.start(n)).length() <= half && (end - self.end(n)).length() <= half
    }
}

/// What the per-substep check found: the lists hold, a few vertices strayed (a repair
/// keeps them), or they must be built again (no list, the window is over, or more
/// strays than a repair takes).
enum Check {
    Holds,
    Strays(Vec<u32>),
    Rebuild,
}

/// `Path::holds` (the scalar form, kept for the tests) for vertices `idx` in lanes: bit
/// `l` is set when vertex `idx[l]`, starting substep `n` at `x_prev` and predicted to end
/// it at `x`, is farther than `half` from its path at either (or anything is NaN). The
/// same operations in the same order as the scalar form, so the same bits decide.
#[inline(always)]
fn strays_of(paths: &[Path], idx: [u32; LANES], n: f32, x_prev: &[Vec3], x: &[Vec3], half: f32) -> u32 {
    let rows = path_lanes(paths, idx);
    let row = |f: usize| Vec3x8 { x: rows[f], y: rows[f + 1], z: rows[f + 2] };
    let (acceleration, nn) = (row(9), f32x8::splat(n));
    let start = row(0) + row(3) * nn + acceleration * f32x8::splat(0.5 * n * (n + 1.0));
    let end = start + row(6) + acceleration * nn;
    let half = f32x8::splat(half);
    let near = |d: Vec3x8| d.length_squared().sqrt().simd_le(half);
    let holds = near(Vec3x8::gather_slice(x_prev, &idx) - start) & near(Vec3x8::gather_slice(x, &idx) - end);
    !holds.to_bitmask() & 0xFF
}

/// Fields of a vertex's [`Path`] that the vertex boxes and the leaf bounds gather: base,
/// velocity, step and acceleration, x, y and z each.
const FLAT: usize = 12;

const _: () = assert!(std::mem::size_of::<Path>() == FLAT * 4);

/// The paths of vertices `idx`, one field a row of lanes (row `3k + d` is axis `d` of
/// the path's `k`-th field, lane `l` vertex `idx[l]`): the gather of the vertex boxes
/// and of the leaf bounds.
///
/// With AVX each path is two loads (its first eight floats and its last four) and the
/// rows come out of an in-register transpose; the portable form writes each float into
/// a lane array. Both move the same floats, so the boxes and bounds are the same bits.
#[inline(always)]
pub(super) fn path_lanes(paths: &[Path], idx: [u32; LANES]) -> [f32x8; FLAT] {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx"))]
    {
        use std::arch::x86_64::*;
        let at = |l: usize| &paths[idx[l] as usize] as *const Path as *const f32;
        // SAFETY: AVX is enabled at compile time (this block's cfg); every pointer is a
        // whole `Path`, twelve f32 in order (`repr(C)`, asserted above), so the eight
        // floats from its start and the four from its ninth are inside it.
        unsafe {
            let r: [__m256; 8] = std::array::from_fn(|l| _mm256_loadu_ps(at(l)));
            // Rows (0, 1), (2, 3), (4, 5) and (6, 7) interleaved, low and high pairs.
            let t: [__m256; 8] = std::array::from_fn(|k| {
                let (a, b) = (r[2 * (k / 2)], r[2 * (k / 2) + 1]);
                if k % 2 == 0 {
                    _mm256_unpacklo_ps(a, b)
                } else {
                    _mm256_unpackhi_ps(a, b)
                }
            });
            // Fields (0, 4), (1, 5), (2, 6), (3, 7) of rows 0-3 in u[0..4], of rows 4-7 in
            // u[4..8], one field a 128-bit half.
            let q = |a: __m256, b: __m256, hi: bool| {
                if hi {
                    _mm256_shuffle_ps::<0xEE>(a, b)
                } else {
                    _mm256_shuffle_ps::<0x44>(a, b)
                }
            };
            let u = [
                q(t[0], t[2], false),
                q(t[0], t[2], true),
                q(t[1], t[3], false),
                q(t[1], t[3], true),
                q(t[4], t[6], false),
                q(t[4], t[6], true),
                q(t[5], t[7], false),
                q(t[5], t[7], true),
            ];
            let s: [__m128; 8] = std::array::from_fn(|l| _mm_loadu_ps(at(l).add(8)));
            let w: [__m256; 4] = std::array::from_fn(|k| _mm256_set_m128(s[k + 4], s[k]));
            let (a0, a1) = (_mm256_unpacklo_ps(w[0], w[1]), _mm256_unpackhi_ps(w[0], w[1]));
            let (a2, a3) = (_mm256_unpacklo_ps(w[2], w[3]), _mm256_unpackhi_ps(w[2], w[3]));
            let rows: [__m256; FLAT] = [
                _mm256_permute2f128_ps::<0x20>(u[0], u[4]),
                _mm256_permute2f128_ps::<0x20>(u[1], u[5]),
                _mm256_permute2f128_ps::<0x20>(u[2], u[6]),
                _mm256_permute2f128_ps::<0x20>(u[3], u[7]),
                _mm256_permute2f128_ps::<0x31>(u[0], u[4]),
                _mm256_permute2f128_ps::<0x31>(u[1], u[5]),
                _mm256_permute2f128_ps::<0x31>(u[2], u[6]),
                _mm256_permute2f128_ps::<0x31>(u[3], u[7]),
                q(a0, a2, false),
                q(a0, a2, true),
                q(a1, a3, false),
                q(a1, a3, true),
            ];
            // SAFETY: f32x8 is 32 bytes holding the eight lanes in order, as __m256 is.
            rows.map(|v| std::mem::transmute::<__m256, f32x8>(v))
        }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx")))]
    path_lanes_portable(paths, idx)
}

/// [`path_lanes`] without AVX: each float written into a lane array. Compiled for the
/// tests too, which compare the two forms.
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "avx"))))]
pub(super) fn path_lanes_portable(paths: &[Path], idx: [u32; LANES]) -> [f32x8; FLAT] {
    let mut fields = [[0.0f32; LANES]; FLAT];
    for (l, &i) in idx.iter().enumerate() {
        let p = &paths[i as usize];
        for (k, v) in [&p.base, &p.velocity, &p.step, &p.acceleration].into_iter().enumerate() {
            fields[3 * k][l] = v.x;
            fields[3 * k + 1][l] = v.y;
            fields[3 * k + 2][l] = v.z;
        }
    }
    fields.map(f32x8::from)
}

/// Lane-wise minimum that, like glam's, takes the second operand when either is NaN
/// (`wide`'s `min` skips NaN): the boxes' minima are those of the scalar form's.
fn fast_min(a: Vec3x8, b: Vec3x8) -> Vec3x8 {
    Vec3x8 { x: a.x.fast_min(b.x), y: a.y.fast_min(b.y), z: a.z.fast_min(b.z) }
}

/// Lane-wise maximum, as [`fast_min`].
fn fast_max(a: Vec3x8, b: Vec3x8) -> Vec3x8 {
    Vec3x8 { x: a.x.fast_max(b.x), y: a.y.fast_max(b.y), z: a.z.fast_max(b.z) }
}

/// The pairs a substep tests, and what they were built from.
#[derive(Clone, Debug, Default)]
pub(super) struct Candidates {
    /// (vertex, triangle) pairs, in vertex order and ascending triangles.
    pub(super) vertex_triangle: Vec<(u32, u32)>,
    /// (edge, edge) pairs, first edge lower, in ascending order.
    pub(super) edge_edge: Vec<(u32, u32)>,
    /// Every vertex's predicted path since the build.
    paths: Vec<Path>,
    /// Substeps served since the build (0: no list).
    served: u32,
    /// Substeps this list may serve (its window, [`MIN_WINDOW`] to [`WINDOW`]).
    window: u32,
    /// Lists built so far (for tests and profiling).
    pub(super) builds: u64,
    /// Starts of the last two substeps (`[y₋₁, y₋₂]`) and how many of them are known.
    history: [Vec<Vec3>; 2],
    known: usize,
    /// What the last [`Candidates::remember`] replaced (the start it dropped and the
    /// count it found), so that [`Candidates::forget_substep`] can put it back.
    dropped: Vec<Vec3>,
    known_before: usize,
    /// Scratch: each vertex's box along its path, grown by its share of the reach and
    /// by its radius.
    boxes: Vec<(Vec3, Vec3)>,
    /// The frame of the boxes (the colliding vertices' mean path at the build).
    frame: Path,
    /// Triangles around the vertices repaired since the build (their refitted boxes are
    /// stale), sorted.
    repaired: Vec<u32>,
    /// Repairs so far (for tests and profiling).
    pub(super) repairs: u64,
}

impl Candidates {
    /// Whether the lists still hold every pair this substep can keep (see the module
    /// documentation): built, inside the window, and every colliding vertex within half
    /// the skin of its predicted start and end; or which few vertices are not (at most
    /// [`REPAIR_STRAYS`], for a repair).
    fn check(&self, vertices: &[u32], x: &[Vec3], x_prev: &[Vec3], skin: f32) -> Check {
        // Lists built for these vertices, their window with substeps left: what keeping
        // them and repairing them both need.
        if !(self.served > 0 && self.served < self.window && self.paths.len() == x.len()) {
            return Check::Rebuild;
        }
        let (n, half) = (self.served as f32, 0.5 * skin);
        let paths = &self.paths;
        // Chunks in parallel, eight vertices a batch in lanes; each chunk stops at more
        // strays than a repair takes, and the chunks' strays join in vertex order (an
        // ordered reduction: nothing is allocated while no vertex strays).
        let strays = vertices
            .par_chunks(1024)
            .map(|chunk| {
                let mut strays = Vec::new();
                for batch in chunk.chunks(LANES) {
                    let idx = std::array::from_fn(|l| batch[l.min(batch.len() - 1)]);
                    let off = strays_of(paths, idx, n, x_prev, x, half) & ((1u32 << batch.len()) - 1);
                    strays.extend((0..batch.len()).filter(|&l| off & (1 << l) != 0).map(|l| batch[l]));
                    if strays.len() > REPAIR_STRAYS {
                        break;
                    }
                }
                strays
            })
            .reduce(Vec::new, |mut a, mut b| {
                a.append(&mut b);
                a
            });
        match strays.len() {
            0 => Check::Holds,
            k if k <= REPAIR_STRAYS => Check::Strays(strays),
            _ => Check::Rebuild,
        }
    }

    /// Remembers this substep's start for the next build's velocity and acceleration.
    fn remember(&mut self, x_prev: &[Vec3]) {
        self.known_before = self.known;
        if self.history[0].len() != x_prev.len() {
            self.known = 0;
        }
        // The oldest start goes to `dropped` (its buffer is reused for this one).
        std::mem::swap(&mut self.history[1], &mut self.dropped);
        self.history.swap(0, 1);
        self.history[0].clear();
        self.history[0].extend_from_slice(x_prev);
        self.known = (self.known + 1).min(2);
    }

    /// Undoes this substep's refresh, so that the lists can be refreshed again for the
    /// same substep with new predictions: the substep no longer counts as served and its
    /// start is no longer remembered. A list built in it is given up (the next refresh
    /// builds again); pairs a repair added stay, as a list may hold more than it must.
    pub(super) fn forget_substep(&mut self) {
        if self.served == 0 {
            return;
        }
        self.served -= 1;
        self.history.swap(0, 1);
        std::mem::swap(&mut self.history[1], &mut self.dropped);
        self.known = self.known_before;
    }

    /// Starts paths at this substep (`x_prev`, `x`) from the remembered starts: with two
    /// of them, constant acceleration; with one, constant velocity; with none, the
    /// inertial step as the velocity.
    fn start_paths(&mut self, x: &[Vec3], x_prev: &[Vec3]) {
        let known = self.known(x.len());
        let mut paths = std::mem::take(&mut self.paths);
        paths.clear();
        let [h1, h2] = &self.history;
        if known == 2 {
            // Zipped, without an index into four slices a vertex (the usual case).
            let starts = x_prev.iter().zip(x).zip(h1).zip(h2);
            paths.extend(starts.map(|(((&base, &end), &h1), &h2)| Path::through(base, end, h1, h2, known)));
        } else {
            paths.extend((0..x.len()).map(|i| self.current_path(i, x, x_prev, known)));
        }
        self.paths = paths;
    }

    /// How many remembered starts are this surface's (see [`Candidates::start_paths`]).
    fn known(&self, vertices: usize) -> usize {
        let [h1, h2] = &self.history;
        // Starts remembered for another vertex count (a new surface) are not this one's.
        match (h1.len() == vertices, h2.len() == vertices) {
            (false, _) => 0,
            (true, false) => self.known.min(1),
            (true, true) => self.known,
        }
    }

    /// Vertex `i`'s path from this substep (`x_prev`, `x`), `known` starts remembered.
    fn current_path(&self, i: usize, x: &[Vec3], x_prev: &[Vec3], known: usize) -> Path {
        let [h1, h2] = &self.history;
        let remembered = |h: &Vec<Vec3>, k: usize| if known >= k { h[i] } else { Vec3::ZERO };
        Path::through(x_prev[i], x[i], remembered(h1, 1), remembered(h2, 2), known)
    }

    /// Forgets the lists: the next substep builds new ones.
    #[cfg(test)]
    pub(super) fn invalidate(&mut self) {
        self.served = 0;
    }
}

impl Surfaces {
    /// Makes the candidate lists valid for this substep (`x` predicted, `x_prev` start
    /// positions), repairing or rebuilding them when [`Candidates::check`] says they may miss
    /// a pair.
    pub(super) fn refresh_candidates(&mut self, x: &[Vec3], x_prev: &[Vec3], filter: &FilterTable) {
        let skin = SKIN_MARGINS * self.margin;
        let kept = match self.candidates.check(&self.vertices, x, x_prev, skin) {
            Check::Holds => true,
            Check::Strays(strays) => {
                self.repair(x, x_prev, filter, skin, &strays);
                true
            }
            Check::Rebuild => false,
        };
        if kept {
            self.candidates.served += 1;
            self.candidates.remember(x_prev);
            return;
        }
        let mut c = std::mem::take(&mut self.candidates);
        // Rebuilt early after `k` substeps: a window of `k + 1`; else a full one.
        c.window = match c.served {
            k if k > 0 && k < c.window => (k + 1).clamp(MIN_WINDOW, WINDOW),
            _ => WINDOW,
        };
        c.start_paths(x, x_prev);
        c.remember(x_prev);
        c.frame = Path::mean(&c.paths, &self.vertices);
        self.all_vertex_boxes(&c.paths, &c.frame, skin, c.window, &mut c.boxes);
        let keep: Vec<f32> = self.self_radius.iter().map(|r| 2.0 * r + self.margin + 3.0 * skin).collect();
        let mut tree = std::mem::take(&mut self.tree);
        tree.refit(self, &c.paths, c.window, 0.5 * skin, &c.boxes, &keep);
        let found = tree
            .search(self, filter, &|out: &mut Found, pair: LeafPair| self.test_leaf_pair(&c, filter, skin, out, pair));
        self.tree = tree;
        c.vertex_triangle = found.vertex_triangle;
        c.edge_edge = found.edge_edge;
        c.repaired.clear();
        c.served = 1;
        c.builds += 1;
        self.candidates = c;
    }

    /// The boxes of vertices `idx` along their paths over the window, eight in lanes,
    /// in the frame moving along `frame`: each one's predicted starts and ends, grown by
    /// what the check lets it stray (half the skin), by its share of the pair's reach
    /// beyond the radii (half the margin and its part of the relative substep motion,
    /// `|δ| + (W − 1)·|a|` and `s`) and by its radius. Two boxes apart means the pair
    /// stays out of reach for the whole window. The frame moves with the surfaces' mean
    /// motion (the module documentation says why).
    fn vertex_boxes(
        &self,
        idx: [u32; LANES],
        paths: &[Path],
        frame: &Path,
        skin: f32,
        window: u32,
    ) -> [(Vec3, Vec3); LANES] {
        let (last, slack) = ((window - 1) as f32, 1.5 * skin + 0.5 * self.margin);
        let rows = path_lanes(paths, idx);
        let row = |f: usize| Vec3x8 { x: rows[f], y: rows[f + 1], z: rows[f + 2] };
        let splat = |v: Vec3| Vec3x8 { x: f32x8::splat(v.x), y: f32x8::splat(v.y), z: f32x8::splat(v.z) };
        // The path relative to the frame, stepped substep by substep: its `start(n)`
        // grows by `v + n·a` a substep, and `end(n)` is `start(n) + δ + n·a`.
        let (v, d, a) =
            (row(3) - splat(frame.velocity), row(6) - splat(frame.step), row(9) - splat(frame.acceleration));
        let mut start = row(0);
        let (mut lo, mut hi) = (start, start);
        for k in 0..window {
            let n = f32x8::splat(k as f32);
            if k > 0 {
                start = start + (v + a * n);
            }
            let end = start + d + a * n;
            (lo, hi) = (fast_min(fast_min(lo, start), end), fast_max(fast_max(hi, start), end));
        }
        let length = |v: Vec3x8| v.length_squared().sqrt();
        let grow = length(d) + f32x8::splat(last) * length(a) + f32x8::splat(slack);
        let grow = Vec3x8 { x: grow, y: grow, z: grow };
        let (lo, hi) = (lo - grow, hi + grow);
        std::array::from_fn(|l| {
            // A tearing body's spare vertex slots are in no triangle or edge, so their
            // boxes are never used; those of the last body lie past every body's range
            // (zero radius), the others count as body 0's.
            let body = self.vertex_body.get(idx[l] as usize);
            let radius = Vec3::splat(body.map_or(0.0, |&b| self.radius[b as usize]));
            (lo.lane(l) - radius, hi.lane(l) + radius)
        })
    }

    /// Every vertex's box along its path (see [`Surfaces::vertex_boxes`]), into `boxes`.
    fn all_vertex_boxes(&self, paths: &[Path], frame: &Path, skin: f32, window: u32, boxes: &mut Vec<(Vec3, Vec3)>) {
        let n = paths.len();
        boxes.clear();
        boxes.resize(n, (Vec3::ZERO, Vec3::ZERO));
        boxes.par_chunks_mut(1024).enumerate().for_each(|(c, chunk)| {
            for (b, batch) in chunk.chunks_mut(LANES).enumerate() {
                let first = c * 1024 + b * LANES;
                let idx = std::array::from_fn(|l| (first + l.min(batch.len() - 1)) as u32);
                let found = self.vertex_boxes(idx, paths, frame, skin, window);
                batch.copy_from_slice(&found[..batch.len()]);
            }
        });
    }

    /// Keeps the lists valid when a few vertices (`strays`, at most [`REPAIR_STRAYS`]) left
    /// their paths inside the window, instead of rebuilding them: each of them gets the
    /// path through this substep ([`Path::from_substep`]) and its box, and every triangle
    /// around them is tested, by boxes alone, against the triangles near it and against
    /// every triangle repaired since the build. The pairs found join the lists, which
    /// only grow. Pairs without a repaired vertex keep what the build proved: their
    /// vertices are still on their paths, and whether two features of a skipped smooth
    /// region can meet does not depend on where a third vertex went.
    fn repair(&mut self, x: &[Vec3], x_prev: &[Vec3], filter: &FilterTable, skin: f32, strays: &[u32]) {
        let k = self.candidates.served as f32;
        let mut c = std::mem::take(&mut self.candidates);
        let known = c.known(x.len());
        let mut fresh = Vec::new();
        for &v in strays {
            let i = v as usize;
            c.paths[i] = Path::from_substep(k, c.current_path(i, x, x_prev, known));
            fresh.extend_from_slice(self.tree.star(v));
        }
        // The strays' boxes, eight a batch (the last lanes repeat the last stray).
        for batch in strays.chunks(LANES) {
            let idx = std::array::from_fn(|l| batch[l.min(batch.len() - 1)]);
            let found = self.vertex_boxes(idx, &c.paths, &c.frame, skin, c.window);
            for (&v, &b) in batch.iter().zip(&found) {
                c.boxes[v as usize] = b;
            }
        }
        fresh.sort_unstable();
        fresh.dedup();
        let mut touched = c.repaired.clone();
        touched.extend_from_slice(&fresh);
        touched.sort_unstable();
        touched.dedup();
        // The repaired triangles' boxes from their corners' (the refit's are stale).
        let corners = |t: u32| {
            let [a, b, d] = self.triangles[t as usize].map(|i| c.boxes[i as usize]);
            (a.0.min(b.0).min(d.0), a.1.max(b.1).max(d.1))
        };
        let box_of = |t: u32| if touched.binary_search(&t).is_ok() { corners(t) } else { self.tree.triangle_box(t) };
        let (mut found, mut near) = (Found::default(), Vec::new());
        for &t1 in &fresh {
            let b1 = corners(t1);
            near.clear();
            self.tree.near_triangles(b1.0, b1.1, &mut near);
            near.extend_from_slice(&touched);
            near.sort_unstable();
            near.dedup();
            for &t2 in near.iter().filter(|&&t2| t2 != t1) {
                self.test_leaf_pair(&c, filter, skin, &mut found, self.tree.pair_of(t1, t2, [b1, box_of(t2)]));
            }
        }
        c.vertex_triangle.append(&mut found.vertex_triangle);
        c.vertex_triangle.sort_unstable();
        c.vertex_triangle.dedup();
        c.edge_edge.append(&mut found.edge_edge);
        c.edge_edge.sort_unstable();
        c.edge_edge.dedup();
        c.repaired = touched;
        c.repairs += 1;
        self.candidates = c;
    }

    /// The bound on a pair's distance at the build beyond which no substep of the window
    /// keeps it (module documentation), from its closest vertices' paths `a` and `b`.
    fn reach_bound(&self, a: &[u32], b: &[u32], c: &Candidates, skin: f32) -> f32 {
        let (last, paths) = ((c.window - 1) as f32, &c.paths);
        // Largest squared differences, one root each: the square root is monotone and
        // correctly rounded, so this is the largest of the lengths, bit for bit.
        let (mut dv, mut dd, mut da) = (0.0f32, 0.0f32, 0.0f32);
        for &i in a {
            let p = &paths[i as usize];
            for &j in b {
                let q = &paths[j as usize];
                dv = dv.max((p.velocity - q.velocity).length_squared());
                dd = dd.max((p.step - q.step).length_squared());
                da = da.max((p.acceleration - q.acceleration).length_squared());
            }
        }
        let (dv, dd, da) = (dv.sqrt(), dd.sqrt(), da.sqrt());
        self.margin + 3.0 * skin + last * dv + 2.0 * dd + (0.5 * last * (last + 1.0) + 2.0 * last) * da
    }

    /// Tests leaf pair `pair` of the tree's search: each owned vertex of one triangle
    /// against the other triangle, and each owned edge of one against each of the other,
    /// keeping the pairs whose boxes along their paths overlap, within the window's bound
    /// and allowed by the filters.
    fn test_leaf_pair(&self, c: &Candidates, filter: &FilterTable, skin: f32, out: &mut Found, pair: LeafPair) {
        // The vertices' boxes hold their radii already.
        let box_of = |i: u32| c.boxes[i as usize];
        for side in 0..2 {
            let t = pair.triangles[1 - side];
            let tri = self.triangles[t as usize];
            let tb = self.tri_body[t as usize] as usize;
            let tri_box = pair.boxes[1 - side];
            for &v in &pair.vertices[side] {
                if v == NONE || tri.contains(&v) {
                    continue;
                }
                if !boxes_overlap(box_of(v), tri_box) {
                    continue;
                }
                let p = c.paths[v as usize].base;
                let base = |i: u32| c.paths[i as usize].base;
                let [a, b, cc] = [base(tri[0]), base(tri[1]), base(tri[2])];
                let (bary, _) = closest_point(p, a, b, cc);
                let dist = p.distance(point(bary, a, b, cc));
                let d = self.thickness(self.vertex_body[v as usize] as usize, tb);
                if dist <= d + self.reach_bound(&[v], &tri, c, skin) && self.vertex_pair_allowed(filter, v, t) {
                    out.vertex_triangle.push((v, t));
                }
            }
        }
        let edge_box = |e: u32| {
            let [i, j] = self.edges[e as usize];
            let ((l0, h0), (l1, h1)) = (box_of(i), box_of(j));
            (l0.min(l1), h0.max(h1))
        };
        for &ea in &pair.edges[0] {
            if ea == NONE {
                continue;
            }
            let a = self.edges[ea as usize];
            let abox = edge_box(ea);
            for &eb in &pair.edges[1] {
                if eb == NONE {
                    continue;
                }
                let b = self.edges[eb as usize];
                if a.iter().any(|v| b.contains(v)) || !boxes_overlap(abox, edge_box(eb)) {
                    continue;
                }
                // Lower edge first, as every other test of the pair computes it.
                let (lo, hi) = (ea.min(eb), ea.max(eb));
                let (p, q) = (self.edges[lo as usize], self.edges[hi as usize]);
                let base = |i: u32| c.paths[i as usize].base;
                let [a0, a1, b0, b1] = [base(p[0]), base(p[1]), base(q[0]), base(q[1])];
                let (s, t) = closest_segment_params(a0, a1, b0, b1);
                let dist = a0.lerp(a1, s).distance(b0.lerp(b1, t));
                let d = self.thickness(self.edge_body[ea as usize] as usize, self.edge_body[eb as usize] as usize);
                if dist <= d + self.reach_bound(&p, &q, c, skin) && self.edge_pair_allowed(filter, lo, hi) {
                    out.edge_edge.push((lo, hi));
                }
            }
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::{Contact, SelfContact, Surfaces};
    use super::Path;
    use crate::contact::filter_table::FilterTable;
    use crate::mesh::grid::cloth;
    use crate::scene::{Body, BodyKind, Scene};
    use crate::Material;
    use glam::Vec3;

    fn sheet(name: &str, origin: Vec3) -> Body {
        cloth_sheet(name, origin, 0.1, 9)
    }

    /// A square cloth of side `size` and `verts` × `verts` vertices at `origin`, 1 mm
    /// thick, in the XY plane.
    pub(in crate::contact::deformable) fn cloth_sheet(name: &str, origin: Vec3, size: f32, verts: u32) -> Body {
        let (points, triangles) = cloth(origin, Vec3::X, Vec3::Y, (size, size), (verts, verts));
        let material = Material {
            youngs_modulus: 1e5,
            poissons_ratio: 0.3,
            density: 200.0,
            thickness: 0.001,
            stretch_stiffness: 0.0,
            shear_stiffness: 0.0,
            bend_stiffness: 0.0,
            dynamic_friction: 0.3,
            static_friction: 0.3,
            damping: 0.0,
            bend_damping: 0.0,
        };
        let mut body = Body::new(name, BodyKind::Surface, points, material);
        body.triangles = triangles;
        body
    }

    /// Positions of two 9 × 9 sheets at substep `k` (1 ms apart): the upper one, 2 cm
    /// above, slides across the lower one and comes down on it at 0.25 m/s until it is 3 mm
    /// away, so pairs come within reach in the middle of a window. After substep 80 every
    /// vertex also jitters by up to `jitter` (what the predicted paths cannot follow). Both
    /// sheets also move together at `drift` m/s, falling (what the lists' moving frame
    /// takes out).
    fn pose(rest: &[Vec3], k: usize, jitter: f32, drift: Vec3) -> Vec<Vec3> {
        let t = k as f32 * 1e-3;
        rest.iter()
            .enumerate()
            .map(|(i, &p)| {
                let mut q = p + drift * t - Vec3::Z * (4.9 * t * t);
                if i >= 81 {
                    q += Vec3::new(0.3 * t, 0.05 * t, -(0.25 * t).min(0.017));
                }
                if k > 80 {
                    let h = ((i * 7919 + k * 104_729) % 1000) as f32 / 1000.0 - 0.5;
                    q += Vec3::new(h, -h, 0.5 * h) * jitter;
                }
                q
            })
            .collect()
    }

    /// Whether two contact lists are the same, field by field.
    pub(in crate::contact::deformable) fn same(a: &[Contact], b: &[Contact]) -> bool {
        a.len() == b.len()
            && a.iter().zip(b).all(|(p, q)| {
                (p.vertex, p.triangle, p.edge, p.side, p.normal, p.distance, p.overlap)
                    == (q.vertex, q.triangle, q.edge, q.side, q.normal, q.distance, q.overlap)
            })
    }

    #[test]
    fn kept_lists_find_what_a_search_from_scratch_finds() {
        // Still, and carried off together fast (the lists' boxes are taken in a frame
        // moving with the mean motion: an error there loses pairs at speed).
        for drift in [Vec3::ZERO, Vec3::new(3.0, -2.0, 1.0)] {
            kept_lists_hold(drift);
        }
    }

    /// Two 9 × 9 sheets, the upper 2 cm above the lower: their surfaces twice (for kept
    /// lists and for lists built afresh every substep), the filters and the rest positions.
    fn two_sheets() -> (Surfaces, Surfaces, FilterTable, Vec<Vec3>) {
        let scene = Scene {
            bodies: vec![sheet("lower", Vec3::ZERO), sheet("upper", Vec3::new(0.0, 0.0, 0.02))],
            ..Default::default()
        };
        let ranges = [0..81, 81..162];
        let self_contact = SelfContact { surfaces: Some(true), volumes: false };
        let (kept, filter) = Surfaces::new(&scene, &ranges, 0.002, true, self_contact);
        let (fresh, _) = Surfaces::new(&scene, &ranges, 0.002, true, self_contact);
        let rest = scene.bodies.iter().flat_map(|b| b.positions.clone()).collect();
        (kept, fresh, filter, rest)
    }

    /// Detects substep (`x_prev`, `x`) with the kept lists and with lists built afresh,
    /// asserts that both find the contacts of every pair, and returns whether any touch.
    fn same_contacts(
        kept: &mut Surfaces,
        fresh: &mut Surfaces,
        filter: &FilterTable,
        x_prev: &[Vec3],
        x: &[Vec3],
        what: &str,
    ) -> bool {
        let w = vec![1.0; x.len()];
        let (mut a, mut b) = (Vec::new(), Vec::new());
        kept.detect(x, x_prev, &w, filter, &mut a);
        fresh.candidates.invalidate();
        fresh.detect(x, x_prev, &w, filter, &mut b);
        assert!(same(&a, &b), "{what}: {} kept contacts, {} from scratch", a.len(), b.len());
        let all = kept.every_contact(filter, x, x_prev, &w);
        assert!(same(&a, &all), "{what}: {} kept contacts, {} of all pairs", a.len(), all.len());
        !a.is_empty()
    }

    /// A few vertices that jump by several skins inside a window (three of the upper
    /// sheet's, 2 mm up and back every 7 substeps) are repaired, not rebuilt, and the
    /// repaired lists still find every contact.
    #[test]
    fn a_few_strays_are_repaired() {
        let (mut kept, mut fresh, filter, rest) = two_sheets();
        let kicked = |k: usize| {
            let mut p = pose(&rest, k, 0.0, Vec3::ZERO);
            for i in [120, 121, 130] {
                p[i].z += 0.002 * ((k / 7) % 2) as f32;
            }
            p
        };
        let mut touching = 0;
        for k in 0..80 {
            let (x_prev, x) = (kicked(k), kicked(k + 1));
            touching +=
                usize::from(same_contacts(&mut kept, &mut fresh, &filter, &x_prev, &x, &format!("substep {k}")));
        }
        assert!(touching > 20, "the sheets touch in {touching} substeps only: the test shows nothing");
        let (builds, repairs) = (kept.candidates.builds, kept.candidates.repairs);
        assert!(repairs >= 5, "{repairs} repairs, {builds} builds");
        // About a build per full window (a shorter window follows an early rebuild).
        assert!(builds <= 80 / super::WINDOW as u64 + 2, "{builds} builds in 80 substeps ({repairs} repairs)");
    }

    /// The lanes' check of the paths decides as the scalar one does, vertex by vertex,
    /// at the skin's edge and with NaN in any input.
    #[test]
    fn the_lanes_check_decides_as_the_scalar_one() {
        let mut seed = 12345u32;
        let mut rand = move || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as f32 / (1u32 << 24) as f32 - 0.5
        };
        let mut v3 = |scale: f32| Vec3::new(rand(), rand(), rand()) * scale;
        let count = 4000;
        let paths: Vec<Path> = (0..count)
            .map(|_| Path { base: v3(2.0), velocity: v3(0.01), step: v3(0.01), acceleration: v3(0.001) })
            .collect();
        let half = 0.0004;
        let n = 2.0;
        let (mut x_prev, mut x) = (Vec::new(), Vec::new());
        for (i, p) in paths.iter().enumerate() {
            // Around the skin's edge: most near it, some far inside or outside, and some
            // offset along an axis by half the skin to within a few ulps, where only the
            // rounding of the path's formula decides.
            let offset = match i % 7 {
                5 => Vec3::X * half * (1.0 + (i % 3) as f32 * f32::EPSILON - f32::EPSILON),
                6 => Vec3::Z * -half,
                k => v3(2.0 * [0.5, 0.99, 1.0, 1.01, 3.0][k] * half),
            };
            x_prev.push(p.start(n) + offset);
            x.push(p.end(n) + if i % 2 == 0 { offset } else { -offset });
        }
        x[17].y = f32::NAN;
        x_prev[33].x = f32::NAN;
        let (mut stray, mut kept) = (0, 0);
        for first in (0..count).step_by(super::LANES) {
            let idx: [u32; super::LANES] = std::array::from_fn(|l| (first + l) as u32);
            let bits = super::strays_of(&paths, idx, n, &x_prev, &x, half);
            for (l, &i) in idx.iter().enumerate() {
                let holds = paths[i as usize].holds(n, x_prev[i as usize], x[i as usize], half);
                assert_eq!(bits & (1 << l) == 0, holds, "vertex {i}");
                if holds {
                    kept += 1;
                } else {
                    stray += 1;
                }
            }
        }
        assert!(stray > 500 && kept > 500, "{stray} strays, {kept} kept: the test shows nothing");
    }

    fn kept_lists_hold(drift: Vec3) {
        let (mut kept, mut fresh, filter, rest) = two_sheets();
        let (mut touching, mut steps, mut smooth_builds) = (0, 0, 0);
        for k in 0..160 {
            if k == 80 {
                smooth_builds = kept.candidates.builds;
            }
            let (x_prev, x) = (pose(&rest, k, 0.003, drift), pose(&rest, k + 1, 0.003, drift));
            let what = format!("{drift}, substep {k}");
            touching += usize::from(same_contacts(&mut kept, &mut fresh, &filter, &x_prev, &x, &what));
            steps += 1;
        }
        assert!(touching > 80, "the sheets touch in {touching} substeps only: the test shows nothing");
        assert_eq!(fresh.candidates.builds, steps);
        // Smooth motion is served by kept lists (about a build per full window, and a
        // shorter window or two after the upper sheet stops); the jitter, several skins
        // wide, forces a build every substep.
        assert!(smooth_builds <= 80 / super::WINDOW as u64 + 2, "{smooth_builds} builds in 80 smooth substeps");
        assert_eq!(kept.candidates.builds - smooth_builds, 80, "the jitter did not force every rebuild");
    }

    /// Lists rebuilt early are followed by shorter windows (two or three substeps), and
    /// those windows hold every pair too: a sheet finer than its thickness (so that its
    /// self-contact radius is capped) folds onto itself while it swings, and bursts of
    /// jitter every few substeps force early rebuilds; every substep's contacts equal
    /// a search's from scratch and every pair's.
    #[test]
    fn short_windows_keep_every_pair() {
        let body = cloth_sheet("sheet", Vec3::ZERO, 0.3, 30);
        let n = body.positions.len();
        let scene = Scene { bodies: vec![body], ..Default::default() };
        let ranges = [std::ops::Range { start: 0, end: n }];
        let self_contact = SelfContact { surfaces: Some(true), volumes: false };
        let (mut kept, filter) = Surfaces::new(&scene, &ranges, 0.002, true, self_contact);
        let (mut fresh, _) = Surfaces::new(&scene, &ranges, 0.002, true, self_contact);
        assert!(kept.self_radius[0] < kept.radius[0], "the sheet's self-contact radius is not capped");
        let rest = scene.bodies[0].positions.clone();
        // Folds about the line x = 0.14 into a tightening arc (radius 12 mm down to
        // 1.2 mm) while the whole sheet rocks about the x axis.
        let pose = |k: usize| -> Vec<Vec3> {
            let t = ((k as f32 - 20.0).max(0.0) / 100.0).min(1.0);
            let (fold, radius, hinge) = (std::f32::consts::PI * t, 0.012 - 0.0108 * t, 0.14);
            let swing = glam::Quat::from_rotation_x(0.3 * (k as f32 * 0.02).sin());
            (rest.iter().enumerate())
                .map(|(i, &p)| {
                    let u = p.x - hinge;
                    let mut q = if u <= 0.0 {
                        p
                    } else {
                        let along = u.min(radius * fold);
                        let phi = along / radius;
                        let on_arc = Vec3::new(hinge + radius * phi.sin(), p.y, radius * (1.0 - phi.cos()));
                        on_arc + Vec3::new(phi.cos(), 0.0, phi.sin()) * (u - along)
                    };
                    q = swing * q;
                    if k % 6 == 3 {
                        let h = ((i * 7919 + k * 104_729) % 1000) as f32 / 1000.0 - 0.5;
                        q += Vec3::new(h, -h, 0.5 * h) * 0.0004;
                    }
                    q
                })
                .collect()
        };
        let (mut touching, mut short_served) = (0, 0);
        for k in 0..160 {
            let (x_prev, x) = (pose(k), pose(k + 1));
            touching +=
                usize::from(same_contacts(&mut kept, &mut fresh, &filter, &x_prev, &x, &format!("substep {k}")));
            let c = &kept.candidates;
            short_served += usize::from(c.window < super::WINDOW && c.served > 1);
        }
        assert!(touching > 40, "the sheet touches itself in {touching} substeps only: the test shows nothing");
        assert!(short_served > 10, "short windows served past their build {short_served} times only");
    }

    /// The window's bound holds for fast relative motion: the upper of two sheets comes
    /// down on the lower at 2 mm a substep (its paths exact, so lists last their whole
    /// windows), and every substep's contacts equal a search's from scratch and every
    /// pair's. A bound that counted fewer substeps of relative motion than a list
    /// serves misses the pairs that close in late in its window (checked: bounds and
    /// boxes for two substeps on lists of four fail here).
    #[test]
    fn fast_approach_is_held_by_the_window_bound() {
        let (mut kept, mut fresh, filter, rest) = two_sheets();
        let falling = |k: usize| -> Vec<Vec3> {
            // Starting 21.5 mm apart, so that the second list is built 13.5 mm apart,
            // beyond what one substep's motion brings within reach, and holds pairs that
            // reach it in its last substep.
            let drop = Vec3::Z * (0.002 * k as f32 - 0.0015);
            rest.iter().enumerate().map(|(i, &p)| if i < 81 { p } else { p - drop }).collect()
        };
        let mut touching = 0;
        // Down to 3.5 mm apart: the sheets come within reach in the last substeps.
        for k in 0..9 {
            let (x_prev, x) = (falling(k), falling(k + 1));
            touching +=
                usize::from(same_contacts(&mut kept, &mut fresh, &filter, &x_prev, &x, &format!("substep {k}")));
        }
        assert!(touching >= 2, "the sheets touch in {touching} substeps only: the test shows nothing");
        let builds = kept.candidates.builds;
        assert!(builds <= 3, "{builds} builds in 9 substeps: the lists did not last their windows");
    }
}
