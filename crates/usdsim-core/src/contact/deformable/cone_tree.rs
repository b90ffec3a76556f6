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

use super::bounds::{merge, smooth, Bound};
use glam::Vec3;
use std::sync::atomic::{AtomicU32, Ordering};

mod build;
mod refit;
mod search;
#[cfg(test)]
mod tests;

/// No child, owner or feature.
pub(super) const NONE: u32 = u32::MAX;

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

impl ConeTree {
    /// Node `node`'s triangles: its run of [`ConeTree::order`].
    fn run(&self, node: &Node) -> &[u32] {
        &self.order[node.first as usize..(node.first + node.count) as usize]
    }

    /// Vertex `v`'s triangles.
    pub(super) fn star(&self, v: u32) -> &[u32] {
        &self.star[self.star_start[v as usize] as usize..self.star_start[v as usize + 1] as usize]
    }
}
