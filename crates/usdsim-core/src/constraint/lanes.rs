//! Eight `Vec3`s in structure-of-arrays form, for projecting eight elements of one
//! colour at once (`wide::f32x8`: two SSE registers on baseline x86-64, one AVX one
//! where the target has it).
//!
//! Elements of one colour share no vertex, so lane `k` only ever reads and writes its
//! own element's vertices: gathering eight, computing in lanes and scattering back is
//! the same Gauss–Seidel sweep as one element after the other. Every lane runs the same
//! arithmetic whatever its position or neighbours, so a result never depends on how the
//! team split a colour (determinism across `--threads`).

use crate::parallel::colouring::Shared;
use glam::{DVec3, Vec3};
use std::ops::{Add, Mul, Neg, Range, Sub};
use wide::f32x8;

/// Lanes per batch.
pub(crate) const LANES: usize = 8;

/// `range` cut into consecutive batches of at most [`LANES`] elements.
pub(crate) fn batches(range: Range<usize>) -> impl Iterator<Item = Range<usize>> {
    let end = range.end;
    range.step_by(LANES).map(move |start| start..(start + LANES).min(end))
}

/// Eight 3-vectors, one per lane.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Vec3x8 {
    pub x: f32x8,
    pub y: f32x8,
    pub z: f32x8,
}

impl Vec3x8 {
    /// An element's corners in lanes, relative to its first: `[v]` has lane `k` at
    /// `x[idx[v][k]] − x[idx[0][k]]` (so `[0]` is zero), subtracted in f64 before rounding
    /// to f32. The shape is all the constraints read, and a position's distance from the
    /// scene origin then costs it no precision (see `Solver::x`).
    ///
    /// # Safety
    /// No other thread may be writing these vertices (the colouring guarantees it).
    #[inline(always)]
    pub unsafe fn gather_shape<const N: usize>(x: Shared<DVec3>, idx: &[[u32; LANES]; N]) -> [Self; N] {
        // Loads lane by lane into f64 arrays, then the differences and roundings run
        // over whole arrays, which the compiler turns into vector instructions.
        let mut p = [[[0.0f64; LANES]; 3]; N];
        for k in 0..LANES {
            for v in 0..N {
                // SAFETY: forwarded contract.
                let q = unsafe { *x.get(idx[v][k] as usize) };
                (p[v][0][k], p[v][1][k], p[v][2][k]) = (q.x, q.y, q.z);
            }
        }
        let mut out = [Self { x: f32x8::ZERO, y: f32x8::ZERO, z: f32x8::ZERO }; N];
        for v in 1..N {
            let mut c = [[0.0f32; LANES]; 3];
            for (axis, c) in c.iter_mut().enumerate() {
                for k in 0..LANES {
                    c[k] = (p[v][axis][k] - p[0][axis][k]) as f32;
                }
            }
            out[v] = Self { x: c[0].into(), y: c[1].into(), z: c[2].into() };
        }
        out
    }

    /// Lane `k` is `x[idx[k]] − x_prev[idx[k]]`, the vertex's displacement this substep
    /// (for damping), subtracted in f64.
    ///
    /// # Safety
    /// No other thread may be writing these vertices (the colouring guarantees it).
    #[inline(always)]
    pub unsafe fn gather_moved(x: Shared<DVec3>, x_prev: &[DVec3], idx: &[u32; LANES]) -> Self {
        let (mut a, mut b, mut c) = ([0.0; LANES], [0.0; LANES], [0.0; LANES]);
        for k in 0..LANES {
            let i = idx[k] as usize;
            // SAFETY: forwarded contract.
            let p = unsafe { *x.get(i) } - x_prev[i];
            (a[k], b[k], c[k]) = (p.x as f32, p.y as f32, p.z as f32);
        }
        Self { x: a.into(), y: b.into(), z: c.into() }
    }

    /// Lane `k` is `x[idx[k]]`, from a slice nobody writes.
    #[cfg(test)]
    #[inline(always)]
    pub fn gather_slice(x: &[Vec3], idx: &[u32; LANES]) -> Self {
        let (mut a, mut b, mut c) = ([0.0; LANES], [0.0; LANES], [0.0; LANES]);
        for k in 0..LANES {
            let p = x[idx[k] as usize];
            (a[k], b[k], c[k]) = (p.x, p.y, p.z);
        }
        Self { x: a.into(), y: b.into(), z: c.into() }
    }

    /// The vector of lane `k`.
    #[inline(always)]
    pub fn lane(&self, k: usize) -> Vec3 {
        Vec3::new(self.x.as_array()[k], self.y.as_array()[k], self.z.as_array()[k])
    }

    /// Lane-wise dot product.
    #[inline(always)]
    pub fn dot(self, o: Self) -> f32x8 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }

    /// Lane-wise squared length.
    #[inline(always)]
    pub fn length_squared(self) -> f32x8 {
        self.dot(self)
    }

    /// Lane-wise cross product.
    #[inline(always)]
    pub fn cross(self, o: Self) -> Self {
        Self { x: self.y * o.z - self.z * o.y, y: self.z * o.x - self.x * o.z, z: self.x * o.y - self.y * o.x }
    }
}

impl Add for Vec3x8 {
    type Output = Self;
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        Self { x: self.x + o.x, y: self.y + o.y, z: self.z + o.z }
    }
}

impl Sub for Vec3x8 {
    type Output = Self;
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        Self { x: self.x - o.x, y: self.y - o.y, z: self.z - o.z }
    }
}

impl Neg for Vec3x8 {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        Self { x: -self.x, y: -self.y, z: -self.z }
    }
}

impl Mul<f32x8> for Vec3x8 {
    type Output = Self;
    #[inline(always)]
    fn mul(self, s: f32x8) -> Self {
        Self { x: self.x * s, y: self.y * s, z: self.z * s }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_ops_match_glam() {
        let a: Vec<Vec3> = (0..LANES).map(|k| Vec3::new(k as f32, 1.0 - k as f32, 0.5 * k as f32)).collect();
        let b: Vec<Vec3> = (0..LANES).map(|k| Vec3::new(2.0, k as f32 * 0.3, -1.0)).collect();
        let idx: [u32; LANES] = std::array::from_fn(|k| k as u32);
        let (va, vb) = (Vec3x8::gather_slice(&a, &idx), Vec3x8::gather_slice(&b, &idx));
        let (dot, cross) = (va.dot(vb), va.cross(vb));
        for k in 0..LANES {
            assert_eq!(dot.as_array()[k], a[k].dot(b[k]));
            assert_eq!(cross.lane(k), a[k].cross(b[k]));
            assert_eq!((va - vb).lane(k), a[k] - b[k]);
        }
    }
}
