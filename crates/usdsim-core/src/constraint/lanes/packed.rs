//! A lane kind's per-element data in structure-of-arrays form: what a batch of eight
//! elements reads as whole vectors instead of assembling lane by lane.
//!
//! Assembling lanes from an array of element structs goes through the stack, one lane
//! at a time, and every vector read back from it waits on a stalled store forward: on
//! cloth_64 that was a fifth of the hinge kernel's time. Here each field is its own
//! array in storage order, so the eight elements from any start are one unaligned load
//! (a team member's share may start anywhere in a colour). The arrays run `LANES`
//! entries past the last element (copies of it), so a short batch at the end still
//! loads eight: the extra lanes compute on whole elements and write nothing back.

use super::LANES;
use wide::f32x8;

/// `V` vertex indices and `F` scalar fields per element, one array each.
#[derive(Clone, Debug)]
pub(crate) struct Packed<const V: usize, const F: usize> {
    v: [Vec<u32>; V],
    f: [Vec<f32>; F],
}

impl<const V: usize, const F: usize> Default for Packed<V, F> {
    fn default() -> Self {
        Self { v: std::array::from_fn(|_| Vec::new()), f: std::array::from_fn(|_| Vec::new()) }
    }
}

impl<const V: usize, const F: usize> Packed<V, F> {
    /// Packs `len` elements, element `i` giving its vertices and fields as `of(i)`.
    pub fn new(len: usize, of: impl Fn(usize) -> ([u32; V], [f32; F])) -> Self {
        let mut out = Self::default();
        for i in (0..len).chain(std::iter::repeat_n(len.saturating_sub(1), if len > 0 { LANES } else { 0 })) {
            let (v, f) = of(i);
            for (column, value) in out.v.iter_mut().zip(v) {
                column.push(value);
            }
            for (column, value) in out.f.iter_mut().zip(f) {
                column.push(value);
            }
        }
        out
    }

    /// Sets element `i` of `len` to `row`, and the padding too when `i` is the last.
    pub fn set(&mut self, i: usize, len: usize, row: ([u32; V], [f32; F])) {
        let at = if i + 1 == len { i..len + LANES } else { i..i + 1 };
        for (column, value) in self.v.iter_mut().zip(row.0) {
            column[at.clone()].fill(value);
        }
        for (column, value) in self.f.iter_mut().zip(row.1) {
            column[at.clone()].fill(value);
        }
    }

    /// Vertex slot `slot` of the eight elements from `start`.
    #[inline(always)]
    pub fn vertices(&self, slot: usize, start: usize) -> [u32; LANES] {
        self.v[slot][start..start + LANES].try_into().expect("padded to a whole batch")
    }

    /// Field `field` of the eight elements from `start`.
    #[inline(always)]
    pub fn field(&self, field: usize, start: usize) -> f32x8 {
        let lanes: [f32; LANES] = self.f[field][start..start + LANES].try_into().expect("padded to a whole batch");
        f32x8::from(lanes)
    }
}

