//! The vertex boxes of a list build ([`super`]): each vertex's box along its predicted
//! path over the window, in the frame moving with the surfaces, grown by its share of a
//! pair's reach and by its radius, eight vertices a batch in lanes. The cone tree is
//! refitted to them, and the leaf test compares them.

use crate::constraint::lanes::{Vec3x8, LANES};
use crate::contact::deformable::path::{path_lanes, Path};
use crate::contact::deformable::surfaces::Surfaces;
use glam::Vec3;
use rayon::prelude::*;
use wide::f32x8;

/// Lane-wise minimum that, like glam's, takes the second operand when either is NaN
/// (`wide`'s `min` skips NaN): the boxes' minima are those of the scalar form's.
fn fast_min(a: Vec3x8, b: Vec3x8) -> Vec3x8 {
    Vec3x8 { x: a.x.fast_min(b.x), y: a.y.fast_min(b.y), z: a.z.fast_min(b.z) }
}

/// Lane-wise maximum, as [`fast_min`].
fn fast_max(a: Vec3x8, b: Vec3x8) -> Vec3x8 {
    Vec3x8 { x: a.x.fast_max(b.x), y: a.y.fast_max(b.y), z: a.z.fast_max(b.z) }
}

impl Surfaces {
    /// The boxes of vertices `idx` along their paths over the window, eight in lanes,
    /// in the frame moving along `frame`: each one's predicted starts and ends, grown by
    /// what the check lets it stray (half the skin), by its share of the pair's reach
    /// beyond the radii (half the margin and its part of the relative substep motion,
    /// `|δ| + (W − 1)·|a|` and `s`) and by its radius. Two boxes apart means the pair
    /// stays out of reach for the whole window. The frame moves with the surfaces' mean
    /// motion (the [`candidates`] module documentation says why).
    ///
    /// [`candidates`]: super
    pub(super) fn vertex_boxes(
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
    pub(super) fn all_vertex_boxes(
        &self,
        paths: &[Path],
        frame: &Path,
        skin: f32,
        window: u32,
        boxes: &mut Vec<(Vec3, Vec3)>,
    ) {
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
}
