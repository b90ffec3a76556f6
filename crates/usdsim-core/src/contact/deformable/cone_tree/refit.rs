//! Refitting the cone tree ([`super`]) to a list's window, at every list build: each
//! leaf's bound from its corners' predicted paths, eight leaves a batch in lanes
//! ([`leaf_bounds`]), then every node's bottom up.

use super::{ConeTree, NONE, SPLIT_LEAVES};
use crate::constraint::lanes::{Vec3x8, LANES};
use crate::contact::deformable::bounds::{merge, Bound};
use crate::contact::deformable::path::{path_lanes, Path};
use crate::contact::deformable::surfaces::Surfaces;
use glam::Vec3;
use rayon::prelude::*;
use wide::f32x8;

/// Leaves whose bounds one task of a refit computes (a multiple of the lanes).
const LEAF_CHUNK: usize = 256;

impl ConeTree {
    /// Refits every node to the window: `paths[i]` (every global vertex's predicted
    /// path, which the check lets stray by `stray`) and `boxes[i]` (its box along the
    /// path, grown by its share of the reach and its radius), `keep` per body the
    /// thickness plus margin plus three skins (what the cone test must beat).
    pub(in crate::contact::deformable) fn refit(
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
}

/// What the leaf bounds are taken from: the tree's leaves and the window's paths.
pub(super) struct Leaves<'a> {
    /// Per leaf, its corners ([`ConeTree::leaf_corners`]).
    pub(super) corners: &'a [[u32; 4]],
    /// Per leaf, whether its second triangle is reversed ([`ConeTree::leaf_flipped`]).
    pub(super) flipped: &'a [bool],
    /// Every global vertex's predicted path.
    pub(super) paths: &'a [Path],
    /// Substeps the window lasts.
    pub(super) window: u32,
    /// How far the check lets a vertex stray from its path.
    pub(super) stray: f32,
    /// Every vertex's box along its path, grown by its share of the reach and its radius.
    pub(super) boxes: &'a [(Vec3, Vec3)],
    /// Per body, what the cone test must beat (the thickness, margin and three skins).
    pub(super) keep: &'a [f32],
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
pub(super) fn leaf_bounds(
    s: &Surfaces,
    leaf: &Leaves,
    first: usize,
    out: &mut [Bound],
    triangle_boxes: &mut [[(Vec3, Vec3); 2]],
) {
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