/// `w[idx[k]]` in lane `k`: the per-vertex inverse masses of one corner. AVX2's gather
/// where the target has it (measured a little faster than eight loads and inserts on
/// cloth_64), else lane by lane; the same loads either way.
#[inline(always)]
pub(crate) fn gather_f32(w: &[f32], idx: &[u32; LANES]) -> f32x8 {
    debug_assert!(idx.iter().all(|&i| (i as usize) < w.len()));
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    {
        use std::arch::x86_64::*;
        // SAFETY: AVX2 is enabled at compile time; every index is in bounds (validated
        // when the elements were built) and below 2³¹.
        let v = unsafe { _mm256_i32gather_ps::<4>(w.as_ptr(), _mm256_loadu_si256(idx.as_ptr().cast())) };
        // SAFETY: f32x8 is the same eight f32 lanes as __m256.
        unsafe { std::mem::transmute::<__m256, f32x8>(v) }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
    f32x8::from(idx.map(|i| w[i as usize]))
}

/// A batch's multipliers in lanes: one load for a whole batch; a short one repeats its
/// last (the lanes past it write nothing back).
#[inline(always)]
pub(crate) fn lanes_of(lambda: &[f32]) -> f32x8 {
    match <[f32; LANES]>::try_from(lambda) {
        Ok(whole) => f32x8::from(whole),
        Err(_) => f32x8::from(std::array::from_fn::<f32, LANES, _>(|k| lambda[k.min(lambda.len() - 1)])),
    }
}

/// A batch's pairs of multipliers as two lane vectors (firsts, seconds), as
/// [`lanes_of`] does for single ones; a whole batch is split in registers where the
/// target has AVX2.
#[inline(always)]
pub(crate) fn pairs_of(lambda: &[[f32; 2]]) -> [f32x8; 2] {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    if lambda.len() == LANES {
        use std::arch::x86_64::*;
        // SAFETY: AVX2 is enabled at compile time; the batch is 16 contiguous f32.
        unsafe {
            let p = lambda.as_ptr().cast::<f32>();
            let (lo, hi) = (_mm256_loadu_ps(p), _mm256_loadu_ps(p.add(LANES))); // a0 b0 a1 b1 …
                                                                                // Per 128-bit half: (a0 a1 a4 a5 | a2 a3 a6 a7), then the 64-bit pairs in order.
            let split = |mask| {
                let mixed = match mask {
                    0 => _mm256_shuffle_ps::<0b10_00_10_00>(lo, hi),
                    _ => _mm256_shuffle_ps::<0b11_01_11_01>(lo, hi),
                };
                let ordered = _mm256_castpd_ps(_mm256_permute4x64_pd::<0b11_01_10_00>(_mm256_castps_pd(mixed)));
                std::mem::transmute::<__m256, f32x8>(ordered)
            };
            return [split(0), split(1)];
        }
    }
    let n = lambda.len();
    [0, 1].map(|c| f32x8::from(std::array::from_fn::<f32, LANES, _>(|k| lambda[k.min(n - 1)][c])))
}

/// Lanes `k < n` set (all bits), the others clear: the batch's live elements.
#[inline(always)]
pub(crate) fn live(n: usize) -> f32x8 {
    let index = f32x8::from([0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
    index.simd_lt(f32x8::splat(n as f32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_read_from_any_start_and_pad_with_the_last_element() {
        let p = Packed::<2, 1>::new(11, |i| ([i as u32, 100 + i as u32], [0.5 * i as f32]));
        assert_eq!(p.vertices(1, 3), [103, 104, 105, 106, 107, 108, 109, 110]);
        assert_eq!(p.vertices(0, 9), [9, 10, 10, 10, 10, 10, 10, 10]);
        assert_eq!(p.field(0, 10).to_array(), [5.0; LANES]);
        let mut q = p.clone();
        q.set(10, 11, ([7, 7], [-1.0]));
        q.set(4, 11, ([1, 2], [9.0]));
        let fresh = Packed::<2, 1>::new(11, |i| match i {
            10 => ([7, 7], [-1.0]),
            4 => ([1, 2], [9.0]),
            _ => ([i as u32, 100 + i as u32], [0.5 * i as f32]),
        });
        assert_eq!((q.v, q.f), (fresh.v, fresh.f), "set gives what packing anew gives");
        let w: Vec<f32> = (0..20).map(|i| i as f32 * 0.25).collect();
        assert_eq!(gather_f32(&w, &p.vertices(0, 2)).to_array(), std::array::from_fn(|k| (2 + k) as f32 * 0.25));
        assert_eq!(live(3).to_array().map(|l| l.to_bits() != 0), [true, true, true, false, false, false, false, false]);
        let pairs: Vec<[f32; 2]> = (0..LANES).map(|k| [k as f32, -(k as f32)]).collect();
        for n in [LANES, 3] {
            let [a, b] = pairs_of(&pairs[..n]);
            assert_eq!(a.to_array(), std::array::from_fn(|k| k.min(n - 1) as f32), "{n}");
            assert_eq!(b.to_array(), std::array::from_fn(|k| -(k.min(n - 1) as f32)), "{n}");
            assert_eq!(lanes_of(&a.to_array()[..n]).to_array(), a.to_array());
        }
        assert!(Packed::<1, 1>::new(0, |_| ([0], [0.0])).v[0].is_empty());
    }
}
