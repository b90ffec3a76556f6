//! The predicted vertex paths of the candidate lists ([`super::candidates`]): each
//! vertex's motion of constant acceleration ([`Path`]) over a window of at most
//! [`WINDOW`] substeps, the check of a vertex against its path in lanes ([`strays_of`]),
//! and the gather of eight paths into SIMD lanes ([`path_lanes`]) that the vertex boxes
//! and the cone tree's leaf bounds read.

use crate::constraint::lanes::{Vec3x8, LANES};
use glam::Vec3;
use wide::f32x8;

/// Substeps one list may serve at most. A longer window grows the bound, and with it the
/// list and the boxes the build searches; it also grows the motion the cone test must
/// beat (`cone_tree`), so fewer smooth regions are skipped. 4 (with a skin of half a
/// margin) took the fewest instructions on the 64² bench cloth, of windows 2-8 and skins
/// of 0.25-1 margin (docs/performance.md, eleventh step).
pub(super) const WINDOW: u32 = 4;

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
    pub(super) fn through(base: Vec3, end: Vec3, h1: Vec3, h2: Vec3, known: usize) -> Path {
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
    ///
    /// [`Surfaces::refresh_candidates`]: super::Surfaces::refresh_candidates
    pub(super) fn mean(paths: &[Path], of: &[u32]) -> Path {
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
    pub(super) fn from_substep(k: f32, now: Path) -> Path {
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

/// `Path::holds` (the scalar form, kept for the tests) for vertices `idx` in lanes: bit
/// `l` is set when vertex `idx[l]`, starting substep `n` at `x_prev` and predicted to end
/// it at `x`, is farther than `half` from its path at either (or anything is NaN). The
/// same operations in the same order as the scalar form, so the same bits decide.
#[inline(always)]
pub(super) fn strays_of(paths: &[Path], idx: [u32; LANES], n: f32, x_prev: &[Vec3], x: &[Vec3], half: f32) -> u32 {
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

#[cfg(test)]
mod tests {
    use super::*;

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
            let rows = super::path_lanes(&paths, idx);
            let portable = super::path_lanes_portable(&paths, idx);
            assert!(rows.iter().zip(&portable).all(|(a, b)| a.as_array() == b.as_array()), "the two forms differ");
            for (f, row) in rows.iter().enumerate() {
                for (l, &i) in idx.iter().enumerate() {
                    assert_eq!(row.as_array()[l], (12 * i as usize + f) as f32, "field {f}, lane {l}");
                }
            }
        }
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
}
