//! Eight `Vec3`s in structure-of-arrays form, for projecting eight elements of one
//! colour at once (`wide::f32x8`: two SSE registers on baseline x86-64, one AVX one
//! where the target has it).
//!
//! Elements of one colour share no vertex, so lane `k` only ever reads and writes its
//! own element's vertices: gathering eight, computing in lanes and scattering back is
//! the same Gauss–Seidel sweep as one element after the other. Every lane runs the same
//! arithmetic whatever its position or neighbours, so a result never depends on how the
//! team split a colour (determinism across `--threads`).

use glam::Vec3;
use std::ops::{Add, Mul, Neg, Range, Sub};
use wide::f32x8;

pub(crate) mod packed;
mod transpose;

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
    /// Lane `k` is `x[idx[k]]`, from a slice nobody writes.
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

    /// Lane-wise, component-wise minimum.
    #[inline(always)]
    pub fn min(self, o: Self) -> Self {
        Self { x: self.x.min(o.x), y: self.y.min(o.y), z: self.z.min(o.z) }
    }

    /// Lane-wise, component-wise maximum.
    #[inline(always)]
    pub fn max(self, o: Self) -> Self {
        Self { x: self.x.max(o.x), y: self.y.max(o.y), z: self.z.max(o.z) }
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
            assert_eq!((va.min(vb).lane(k), va.max(vb).lane(k)), (a[k].min(b[k]), a[k].max(b[k])));
        }
    }
}
