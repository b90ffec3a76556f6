//! Moving vertices between the solver's f64 positions (`[DVec3]`, array of structures)
//! and f32 lanes: the gathers a kernel starts with and the scatter it ends with.
//!
//! Where the target has AVX (the x86-64-v3 builds of `.cargo/config.toml`) they load
//! each vertex as an (x, y) pair and a z, and transpose four vertices at a time in
//! registers. The portable form fills lane arrays on the stack and reads them back as
//! vectors, which costs a stalled store-to-load forward per vector: on cloth_64 the
//! hinge kernel spent a fifth of its time there. Both forms do the same IEEE operations
//! on the same values (an f64 subtraction rounded to f32; an f32 widened to f64 and
//! added), so they give identical bits, and a v3 build still bakes what a baseline one
//! does; `tests` checks it.

use super::{Vec3x8, LANES};
use crate::parallel::colouring::Shared;
use glam::DVec3;

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
        #[cfg(all(target_arch = "x86_64", target_feature = "avx"))]
        // SAFETY: forwarded contract.
        return unsafe { avx::gather_shape(x, idx) };
        #[cfg(not(all(target_arch = "x86_64", target_feature = "avx")))]
        // SAFETY: forwarded contract.
        return unsafe { portable::gather_shape(x, idx) };
    }

    /// Lane `k` is `x[idx[k]] − x_prev[idx[k]]`, the vertex's displacement this substep
    /// (for damping), subtracted in f64.
    ///
    /// # Safety
    /// No other thread may be writing these vertices (the colouring guarantees it).
    #[inline(always)]
    pub unsafe fn gather_moved(x: Shared<DVec3>, x_prev: &[DVec3], idx: &[u32; LANES]) -> Self {
        #[cfg(all(target_arch = "x86_64", target_feature = "avx"))]
        // SAFETY: forwarded contract.
        return unsafe { avx::gather_moved(x, x_prev, idx) };
        #[cfg(not(all(target_arch = "x86_64", target_feature = "avx")))]
        // SAFETY: forwarded contract.
        return unsafe { portable::gather_moved(x, x_prev, idx) };
    }

    /// Adds lane `k` (widened to f64) to `x[idx[k]]` for the first `n` lanes: a kernel's
    /// corrections to one corner of its elements.
    ///
    /// # Safety
    /// No other thread may touch these vertices (the colouring guarantees it), and the
    /// first `n` indices are distinct.
    #[inline(always)]
    pub unsafe fn scatter_add(self, x: Shared<DVec3>, idx: &[u32; LANES], n: usize) {
        debug_assert!(n <= LANES);
        #[cfg(all(target_arch = "x86_64", target_feature = "avx"))]
        // SAFETY: forwarded contract.
        return unsafe { avx::scatter_add(self, x, idx, n) };
        #[cfg(not(all(target_arch = "x86_64", target_feature = "avx")))]
        // SAFETY: forwarded contract.
        return unsafe { portable::scatter_add(self, x, idx, n) };
    }
}

/// Lane by lane through arrays: any target, and the reference the AVX form is tested
/// against.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "avx"), allow(dead_code))]
mod portable {
    use super::*;

    #[inline(always)]
    pub(super) unsafe fn gather_shape<const N: usize>(x: Shared<DVec3>, idx: &[[u32; LANES]; N]) -> [Vec3x8; N] {
        let mut p = [[[0.0f64; LANES]; 3]; N];
        for k in 0..LANES {
            for v in 0..N {
                // SAFETY: forwarded contract.
                let q = unsafe { *x.get(idx[v][k] as usize) };
                (p[v][0][k], p[v][1][k], p[v][2][k]) = (q.x, q.y, q.z);
            }
        }
        let zero = wide::f32x8::ZERO;
        let mut out = [Vec3x8 { x: zero, y: zero, z: zero }; N];
        for v in 1..N {
            let mut c = [[0.0f32; LANES]; 3];
            for (axis, c) in c.iter_mut().enumerate() {
                for k in 0..LANES {
                    c[k] = (p[v][axis][k] - p[0][axis][k]) as f32;
                }
            }
            out[v] = Vec3x8 { x: c[0].into(), y: c[1].into(), z: c[2].into() };
        }
        out
    }

    #[inline(always)]
    pub(super) unsafe fn gather_moved(x: Shared<DVec3>, x_prev: &[DVec3], idx: &[u32; LANES]) -> Vec3x8 {
        let (mut a, mut b, mut c) = ([0.0; LANES], [0.0; LANES], [0.0; LANES]);
        for k in 0..LANES {
            let i = idx[k] as usize;
            // SAFETY: forwarded contract.
            let p = unsafe { *x.get(i) } - x_prev[i];
            (a[k], b[k], c[k]) = (p.x as f32, p.y as f32, p.z as f32);
        }
        Vec3x8 { x: a.into(), y: b.into(), z: c.into() }
    }

