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
//!
//! [`Surfaces::vertex_contact`]: super::Surfaces::vertex_contact
//! [`Surfaces::edge_contact`]: super::Surfaces::edge_contact
//! [`Surfaces::repair`]: super::Surfaces::repair
//! [`WINDOW`]: super::path::WINDOW

use super::path::{strays_of, Path};
use crate::constraint::lanes::LANES;
use glam::Vec3;
use rayon::prelude::*;

mod leaf_test;
mod refresh;
mod repair;
#[cfg(test)]
mod tests;
mod vertex_boxes;

/// Substeps a list serves at least. A list that had to be rebuilt after serving `k`
/// substeps (its vertices left their paths) is followed by one of `k + 1`, no fewer
/// than this: where motion is jerky lists are rebuilt that soon anyway, and a shorter
/// window is searched with a tighter bound. A list that lasts its window is followed
/// by one of [`WINDOW`] (on the 64² bench cloth, 48 frames: 7.250 G instructions in the
/// frames with fixed windows of 4, 7.098 G with windows of 2-4, 7.114 G with 2-8 and
/// 7.270 G with 4-8; docs/performance.md, seventeenth step).
///
/// [`WINDOW`]: super::path::WINDOW
const MIN_WINDOW: u32 = 2;

/// Vertices off their paths that a list repairs instead of being rebuilt (more: a
/// build). A repair re-tests every triangle around them by boxes alone.
const REPAIR_STRAYS: usize = 8;

/// The skin `s`, in contact margins: how far a vertex may stray from its predicted path
/// before the list is rebuilt. Three skins are part of what the cone test must beat.
const SKIN_MARGINS: f32 = 0.5;

/// What the per-substep check found: the lists hold, a few vertices strayed (a repair
/// keeps them), or they must be built again (no list, the window is over, or more
/// strays than a repair takes).
enum Check {
    Holds,
    Strays(Vec<u32>),
    Rebuild,
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
    ///
    /// [`WINDOW`]: super::path::WINDOW
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