    #[inline(always)]
    pub(super) unsafe fn scatter_add(v: Vec3x8, x: Shared<DVec3>, idx: &[u32; LANES], n: usize) {
        for (k, &i) in idx[..n].iter().enumerate() {
            // SAFETY: forwarded contract.
            unsafe { *x.get(i as usize) += v.lane(k).as_dvec3() };
        }
    }
}

/// Four vertices per transpose, in AVX registers.
#[cfg(all(target_arch = "x86_64", target_feature = "avx"))]
mod avx {
    use super::*;
    use std::arch::x86_64::*;
    use wide::f32x8;

    /// Coordinates of lanes `4h..4h + 4` as (x, y, z) vectors of f64, their lanes in the
    /// order (0, 2, 1, 3) that the in-register transpose leaves them in.
    type Half = [__m256d; 3];

    /// `DVec3` is three packed f64, so (x, y) is one 16-byte load and z the next word.
    const _: () = assert!(std::mem::size_of::<DVec3>() == 24);

    #[inline(always)]
    unsafe fn load_half(at: impl Fn(u32) -> *const f64, idx: &[u32]) -> Half {
        let (p0, p1, p2, p3) = (at(idx[0]), at(idx[1]), at(idx[2]), at(idx[3]));
        // SAFETY: each pointer is a whole DVec3 of the caller's slice.
        unsafe {
            let a = _mm256_set_m128d(_mm_loadu_pd(p1), _mm_loadu_pd(p0)); // x0 y0 x1 y1
            let b = _mm256_set_m128d(_mm_loadu_pd(p3), _mm_loadu_pd(p2)); // x2 y2 x3 y3
            let z02 = _mm_loadh_pd(_mm_load_sd(p0.add(2)), p2.add(2));
            let z13 = _mm_loadh_pd(_mm_load_sd(p1.add(2)), p3.add(2));
            [_mm256_unpacklo_pd(a, b), _mm256_unpackhi_pd(a, b), _mm256_set_m128d(z13, z02)]
        }
    }

    /// Lanes `k` of `x` (both halves), each a pointer to its vertex's x.
    #[inline(always)]
    unsafe fn load(x: *const DVec3, idx: &[u32; LANES]) -> [Half; 2] {
        // SAFETY: the indices are in bounds (validated at build time).
        let at = |i: u32| unsafe { x.add(i as usize) } as *const f64;
        // SAFETY: forwarded.
        unsafe { [load_half(at, &idx[..4]), load_half(at, &idx[4..])] }
    }

    /// The two halves' differences rounded to f32 and put back in lane order.
    #[inline(always)]
    unsafe fn round(lo: __m256d, hi: __m256d) -> f32x8 {
        // SAFETY: AVX is enabled at compile time (this module's cfg).
        let v = unsafe { _mm256_permute_ps(_mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo)), 0b11_01_10_00) };
        // SAFETY: f32x8 is 32 bytes holding the eight lanes in order, as __m256 is.
        unsafe { std::mem::transmute::<__m256, f32x8>(v) }
    }

    #[inline(always)]
    unsafe fn difference(a: &[Half; 2], b: &[Half; 2]) -> Vec3x8 {
        // SAFETY: AVX is enabled at compile time.
        unsafe {
            let axis = |d: usize| round(_mm256_sub_pd(a[0][d], b[0][d]), _mm256_sub_pd(a[1][d], b[1][d]));
            Vec3x8 { x: axis(0), y: axis(1), z: axis(2) }
        }
    }

    #[inline(always)]
    pub(super) unsafe fn gather_shape<const N: usize>(x: Shared<DVec3>, idx: &[[u32; LANES]; N]) -> [Vec3x8; N] {
        // SAFETY: forwarded contract; reads only.
        let base = unsafe { load(x.ptr(0), &idx[0]) };
        let zero = f32x8::ZERO;
        let mut out = [Vec3x8 { x: zero, y: zero, z: zero }; N];
        for v in 1..N {
            // SAFETY: as above.
            out[v] = unsafe { difference(&load(x.ptr(0), &idx[v]), &base) };
        }
        out
    }

    #[inline(always)]
    pub(super) unsafe fn gather_moved(x: Shared<DVec3>, x_prev: &[DVec3], idx: &[u32; LANES]) -> Vec3x8 {
        // SAFETY: forwarded contract; reads only.
        unsafe { difference(&load(x.ptr(0), idx), &load(x_prev.as_ptr(), idx)) }
    }

    #[inline(always)]
    pub(super) unsafe fn scatter_add(v: Vec3x8, x: Shared<DVec3>, idx: &[u32; LANES], n: usize) {
        // SAFETY: f32x8 and __m256 are the same eight f32 lanes.
        let lanes = |a: f32x8| unsafe { std::mem::transmute::<f32x8, __m256>(a) };
        let (vx, vy, vz) = (lanes(v.x), lanes(v.y), lanes(v.z));
        // SAFETY: AVX is enabled at compile time; each pointer is a whole DVec3 that no
        // one else touches (forwarded contract), and the first n indices are distinct.
        unsafe {
            for half in 0..2 {
                let widen = |a: __m256| {
                    _mm256_cvtps_pd(if half == 0 { _mm256_castps256_ps128(a) } else { _mm256_extractf128_ps(a, 1) })
                };
                let (px, py, pz) = (widen(vx), widen(vy), widen(vz)); // lanes in order
                let a = _mm256_unpacklo_pd(px, py); // x0 y0 x2 y2
                let b = _mm256_unpackhi_pd(px, py); // x1 y1 x3 y3
                let xy = [
                    _mm256_castpd256_pd128(a),
                    _mm256_castpd256_pd128(b),
                    _mm256_extractf128_pd(a, 1),
                    _mm256_extractf128_pd(b, 1),
                ];
                let (z01, z23) = (_mm256_castpd256_pd128(pz), _mm256_extractf128_pd(pz, 1));
                let z = [z01, _mm_unpackhi_pd(z01, z01), z23, _mm_unpackhi_pd(z23, z23)];
                for j in 0..4 {
                    let k = 4 * half + j;
                    if k >= n {
                        return;
                    }
                    let p = x.ptr(idx[k] as usize) as *mut f64;
                    _mm_storeu_pd(p, _mm_add_pd(_mm_loadu_pd(p), xy[j]));
                    _mm_store_sd(p.add(2), _mm_add_sd(_mm_load_sd(p.add(2)), z[j]));
                }
            }
        }
    }
}

#[cfg(all(test, target_arch = "x86_64", target_feature = "avx"))]
mod tests {
    use super::*;

    /// Positions far from the origin and close together, so that rounding matters, and
    /// index sets with repeats across vertices (as padded batches have).
    fn positions() -> Vec<DVec3> {
        (0..40)
            .map(|i| {
                let s = i as f64;
                DVec3::new(1000.0 + 0.013 * s, -3.7 + 1e-7 * s * s, 0.25 * (s * 0.7).sin())
            })
            .collect()
    }

    fn bits(v: &Vec3x8) -> Vec<u32> {
        [v.x, v.y, v.z].iter().flat_map(|a| a.to_array().map(f32::to_bits)).collect()
    }

    /// The AVX transposes give the portable form's bits, for gathers and for scatters
    /// of full and partial batches.
    #[test]
    fn avx_matches_portable_bit_for_bit() {
        let mut x = positions();
        let x_prev: Vec<DVec3> = x.iter().map(|p| *p - DVec3::new(1e-4, -2e-5, 3e-6)).collect();
        let idx: [[u32; LANES]; 4] = std::array::from_fn(|v| std::array::from_fn(|k| (7 * k + 3 * v) as u32 % 40));
        let shared = Shared::new(&mut x);
        // SAFETY: one thread.
        let (a, b) = unsafe { (avx::gather_shape(shared, &idx), portable::gather_shape(shared, &idx)) };
        for v in 0..4 {
            assert_eq!(bits(&a[v]), bits(&b[v]), "corner {v}");
        }
        assert!(a[1].x.to_array().iter().any(|&c| c != 0.0), "the gather read something");
        // SAFETY: one thread.
        let (a, b) =
            unsafe { (avx::gather_moved(shared, &x_prev, &idx[2]), portable::gather_moved(shared, &x_prev, &idx[2])) };
        assert_eq!(bits(&a), bits(&b));
        for n in [LANES, 5, 1] {
            let (mut xa, mut xb) = (positions(), positions());
            let step = a * wide::f32x8::from(std::array::from_fn::<f32, LANES, _>(|k| 1.0 + k as f32));
            let distinct: [u32; LANES] = std::array::from_fn(|k| (5 * k + 1) as u32);
            // SAFETY: one thread; distinct indices.
            unsafe {
                avx::scatter_add(step, Shared::new(&mut xa), &distinct, n);
                portable::scatter_add(step, Shared::new(&mut xb), &distinct, n);
            }
            let to_bits = |x: &[DVec3]| x.iter().flat_map(|p| p.to_array().map(f64::to_bits)).collect::<Vec<_>>();
            assert_eq!(to_bits(&xa), to_bits(&xb), "{n} lanes");
            assert_eq!(xa.iter().zip(positions()).filter(|(p, q)| **p != *q).count(), n, "{n} lanes moved");
        }
    }
}
